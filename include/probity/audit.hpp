#pragma once
// `probity audit` (the tests of Xu et al. 2025, §3 and §5): human correlation, degradation
// sensitivity and manipulation robustness of metrics on datasets, with paired tests, effect sizes
// and multiple-testing control.
#include <cstdint>
#include <functional>
#include <limits>
#include <memory>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "probity/dataset.hpp"
#include "probity/inputs.hpp"
#include "probity/perturb.hpp"
#include "probity/scoring.hpp"
#include "probity/stats.hpp"

namespace probity {

class Engine;

// The equivalence margin of the paired tests, in d units (docs/concepts.md): a change smaller
// than this is too small to matter, so a test that rules out a change of this size or more shows
// robustness, and one that can neither show a change nor rule it out is inconclusive.
inline constexpr double kDefaultMargin = 0.1;
// The power at which every test's minimum detectable effect is reported.
inline constexpr double kMdePower = 0.8;

// The paired test of the audit (--test): Student's t on the differences (the default, the
// paper's), Wilcoxon's signed-rank test (SciPy's zero handling) or the sign test, for scores
// whose differences are far from normal (ratings on a 1-5 scale, many ties). The equivalence
// test is the same test on the differences shifted by the margin.
enum class PairedTest { kT, kWilcoxon, kSign };
std::string_view paired_test_name(PairedTest test);   // "t", "wilcoxon", "sign"
PairedTest parse_paired_test(std::string_view name);  // std::invalid_argument when unknown

// ---- probity attack (attack.hpp runs it; docs/attack.md) ----------------------------------

struct AttackOptions {
  std::string strategy = "greedy";  // greedy, beam, random, evolution or llm
  std::size_t budget = 200;         // metric queries per item
  std::size_t steps = 3;  // edits per item (random, evolution: the longest program; llm: rounds)
  std::size_t beam = 4;   // beam width (beam), population (evolution)
  std::size_t proposals = 4;          // llm: rewrites asked for per attacker request
  std::string guard = "support";      // llm: the information guard, support or llm
  std::vector<std::string> families;  // edit families (empty: every content-free one)
  bool include_content = false;       // also the copy-source family (can add task content)
  double delta = 0.0;                 // an item is attacked when its best Δ exceeds this
  std::size_t program_length = 2;     // universal programs: up to this many operators
  std::size_t programs = 10;          // programs (best on the search half) tested on held-out
  double split = 0.5;                 // share of tasks in the search half
  double alpha = 0.05;
  double margin = kDefaultMargin;  // equivalence margin of the held-out tests (d units)
  std::size_t bootstrap = 1000;
  double confidence = 0.95;
  std::size_t min_applied = 30;
  std::uint64_t seed = 0;
  unsigned threads = 0;
  std::size_t examples = 3;  // items shown with their best edit
  // Replacement families (--family master-key / null-model): a held-out rate whose Wilson lower
  // bound exceeds this is a finding.
  double tolerance = 0.05;
  // Universal suffixes (--family universal-phrase / logprob-search).
  std::size_t phrase_words = 4;        // universal-phrase: the longest phrase
  std::size_t phrase_candidates = 40;  // universal-phrase: vocabulary words tried per step
  std::size_t suffix_words = 8;        // logprob-search: the suffix's length in words
  std::size_t suffix_iterations = 60;  // logprob-search: random replacements tried
  // The configuration role of a second endpoint: each suffix learned on a judge is also tested
  // on the same judge served there (transfer, Raina et al.). Empty: no transfer test.
  std::string transfer_endpoint;
  bool fit = true;  // fit the metrics on the dataset first (the audit has already)
};

// `probity attack` as a request: which items and metrics, and the search's options.
struct AttackRequest {
  DataInput data;
  std::string lang;  // language of tasks without a `lang` field ("" detects it)
  std::vector<std::string> metrics;
  std::string out;         // directory: attack.json
  std::size_t sample = 0;  // candidates, sampled with the seed as the audit samples (0: all)
  bool skip_invalid = false;
  AttackOptions options;
};

struct AuditOptions {
  std::vector<DataInput> data;       // the datasets
  std::vector<std::string> metrics;  // metric specs
  // The human dimensions to correlate with, in this order (empty: every dimension of the
  // dataset); the scorecard's correlation is their mean.
  std::vector<std::string> dimensions;
  // Letter codes or names; {"all"} (the default) for all; {} or {"none"} for none.
  std::vector<std::string> degradations{"all"};
  std::vector<std::string> manipulations{"all"};
  // A named protocol instead of the two lists: "paper" (the task type inferred from each
  // dataset) or "paper:<summarization|peer-review|qa>": its strategies and realisations per
  // dataset, and one ground-truth reference per task (see perturb/suites.hpp).
  // A suite chooses the strategies: the lists must then keep their default.
  std::string suite;
  // Candidates per dataset, sampled with the seed (0: all). Unset: all, or with a suite the
  // suite's own sample (the paper's ~200 items per test).
  std::optional<std::size_t> sample;
  std::uint64_t seed = 0;
  std::size_t bootstrap = 1000;  // resamples for correlation and effect-size CIs
  // A strategy is tested only with at least this many applied items (all of the dataset's when
  // it has fewer): a handful of items cannot carry a verdict.
  std::size_t min_applied = 30;
  double alpha = 0.05;
  double margin = kDefaultMargin;    // equivalence margin of every paired test (d units)
  PairedTest test = PairedTest::kT;  // --test
  double confidence = 0.95;
  std::string out_dir;  // report files and the resume database (cache.sqlite)
  unsigned threads = 0;
  bool skip_invalid = false;
  // Language of the tasks whose dataset line has no `lang` ("de"); "" detects it per task.
  std::string lang;
  // Sharded runs: this process audits only the tasks of shard `shard_index` of `shard_count`
  // (see in_shard); its cache then holds that share of the work. Caches of all shards imported
  // with `import_caches` let an unsharded run finish without recomputing anything.
  std::size_t shard_index = 0, shard_count = 1;
  std::vector<std::string> import_caches;  // cache.sqlite files (or their directories) to merge
  // The correlation section beyond the pooled table (docs/meta-eval.md): rows at these levels
  // for these statistics (kendall when none is given), the length and random baselines beside
  // the metrics, and (rank) significance clusters at each level for the first statistic.
  std::vector<stats::Level> levels;
  std::vector<stats::LevelStatistic> level_statistics;
  bool baselines = true;
  bool rank = false;
  std::size_t rank_permutations = 1000;
  stats::RankCorrection rank_correction = stats::RankCorrection::kHolm;
  // --attack: the attack section (run_attack on the audited items of each dataset), with the
  // audit's seed, alpha, bootstrap, min_applied and threads in place of attack_options' own.
  bool attack = false;
  AttackOptions attack_options;
  // Progress of long stages: (stage, done, total).
  std::function<void(std::string_view, std::size_t, std::size_t)> progress;
  // Progress of the whole audit, for one progress line across its stages (scoring the originals,
  // each strategy's perturbation and each metric on it): the stage being worked on, stages begun
  // of those known, and items done of those known (cached items count as done at once). A
  // dataset's stages and items become known when it is loaded, so totals grow with each dataset.
  struct Overall {
    std::string_view stage;
    std::size_t stage_index = 0, stages = 0;  // 1-based index of the current stage
    std::size_t done = 0, total = 0;          // items over every stage
    std::size_t dataset = 0, datasets = 0;    // 1-based
  };
  std::function<void(const Overall&)> overall_progress;
  // Things a user should know that are not errors (an outdated cache emptied, ...).
  std::function<void(std::string_view)> note;
  // Metrics given as objects instead of registry names (the Python module's callables), audited
  // after `metrics` under the record name `spec` (e.g. "python:length"). `prefetch`, when set,
  // receives the inputs of each chunk of items to score (up to 256), on the calling thread, before
  // their statistics are computed, so that the metric can score the chunk in one batch.
  struct ExtraMetric {
    std::string spec;
    std::function<std::unique_ptr<Metric>()> make;
    std::function<void(std::span<const MetricInput>)> prefetch;
  };
  std::vector<ExtraMetric> extra_metrics;
};

struct CorrelationResult {
  std::string dimension;  // a human dimension, or "mean" (mean of the per-dimension values)
  std::size_t n = 0;
  double spearman = 0, spearman_lo = 0, spearman_hi = 0, spearman_p = 0;
  double kendall = 0, pearson = 0;  // NaN when undefined
};

struct LevelCorrelation {
  std::string dimension;
  stats::Level level = stats::Level::kItem;
  stats::LevelStatistic statistic = stats::LevelStatistic::kPearson;
  stats::LevelResult result;
  double ci_lo = std::numeric_limits<double>::quiet_NaN(), ci_hi = ci_lo;
  std::size_t resamples = 0;  // bootstrap resamples with a defined value
  // What a resample draws: "tasks", "systems" or "tasks+systems" (two-stage).
  std::string unit;
};

struct PreferenceAgreement {
  stats::PreferenceResult result;
  std::size_t tasks = 0;  // tasks with at least one scored pair
  double ci_lo = std::numeric_limits<double>::quiet_NaN(), ci_hi = ci_lo;
};

// Agreement among the raters of one dimension (the human ceiling): Krippendorff's α over the
// items' ratings, and how many raters and items there are.
struct RaterAgreement {
  std::string dimension;
  std::size_t raters = 0;  // the most ratings any item has
  std::size_t units = 0;   // items with at least two ratings
  double alpha_interval = std::numeric_limits<double>::quiet_NaN();
  double alpha_ordinal = std::numeric_limits<double>::quiet_NaN();
};

// The correlation section of one metric on one dataset: the pooled table (rows), the rows of
// --level (levels), and the agreement with pairwise preferences when the dataset has them.
struct MetricCorrelations {
  std::string dataset;
  std::string metric;
  bool baseline = false;  // a reference-free baseline (length, random) shown for comparison
  // The `humans` row (metric "humans"): each rater against the mean of the item's other raters,
  // averaged over rater positions, at the same levels and statistics as the metrics; with the
  // raters' α per dimension. What correlation a metric can reach against noisy ratings.
  bool humans = false;
  std::vector<RaterAgreement> agreement;
  std::vector<CorrelationResult> rows;
  std::vector<LevelCorrelation> levels;
  std::optional<PreferenceAgreement> preference;
};

// Significance clusters of metrics at one level (mt-metrics-eval ComputeSigMatrix + AssignRanks):
// every metric against every other with the one-sided paired permutation test, p-values adjusted
// over all pairs, then WMT's greedy clusters.

struct MetricRanking {
  std::string dataset;
  std::string dimension;
  stats::Level level = stats::Level::kItem;
  stats::LevelStatistic statistic = stats::LevelStatistic::kKendallB;
  stats::PermTest perm_test = stats::PermTest::kScores;
  std::size_t permutations = 0;
  stats::RankCorrection correction = stats::RankCorrection::kHolm;
  double alpha = 0.05;
  struct Entry {
    std::string metric;
    bool baseline = false;
    std::size_t rank = 0;  // 1 = best cluster
    double value = 0;
  };
  std::vector<Entry> ranking;  // best first
  struct Test {
    std::string better, worse;  // `better` is above `worse` by value
    double p = 0, p_adjusted = 0;
  };
  std::vector<Test> tests;
};

// Why a paired test has no verdict. The renderers turn it into words; `StrategyTest::untestable`
// keeps the full sentence with the counts.
enum class NotTestable {
  kNone,            // testable, or no cause recorded
  kTooFewApplied,   // fewer applied items with defined scores than the minimum
  kConstantScores,  // the pooled sd is zero: no scale to measure a change in
  kLanguage,        // the strategy has no rules for most items' language
};
std::string_view not_testable_name(NotTestable reason);  // "too_few_applied", ...
// Inverse of not_testable_name; std::invalid_argument for an unknown name.
NotTestable parse_not_testable(std::string_view name);

// The three-way verdict of a paired test (docs/concepts.md). A degradation `detects` when the
// score drops significantly and `misses` when a drop of the margin or more is ruled out (TOST);
// a manipulation is `fooled` when the score rises significantly and `resists` when a rise of the
// margin or more is ruled out. A test that shows neither is `inconclusive`: absence of evidence
// is not robustness.
enum class Outcome { kUntestable, kDetects, kMisses, kResists, kFooled, kInconclusive };
std::string_view outcome_name(Outcome outcome);  // "untestable", "detects", ...
Outcome parse_outcome(std::string_view name);    // std::invalid_argument for an unknown name
// detects and resists are the good outcomes, misses and fooled the bad ones.
bool outcome_good(Outcome outcome);
bool outcome_bad(Outcome outcome);

// One paired test: one metric, one dataset, one strategy.
struct StrategyTest {
  std::string dataset;
  std::string metric;
  StrategyKind kind = StrategyKind::kDegradation;
  std::string code;
  std::string name;
  // Item accounting: considered = applied + not_applicable + unchanged + failed + undefined.
  std::size_t considered = 0, applied = 0, not_applicable = 0, unchanged = 0, failed = 0,
              undefined = 0;
  bool testable = false;                    // enough applied items with defined, varying scores
  NotTestable reason = NotTestable::kNone;  // why not, as a kind
  std::string untestable;  // why not, in words: "8 applied items, fewer than 30", "constant scores"
  double mean_original = 0, mean_perturbed = 0, mean_delta = 0, sd_delta = 0;
  double pooled_sd = 0;  // d's denominator: sqrt((var_perturbed + var_original) / 2)
  double t = 0, df = 0;
  double p = 0;         // one-sided: H1 mean Δ < 0 (degradation) or > 0 (manipulation)
  double p_holm = 0;    // Holm-adjusted within the family (dataset × metric × kind)
  bool passed = false;  // the effect test alone: degradation p < α; manipulation not (p < α)
  bool passed_holm = false;
  // Equivalence (stats::paired_equivalence): the one-sided test that rules out a change of
  // `margin` (d units) or more in the strategy's direction, raw and Holm-adjusted in the family.
  double margin = kDefaultMargin;
  double p_equiv = 0, p_equiv_holm = 0;
  Outcome outcome = Outcome::kUntestable;       // from p and p_equiv
  Outcome outcome_holm = Outcome::kUntestable;  // from p_holm and p_equiv_holm
  double d = 0, d_lo = 0, d_hi = 0;             // SMD with its analytic CI
  double d_boot_lo = 0, d_boot_hi = 0;          // paired bootstrap CI of d
  PairedTest test = PairedTest::kT;             // which test gave p and p_equiv
  // The smallest |d| this test finds with 80% power at its n and observed sd of Δ (one-sided
  // paired t at α, statsmodels' TTestPower): a test blind to the effects that matter says so.
  double mde = std::numeric_limits<double>::quiet_NaN();
};

// Replicability over datasets (the partial-conjunction test of Benjamini & Heller 2008, as
// SacreROUGE computes it): for one metric and strategy audited on K datasets, in how many the
// metric fails (misses the degradation / is fooled by the manipulation) with the family-wise
// error controlled at α, and the p-value of "it fails in at least u of the K" for u = 1..K.
struct Replicability {
  std::string metric;
  StrategyKind kind = StrategyKind::kDegradation;
  std::string code, name;
  std::vector<std::string> datasets;  // the K datasets where the strategy was testable
  std::vector<double> p_fail;         // per dataset: p_equiv (degradation) or p (manipulation)
  std::size_t failing = 0;            // k̂: datasets where the failure is shown
  std::vector<double> p_at_least;     // [u - 1]: partial-conjunction p of "fails in >= u"
};

// The attack's results per metric (and dataset, in the audit).
struct AttackExample {
  std::string task_id, candidate_id;
  std::vector<std::string> program;  // operator names in order
  std::string original, attacked;
  double before = 0, after = 0;
};

struct UniversalProgram {
  std::vector<std::string> program;
  std::size_t search_applied = 0;
  double search_mean_delta = 0;  // on the search half (used only to choose)
  StrategyTest held_out;         // the paired test on the held-out half (manipulation sense)
};

// The universal suffix searches of `probity attack` (families universal-phrase and
// logprob-search; audit/suffix_search.hpp): one text appended to every candidate.
enum class SuffixSearch { kUniversalPhrase, kLogprobSearch };
std::string_view suffix_search_name(SuffixSearch search);  // "universal-phrase", ...
std::optional<SuffixSearch> parse_suffix_search(std::string_view family);

struct UniversalSuffix {
  SuffixSearch search = SuffixSearch::kUniversalPhrase;
  std::string text;                // found on the search half
  std::vector<double> trajectory;  // search-half mean Δ after each accepted step
  std::size_t queries = 0;         // texts scored by the search
  double search_mean_delta = 0;    // used only to choose
  bool searched = true;            // false: the search could not run here (`untestable` says why)
  std::string untestable;
  StrategyTest held_out;        // the paired test on the held-out half (manipulation sense)
  std::string transfer_metric;  // --transfer-endpoint: the same judge on another endpoint
  StrategyTest transfer;        // the suffix's held-out test there
};

// The replacement families of `probity attack` (audit/replacement_attacks.hpp): every candidate
// replaced by one fixed answer that says nothing of the task.
//   master-key: content-free strings (":", "Thought process:", ...; Zhao et al. 2025). A hit is
//     an item where the string scores above the empty answer "" (the floor a content-free answer
//     should stay at) and at least as high as the real candidate: the metric gives it credit and
//     cannot tell it from the real answer. The rate is the false-positive rate.
//   null-model: one constant answer for every item, plain or breaking out of a judge's template
//     (Zheng et al., ICLR 2025). A hit is an item where it scores above the real candidate.
enum class ReplacementFamily { kMasterKey, kNullModel };
std::string_view replacement_family_name(ReplacementFamily family);
std::optional<ReplacementFamily> parse_replacement_family(std::string_view family);

struct ReplacementAnswer {
  std::string text;
  std::size_t n = 0;                          // items where both scores are defined
  std::size_t hits = 0;                       // ties are not hits
  double rate = 0, rate_lo = 0, rate_hi = 0;  // hits / n with the Wilson score interval
  double mean_score = 0;                      // of the answer over the n items
};

struct ReplacementAttack {
  ReplacementFamily family = ReplacementFamily::kMasterKey;
  bool testable = true;
  std::string untestable;
  double candidates_mean = 0;              // the real candidates' mean score
  double floor_mean = 0;                   // the empty answer's (master-key)
  std::vector<ReplacementAnswer> answers;  // each answer on every item
  // The answer with the highest rate on the search half, measured on the held-out half; it is
  // a finding when the Wilson interval's lower bound exceeds the tolerance.
  ReplacementAnswer held_out;
  double tolerance = 0;
  bool vulnerable = false;
};

struct BudgetPoint {
  std::size_t queries = 0;
  double success_rate = 0;  // items whose best Δ after this many queries exceeds delta
  double mean_best_delta = 0;
};

// The LLM attacker's rewrites of one metric's search (strategy llm; empty otherwise).
struct RejectedRewrite {
  std::string task_id, candidate_id, rewrite, reason;
};
struct RewriteAccounting {
  std::string guard;                // "support" or "llm"; empty when no LLM attacker ran
  std::size_t requests = 0;         // attacker questions asked (one per item and round)
  std::size_t proposed = 0;         // rewrites the attacker returned
  std::size_t scored = 0;           // rewrites the metric scored
  std::size_t duplicates = 0;       // equal to the original or an earlier try: not scored
  std::size_t rejected = 0;         // the guard found information added: discarded
  std::size_t guard_failed = 0;     // the guard's answer failed: discarded
  std::size_t over_budget = 0;      // passed the guard past the item's query budget: not scored
  std::size_t attacker_failed = 0;  // attacker requests that failed or stayed unparseable
  std::size_t attacker_unparseable = 0;  // of those, answers still unusable after re-asking
  std::string first_attacker_error;
  std::vector<RejectedRewrite> rejected_examples;  // the first few, with the guard's reason
};

struct MetricAttack {
  std::string dataset;  // in the audit report
  std::string metric, signature;
  std::size_t items = 0;    // items attacked (with a defined original score)
  std::size_t queries = 0;  // metric calls of the per-item search
  double seconds = 0;       // of the per-item search
  // The per-item search's findings need items it could attack: an LLM attacker whose work
  // failed for every item leaves it without one (success_rate, mean_best_delta NaN, no budget
  // curve, best_edits not testable), and `untestable` says why.
  bool testable = true;
  std::string untestable;
  std::size_t not_attacked = 0;  // items with a defined score left out: their LLM work failed
  double success_rate = 0;       // share of items with best Δ > delta
  double mean_best_delta = 0;    // over the items
  StrategyTest best_edits;       // the paired test of the best per-item edits against the originals
  std::vector<std::pair<std::string, std::size_t>> families;  // family of the first best edit
  std::vector<BudgetPoint> budget_curve;
  std::vector<UniversalProgram> universal;  // best on the search half, tested on held-out
  std::size_t programs_searched = 0;
  std::vector<UniversalSuffix> suffixes;        // universal-phrase, logprob-search
  std::vector<ReplacementAttack> replacements;  // master-key, null-model
  std::vector<AttackExample> examples;
  RewriteAccounting rewrites;
};

struct StrategyInfo {
  StrategyKind kind = StrategyKind::kDegradation;
  std::string code, name, description, signature;
};

// A perturbation shown in the report so a reader can see what a strategy does.
struct PerturbationExample {
  std::string dataset, task_id, candidate_id;
  StrategyKind kind = StrategyKind::kDegradation;
  std::string code, original, perturbed;
};

struct DatasetSummary {
  std::string name;  // file stem, widened with its folders where stems collide ("a/summ")
  std::string path;
  std::size_t tasks = 0, candidates = 0, audited = 0;
  std::vector<std::string> dimensions;
  std::vector<SkipRecord> skipped;
};

// One value of an LLM judge's bias battery (audit/judge_diagnostics.cpp), with a bootstrap CI
// over tasks.
struct JudgeDiagnostic {
  std::string name;  // "position.consistency", "length.prefer_longer", ...
  double value = std::numeric_limits<double>::quiet_NaN();
  double low = std::numeric_limits<double>::quiet_NaN();
  double high = std::numeric_limits<double>::quiet_NaN();
  std::size_t n = 0;  // items (pairs) the value is computed over
  // The value a judge without this bias has (0 for a signed bias or a partial correlation, 0.5
  // for a preference share); unset where there is none (consistency, ICC).
  std::optional<double> unbiased;
  bool finding = false;  // the CI excludes `unbiased`
  std::string untested;  // why there is no value; empty when there is one
};

// The bias battery of one judge metric on one dataset.
struct JudgeDiagnostics {
  std::string dataset, metric;
  JudgeMode mode = JudgeMode::kPointwise;
  std::size_t items = 0;
  std::vector<JudgeDiagnostic> values;
};

struct AuditReport {
  std::string version;
  std::uint64_t seed = 0;
  std::size_t sample = 0, bootstrap = 0, min_applied = 30;
  double alpha = 0.05, confidence = 0.95;
  double margin = kDefaultMargin;
  PairedTest test = PairedTest::kT;
  std::vector<DatasetSummary> datasets;
  std::vector<std::string> metrics;     // primary record names, in order
  std::vector<std::string> signatures;  // parallel to metrics
  std::vector<StrategyInfo> strategies;
  std::vector<MetricCorrelations> correlations;  // audited metrics, then the baselines
  std::vector<MetricRanking> rankings;           // --rank: significance clusters
  std::vector<std::string> levels;               // --level, as given (empty: pooled only)
  std::vector<StrategyTest> tests;
  std::vector<Replicability> replicability;         // two or more datasets
  std::vector<MetricAttack> attacks;                // --attack
  std::vector<JudgeDiagnostics> judge_diagnostics;  // every LLM judge metric
  std::vector<PerturbationExample> examples;
  std::size_t cache_hits = 0, cache_misses = 0;
  double seconds = 0;
  // Accounting of the LLM session (requests, retries, failures by kind, tokens, cost per
  // endpoint) as a JSON object; empty when no LLM was used.
  std::string llm_usage;
};

// Metrics and strategies come from `engine` (its LLM session, predictors and registries); the
// overload without one runs offline with an engine of its own.
AuditReport run_audit(const AuditOptions& options, Engine& engine);
AuditReport run_audit(const AuditOptions& options);

// A seeded sample of `k` item positions out of `n` (all when k is 0 or at least n), in file
// order; `name` (the dataset's) makes the draw differ between datasets. audit and attack --sample.
std::vector<std::size_t> choose_sample(std::size_t n, std::size_t k, std::uint64_t seed,
                                       const std::string& name);

// Deterministic task-to-shard assignment by a stable hash of the task id, independent of file
// order: every task belongs to exactly one of `count` shards.
bool in_shard(std::string_view task_id, std::size_t index, std::size_t count);

// The paired test of one strategy for one metric on aligned per-item scores: items whose
// perturbation was not applied, or whose scores are undefined, are counted and left out.
// Degradation: one-sided H1 mean Δ < 0, passes when p < alpha. Manipulation: H1 mean Δ > 0,
// fails when p < alpha. With the equivalence test against `margin` this gives `outcome`.
// `bootstrap` resamples give the paired bootstrap CI of d.
StrategyTest test_strategy(StrategyKind kind, std::span<const double> original,
                           std::span<const double> perturbed,
                           std::span<const PerturbResult::Status> status, double alpha,
                           std::size_t bootstrap, double confidence, std::uint64_t seed,
                           unsigned threads = 0, std::size_t min_applied = 2,
                           double margin = kDefaultMargin, PairedTest test = PairedTest::kT);
// The three-way verdict of a testable test from its effect and equivalence p-values.
Outcome decide_outcome(StrategyKind kind, double p, double p_equiv, double alpha);

// The partial-conjunction test per metric and strategy over the datasets where it was testable
// (two or more): the p-value of the failure per dataset (p_equiv of a degradation, p of a
// manipulation; 1 where undefined), in how many it is shown, and "in at least u" per u.
std::vector<Replicability> replicability(std::span<const StrategyTest> tests, double alpha);

// Holm's adjustment within each family of tests (same dataset, metric and kind), applied to the
// effect tests and the equivalence tests alike: sets p_holm, passed_holm, p_equiv_holm and
// outcome_holm.
void apply_holm(std::vector<StrategyTest>& tests, double alpha);

// Human ratings (annotator means) of `items` per dimension: result[d][i], NaN where missing.
std::vector<std::vector<double>> human_matrix(const Dataset& ds, std::span<const ItemRef> items,
                                              const std::vector<std::string>& dimensions);

// What a level row's bootstrap draws (docs/meta-eval.md).
enum class ResampleUnit {
  kByLevel,  // tasks at the item and task level, systems at the system level
  kTasks,    // whole tasks at any level (at the system level the systems' means are recomputed)
  kSystems,  // whole systems at any level
  kBoth,     // two-stage: tasks and systems drawn independently, their crossed candidates
};
ResampleUnit parse_resample_unit(std::string_view name);  // "level", "tasks", "systems", "both"
std::string_view resample_unit_name(ResampleUnit unit);

struct CorrelationOptions {
  std::size_t bootstrap = 1000;  // resamples of items for the CI of Spearman (0: none)
  double confidence = 0.95;
  std::uint64_t seed = 0;
  unsigned threads = 0;
  ResampleUnit resample = ResampleUnit::kByLevel;  // level rows only
};

// Spearman (with bootstrap CI and p), Kendall tau-b and Pearson between `scores` and each
// dimension of `human`, over the items where both are defined; with several dimensions a last
// row "mean" holds the mean of each coefficient, its CI from the same item resamples.
std::vector<CorrelationResult> human_correlations(std::span<const double> scores,
                                                  const std::vector<std::vector<double>>& human,
                                                  const std::vector<std::string>& dimensions,
                                                  const CorrelationOptions& options = {});

// The human ceiling of `items` (docs/meta-eval.md), when some item has two or more ratings in a
// dimension; nullopt otherwise. Rater k's rating of an item is correlated with the mean of the
// item's other ratings, over the items with both, and the coefficients are averaged over k (the
// positions in each item's rating list: SummEval's three experts rate in the same order). Pooled
// rows as human_correlations gives them (the CI from one item resample for every position), the
// --level rows as level_correlations (value averaged over positions; no CI), and Krippendorff's
// α (interval, ordinal) per dimension.
std::optional<MetricCorrelations> human_ceiling(const Dataset& ds, std::span<const ItemRef> items,
                                                const std::vector<std::string>& dimensions,
                                                std::span<const stats::Level> levels,
                                                std::span<const stats::LevelStatistic> statistics,
                                                const CorrelationOptions& options = {});

// ---- Levels (docs/meta-eval.md) ---------------------------------------------------------------

// The scores of `items` against one human dimension as level data: tasks in dataset order,
// systems by their `system` name (candidates without one take no part in the system level).
// `system_names` receives the names in index order.
stats::LevelData level_data(const Dataset& ds, std::span<const ItemRef> items,
                            std::span<const double> scores, std::span<const double> human,
                            std::vector<std::string>* system_names = nullptr);

// UsageError when `level` is the system level and no candidate of `data` names its system.
void require_systems(stats::Level level, const stats::LevelData& data);

// Every (dimension, level, statistic); with options.bootstrap > 0 a percentile CI from resamples
// of whole tasks (item and task level) or systems (system level), each row seeded from
// options.seed and its own (dimension, level, statistic), so rows do not depend on each other.
// UsageError when the system level is asked for and no candidate names its system.
std::vector<LevelCorrelation> level_correlations(const Dataset& ds, std::span<const ItemRef> items,
                                                 std::span<const double> scores,
                                                 const std::vector<std::vector<double>>& human,
                                                 const std::vector<std::string>& dimensions,
                                                 std::span<const stats::Level> levels,
                                                 std::span<const stats::LevelStatistic> statistics,
                                                 const CorrelationOptions& options = {});

// Agreement of `scores` (aligned with `items`) with the human pairwise preferences of the tasks
// (`pairs`), with a percentile bootstrap CI over tasks (options.bootstrap resamples; 0: none).
// UsageError when no task has preferences.
// Pairs derived from rating differences, for data with ratings only (never the default; label
// them): per task, every two candidates rated on `dimension` (annotator means), the higher one
// preferred, a tie when the means differ by at most `margin`. Replaces the tasks' `pairs`;
// returns the number of pairs. UsageError when a task already has human pairs.
std::size_t derive_preferences(Dataset& ds, const std::string& dimension, double margin);

PreferenceAgreement preference_agreement(const Dataset& ds, std::span<const ItemRef> items,
                                         std::span<const double> scores,
                                         const CorrelationOptions& options = {});

// The reference-free baselines shown beside a metric (length, random; docs/meta-eval.md): their
// scores of `items` (candidate texts from the dataset), named "baseline:length", ...
struct BaselineScores {
  std::string metric;
  std::string signature;
  std::vector<double> values;
};
std::vector<BaselineScores> baseline_scores(const Dataset& ds, std::span<const ItemRef> items);

struct RankOptions {
  stats::Level level = stats::Level::kItem;
  stats::LevelStatistic statistic = stats::LevelStatistic::kKendallB;
  stats::PermTest perm_test = stats::PermTest::kScores;
  std::size_t permutations = 1000;
  stats::RankCorrection correction = stats::RankCorrection::kHolm;
  double alpha = 0.05;
  std::uint64_t seed = 0;  // each pair's test is seeded from it, the dimension and the two names
  unsigned threads = 0;
};
// One named column of scores aligned with the items.
struct NamedScores {
  std::string metric;
  std::span<const double> values;
  bool baseline = false;
};
// The ranking of `columns` (two or more) per dimension of `human`. UsageError for the system
// level without systems.
std::vector<MetricRanking> rank_metrics(const Dataset& ds, std::span<const ItemRef> items,
                                        std::span<const NamedScores> columns,
                                        const std::vector<std::vector<double>>& human,
                                        const std::vector<std::string>& dimensions,
                                        const RankOptions& options);

}  // namespace probity
