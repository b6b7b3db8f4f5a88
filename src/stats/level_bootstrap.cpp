// Bootstrap of level statistics without building the resamples (stats.hpp,
// level_bootstrap_values). Each resample is described by its drawn units and their
// multiplicities; every statistic is computed from data prepared once, in the order of operations
// that makes its bits those of level_statistic on the materialised resample:
//  - Pearson sums in resample order, so its values are gathered in that order (O(n));
//  - Spearman's rank sums are exact (kernels.hpp), so weighted ranks over one pre-sorted order
//    give the same doubles; Kendall and pairwise accuracy are integer pair counts;
//  - task-level means add the tasks' values in drawn order, a drawn task's value being fixed;
//  - system means add candidates left to right in resample order, as system_means does.
#include <algorithm>
#include <cmath>
#include <cstdint>
#include <limits>
#include <optional>
#include <stdexcept>
#include <vector>

#include "probity/stats.hpp"
#include "stats/kernels.hpp"
#include "stats/mtme.hpp"
#include "util/random.hpp"

namespace probity::stats {
namespace {

constexpr double kNaN = std::numeric_limits<double>::quiet_NaN();
constexpr std::uint32_t kNone = std::numeric_limits<std::uint32_t>::max();

using detail::LevelGroup;

// A resample: the drawn tasks and systems in drawn order, and how often each was drawn.
struct Draw {
  std::vector<std::uint32_t> tasks, systems;
  std::vector<std::uint32_t> task_count, system_count;
};

// Items in CSR form: members[start[u] .. start[u + 1]) belong to unit u, in data order.
struct Membership {
  std::vector<std::uint32_t> start, members;
  std::span<const std::uint32_t> of(std::size_t u) const {
    return std::span<const std::uint32_t>(members).subspan(start[u], start[u + 1] - start[u]);
  }
};

Membership group_by(std::span<const std::uint32_t> unit, std::size_t units) {
  Membership m;
  m.start.assign(units + 1, 0);
  for (std::uint32_t u : unit)
    if (u != kNone) ++m.start[u + 1];
  for (std::size_t u = 0; u < units; ++u) m.start[u + 1] += m.start[u];
  m.members.resize(m.start[units]);
  std::vector<std::uint32_t> fill(m.start.begin(), m.start.end() - 1);
  for (std::size_t i = 0; i < unit.size(); ++i)
    if (unit[i] != kNone) m.members[fill[unit[i]]++] = static_cast<std::uint32_t>(i);
  return m;
}

// A group's items sorted once by gold and by metric (indices local to the group).
struct SortedGroup {
  detail::SortedView gold, metric;
};

SortedGroup sort_group(std::span<const double> gold, std::span<const double> metric) {
  return {detail::make_sorted_view(gold), detail::make_sorted_view(metric)};
}

bool is_rank_statistic(LevelStatistic s) {
  return s == LevelStatistic::kSpearman || s == LevelStatistic::kKendallB ||
         s == LevelStatistic::kKendallC || s == LevelStatistic::kPairwiseAcc;
}

struct Scratch {
  std::vector<double> rank_gold, rank_metric;
  detail::KendallScratch kendall;
};

// The rank statistic of the multiset in which group item k occurs w[k] times, equal to
// level_group_value on it materialised in any order; nullopt when Spearman's sums could round
// (more than kExactRankSums items): the caller then materialises the group.
std::optional<double> weighted_rank_value(LevelStatistic s, const SortedGroup& g,
                                          std::span<const std::uint32_t> w, Scratch& sc) {
  if (s == LevelStatistic::kSpearman) {
    sc.rank_gold.resize(w.size());
    sc.rank_metric.resize(w.size());
    const std::uint64_t total = detail::weighted_average_ranks(g.gold, w, sc.rank_gold);
    if (total < 2) return kNaN;
    if (total > detail::kExactRankSums) return std::nullopt;
    detail::weighted_average_ranks(g.metric, w, sc.rank_metric);
    const double mean = (static_cast<double>(total) + 1.0) / 2.0;
    const detail::RankSums r = detail::centered_rank_sums(sc.rank_gold, sc.rank_metric, mean, w);
    if (r.xx == 0.0 || r.yy == 0.0) return kNaN;  // a constant variable
    // spearman_rho's final formula (np.corrcoef): gold is x, the metric y.
    const double scale = 1.0 / static_cast<double>(total - 1);
    const double cxx = r.xx * scale, cyy = r.yy * scale, cxy = r.xy * scale;
    return std::max(-1.0, std::min(1.0, cxy / std::sqrt(cyy) / std::sqrt(cxx)));
  }
  const detail::KendallCounts c = detail::kendall_counts(
      g.gold, g.metric.dense, static_cast<std::uint32_t>(g.metric.group_end.size()), w, sc.kendall);
  if (s == LevelStatistic::kPairwiseAcc) {
    if (c.size < 2) return kNaN;
    // Agreeing pairs: concordant ones and those tied in both.
    const std::int64_t concordant = c.tot - c.u_tie - c.v_tie + c.joint_tie - c.discordant;
    const double pairs = static_cast<double>(c.size) * static_cast<double>(c.size - 1) / 2;
    return static_cast<double>(concordant + c.joint_tie) / pairs;
  }
  return detail::tau_from_counts(c, s == LevelStatistic::kKendallC);
}

// Item-level acc-eq: the pairs that can change the count (gold ties, concordant pairs) sorted
// once by their metric difference; a resample weighs pair (i, j) w_i w_j and adds its copies'
// pairs, gold ties at difference 0. The sweep is acc_eq's single-group one (integer counts, so
// any order of equal differences gives the same result).
struct PairEvent {
  double d;
  std::uint32_t i, j;  // j's top bit: a gold tie (else a concordant pair)
};
using PairEvents = std::vector<PairEvent>;
constexpr std::uint32_t kGoldTie = 0x80000000u;

PairEvents pair_events(std::span<const double> gold, std::span<const double> metric) {
  if (gold.size() >= kGoldTie) throw std::invalid_argument("acc-eq: too many candidates");
  PairEvents events;
  auto sign = [](double v) { return (v > 0) - (v < 0); };
  for (std::uint32_t i = 0; i < gold.size(); ++i)
    for (std::uint32_t j = i + 1; j < gold.size(); ++j) {
      const double dg = gold[i] - gold[j], dm = metric[i] - metric[j];
      if (dg == 0)
        events.push_back({std::fabs(dm), i, j | kGoldTie});
      else if (dm != 0 && sign(dg) == sign(dm))
        events.push_back({std::fabs(dm), i, j});
    }
  std::sort(events.begin(), events.end(),
            [](const PairEvent& a, const PairEvent& b) { return a.d < b.d; });
  return events;
}

double weighted_acc_eq(const PairEvents& p, std::span<const std::uint32_t> w) {
  std::int64_t size = 0, copies = 0;
  for (std::uint32_t wi : w) {
    size += wi;
    copies += std::int64_t{wi} * (wi - std::int64_t{1}) / 2;  // pairs of copies: gold ties at 0
  }
  if (size < 2) return kNaN;
  // Counts relative to "no metric tie": base (the concordant pairs) is added at the end.
  std::int64_t base = 0, cur = copies, best = 0;
  std::size_t k = 0;
  const std::size_t n = p.size();
  auto take = [&] {
    const PairEvent& e = p[k++];
    const std::int64_t ww = std::int64_t{w[e.i]} * w[e.j & ~kGoldTie];
    if (e.j & kGoldTie) {
      cur += ww;
    } else {
      cur -= ww;
      base += ww;
    }
  };
  while (k < n && p[k].d <= 0.0) take();
  best = cur;
  while (k < n) {
    const double eps = p[k].d;
    while (k < n && p[k].d == eps) take();
    best = std::max(best, cur);
  }
  const double pairs = static_cast<double>(size) * static_cast<double>(size - 1) / 2;
  return static_cast<double>(base + best) / pairs;
}

// Everything about the data that no resample changes.
struct Plan {
  LevelStatistic statistic;
  Level level;
  LevelUnits units;
  // The usable candidates (finite gold and metric), in data order.
  std::vector<double> gold, metric;
  std::vector<std::uint32_t> task, system;  // system: kNone when it has none
  std::size_t num_tasks = 0, num_systems = 0;
  Membership of_task, of_system;  // usable candidates per task and per system
  // Item level, rank statistics: all usable candidates sorted once; acc-eq: their pairs.
  SortedGroup all;
  PairEvents pairs;
  // Task level: each task's value (resampling tasks), its group (acc-eq), or its candidates
  // sorted once (resampling systems); `present` when it has a usable candidate.
  std::vector<double> task_value;
  std::vector<LevelGroup> task_group;
  std::vector<SortedGroup> task_sorted;
  // System level, resampling systems: each system's mean gold and metric score, and its count.
  std::vector<double> system_gold, system_metric;
  std::vector<std::size_t> system_size;
};

// The value of resamples, one evaluator per thread (its buffers are reused).
class Evaluator {
 public:
  explicit Evaluator(const Plan& p) : p_(p) {}

  double operator()(const Draw& d) {
    buckets_ready_ = false;
    switch (p_.level) {
      case Level::kItem:
        return item_level(d);
      case Level::kTask:
        return task_level(d);
      case Level::kSystem:
        return system_level(d);
    }
    return kNaN;
  }

 private:
  std::uint32_t system_weight(std::uint32_t i, const Draw& d) const {
    return p_.system[i] == kNone ? 0 : d.system_count[p_.system[i]];
  }

  // Multiplicity of usable candidate i in the resample.
  std::uint32_t weight(std::uint32_t i, const Draw& d) const {
    switch (p_.units) {
      case LevelUnits::kTasks:
        return d.task_count[p_.task[i]];
      case LevelUnits::kSystems:
        return system_weight(i, d);
      case LevelUnits::kTasksAndSystems:
        return d.task_count[p_.task[i]] * system_weight(i, d);
    }
    return 0;
  }

  void push(LevelGroup& g, std::uint32_t i) const {
    g.gold.push_back(p_.gold[i]);
    g.metric.push_back(p_.metric[i]);
  }

  // The drawn tasks' candidates in resample_tasks_and_systems' order: each one once per drawn
  // copy of its system, copies next to each other.
  void push_task_copies(LevelGroup& g, std::uint32_t t, const Draw& d) const {
    for (std::uint32_t i : p_.of_task.of(t))
      for (std::uint32_t c = system_weight(i, d); c > 0; --c) push(g, i);
  }

  // The pooled candidates in resample order.
  void pooled(const Draw& d, LevelGroup& g) const {
    g.gold.clear();
    g.metric.clear();
    switch (p_.units) {
      case LevelUnits::kTasks:
        for (std::uint32_t t : d.tasks)
          for (std::uint32_t i : p_.of_task.of(t)) push(g, i);
        break;
      case LevelUnits::kSystems:
        for (std::uint32_t s : d.systems)
          for (std::uint32_t i : p_.of_system.of(s)) push(g, i);
        break;
      case LevelUnits::kTasksAndSystems:
        for (std::uint32_t t : d.tasks) push_task_copies(g, t, d);
        break;
    }
  }

  double item_level(const Draw& d) {
    const LevelStatistic s = p_.statistic;
    if (s == LevelStatistic::kPearson) {
      pooled(d, group_);
      return detail::level_group_value(s, group_);
    }
    w_.resize(p_.gold.size());
    for (std::uint32_t i = 0; i < w_.size(); ++i) w_[i] = weight(i, d);
    if (s == LevelStatistic::kAccEq) return weighted_acc_eq(p_.pairs, w_);
    if (auto v = weighted_rank_value(s, p_.all, w_, scratch_)) return *v;
    pooled(d, group_);
    return detail::level_group_value(s, group_);
  }

  // Resampling systems: each task's candidates in resample order (drawn systems in drawn order,
  // each system's candidates in data order), as by_task groups resample_units' output.
  void tasks_by_systems(const Draw& d) {
    bucket_start_.assign(p_.num_tasks + 1, 0);
    for (std::uint32_t s : d.systems)
      for (std::uint32_t i : p_.of_system.of(s)) ++bucket_start_[p_.task[i] + 1];
    for (std::size_t t = 0; t < p_.num_tasks; ++t) bucket_start_[t + 1] += bucket_start_[t];
    bucket_.resize(bucket_start_.back());
    fill_.assign(bucket_start_.begin(), bucket_start_.end() - 1);
    for (std::uint32_t s : d.systems)
      for (std::uint32_t i : p_.of_system.of(s)) bucket_[fill_[p_.task[i]]++] = i;
    buckets_ready_ = true;
  }

  // The group of task t in the resample, materialised.
  void task_group(std::uint32_t t, const Draw& d, LevelGroup& g) {
    g.gold.clear();
    g.metric.clear();
    if (p_.units == LevelUnits::kTasksAndSystems) {
      push_task_copies(g, t, d);
    } else {  // kSystems
      if (!buckets_ready_) tasks_by_systems(d);
      for (std::uint32_t k = bucket_start_[t]; k < bucket_start_[t + 1]; ++k) push(g, bucket_[k]);
    }
  }

  // Value of task t's group in the resample (resampling systems, or both): NaN when undefined,
  // nullopt when the group is empty (by_task leaves it out).
  std::optional<double> task_value(std::uint32_t t, const Draw& d) {
    const LevelStatistic s = p_.statistic;
    const auto items = p_.of_task.of(t);
    w_.resize(items.size());
    std::uint64_t total = 0;
    for (std::size_t k = 0; k < items.size(); ++k) total += w_[k] = system_weight(items[k], d);
    if (total == 0) return std::nullopt;
    if (is_rank_statistic(s))
      if (auto v = weighted_rank_value(s, p_.task_sorted[t], w_, scratch_)) return *v;
    task_group(t, d, group_);
    return detail::level_group_value(s, group_);
  }

  double task_level(const Draw& d) {
    const LevelStatistic s = p_.statistic;
    double sum = 0;
    std::size_t groups = 0;
    auto add = [&](double v) {
      if (std::isnan(v)) return;
      sum += v;
      ++groups;
    };
    if (s == LevelStatistic::kAccEq) {
      // The drawn groups in order, materialised (acc_eq sorts their pairs).
      pointers_.clear();
      if (p_.units == LevelUnits::kTasks) {
        for (std::uint32_t t : d.tasks)
          if (!p_.task_group[t].gold.empty()) pointers_.push_back(&p_.task_group[t]);
        return detail::acc_eq(pointers_).first;
      }
      const std::size_t count = p_.units == LevelUnits::kSystems ? p_.num_tasks : d.tasks.size();
      if (groups_.size() < count) groups_.resize(count);
      for (std::size_t k = 0; k < count; ++k) {
        const std::uint32_t t =
            p_.units == LevelUnits::kSystems ? static_cast<std::uint32_t>(k) : d.tasks[k];
        task_group(t, d, groups_[k]);
        if (!groups_[k].gold.empty()) pointers_.push_back(&groups_[k]);
      }
      return detail::acc_eq(pointers_).first;
    }
    switch (p_.units) {
      case LevelUnits::kTasks:
        for (std::uint32_t t : d.tasks) add(p_.task_value[t]);  // NaN too when t has no candidate
        break;
      case LevelUnits::kSystems:
        for (std::uint32_t t = 0; t < p_.num_tasks; ++t)
          if (auto v = task_value(t, d)) add(*v);
        break;
      case LevelUnits::kTasksAndSystems: {
        // A task drawn twice is two groups with the same value: computed once.
        value_of_.resize(p_.num_tasks);
        stamp_.resize(p_.num_tasks, 0);
        ++generation_;
        for (std::uint32_t t : d.tasks) {
          if (stamp_[t] != generation_) {
            stamp_[t] = generation_;
            const auto v = task_value(t, d);
            value_of_[t] = v ? *v : kNaN;  // an empty group is left out, as a NaN one
          }
          add(value_of_[t]);
        }
        break;
      }
    }
    return groups > 0 ? sum / static_cast<double>(groups) : kNaN;
  }

  double system_level(const Draw& d) {
    LevelGroup& g = group_;
    g.gold.clear();
    g.metric.clear();
    if (p_.units == LevelUnits::kSystems) {
      // A drawn system's mean is the system's own (the same candidates, added in data order).
      for (std::uint32_t s : d.systems)
        if (p_.system_size[s] > 0) {
          g.gold.push_back(p_.system_gold[s]);
          g.metric.push_back(p_.system_metric[s]);
        }
      return detail::level_group_value(p_.statistic, g);
    }
    // Sums left to right over the candidates in resample order (drawn tasks in drawn order).
    sum_gold_.assign(p_.num_systems, 0.0);
    sum_metric_.assign(p_.num_systems, 0.0);
    count_.assign(p_.num_systems, 0);
    const bool both = p_.units == LevelUnits::kTasksAndSystems;
    for (std::uint32_t t : d.tasks)
      for (std::uint32_t i : p_.of_task.of(t)) {
        const std::uint32_t s = p_.system[i];
        if (s == kNone || (both && d.system_count[s] == 0)) continue;
        sum_gold_[s] += p_.gold[i];
        sum_metric_[s] += p_.metric[i];
        ++count_[s];
      }
    auto push_mean = [&](std::uint32_t s) {
      if (count_[s] == 0) return;
      g.gold.push_back(sum_gold_[s] / static_cast<double>(count_[s]));
      g.metric.push_back(sum_metric_[s] / static_cast<double>(count_[s]));
    };
    if (both) {
      for (std::uint32_t s : d.systems) push_mean(s);  // every drawn copy is a system
    } else {
      for (std::uint32_t s = 0; s < p_.num_systems; ++s) push_mean(s);
    }
    return detail::level_group_value(p_.statistic, g);
  }

  const Plan& p_;
  Scratch scratch_;
  std::vector<std::uint32_t> w_;
  LevelGroup group_;
  std::vector<LevelGroup> groups_;
  std::vector<const LevelGroup*> pointers_;
  std::vector<std::uint32_t> bucket_start_, bucket_, fill_;
  bool buckets_ready_ = false;  // bucket_ holds this resample's tasks
  std::vector<double> value_of_, sum_gold_, sum_metric_;
  std::vector<std::uint64_t> stamp_;
  std::uint64_t generation_ = 0;
  std::vector<std::size_t> count_;
};

Plan make_plan(LevelStatistic statistic, Level level, const LevelData& data, LevelUnits units) {
  Plan p;
  p.statistic = statistic;
  p.level = level;
  p.units = units;
  p.num_tasks = data.num_tasks;
  p.num_systems = data.num_systems;
  for (std::size_t i = 0; i < data.gold.size(); ++i) {
    if (!std::isfinite(data.gold[i]) || !std::isfinite(data.metric[i])) continue;
    p.gold.push_back(data.gold[i]);
    p.metric.push_back(data.metric[i]);
    p.task.push_back(static_cast<std::uint32_t>(data.task[i]));
    const bool none = data.system.empty() || data.system[i] == kNoSystem;
    p.system.push_back(none ? kNone : static_cast<std::uint32_t>(data.system[i]));
  }
  p.of_task = group_by(p.task, p.num_tasks);
  p.of_system = group_by(p.system, p.num_systems);

  auto gather = [&](std::span<const std::uint32_t> items) {
    LevelGroup g;
    for (std::uint32_t i : items) {
      g.gold.push_back(p.gold[i]);
      g.metric.push_back(p.metric[i]);
    }
    return g;
  };
  const bool ranks = is_rank_statistic(statistic);
  if (level == Level::kItem) {
    if (ranks) p.all = sort_group(p.gold, p.metric);
    if (statistic == LevelStatistic::kAccEq) p.pairs = pair_events(p.gold, p.metric);
  } else if (level == Level::kTask) {
    for (std::size_t t = 0; t < p.num_tasks; ++t) {
      const LevelGroup g = gather(p.of_task.of(t));
      if (units == LevelUnits::kTasks) {
        if (statistic == LevelStatistic::kAccEq)
          p.task_group.push_back(g);
        else
          p.task_value.push_back(g.gold.empty() ? kNaN : detail::level_group_value(statistic, g));
      } else if (ranks) {
        p.task_sorted.push_back(sort_group(g.gold, g.metric));
      }
    }
  } else if (units == LevelUnits::kSystems) {
    for (std::size_t s = 0; s < p.num_systems; ++s) {
      double gold = 0, metric = 0;
      for (std::uint32_t i : p.of_system.of(s)) {
        gold += p.gold[i];
        metric += p.metric[i];
      }
      const std::size_t n = p.of_system.of(s).size();
      p.system_size.push_back(n);
      p.system_gold.push_back(gold / static_cast<double>(n));
      p.system_metric.push_back(metric / static_cast<double>(n));
    }
  }
  return p;
}

void draw_units(std::uint64_t seed, std::size_t b, LevelUnits units, std::size_t num_tasks,
                std::size_t num_systems, Draw& d) {
  util::Rng rng(seed, b);
  auto draw = [&](std::size_t count, std::vector<std::uint32_t>& drawn,
                  std::vector<std::uint32_t>& times) {
    const auto k = static_cast<std::uint32_t>(count);
    drawn.resize(count);
    times.assign(count, 0);
    for (auto& u : drawn) ++times[u = rng.below(k)];
  };
  if (units != LevelUnits::kSystems) draw(num_tasks, d.tasks, d.task_count);
  if (units != LevelUnits::kTasks) draw(num_systems, d.systems, d.system_count);
}

}  // namespace

std::vector<double> level_bootstrap_values(LevelStatistic statistic, Level level,
                                           const LevelData& data, LevelUnits units,
                                           std::size_t resamples, std::uint64_t seed,
                                           unsigned threads) {
  detail::check_level_data(data);
  // The checks and messages of the generic path (bootstrap, resample_units, level_statistic).
  if (units != LevelUnits::kTasksAndSystems) {
    const std::size_t n = units == LevelUnits::kTasks ? data.num_tasks : data.num_systems;
    if (n < 2) throw std::invalid_argument("bootstrap: need at least 2 items");
    if (n >= std::numeric_limits<std::uint32_t>::max())
      throw std::invalid_argument("bootstrap: too many items");
  }
  if (data.system.empty()) {
    if (units == LevelUnits::kSystems || level == Level::kSystem)
      throw std::invalid_argument("system level: the candidates carry no system");
    if (units == LevelUnits::kTasksAndSystems)
      throw std::invalid_argument("two-stage: the candidates carry no system");
  }
  std::vector<double> values(resamples, kNaN);
  if (detail::is_mtme_statistic(statistic)) {
    // spa, pdp, kendall-like: each resample materialised (the same draws), then the statistic.
    detail::parallel_chunks(resamples, threads, [&](std::size_t begin, std::size_t end) {
      Draw d;
      for (std::size_t b = begin; b < end; ++b) {
        draw_units(seed, b, units, data.num_tasks, data.num_systems, d);
        const std::vector<std::size_t> tasks(d.tasks.begin(), d.tasks.end()),
            systems(d.systems.begin(), d.systems.end());
        const LevelData r =
            units == LevelUnits::kTasksAndSystems
                ? resample_tasks_and_systems(data, tasks, systems)
                : resample_units(data, units == LevelUnits::kTasks ? Level::kTask : Level::kSystem,
                                 units == LevelUnits::kTasks ? tasks : systems);
        values[b] = level_statistic(statistic, level, r).value;
      }
    });
    return values;
  }
  const Plan plan = make_plan(statistic, level, data, units);
  detail::parallel_chunks(resamples, threads, [&](std::size_t begin, std::size_t end) {
    Evaluator eval(plan);
    Draw d;
    for (std::size_t b = begin; b < end; ++b) {
      draw_units(seed, b, units, data.num_tasks, data.num_systems, d);
      values[b] = eval(d);
    }
  });
  return values;
}

}  // namespace probity::stats
