#pragma once
// The requests of the probity commands whose work the command line renders itself: what each
// takes, with its defaults, declared once here and filled by the command line's flags (the
// audit's and attack's requests are in audit.hpp, the score request in score_run.hpp, the
// significance request beside its run in significance.hpp).
#include <cstddef>
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "probity/audit.hpp"
#include "probity/inputs.hpp"
#include "probity/meta.hpp"
#include "probity/significance.hpp"
#include "probity/stats.hpp"

namespace probity {

struct MergeRequest {
  DataInput data;                   // the dataset the shards scored
  std::vector<std::string> shards;  // score files written with --shard I/N
  std::string out;
  bool allow_missing = false;  // write the merge although items of the dataset have no records
};

// What the commands that read score files beside a dataset's human ratings share (correlate,
// compare, rank, select, meta).
struct ScoredInputs {
  DataInput data;
  std::vector<std::string> scores;      // --scores, repeatable; "-": standard input
  std::vector<std::string> metrics;     // empty: every metric in the scores files
  std::vector<std::string> dimensions;  // empty: every dimension of the dataset
  bool skip_invalid = false;
  bool allow_missing = false;  // use a scores file that leaves items without a score
};

struct CorrelateRequest {
  ScoredInputs inputs;
  // All empty: the pooled table (Spearman with CI, Kendall, Pearson). Else every level (default
  // item) with every statistic (default pearson, spearman, kendall), and with preference_acc the
  // agreement with the tasks' human pairwise preferences.
  std::vector<stats::Level> levels;
  std::vector<stats::LevelStatistic> statistics;
  bool preference_acc = false;
  bool baselines = true;  // with levels: the length and random baselines as extra rows
  // --pairs-from DIM: preference-acc over pairs derived from DIM's rating differences (labelled
  // as such), for data without human pairs; ties within --pairs-margin.
  std::string pairs_from;
  double pairs_margin = 0.0;
  CorrelationOptions options;  // bootstrap, confidence, seed, threads; resample: level rows only
  bool json = false;
};

struct CompareRequest {
  ScoredInputs inputs;  // metrics: exactly two
  // Without a level: the pooled test of Pearson, Spearman or Kendall; at a level the level test
  // (stats::level_permutation_test), which also takes kendall-c, pairwise-acc and acc-eq.
  stats::LevelStatistic correlation = stats::LevelStatistic::kSpearman;
  std::optional<stats::Level> level;
  stats::PermTest perm_test = stats::PermTest::kScores;  // at a level
  // The Williams test (Graham & Baldwin 2014; mt-metrics-eval WilliamsSigDiff) instead of a
  // permutation: Pearson at the item level, one-sided, from r(A,h), r(B,h) and r(A,B).
  bool williams = false;
  std::size_t permutations = 1000;
  std::uint64_t seed = 0;
  unsigned threads = 0;
  bool json = false;
};

// `probity rank`: every metric against every other with the paired permutation test at one
// level, a multiple-comparison correction, and WMT's significance clusters. Pearson by default,
// as mt-metrics-eval's system-level ranking (the audit's --rank takes its first --statistic).
struct RankRequest {
  RankRequest() { options.statistic = stats::LevelStatistic::kPearson; }
  ScoredInputs inputs;
  RankOptions options;
  bool json = false;
};

// `probity power`: sample sizes and detectable effects of the audit's paired tests and of a
// correlation difference (statsmodels' TTestPower and NormalIndPower; docs/concepts.md). Given
// two of effect, n and power, the third; or per test of a pilot audit report, its MDE at its n
// and the n that finds `effect` (default: the report's margin).
struct PowerRequest {
  std::optional<double> effect;  // d in pooled-sd units (the audit's), or dz without the sds
  std::optional<double> n;       // paired items (tests) or items per correlation
  std::optional<double> power;   // default 0.8 when solving n or the effect
  double alpha = 0.05;
  stats::Alternative alternative = stats::Alternative::kGreater;
  // The sd of the differences and the pooled sd of the scores (from a pilot): d converts to
  // TTestPower's dz = d * pooled_sd / sd_delta. Without them the effect is dz itself.
  std::optional<double> sd_delta, pooled_sd;
  // Two correlations with the human ratings: the test of their difference (Fisher z).
  std::optional<double> r1, r2;
  std::string report;  // a pilot's report.json: one row per testable test
  bool json = false;
};

// One row of `probity power`: what was given and what was solved.
struct PowerRow {
  std::string what;  // "paired t-test", "correlation difference", or the test's dataset/metric/code
  double n = 0, effect = 0, power = 0;
  std::string solved;  // "n", "effect", "power"
  std::string note;    // why a value is undefined, or how the effect converts
};
// The rows of a request, with the pilot report already read when `report` is given (nullptr
// otherwise). UsageError when the request does not say what to solve.
std::vector<PowerRow> plan_power(const PowerRequest& request, const AuditReport* pilot);
// "greater", "two-sided", "less": statsmodels' "larger", "two-sided", "smaller".
std::string_view alternative_name(stats::Alternative alternative);

struct PerturbRequest {
  DataInput data;
  std::string lang;  // --lang: language of tasks without a `lang` field ("" detects it)
  std::vector<std::string> degradations{"all"};
  std::vector<std::string> manipulations{"all"};
  std::uint64_t seed = 0;
  std::string out;
  unsigned threads = 0;
  bool skip_invalid = false;
};

// `probity select`: choose a metric variant on one half of the tasks, test it on the other.
struct SelectRequest {
  ScoredInputs inputs;  // metrics: the variants, at least two; scores empty: compute them
  // Without a level: Pearson, Spearman or Kendall pooled; at a level any level statistic.
  stats::LevelStatistic correlation = stats::LevelStatistic::kSpearman;
  std::optional<stats::Level> level;
  meta::SelectionOptions options;  // split, seed, bootstrap, permutations, confidence, threads
  bool json = false;
};

// `probity meta global` / `probity meta local` (dual-perspective meta-evaluation: CEM against
// consensus levels; adjacent accuracy). local uses options' bootstrap, confidence, seed and
// threads.
struct MetaRequest {
  ScoredInputs inputs;
  meta::GlobalOptions options;
  double max_spread = 0.0;  // global: the consensus rule
  bool json = false;
};

// `probity bench-build`: automatic local / global meta-evaluation benchmarks.
enum class BenchKind { kLocal, kGlobal };  // sequences, or items levelled by anchoring
std::string_view bench_kind_name(BenchKind kind);
// Who injects the errors (global: who compares an item with the anchors): the offline rules
// (the --anchor-metric for the anchors), or a model through the LLM session.
enum class BenchRealisation { kOffline, kLlm };
std::string_view injector_name(BenchRealisation realisation);      // rules, llm
std::string_view anchor_judge_name(BenchRealisation realisation);  // metric, llm

struct BenchBuildRequest {
  DataInput data;
  BenchKind kind = BenchKind::kLocal;
  // dimension, steps, sources, seed, base_reference, per_source, anchors_per_level, max_spread
  meta::BenchOptions options;
  std::string anchor_metric = "chrf";
  std::string out;
  bool skip_invalid = false;
  unsigned threads = 0;
  // LLM realisations (need an installed llm::Session: --config or --llm-base-url).
  BenchRealisation injector = BenchRealisation::kOffline;
  meta::LlmInjectorOptions llm_injector;  // role, max_edit_share
  BenchRealisation anchor_judge = BenchRealisation::kOffline;
  meta::LlmAnchorOptions llm_anchor_judge;  // role (the dimension is options.dimension)
};

}  // namespace probity
