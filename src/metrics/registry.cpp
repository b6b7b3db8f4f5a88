// The metric registry: the built-in families, the options every metric takes, and making a
// metric from its name (the family's factory, wrapped for refs= and style=).
#include <fmt/format.h>

#include <algorithm>
#include <stdexcept>

#include "metrics/builtin.hpp"
#include "predict/pool.hpp"
#include "probity/error.hpp"
#include "probity/metric.hpp"

namespace probity {

MetricRegistry MetricRegistry::builtin() {
  MetricRegistry r;
  metrics::register_bleu(r);
  metrics::register_chrf(r);
  metrics::register_ter(r);
  metrics::register_rouge(r);
  metrics::register_mi(r);
  metrics::register_expert(r);
  metrics::register_llm_judge(r);
  metrics::register_scores_file(r);
  metrics::register_external(r);
  metrics::register_baselines(r);
  metrics::register_bertscore(r);
  return r;
}

const std::vector<OptionSpec>& common_options() {
  static const std::vector<OptionSpec> table = [] {  // immutable
    std::vector<OptionSpec> all = {
        option_text("name", "",
                    "display name in score records, tables and reports (name=mine); the "
                    "signature does not change"),
        option_text("fit", "",
                    "a model file written by `probity fit`: the metric loads that frozen fit "
                    "instead of fitting on the data it scores, so a pair's score does not "
                    "depend on what else is scored (the signature names the file's SHA-256)")};
    const auto& refs = metrics::reference_options_table();
    all.insert(all.end(), refs.begin(), refs.end());
    const auto& style = metrics::style_options_table();
    all.insert(all.end(), style.begin(), style.end());
    return all;
  }();
  return table;
}

void MetricRegistry::add(MetricInfo info) {
  infos_.push_back(std::move(info));
}

std::unique_ptr<Metric> MetricRegistry::create(std::string_view text,
                                               const MetricContext& context) const {
  return create(MetricSpec::parse(text), context);
}

std::unique_ptr<Metric> MetricRegistry::create(const MetricSpec& parsed,
                                               const MetricContext& context) const {
  if (!parsed.part().empty())
    throw UsageError(fmt::format("metric '{}.{}': a part selects what is written, not a metric",
                                 parsed.base(), parsed.part()));
  MetricSpec spec = parsed;  // bound to the table below, which lives only here
  auto it = std::find_if(infos_.begin(), infos_.end(),
                         [&](const MetricInfo& i) { return i.name == spec.base(); });
  if (it == infos_.end())
    throw UsageError(
        fmt::format("unknown metric '{}' (run `probity metrics` for the list)", spec.base()));
  // refs=<ids> picks references by id for any family (reference_selection.cpp); the family then
  // uses every chosen one (its own refs=all, where it has the option).
  std::vector<std::string> reference_ids;
  if (const std::string* refs = spec.given("refs"); refs && *refs != "all" && *refs != "first") {
    reference_ids = metrics::parse_reference_ids(*refs);
    const bool own = std::any_of(it->options.begin(), it->options.end(),
                                 [](const OptionSpec& o) { return o.name == "refs"; });
    spec = own ? spec.with_option("refs", "all") : spec.without_option("refs");
  }
  // The family's options and the common options every metric takes.
  std::vector<OptionSpec> table = it->options;
  for (const auto& o : common_options())
    if (std::none_of(table.begin(), table.end(),
                     [&](const OptionSpec& own) { return own.name == o.name; }))
      table.push_back(o);
  spec.bind(table);
  (void)spec.get("name");  // read by select_metric (MetricSelection::display)
  // fit=FILE: the family's metric loads a frozen fit, with predictors of its own (a pooled one
  // is shared with metrics that fit on the data scored).
  const std::string frozen = spec.get("fit");
  MetricContext family_context = context;
  if (!frozen.empty()) {
    if (!reference_ids.empty() || spec.get("style") != "none")
      throw UsageError(fmt::format(
          "metric '{}': fit= cannot be combined with style= or refs=<ids> (the frozen fit is "
          "of the metric without them)",
          spec.text()));
    family_context.predictors = std::make_shared<predict::PredictorPool>();
  }
  std::unique_ptr<Metric> metric;
  try {
    std::unique_ptr<Metric> family = it->factory(spec, family_context);
    if (!frozen.empty()) family = metrics::load_frozen_fit(std::move(family), spec.base(), frozen);
    metric = metrics::wrap_reference_selection(
        metrics::wrap_style_normalized(std::move(family), spec, context), spec.text(),
        reference_ids);
  } catch (const std::invalid_argument& e) {
    // Components (predictors, measures) reject bad settings this way; from a spec it is a usage
    // error naming the spec (exit 2).
    throw UsageError(fmt::format("metric '{}': {}", spec.text(), e.what()));
  }
  spec.check_all_used();
  return metric;
}

}  // namespace probity
