#pragma once
// System comparison as sacreBLEU 2.6.0 computes it (sacrebleu/significance.py; the CLI's
// --paired-bs and --paired-ar), for any metric: systems scored on the same items, compared by
//  - paired bootstrap resampling (_paired_bs_test): every system's actual score, the mean and
//    95% CI half-width of its scores over the resamples (estimate_ci), and for a pair of systems
//    the p-value of the absolute score difference, (c + 1) / (n + 1) with c the resamples whose
//    centred absolute difference exceeds it;
//  - approximate randomization (_paired_ar_test): the actual scores and p-values, trials swapping
//    each item between the two systems with probability 1/2.
// A resample or trial is scored by the metric's corpus aggregation (PairedAggregation): for
// sacreBLEU's metrics (bleu, chrf, chrf++, ter) as sacreBLEU scores it, so that with the same
// seed (SACREBLEU_SEED, default 12345) and items the numbers are sacreBLEU's
// (tests/golden/significance/paired.json); for any other metric its summed statistics or the
// mean of its item scores, with the same draws (tests/golden/significance/any_metric.json, from
// a NumPy reference). Both draw NumPy's streams (default_rng(seed): PCG64 seeded by SeedSequence;
// util/numpy_random) exactly as sacreBLEU does, one stream per test, so every pair of systems
// sees the same resamples or masks. The results do not depend on the thread count.
#include <cstddef>
#include <cstdint>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "probity/dataset.hpp"
#include "probity/inputs.hpp"
#include "probity/metric.hpp"
#include "probity/stats.hpp"

namespace probity {

class Engine;

enum class PairedTestKind { kBootstrap, kRandomization };
std::string_view paired_test_kind_name(PairedTestKind kind);   // "bs", "ar" (sacreBLEU's names)
PairedTestKind parse_paired_test_kind(std::string_view name);  // UsageError for another name

// How a test scores the items of a resample or trial, from the metric's corpus aggregation:
enum class PairedAggregation {
  // sacreBLEU's metrics: the summed statistics, a bootstrap resample summed and scored in float32
  // as NumPy computes it (metrics/numpy_resampled.hpp), a trial summed exactly.
  kSacrebleu,
  // Another metric scored from summed statistics (CorpusAggregation::kSumStats): float64 sums,
  // in the order of the resample's draws.
  kSummedStats,
  // The mean of the item scores (CorpusAggregation::kMeanScores: ROUGE, BERTScore, LLM judges,
  // scores files, ...), NumPy's pairwise mean of the resample's (or trial's) item scores.
  kItemMean,
};
std::string_view paired_aggregation_name(PairedAggregation a);  // "sacrebleu", "stats", "mean"
PairedAggregation paired_aggregation_of(const Metric& metric);

struct PairedTestOptions {
  PairedTestKind kind = PairedTestKind::kBootstrap;
  // Resamples (bootstrap) or trials (randomization); 0: sacreBLEU's defaults, 1000 and 10000.
  std::size_t samples = 0;
  // sacreBLEU's SACREBLEU_SEED (it draws from the operating system's entropy for 0 or "none";
  // probity always uses the seed given).
  std::uint64_t seed = 12345;
  unsigned threads = 0;  // 0: all cores
  // Every pair of systems (PairedTestResult::pairwise), not only each against the baseline.
  bool all_pairs = false;
};

std::size_t default_paired_samples(PairedTestKind kind);

struct PairedSystemResult {
  double score = 0.0;             // the corpus score
  std::optional<double> p_value;  // against the baseline; not for the baseline
  std::optional<double> mean;     // bootstrap: mean over the resamples
  std::optional<double> ci;       // bootstrap: half the 95% interval (sacreBLEU's "± CI")
};

struct PairedTestResult {
  // The metric's corpus signature with the test's fields before the version:
  // "...|bs:1000|seed:12345|version:..." or "...|ar:10000|seed:12345|version:..." (sacreBLEU adds
  // the same keys to its signature).
  std::string signature;
  std::size_t samples = 0;
  PairedAggregation aggregation = PairedAggregation::kSacrebleu;
  std::vector<PairedSystemResult> systems;  // [0] is the baseline
  // With options.all_pairs: pairwise[i][j] == pairwise[j][i], the p-value of systems i and j
  // (the same test as against the baseline: pairwise[0][s] is systems[s].p_value); NaN on the
  // diagonal. Empty otherwise.
  std::vector<std::vector<double>> pairwise;
};

// systems[s]: the metric's item statistics of system s (row-major, metric.num_stats() per item),
// every system on the same items in the same order; systems[0] is the baseline. `part` (an index
// into metric.parts()) is the score compared. UsageError for fewer than 2 systems or no items,
// for statistics of different lengths, for undefined (NaN) statistics or item scores, and for a
// part the metric does not have.
PairedTestResult paired_test(const Metric& metric, std::span<const std::vector<double>> systems,
                             const PairedTestOptions& options = {}, std::size_t part = 0);

// sacreBLEU's estimate_ci: the mean of the scores and half the distance between the sorted
// scores at n/40 and n - n/40 - 1.
struct MeanCi {
  double mean = 0.0, ci = 0.0;
};
MeanCi sacrebleu_estimate_ci(std::span<const double> scores);

// WMT's significance clusters of the systems of an all-pairs test (mt-metrics-eval's AssignRanks,
// stats::significance_ranks): the systems from best to worst score (highest first, or lowest
// when lower is better; ties in input order); walking down, a system starts a new cluster when
// a system of the current cluster differs from it with adjusted p <= alpha. The family adjusted
// is the test's n(n-1)/2 pairs; a pair of equal scores counts as p = 1 (sacreBLEU's p of a zero
// difference is the smallest, 1/(samples + 1)).
struct SignificanceClusters {
  stats::RankCorrection correction = stats::RankCorrection::kHolm;
  double alpha = 0.05;
  std::vector<std::vector<double>> adjusted;  // the pairwise p-values adjusted; NaN diagonal
  std::vector<std::size_t> rank;              // per system: 1 = the best cluster
  std::vector<std::size_t> order;             // the systems, best first
};
// UsageError when `test` was not run with all_pairs.
SignificanceClusters significance_clusters(const PairedTestResult& test, bool higher_is_better,
                                           stats::RankCorrection correction, double alpha);

// `probity significance` (and probity.significance in Python): the systems of a dataset (the
// candidates' `system`, one candidate per system in every task; --hyp files are systems too)
// compared by each metric with a paired test, the first system (or `baseline`) against each
// other as sacreBLEU prints it, and every pair of systems ranked into significance clusters.
struct SignificanceRequest {
  // Approximate randomization unless asked otherwise: sacreBLEU's PairedTest defaults to it, and
  // its 10,000 trials resolve p-values down to 1e-4, which a Holm family of many pairs needs.
  SignificanceRequest() { options.kind = PairedTestKind::kRandomization; }
  DataInput data;
  std::vector<std::string> metrics{"bleu"};  // any metric specs, e.g. rougeL.f, scores:FILE,...
  PairedTestOptions options;                 // the test, its samples, seed and threads
  std::string baseline;                      // empty: the first system
  // The clusters of all pairs; nullopt: with more than two systems (two: the one pair is the
  // baseline test).
  std::optional<bool> clusters;
  // Holm by default: n systems make n(n-1)/2 tests, and a cluster boundary is a claim about
  // them all (as `probity rank`).
  stats::RankCorrection correction = stats::RankCorrection::kHolm;
  double alpha = 0.05;
  // Decimals of the scores shown; nullopt: 1 for sacreBLEU's metrics (sacreBLEU's --width, its
  // scores are percentages), 4 for the others (most score in [0, 1]).
  std::optional<int> width;
  bool json = false;
  bool skip_invalid = false;
};

struct SignificanceMetric {
  std::string name;  // the selected part's record name, e.g. "bleu", "rougeL.f"
  std::string spec;  // as given
  bool higher_is_better = true;
  int width = 1;  // decimals shown
  PairedTestResult test;
  std::optional<SignificanceClusters> clusters;
};

struct SignificanceRun {
  std::string data;                  // the input's name
  std::vector<std::string> systems;  // the baseline first
  std::size_t items = 0;             // tasks, each with one candidate per system
  std::vector<SkipRecord> skipped;
  PairedTestKind kind = PairedTestKind::kRandomization;
  std::size_t samples = 0;
  std::uint64_t seed = 0;
  bool clusters = false;
  stats::RankCorrection correction = stats::RankCorrection::kHolm;
  double alpha = 0.05;
  std::vector<SignificanceMetric> metrics;
  // What the caller should say before the results (e.g. that Holm cannot separate anything at
  // the p-values the samples allow).
  std::vector<std::string> warnings;
};

// UsageError for a request that cannot run (no metric, alpha outside (0, 1), a width outside
// 0..10), fewer than two systems or an unknown baseline; InputError (file, line, field) for a task
// without a candidate of some system, or with two, and for an undefined item score.
SignificanceRun run_significance(const SignificanceRequest& request, Engine& engine);

}  // namespace probity
