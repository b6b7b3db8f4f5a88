#pragma once
// Registration hooks of the built-in metric families; registry.cpp calls each once.
// Adding a family: write its register function and list it in registry.cpp.
#include "probity/engine.hpp"
#include "probity/metric.hpp"

namespace probity::metrics {
void register_bleu(MetricRegistry& registry);    // bleu
void register_chrf(MetricRegistry& registry);    // chrf, chrf++
void register_rouge(MetricRegistry& registry);   // rouge1, rouge2, rougeL, rougeLsum
void register_mi(MetricRegistry& registry);      // mi:<F>/<E>/<R>/<P>, gem, gppm-j, tvd-mi, stmt-tv
void register_expert(MetricRegistry& registry);  // expert (ExPerT, offline realisation)
void register_llm_judge(MetricRegistry& registry);    // llm-judge (needs an LLM session)
void register_scores_file(MetricRegistry& registry);  // scores:FILE (a user's precomputed scores)
void register_baselines(MetricRegistry& registry);    // length, random (reference-free)
// The option every metric takes, style=llm (style_llm=<role>, style_reasks=2): texts are
// rewritten into neutral statements by a model before `inner` sees them (style_normalized.cpp).
std::unique_ptr<Metric> wrap_style_normalized(std::unique_ptr<Metric> inner, const MetricSpec& spec,
                                              Engine& engine);
}  // namespace probity::metrics
