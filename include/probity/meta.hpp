#pragma once
// Meta-evaluation of metrics beyond one correlation coefficient (arXiv:2502.12052, ACL 2025;
// held-out selection):
//
// - global: ordinal classification of consensus items into human levels, scored with CEM-ORD;
// - local: adjacent comparison accuracy over quality-decreasing sequences t1 ≻ t2 ≻ … ≻ tk;
// - selection: choosing a metric variant on one split of the tasks and testing it on the other,
//   with a bootstrap CI, paired permutation tests and a max-statistic correction;
// - benchmark construction: local sequences by cumulative one-error-per-step injection into a
//   reference, and global items whose levels are estimated by anchoring.
//
// Every random step takes a seed; nothing depends on thread count or processing order.
#include <cstddef>
#include <cstdint>
#include <functional>
#include <initializer_list>
#include <memory>
#include <optional>
#include <ostream>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "probity/dataset.hpp"
#include "probity/scoring.hpp"
#include "probity/stats.hpp"

namespace probity::llm {
class Session;
}

namespace probity::meta {

// ---- Global perspective: CEM over consensus items
// ------------------------------------------------

// The gold level of an item from its annotator ratings: the (lower) median when the ratings
// spread (max − min) is at most `max_spread`, else nothing (no consensus). A single rating is
// always a consensus.
std::optional<double> consensus_level(std::span<const double> ratings, double max_spread);

// Maps continuous scores to gold levels by matching the gold level proportions (arXiv:2502.12052,
// ACL 2025): items sorted by score ascending, the lowest n_1 get the lowest level, the next n_2 the
// next level, and so on. `gold` gives the levels and their counts. Items with equal scores all get
// the level at the middle (lower middle) rank of their group, so the mapping never depends on item
// order; without ties the result is a permutation of `gold`.
std::vector<double> map_by_rank(std::span<const double> scores, std::span<const double> gold);
// An integer-valued judge rating used directly: each score rounded to the nearest integer
// (halves away from zero).
std::vector<double> map_direct(std::span<const double> scores);

struct GlobalOptions {
  bool direct = false;  // ratings are levels already (map_direct) instead of map_by_rank
  std::size_t bootstrap = 1000;
  double confidence = 0.95;
  std::uint64_t seed = 0;
  std::size_t chance_permutations = 200;  // random orderings for the chance CEM (0: none)
  unsigned threads = 0;
};

struct GlobalResult {
  std::size_t n = 0;                // consensus items with a score
  std::vector<double> levels;       // the ordered classes CEM uses
  std::vector<std::size_t> counts;  // gold items per level
  double cem = 0.0;
  stats::ConfidenceInterval ci;  // item bootstrap, percentile; the mapping is redone per resample
  // Mean CEM of random orderings mapped the same way (rank mapping) — what chance achieves with
  // these class proportions; NaN with direct mapping or when not requested.
  double chance = 0.0;
};

// CEM of `scores` against consensus gold levels. Items with a NaN score or gold are left out.
// Levels: the distinct gold values, plus (direct mapping) the distinct predicted values, as in
// the EvALL reference where the class range is the union of gold and predicted labels.
GlobalResult global_cem(std::span<const double> scores, std::span<const double> gold,
                        const GlobalOptions& options = {});

// ---- Local perspective: adjacent comparison accuracy -----------------------------------------

// A quality-decreasing sequence t1 ≻ t2 ≻ … ≻ tk of items of one task in one dimension.
//
// Convention (docs/meta-eval.md): a sequence is a task; its order is given by the candidates'
// human rating in the dimension (higher is better); candidates with equal ratings are not
// ordered against each other and the pair between them is skipped. `probity bench-build` writes
// step j (the text with j errors) with the rating steps − j.
struct Sequence {
  std::string id;                  // task id
  std::string dimension;           // human dimension
  std::vector<std::size_t> items;  // indices into the item list, best first
  std::vector<bool> comparable;    // comparable[j]: items[j] ≻ items[j+1] is a strict order
};

// Sequences of every task in each dimension: candidates with a rating sorted by mean rating
// (descending; ties by candidate order). `skipped_ties` counts adjacent pairs with equal ratings.
std::vector<Sequence> sequences_from_dataset(const Dataset& ds, std::span<const ItemRef> items,
                                             const std::vector<std::string>& dimensions,
                                             std::size_t* skipped_ties = nullptr);

struct LocalCounts {
  std::size_t pairs = 0;      // comparable adjacent pairs with defined scores on both sides
  std::size_t correct = 0;    // score(t_j) > score(t_{j+1})
  std::size_t ties = 0;       // score(t_j) == score(t_{j+1}): reported separately, not correct
  std::size_t wrong = 0;      // score(t_j) < score(t_{j+1})
  std::size_t undefined = 0;  // pairs with a NaN score (left out)
  LocalCounts& operator+=(const LocalCounts& o);
};

LocalCounts adjacent_counts(std::span<const double> scores, const Sequence& sequence);

struct LocalOptions {
  std::size_t bootstrap = 1000;  // resamples of sequences
  double confidence = 0.95;
  std::uint64_t seed = 0;
  unsigned threads = 0;
};

struct LocalResult {
  std::string dimension;  // a dimension or "overall" (all sequences pooled)
  std::size_t sequences = 0;
  LocalCounts counts;
  double accuracy = 0.0;         // correct / pairs (a tie is not correct, as in the paper)
  double tie_rate = 0.0;         // ties / pairs
  stats::ConfidenceInterval ci;  // of accuracy, bootstrap over sequences (percentile)
};

// One row per dimension in order of first appearance, then "overall" when there are several.
std::vector<LocalResult> local_accuracy(std::span<const double> scores,
                                        std::span<const Sequence> sequences,
                                        const LocalOptions& options = {});

// ---- Selection of a variant on held-out tasks -----------------------------------------------

// Assigns each task to the selection half (true) or the test half (stats::split_tasks).
using stats::split_tasks;  // stats.hpp: the seeded split of tasks

struct SelectionOptions {
  double split = 0.5;  // fraction of tasks in the selection half
  std::uint64_t seed = 0;
  stats::CorrelationType correlation = stats::CorrelationType::kSpearman;
  std::size_t bootstrap = 1000;
  std::size_t permutations = 1000;
  double confidence = 0.95;
  unsigned threads = 0;
  // A meta-evaluation level instead of the pooled correlation (docs/meta-eval.md): the variants
  // are chosen and reported by `statistic` at this level; the CI resamples test tasks (systems
  // at the system level) and the paired tests are the level's permutation test.
  std::optional<stats::Level> level;
  stats::LevelStatistic statistic = stats::LevelStatistic::kKendallB;
};

struct VariantResult {
  std::string name;
  double selection = 0.0;  // correlation on the selection half (used only to choose)
  double test = 0.0;       // correlation on the test half
  // Paired permutation test on the test half of corr(winner) − corr(this) (two-sided), and its
  // Holm adjustment over the K − 1 comparisons; NaN for the winner itself.
  double delta_vs_winner = 0.0;
  double p_vs_winner = 0.0;
  double p_vs_winner_holm = 0.0;
};

struct SelectionResult {
  std::size_t selection_tasks = 0, test_tasks = 0;
  std::size_t selection_items = 0, test_items = 0;  // items with every score and a rating
  std::size_t winner = 0;                           // index of the chosen variant
  std::vector<VariantResult> variants;
  double winner_test = 0.0;  // the reported score: the winner's correlation on the test half
  stats::ConfidenceInterval winner_test_ci;  // bootstrap over test tasks (clusters)
  // Max-statistic permutation p of the selection step: human ratings are permuted within each
  // task of the selection half, every variant's selection correlation is recomputed and the
  // maximum taken; p = (1 + #{max* ≥ observed max}) / (1 + B). It is the probability, if no
  // variant were associated with the ratings within tasks, that the best of the K variants
  // would look at least as good as the winner did — the family-wise p of "the winner beats
  // chance", corrected for picking it.
  double p_max_selection = 0.0;
  // Permutation p of the winner's test correlation against no association (ratings permuted
  // within test tasks; one-sided, a positive correlation). No correction is needed: the test
  // half played no part in the choice.
  double p_test = 0.0;
};

// `scores[k][i]`: variant k on item i; `human[i]`; `task_of_item[i]` indexes `task_ids`. Items
// where any variant or the rating is NaN are left out so every variant sees the same items.
// With options.level, `system_of_item[i]` is item i's system index (stats::kNoSystem: none) in
// [0, num_systems); it is needed at the system level only.
SelectionResult select_variant(const std::vector<std::vector<double>>& scores,
                               const std::vector<std::string>& names, std::span<const double> human,
                               std::span<const std::size_t> task_of_item,
                               std::span<const std::string> task_ids,
                               const SelectionOptions& options = {},
                               std::span<const std::size_t> system_of_item = {},
                               std::size_t num_systems = 0);

// ---- Benchmark construction -------------------------------------------------------------------

enum class QualityDimension { kConsistency, kFluency, kCoherence, kRelevance };
QualityDimension parse_quality_dimension(std::string_view name);  // throws std::invalid_argument
std::string_view dimension_name(QualityDimension d);

// One injected error: what changed and where (token positions in the whitespace-tokenised text
// before and after the edit; everything outside [begin, begin + removed) resp.
// [begin, begin + inserted) is identical).
struct Edit {
  std::string type;  // injector name, e.g. "swap-number"
  std::string description;
  std::size_t begin = 0;
  std::size_t removed = 0;
  std::size_t inserted = 0;
};

// What an injector may draw on besides the text itself.
struct InjectionContext {
  std::string_view source;                  // the task's source (entities, numbers), may be empty
  std::vector<std::string_view> off_topic;  // sentences of other tasks' references
};

// A text under cumulative editing: sentences of whitespace tokens, with the tokens an earlier
// step produced marked so later steps never edit them again (no edit can undo another).
class EditableText {
 public:
  explicit EditableText(std::string_view text);
  std::string render() const;  // tokens joined by single spaces
  std::vector<std::string> tokens() const;

  struct Token {
    std::string text;
    bool touched = false;
  };
  struct Sentence {
    std::vector<Token> tokens;
    std::size_t origin = 0;  // index in the original text; inserted sentences get a new index
    bool inserted = false;
  };
  std::vector<Sentence> sentences;
  std::size_t next_origin = 0;
};

// The error injectors of a dimension, by name (docs/meta-eval.md lists what each does).
std::vector<std::string> injector_names(QualityDimension d);
// Applies one named injector once, drawing choices from `seed`; nothing when it cannot apply.
std::optional<Edit> inject(std::string_view injector, EditableText& text,
                           const InjectionContext& context, std::uint64_t seed);
// One step of a sequence: injectors of the dimension tried in a seeded order until one applies.
std::optional<Edit> inject_step(QualityDimension d, EditableText& text,
                                const InjectionContext& context, std::uint64_t seed);

// A local sequence from one base text: texts[0] is the base (whitespace-normalised), texts[j]
// has j errors; it stops early when no injector applies.
struct BuiltSequence {
  std::vector<std::string> texts;
  std::vector<Edit> edits;  // edits[j] turned texts[j] into texts[j + 1]
  // Why it has fewer edits than requested: "" (complete), "not-applicable" (no error type could
  // be applied), or a failed step (LLM injector, after re-asks): "request-failed",
  // "unparseable", "unchanged", "too-large", "earlier-edit". `stop_detail` is the last error.
  std::string stop_reason;
  std::string stop_detail;
  std::size_t rejected_answers = 0;  // LLM answers rejected and re-asked (incl. repaired steps)
  bool failed() const { return !stop_reason.empty() && stop_reason != "not-applicable"; }
};
BuiltSequence build_sequence(std::string_view base, QualityDimension d, std::size_t steps,
                             const InjectionContext& context, std::uint64_t seed);

// The edit that turns token sequence `before` into `after`: the span between their common prefix
// and common suffix (type and description left empty). removed = inserted = 0 when equal.
Edit token_diff(std::span<const std::string> before, std::span<const std::string> after);

// One sequence to build: `steps` errors injected into `base`, choices drawn from `seed`.
struct SequenceSpec {
  std::string_view base;
  std::size_t steps = 0;
  const InjectionContext* context = nullptr;
  std::uint64_t seed = 0;
};

// How sequences are built, one error per step. The rule-based realisation is build_sequence;
// a model-backed one sends the same step of every sequence in one batch. A sequence never
// depends on the other sequences of the call.
class Injector {
 public:
  virtual ~Injector() = default;
  virtual std::string signature() const = 0;  // "rules" for the rule-based injectors
  // out[i] is the sequence of specs[i].
  virtual std::vector<BuiltSequence> build(QualityDimension d,
                                           std::span<const SequenceSpec> specs) = 0;
};
std::unique_ptr<Injector> make_rule_injector();

// The LLM realisation (docs/meta-eval.md): each step asks the model (role `role`) to inject ONE
// error of a type drawn from the step's seed (the dimension's injector_names(); a type the
// model declares not applicable falls back to the next in the seeded order) into the current
// text, with prompt `prompt`, answer {"text", "error"}. An answer is rejected and re-asked (up
// to `max_reasks` times, with the reason) when it does not parse, leaves the text unchanged,
// changes more than `max_edit_share` of the words, or changes words an earlier step produced;
// a step still failing ends its sequence (BuiltSequence::stop_reason). A null `session` is a
// UsageError naming the flags.
struct LlmInjectorOptions {
  std::string role = "perturber";
  int max_reasks = 2;
  double max_edit_share = 0.5;  // of the input's words, counting max(removed, inserted)
  std::string prompt = "bench_inject.v1";
  std::string prompts_dir;  // "": the compiled-in prompts/ directory
};
std::unique_ptr<Injector> make_llm_injector(std::shared_ptr<llm::Session> session,
                                            const LlmInjectorOptions& options = {});
// The instruction the LLM injector gives the model for an error type (throws
// std::invalid_argument for an unknown type).
std::string_view llm_error_instruction(std::string_view type);

// A per-(seed, ids) stream seed (SplitMix64 mixing of the seed and FNV-1a hashes of the ids).
std::uint64_t derive_seed(std::uint64_t seed, std::initializer_list<std::string_view> ids);

struct BenchOptions {
  QualityDimension dimension = QualityDimension::kConsistency;
  std::size_t steps = 8;           // local: errors per sequence; global: the most errors per item
  std::size_t sources = 100;       // tasks used (the first in a seeded order), 0: all
  std::size_t base_reference = 0;  // which reference is edited; the others stay references
  std::uint64_t seed = 0;
  // Global: items per source, with distinct error counts drawn from 0..steps.
  std::size_t per_source = 2;
  std::size_t anchors_per_level = 20;  // consensus anchors sampled per level (0: all)
  double max_spread = 0.0;             // consensus rule for the anchors
};

struct BenchStats {
  std::size_t sources = 0;          // sources that gave a sequence / items
  std::size_t items = 0;            // candidates written
  std::size_t full_length = 0;      // local: sequences that reached `steps` errors
  std::size_t skipped_sources = 0;  // too few references or no editable text
  std::vector<std::pair<std::string, std::size_t>> injector_counts;  // applied edits by type
  std::vector<std::pair<double, std::size_t>> anchors;               // global: anchors per level
  // Steps that failed after re-asks (LLM injector), each ending its sequence early, by reason
  // (BuiltSequence::stop_reason); never skipped silently.
  std::size_t failed_steps = 0;
  std::vector<std::pair<std::string, std::size_t>> step_failures;
  std::size_t inapplicable_stops = 0;  // sequences ended because no error type applied
  std::size_t rejected_answers = 0;    // LLM answers rejected and re-asked
  std::string injector;                // Injector::signature()
  // Global: the anchor judge's counters (AnchorJudge::counters()), e.g. failed comparisons.
  std::vector<std::pair<std::string, std::size_t>> judge_counters;
};

// Task- and candidate-level `meta` objects (JSON text; empty: none) written beside a dataset.
struct TaskMeta {
  std::string task;
  std::vector<std::string> candidates;
};

struct Benchmark {
  Dataset dataset;
  std::vector<TaskMeta> meta;  // parallel to dataset.tasks
  BenchStats stats;
};

// Local benchmark in the task format: one task per source (group "<group>/<dimension>", so
// contrastive metrics draw negatives from other sources only), candidates step0..stepK (K ≤
// steps; fewer when no injector applies) with the human rating "<dimension>": [steps − j], so
// a number of errors has the same rating in every sequence; references = the source task's
// other references.
Benchmark build_local_benchmark(const Dataset& ds, const BenchOptions& options);
// The same with another injector (the two-argument form uses the rule-based one). Sources whose
// sequence has no edit are skipped and the next sources in the seeded order are tried.
Benchmark build_local_benchmark(const Dataset& ds, const BenchOptions& options, Injector& injector);

// Pairwise judge of anchoring: +1 when item a is better than item b in the dimension, −1 when
// worse, 0 when they cannot be told apart. Items index a scoring list given to the judge's
// prepare() step. The offline realisation compares metric scores; an LLM pairwise judge fits
// the same seam.
class AnchorJudge {
 public:
  virtual ~AnchorJudge() = default;
  virtual std::string signature() const = 0;
  // Called once with every text that will be compared (items and anchors) and its task.
  virtual void prepare(const Dataset& ds, std::span<const ItemRef> items) = 0;
  // Announces, after prepare(), every pair compare() will be asked, so a model-backed judge can
  // send them in one batch. Default: nothing.
  virtual void prefetch(std::span<const std::pair<std::size_t, std::size_t>> pairs) { (void)pairs; }
  virtual int compare(std::size_t a, std::size_t b) const = 0;
  // Counters for the report (e.g. comparisons that failed and were counted as ties).
  virtual std::vector<std::pair<std::string, std::size_t>> counters() const { return {}; }
};

// Offline anchoring judge: a registered metric scores every text against its task's
// references; a is better than b when its score is higher.
std::unique_ptr<AnchorJudge> make_metric_anchor_judge(const std::string& metric_spec,
                                                      Engine& engine, unsigned threads = 0);

// LLM anchoring judge (docs/meta-eval.md): the model (role `role`) is asked which of two texts
// is better in the dimension (prompt `prompt`, answer {"better": "A"|"B"|"tie"}), in BOTH
// orders; the verdict is the one both orders agree on, a disagreement (position bias) is a tie.
// A comparison whose either order still fails after `max_reasks` re-asks counts as a tie (0)
// and is counted ("failed" in counters()). Each text is shown with its task's source for
// consistency and relevance. prefetch() sends every announced pair in one batch; other pairs
// are asked lazily by compare() (memoised, thread-safe).
struct LlmAnchorOptions {
  QualityDimension dimension = QualityDimension::kConsistency;
  std::string role = "judge";
  int max_reasks = 2;
  std::string prompt = "bench_anchor_compare.v1";
  std::string prompts_dir;
};
std::unique_ptr<AnchorJudge> make_llm_anchor_judge(std::shared_ptr<llm::Session> session,
                                                   const LlmAnchorOptions& options);

// Level by anchoring: the level ℓ minimising the violations Σ_{k<ℓ} (share of level-k anchors
// the item does not beat) + Σ_{k>ℓ} (share of level-k anchors it does not lose to), ties
// counting half; among equally good levels the lowest middle one.
double anchor_level(std::span<const int> comparisons, std::span<const double> anchor_levels);

// Global benchmark: per source, `per_source` items with different numbers of errors injected
// into the base reference (each error a seeded step of the dimension), each given a level by
// anchoring against consensus candidates of `ds` in the dimension (human rating
// "<dimension>": [level]); candidate meta records the error count, the edits and the votes.
Benchmark build_global_benchmark(const Dataset& ds, const BenchOptions& options,
                                 AnchorJudge& judge);
// The same with another injector (the three-argument form uses the rule-based one).
Benchmark build_global_benchmark(const Dataset& ds, const BenchOptions& options, AnchorJudge& judge,
                                 Injector& injector);

// Writes a dataset in the task format (one JSON task per line), with `meta` when given.
void write_dataset(std::ostream& out, const Dataset& ds, std::span<const TaskMeta> meta = {});

}  // namespace probity::meta
