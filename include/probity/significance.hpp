#pragma once
// System comparison as sacreBLEU 2.6.0 computes it (sacrebleu/significance.py; the CLI's
// --paired-bs and --paired-ar): a baseline and other systems scored on the same items by a corpus
// metric of sacreBLEU's (bleu, chrf, chrf++, ter), with
//  - paired bootstrap resampling (_paired_bs_test): every system's actual score, the mean and
//    95% CI half-width of its scores over the resamples (estimate_ci), and for each system but
//    the baseline the p-value of the absolute score difference, (c + 1) / (n + 1) with c the
//    resamples whose centred absolute difference exceeds it;
//  - approximate randomization (_paired_ar_test): the actual scores and p-values, trials swapping
//    each item's statistics between the two systems with probability 1/2.
// Both draw NumPy's streams (default_rng(seed): PCG64 seeded by SeedSequence; util/numpy_random)
// exactly as sacreBLEU does, so with the same seed (SACREBLEU_SEED, default 12345) and items the
// numbers are sacreBLEU's (tests/golden/significance, NumPy 1.24.2). Resamples are scored from
// float32 statistics as numpy computes them (metrics/numpy_resampled.hpp). The results do not
// depend on the thread count.
#include <cstddef>
#include <cstdint>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "probity/metric.hpp"

namespace probity {

enum class PairedTestKind { kBootstrap, kRandomization };

struct PairedTestOptions {
  PairedTestKind kind = PairedTestKind::kBootstrap;
  // Resamples (bootstrap) or trials (randomization); 0: sacreBLEU's defaults, 1000 and 10000.
  std::size_t samples = 0;
  // sacreBLEU's SACREBLEU_SEED (it draws from the operating system's entropy for 0 or "none";
  // probity always uses the seed given).
  std::uint64_t seed = 12345;
  unsigned threads = 0;  // 0: all cores
};

std::size_t default_paired_samples(PairedTestKind kind);

struct PairedSystemResult {
  double score = 0.0;             // the corpus score
  std::optional<double> p_value;  // not for the baseline
  std::optional<double> mean;     // bootstrap: mean over the resamples
  std::optional<double> ci;       // bootstrap: half the 95% interval (sacreBLEU's "± CI")
};

struct PairedTestResult {
  // The metric's corpus signature with the test's fields before the version:
  // "...|bs:1000|seed:12345|version:..." or "...|ar:10000|seed:12345|version:..." (sacreBLEU adds
  // the same keys to its signature).
  std::string signature;
  std::size_t samples = 0;
  std::vector<PairedSystemResult> systems;  // [0] is the baseline
};

// systems[s]: the metric's item statistics of system s (row-major, metric.num_stats() per item),
// every system on the same items in the same order; systems[0] is the baseline. UsageError for a
// metric that is not one of sacreBLEU's (no float32 resample score), for fewer than 2 systems or
// no items, for statistics of different lengths, and for undefined (NaN) statistics.
PairedTestResult paired_test(const Metric& metric, std::span<const std::vector<double>> systems,
                             const PairedTestOptions& options = {});

// sacreBLEU's estimate_ci: the mean of the scores and half the distance between the sorted
// scores at n/40 and n - n/40 - 1.
struct MeanCi {
  double mean = 0.0, ci = 0.0;
};
MeanCi sacrebleu_estimate_ci(std::span<const double> scores);

}  // namespace probity
