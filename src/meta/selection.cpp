// Choosing a metric variant on held-out data (the critique of ExPerT's choice of aggregation on
// test data, arXiv:2501.14956): select on one half of the tasks, report on the other, and correct
// the selection step for having picked the best of several variants.
#include <fmt/format.h>

#include <algorithm>
#include <atomic>
#include <cmath>
#include <limits>
#include <numeric>
#include <stdexcept>

#include "probity/meta.hpp"
#include "util/hash.hpp"
#include "util/parallel.hpp"
#include "util/random.hpp"

namespace probity::meta {
namespace {

constexpr double kNaN = std::numeric_limits<double>::quiet_NaN();

// Correlation of each variant with permuted ratings, reusing per-variant preprocessing: for
// Spearman the variants' ranks are computed once and a permutation of the ratings' ranks is
// again a rank vector, so Pearson on ranks is exact.
class PermutedCorrelations {
 public:
  PermutedCorrelations(std::vector<std::vector<double>> variants, std::vector<double> human,
                       stats::CorrelationType type)
      : type_(type), variants_(std::move(variants)), human_(std::move(human)) {
    if (type_ == stats::CorrelationType::kSpearman) {
      for (auto& v : variants_) v = stats::rankdata_average(v);
      human_ = stats::rankdata_average(human_);
    }
  }

  std::size_t size() const { return human_.size(); }

  // Correlation of variant k with the ratings permuted by `perm` (empty: not permuted).
  double correlation(std::size_t k, std::span<const std::size_t> perm) const {
    thread_local std::vector<double> h;
    h.resize(human_.size());
    for (std::size_t i = 0; i < h.size(); ++i) h[i] = perm.empty() ? human_[i] : human_[perm[i]];
    if (type_ == stats::CorrelationType::kSpearman)
      return stats::pearson(variants_[k], h).statistic;
    return stats::correlation(type_, variants_[k], h).statistic;
  }

  std::size_t variants() const { return variants_.size(); }

 private:
  stats::CorrelationType type_;
  std::vector<std::vector<double>> variants_;
  std::vector<double> human_;
};

// Runs `permutations` permutations of the ratings within each group (task) and counts those
// whose statistic (computed by `stat` from the permutation) reaches `observed`;
// p = (1 + count) / (1 + B). Permuting within tasks keeps each task's rating level, so
// differences between tasks (sources of varying difficulty) cannot pass for an association.
template <class Stat>
double permutation_p(const std::vector<std::vector<std::size_t>>& groups, std::size_t n,
                     double observed, std::size_t permutations, std::uint64_t seed,
                     unsigned threads, Stat&& stat) {
  if (!std::isfinite(observed) || permutations == 0 || n < 3) return kNaN;
  std::atomic<std::size_t> count{0};
  util::parallel_blocks(permutations, threads, [&](unsigned, std::size_t begin, std::size_t end) {
    std::vector<std::size_t> perm(n), members;
    std::size_t local = 0;
    for (std::size_t b = begin; b < end; ++b) {
      util::Rng rng(seed, b);
      std::iota(perm.begin(), perm.end(), std::size_t{0});
      for (const auto& g : groups) {
        members = g;
        for (std::size_t i = members.size(); i > 1; --i)
          std::swap(members[i - 1], members[rng.below(static_cast<std::uint32_t>(i))]);
        for (std::size_t i = 0; i < g.size(); ++i) perm[g[i]] = members[i];
      }
      const double v = stat(std::span<const std::size_t>(perm));
      // A tiny tolerance so that floating-point noise in a recomputed equal value counts.
      if (std::isfinite(v) && v >= observed - 1e-12) ++local;
    }
    count += local;
  });
  return (1.0 + static_cast<double>(count.load())) / (1.0 + static_cast<double>(permutations));
}

// Positions (within `idx`) of the items of each task.
std::vector<std::vector<std::size_t>> groups_of(const std::vector<std::size_t>& idx,
                                                std::span<const std::size_t> task_of_item) {
  std::vector<std::vector<std::size_t>> groups;
  std::vector<std::pair<std::size_t, std::size_t>> keyed;  // (task, position)
  for (std::size_t j = 0; j < idx.size(); ++j) keyed.emplace_back(task_of_item[idx[j]], j);
  std::sort(keyed.begin(), keyed.end());
  for (std::size_t j = 0; j < keyed.size(); ++j) {
    if (j == 0 || keyed[j].first != keyed[j - 1].first) groups.emplace_back();
    groups.back().push_back(keyed[j].second);
  }
  return groups;
}

// The winner: the best selection value (an undefined value never wins; ties keep the first
// variant given); the choice sees only the selection half.
void choose_winner(SelectionResult& r) {
  double best = -std::numeric_limits<double>::infinity();
  for (std::size_t v = 0; v < r.variants.size(); ++v) {
    if (std::isfinite(r.variants[v].selection) && r.variants[v].selection > best) {
      best = r.variants[v].selection;
      r.winner = v;
    }
  }
  r.winner_test = r.variants[r.winner].test;
  r.winner_test_ci = {kNaN, kNaN};
}

// Holm's adjustment of the winner-against-each-variant p-values over the K - 1 comparisons.
void adjust_vs_winner(SelectionResult& r) {
  std::vector<double> ps;
  for (std::size_t v = 0; v < r.variants.size(); ++v)
    if (v != r.winner) ps.push_back(r.variants[v].p_vs_winner);
  const auto holm = stats::holm(ps);
  for (std::size_t v = 0, j = 0; v < r.variants.size(); ++v)
    if (v != r.winner) r.variants[v].p_vs_winner_holm = holm.adjusted[j++];
}

// select_variant at a level: the same protocol with the level statistic in place of the pooled
// correlation (see SelectionOptions::level).
class LevelHalves {
 public:
  LevelHalves(const std::vector<std::vector<double>>& scores, std::span<const double> human,
              std::span<const std::size_t> task_of_item,
              std::span<const std::size_t> system_of_item, std::size_t num_systems,
              const SelectionOptions& options)
      : scores_(scores),
        human_(human),
        task_of_item_(task_of_item),
        system_of_item_(system_of_item),
        num_systems_(num_systems),
        num_tasks_(task_of_item.empty()
                       ? 0
                       : *std::max_element(task_of_item.begin(), task_of_item.end()) + 1),
        level_(*options.level),
        statistic_(options.statistic) {}

  // Variant v on the items `idx` (one half), ratings permuted by `perm` over the positions of
  // `idx` (empty: as they are). Tasks are renumbered within the half, so that resampling draws
  // only its own tasks.
  stats::LevelData data(std::size_t v, const std::vector<std::size_t>& idx,
                        std::span<const std::size_t> perm = {}) const {
    stats::LevelData d;
    d.num_systems = num_systems_;
    thread_local std::vector<std::size_t> renumbered;  // task -> index within the half
    renumbered.assign(num_tasks_, stats::kNoSystem);
    for (std::size_t j = 0; j < idx.size(); ++j) {
      const std::size_t i = idx[j];
      d.gold.push_back(human_[perm.empty() ? i : idx[perm[j]]]);
      d.metric.push_back(scores_[v][i]);
      std::size_t& t = renumbered[task_of_item_[i]];
      if (t == stats::kNoSystem) t = d.num_tasks++;
      d.task.push_back(t);
      d.system.push_back(system_of_item_.empty() ? stats::kNoSystem : system_of_item_[i]);
    }
    return d;
  }
  double value(std::size_t v, const std::vector<std::size_t>& idx,
               std::span<const std::size_t> perm = {}) const {
    return stats::level_statistic(statistic_, level_, data(v, idx, perm)).value;
  }
  stats::Level level() const { return level_; }
  stats::LevelStatistic statistic() const { return statistic_; }

 private:
  const std::vector<std::vector<double>>& scores_;
  std::span<const double> human_;
  std::span<const std::size_t> task_of_item_, system_of_item_;
  std::size_t num_systems_, num_tasks_;
  stats::Level level_;
  stats::LevelStatistic statistic_;
};

void select_at_level(SelectionResult& r, const std::vector<std::vector<double>>& scores,
                     const std::vector<std::string>& names, const std::vector<std::size_t>& sel,
                     const std::vector<std::size_t>& test,
                     std::span<const std::size_t> task_of_item, const LevelHalves& halves,
                     const SelectionOptions& options) {
  const std::size_t k = scores.size();
  r.variants.resize(k);
  for (std::size_t v = 0; v < k; ++v) {
    r.variants[v].name = names[v];
    r.variants[v].selection = halves.value(v, sel);
    r.variants[v].test = halves.value(v, test);
  }
  choose_winner(r);
  const std::size_t w = r.winner;
  const stats::LevelData winner_test = halves.data(w, test);
  if (options.bootstrap > 0 && std::isfinite(r.winner_test)) {
    stats::BootstrapOptions bo;
    bo.resamples = options.bootstrap;
    bo.confidence = options.confidence;
    bo.seed = options.seed;
    bo.threads = options.threads;
    const std::size_t units =
        halves.level() == stats::Level::kSystem ? winner_test.num_systems : winner_test.num_tasks;
    r.winner_test_ci = stats::bootstrap(
                           units,
                           [&](std::span<const std::size_t> drawn) {
                             return stats::level_statistic(
                                        halves.statistic(), halves.level(),
                                        stats::resample_units(winner_test, halves.level(), drawn))
                                 .value;
                           },
                           bo)
                           .ci;
  }
  stats::PermutationOptions po;
  po.permutations = options.permutations;
  po.seed = options.seed;
  po.threads = options.threads;
  po.add_one = true;
  for (std::size_t v = 0; v < k; ++v) {
    auto& vr = r.variants[v];
    vr.delta_vs_winner = vr.p_vs_winner = vr.p_vs_winner_holm = kNaN;
    if (v == w || options.permutations == 0) continue;
    const auto t = stats::level_permutation_test(halves.statistic(), halves.level(), winner_test,
                                                 halves.data(v, test).metric, po);
    vr.delta_vs_winner = t.delta;
    vr.p_vs_winner = t.p;
  }
  adjust_vs_winner(r);
  // Ratings permuted within each task, as in the pooled protocol.
  r.p_max_selection =
      permutation_p(groups_of(sel, task_of_item), sel.size(), r.variants[w].selection,
                    options.permutations, options.seed ^ 0x6A09E667F3BCC908ULL, options.threads,
                    [&](std::span<const std::size_t> perm) {
                      double m = -std::numeric_limits<double>::infinity();
                      for (std::size_t v = 0; v < k; ++v) {
                        const double c = halves.value(v, sel, perm);
                        if (std::isfinite(c)) m = std::max(m, c);
                      }
                      return m;
                    });
  r.p_test =
      permutation_p(groups_of(test, task_of_item), test.size(), r.winner_test, options.permutations,
                    options.seed ^ 0xBB67AE8584CAA73BULL, options.threads,
                    [&](std::span<const std::size_t> perm) { return halves.value(w, test, perm); });
}

}  // namespace

SelectionResult select_variant(const std::vector<std::vector<double>>& scores,
                               const std::vector<std::string>& names, std::span<const double> human,
                               std::span<const std::size_t> task_of_item,
                               std::span<const std::string> task_ids,
                               const SelectionOptions& options,
                               std::span<const std::size_t> system_of_item,
                               std::size_t num_systems) {
  const std::size_t k = scores.size();
  if (k < 2) throw std::invalid_argument("select: give at least two variants");
  if (names.size() != k) throw std::invalid_argument("select: one name per variant");
  const std::size_t n = human.size();
  for (const auto& s : scores)
    if (s.size() != n) throw std::invalid_argument("select: scores and ratings differ in length");
  if (task_of_item.size() != n) throw std::invalid_argument("select: one task per item");

  const auto in_selection = split_tasks(task_ids, options.split, options.seed);
  SelectionResult r;
  for (bool b : in_selection) (b ? r.selection_tasks : r.test_tasks) += 1;

  // Items usable by every variant, split by their task.
  std::vector<std::size_t> sel, test;
  for (std::size_t i = 0; i < n; ++i) {
    bool ok = std::isfinite(human[i]);
    for (const auto& s : scores) ok = ok && std::isfinite(s[i]);
    if (!ok) continue;
    (in_selection[task_of_item[i]] ? sel : test).push_back(i);
  }
  r.selection_items = sel.size();
  r.test_items = test.size();
  if (options.level) {
    if (*options.level == stats::Level::kSystem && system_of_item.size() != n)
      throw std::invalid_argument("select: the system level needs each item's system");
    select_at_level(r, scores, names, sel, test, task_of_item,
                    LevelHalves(scores, human, task_of_item, system_of_item, num_systems, options),
                    options);
    return r;
  }
  auto gather = [&](const std::vector<double>& v, const std::vector<std::size_t>& idx) {
    std::vector<double> out(idx.size());
    for (std::size_t j = 0; j < idx.size(); ++j) out[j] = v[idx[j]];
    return out;
  };
  const std::vector<double> human_all(human.begin(), human.end());
  const auto h_sel = gather(human_all, sel);
  const auto h_test = gather(human_all, test);
  std::vector<std::vector<double>> s_sel, s_test;
  for (const auto& s : scores) {
    s_sel.push_back(gather(s, sel));
    s_test.push_back(gather(s, test));
  }

  r.variants.resize(k);
  for (std::size_t v = 0; v < k; ++v) {
    r.variants[v].name = names[v];
    r.variants[v].selection = stats::correlation(options.correlation, s_sel[v], h_sel).statistic;
    r.variants[v].test = stats::correlation(options.correlation, s_test[v], h_test).statistic;
  }
  choose_winner(r);
  const std::size_t w = r.winner;

  if (options.bootstrap > 0 && test.size() >= 3) {
    stats::BootstrapOptions bo;
    bo.resamples = options.bootstrap;
    bo.confidence = options.confidence;
    bo.seed = options.seed;
    bo.threads = options.threads;
    // Whole test tasks are resampled: candidates of one task share a source and references.
    for (std::size_t i : test) bo.clusters.push_back(task_of_item[i]);
    r.winner_test_ci = stats::bootstrap_correlation(s_test[w], h_test, options.correlation, bo).ci;
  }

  // Paired permutation tests of the winner against each other variant on the test half.
  stats::PermutationOptions po;
  po.permutations = options.permutations;
  po.seed = options.seed;
  po.threads = options.threads;
  po.add_one = true;
  for (std::size_t v = 0; v < k; ++v) {
    auto& vr = r.variants[v];
    vr.delta_vs_winner = kNaN;
    vr.p_vs_winner = kNaN;
    vr.p_vs_winner_holm = kNaN;
    if (v == w || test.size() < 3 || options.permutations == 0) continue;
    auto t =
        stats::permutation_correlation_diff(s_test[w], s_test[v], h_test, options.correlation, po);
    vr.delta_vs_winner = t.delta;
    vr.p_vs_winner = t.p;
  }
  adjust_vs_winner(r);

  // Max statistic over all variants on the selection half (the selection step itself).
  const PermutedCorrelations sel_corr(s_sel, h_sel, options.correlation);
  r.p_max_selection =
      permutation_p(groups_of(sel, task_of_item), sel.size(), r.variants[w].selection,
                    options.permutations, options.seed ^ 0x6A09E667F3BCC908ULL, options.threads,
                    [&](std::span<const std::size_t> perm) {
                      double m = -std::numeric_limits<double>::infinity();
                      for (std::size_t v = 0; v < k; ++v) {
                        const double c = sel_corr.correlation(v, perm);
                        if (std::isfinite(c)) m = std::max(m, c);
                      }
                      return m;
                    });
  // The pre-chosen winner alone on the test half.
  const PermutedCorrelations test_corr({s_test[w]}, h_test, options.correlation);
  r.p_test = permutation_p(
      groups_of(test, task_of_item), test.size(), r.winner_test, options.permutations,
      options.seed ^ 0xBB67AE8584CAA73BULL, options.threads,
      [&](std::span<const std::size_t> perm) { return test_corr.correlation(0, perm); });
  return r;
}

}  // namespace probity::meta
