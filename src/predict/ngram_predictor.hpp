#pragma once
// The offline autoregression mechanism (Xu et al. 2025): PMI(x, y) = log p(y | x) − log p(y) with
// p(y) from an interpolated modified Kneser-Ney n-gram model (predict/ngram_lm.hpp) trained on
// the dataset's own texts (plus an optional user corpus), and p(y | x) from the same model
// adapted to the candidate x by a stem cache (a Kuhn & De Mori 1990 unigram cache, mixed
// linearly with the n-gram model):
//
//   p(w | h, x)     = λ · p_cache(w | h, x) + (1 − λ) · p_KN(w | h)
//   p_cache(w|h,x)  = c_x(s(w)) / |x| · p_KN(w | h) / Σ_{v : s(v) = s(w)} p_KN(v | h)
//
// s(w) is the Porter stem of w (the word itself when stemming is off or w has ≤ 3 characters),
// c_x(s) the number of tokens of x with stem s and |x| the number of tokens of x. The cache
// spreads the candidate's stem frequencies over the word forms of each stem in proportion to the
// n-gram model, so Σ_w p_cache(w | h, x) = 1 over the vocabulary (stems of x that no vocabulary
// word has go to <unk>); </s> gets no cache mass; an empty x leaves the model unadapted.
//
// Cross-fitting over tasks (task t is in fold t mod K): an n-gram model that has seen y gives it
// an in-sample p(y) that no cache can improve on (the held-out λ is then 0 and every PMI 0), and
// p(y) must be the marginal over the domain, not knowing y's task. So the model used for a pair
// (x, y) is trained without the tasks of every fold that contains x or y (text lookup built at
// fit time; one model per fold set, built on first use), and λ is the grid value maximising
// Σ log p(y | x) over the (candidate, own-task target) pairs of the other folds, each pair
// evaluated with the model that excludes its own fold. Pairs unseen at fit time use the model
// and the λ of all tasks. All models share one vocabulary, so word ids and stems agree.
#include <cstddef>
#include <cstdint>
#include <functional>
#include <memory>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <unordered_map>
#include <vector>

#include "predict/ngram_lm.hpp"
#include "probity/mi.hpp"
#include "util/hash.hpp"

namespace probity::predict {

struct NgramPredictorOptions {
  int order = 3;
  std::string cache_weight = "auto";  // "auto" (cross-fitted λ) or a fixed λ in [0, 1)
  bool stem = true;                   // cache over Porter stems (else over word forms)
  // Style normalisation: Unicode lower-casing, sacreBLEU 13a tokenization and no punctuation
  // tokens, instead of the default lower-cased Unicode word split (letters and digits only).
  bool normalize = false;
  std::string corpus;  // optional user corpus, one text per line, added to every model
  int folds = 5;       // K of the cross-fitting (fewer when the dataset has fewer tasks)
};

class NgramPredictor final : public mi::Predictor {
 public:
  // The λ grid of the held-out fit, and the λ used when no held-out pair is left.
  static const std::vector<double>& cache_weight_grid();
  static constexpr double kPriorCacheWeight = 0.1;

  explicit NgramPredictor(NgramPredictorOptions options = {});
  ~NgramPredictor() override;
  NgramPredictor(NgramPredictor&&) noexcept;
  NgramPredictor& operator=(NgramPredictor&&) noexcept;

  std::string signature() const override;
  void fit(std::span<const Task> tasks, bool statement_targets) override;
  // One pass: it keeps the training texts as word ids (identical texts of a fold once, with
  // their number), which the models are built from, and which texts each task has, from which
  // the held-out log-likelihoods that choose λ are computed at its end.
  std::optional<std::size_t> fit_passes() const override { return 1; }
  void begin_fit(bool statement_targets) override;
  void fit_chunk(std::size_t pass, std::span<const Task> tasks) override;
  void end_fit_pass(std::size_t pass) override;
  // A frozen fit: the training texts as word ids, the text -> folds lookup and the cache
  // weights; the models are rebuilt from them on load.
  std::string fit_method() const override;
  std::string save_fit() const override;
  void load_fit(std::string_view state) override;
  std::pair<std::size_t, std::string> fit_minimum() const override;
  double log_ratio(std::string_view x, std::string_view y) const override;
  int critic(std::string_view x, std::string_view y) const override;

  // Both sides of the PMI, natural log, summed over y's tokens and </s>.
  struct Score {
    double log_p_y_given_x = 0;
    double log_p_y = 0;
    double pmi = 0;                    // Σ per token of log p(w | h, x) − log p(w | h)
    double cache_weight = 0;           // the λ used for this pair
    std::uint32_t excluded_folds = 0;  // folds of x and y: left out of the model and of λ
    std::size_t tokens = 0;            // predicted tokens of y, </s> included
  };
  Score score(std::string_view x, std::string_view y) const;

  // p(w | h, x) at weight λ under the model without `excluded_folds` (h: ids, <s> first).
  double adapted_prob(std::string_view x, std::span<const NgramLm::Id> context, NgramLm::Id w,
                      double lambda, std::uint32_t excluded_folds = 0) const;

  // Introspection (tests, reports).
  std::vector<std::string> tokenize(std::string_view text) const;
  NgramLm::Id word_id(std::string_view word) const;  // kUnk when not in the vocabulary
  // Every word by id (the models have the ids only).
  const std::vector<std::string>& vocabulary() const { return words_; }
  // The model trained without the tasks of `excluded_folds` (bit f: fold f), built on first use.
  const NgramLm& model(std::uint32_t excluded_folds) const;
  int num_folds() const { return num_folds_; }
  int fold_of_task(std::size_t task_index) const;
  // Bit f set: the text belongs to a task of fold f (0 when unseen at fit time).
  std::uint32_t fold_mask(std::string_view text) const;
  // λ fitted without the folds of `excluded_folds`; all tasks when 0.
  double cache_weight_without(std::uint32_t excluded_folds) const;
  // Σ log p(y | x) over the (candidate, target) pairs of each task at each grid λ, evaluated
  // with the model that excludes the task's fold (empty for a fixed cache weight).
  const std::vector<std::vector<double>>& task_log_likelihoods() const { return task_ll_; }

 private:
  struct CacheCounts;
  struct ModelCache;
  struct FitState;

  void check_fitted() const;
  void count_texts(std::span<const Task> tasks);
  // Adds a text of `fold` to the training texts; its index there, or kNoTokens.
  std::uint32_t add_training_text(std::string_view text, int fold);
  void build_fold_models();
  // The stem classes, the n-gram table and the fold models from the training texts.
  void build_models();
  void choose_cache_weights();  // from the held-out log-likelihoods of every task
  NgramLm build_model(std::uint32_t excluded_folds) const;
  std::string stem_of(std::string_view token) const;
  void count_cache(std::string_view x, CacheCounts& counts) const;
  void count_cache(std::span<const NgramLm::Id> x, CacheCounts& counts) const;  // a training text
  // c_x(s(w)) / |x| · p_KN(w | h) / p_KN(s(w) | h), given p_w = p_KN(w | h).
  double cache_prob(const NgramLm& lm, const NgramLm::State& state, NgramLm::Id w, double p_w,
                    const CacheCounts& counts) const;

  NgramPredictorOptions options_;
  bool fixed_weight_ = false;
  double fixed_lambda_ = 0;
  std::uint64_t corpus_hash_ = 0;
  bool fitted_ = false;

  // The shared vocabulary and the distinct training texts of each fold as ids (text i is
  // text_ids_[text_begin_[i] .. text_begin_[i + 1]]), in order of first occurrence, with their
  // fold (−1: user corpus) and how often they occur in it.
  std::vector<std::string> words_;
  util::StringMap<NgramLm::Id> word_ids_;
  std::vector<NgramLm::Id> text_ids_;
  std::vector<std::size_t> text_begin_;
  std::vector<int> text_fold_;
  std::vector<std::uint32_t> text_count_;

  // Stem classes: class of each word id (none for <s>, </s>), members of each class (CSR);
  // class 0 is <unk>'s.
  std::vector<std::uint32_t> class_of_;
  std::vector<std::uint32_t> class_begin_;
  std::vector<NgramLm::Id> class_members_;
  util::StringMap<std::uint32_t> class_ids_;

  util::StringMap<std::uint32_t> text_folds_;
  int num_folds_ = 0;
  std::vector<double> lambda_by_mask_;           // index: mask of excluded folds
  std::vector<std::vector<double>> task_ll_;     // [task][grid]
  std::shared_ptr<const NgramLm::Table> table_;  // the n-grams of all texts, for every model
  std::unique_ptr<ModelCache> models_;
  std::unique_ptr<FitState> fit_;  // while fitting
};

}  // namespace probity::predict
