#pragma once
// The WMT24/25 meta-evaluation statistics of Google's mt-metrics-eval (MTME), written from its
// code (commit 68a481a: mt_metrics_eval/stats.py and pce.py) and checked against it in
// tests/golden/meta_eval/wmt_stats.json. Score matrices are row-major systems x items, MTME's
// flat layout (all items of system 0, then of system 1, ...); NaN gold is MTME's None (missing).
#include <cstddef>
#include <cstdint>
#include <limits>
#include <optional>
#include <span>
#include <utility>
#include <vector>

#include "probity/stats.hpp"

namespace probity::stats {

// MTME's average_by: one group of everything, one group per item (column), one per system (row).
enum class MtmeAverageBy { kNone, kItem, kSys };

// ---- Soft pairwise accuracy (1 - pairwise confidence error, pce.py) -----------------------------

// The +-1 signs of pce.compute_pairwise_p_values: rng = default_rng(seed),
// rint(rng.random((permutations, segments), float32)) * 2 - 1. Built once, shared by every call
// with the same shape; bit l of row p is set where the sign is +1.
class PceDraws {
 public:
  PceDraws(std::size_t segments, std::size_t permutations = 1000, std::uint64_t seed = 4);
  std::size_t segments() const { return segments_; }
  std::size_t permutations() const { return permutations_; }
  // Row p's sign bits, 8 segments a byte, lowest bit first (padding bits are 0).
  std::span<const std::uint8_t> row(std::size_t p) const {
    return {bits_.data() + p * row_bytes_, row_bytes_};
  }
  bool plus(std::size_t p, std::size_t l) const { return (row(p)[l / 8] >> (l % 8)) & 1u; }

 private:
  std::size_t segments_, permutations_, row_bytes_;
  std::vector<std::uint8_t> bits_;
};

// How pce_pairwise_p_values sums.
enum class PceArithmetic {
  // As MTME does on NumPy with the reference BLAS (Debian's NumPy, which made the goldens):
  // each permutation's float32 sum in segment order (sgemm's loop), NumPy's pairwise float32
  // sums for the observed totals, float32 differences. Bit for bit there; an optimized BLAS
  // (OpenBLAS, MKL; not checked) may sum in another order, and MTME itself then differs at
  // float32 near-ties.
  kMtmeFloat32,
  // Exact sums of the float32 values (in doubles): ties decided by the numbers, not by rounding.
  kExact,
};

// pce.compute_pairwise_p_values on `scores` (systems x draws.segments(), cast to float32 as
// MTME does): the upper triangle, row-major ((0,1), (0,2), ..., (1,2), ...), p(i > j) =
// #{permutations: null delta >= observed delta} / permutations.
std::vector<double> pce_pairwise_p_values(const PceDraws& draws, std::span<const double> scores,
                                          std::size_t systems,
                                          PceArithmetic arithmetic = PceArithmetic::kMtmeFloat32);
// pce.compute_one_minus_pce: 1 - mean |human_p - metric_p| over the upper triangle.
double soft_pairwise_accuracy(std::span<const double> human_p, std::span<const double> metric_p);
// stats.PairwiseConfidenceError(gold, metric, num_sys, filter_nones=True): items with missing
// gold are dropped from both (flat), the rest reshaped to systems rows (std::invalid_argument if
// that does not divide). draws.segments() must be the reshaped row length.
double mtme_soft_pairwise_accuracy(const PceDraws& draws, std::span<const double> gold,
                                   std::span<const double> metric, std::size_t systems,
                                   PceArithmetic arithmetic = PceArithmetic::kMtmeFloat32);

// ---- Tie-calibrated accuracy (tau_optimization.py) ---------------------------------------------

struct MtmeTauResult {
  double value = std::numeric_limits<double>::quiet_NaN();  // best mean acc23 (NaN: no pair)
  double epsilon = 0.0;                                     // its threshold
  std::size_t rows = 0;                                     // rows with at least one pair
};
// KendallWithTiesOpt(variant='acc23', sample_rate=1.0) on the rows given as flat indices (as
// detail::mtme_groups makes them), with MTME's float running sum and first-maximum rule; a cell
// whose gold or metric is NaN is left out. Rows with pairs are summed in ascending order (MTME
// iterates a Python set of row numbers, which is ascending for the row counts of a test set).
MtmeTauResult mtme_tau_optimization(std::span<const double> gold, std::span<const double> metric,
                                    const std::vector<std::vector<std::size_t>>& rows);

// ---- Permutation tests (stats.PermutationSigDiff, stats.PairwisePermutationSigDiff) -------------

struct MtmeSigDiffOptions {
  std::size_t k = 1000;  // resampling runs
  // PermutationSigDiffParams: stop at a block boundary once p < early_min or p > early_max
  // (block_size 0: never; MTME would divide by zero).
  std::size_t block_size = 1000;
  double early_min = 0.02, early_max = 0.5;
  // The coins: numpy's legacy global stream after np.random.seed(seed) (np.random.binomial(1,
  // 0.5, ...), equal to MTME bit for bit), or, with mtme_stream false, probity's own
  // default_rng(seed) bits (same test, other draws, several times faster: the pairs test then
  // draws coins only for the pairs the two metrics get differently right).
  std::uint32_t seed = 0;
  bool mtme_stream = true;
  // When averaging over groups, count a NaN group value as 0 instead of dropping it.
  bool replace_nans_with_zeros = false;
  // The PCE statistic's sums (mtme_pce_permutation_test only).
  PceArithmetic pce_arithmetic = PceArithmetic::kMtmeFloat32;
};

struct MtmeSigDiffResult {
  double p_value = 0.0;                              // for statistic(metric2) > statistic(metric1)
  double delta = 0.0;                                // statistic(metric2) - statistic(metric1)
  std::size_t draws = 0;                             // resampling runs performed (early stopping)
  std::vector<std::pair<double, double>> resampled;  // per run: (c2, c1)
};

// PermutationSigDiff(corr(metric1), corr(metric2), PairwiseConfidenceError, average_by='none'),
// as data.CompareMetricsWithPairwiseConfidenceError runs it: both metrics z-scored (scipy, ddof
// 0) after dropping items with missing gold, coins swap items between them, statistic = soft
// pairwise accuracy against the gold. draws: MTME's default 1000 permutations, seed 4.
MtmeSigDiffResult mtme_pce_permutation_test(const PceDraws& draws, std::span<const double> gold,
                                            std::span<const double> metric1,
                                            std::span<const double> metric2, std::size_t systems,
                                            const MtmeSigDiffOptions& options);

// PairwisePermutationSigDiff(variant='acc23'): coins swap pairwise comparisons (per group, pair
// (i < j) of group members) between the metrics; statistic = acc23 with each metric's own tie
// threshold (KendallWithTiesOpt, sample_rate 1, unless given), averaged over groups. A group of
// one scored item makes MTME divide by zero; here its value is NaN (dropped or 0).
MtmeSigDiffResult mtme_pairs_permutation_test(
    std::span<const double> gold, std::span<const double> metric1, std::span<const double> metric2,
    std::size_t systems, MtmeAverageBy average_by, const MtmeSigDiffOptions& options,
    std::optional<double> epsilon1 = std::nullopt, std::optional<double> epsilon2 = std::nullopt);

// ---- Correlations -------------------------------------------------------------------------------

// Correlation(...).Pearson(average_by, pdp=True): Pearson over the flattened intra-group pairwise
// differences (every ordered pair, the diagonal too) where the gold difference is not missing;
// 0 where MTME's average has nothing (NaN, fewer than 2 differences).
double mtme_pdp_pearson(std::span<const double> gold, std::span<const double> metric,
                        std::size_t systems, MtmeAverageBy average_by);

// Correlation(...).KendallLike(average_by, thresh): WMT20's Kendall-like tau per group (gold
// pairs at least thresh apart; a metric tie counts as discordant), averaged weighted by pairs.
double mtme_kendall_like(std::span<const double> gold, std::span<const double> metric,
                         std::size_t systems, MtmeAverageBy average_by = MtmeAverageBy::kItem,
                         double thresh = 25.0);

// stats.WilliamsTest: p-value for r12 != r13 given r23 on n items (one- or two-sided).
double williams_test(double r12, double r13, double r23, double n, bool one_sided = true);
struct WilliamsResult {
  double p_value = 0.0, r1 = 0.0, r2 = 0.0;
};
// stats.WilliamsSigDiff with Pearson (AverageCorrelation, average_by 'none'): r1, r2 against the
// gold (missing gold dropped), r12 between the metrics, n = all items (missing ones too).
WilliamsResult mtme_williams_sig_diff(std::span<const double> gold, std::span<const double> metric1,
                                      std::span<const double> metric2, bool one_sided = true);

namespace detail {
// spa, pdp, kendall-like: the LevelStatistic values computed by the functions above
// (mtme_levels.cpp); level_statistic and the level bootstrap and permutation test route them here.
bool is_mtme_statistic(LevelStatistic s);
// False where the statistic has no value at the level (spa exists at the system level only):
// tables of several levels leave that cell out.
inline bool level_defines(LevelStatistic s, Level level) {
  return s != LevelStatistic::kSpa || level == Level::kSystem;
}
LevelResult mtme_level_statistic(LevelStatistic s, Level level, const LevelData& data);
}  // namespace detail

}  // namespace probity::stats
