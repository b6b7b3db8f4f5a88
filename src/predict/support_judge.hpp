#pragma once
// The offline stand-in for the LLM oracle (Xu et al. 2025, §4): a lexical-semantic support judge.
//
// Support score s(x, ψ) ∈ [0, 1] of a statement ψ by a candidate x: the IDF-weighted share of
// ψ's content words found in x, with credit 1.0 for the same word, 0.9 for the same NLTK Porter
// stem, 0.75 for a shared WordNet synset (any part of speech; each word's 4 most frequent senses
// per part of speech), 0 otherwise. A number must match exactly (digits and spelled-out "two" ..
// "ninety" alike); one that x contradicts (x states other numbers) halves the score. Scores are
// taken against x's best-matching sentence and against x as a whole (max of the sentence score
// and 0.8 × the whole-text score); a polarity clash with the best sentence (a matched word
// within three tokens after a negator on one side only, or a WordNet antonym of an unmatched ψ
// word in it, but not both) multiplies the score by 0.3.
//
// Report level ("same item?"): the score of a whole text y by x is the IDF-mass-weighted mean of
// the support of y's sentences, symmetrised as ½(s(x, y) + s(y, x)).
//
// fit() computes IDF over the dataset's texts (sources, references and candidates as
// documents) and calibrates on matched pairs (a candidate and its own task's first reference, or
// that reference's statements) against mismatched ones (a reference or statement of another
// task, drawn with the seed from the same group when possible); human ratings are never read.
// The critic threshold maximises balanced accuracy between the two samples; the 7-level ordinal
// judgment is the level k ∈ {−3..3} whose 2^k is nearest (in log space) to the likelihood ratio
// p(s | matched) / p(s | mismatched), estimated from a smoothed equal-mass histogram made
// monotone by pooled-adjacent-violators.
#include <cstddef>
#include <cstdint>
#include <memory>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <unordered_map>
#include <vector>

#include "probity/dataset.hpp"
#include "probity/mi.hpp"

namespace probity::predict {

struct SupportJudgeOptions {
  std::uint64_t seed = 0;
  std::size_t max_pairs = 4000;  // cap on each calibration sample (matched, mismatched)
  std::size_t bins = 20;         // equal-mass score bins of the likelihood-ratio histogram
};

// What fit() learned, for reports: sample sizes, the critic threshold and the ordinal mapping.
struct JudgeCalibration {
  bool fitted = false;
  bool statement_targets = true;
  std::uint64_t seed = 0;
  std::size_t documents = 0;  // IDF documents
  std::size_t matched_pairs = 0;
  std::size_t mismatched_pairs = 0;
  double threshold = 0.0;          // critic: +1 iff s ≥ threshold
  double balanced_accuracy = 0.0;  // of the critic on the calibration samples
  double matched_mean_score = 0.0;
  double mismatched_mean_score = 0.0;
  double matched_mean_level = 0.0;
  double mismatched_mean_level = 0.0;
  // Histogram bin b holds scores in [bin_lower[b], bin_lower[b+1]); the first bin (lower 0)
  // also takes anything below, the last anything above.
  std::vector<double> bin_lower;
  std::vector<double> bin_log2_ratio;  // monotone log2 p(s|matched)/p(s|mismatched)
  std::vector<int> bin_level;          // round(log2 ratio) clamped to −3..3
};

class SupportJudge final : public mi::Predictor {
 public:
  explicit SupportJudge(SupportJudgeOptions options = {});
  ~SupportJudge() override;
  SupportJudge(SupportJudge&&) noexcept;
  SupportJudge& operator=(SupportJudge&&) noexcept;

  std::string signature() const override;
  void fit(std::span<const Task> tasks, bool statement_targets) override;
  // Pass 0 counts document frequencies and, per task, what the calibration sample is drawn
  // from (group, number of targets and of candidates with text); the sample is then drawn and
  // pass 1 collects only its texts (at most 2 · max_pairs targets and max_pairs candidates).
  std::optional<std::size_t> fit_passes() const override { return 2; }
  void begin_fit(bool statement_targets) override;
  void fit_chunk(std::size_t pass, std::span<const Task> tasks) override;
  void end_fit_pass(std::size_t pass) override;
  // level(x, y) · ln 2. Requires fit().
  double log_ratio(std::string_view x, std::string_view y) const override;
  // +1 when score(x, y) ≥ the calibrated threshold, else −1. Requires fit().
  int critic(std::string_view x, std::string_view y) const override;

  // s(x, ψ): support of one statement by x. Usable before fit() (uniform word weights).
  double support(std::string_view x, std::string_view statement) const;
  // ½(s(x, y) + s(y, x)) for whole texts.
  double same_item(std::string_view x, std::string_view y) const;
  // support() or same_item(), by the granularity fit() was called with.
  double score(std::string_view x, std::string_view y) const;
  // Ordinal level k ∈ {−3..3} (likelihood ratio 2^k). Requires fit().
  int level(std::string_view x, std::string_view y) const;
  int level_of_score(double s) const;
  int critic_of_score(double s) const;

  const JudgeCalibration& calibration() const { return calibration_; }

  // Smoothed IDF of a word (by its Porter stem); the unseen-word value for unknown words.
  double idf(std::string_view word) const;

 private:
  struct FitState;
  double weight(std::uint64_t stem) const;
  void require_fit() const;
  void count_documents(std::span<const Task> tasks);  // pass 0
  void draw_sample();                                 // end of pass 0
  void collect_sample(std::span<const Task> tasks);   // pass 1
  void calibrate();                                   // end of pass 1

  SupportJudgeOptions options_;
  bool statement_targets_ = true;
  std::unordered_map<std::uint64_t, double> idf_;  // Porter-stem hash → idf
  double unseen_idf_ = 1.0;
  JudgeCalibration calibration_;
  std::unique_ptr<FitState> fit_;  // while fitting
};

}  // namespace probity::predict
