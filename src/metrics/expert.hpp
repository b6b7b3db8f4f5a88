#pragma once
// ExPerT (Salemi, Killingback & Zamani 2025; arXiv:2501.14956): aspects with evidence
// are extracted from the reference and the candidate; every aspect is matched to its best
// counterpart in the other text or to none (several aspects may pick the same partner); each
// matched pair gets a binary content and a binary style judgment with a rationale; per-pair
// scores are aggregated by CONTENT, STYLE, AND, OR or AVERAGE; recall is the mean over the
// reference aspects, precision the mean over the candidate aspects, F their harmonic mean (0
// when both are 0).
//
// The four steps (extract, match, content, style) are an interface: the offline realisation
// below uses the rule-based statement decomposition, the lexical-semantic support judge and a
// stylometric profile; the LLM realisation (expert_llm.hpp, `expert,llm=<role>`) asks a model
// through versioned prompts and reports its model calls.
#include <array>
#include <cstddef>
#include <cstdint>
#include <memory>
#include <mutex>
#include <optional>
#include <span>
#include <stdexcept>
#include <string>
#include <string_view>
#include <unordered_map>
#include <vector>

#include "predict/pool.hpp"
#include "predict/support_judge.hpp"
#include "probity/metric.hpp"

namespace probity::llm {
class Session;
}

namespace probity::metrics::expert {

// Lower-case alphanumeric words ("Sterling's" -> "sterling", "s"); shared by both judges.
std::vector<std::string> words_of(std::string_view s);
// The first `max` whitespace-separated words, as ExPerT truncates without a tokenizer.
std::string truncate_words(std::string_view text, std::size_t max);

// The per-pair aggregations, in the paper's order; the paper's headline is kAverage.
enum class Aggregation { kContent, kStyle, kAnd, kOr, kAverage };
constexpr std::size_t kAggregations = 5;
Aggregation parse_aggregation(std::string_view name);  // content|style|and|or|average
std::string_view aggregation_name(Aggregation a);
// Score of one matched pair under an aggregation; an unmatched aspect scores 0.
double aggregate(Aggregation a, bool content, bool style);

struct Aspect {
  std::string title;     // the atomic claim
  std::string evidence;  // the sentence of the text it comes from
  std::size_t sentence = 0;
};

struct Judgment {
  bool value = false;
  std::string rationale;
};

struct MatchDecision {
  std::optional<std::size_t> partner;  // index into the other text's aspects, or none
  double score = 0.0;                  // the best partner's match score
  std::string rationale;
};

// A step that a model-backed judge could not take: the model's answer failed or stayed
// unparseable after re-asking. analyze() records it and the item's score is undefined; a failed
// step never becomes a default value (no aspects, no match, not aligned).
class StepFailure : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

// The steps of ExPerT. Implementations are thread-safe after fit(). A step may throw
// StepFailure. A model-backed judge sends no request for a blank text (no aspects) or an empty
// list of partners (no match); analyze() does not count those steps as model calls.
class AspectJudge {
 public:
  virtual ~AspectJudge() = default;
  virtual std::string signature() const = 0;
  virtual void fit(std::span<const Task> tasks) = 0;
  virtual std::vector<Aspect> extract(std::string_view text) const = 0;
  virtual MatchDecision match(const Aspect& aspect, std::span<const Aspect> others) const = 0;
  virtual Judgment content(const Aspect& a, const Aspect& b) const = 0;
  virtual Judgment style(const Aspect& a, const Aspect& b) const = 0;
  // True when every step is a model call; the offline judge makes none.
  virtual bool model_backed() const = 0;
  // How many analyses may usefully run at once (a model-backed judge: its client's concurrency);
  // ExpertMetric::prefetch runs a chunk of items' analyses on that many threads.
  virtual std::size_t parallelism() const { return 1; }
};

// ---- offline realisation
// --------------------------------------------------------------------------

// A stylometric profile of a piece of evidence.
struct StyleProfile {
  double words_per_sentence = 0.0;
  std::vector<double> function_words;    // distribution over a fixed function-word list
  std::vector<double> punctuation;       // distribution over punctuation types + "none" per word
  std::vector<double> register_markers;  // each in [0, 1]: tokenised, lower-case, contractions,
                                         // first/second person, digits
};
StyleProfile style_profile(std::string_view text);

struct StyleDistance {
  double total = 0.0;  // mean of the four components, in [0, 1]
  double length = 0.0, function_words = 0.0, punctuation = 0.0, register_markers = 0.0;
};
StyleDistance style_distance(const StyleProfile& a, const StyleProfile& b);

struct LexicalJudgeOptions {
  std::uint64_t seed = 0;          // calibration samples (support judge and style threshold)
  std::size_t max_words = 512;     // texts are truncated to this many words, as ExPerT does
  std::size_t style_pairs = 2000;  // cap on each style calibration sample
};

struct StyleCalibration {
  bool fitted = false;
  std::size_t matched_pairs = 0, mismatched_pairs = 0;
  double threshold = 0.5;  // style aligned iff distance ≤ threshold
  double balanced_accuracy = 0.5;
  double matched_mean = 0.0, mismatched_mean = 0.0;
};

// Aspects: the rule-based statement decomposition Ψ(text); evidence: the sentence each came
// from. Matching: the partner whose evidence best supports the aspect (support judge score),
// none when that is below the judge's calibrated critic threshold. Content: the judge's critic
// says yes in both directions between the two evidence sentences. Style: the stylometric
// distance of the two evidence sentences is at most a threshold calibrated in fit() on pairs of
// sentences of the same text (matched) against sentences of a candidate and of another task's
// reference (mismatched), maximising balanced accuracy.
class LexicalAspectJudge final : public AspectJudge {
 public:
  // `pool`, when given, fits the support judge once per dataset for every metric sharing it.
  LexicalAspectJudge(LexicalJudgeOptions options, std::shared_ptr<predict::SupportJudge> judge,
                     std::shared_ptr<predict::PredictorPool> pool = nullptr);

  std::string signature() const override;
  void fit(std::span<const Task> tasks) override;
  std::vector<Aspect> extract(std::string_view text) const override;
  MatchDecision match(const Aspect& aspect, std::span<const Aspect> others) const override;
  Judgment content(const Aspect& a, const Aspect& b) const override;
  Judgment style(const Aspect& a, const Aspect& b) const override;
  bool model_backed() const override { return false; }

  // For tests: a judge whose thresholds are set directly (no dataset).
  void set_thresholds(double support_threshold, double style_threshold);
  double support_threshold() const;
  const StyleCalibration& style_calibration() const { return style_; }

 private:
  LexicalJudgeOptions options_;
  std::shared_ptr<predict::SupportJudge> judge_;
  std::weak_ptr<predict::PredictorPool> pool_;  // weak: the pool holds this judge
  std::optional<double> support_threshold_;     // overrides the judge's calibration (tests)
  StyleCalibration style_;
};

// ---- LLM realisation (expert_llm.cpp)
// ---------------------------------------------------------------------

struct LlmJudgeOptions {
  std::string role = "judge";   // configuration role of the endpoint
  int reasks = 2;               // re-asks of an unparseable answer, then the step fails
  std::string prompts_dir;      // "" = the compiled-in prompts/ directory
  std::size_t max_words = 512;  // texts are truncated to this many words, as ExPerT does
};

// The paper's four prompted steps on the session's client for `role` (UsageError when the role
// has no endpoint or a prompt template is missing). See expert_llm.hpp.
std::shared_ptr<AspectJudge> make_llm_aspect_judge(LlmJudgeOptions options,
                                                   std::shared_ptr<llm::Session> session);

// ---- scoring
// --------------------------------------------------------------------------------------

struct PairResult {
  std::size_t aspect = 0;
  MatchDecision match;
  Judgment content, style;  // meaningful only when matched
};

// One candidate against one reference.
struct Analysis {
  std::vector<Aspect> reference_aspects, candidate_aspects;
  std::vector<PairResult> recall_side;     // one per reference aspect
  std::vector<PairResult> precision_side;  // one per candidate aspect
  std::array<double, kAggregations> recall{}, precision{}, f{};
  std::size_t steps = 0;        // judgments made: extractions + matchings + 2 per matched pair
  std::size_t model_calls = 0;  // steps that were model calls (0 offline; re-asks not included)
  // A step that failed (StepFailure) ends the analysis there: the sides hold the pairs completed
  // before it, recall, precision and F are NaN, and `failure` names the step and the error.
  std::size_t failed_steps = 0;
  std::string failure;
};

Analysis analyze(const AspectJudge& judge, std::string_view candidate, std::string_view reference);

// Analyses shared by every ExPerT metric built on the same judge (the five aggregations are one
// computation), invalidated when the judge is fitted on other data.
struct AnalysisCache {
  std::mutex mutex;
  std::uint64_t fitted_on = 0;
  bool fitted = false;
  std::unordered_map<std::uint64_t, std::shared_ptr<const Analysis>> entries;
};

struct ExpertConfig {
  Aggregation aggregation = Aggregation::kAverage;
  bool all_references = false;  // mean over every reference instead of the first
  std::string name = "expert";
};

// The metric: parts p, r, f (primary f); statistics are (p, r, f, model calls, failed steps) of
// the item, so the corpus score is the mean of item scores; an item with a failed step is
// undefined (NaN, with its reason). Analyses are cached per (judge, candidate, reference) and
// shared by the five aggregation variants.
class ExpertMetric final : public Metric {
 public:
  ExpertMetric(ExpertConfig config, std::shared_ptr<AspectJudge> judge,
               std::shared_ptr<AnalysisCache> cache = nullptr);

  std::string name() const override { return config_.name; }
  std::string signature() const override;
  std::vector<std::string> parts() const override { return {"p", "r", "f"}; }
  std::size_t primary_part() const override { return 2; }
  std::size_t num_stats() const override { return 5; }
  bool needs_fit() const override { return true; }
  void fit(std::span<const Task> tasks) override;
  void item_stats(const MetricInput& input, std::span<double> stats) const override;
  void sentence_score(std::span<const double> stats, std::span<double> parts) const override;
  CorpusAggregation corpus_aggregation() const override { return CorpusAggregation::kMeanScores; }
  std::string undefined_reason(std::span<const double> stats) const override;
  // Model-backed judge: a chunk of items is analysed ahead on judge->parallelism() threads, so
  // that many requests are in flight whatever the number of scoring threads (offline: none).
  std::size_t batch_size() const override { return judge_->model_backed() ? 256 : 0; }
  void prefetch(std::span<const MetricInput> inputs) const override;
  std::string explain(const MetricInput& input) const override;

  std::shared_ptr<const Analysis> analysis(std::string_view candidate,
                                           std::string_view reference) const;

 private:
  std::vector<std::string_view> references(const MetricInput& input) const;

  ExpertConfig config_;
  std::shared_ptr<AspectJudge> judge_;
  std::shared_ptr<AnalysisCache> cache_;
};

}  // namespace probity::metrics::expert
