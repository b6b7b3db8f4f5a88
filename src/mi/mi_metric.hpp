#pragma once
// An MI metric: one cell (F, E, R, Π) of the design space as a probity Metric.
#include <cstdint>
#include <deque>
#include <functional>
#include <memory>
#include <mutex>
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
  bool binary_critic() const;
  // Targets of a reference under the representation: its statements, or the whole text.
  const std::vector<std::string>& targets(std::string_view reference,
                                          std::vector<std::string>& scratch) const;
  void score_item(const MetricInput& input, std::span<double> stats) const;
  std::size_t positives(const MetricInput& input) const;  // references used as positives
  // The (x, targets) groups an item's score needs; `scratch` owns decompositions made here.
  void add_groups(const MetricInput& input, std::vector<TargetGroup>& groups,
                  std::deque<std::vector<std::string>>& scratch) const;
  // Announces every (x, target) pair of an item to the predictor in one call.
  void prefetch(const MetricInput& input) const;
  // Critic T(x, y) aggregated over y's targets (mean), for the f-variational estimator.
  double critic(std::string_view x, std::string_view y) const;
  // Direct sample score for (x, y), aggregated over y's targets (mean).
  double direct(std::string_view x, std::string_view y) const;

  MiConfig config_;
  std::shared_ptr<Predictor> predictor_;
  std::shared_ptr<predict::PredictorPool> pool_;
  // Statement decompositions of the dataset's references, computed once in fit(), and the
  // references whose decomposition failed (with why).
  std::unordered_map<std::string, std::vector<std::string>> statements_;
  std::unordered_map<std::string, std::string> failed_;
};

// The predictor a cell's options configure (ar: order, cache, stem, normalize, corpus, folds,
// predictor, llm, prompt_logprobs; oracle: calib_seed, predictor, llm, batch, reasks); UsageError
// for the exact mechanism, which has no data of its own.
predict::PredictorConfig predictor_config(Mechanism mechanism, Representation representation,
                                          const MetricSpec& spec);

}  // namespace probity::mi
