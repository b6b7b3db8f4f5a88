#pragma once
// The requests of the probity commands whose work the command line renders itself: what each
// takes, with its defaults, declared once here and filled by the command line's flags (the
// audit's and attack's requests are in audit.hpp, the score request in score_run.hpp).
#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

#include "probity/inputs.hpp"

namespace probity {

struct MergeRequest {
  DataInput data;                   // the dataset the shards scored
  std::vector<std::string> shards;  // score files written with --shard I/N
  std::string out;
  bool allow_missing = false;  // write the merge although items of the dataset have no records
};

struct CorrelateRequest {
  DataInput data;
  std::vector<std::string> scores;      // --scores, repeatable; "-": standard input
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

struct CompareRequest {
  DataInput data;
  std::vector<std::string> scores;   // --scores, repeatable; "-": standard input
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

// `probity rank`: every metric against every other with the paired permutation test at one
// level, a multiple-comparison correction, and WMT's significance clusters.
struct RankRequest {
  DataInput data;
  std::vector<std::string> scores;      // --scores, repeatable; "-": standard input
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

// `probity significance`: sacreBLEU's paired significance tests between systems (--paired-bs,
// --paired-ar; probity/significance.hpp), the first system (or --baseline) against each other.
struct SignificanceRequest {
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
  DataInput data;
  std::vector<std::string> metrics;  // the variants, at least two
  std::vector<std::string> scores;   // empty: compute the metrics
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

// `probity meta global` / `probity meta local` (dual-perspective meta-evaluation: CEM against
// consensus levels; adjacent accuracy).
struct MetaRequest {
  DataInput data;
  std::vector<std::string> scores;      // --scores, repeatable; "-": standard input
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

// `probity bench-build`: automatic local / global meta-evaluation benchmarks.
struct BenchBuildRequest {
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

}  // namespace probity
