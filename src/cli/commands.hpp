#pragma once
// The subcommands of the `probity` tool. main.cpp parses flags into these structs.
#include <cstdint>
#include <string>
#include <vector>

#include "cli/terminal.hpp"
#include "probity/audit.hpp"
#include "probity/inputs.hpp"
#include "probity/score_run.hpp"

namespace probity {
class Engine;
}

namespace probity::cli {

// Where `probity score` writes what the library's ScoreRequest computes.
struct ScoreView {
  std::string out;          // records; empty: stdout (none with score_only)
  std::string explain;      // JSONL of per-item explanations from metrics that support them
  bool score_only = false;  // -b: only the corpus scores, one per line, on stdout
  Console console;          // -q: no progress bar and no notes; -v: the time taken
};
int run_score(const ScoreRequest& request, const ScoreView& view, Engine& engine);

struct MergeArgs {
  DataInput data;                   // the dataset the shards scored
  std::vector<std::string> shards;  // score files written with --shard I/N
  std::string out;
  bool allow_missing = false;  // write the merge although items of the dataset have no records
};
// Combines shard score files into exactly the file an unsharded `score` writes.
int run_merge(const MergeArgs& args);

// Parses "I/N" (0 <= I < N) of --shard; throws UsageError otherwise.
void parse_shard(const std::string& text, std::size_t& index, std::size_t& count);

struct CorrelateArgs {
  DataInput data;
  std::string scores;
  std::vector<std::string> metrics;     // empty: every metric in the scores file
  std::vector<std::string> dimensions;  // empty: every dimension of the dataset
  // Both empty: the pooled table (Spearman with CI, Kendall, Pearson). Else every level (default
  // item) with every statistic (default pearson, spearman, kendall); names as stats::parse_*.
  std::vector<std::string> levels;
  std::vector<std::string> statistics;
  bool baselines = true;           // with levels: the length and random baselines as extra rows
  std::string resample = "level";  // the level rows' bootstrap unit (parse_resample_unit)
  // --pairs-from DIM: preference-acc over pairs derived from DIM's rating differences (labelled
  // as such), for data without human pairs; ties within --pairs-margin.
  std::string pairs_from;
  double pairs_margin = 0.0;
  std::size_t bootstrap = 1000;
  double confidence = 0.95;
  std::uint64_t seed = 0;
  bool json = false;
  bool skip_invalid = false;
  bool allow_missing = false;  // use a scores file that leaves items without a score
  unsigned threads = 0;
};
int run_correlate(const CorrelateArgs& args);

struct CompareArgs {
  DataInput data;
  std::string scores;
  std::vector<std::string> metrics;  // exactly two
  std::vector<std::string> dimensions;
  std::string correlation = "spearman";
  // Empty: the pooled test of the correlation; else the level test (stats::level_permutation_test),
  // which also takes kendall-c, pairwise-acc and acc-eq.
  std::string level;
  std::size_t permutations = 1000;
  std::uint64_t seed = 0;
  bool json = false;
  bool skip_invalid = false;
  bool allow_missing = false;  // use a scores file that leaves items without a score
  unsigned threads = 0;
};
int run_compare(const CompareArgs& args);

// `probity rank`: every metric against every other with the paired permutation test at one
// level, a multiple-comparison correction, and WMT's significance clusters.
struct RankArgs {
  DataInput data;
  std::string scores;
  std::vector<std::string> metrics;     // empty: every metric in the file
  std::vector<std::string> dimensions;  // empty: every dimension
  std::string level = "item";
  std::string statistic = "pearson";
  std::size_t permutations = 1000;
  std::string correction = "holm";  // holm, bh or none
  double alpha = 0.05;
  std::uint64_t seed = 0;
  bool json = false;
  bool skip_invalid = false;
  bool allow_missing = false;
  unsigned threads = 0;
};
int run_rank(const RankArgs& args);

// `probity significance`: sacreBLEU's paired significance tests between systems (--paired-bs,
// --paired-ar; probity/significance.hpp), the first system (or --baseline) against each other.
struct SignificanceArgs {
  DataInput data;
  std::vector<std::string> metrics{"bleu"};  // sacreBLEU's metrics: bleu, chrf, chrf++, ter
  bool paired_bs = false, paired_ar = false;
  std::size_t paired_bs_n = 1000, paired_ar_n = 10000;
  std::uint64_t seed = 12345;  // sacreBLEU's SACREBLEU_SEED default
  std::string baseline;        // empty: the first system
  int width = 1;               // decimals of the scores (sacreBLEU's --width)
  bool json = false;
  bool skip_invalid = false;
  unsigned threads = 0;
};
int run_significance(const SignificanceArgs& args, Engine& engine);

// What `probity audit` adds to the library's request: how the report is shown and exported.
struct AuditView {
  bool ascii = false;
  std::vector<std::string> exports;  // --export latex,svg: figures and tables
  Console console;  // table width and colours; -q: no progress or notes; -v: stage timings
};
int run_audit(const AuditOptions& request, const AuditView& view, Engine& engine);

struct PerturbArgs {
  DataInput data;
  std::string lang;  // --lang: language of tasks without a `lang` field ("" detects it)
  std::vector<std::string> degradations{"all"};
  std::vector<std::string> manipulations{"all"};
  std::uint64_t seed = 0;
  std::string out;
  unsigned threads = 0;
  bool skip_invalid = false;
};
// Writes the dataset plus every applied perturbation as extra candidates "<id>~<kind>-<code>".
int run_perturb(const PerturbArgs& args, Engine& engine);

int run_metrics(bool json);

// `probity select`: choose a metric variant on one half of the tasks, test it on the other.
struct SelectArgs {
  DataInput data;
  std::vector<std::string> metrics;  // the variants, at least two
  std::string scores;                // empty: compute the metrics
  double split = 0.5;
  std::uint64_t seed = 0;
  std::vector<std::string> dimensions;
  std::string correlation = "spearman";
  std::string level;  // --level: empty for the pooled correlation
  std::size_t bootstrap = 1000;
  std::size_t permutations = 1000;
  double confidence = 0.95;
  bool json = false;
  bool skip_invalid = false;
  bool allow_missing = false;  // use a scores file that leaves items without a score
  unsigned threads = 0;
};
int run_select(const SelectArgs& args, Engine& engine);

struct AttackArgs {
  DataInput data;
  std::string lang;  // --lang: language of tasks without a `lang` field ("" detects it)
  std::vector<std::string> metrics;
  std::string out;  // directory: attack.json
  std::string strategy = "greedy";
  std::size_t budget = 200, steps = 3, beam = 4, proposals = 4;
  std::string guard = "support";
  std::vector<std::string> families;
  bool copy_source = false;
  double delta = 0.0;
  std::size_t program_length = 2, programs = 10;
  double split = 0.5, alpha = 0.05;
  std::size_t bootstrap = 1000, min_applied = 30, sample = 0;
  std::uint64_t seed = 0;
  unsigned threads = 0;
  bool skip_invalid = false;
};
// Writes DIR/attack.json and prints the per-metric summary (docs/attack.md).
int run_attack(const AttackArgs& args, Engine& engine);

// `probity meta global` / `probity meta local` (SPEC §6).
struct MetaArgs {
  DataInput data;
  std::string scores;
  std::vector<std::string> metrics;     // empty: every metric in the scores file
  std::vector<std::string> dimensions;  // empty: every dimension of the dataset
  std::size_t bootstrap = 1000;
  double confidence = 0.95;
  std::uint64_t seed = 0;
  double max_spread = 0.0;   // global: consensus rule
  bool direct = false;       // global: scores are integer levels already
  std::size_t chance = 200;  // global: random orderings for the chance CEM
  bool json = false;
  bool skip_invalid = false;
  bool allow_missing = false;  // use a scores file that leaves items without a score
  unsigned threads = 0;
};
int run_meta_global(const MetaArgs& args);
int run_meta_local(const MetaArgs& args);

// `probity bench-build`: automatic local / global meta-evaluation benchmarks.
struct BenchBuildArgs {
  DataInput data;
  std::string dimension;
  std::string kind = "local";
  std::size_t steps = 8;
  std::size_t sources = 100;
  std::uint64_t seed = 0;
  std::size_t base_reference = 0;
  std::size_t per_source = 2;
  std::size_t anchors = 20;
  std::string anchor_metric = "chrf";
  double max_spread = 0.0;
  std::string out;
  bool skip_invalid = false;
  unsigned threads = 0;
  // LLM realisations (need an installed llm::Session: --config or --llm-base-url).
  std::string injector = "rules";        // rules | llm
  std::string llm_role = "perturber";    // role of the LLM injector
  double max_edit_share = 0.5;           // LLM injector: largest share of words one step may change
  std::string anchor_judge = "metric";   // metric (--anchor-metric) | llm
  std::string llm_role_judge = "judge";  // role of the LLM anchor judge
};
int run_bench_build(const BenchBuildArgs& args, Engine& engine);

}  // namespace probity::cli
