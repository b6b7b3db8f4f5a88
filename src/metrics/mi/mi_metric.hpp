#pragma once
// An MI metric: one cell (F, E, R, Π) of the design space as a probity Metric.
#include <cstdint>
#include <functional>
#include <memory>
#include <mutex>
#include <optional>
#include <string>
#include <unordered_map>
#include <vector>

#include "predict/pool.hpp"
#include "probity/metric.hpp"
#include "probity/mi.hpp"

namespace probity::mi {

struct MiConfig {
  Measure measure = Measure::kKL;
  Estimator estimator = Estimator::kDirect;
  Representation representation = Representation::kToken;
  Mechanism mechanism = Mechanism::kAutoregression;
  std::size_t negatives = 4;    // f-variational: negative references per item
  std::uint64_t seed = 0;       // negative sampling
  bool all_references = false;  // positives: every reference (mean) instead of the first
  // Oracle critic style for f-variational cells: the binary yes/no answer (TV: ±½), or the
  // ordinal likelihood judgment through the optimal critic T*(r̂). Default: binary for TV.
  enum class CriticStyle { kAuto, kBinary, kOrdinal } critic_style = CriticStyle::kAuto;
  std::string name;  // command-line name, e.g. "mi:tv/fvar/statement/oracle" or "stmt-tv"
  // Statement decomposition Ψ(y); null: the rule-based decompose_statements.
  std::shared_ptr<const Decomposer> decomposer;
};

class MiMetric final : public Metric {
 public:
  // `pool`, when given, fits the predictor once per dataset for every metric sharing it.
  MiMetric(MiConfig config, std::shared_ptr<Predictor> predictor,
           std::shared_ptr<predict::PredictorPool> pool = nullptr);

  std::string name() const override { return config_.name; }
  std::string signature() const override;
  // The score, 1 when the predictor or decomposer failed on the item, 1 when its reference is
  // empty (both undefined, for different reasons).
  std::size_t num_stats() const override { return 3; }
  bool needs_fit() const override { return true; }
  void fit(std::span<const Task> tasks) override;
  // The predictor's passes (pass 0 also decomposes references with a model-backed Ψ); nullopt
  // when the predictor fits only on the whole dataset.
  std::optional<std::size_t> fit_passes() const override;
  void begin_fit() override;
  void fit_chunk(std::size_t pass, std::span<const Task> tasks) override;
  void end_fit_pass(std::size_t pass) override;
  // Frozen fits: the predictor's (the n-gram model); not with a model-backed Ψ, whose
  // decompositions fit() makes.
  std::string fit_method() const override;
  FitSections save_fit() const override;
  void load_fit(const FitSections& sections) override;
  FitMinimum fit_minimum() const override;
  NegativeSpec negatives() const override;
  void item_stats(const MetricInput& input, std::span<double> stats) const override;
  void sentence_score(std::span<const double> stats, std::span<double> parts) const override {
    parts[0] = stats[0];
  }
  CorpusAggregation corpus_aggregation() const override { return CorpusAggregation::kMeanScores; }
  std::string undefined_reason(std::span<const double> stats) const override;
  // A model-backed (fallible) predictor gets 256 items' questions at once.
  std::size_t batch_size() const override { return predictor_->fallible() ? 256 : 0; }
  bool fallible() const { return predictor_->fallible() || config_.decomposer->fallible(); }
  void prefetch(std::span<const MetricInput> inputs) const override;

  const MiConfig& config() const { return config_; }

 private:
  using Statements = std::shared_ptr<const std::vector<std::string>>;
  bool binary_critic() const;
  bool statement_targets() const { return config_.representation == Representation::kStatement; }
  // A model-backed Ψ decomposes the references the metric uses (the first of each task, or all
  // with refs=all) in fit(), one batch per call; the rules are applied when a reference is scored
  // (memoised per thread), so nothing is kept per reference.
  bool decomposes_in_fit() const { return statement_targets() && config_.decomposer->fallible(); }
  void decompose_references(std::span<const Task> tasks);
  // The statements of a reference (PredictionError when its decomposition failed).
  Statements statements(std::string_view reference) const;
  // Calls f(target) for each target of reference y under the representation (its statements,
  // or y whole) and returns how many there were.
  template <class F>
  std::size_t for_each_target(std::string_view y, F&& f) const;
  void score_item(const MetricInput& input, std::span<double> stats) const;
  std::size_t positives(const MetricInput& input) const;  // references used as positives
  // The (x, targets) groups an item's score needs; `held` keeps the decompositions they view.
  void add_groups(const MetricInput& input, std::vector<TargetGroup>& groups,
                  std::vector<Statements>& held) const;
  // Critic T(x, y) aggregated over y's targets (mean), for the f-variational estimator.
  double critic(std::string_view x, std::string_view y) const;
  // Direct sample score for (x, y), aggregated over y's targets (mean).
  double direct(std::string_view x, std::string_view y) const;

  MiConfig config_;
  std::shared_ptr<Predictor> predictor_;
  std::shared_ptr<predict::PredictorPool> pool_;
  // Statement decompositions of the dataset's references by a model-backed Ψ, made in fit(),
  // and the references whose decomposition failed (with why).
  std::unordered_map<std::string, Statements> statements_;
  std::unordered_map<std::string, std::string> failed_;
  // Streaming fit: whether this metric drives its predictor's fit (PredictorPool::begin_fit),
  // and the predictor's passes.
  bool drives_fit_ = false;
  std::size_t predictor_passes_ = 0;
};

// The predictor a cell's options configure (ar: order, cache, stem, normalize, corpus, folds,
// predictor, llm, prompt_logprobs; oracle: calib_seed, predictor, llm, batch, reasks); UsageError
// for the exact mechanism, which has no data of its own.
predict::PredictorConfig predictor_config(Mechanism mechanism, Representation representation,
                                          const MetricSpec& spec);

}  // namespace probity::mi
