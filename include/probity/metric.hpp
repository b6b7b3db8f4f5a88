#pragma once
// A metric computes per-item sufficient statistics; every score (sentence, corpus, bootstrap
// resample, merged shards) is computed from those statistics, as sacreBLEU does.
#include <cstdint>
#include <functional>
#include <limits>
#include <memory>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "probity/dataset.hpp"
#include "probity/version.hpp"

namespace probity {

// What one item gives a metric. Views stay valid for the duration of the call.
struct MetricInput {
  std::string_view candidate;
  std::vector<std::string_view> references;  // positive references of the task
  std::vector<std::string_view> negatives;   // references of other tasks (contrastive metrics)
  std::string_view source;                   // task input, may be empty
  // Ids of `references` (Reference::id), same order; empty when the caller has none (refs=
  // then finds no reference).
  std::vector<std::string_view> reference_ids = {};
};

enum class CorpusAggregation {
  kSumStats,    // corpus score = score of the summed statistics (BLEU, chrF)
  kMeanScores,  // corpus score = mean of item scores (ROUGE, MI estimators)
};

// What a front end may do with a metric beyond scoring, asked of the metric (Metric::has) rather
// than read from its name or signature, so that wrappers (refs=, style=llm) keep it.
enum class MetricCapability {
  // Item scores are rouge-score's precision, recall and F (parts p, r, f), which
  // `probity score --aggregate bootstrap` resamples as rouge-score's BootstrapAggregator does.
  kRougeBootstrap,
  // Tokenizes as rouge-score's default tokenizer, which keeps only a-z and 0-9: text beyond
  // ASCII loses letters (the warning of `probity score`).
  kAsciiOnlyTokens,
};

// How an LLM judge reaches its verdict (llm-judge,mode=...).
enum class JudgeMode {
  kPointwise,  // one rating of the candidate on the scale
  kPairwise,   // candidate against the task's reference, shown in both orders
  // G-Eval: a rating on the scale, weighted by the top log-probabilities at the rating token or
  // averaged over sampled ratings; its statistics are laid out as a pointwise judge's
  kGeval,
};
std::string_view judge_mode_name(JudgeMode mode);   // "pointwise", "pairwise", "geval"
JudgeMode parse_judge_mode(std::string_view name);  // std::invalid_argument for another name

// Where a judge metric keeps, in its item statistics, what the audit's bias battery reads
// (audit/judge_diagnostics.cpp): the statistics of one item are laid out as described here.
struct JudgeDesign {
  JudgeMode mode = JudgeMode::kPointwise;
  // Pointwise and G-Eval (read alike: a rating per item in stats[0]): the ratings of the `samples`
  // repeated samples are stats[first_sample .. first_sample + samples). Pairwise:
  // stats[candidate_first] and stats[candidate_second] are the candidate's verdicts (1 preferred,
  // 0.5 tie, 0 not) with the candidate shown first and second; each verdict's rating is NaN when it
  // failed.
  std::size_t samples = 1;
  std::size_t first_sample = 0;
  std::size_t candidate_first = 0, candidate_second = 0;
  double scale_lo = 0, scale_hi = 1;
  // The score is a probability-weighted rating (G-Eval from top_logprobs): it moves with every
  // small change of the verdict's probability, which logprob-search climbs.
  bool probability_weighted = false;
};

class Metric {
 public:
  virtual ~Metric() = default;

  // The full command-line name including options, e.g. "rougeL,stem=true".
  virtual std::string name() const = 0;
  // Every choice that affects the value, sacreBLEU style: "key:value|key:value|...".
  virtual std::string signature() const = 0;
  // The name records and tables use when the spec gives no name= ("" : the spec itself), e.g.
  // a scores file's own record name instead of "scores:FILE,data=…".
  virtual std::string default_display_name() const { return {}; }
  // Named parts of a score ("p", "r", "f"); a single-valued metric has one part named "".
  virtual std::vector<std::string> parts() const { return {""}; }
  // Index into parts() of the value used when one number per item is needed.
  virtual std::size_t primary_part() const { return 0; }

  // Number of sufficient statistics per item.
  virtual std::size_t num_stats() const = 0;
  // Dataset-level preparation (IDF tables, language models, calibration). Default: nothing.
  virtual void fit(std::span<const Task> /*tasks*/) {}
  // True when fit() must see the whole dataset before scoring.
  virtual bool needs_fit() const { return false; }
  // Fitting on data read in chunks, so that `probity score` need not hold a large file:
  // begin_fit(), then fit_passes() passes over the same tasks in the same order, each chunk
  // given to fit_chunk(pass, tasks) and each pass closed by end_fit_pass(pass). The result
  // equals fit() on the whole dataset. nullopt (the default when needs_fit()): only fit() on the
  // whole dataset; 0 (the default otherwise): nothing to fit beforehand.
  virtual std::optional<std::size_t> fit_passes() const {
    return needs_fit() ? std::nullopt : std::optional<std::size_t>(0);
  }
  virtual void begin_fit() {}
  virtual void fit_chunk(std::size_t /*pass*/, std::span<const Task> /*tasks*/) {}
  virtual void end_fit_pass(std::size_t /*pass*/) {}
  // Freezing a fit (`probity fit`; the fit=FILE option every metric takes): a metric whose fit
  // can be saved names its method ("idf", "fasttext-skipgram+idf", "ngram-kn-cv5"); "" (the
  // default) when it cannot. save_fit() gives the state fit() left as named byte sections,
  // load_fit() restores it in place of fit(); a section it cannot read is std::invalid_argument.
  virtual std::string fit_method() const { return {}; }
  using FitSections = std::vector<std::pair<std::string, std::string>>;  // (name, bytes)
  virtual FitSections save_fit() const;
  virtual void load_fit(const FitSections& sections);
  // The fewest tasks a frozen fit must see for its state to mean anything, and why.
  struct FitMinimum {
    std::size_t tasks = 1;
    std::string reason;
  };
  virtual FitMinimum fit_minimum() const { return {}; }
  // False for reference-free metrics (length, random, a scores file): they score tasks that
  // have no references. Every other metric needs at least one per task (require_references).
  virtual bool needs_references() const { return true; }
  // Negative references wanted per item by contrastive metrics: one reference from each of
  // `count` distinct other tasks of the same group, sampled with `seed`. Default: none.
  struct NegativeSpec {
    std::size_t count = 0;
    std::uint64_t seed = 0;
    // Draw the first reference with one of these ids (refs=); empty: each task's first.
    std::vector<std::string> reference_ids = {};
  };
  virtual NegativeSpec negatives() const { return {}; }

  // Per-item statistics; must be safe to call concurrently from several threads.
  virtual void item_stats(const MetricInput& input, std::span<double> stats) const = 0;
  // Sentence-level score from one item's statistics. NaN marks an undefined part.
  virtual void sentence_score(std::span<const double> stats, std::span<double> parts) const = 0;
  // Corpus-level score from statistics aggregated per corpus_aggregation().
  virtual void corpus_score(std::span<const double> summed_stats, std::span<double> parts) const {
    sentence_score(summed_stats, parts);
  }
  virtual CorpusAggregation corpus_aggregation() const { return CorpusAggregation::kSumStats; }
  // False for error rates (TER): the audit, attack and select then use the negated primary
  // part, so that "higher is better" holds for every metric they compare.
  virtual bool higher_is_better() const { return true; }
  // Why a NaN part is undefined, for the "error" field of a score record.
  virtual std::string undefined_reason(std::span<const double> /*stats*/) const {
    return "undefined";
  }

  // Model-backed metrics: the number of items compute_stats announces at once through
  // prefetch() before scoring them, so that all their questions go to the server as one batch
  // (in flight up to the client's concurrency, not one item per scoring thread). 0: no batching.
  virtual std::size_t batch_size() const { return 0; }
  // Asks ahead for what item_stats of these inputs will need; must not change any value.
  virtual void prefetch(std::span<const MetricInput> /*inputs*/) const {}

  // Optional explanation of one item's score (what was compared, matched and judged, and why)
  // as a JSON object text, for `probity score --explain`. Default: empty (not supported).
  // Requires fit() like item_stats; must be safe to call concurrently.
  virtual std::string explain(const MetricInput& /*input*/) const { return {}; }

  // How many of the task's references the metric compares a candidate with (the nrefs:N of a
  // corpus signature). Default: all of them.
  virtual std::size_t references_used(const Task& task) const { return task.references.size(); }
  // Whether the metric offers `capability`. Default: none.
  virtual bool has(MetricCapability /*capability*/) const { return false; }
  // The corpus score's components as the metric's reference tool prints them after the score
  // (BLEU: sacreBLEU's "45.2/15.3/6.1/2.5 (BP = 1.000 ratio = 1.050 hyp_len = 2000 ref_len =
  // 1900)"), from summed statistics (CorpusAggregation::kSumStats). Default: "" (none).
  virtual std::string corpus_breakdown(std::span<const double> /*summed_stats*/) const {
    return {};
  }

  // False for a metric that holds scores of fixed texts (a scores file): it cannot score an edited
  // text, so `probity attack` refuses it and the audit's attack says why it is untested.
  virtual bool scores_new_texts() const { return true; }
  // LLM judges: where their item statistics keep each verdict (the audit's judge diagnostics).
  // Default: not a judge.
  virtual std::optional<JudgeDesign> judge_design() const { return std::nullopt; }

  // Convenience: item_stats + sentence_score.
  std::vector<double> score(const MetricInput& input) const;
};

// Streams items' statistics into a corpus score, per the metric's corpus_aggregation(): the
// score of the summed statistics, or the mean of the item scores (an undefined item makes it
// undefined). The one definition behind corpus_score and `probity score`'s chunked summary.
class CorpusAccumulator {
 public:
  explicit CorpusAccumulator(const Metric& metric);
  void add(std::span<const double> item_stats);
  std::size_t count() const { return n_; }
  // NaN parts for a mean over no items.
  std::vector<double> score() const;
  // Metric::corpus_breakdown of the summed statistics ("" for a mean of item scores or none).
  std::string breakdown() const;

 private:
  const Metric* metric_;
  std::vector<double> sum_;    // summed statistics
  std::vector<double> parts_;  // summed item scores
  std::vector<double> item_;   // scratch
  std::size_t n_ = 0;
};

// Corpus score over many items' statistics (row-major, num_stats() per item), optionally over
// a subset of item indices (bootstrap resamples reuse the same statistics).
std::vector<double> corpus_score(const Metric& metric, std::span<const double> all_stats,
                                 std::span<const std::size_t> indices = {});

// One option of a metric family, declared once in the family's table (MetricInfo::options):
// MetricRegistry::create checks every given value against it before the factory runs (a bad
// value is a UsageError, exit 2), the factory reads the value (the default when absent), and
// `probity metrics` (text and --json) and docs/cli.md show it.
struct OptionSpec {
  enum class Type { kBool, kInt, kNumber, kChoice, kText };
  std::string name;
  Type type = Type::kText;
  std::string fallback;  // the default as written; "" when it depends on other options (help)
  std::string help;      // what it does, and when it applies
  std::vector<std::string> choices;                  // kChoice
  double min = -std::numeric_limits<double>::max();  // kInt, kNumber: accepted range
  double max = std::numeric_limits<double>::max();
};
OptionSpec option_bool(std::string name, bool fallback, std::string help);
OptionSpec option_int(std::string name, int fallback, int min, int max, std::string help);
OptionSpec option_number(std::string name, std::string fallback, double min, double max,
                         std::string help);
OptionSpec option_choice(std::string name, std::string fallback, std::vector<std::string> choices,
                         std::string help);
OptionSpec option_text(std::string name, std::string fallback, std::string help);
std::string_view type_name(OptionSpec::Type type);  // "bool", "int", "number", "choice", "text"
// "name=default (choices or range): help", as `probity metrics` prints it.
std::string describe(const OptionSpec& option);
// UsageError naming the metric `spec_text` when `value` is not of the option's type, in its range
// or one of its choices.
void check_option_value(const OptionSpec& option, std::string_view spec_text,
                        const std::string& value);

// A parsed metric name: base[.part][:arg][,key=value]*, e.g. "bleu,tokenize=intl",
// "rougeL.f" or "mi:tv/fvar/statement/oracle,k=8". Parsed once, where the name is read.
class MetricSpec {
 public:
  static MetricSpec parse(std::string_view text);
  // The name as given, without a part: "rougeL,stem=true" for "rougeL.f,stem=true".
  const std::string& text() const { return text_; }
  const std::string& base() const { return base_; }
  // The part selected for output ("f" in "rougeL.f"), empty when none.
  const std::string& part() const { return part_; }
  // The metric this names: the same without the part.
  MetricSpec without_part() const {
    MetricSpec m = *this;
    m.part_.clear();
    return m;
  }
  // The argument after ':' (marked used: a metric that never reads it rejects one).
  const std::string& arg() const {
    arg_used_ = true;
    return arg_;
  }
  // Checks every given option against the family's table (unknown, not of its type, out of
  // range, not a choice: UsageError naming the spec); the one-argument getters then read from
  // it. The table must outlive the spec.
  void bind(const std::vector<OptionSpec>& table);
  // The value of a declared option: as given, else the table's default (marked used).
  std::string get(const std::string& key) const;
  bool get_bool(const std::string& key) const;
  int get_int(const std::string& key) const;
  double get_double(const std::string& key) const;
  // With a default computed by the caller (it depends on other options); values given are
  // checked as above when bound, and numbers against [min, max] too.
  std::string get(const std::string& key, const std::string& fallback) const;
  bool get_bool(const std::string& key, bool fallback) const;
  int get_int(const std::string& key, int fallback, int min = std::numeric_limits<int>::min(),
              int max = std::numeric_limits<int>::max()) const;
  double get_double(const std::string& key, double fallback,
                    double min = -std::numeric_limits<double>::max(),
                    double max = std::numeric_limits<double>::max()) const;
  // Option accessors mark the option used; check_all_used() throws UsageError for an option
  // given but not read (one that does not apply to this configuration) and for an argument
  // nobody read.
  void check_all_used() const;
  const std::vector<std::pair<std::string, std::string>>& options() const { return options_; }
  // The value given for `key` (before any default), or nullptr.
  const std::string* given(const std::string& key) const;
  // The existing files its argument and option values name (a scores file, a corpus, vectors):
  // what a command must not overwrite. Reads nothing and marks nothing used.
  std::vector<std::string> named_files() const;
  // The same spec (same text()) with `key` set to `value`, or without `key`; before bind().
  MetricSpec with_option(const std::string& key, const std::string& value) const;
  MetricSpec without_option(const std::string& key) const;

 private:
  const OptionSpec& declared(const std::string& key) const;

  std::string text_, base_, part_, arg_;
  std::vector<std::pair<std::string, std::string>> options_;
  mutable std::vector<bool> used_;
  mutable bool arg_used_ = false;
  const std::vector<OptionSpec>* table_ = nullptr;
};

namespace llm {
class Session;
// Declared with Session in llm/session.hpp (the llm layer, below the metrics).
std::shared_ptr<Session> require_session(std::shared_ptr<Session> session);
}  // namespace llm
namespace predict {
class PredictorPool;
}

// What a metric factory may use of the run that makes the metric: its LLM session (none when
// offline) and the predictors its metrics share. An Engine gives its own
// (Engine::metric_context()); metrics made with one context share its predictors and session.
struct MetricContext {
  std::shared_ptr<llm::Session> session;               // may be null
  std::shared_ptr<predict::PredictorPool> predictors;  // never null

  // The session; throws UsageError naming the flags when none is connected.
  std::shared_ptr<llm::Session> llm() const { return llm::require_session(session); }
};

// Makes a metric from its parsed name with what the run shares.
using MetricFactory =
    std::function<std::unique_ptr<Metric>(const MetricSpec&, const MetricContext&)>;

struct MetricInfo {
  std::string name;                 // registry key (base name)
  std::string description;          // one line
  std::vector<OptionSpec> options;  // every option the family reads (MetricRegistry::create
                                    // adds the common options every metric takes)
  MetricFactory factory;
};

// The options every metric takes: refs= (reference_selection.cpp), then style=llm, style_llm,
// style_reasks, prompts (style_normalized.cpp).
const std::vector<OptionSpec>& common_options();

class MetricRegistry {
 public:
  // A registry with every built-in metric (each Engine holds one).
  static MetricRegistry builtin();
  void add(MetricInfo info);
  // Throws UsageError for an unknown name or option, or a part (parts select output:
  // select_metric).
  std::unique_ptr<Metric> create(std::string_view spec, const MetricContext& context) const;
  std::unique_ptr<Metric> create(const MetricSpec& spec, const MetricContext& context) const;
  const std::vector<MetricInfo>& list() const { return infos_; }

 private:
  std::vector<MetricInfo> infos_;
};

}  // namespace probity
