#pragma once
// Statistics for meta-evaluation: correlations with p-values (SciPy 1.10 conventions), the paired
// t-test with a standardized mean difference, multiple-testing corrections (statsmodels), CEM-ORD,
// bootstrap confidence intervals and paired permutation tests.
//
// Undefined values (constant input, too few items, zero variance) are quiet NaN, never a number.
// Every random step takes a seed; results are bit-identical whatever the thread count.
#include <cstddef>
#include <cstdint>
#include <functional>
#include <limits>
#include <optional>
#include <span>
#include <string_view>
#include <vector>

namespace probity::stats {

// ---- Correlations -------------------------------------------------------------------------------

struct CorrelationResult {
  double statistic = 0.0;    // r, rho or tau
  double p_two_sided = 0.0;  // null hypothesis: no association
};

// SciPy pearsonr: p from the beta distribution of r under normality; n = 2 gives p = 1.
CorrelationResult pearson(std::span<const double> x, std::span<const double> y);
// SciPy spearmanr: Pearson on average ranks, p from Student's t with n - 2 df.
CorrelationResult spearman(std::span<const double> x, std::span<const double> y);
// SciPy kendalltau(method="auto"): exact p without ties when n <= 33 (or at most one discordant
// or concordant pair), else the normal approximation with tie-corrected variance. Tau-c has the
// same p as tau-b. O(n log n).
CorrelationResult kendall_tau_b(std::span<const double> x, std::span<const double> y);
CorrelationResult kendall_tau_c(std::span<const double> x, std::span<const double> y);

enum class CorrelationType { kPearson, kSpearman, kKendallB, kKendallC };
// Names: "pearson", "spearman", "kendall" (= tau-b), "kendall_b", "kendall_c".
CorrelationType parse_correlation_type(std::string_view name);  // throws std::invalid_argument
std::string_view correlation_name(CorrelationType type);
CorrelationResult correlation(CorrelationType type, std::span<const double> x,
                              std::span<const double> y);

// 1-based ranks, ties get the mean of their positions (SciPy rankdata, method="average").
std::vector<double> rankdata_average(std::span<const double> x);

// ---- Paired t-test and effect size ------------------------------------------------------------

struct PairedTResult {
  std::size_t n = 0;
  double mean_delta = 0.0;  // mean of perturbed - original
  double sd_delta = 0.0;    // sample sd (ddof = 1) of the deltas
  double t = 0.0;           // SciPy ttest_rel(perturbed, original)
  double df = 0.0;          // n - 1
  double p_two_sided = 0.0;
  double p_less = 0.0;     // alternative: mean delta < 0
  double p_greater = 0.0;  // alternative: mean delta > 0
  // d = smd(perturbed, original); NaN when the pooled sd is zero up to rounding.
  double smd = 0.0;
  // normal_ppf(0.975) * (sd_delta / sqrt(n)) / sqrt((var_pert + var_orig) / 2); NaN with d.
  double smd_ci_half_width = 0.0;
  double pooled_sd = 0.0;  // sqrt((var_pert + var_orig) / 2), d's denominator
};
PairedTResult paired_t(std::span<const double> perturbed, std::span<const double> original);

// Equivalence of a paired test (TOST, the two one-sided t-tests of statsmodels' ttost_paired)
// with the margin given in d units, i.e. margin * pooled_sd in score units:
//   p_above_lower: H0 mean delta <= -margin * pooled_sd against H1 mean delta > -margin * sd;
//   p_below_upper: H0 mean delta >= +margin * pooled_sd against H1 mean delta < +margin * sd.
// p_below_upper < alpha is "a rise of the margin or more is ruled out" (the upper one-sided
// 1 - alpha bound of d is below the margin); p_above_lower likewise for a drop. The pooled sd is
// taken as known, as d itself takes it. NaN where the t-test is undefined.
struct PairedEquivalence {
  double p_above_lower = 0.0, p_below_upper = 0.0;
};
PairedEquivalence paired_equivalence(const PairedTResult& test, double margin);

// The standardised mean difference of the audit's tests (Cohen's d form):
//   d = (mean_pert - mean_orig) / sqrt((var_pert + var_orig) / 2), sample variances (ddof 1),
// over the items `idx` (all when empty). NaN when the pooled sd is zero up to rounding (at most
// 1e-12 of the larger mean, or of 1): constant scores have no scale to measure a change in, and
// the floating-point noise of a "zero" variance would make d astronomically large.
double smd(std::span<const double> perturbed, std::span<const double> original,
           std::span<const std::size_t> idx = {});

// Student's t CDF (df may be +inf: standard normal); NaN for df <= 0.
double student_t_cdf(double t, double df);
double normal_cdf(double x);
// Standard normal quantile; -inf / +inf at 0 / 1, NaN outside [0, 1].
double normal_ppf(double p);

// ---- Multiple testing (statsmodels multipletests) -----------------------------------------------

struct MultipleTestingResult {
  std::vector<double> adjusted;  // adjusted p-values, capped at 1; NaN where p is NaN
  std::vector<bool> reject;      // adjusted decision at level alpha
};
// NaN p-values are left out (not counted in m) and never rejected.
MultipleTestingResult holm(std::span<const double> p, double alpha = 0.05);
MultipleTestingResult benjamini_hochberg(std::span<const double> p, double alpha = 0.05);

// Multiple-comparison control over the pairs of a ranking (rank_metrics, significance clusters).
enum class RankCorrection { kNone, kHolm, kBenjaminiHochberg };
RankCorrection parse_rank_correction(std::string_view name);  // "none", "holm", "bh"
std::string_view rank_correction_name(RankCorrection correction);
// The p-values adjusted by `correction` (holm or benjamini_hochberg at alpha; kNone: as given).
std::vector<double> adjust_p_values(std::span<const double> p, RankCorrection correction,
                                    double alpha = 0.05);

// ---- CEM-ORD (Amigo et al. 2020) ----------------------------------------------------------------

// Closeness Evaluation Measure for ordinal classes. `levels` are the ordered classes (strictly
// increasing); every pred and gold value must be one of them. Class sizes come from `gold`.
double cem_ord(std::span<const double> pred, std::span<const double> gold,
               std::span<const double> levels);

// ---- Bootstrap ---------------------------------------------------------------------------------

struct ConfidenceInterval {
  double low = 0.0;
  double high = 0.0;
};

enum class CiMethod { kPercentile, kBCa };

struct BootstrapOptions {
  std::size_t resamples = 1000;
  double confidence = 0.95;
  CiMethod method = CiMethod::kPercentile;
  std::uint64_t seed = 0;
  unsigned threads = 0;  // 0: hardware concurrency
  // Optional cluster label per item (e.g. system or task id): whole clusters are resampled with
  // replacement (as many as there are clusters) and the BCa jackknife leaves out one cluster at a
  // time. Empty: items are resampled individually.
  std::vector<std::size_t> clusters;
};

struct BootstrapResult {
  double estimate = 0.0;             // statistic on the full sample
  ConfidenceInterval ci;             // NaN bounds when undefined
  double standard_error = 0.0;       // sd (ddof = 1) of the defined resample statistics
  std::size_t undefined = 0;         // resamples whose statistic was NaN; left out of the CI
  std::vector<double> distribution;  // statistic of resample b at index b (NaN kept)
};

// Statistic of a resample, given the resampled item indices (with repetitions). Called
// concurrently from several threads: it must be thread-safe.
using IndexStatistic = std::function<double(std::span<const std::size_t> indices)>;

BootstrapResult bootstrap(std::size_t n, const IndexStatistic& statistic,
                          const BootstrapOptions& options = {});
// Correlation between x and y (pairs resampled together) with a bootstrap CI; fast paths that
// never sort inside the resampling loop.
BootstrapResult bootstrap_correlation(std::span<const double> x, std::span<const double> y,
                                      CorrelationType type, const BootstrapOptions& options = {});

// The mean over dimensions of Spearman's rho between x and each ys[d], each over the items where
// both are finite, with a CI from one resample of items shared by every dimension (so the CI
// reflects their dependence). Resample b is drawn as bootstrap() draws it; its value is, bit for
// bit, the mean (summed in dimension order) of spearman(x', y_d').statistic over the materialised
// resample, NaN when one is undefined. Ranks come from x sorted once per set of defined items and
// the resample's multiplicities: O(n) per resample (up to 2^18 resampled items; beyond, the
// resample is materialised).
BootstrapResult bootstrap_mean_spearman(std::span<const double> x,
                                        std::span<const std::vector<double>> ys,
                                        const BootstrapOptions& options = {});

// smd(perturbed, original) with a bootstrap CI over items: the same numbers as bootstrap() with
// statistic smd(perturbed, original, indices), without allocating per resample.
BootstrapResult bootstrap_smd(std::span<const double> perturbed, std::span<const double> original,
                              const BootstrapOptions& options = {});

// Interval construction from a bootstrap distribution (NaN entries ignored), as SciPy 1.10
// bootstrap: linear-interpolated percentiles; BCa with z0 from the "mean" percentile of the
// estimate and acceleration from the jackknife values.
ConfidenceInterval percentile_interval(std::span<const double> distribution, double confidence);
ConfidenceInterval bca_interval(double estimate, std::span<const double> distribution,
                                std::span<const double> jackknife, double confidence);

// ---- Proportions
// ---------------------------------------------------------------------------------

// Wilson's score interval for `successes` of `n` (two-sided, no continuity correction), as
// scipy.stats.binomtest(k, n).proportion_ci(confidence_level, method="wilson"); NaN bounds for
// n = 0. Honest at 0 and n successes, where the normal interval collapses to a point.
ConfidenceInterval wilson_interval(std::size_t successes, std::size_t n, double confidence = 0.95);

// ---- rouge-score's BootstrapAggregator -------------------------------------------------------

// The low, mid and high bounds of each measure (e.g. precision, recall, F).
struct AggregateBounds {
  std::vector<double> low, mid, high;
};

// rouge-score's scoring.BootstrapAggregator(confidence_interval, n_samples).aggregate() as it
// runs after numpy.random.seed(seed): for each score type in turn (`types[t]`: the items' scores,
// row-major, `measures` per item), n_samples resamples of the items drawn with NumPy's legacy
// global MT19937 (RandomState.choice(np.arange(n), size=n); one stream through all the types, in
// order), the mean of each measure per resample, and numpy.percentile (linear) of those means at
// 100 (1 - ci) / 2, 50 and 100 (1 + ci) / 2. rouge-score itself draws from whatever state
// NumPy's global generator is in; seeding it with `seed` first gives these numbers
// (tests/golden/significance/rouge_bootstrap.json). std::invalid_argument for no items, no
// samples or a confidence outside [0, 1] (rouge-score's ValueError).
std::vector<AggregateBounds> rouge_bootstrap_aggregate(std::span<const std::vector<double>> types,
                                                       std::size_t measures,
                                                       std::size_t n_samples = 1000,
                                                       double confidence_interval = 0.95,
                                                       std::uint32_t seed = 0);

// numpy.percentile(values, q) with the default linear method (NumPy 1.22+ _quantile: virtual
// index (n - 1) q / 100, then _lerp); NaN-free values, q in [0, 100].
double numpy_percentile(std::span<const double> values, double q);

// ---- Paired permutation test -------------------------------------------------------------------

enum class Alternative {
  kTwoSided,  // |delta*| >= |delta|
  kGreater,   // delta* >= delta (evidence that delta > 0)
  kLess,      // delta* <= delta
};

struct PermutationOptions {
  std::size_t permutations = 1000;
  Alternative alternative = Alternative::kTwoSided;
  std::uint64_t seed = 0;
  unsigned threads = 0;  // 0: hardware concurrency
  // p = count / permutations as mt-metrics-eval PermutationSigDiff; true: (count + 1) /
  // (permutations + 1), which never reports p = 0.
  bool add_one = false;
  // Correlation test only: z-score a and b (ddof = 0) before swapping, as mt-metrics-eval does,
  // so that metrics on different scales can be exchanged.
  bool standardize = true;
};

// Which paired permutation test compares two metrics at a level: `scores` swaps their scores per
// cell (mt-metrics-eval PermutationSigDiff); `pairs` swaps their pairwise comparison outcomes,
// each metric with its own tie threshold (PairwisePermutationSigDiff, what WMT23-25 use for
// acc-eq; acc-eq only).
enum class PermTest { kScores, kPairs };
PermTest parse_perm_test(std::string_view name);  // std::invalid_argument
std::string_view perm_test_name(PermTest test);

struct PermutationResult {
  double delta = 0.0;            // observed statistic
  double p = 0.0;                // NaN when delta is undefined
  std::size_t extreme = 0;       // permutations at least as extreme as delta
  std::size_t permutations = 0;  // permutations with a defined statistic
};

// Statistic of two paired score vectors (e.g. corr(a, h) - corr(b, h), or an accuracy
// difference). Called concurrently from several threads: it must be thread-safe.
using PairStatistic = std::function<double(std::span<const double> a, std::span<const double> b)>;

// Each permutation swaps a_i and b_i independently with probability 1/2 and recomputes the
// statistic. Scores are used as given (no standardization).
PermutationResult paired_permutation_test(std::span<const double> a, std::span<const double> b,
                                          const PairStatistic& statistic,
                                          const PermutationOptions& options = {});
// delta = corr(a, human) - corr(b, human).
PermutationResult permutation_correlation_diff(std::span<const double> a, std::span<const double> b,
                                               std::span<const double> human, CorrelationType type,
                                               const PermutationOptions& options = {});

// A seeded split of tasks (not items): ranked by a hash of (seed, task id), the first
// round(fraction · n) are true (the selection or search half). Independent of file order.
// std::invalid_argument unless 0 < fraction < 1.
std::vector<bool> split_tasks(std::span<const std::string> task_ids, double fraction,
                              std::uint64_t seed);

// ---- Meta-evaluation levels (mt-metrics-eval's conventions, docs/meta-eval.md) ----------------

// item: pooled over all candidates (mt-metrics-eval average_by="none"); task: within each task
// over its candidates, then the unweighted mean over the tasks where it is defined (WMT "group
// by item", SummEval "summary-level"); system: per system the mean human and metric score over
// the candidates where both exist, then across systems.
enum class Level { kItem, kTask, kSystem };
Level parse_level(std::string_view name);  // "item", "task", "system"; std::invalid_argument
std::string_view level_name(Level level);

enum class LevelStatistic {
  kPearson,
  kSpearman,
  kKendallB,     // "kendall"
  kKendallC,     // "kendall-c"
  kPairwiseAcc,  // "pairwise-acc": sign agreement over pairs (Kocmi et al. 2021)
  kAccEq,        // "acc-eq": pairwise accuracy with ties and tie calibration (WMT23 acc23)
  // mt-metrics-eval's other statistics (src/stats/mtme*.cpp, docs/meta-eval.md):
  kSpa,          // "spa": soft pairwise accuracy, 1 - PCE (WMT24/25), system level only
  kPdp,          // "pdp": Pearson of the pairwise differences (average_by none / item)
  kKendallLike,  // "kendall-like": WMT20's Kendall-like tau (gold pairs >= 25 apart)
};
LevelStatistic parse_level_statistic(std::string_view name);  // std::invalid_argument
std::string_view level_statistic_name(LevelStatistic statistic);
// The coefficient of the pooled tests a level statistic names (pearson, spearman, kendall);
// nullopt for the statistics that exist only at a level.
std::optional<CorrelationType> pooled_correlation(LevelStatistic statistic);

inline constexpr std::size_t kNoSystem = std::numeric_limits<std::size_t>::max();

// Candidates with a human (gold) and a metric score, the task each answers and its system. A
// candidate whose gold or metric score is NaN is left out everywhere.
struct LevelData {
  std::vector<double> gold, metric;
  std::vector<std::size_t> task;    // in [0, num_tasks)
  std::vector<std::size_t> system;  // in [0, num_systems), or kNoSystem (empty: none known)
  std::size_t num_tasks = 0, num_systems = 0;
};

struct LevelResult {
  double value = std::numeric_limits<double>::quiet_NaN();  // NaN when undefined
  std::size_t n = 0;        // candidates used (item, task level) or systems (system level)
  std::size_t groups = 0;   // task level: tasks averaged; else 1 when defined
  std::size_t skipped = 0;  // task level: tasks with candidates where the value is undefined
  double epsilon = std::numeric_limits<double>::quiet_NaN();  // acc-eq: the tie threshold
};

// The statistic at the level. Pairwise accuracy counts a pair as agreeing when the signs of the
// human and metric differences are equal (tied in both agrees, tied in one does not). acc-eq
// ties metric scores within epsilon, tries 0 and every distinct |metric difference| and keeps
// the smallest epsilon reaching the best mean accuracy (one epsilon shared by all tasks);
// O(P log P) for P pairs.
LevelResult level_statistic(LevelStatistic statistic, Level level, const LevelData& data);

// The candidates of whole tasks (item and task level) or systems (system level), drawn with
// repetition: `units[k]` is the k-th drawn task or system; a unit drawn twice counts twice.
LevelData resample_units(const LevelData& data, Level level, std::span<const std::size_t> units);
// Two-stage resampling: the candidates of the drawn tasks that belong to the drawn systems; a
// candidate whose task is drawn a times and system b times appears a·b times, each drawn task
// and system a unit of its own. Candidates without a system are left out.
LevelData resample_tasks_and_systems(const LevelData& data, std::span<const std::size_t> tasks,
                                     std::span<const std::size_t> systems);

// What a level bootstrap resamples: whole tasks, whole systems, or both (two-stage).
enum class LevelUnits { kTasks, kSystems, kTasksAndSystems };

// The level statistic on `resamples` bootstrap resamples of whole units. Entry b is, bit for bit,
//   level_statistic(statistic, level, R_b).value
// where, with kTasks or kSystems, R_b = resample_units(data, Level::kTask or Level::kSystem, U_b)
// and U_b is as many tasks or systems as there are, each drawn uniformly from util::Rng(seed, b)
// (the draws of bootstrap() over that many items; fewer than 2 units: std::invalid_argument as
// there); with kTasksAndSystems R_b = resample_tasks_and_systems(data, T_b, S_b), the tasks T_b
// drawn first, then the systems S_b, from util::Rng(seed, b). No resample is built: units'
// members are found once; per-task values are reused where the level allows; rank statistics
// come from one pre-sorted order and the resample's multiplicities, Kendall and pairwise accuracy
// from weighted pair counts, item-level acc-eq from pairs sorted once; so a resample costs O(n)
// (acc-eq: O(pairs); task-level acc-eq keeps its per-resample sort, whose order of equal
// thresholds fixes the rounding of its sums). Bit-identical at any thread count.
std::vector<double> level_bootstrap_values(LevelStatistic statistic, Level level,
                                           const LevelData& data, LevelUnits units,
                                           std::size_t resamples, std::uint64_t seed,
                                           unsigned threads = 0);

// Paired permutation test between two metrics at a level (mt-metrics-eval PermutationSigDiff):
// `data.metric` holds metric A, `metric_b` metric B on the same candidates. Candidates where the
// gold or either score is missing are dropped; at the system level the cells are the systems'
// means. With options.standardize each metric is z-scored over the cells (ddof 0); every
// permutation swaps A and B per cell with probability 1/2. delta = value(A) - value(B); use
// Alternative::kGreater for "A is better" (mt-metrics-eval's one-sided p, count / permutations).
PermutationResult level_permutation_test(LevelStatistic statistic, Level level,
                                         const LevelData& data, std::span<const double> metric_b,
                                         const PermutationOptions& options = {});
// The `pairs` test (PermTest::kPairs) for acc-eq: mt-metrics-eval's PairwisePermutationSigDiff
// on the level's cells (task level grouped by task, item level one group, system level the
// systems' means), each metric with its own tie threshold; probity's coins from options.seed, no
// early stopping. delta = acc-eq(A) - acc-eq(B); kGreater gives mt-metrics-eval's one-sided p,
// kTwoSided the share of permutations with |delta*| >= |delta|.
PermutationResult level_pairs_permutation_test(Level level, const LevelData& data,
                                               std::span<const double> metric_b,
                                               const PermutationOptions& options = {});

// WMT's significance clusters (mt-metrics-eval AssignRanks): metrics in decreasing order of
// `values` (NaN last; ties by index); `p[i][j]` the p-value that metric i beats metric j. Walking
// down the order, a metric starts a new cluster (rank + 1) when any member of the current cluster
// beats it with p <= alpha; else it joins that cluster. Returns the rank (1 = best) of each metric
// and, in `order`, the sorted indices.
std::vector<std::size_t> significance_ranks(std::span<const double> values,
                                            const std::vector<std::vector<double>>& p, double alpha,
                                            std::vector<std::size_t>* order = nullptr);

// ---- Agreement with human pairwise preferences
// ---------------------------------------------------

struct PreferenceResult {
  // Over the strict human preferences: 1 when the metric prefers the same candidate, 1/2 when it
  // ties them, 0 when it prefers the other; mean over those pairs (NaN without any).
  double accuracy = std::numeric_limits<double>::quiet_NaN();
  std::size_t pairs = 0;        // pairs with both scores
  std::size_t strict = 0;       // of them, with a human preference
  std::size_t metric_ties = 0;  // strict pairs the metric ties
  std::size_t human_ties = 0;   // pairs the humans tie (not in the accuracy)
  // The share of human ties the metric ties too (NaN without human ties).
  double tie_agreement = std::numeric_limits<double>::quiet_NaN();
};

// `human[k]`: +1 when the humans prefer candidate a of pair k, -1 for b, 0 for a tie. Pairs with a
// missing (NaN) score are left out.
PreferenceResult preference_accuracy(std::span<const double> score_a,
                                     std::span<const double> score_b, std::span<const int> human);

// ---- Agreement of binary and ordinal judges (scikit-learn 1.2 conventions) ----------------------

// Labels are integers; binary labels are 0 (negative) and 1 (positive), anything else is
// std::invalid_argument, as are inputs of different lengths and probabilities outside [0, 1].
// Empty input gives NaN. Nothing here warns: where scikit-learn raises for a degenerate input,
// the value is NaN, as stated per function.

// sklearn roc_auc_score: the Mann-Whitney U of the positives' average ranks among all scores
// (ties count 1/2), AUC = (R_pos - n_pos (n_pos + 1) / 2) / (n_pos n_neg). NaN when only one
// class is present (scikit-learn raises ValueError).
double roc_auc(std::span<const int> labels, std::span<const double> scores);

// Disagreement weights of Cohen's kappa on label indices i, j: 1 - [i == j], |i - j|, (i - j)^2.
enum class KappaWeights { kNone, kLinear, kQuadratic };
// sklearn cohen_kappa_score: labels = the sorted union of a and b, C their confusion matrix, E
// the outer product of its margins over n; kappa = 1 - sum(w C) / sum(w E). NaN when both raters
// use one and the same label throughout (0 / 0, as scikit-learn).
double cohen_kappa(std::span<const int> a, std::span<const int> b,
                   KappaWeights weights = KappaWeights::kNone);

// sklearn matthews_corrcoef, the multiclass form (equal to the binary phi coefficient):
// (c s - t.p) / sqrt((s^2 - p.p)(s^2 - t.t)) with c the correct count, s = n, t and p the true
// and predicted class counts; 0 when the denominator is 0 (a constant truth or prediction).
double matthews_corrcoef(std::span<const int> truth, std::span<const int> pred);

// sklearn balanced_accuracy_score: the mean recall over the classes present in `truth`
// (predicted classes absent from the truth are left out, as scikit-learn does with a warning).
double balanced_accuracy(std::span<const int> truth, std::span<const int> pred);

// sklearn f1_score(average="macro"): the unweighted mean over the union of classes of
// F1 = 2 P R / (P + R), with P, R and F1 set to 0 where their denominator is 0 (the default
// zero_division="warn", without the warning).
double f1_macro(std::span<const int> truth, std::span<const int> pred);

// sklearn brier_score_loss: mean (label - probability)^2, binary labels.
double brier_score(std::span<const int> labels, std::span<const double> probabilities);

// Expected calibration error over `bins` equal-width bins of [0, 1]:
//   ECE = sum_b (n_b / N) |mean(label in b) - mean(probability in b)|,
// a probability going to bin b = the number of inner edges k / bins (k = 1 .. bins - 1,
// computed as NumPy's linspace does) strictly below it, as sklearn calibration_curve(
// strategy="uniform") assigns them with searchsorted (a probability on an edge goes to the
// lower bin). std::invalid_argument when bins is 0.
double expected_calibration_error(std::span<const int> labels,
                                  std::span<const double> probabilities, std::size_t bins = 10);

// ---- Agreement among human raters (src/stats/krippendorff.cpp) ---------------------------------

// Krippendorff's alpha (Krippendorff 1980; 2011 "Computing Krippendorff's Alpha-Reliability") over
// units rated by any number of raters: `ratings[u]` holds the values unit u received (missing
// ratings are simply absent). Units with fewer than two values are not pairable and left out. With
// n_c the frequency of value c among the pairable values (n in all) and n_uc within unit u (m_u in
// all), D_o = sum_u (sum_{c,k} n_uc n_uk delta(c,k) / (m_u (m_u - 1))) m_u / n,
// D_e = sum_{c,k} n_c n_k delta(c,k) / (n (n - 1)), alpha = 1 - D_o / D_e, as NLTK's
// AnnotationTask.alpha computes it. delta: nominal 1 for c != k; interval (c - k)^2; ordinal
// (sum_{g from c to k} n_g - (n_c + n_k) / 2)^2 over the sorted values. NaN without pairable units
// or when D_e is 0 (one value throughout: NLTK returns 1 there, which claims an agreement the
// data cannot show).
enum class AlphaMetric { kNominal, kInterval, kOrdinal };
double krippendorff_alpha(std::span<const std::vector<double>> ratings, AlphaMetric metric);

// ---- Bias and consistency of LLM judges (src/stats/judge_bias.cpp) -----------------------------

// JudgeLM's position statistics (eval_model_judgement.py calculate_metrics), for verdicts given
// from the side of one response X: `x_first[i]` with X shown first and `x_second[i]` with X shown
// second, each 1 (X better), 0.5 (tie) or 0. Per item, X's verdicts are compared: equal is
// consistent; better when shown first is a preference for the first position; better when shown
// second one for the second. Each share is over all n items (JudgeLM's denominator).
// std::invalid_argument for different lengths; NaN shares for no items.
struct PositionBias {
  double consistency = 0, prefer_first = 0, prefer_second = 0;
  std::size_t n = 0;
};
PositionBias position_bias(std::span<const double> x_first, std::span<const double> x_second);

// AlpacaEval's analyze.py get_length_biases / get_list_biases on pairwise preferences
// (`preference[i]` in [1, 2]: 1 output_1 better, 2 output_2 better, 1.5 tie; a tie compares
// output_2 with itself, as AlpacaEval's `between` bounds do, and so never counts). prefer_longer:
// among the pairs whose lengths (Unicode code points) differ by more than `significant_delta`, the
// share where the better output is the longer. prefer_lists: among the pairs where exactly one
// output contains a list (alpaca_contains_list), the share where it is the better. NaN without such
// pairs.
double prefer_longer(std::span<const std::string_view> output_1,
                     std::span<const std::string_view> output_2, std::span<const double> preference,
                     std::size_t significant_delta = 30);
double prefer_lists(std::span<const std::string_view> output_1,
                    std::span<const std::string_view> output_2, std::span<const double> preference);
// AlpacaEval's utils.contains_list: Python `re.findall` of three multiline patterns, each at the
// start of the text or of a line, after optional whitespace: a bullet ("*", "\u2022" or "-"),
// digits followed by "." or ")", or one ASCII letter followed by "." or ")" and whitespace; then
// any non-word characters and a word character. As Python's Unicode classes: a word character is
// "_" or a letter or number (Unicode categories L and N), a digit one of category Nd, a
// whitespace character one of Python's str.isspace (ASCII whitespace, U+001C..U+001F, U+0085
// and categories Zs, Zl, Zp).
bool alpaca_contains_list(std::string_view text);
// One pair's part in prefer_longer / prefer_lists: whether it counts (lengths differ by more than
// significant_delta; exactly one output has a list) and, if so, whether the better output is the
// longer one / the one with the list. The shares are the preferred pairs over the counted ones.
struct PairPreference {
  bool counted = false, preferred = false;
};
PairPreference length_preference(std::string_view output_1, std::string_view output_2,
                                 double preference, std::size_t significant_delta = 30);
PairPreference list_preference(std::string_view output_1, std::string_view output_2,
                               double preference);

// Logistic regression by maximum likelihood with outcomes in [0, 1] (a fraction is a soft label:
// y log p + (1 - y) log(1 - p) per row), as statsmodels GLM(y, X, family=Binomial()).fit() gives
// it. `x` is n rows x p columns, row-major, with the intercept column included by the caller.
// Newton-Raphson from 0 until the largest step is below 1e-12 (relative) or 100 iterations;
// `converged` is false when it does not settle or a coefficient leaves [-50, 50] (the outcomes are
// separated: no finite maximum). std::invalid_argument for a shape mismatch or y outside [0, 1].
struct LogisticFit {
  std::vector<double> coefficients;
  bool converged = false;
  std::size_t iterations = 0;
};
LogisticFit logistic_regression(std::span<const double> x, std::size_t columns,
                                std::span<const double> y);

// AlpacaEval's length-controlled win rate (Dubois et al. 2024, "Length-Controlled AlpacaEval"),
// for one system against a baseline over n pairs: `preference[i]` is 1 when the system's output
// won, 0 when the baseline's won, 0.5 for a tie; `delta_length[i]` = length of the system's output
// minus the baseline's (AlpacaEval: code points). The GLM of length_controlled_v1,
//   P(system wins) = logistic(theta + beta * tanh(delta / sd(delta))),  sd with ddof = 1,
// is fitted by logistic_regression on the soft labels, and the LC win rate is its prediction with
// no length difference, logistic(theta). AlpacaEval's formula also has a per-instruction
// difficulty term taken from its leaderboard and fits with an L1 penalty chosen by 5-fold CV;
// neither exists for a user's own tasks, so this is the unpenalised fit of the length term (beta
// > 0: the judge rewards the longer output). NaN (with `defined` false) when sd(delta) is 0 or the
// fit has no finite maximum: every verdict on one side (all 0 or all 1), or the verdicts separated
// by length; then the data cannot tell the length effect from the system's.
struct LengthControlled {
  double win_rate = 0, lc_win_rate = 0, beta = 0, theta = 0;
  bool defined = false;
};
LengthControlled length_controlled_win_rate(std::span<const double> preference,
                                            std::span<const double> delta_length);

// The partial Pearson correlation of x and y given z:
//   (r_xy - r_xz r_yz) / sqrt((1 - r_xz^2)(1 - r_yz^2)),
// equal to the Pearson correlation of the residuals of x and y after least-squares regression on
// z (with intercept). NaN when a correlation is undefined or |r_xz| or |r_yz| is 1.
double partial_correlation(std::span<const double> x, std::span<const double> y,
                           std::span<const double> z);

// Repeated verdicts: `ratings` is n items x k samples, row-major. flip_rate: the share of items
// whose k ratings are not all equal; mean_sd: the mean over items of the sample standard
// deviation (ddof = 1) of their ratings; icc: ICC(1,1), the one-way random-effects intraclass
// correlation (MSB - MSW) / (MSB + (k - 1) MSW), i.e. (F - 1) / (F + k - 1) for the one-way
// ANOVA F of SciPy's f_oneway over the items as groups. NaN for k < 2, n < 2, or 0 / 0.
struct SelfConsistency {
  double flip_rate = 0, mean_sd = 0, icc = 0;
  std::size_t items = 0, samples = 0;
};
SelfConsistency self_consistency(std::span<const double> ratings, std::size_t samples);

// ---- Power analysis, signed-rank, sign and McNemar tests, replicability -------------------------
//
// Each in its own file of src/stats/ and equal to its reference (statsmodels 0.13.5, SciPy 1.10.1,
// SacreROUGE) to 1e-9 relative on tests/golden/<file>.json (README.md there says how each was
// made). `Alternative` reads as above: kGreater is statsmodels' "larger" and SciPy's "greater"
// (the effect or difference is positive), kLess is "smaller" / "less". Undefined results are NaN;
// inputs a reference rejects as malformed (k > n, p outside [0, 1]) are std::invalid_argument.

// Power of the one-sample (paired: on the differences) t-test, statsmodels TTestPower.power
// (src/stats/power.cpp): with df = nobs - 1, ncp = effect_size sqrt(nobs) and the Student-t
// critical values at alpha (one tail) or alpha / 2 (two-sided), the noncentral t's probability
// beyond them; two-sided adds BOTH tails (the far one is not dropped). effect_size is the
// standardized mean difference mean / sd (a negative one has power for kLess). The critical values
// are exact: statsmodels gets them from SciPy's stdtrit, good to only ~1e-9, which moves its power
// by up to ~1e-8 relative (tests/golden/README.md). NaN unless nobs > 1 and 0 < alpha < 1, and
// beyond a noncentrality of 65,536, where Boost's noncentral t stops (and SciPy aborts).
double ttest_power(double effect_size, double nobs, double alpha, Alternative alternative);
// TTestPower.solve_power for nobs: the real-valued n >= 2 at which ttest_power(effect_size, n,
// alpha) equals `power`, to full double precision (statsmodels also searches n >= 2, but stops at
// 1e-5). NaN when effect_size is 0 (statsmodels raises), the direction cannot reach the power
// (kGreater with effect_size < 0, kLess with > 0: statsmodels fails to converge), the power is
// already exceeded at n = 2, or power or alpha is outside (0, 1).
double ttest_nobs(double effect_size, double power, double alpha, Alternative alternative);
// TTestPower.solve_power for effect_size: the minimum detectable effect at `nobs`, the d with
// ttest_power(d, nobs, alpha) = power: positive for kTwoSided (whose power is symmetric in d) and
// kGreater, NEGATIVE for kLess, as statsmodels returns it. NaN unless nobs > 1, alpha < power < 1
// (a test has power alpha at d = 0; below that no effect is needed) and 0 < alpha < 1.
double ttest_mde(double nobs, double power, double alpha, Alternative alternative);

// Power of the z-test of two independent correlations r1, r2, each on `nobs` items (Fisher z):
// q = atanh(r1) - atanh(r2), z = q / sqrt(2 / (nobs - 3)); equal to statsmodels
// NormalIndPower().power(effect_size=q, nobs1=nobs - 3, ratio=1, alpha, alternative), both tails
// for kTwoSided. kGreater: r1 > r2. NaN unless -1 < r1, r2 < 1, nobs > 3 and 0 < alpha < 1.
double correlation_difference_power(double r1, double r2, double nobs, double alpha,
                                    Alternative alternative);
// The real-valued nobs > 3 (per correlation) at which that power equals `power`, to full
// precision. NaN when r1 == r2, when the direction cannot reach the power (kGreater with r1 < r2,
// kLess with r1 > r2), and unless alpha < power < 1, 0 < alpha < 1 and -1 < r1, r2 < 1.
double correlation_difference_nobs(double r1, double r2, double power, double alpha,
                                   Alternative alternative);

// Wilcoxon signed-rank test on paired differences, scipy.stats.wilcoxon(d, zero_method,
// correction, alternative, method) of SciPy 1.10.1 (src/stats/wilcoxon.cpp):
//  - zero differences: kWilcox drops them before ranking; kPratt ranks them with the others, then
//    drops them (the normal approximation's mean and variance corrected as Cureton 1967); kZsplit
//    ranks them and gives half their rank sum to each side.
//  - kAuto is kExact for at most 50 differences (zeros counted), else kApprox. Any zero switches
//    kExact to kApprox (SciPy warns). Ties keep kExact: the exact distribution is that of
//    untied ranks 1..n, read at int(r_plus) (a rank sum of .5 is truncated), as SciPy does.
//  - statistic: min(r_plus, r_minus) for kTwoSided, r_plus otherwise.
//  - kApprox: z = (T - mean - c) / se, se with the tie correction sum t (t^2 - 1) / 48; the
//    continuity correction c = 0.5 sign(T - mean) (two-sided), 0.5 (kGreater), -0.5 (kLess).
// NaN statistic and p for no differences, any NaN difference, and (kWilcox, kPratt) only zero
// differences (SciPy raises ValueError). Exact: O(n^3) time, O(n^2) memory.
enum class WilcoxonZeroMethod { kWilcox, kPratt, kZsplit };
enum class WilcoxonMethod { kAuto, kExact, kApprox };
struct WilcoxonResult {
  double statistic = std::numeric_limits<double>::quiet_NaN();
  double p = std::numeric_limits<double>::quiet_NaN();
  double z = std::numeric_limits<double>::quiet_NaN();  // kApprox only (SciPy's zstatistic)
  WilcoxonMethod method = WilcoxonMethod::kApprox;      // what ran: kExact or kApprox
  std::size_t n = 0;                                    // differences ranked
};
WilcoxonResult wilcoxon(std::span<const double> differences,
                        WilcoxonZeroMethod zero_method = WilcoxonZeroMethod::kWilcox,
                        bool correction = false, Alternative alternative = Alternative::kTwoSided,
                        WilcoxonMethod method = WilcoxonMethod::kAuto);

// scipy.stats.binomtest(k, n, p, alternative).pvalue of SciPy 1.10.1 (src/stats/sign_test.cpp):
// kLess P(X <= k), kGreater P(X >= k); kTwoSided k's tail (away from the mode np) plus the
// outcomes of the other tail no likelier than k, "no likelier" with SciPy's slack pmf <= pmf(k)
// (1 + 1e-7), capped at 1 (1 when k = np). NaN for n = 0 (SciPy raises); std::invalid_argument for
// k > n or p outside [0, 1].
double binom_test(std::size_t k, std::size_t n, double p = 0.5,
                  Alternative alternative = Alternative::kTwoSided);
// The sign test of paired differences: binomtest(k = #positive, n = #nonzero, p = 0.5,
// alternative); zero differences are counted and left out. NaN p without a nonzero difference
// (SciPy raises for n = 0) or with a NaN difference (a sign nobody knows).
struct SignTestResult {
  std::size_t positive = 0, negative = 0, zeros = 0;
  double p = std::numeric_limits<double>::quiet_NaN();
};
SignTestResult sign_test(std::span<const double> differences,
                         Alternative alternative = Alternative::kTwoSided);

// McNemar's test of a paired 2x2 table, statsmodels mcnemar(table, exact, correction) with b =
// table[0][1] and c = table[1][0], the discordant counts (the diagonal does not enter;
// src/stats/mcnemar.cpp). exact: statistic min(b, c), p = min(1, 2 P(X <= min(b, c))) for X ~
// Binomial(b + c, 1/2), 1 for b = c = 0. Otherwise statistic (|b - c| - correction)^2 / (b + c)
// and p from chi-square with 1 df; statsmodels' correction is not clipped at 0, so b = c gives
// 1 / (b + c). b = c = 0 without exact is NaN (statsmodels divides by zero: statistic inf and p 0
// with correction, NaN without).
struct McNemarResult {
  double statistic = std::numeric_limits<double>::quiet_NaN();
  double p = std::numeric_limits<double>::quiet_NaN();
};
McNemarResult mcnemar(std::size_t b, std::size_t c, bool exact = true, bool correction = true);

// Replicability across K datasets, SacreROUGE's partial_conjunction_pvalue_test(method=
// "bonferroni") (src/stats/partial_conjunction.cpp; Benjamini & Heller 2008, as Dror et al. 2017
// use it for NLP): given one p-value per dataset for the same null hypothesis, in how many
// datasets is it rejected, with the family-wise error at alpha? With p_(1) <= ... <= p_(K) (equal
// ones by index), the Bonferroni partial-conjunction p-value of "the effect exists in at least u
// of the K datasets" is (K - u + 1) p_(u); its running maximum over u (the nested nulls tested
// in order) is the p-value reported, and k = #{u : running maximum <= alpha} datasets, those of
// the k smallest p-values, are where the null is rejected. std::invalid_argument for a p-value
// outside [0, 1] (NaN included); K = 0 gives k = 0.
struct PartialConjunctionResult {
  std::size_t k = 0;                     // the estimated number of datasets with an effect
  std::vector<std::size_t> significant;  // those datasets' indices, smallest p first
  // [u - 1]: the (monotone) partial-conjunction p-value of "at least u of K", capped at 1; k
  // counts the uncapped values, as SacreROUGE does (different only for alpha >= 1).
  std::vector<double> p_values;
};
PartialConjunctionResult partial_conjunction_test(std::span<const double> p_values,
                                                  double alpha = 0.05);
// Benjamini & Heller's Bonferroni p-value of "at least u of K" alone: min(1, (K - u + 1) p_(u)),
// without the running maximum. std::invalid_argument unless 1 <= u <= K, and for p-values as
// partial_conjunction_test.
double partial_conjunction_pvalue(std::span<const double> p_values, std::size_t u);

}  // namespace probity::stats
