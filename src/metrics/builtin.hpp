#pragma once
// Registration hooks of the built-in metric families; registry.cpp calls each once.
// Adding a family: write its register function and list it in registry.cpp.
#include "probity/metric.hpp"

namespace probity::metrics {
void register_bleu(MetricRegistry& registry);    // bleu
void register_chrf(MetricRegistry& registry);    // chrf, chrf++
void register_ter(MetricRegistry& registry);     // ter
void register_rouge(MetricRegistry& registry);   // rouge1, rouge2, rougeL, rougeLsum
void register_mi(MetricRegistry& registry);      // mi:<F>/<E>/<R>/<P>, gem, gppm-j, tvd-mi, stmt-tv
void register_expert(MetricRegistry& registry);  // expert (ExPerT, offline realisation)
void register_llm_judge(MetricRegistry& registry);    // llm-judge (needs an LLM session)
void register_scores_file(MetricRegistry& registry);  // scores:FILE (a user's precomputed scores)
void register_external(MetricRegistry& registry);     // exec:COMMAND, http:URL (user scorers)
void register_baselines(MetricRegistry& registry);    // length, random (reference-free)
void register_bertscore(MetricRegistry& registry);    // bertscore (pluggable token embeddings)
// The option every reference-based metric takes, refs=<id>[|<id>...] (beside a family's own
// refs=all|first): `inner` sees only the references with those ids (reference_selection.cpp).
// UsageError for a reference-free metric.
const std::vector<OptionSpec>& reference_options_table();
std::vector<std::string> parse_reference_ids(std::string_view text);  // "id:A|B" -> {A, B}
// No ids: `inner` itself. `text`: the metric as named, for the error.
std::unique_ptr<Metric> wrap_reference_selection(std::unique_ptr<Metric> inner,
                                                 const std::string& text,
                                                 std::vector<std::string> ids);
// The option every metric takes, style=llm (style_llm=<role>, style_reasks=2): texts are
// rewritten into neutral statements by a model before `inner` sees them (style_normalized.cpp).
const std::vector<OptionSpec>& style_options_table();
std::unique_ptr<Metric> wrap_style_normalized(std::unique_ptr<Metric> inner, const MetricSpec& spec,
                                              const MetricContext& context);
// fit=FILE (probity/fit.hpp): `inner`, a metric of family `base` made with the options the file
// was fitted with, loads the file's state and fits nothing more; its signature names the file's
// SHA-256. UsageError for a file of another metric or options, InputError for a corrupted one.
std::unique_ptr<Metric> load_frozen_fit(std::unique_ptr<Metric> inner, const std::string& base,
                                        const std::string& path);
}  // namespace probity::metrics
