// Meta-evaluation at the item, task and system level, as google-research/mt-metrics-eval
// computes it (stats.py Correlation/AverageCorrelation/Agreement, tau_optimization.py); the
// conventions are listed in docs/meta-eval.md and tested against its outputs
// (tests/golden/meta_eval).
#include <algorithm>
#include <array>
#include <cmath>
#include <limits>
#include <numeric>
#include <stdexcept>
#include <string>
#include <tuple>
#include <vector>

#include "probity/stats.hpp"
#include "stats/kernels.hpp"
#include "stats/mtme.hpp"
#include "util/enum_names.hpp"
#include "util/hash.hpp"
#include "util/random.hpp"

namespace probity::stats {
namespace {

constexpr double kNaN = std::numeric_limits<double>::quiet_NaN();

using Group = detail::LevelGroup;

bool usable(const LevelData& d, std::size_t i) {
  return std::isfinite(d.gold[i]) && std::isfinite(d.metric[i]);
}

}  // namespace

void detail::check_level_data(const LevelData& d) {
  const std::size_t n = d.gold.size();
  if (d.metric.size() != n || d.task.size() != n || (!d.system.empty() && d.system.size() != n))
    throw std::invalid_argument("level statistic: gold, metric, task and system differ in length");
  for (std::size_t i = 0; i < n; ++i) {
    if (d.task[i] >= d.num_tasks) throw std::invalid_argument("level statistic: task out of range");
    if (!d.system.empty() && d.system[i] != kNoSystem && d.system[i] >= d.num_systems)
      throw std::invalid_argument("level statistic: system out of range");
  }
}

namespace {

void check(const LevelData& d) {
  detail::check_level_data(d);
}

Group pooled(const LevelData& d) {
  Group g;
  for (std::size_t i = 0; i < d.gold.size(); ++i) {
    if (!usable(d, i)) continue;
    g.gold.push_back(d.gold[i]);
    g.metric.push_back(d.metric[i]);
  }
  return g;
}

// One group per task that has a usable candidate, in task order.
std::vector<Group> by_task(const LevelData& d) {
  std::vector<Group> groups(d.num_tasks);
  for (std::size_t i = 0; i < d.gold.size(); ++i) {
    if (!usable(d, i)) continue;
    groups[d.task[i]].gold.push_back(d.gold[i]);
    groups[d.task[i]].metric.push_back(d.metric[i]);
  }
  std::erase_if(groups, [](const Group& g) { return g.gold.empty(); });
  return groups;
}

// Per system, the mean gold and mean metric score over its candidates where both exist (left to
// right sums, as NumPy's mean of a short row); systems without such a candidate are left out.
Group system_means(const LevelData& d) {
  if (d.system.empty()) throw std::invalid_argument("system level: the candidates carry no system");
  std::vector<double> gold(d.num_systems, 0.0), metric(d.num_systems, 0.0);
  std::vector<std::size_t> count(d.num_systems, 0);
  for (std::size_t i = 0; i < d.gold.size(); ++i) {
    if (!usable(d, i) || d.system[i] == kNoSystem) continue;
    gold[d.system[i]] += d.gold[i];
    metric[d.system[i]] += d.metric[i];
    ++count[d.system[i]];
  }
  Group g;
  for (std::size_t s = 0; s < d.num_systems; ++s) {
    if (count[s] == 0) continue;
    g.gold.push_back(gold[s] / static_cast<double>(count[s]));
    g.metric.push_back(metric[s] / static_cast<double>(count[s]));
  }
  return g;
}

double sign(double v) {
  return static_cast<double>((v > 0) - (v < 0));
}

}  // namespace

// Pairwise accuracy (mt-metrics-eval Agreement): NaN without a pair.
double detail::pairwise_accuracy(const LevelGroup& g) {
  const std::size_t n = g.gold.size();
  if (n < 2) return kNaN;
  std::size_t agree = 0;
  for (std::size_t i = 0; i < n; ++i)
    for (std::size_t j = i + 1; j < n; ++j)
      agree += sign(g.gold[i] - g.gold[j]) == sign(g.metric[i] - g.metric[j]);
  const double pairs = static_cast<double>(n) * static_cast<double>(n - 1) / 2;
  return static_cast<double>(agree) / pairs;
}

CorrelationType detail::level_correlation_type(LevelStatistic s) {
  switch (s) {
    case LevelStatistic::kPearson:
      return CorrelationType::kPearson;
    case LevelStatistic::kSpearman:
      return CorrelationType::kSpearman;
    case LevelStatistic::kKendallB:
      return CorrelationType::kKendallB;
    case LevelStatistic::kKendallC:
      return CorrelationType::kKendallC;
    default:
      break;
  }
  throw std::logic_error("not a correlation");
}

namespace {

CorrelationType correlation_type(LevelStatistic s) {
  return detail::level_correlation_type(s);
}

// A pair's change of "correct" when its metric difference d becomes a tie: +1 for a gold tie
// (now correct), -1 for a concordant pair (no longer correct). Discordant pairs stay wrong; their
// differences can never raise the accuracy, so they are not candidates that could win.
struct TieEvent {
  double d;
  double weight;  // +-1 / (pairs of its group * groups)
};

}  // namespace

std::pair<double, double> detail::acc_eq(std::span<const LevelGroup* const> groups) {
  std::size_t used = 0;
  for (const Group* g : groups) used += g->gold.size() >= 2;
  if (used == 0) return {kNaN, kNaN};
  std::vector<TieEvent> events;
  // One group (item and system level): integer counts, exact comparisons.
  if (groups.size() == 1) {
    const Group& g = *groups[0];
    const std::size_t n = g.gold.size();
    std::vector<double> plus, minus;  // |d| of gold ties, of concordant pairs
    std::int64_t base = 0;            // correct with no metric tie
    for (std::size_t i = 0; i < n; ++i) {
      for (std::size_t j = i + 1; j < n; ++j) {
        const double dg = g.gold[i] - g.gold[j];
        const double dm = g.metric[i] - g.metric[j];
        const double d = std::fabs(dm);
        if (dg == 0) {
          plus.push_back(d);
        } else if (dm != 0 && sign(dg) == sign(dm)) {
          ++base;
          minus.push_back(d);
        }
      }
    }
    std::sort(plus.begin(), plus.end());
    std::sort(minus.begin(), minus.end());
    // Sweep the candidate epsilons in ascending order, 0 first.
    std::int64_t best = 0, cur = base;
    double best_eps = 0.0;
    std::size_t ip = 0, im = 0;
    bool first = true;
    while (true) {
      double eps;
      if (first) {
        eps = 0.0;
      } else if (ip < plus.size() || im < minus.size()) {
        eps = std::min(ip < plus.size() ? plus[ip] : INFINITY,
                       im < minus.size() ? minus[im] : INFINITY);
      } else {
        break;
      }
      while (ip < plus.size() && plus[ip] <= eps) ++ip, ++cur;
      while (im < minus.size() && minus[im] <= eps) ++im, --cur;
      if (first || cur > best) {
        best = cur;
        best_eps = eps;
      }
      first = false;
    }
    const double pairs = static_cast<double>(n) * static_cast<double>(n - 1) / 2;
    return {static_cast<double>(best) / pairs, best_eps};
  }
  // Several groups: each group's pairs weigh 1 / (its pairs * groups used).
  long double base = 0;
  for (const Group* group : groups) {
    const Group& g = *group;
    const std::size_t n = g.gold.size();
    if (n < 2) continue;
    const double w =
        1.0 / (static_cast<double>(n) * static_cast<double>(n - 1) / 2 * static_cast<double>(used));
    for (std::size_t i = 0; i < n; ++i) {
      for (std::size_t j = i + 1; j < n; ++j) {
        const double dg = g.gold[i] - g.gold[j];
        const double dm = g.metric[i] - g.metric[j];
        if (dg == 0) {
          events.push_back({std::fabs(dm), w});
        } else if (dm != 0 && sign(dg) == sign(dm)) {
          base += w;
          events.push_back({std::fabs(dm), -w});
        }
      }
    }
  }
  std::sort(events.begin(), events.end(),
            [](const TieEvent& a, const TieEvent& b) { return a.d < b.d; });
  // The objective is a sum of fractions: a candidate wins only when it beats the best by more
  // than rounding (the smallest real difference is about 1 / (groups * pairs^2), far above it).
  constexpr long double kTolerance = 1e-12L;
  long double cur = base;
  std::size_t k = 0;
  while (k < events.size() && events[k].d <= 0.0) cur += events[k++].weight;
  long double best = cur;
  double best_eps = 0.0;
  while (k < events.size()) {
    const double eps = events[k].d;
    while (k < events.size() && events[k].d == eps) cur += events[k++].weight;
    if (cur > best + kTolerance) {
      best = cur;
      best_eps = eps;
    }
  }
  return {static_cast<double>(best), best_eps};
}

std::pair<double, double> detail::acc_eq(const std::vector<LevelGroup>& groups) {
  std::vector<const LevelGroup*> pointers;
  for (const LevelGroup& g : groups) pointers.push_back(&g);
  return acc_eq(pointers);
}

void detail::paired_cells(const LevelData& data, std::span<const double> metric_b, LevelData& a,
                          LevelData& b) {
  if (metric_b.size() != data.metric.size())
    throw std::invalid_argument("level permutation test: the two metrics differ in length");
  a = LevelData{};
  a.num_tasks = data.num_tasks;
  a.num_systems = data.num_systems;
  b.metric.clear();
  for (std::size_t i = 0; i < data.gold.size(); ++i) {
    if (!usable(data, i) || !std::isfinite(metric_b[i])) continue;
    a.gold.push_back(data.gold[i]);
    a.metric.push_back(data.metric[i]);
    b.metric.push_back(metric_b[i]);
    a.task.push_back(data.task[i]);
    if (!data.system.empty()) a.system.push_back(data.system[i]);
  }
  b.gold = a.gold;
  b.task = a.task;
  b.system = a.system;
  b.num_tasks = a.num_tasks;
  b.num_systems = a.num_systems;
}

detail::LevelGroup detail::level_system_means(const LevelData& d) {
  return system_means(d);
}

double detail::level_group_value(LevelStatistic s, const LevelGroup& g) {
  if (s == LevelStatistic::kPairwiseAcc) return pairwise_accuracy(g);
  const LevelGroup* one[] = {&g};
  if (s == LevelStatistic::kAccEq) return acc_eq(one).first;
  return coefficient(level_correlation_type(s), g.gold, g.metric);
}

namespace {

double group_value(LevelStatistic s, const Group& g) {
  return detail::level_group_value(s, g);
}

}  // namespace

namespace {
constexpr auto kLevelNames = std::to_array<util::EnumName<Level>>({
    {Level::kItem, "item"},
    {Level::kTask, "task"},
    {Level::kSystem, "system"},
});
// "kendall_b" and "kendall_c" are how the plain correlations spell them (accepted here too).
constexpr auto kLevelStatisticNames = std::to_array<util::EnumName<LevelStatistic>>({
    {LevelStatistic::kPearson, "pearson"},
    {LevelStatistic::kSpearman, "spearman"},
    {LevelStatistic::kKendallB, "kendall"},
    {.value = LevelStatistic::kKendallB, .name = "kendall_b", .printed = false, .listed = false},
    {LevelStatistic::kKendallC, "kendall-c"},
    {.value = LevelStatistic::kKendallC, .name = "kendall_c", .printed = false, .listed = false},
    {LevelStatistic::kPairwiseAcc, "pairwise-acc"},
    {LevelStatistic::kAccEq, "acc-eq"},
    {LevelStatistic::kSpa, "spa"},
    {LevelStatistic::kPdp, "pdp"},
    {LevelStatistic::kKendallLike, "kendall-like"},
});
constexpr auto kPermTestNames = std::to_array<util::EnumName<PermTest>>({
    {PermTest::kScores, "scores"},
    {PermTest::kPairs, "pairs"},
});
}  // namespace

PermTest parse_perm_test(std::string_view name) {
  if (const auto t = util::parse_enum(kPermTestNames, name)) return *t;
  throw std::invalid_argument("unknown permutation test '" + std::string(name) + "' (expected " +
                              util::listed_names(kPermTestNames, " or ") + ")");
}

std::string_view perm_test_name(PermTest test) {
  return util::name_of(kPermTestNames, test);
}

Level parse_level(std::string_view name) {
  if (const auto level = util::parse_enum(kLevelNames, name)) return *level;
  throw std::invalid_argument("unknown level '" + std::string(name) + "' (expected " +
                              util::listed_names(kLevelNames, " or ") + ")");
}

std::string_view level_name(Level level) {
  return util::name_of(kLevelNames, level);
}

LevelStatistic parse_level_statistic(std::string_view name) {
  if (const auto statistic = util::parse_enum(kLevelStatisticNames, name)) return *statistic;
  throw std::invalid_argument("unknown statistic '" + std::string(name) + "' (expected " +
                              util::listed_names(kLevelStatisticNames, " or ") + ")");
}

std::string_view level_statistic_name(LevelStatistic statistic) {
  return util::name_of(kLevelStatisticNames, statistic);
}

std::optional<CorrelationType> pooled_correlation(LevelStatistic statistic) {
  // The pooled tests take the three coefficients the level rows share; Kendall's tau-c and the
  // accuracies exist only at a level.
  const bool pooled = statistic == LevelStatistic::kPearson ||
                      statistic == LevelStatistic::kSpearman ||
                      statistic == LevelStatistic::kKendallB;
  if (!pooled) return std::nullopt;
  return detail::level_correlation_type(statistic);
}

LevelResult level_statistic(LevelStatistic statistic, Level level, const LevelData& data) {
  check(data);
  if (detail::is_mtme_statistic(statistic))
    return detail::mtme_level_statistic(statistic, level, data);
  LevelResult r;
  if (level == Level::kTask) {
    const std::vector<Group> groups = by_task(data);
    for (const Group& g : groups) r.n += g.gold.size();
    if (statistic == LevelStatistic::kAccEq) {
      for (const Group& g : groups) (g.gold.size() >= 2 ? r.groups : r.skipped) += 1;
      std::tie(r.value, r.epsilon) = detail::acc_eq(groups);
      return r;
    }
    double sum = 0;
    for (const Group& g : groups) {
      const double v = group_value(statistic, g);
      if (std::isnan(v)) {
        ++r.skipped;
        continue;
      }
      sum += v;
      ++r.groups;
    }
    if (r.groups > 0) r.value = sum / static_cast<double>(r.groups);
    return r;
  }
  const Group g = level == Level::kItem ? pooled(data) : system_means(data);
  r.n = g.gold.size();
  if (statistic == LevelStatistic::kAccEq) {
    const Group* one[] = {&g};
    std::tie(r.value, r.epsilon) = detail::acc_eq(one);
  } else {
    r.value = group_value(statistic, g);
  }
  r.groups = std::isnan(r.value) ? 0 : 1;
  return r;
}

LevelData resample_units(const LevelData& data, Level level, std::span<const std::size_t> units) {
  check(data);
  const bool by_system = level == Level::kSystem;
  if (by_system && data.system.empty())
    throw std::invalid_argument("system level: the candidates carry no system");
  const std::size_t num_units = by_system ? data.num_systems : data.num_tasks;
  std::vector<std::vector<std::size_t>> members(num_units);
  for (std::size_t i = 0; i < data.gold.size(); ++i) {
    const std::size_t u = by_system ? data.system[i] : data.task[i];
    if (u != kNoSystem) members[u].push_back(i);
  }
  LevelData out;
  // A drawn unit becomes a unit of its own: a task drawn twice is two tasks, a system drawn twice
  // two systems.
  out.num_tasks = by_system ? data.num_tasks : units.size();
  out.num_systems = by_system ? units.size() : data.num_systems;
  for (std::size_t k = 0; k < units.size(); ++k) {
    if (units[k] >= num_units) throw std::invalid_argument("resample: unit out of range");
    for (std::size_t i : members[units[k]]) {
      out.gold.push_back(data.gold[i]);
      out.metric.push_back(data.metric[i]);
      out.task.push_back(by_system ? data.task[i] : k);
      if (!data.system.empty()) out.system.push_back(by_system ? k : data.system[i]);
    }
  }
  return out;
}

LevelData resample_tasks_and_systems(const LevelData& data, std::span<const std::size_t> tasks,
                                     std::span<const std::size_t> systems) {
  check(data);
  if (data.system.empty()) throw std::invalid_argument("two-stage: the candidates carry no system");
  std::vector<std::vector<std::size_t>> of_task(data.num_tasks);
  for (std::size_t i = 0; i < data.gold.size(); ++i)
    if (data.system[i] != kNoSystem) of_task[data.task[i]].push_back(i);
  std::vector<std::vector<std::size_t>> copies(data.num_systems);  // system -> its drawn copies
  for (std::size_t l = 0; l < systems.size(); ++l) {
    if (systems[l] >= data.num_systems) throw std::invalid_argument("resample: unit out of range");
    copies[systems[l]].push_back(l);
  }
  LevelData out;
  out.num_tasks = tasks.size();
  out.num_systems = systems.size();
  for (std::size_t k = 0; k < tasks.size(); ++k) {
    if (tasks[k] >= data.num_tasks) throw std::invalid_argument("resample: unit out of range");
    for (std::size_t i : of_task[tasks[k]])
      for (std::size_t l : copies[data.system[i]]) {
        out.gold.push_back(data.gold[i]);
        out.metric.push_back(data.metric[i]);
        out.task.push_back(k);
        out.system.push_back(l);
      }
  }
  return out;
}

PermutationResult level_permutation_test(LevelStatistic statistic, Level level,
                                         const LevelData& data, std::span<const double> metric_b,
                                         const PermutationOptions& options) {
  check(data);
  // The cells: candidates with all three scores, or (system level) the systems' means over them.
  LevelData a, b;
  detail::paired_cells(data, metric_b, a, b);
  // SPA is computed from the systems' segment scores, not their means: its cells stay segments.
  if (level == Level::kSystem && statistic != LevelStatistic::kSpa) {
    const Group ga = system_means(a), gb = system_means(b);
    LevelData sa;
    sa.gold = ga.gold;
    sa.metric = ga.metric;
    sa.num_tasks = 1;
    sa.task.assign(ga.gold.size(), 0);
    a = std::move(sa);
    b.metric = gb.metric;
    level = Level::kItem;  // one group of systems
  }
  std::vector<double> ma = a.metric, mb = b.metric;
  if (options.standardize) {
    // A constant metric is kept as it is (its z-scores would be 0/0).
    for (std::vector<double>* v : {&ma, &mb})
      if (std::adjacent_find(v->begin(), v->end(), std::not_equal_to<>()) != v->end())
        *v = detail::zscore(*v);
  }
  // Fast paths; each computes exactly what level_statistic does, without copying the data per
  // permutation. Item level (and the system level, now one group of systems) with a correlation:
  // the pooled test's evaluator, which never sorts inside the loop.
  const bool correlation = statistic != LevelStatistic::kPairwiseAcc &&
                           statistic != LevelStatistic::kAccEq &&
                           !detail::is_mtme_statistic(statistic);
  if (level == Level::kItem && correlation) {
    PermutationOptions o = options;
    o.standardize = false;  // done above, keeping a constant metric as it is
    return permutation_correlation_diff(ma, mb, a.gold, correlation_type(statistic), o);
  }
  if (level == Level::kTask && correlation) {
    // The tasks' gold scores once; per evaluation only the metric values are gathered per task
    // and the group coefficients averaged in task order, as level_statistic does.
    std::vector<std::vector<std::size_t>> members(a.num_tasks);
    for (std::size_t i = 0; i < a.gold.size(); ++i) members[a.task[i]].push_back(i);
    std::erase_if(members, [](const auto& m) { return m.empty(); });
    std::vector<std::vector<double>> gold(members.size());
    for (std::size_t t = 0; t < members.size(); ++t)
      for (std::size_t i : members[t]) gold[t].push_back(a.gold[i]);
    const CorrelationType type = correlation_type(statistic);
    PairStatistic diff = [members = std::move(members), gold = std::move(gold), type](
                             std::span<const double> x, std::span<const double> y) {
      thread_local std::vector<double> values;
      auto mean_over_tasks = [&](std::span<const double> metric) {
        double sum = 0;
        std::size_t defined = 0;
        for (std::size_t t = 0; t < members.size(); ++t) {
          values.clear();
          for (std::size_t i : members[t]) values.push_back(metric[i]);
          const double v = detail::coefficient(type, gold[t], values);
          if (std::isnan(v)) continue;
          sum += v;
          ++defined;
        }
        return defined > 0 ? sum / static_cast<double>(defined)
                           : std::numeric_limits<double>::quiet_NaN();
      };
      return mean_over_tasks(x) - mean_over_tasks(y);
    };
    return paired_permutation_test(ma, mb, diff, options);
  }
  const LevelData shape = a;  // gold, tasks and systems; the metric is filled per evaluation
  PairStatistic diff = [shape, statistic, level](std::span<const double> x,
                                                 std::span<const double> y) {
    LevelData d = shape;
    d.metric.assign(x.begin(), x.end());
    const double vx = level_statistic(statistic, level, d).value;
    d.metric.assign(y.begin(), y.end());
    return vx - level_statistic(statistic, level, d).value;
  };
  return paired_permutation_test(ma, mb, diff, options);
}

std::vector<std::size_t> significance_ranks(std::span<const double> values,
                                            const std::vector<std::vector<double>>& p, double alpha,
                                            std::vector<std::size_t>* order_out) {
  const std::size_t n = values.size();
  std::vector<std::size_t> order(n);
  std::iota(order.begin(), order.end(), 0);
  std::stable_sort(order.begin(), order.end(), [&](std::size_t i, std::size_t j) {
    if (std::isnan(values[i]) || std::isnan(values[j]))
      return !std::isnan(values[i]) && std::isnan(values[j]);
    return values[i] > values[j];
  });
  std::vector<std::size_t> rank(n, 0), cluster;
  std::size_t current = 1;
  for (std::size_t k = 0; k < n; ++k) {
    const std::size_t m = order[k];
    bool beaten = false;
    for (std::size_t c : cluster) beaten = beaten || p[c][m] <= alpha;
    if (beaten) {
      ++current;
      cluster.clear();
    }
    cluster.push_back(m);
    rank[m] = current;
  }
  if (order_out) *order_out = std::move(order);
  return rank;
}

PreferenceResult preference_accuracy(std::span<const double> score_a,
                                     std::span<const double> score_b, std::span<const int> human) {
  if (score_a.size() != score_b.size() || score_a.size() != human.size())
    throw std::invalid_argument("preference accuracy: inputs differ in length");
  PreferenceResult r;
  double credit = 0;
  std::size_t tie_agree = 0;
  for (std::size_t k = 0; k < human.size(); ++k) {
    if (!std::isfinite(score_a[k]) || !std::isfinite(score_b[k])) continue;
    ++r.pairs;
    const double m = sign(score_a[k] - score_b[k]);
    if (human[k] == 0) {
      ++r.human_ties;
      tie_agree += m == 0;
      continue;
    }
    ++r.strict;
    if (m == 0) {
      ++r.metric_ties;
      credit += 0.5;
    } else if (m == static_cast<double>(human[k])) {
      credit += 1;
    }
  }
  if (r.strict > 0) r.accuracy = credit / static_cast<double>(r.strict);
  if (r.human_ties > 0)
    r.tie_agreement = static_cast<double>(tie_agree) / static_cast<double>(r.human_ties);
  return r;
}

std::vector<bool> split_tasks(std::span<const std::string> task_ids, double fraction,
                              std::uint64_t seed) {
  if (!(fraction > 0.0 && fraction < 1.0))
    throw std::invalid_argument("split: the selection fraction must be in (0, 1)");
  std::vector<std::pair<std::uint64_t, std::size_t>> keyed;
  for (std::size_t t = 0; t < task_ids.size(); ++t)
    keyed.emplace_back(util::mix64(util::mix64(seed) ^ util::fnv1a64(task_ids[t])), t);
  std::sort(keyed.begin(), keyed.end());
  const auto take =
      static_cast<std::size_t>(std::llround(fraction * static_cast<double>(task_ids.size())));
  std::vector<bool> selection(task_ids.size(), false);
  for (std::size_t r = 0; r < take && r < keyed.size(); ++r) selection[keyed[r].second] = true;
  return selection;
}

}  // namespace probity::stats
