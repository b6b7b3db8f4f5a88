// `probity significance` as one request (probity/significance.hpp): the systems of the input,
// each metric's item statistics for them, the paired test per metric and, over all pairs, the
// significance clusters. The command line and Python render what this returns.
#include <fmt/format.h>
#include <fmt/ranges.h>

#include <algorithm>
#include <cmath>
#include <string>
#include <vector>

#include "probity/engine.hpp"
#include "probity/error.hpp"
#include "probity/scoring.hpp"
#include "probity/significance.hpp"

namespace probity {
namespace {

std::string system_of(const Candidate& c) {
  return c.system.empty() ? c.id : c.system;
}

void check_request(const SignificanceRequest& r) {
  if (r.metrics.empty()) throw UsageError("significance: give at least one metric");
  if (!(r.alpha > 0.0 && r.alpha < 1.0))
    throw UsageError(fmt::format("significance: alpha {} is not in (0, 1)", r.alpha));
  if (r.width && (*r.width < 0 || *r.width > 10))
    throw UsageError(fmt::format("significance: width {} is not in 0..10", *r.width));
}

// The systems in order of first appearance, the baseline first.
std::vector<std::string> systems_of(const Dataset& ds, const SignificanceRequest& r) {
  std::vector<std::string> systems;
  for (const auto& t : ds.tasks)
    for (const auto& c : t.candidates)
      if (std::find(systems.begin(), systems.end(), system_of(c)) == systems.end())
        systems.push_back(system_of(c));
  if (!r.baseline.empty()) {
    auto it = std::find(systems.begin(), systems.end(), r.baseline);
    if (it == systems.end())
      throw UsageError(fmt::format("baseline {}: no such system (systems: {})", r.baseline,
                                   fmt::join(systems, ", ")));
    std::rotate(systems.begin(), it, it + 1);
  }
  if (systems.size() < 2)
    throw UsageError(fmt::format(
        "significance: paired tests need at least two systems ({} found in {}); give one --hyp "
        "file per system, or a dataset whose tasks have a candidate of each system",
        systems.size(), r.data.name()));
  return systems;
}

// Item i of system s (items[s * tasks + i]) is the candidate of that system in task i.
std::vector<ItemRef> paired_items(const Dataset& ds, const std::vector<std::string>& systems) {
  std::vector<ItemRef> items(systems.size() * ds.tasks.size());
  for (std::size_t t = 0; t < ds.tasks.size(); ++t) {
    const Task& task = ds.tasks[t];
    std::vector<int> found(systems.size(), -1);
    for (std::size_t c = 0; c < task.candidates.size(); ++c) {
      const auto s = static_cast<std::size_t>(
          std::find(systems.begin(), systems.end(), system_of(task.candidates[c])) -
          systems.begin());
      if (found[s] >= 0)
        throw InputError(
            ds.path, task.line, "candidates",
            fmt::format("task '{}' has two candidates of system '{}'", task.task_id, systems[s]));
      found[s] = static_cast<int>(c);
    }
    for (std::size_t s = 0; s < systems.size(); ++s) {
      if (found[s] < 0)
        throw InputError(ds.path, task.line, "candidates",
                         fmt::format("task '{}' has no candidate of system '{}': paired tests "
                                     "need every system on every task",
                                     task.task_id, systems[s]));
      items[s * ds.tasks.size() + t] = {t, static_cast<std::size_t>(found[s])};
    }
  }
  return items;
}

// InputError naming the task of the first undefined item score (or statistic, for a metric
// aggregated from summed statistics): a test of means over the defined items only would compare
// the systems on different items.
void require_defined(const Dataset& ds, const std::vector<std::string>& systems,
                     const MetricSelection& sel, const MetricStats& stats) {
  const Metric& metric = *sel.metric;
  const bool mean = paired_aggregation_of(metric) == PairedAggregation::kItemMean;
  std::vector<double> parts(metric.parts().size());
  const std::size_t n = ds.tasks.size();
  for (std::size_t s = 0; s < systems.size(); ++s) {
    for (std::size_t t = 0; t < n; ++t) {
      const auto row = stats.row(s * n + t);
      bool undefined = false;
      if (mean) {
        metric.sentence_score(row, parts);
        undefined = std::isnan(parts[sel.primary]);
      } else {
        undefined = std::any_of(row.begin(), row.end(), [](double v) { return std::isnan(v); });
      }
      if (!undefined) continue;
      const Task& task = ds.tasks[t];
      throw InputError(
          ds.path, task.line, "candidates",
          fmt::format("metric {}: the score of system '{}' in task '{}' is "
                      "undefined ({}); paired tests need every item scored",
                      sel.primary_name(), systems[s], task.task_id, metric.undefined_reason(row)));
    }
  }
}

}  // namespace

SignificanceRun run_significance(const SignificanceRequest& request, Engine& engine) {
  check_request(request);
  const Dataset ds = request.data.load(ReadOptions{request.skip_invalid});
  SignificanceRun run;
  run.data = request.data.name();
  run.skipped = ds.skipped;
  run.systems = systems_of(ds, request);
  run.items = ds.tasks.size();
  const std::vector<ItemRef> items = paired_items(ds, run.systems);

  std::vector<MetricSelection> metrics;
  for (const auto& m : request.metrics) metrics.push_back(select_metric(m, engine));
  check_distinct_names(metrics);
  ScoreOptions so;
  so.threads = request.options.threads;
  const auto stats = compute_stats(ds, items, metrics, so);

  PairedTestOptions po = request.options;
  run.clusters = request.clusters.value_or(run.systems.size() > 2);
  po.all_pairs = run.clusters;
  run.kind = po.kind;
  run.samples = po.samples > 0 ? po.samples : default_paired_samples(po.kind);
  run.seed = po.seed;
  run.correction = request.correction;
  run.alpha = request.alpha;

  const std::size_t n_sys = run.systems.size(), n = ds.tasks.size();
  for (std::size_t m = 0; m < metrics.size(); ++m) {
    const MetricSelection& sel = metrics[m];
    require_defined(ds, run.systems, sel, stats[m]);
    const std::size_t k = stats[m].num_stats;
    std::vector<std::vector<double>> per_system(n_sys);
    for (std::size_t s = 0; s < n_sys; ++s) {
      const auto first = stats[m].stats.begin() + static_cast<std::ptrdiff_t>(s * n * k);
      per_system[s].assign(first, first + static_cast<std::ptrdiff_t>(n * k));
    }
    SignificanceMetric out;
    out.name = sel.primary_name();
    out.spec = sel.spec;
    out.higher_is_better = sel.metric->higher_is_better();
    out.test = paired_test(*sel.metric, per_system, po, sel.primary);
    out.width =
        request.width.value_or(out.test.aggregation == PairedAggregation::kSacrebleu ? 1 : 4);
    if (run.clusters)
      out.clusters =
          significance_clusters(out.test, out.higher_is_better, run.correction, run.alpha);
    run.metrics.push_back(std::move(out));
  }

  // Holm multiplies the smallest p-value by the number of pairs; (c + 1) / (N + 1) is never
  // below 1 / (N + 1), so too few samples leave every pair inseparable whatever the data.
  const std::size_t pairs = n_sys * (n_sys - 1) / 2;
  if (run.clusters && run.correction == stats::RankCorrection::kHolm &&
      static_cast<double>(pairs) / static_cast<double>(run.samples + 1) > run.alpha) {
    const auto needed = static_cast<std::size_t>(
        std::ceil(static_cast<double>(pairs) / run.alpha - 1e-9));  // N + 1 >= pairs / alpha
    run.warnings.push_back(fmt::format(
        "Holm over {} pairs cannot separate any two systems with {} {}: the smallest p-value, "
        "1/{}, adjusts to {:.3g} > alpha {}; use at least {} {} (or no correction)",
        pairs, run.samples, po.kind == PairedTestKind::kBootstrap ? "resamples" : "trials",
        run.samples + 1, static_cast<double>(pairs) / static_cast<double>(run.samples + 1),
        run.alpha, needed, po.kind == PairedTestKind::kBootstrap ? "resamples" : "trials"));
  }
  return run;
}

}  // namespace probity
