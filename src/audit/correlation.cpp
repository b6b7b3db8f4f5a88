// Correlation of a metric with human ratings: the statistical-alignment test of Xu et al. 2025.
#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <map>
#include <numeric>
#include <tuple>

#include "probity/audit.hpp"
#include "probity/engine.hpp"
#include "probity/error.hpp"
#include "probity/stats.hpp"
#include "stats/mtme.hpp"
#include "util/enum_names.hpp"
#include "util/hash.hpp"

namespace probity {

std::vector<std::vector<double>> human_matrix(const Dataset& ds, std::span<const ItemRef> items,
                                              const std::vector<std::string>& dimensions) {
  std::vector<std::vector<double>> human(dimensions.size(), std::vector<double>(items.size()));
  for (std::size_t d = 0; d < dimensions.size(); ++d)
    for (std::size_t i = 0; i < items.size(); ++i)
      human[d][i] =
          ds.tasks[items[i].task].candidates[items[i].candidate].human_mean(dimensions[d]);
  return human;
}

namespace {

// Values of both series at the given item indices where both are defined.
void defined_pairs(std::span<const double> a, std::span<const double> b,
                   std::span<const std::size_t> idx, std::vector<double>& x,
                   std::vector<double>& y) {
  x.clear();
  y.clear();
  for (std::size_t i : idx) {
    if (std::isfinite(a[i]) && std::isfinite(b[i])) {
      x.push_back(a[i]);
      y.push_back(b[i]);
    }
  }
}

// The percentile CI of a level statistic under resampling of `unit`, and the resamples where it
// is defined. stats::level_bootstrap_values draws as stats::bootstrap does (one stage) or tasks
// then systems from one generator per resample (two stages), so the bytes are the same at any
// thread count.
std::tuple<double, double, std::size_t> level_bootstrap(stats::LevelStatistic statistic,
                                                        stats::Level level,
                                                        const stats::LevelData& data,
                                                        ResampleUnit unit, std::uint64_t seed,
                                                        const CorrelationOptions& options) {
  const stats::LevelUnits units = unit == ResampleUnit::kTasks ? stats::LevelUnits::kTasks
                                  : unit == ResampleUnit::kSystems
                                      ? stats::LevelUnits::kSystems
                                      : stats::LevelUnits::kTasksAndSystems;
  const std::vector<double> values = stats::level_bootstrap_values(
      statistic, level, data, units, options.bootstrap, seed, options.threads);
  const auto ci = stats::percentile_interval(values, options.confidence);
  const auto defined = static_cast<std::size_t>(
      std::count_if(values.begin(), values.end(), [](double v) { return !std::isnan(v); }));
  return {ci.low, ci.high, defined};
}

}  // namespace

namespace {
constexpr auto kResampleUnits = std::to_array<util::EnumName<ResampleUnit>>({
    {ResampleUnit::kByLevel, "level"},
    {ResampleUnit::kTasks, "tasks"},
    {ResampleUnit::kSystems, "systems"},
    {ResampleUnit::kBoth, "both"},
});
}  // namespace

ResampleUnit parse_resample_unit(std::string_view name) {
  if (const auto u = util::parse_enum(kResampleUnits, name)) return *u;
  throw std::invalid_argument(
      fmt::format("unknown resampling unit '{}' ({})", name, util::listed_names(kResampleUnits)));
}

std::string_view resample_unit_name(ResampleUnit unit) {
  return util::name_of(kResampleUnits, unit, "level");
}

std::vector<CorrelationResult> human_correlations(std::span<const double> scores,
                                                  const std::vector<std::vector<double>>& human,
                                                  const std::vector<std::string>& dimensions,
                                                  const CorrelationOptions& options) {
  const double nan = std::nan("");
  stats::BootstrapOptions bo;
  bo.resamples = options.bootstrap;
  bo.confidence = options.confidence;
  bo.seed = options.seed;
  bo.threads = options.threads;

  std::vector<std::size_t> all(scores.size());
  std::iota(all.begin(), all.end(), 0);
  std::vector<CorrelationResult> rows;
  std::vector<double> x, y;
  for (std::size_t d = 0; d < dimensions.size(); ++d) {
    defined_pairs(scores, human[d], all, x, y);
    CorrelationResult r;
    r.dimension = dimensions[d];
    r.n = x.size();
    auto sp = stats::spearman(x, y);
    r.spearman = sp.statistic;
    r.spearman_p = sp.p_two_sided;
    r.kendall = stats::kendall_tau_b(x, y).statistic;
    r.pearson = stats::pearson(x, y).statistic;
    r.spearman_lo = r.spearman_hi = nan;
    if (options.bootstrap > 0 && x.size() > 2) {
      auto b = stats::bootstrap_correlation(x, y, stats::CorrelationType::kSpearman, bo);
      r.spearman_lo = b.ci.low;
      r.spearman_hi = b.ci.high;
    }
    rows.push_back(r);
  }
  if (dimensions.size() < 2) return rows;

  CorrelationResult m;
  m.dimension = "mean";
  m.n = 0;
  for (const auto& r : rows) m.n = std::max(m.n, r.n);
  for (const auto& r : rows) {
    m.spearman += r.spearman;
    m.kendall += r.kendall;
    m.pearson += r.pearson;
  }
  const double nd = static_cast<double>(rows.size());
  m.spearman /= nd;
  m.kendall /= nd;
  m.pearson /= nd;
  m.spearman_p = nan;  // a mean of correlations has no single test
  m.spearman_lo = m.spearman_hi = nan;
  if (options.bootstrap > 0 && scores.size() > 2) {
    // The same item resample for every dimension, so the CI reflects their dependence.
    auto b = stats::bootstrap_mean_spearman(
        scores, std::span<const std::vector<double>>(human).first(dimensions.size()), bo);
    m.spearman_lo = b.ci.low;
    m.spearman_hi = b.ci.high;
  }
  rows.push_back(m);
  return rows;
}

stats::LevelData level_data(const Dataset& ds, std::span<const ItemRef> items,
                            std::span<const double> scores, std::span<const double> human,
                            std::vector<std::string>* system_names) {
  stats::LevelData d;
  d.num_tasks = ds.tasks.size();
  std::map<std::string, std::size_t, std::less<>> systems;
  std::vector<std::string> names;
  for (std::size_t i = 0; i < items.size(); ++i) {
    d.gold.push_back(human[i]);
    d.metric.push_back(scores[i]);
    d.task.push_back(items[i].task);
    const std::string& name = ds.tasks[items[i].task].candidates[items[i].candidate].system;
    if (name.empty()) {
      d.system.push_back(stats::kNoSystem);
      continue;
    }
    auto [it, added] = systems.try_emplace(name, names.size());
    if (added) names.push_back(name);
    d.system.push_back(it->second);
  }
  d.num_systems = names.size();
  if (system_names) *system_names = std::move(names);
  return d;
}

void require_systems(stats::Level level, const stats::LevelData& data) {
  if (level == stats::Level::kSystem && data.num_systems == 0)
    throw UsageError("--level system needs candidates that name their system (the `system` field)");
}

std::vector<LevelCorrelation> level_correlations(const Dataset& ds, std::span<const ItemRef> items,
                                                 std::span<const double> scores,
                                                 const std::vector<std::vector<double>>& human,
                                                 const std::vector<std::string>& dimensions,
                                                 std::span<const stats::Level> levels,
                                                 std::span<const stats::LevelStatistic> statistics,
                                                 const CorrelationOptions& options) {
  std::vector<LevelCorrelation> rows;
  for (stats::LevelStatistic statistic : statistics)
    if (std::none_of(levels.begin(), levels.end(), [&](stats::Level level) {
          return stats::detail::level_defines(statistic, level);
        }))
      throw UsageError(fmt::format("{} is computed at the system level only: add --level system",
                                   stats::level_statistic_name(statistic)));
  for (std::size_t dim = 0; dim < dimensions.size(); ++dim) {
    const stats::LevelData data = level_data(ds, items, scores, human[dim]);
    for (stats::Level level : levels) {
      require_systems(level, data);
      for (stats::LevelStatistic statistic : statistics) {
        if (!stats::detail::level_defines(statistic, level)) continue;
        LevelCorrelation row;
        row.dimension = dimensions[dim];
        row.level = level;
        row.statistic = statistic;
        row.result = stats::level_statistic(statistic, level, data);
        ResampleUnit unit = options.resample;
        if (unit == ResampleUnit::kByLevel)
          unit = level == stats::Level::kSystem ? ResampleUnit::kSystems : ResampleUnit::kTasks;
        if (unit != ResampleUnit::kTasks && data.num_systems == 0)
          throw UsageError(
              "resampling systems needs candidates that name their system (the `system` field)");
        row.unit = unit == ResampleUnit::kTasks     ? "tasks"
                   : unit == ResampleUnit::kSystems ? "systems"
                                                    : "tasks+systems";
        if (options.bootstrap > 0 && !std::isnan(row.result.value)) {
          const std::uint64_t seed =
              options.seed ^
              util::fnv1a64(fmt::format("{}\x1f{}\x1f{}", dimensions[dim], stats::level_name(level),
                                        stats::level_statistic_name(statistic)));
          const auto [lo, hi, defined] =
              level_bootstrap(statistic, level, data, unit, seed, options);
          row.ci_lo = lo;
          row.ci_hi = hi;
          row.resamples = defined;
        }
        rows.push_back(std::move(row));
      }
    }
  }
  return rows;
}

std::size_t derive_preferences(Dataset& ds, const std::string& dimension, double margin) {
  std::size_t count = 0;
  for (Task& t : ds.tasks) {
    if (!t.pairs.empty())
      throw UsageError(fmt::format(
          "task '{}' has human pairwise preferences: pairs are derived from ratings only for data "
          "without them",
          t.task_id));
    for (std::size_t i = 0; i < t.candidates.size(); ++i) {
      const double hi = t.candidates[i].human_mean(dimension);
      if (!std::isfinite(hi)) continue;
      for (std::size_t j = i + 1; j < t.candidates.size(); ++j) {
        const double hj = t.candidates[j].human_mean(dimension);
        if (!std::isfinite(hj)) continue;
        const char* preferred = std::abs(hi - hj) <= margin ? "tie" : hi > hj ? "a" : "b";
        t.pairs.push_back({t.candidates[i].id, t.candidates[j].id, preferred});
        ++count;
      }
    }
  }
  return count;
}

PreferenceAgreement preference_agreement(const Dataset& ds, std::span<const ItemRef> items,
                                         std::span<const double> scores,
                                         const CorrelationOptions& options) {
  // Score of each (task, candidate id).
  std::map<std::pair<std::size_t, std::string>, double> score_of;
  for (std::size_t i = 0; i < items.size(); ++i)
    score_of[{items[i].task, ds.tasks[items[i].task].candidates[items[i].candidate].id}] =
        scores[i];
  std::vector<double> a, b;
  std::vector<int> human;
  std::vector<std::size_t> task_of;  // task of each pair
  std::size_t with_pairs = 0;
  for (std::size_t t = 0; t < ds.tasks.size(); ++t) {
    with_pairs += !ds.tasks[t].pairs.empty();
    for (const Preference& p : ds.tasks[t].pairs) {
      auto sa = score_of.find({t, p.a});
      auto sb = score_of.find({t, p.b});
      a.push_back(sa == score_of.end() ? std::nan("") : sa->second);
      b.push_back(sb == score_of.end() ? std::nan("") : sb->second);
      human.push_back(p.preferred == "a" ? 1 : p.preferred == "b" ? -1 : 0);
      task_of.push_back(t);
    }
  }
  if (with_pairs == 0)
    throw UsageError("preference-acc needs tasks with human pairwise preferences (`pairs`)");
  PreferenceAgreement out;
  out.result = stats::preference_accuracy(a, b, human);
  std::vector<std::size_t> tasks;  // the tasks with a scored pair, as resampling units
  std::vector<std::vector<std::size_t>> members(ds.tasks.size());
  for (std::size_t k = 0; k < human.size(); ++k)
    if (std::isfinite(a[k]) && std::isfinite(b[k])) members[task_of[k]].push_back(k);
  for (std::size_t t = 0; t < ds.tasks.size(); ++t)
    if (!members[t].empty()) tasks.push_back(t);
  out.tasks = tasks.size();
  if (options.bootstrap > 0 && !std::isnan(out.result.accuracy)) {
    stats::BootstrapOptions bo;
    bo.resamples = options.bootstrap;
    bo.confidence = options.confidence;
    bo.threads = options.threads;
    bo.seed = options.seed ^ util::fnv1a64("preference-acc");
    auto boot = stats::bootstrap(
        tasks.size(),
        [&](std::span<const std::size_t> drawn) {
          std::vector<double> ra, rb;
          std::vector<int> rh;
          for (std::size_t u : drawn)
            for (std::size_t k : members[tasks[u]]) {
              ra.push_back(a[k]);
              rb.push_back(b[k]);
              rh.push_back(human[k]);
            }
          return stats::preference_accuracy(ra, rb, rh).accuracy;
        },
        bo);
    out.ci_lo = boot.ci.low;
    out.ci_hi = boot.ci.high;
  }
  return out;
}

}  // namespace probity

namespace probity {

std::vector<BaselineScores> baseline_scores(const Dataset& ds, std::span<const ItemRef> items) {
  std::vector<BaselineScores> out;
  for (const std::string spec : {"length", "random"}) {
    auto metric = make_metric(spec);
    BaselineScores b{"baseline:" + spec, metric->signature(), {}};
    MetricInput input;
    for (const ItemRef& it : items) {
      const Task& t = ds.tasks[it.task];
      set_input(input, t, t.candidates[it.candidate].text);
      b.values.push_back(metric->score(input)[0]);
    }
    out.push_back(std::move(b));
  }
  return out;
}

std::vector<MetricRanking> rank_metrics(const Dataset& ds, std::span<const ItemRef> items,
                                        std::span<const NamedScores> columns,
                                        const std::vector<std::vector<double>>& human,
                                        const std::vector<std::string>& dimensions,
                                        const RankOptions& options) {
  if (columns.size() < 2) throw UsageError("rank needs at least two metrics");
  if (options.perm_test == stats::PermTest::kPairs &&
      options.statistic != stats::LevelStatistic::kAccEq)
    throw UsageError("the pairs test swaps tie-calibrated comparisons: it goes with acc-eq");
  const std::size_t m = columns.size();
  std::vector<MetricRanking> out;
  for (std::size_t d = 0; d < dimensions.size(); ++d) {
    std::vector<stats::LevelData> data;
    std::vector<double> values;
    for (const auto& c : columns) {
      data.push_back(level_data(ds, items, c.values, human[d]));
      require_systems(options.level, data.back());
      values.push_back(stats::level_statistic(options.statistic, options.level, data.back()).value);
    }
    // The order by value, so that each pair is tested once: "the higher beats the lower".
    std::vector<std::size_t> order;
    stats::significance_ranks(values,
                              std::vector<std::vector<double>>(m, std::vector<double>(m, 1)),
                              options.alpha, &order);
    std::vector<std::pair<std::size_t, std::size_t>> pairs;
    for (std::size_t a = 0; a < m; ++a)
      for (std::size_t b = a + 1; b < m; ++b) pairs.emplace_back(order[a], order[b]);
    std::vector<double> raw(pairs.size());
    for (std::size_t k = 0; k < pairs.size(); ++k) {
      const auto [i, j] = pairs[k];
      stats::PermutationOptions po;
      po.permutations = options.permutations;
      po.alternative = stats::Alternative::kGreater;
      po.threads = options.threads;
      po.seed = options.seed ^ util::fnv1a64(dimensions[d] + '\x1f' + columns[i].metric + '\x1f' +
                                             columns[j].metric);
      raw[k] =
          options.perm_test == stats::PermTest::kPairs
              ? stats::level_pairs_permutation_test(options.level, data[i], data[j].metric, po).p
              : stats::level_permutation_test(options.statistic, options.level, data[i],
                                              data[j].metric, po)
                    .p;
    }
    const std::vector<double> adjusted =
        stats::adjust_p_values(raw, options.correction, options.alpha);
    std::vector<std::vector<double>> p(m, std::vector<double>(m, std::nan("")));
    for (std::size_t k = 0; k < pairs.size(); ++k)  // an undefined test separates nothing
      p[pairs[k].first][pairs[k].second] = std::isnan(adjusted[k]) ? 1.0 : adjusted[k];
    const auto ranks = stats::significance_ranks(values, p, options.alpha);

    MetricRanking r;
    r.dimension = dimensions[d];
    r.level = options.level;
    r.statistic = options.statistic;
    r.perm_test = options.perm_test;
    r.permutations = options.permutations;
    r.correction = options.correction;
    r.alpha = options.alpha;
    for (std::size_t i : order)
      r.ranking.push_back({columns[i].metric, columns[i].baseline, ranks[i], values[i]});
    for (std::size_t k = 0; k < pairs.size(); ++k)
      r.tests.push_back(
          {columns[pairs[k].first].metric, columns[pairs[k].second].metric, raw[k], adjusted[k]});
    out.push_back(std::move(r));
  }
  return out;
}

}  // namespace probity
