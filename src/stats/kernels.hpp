#pragma once
// Internal building blocks shared by the correlation functions and the resampling loops. The
// resampling kernels take per-item integer weights (how often an item occurs in a bootstrap
// resample) so that a resample never needs to be materialized or re-sorted.
#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <span>
#include <utility>
#include <vector>

#include "probity/stats.hpp"
#include "util/parallel.hpp"

namespace probity::stats::detail {

// Runs body(begin, end) over chunks of [0, count) on `threads` threads (0: all cores), for
// resampling loops whose every index writes only its own output: several chunks per thread,
// taken as threads come free. A helper that starts late still takes a share: the pool's worker
// often starts milliseconds after the loop (on the project's 2-core VM the scheduler wakes it on
// the caller's core, median 3.5 ms), longer than half of a 1000-resample bootstrap at n = 1,600,
// so with one block per thread the caller ran both blocks and 2 threads were no faster than 1.
// Each chunk builds its own scratch, so a chunk must be long enough to pay for that.
template <class Body>
void parallel_chunks(std::size_t count, unsigned threads, Body&& body) {
  threads = util::resolve_threads(threads, count);
  if (threads <= 1) {
    if (count > 0) body(std::size_t{0}, count);
    return;
  }
  const std::size_t chunks = std::min<std::size_t>(count, std::size_t{8} * threads);
  util::parallel_for(
      chunks, threads, [&](std::size_t c) { body(count * c / chunks, count * (c + 1) / chunks); },
      1);
}

// NumPy's pairwise summation of a contiguous float64 array (add.reduce): reproducing its rounding
// keeps degenerate golden cases (an exactly zero mean) exact.
double numpy_sum(std::span<const double> v);
inline double numpy_mean(std::span<const double> v) {
  return numpy_sum(v) / static_cast<double>(v.size());
}

bool any_nan(std::span<const double> v);

// A variable sorted once: items in increasing order of value, grouped by equal value.
struct SortedView {
  std::vector<std::uint32_t> order;      // item indices, increasing value
  std::vector<std::uint32_t> group_end;  // end position in `order` of each tie group
  std::vector<std::uint32_t> dense;      // per item: 0-based index of its tie group
};
SortedView make_sorted_view(std::span<const double> v);

// Average 1-based ranks of items in a weighted sample (item i occurs w[i] times); items with
// w[i] = 0 get a meaningless finite rank. Returns the total weight.
std::uint64_t weighted_average_ranks(const SortedView& view, std::span<const std::uint32_t> w,
                                     std::span<double> rank);

// Sums of squares and cross products of two rank vectors centered at the same mean (weighted by
// w if given). Four partial sums for speed: ranks and the mean are multiples of 1/2, so every
// term is a multiple of 1/4 and the sums are exact (for n up to ~10^5), whatever their order.
struct RankSums {
  double xx = 0.0, yy = 0.0, xy = 0.0;
};
RankSums centered_rank_sums(std::span<const double> x, std::span<const double> y, double mean,
                            std::span<const std::uint32_t> w = {});

// Up to this many (resampled) items, centered rank sums are exact in doubles whatever the order of
// summation: every term is a multiple of 1/4 and every partial sum is at most n^3/12 in magnitude
// (Cauchy-Schwarz for the cross products), below 2^53 / 4 for n <= 2^18. Weighted ranks then give
// the bits that ranks of the materialised resample give.
inline constexpr std::uint64_t kExactRankSums = std::uint64_t{1} << 18;

// Pearson correlation of a weighted sample (two-pass, clipped to [-1, 1]); NaN if a variable has
// zero variance.
double weighted_pearson(std::span<const double> x, std::span<const double> y,
                        std::span<const std::uint32_t> w);

// Pair counts for Kendall's tau of a weighted sample. `u` is the variable whose order is fixed;
// v is given by its dense rank per item (0 <= v_dense < v_levels).
struct KendallCounts {
  std::int64_t size = 0;  // total weight
  std::int64_t tot = 0;   // size * (size - 1) / 2
  std::int64_t u_tie = 0, v_tie = 0, joint_tie = 0, discordant = 0;
  std::int64_t u_classes = 0, v_classes = 0;  // distinct values present
};

// Reusable buffers for kendall_counts (sized on first use).
struct KendallScratch {
  std::vector<std::int64_t> fenwick, level_weight, group_weight;
};

// w empty means every item once. O(n log n) (Knight 1966, Fenwick-tree inversion count).
KendallCounts kendall_counts(const SortedView& u, std::span<const std::uint32_t> v_dense,
                             std::uint32_t v_levels, std::span<const std::uint32_t> w,
                             KendallScratch& scratch);
double tau_from_counts(const KendallCounts& c, bool variant_c);

// Coefficient only (no p-value), computed exactly as the functions with a p-value do.
double coefficient(CorrelationType type, std::span<const double> x, std::span<const double> y);

// scipy.stats.zscore (ddof = 0), as mt-metrics-eval applies to both metrics of a permutation test.
std::vector<double> zscore(std::span<const double> v);

// stats::smd of two equally long vectors; `squares` is scratch space, reused between calls.
double smd(std::span<const double> perturbed, std::span<const double> original,
           std::vector<double>& squares);

// ---- Level statistics (levels.cpp), shared with the level bootstrap -----------------------------

// A group of candidates: their gold and metric scores, both finite.
struct LevelGroup {
  std::vector<double> gold, metric;
};
void check_level_data(const LevelData& d);  // std::invalid_argument when inconsistent
CorrelationType level_correlation_type(LevelStatistic s);  // std::logic_error for the accuracies
double pairwise_accuracy(const LevelGroup& g);
// acc-eq over groups sharing one epsilon: {accuracy, epsilon}.
std::pair<double, double> acc_eq(std::span<const LevelGroup* const> groups);
std::pair<double, double> acc_eq(const std::vector<LevelGroup>& groups);
// The statistic of one group, as level_statistic computes it at the item or system level.
double level_group_value(LevelStatistic s, const LevelGroup& g);
// The system level's cells: per system the mean gold and metric score over its usable candidates
// (systems without one, and candidates without a system, left out); invalid_argument without
// systems.
LevelGroup level_system_means(const LevelData& d);
// The cells two metrics are compared on: the candidates with a gold score and both metric
// scores; `a` holds data's metric, `b` metric_b, with the same gold, tasks and systems.
// invalid_argument when metric_b's length is not data's.
void paired_cells(const LevelData& data, std::span<const double> metric_b, LevelData& a,
                  LevelData& b);

}  // namespace probity::stats::detail
