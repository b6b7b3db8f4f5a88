#include "mi/mi_metric.hpp"

#include <fmt/format.h>

#include <cmath>
#include <map>
#include <unordered_set>

#include "probity/signature.hpp"
#include "probity/text.hpp"
#include "util/hash.hpp"

namespace probity::mi {

MiMetric::MiMetric(MiConfig config, std::shared_ptr<Predictor> predictor,
                   std::shared_ptr<predict::PredictorPool> pool)
    : config_(std::move(config)), predictor_(std::move(predictor)), pool_(std::move(pool)) {
  if (!config_.decomposer) config_.decomposer = rule_decomposer();
}

bool MiMetric::binary_critic() const {
  switch (config_.critic_style) {
    case MiConfig::CriticStyle::kBinary:
      return true;
    case MiConfig::CriticStyle::kOrdinal:
      return false;
    case MiConfig::CriticStyle::kAuto:
      return config_.measure == Measure::kTV && config_.mechanism != Mechanism::kAutoregression;
  }
  return false;
}

std::string MiMetric::signature() const {
  Signature s(fmt::format(
      "mi:{}/{}/{}/{}", measure_name(config_.measure), estimator_name(config_.estimator),
      representation_name(config_.representation), mechanism_name(config_.mechanism)));
  s.field("refs", config_.all_references ? "all" : "first");
  if (config_.estimator == Estimator::kVariational) {
    s.field("neg", config_.negatives)
        .field("seed", config_.seed)
        .field("critic", binary_critic() ? "binary" : "ordinal");
  }
  if (config_.representation == Representation::kStatement)
    s.field("stmt", config_.decomposer->signature()).field("agg", "mean");
  s.part(predictor_->signature());
  return s.versioned();
}

void MiMetric::fit(std::span<const Task> tasks) {
  const bool stmt = config_.representation == Representation::kStatement;
  if (stmt) {
    // Every reference at once: a model-backed decomposer asks for all of them in one batch.
    std::vector<std::string> texts;
    std::unordered_set<std::string_view> seen;
    for (const auto& t : tasks)
      for (const auto& r : t.references)
        if (!statements_.count(r.text) && !failed_.count(r.text) && seen.insert(r.text).second)
          texts.push_back(r.text);
    auto results = config_.decomposer->decompose(texts);
    for (std::size_t i = 0; i < texts.size(); ++i) {
      if (results[i].error.empty())
        statements_.emplace(texts[i], std::move(results[i].statements));
      else
        failed_.emplace(texts[i], std::move(results[i].error));
    }
  }
  if (pool_)
    pool_->fit(*predictor_, tasks, stmt);
  else
    predictor_->fit(tasks, stmt);
}

Metric::NegativeSpec MiMetric::negatives() const {
  if (config_.estimator != Estimator::kVariational) return {};
  return {config_.negatives, config_.seed};
}

const std::vector<std::string>& MiMetric::targets(std::string_view reference,
                                                  std::vector<std::string>& scratch) const {
  if (config_.representation == Representation::kStatement) {
    const std::string key(reference);
    auto it = statements_.find(key);
    if (it != statements_.end()) return it->second;
    auto failed = failed_.find(key);
    if (failed != failed_.end())
      throw PredictionError("the statement decomposition of a reference failed: " + failed->second);
    // A reference fit() did not see (a dataset scored without fitting).
    auto result = config_.decomposer->decompose(std::span<const std::string>(&key, 1));
    if (!result[0].error.empty())
      throw PredictionError("the statement decomposition of a reference failed: " +
                            result[0].error);
    scratch = std::move(result[0].statements);
    return scratch;
  }
  scratch.assign(1, std::string(reference));
  return scratch;
}

double MiMetric::critic(std::string_view x, std::string_view y) const {
  std::vector<std::string> scratch;
  const auto& ts = targets(y, scratch);
  double sum = 0;
  for (const auto& t : ts) {
    if (binary_critic()) {
      sum += 0.5 * predictor_->critic(x, t);  // yes/no → ±½ (SPEC §4.4)
    } else {
      sum += optimal_critic(config_.measure, std::exp(predictor_->log_ratio(x, t)));
    }
  }
  return sum / static_cast<double>(ts.size());
}

double MiMetric::direct(std::string_view x, std::string_view y) const {
  std::vector<std::string> scratch;
  const auto& ts = targets(y, scratch);
  double sum = 0;
  for (const auto& t : ts) sum += direct_score(config_.measure, predictor_->log_ratio(x, t));
  return sum / static_cast<double>(ts.size());
}

std::size_t MiMetric::positives(const MetricInput& input) const {
  return config_.all_references ? input.references.size()
                                : std::min<std::size_t>(1, input.references.size());
}

void MiMetric::add_groups(const MetricInput& input, std::vector<TargetGroup>& groups,
                          std::deque<std::vector<std::string>>& scratch) const {
  auto add = [&](std::string_view y) {
    TargetGroup g{input.candidate, {}};
    try {
      for (const auto& t : targets(y, scratch.emplace_back())) g.targets.emplace_back(t);
    } catch (const PredictionError&) {
      return;  // nothing to ask: the item is undefined when it is scored
    }
    groups.push_back(std::move(g));
  };
  const std::size_t n_pos = positives(input);
  for (std::size_t p = 0; p < n_pos; ++p) add(input.references[p]);
  if (config_.estimator == Estimator::kVariational)
    for (auto y : input.negatives) add(y);
}

void MiMetric::prefetch(const MetricInput& input) const {
  prefetch(std::span<const MetricInput>(&input, 1));
}

void MiMetric::prefetch(std::span<const MetricInput> inputs) const {
  std::deque<std::vector<std::string>> scratch;  // owns decompositions the views point into
  std::vector<TargetGroup> groups;
  for (const auto& input : inputs) add_groups(input, groups, scratch);
  const bool variational = config_.estimator == Estimator::kVariational;
  predictor_->prefetch(groups, variational && binary_critic());
}

void MiMetric::item_stats(const MetricInput& input, std::span<double> stats) const {
  if (stats.size() > 1) stats[1] = 0;
  if (stats.size() > 2) stats[2] = 0;
  try {
    score_item(input, stats);
  } catch (const PredictionError&) {
    // Counted by the predictor with its reason; the item has no value rather than a default.
    stats[0] = std::nan("");
    if (stats.size() > 1) stats[1] = 1;
  }
}

void MiMetric::score_item(const MetricInput& raw, std::span<double> stats) const {
  // An empty reference shares information with nothing: the item is undefined. As a negative
  // it is left out (a contrast with nothing says nothing).
  MetricInput input = raw;
  std::erase_if(input.negatives, [](std::string_view y) { return text::is_blank(y); });
  const std::size_t n_pos = positives(input);
  bool empty_reference = false;
  for (std::size_t p = 0; p < n_pos; ++p) empty_reference |= text::is_blank(input.references[p]);
  if (n_pos == 0 || empty_reference ||
      (config_.estimator == Estimator::kVariational && input.negatives.empty())) {
    stats[0] = std::nan("");
    if (stats.size() > 2) stats[2] = empty_reference ? 1 : 0;
    return;
  }
  prefetch(input);
  double total = 0;
  if (config_.estimator == Estimator::kDirect) {
    for (std::size_t p = 0; p < n_pos; ++p) total += direct(input.candidate, input.references[p]);
  } else {
    // Ŝ = mean over positives of the f-variational score against the item's negatives.
    std::vector<double> negatives;
    negatives.reserve(input.negatives.size());
    for (auto y : input.negatives) negatives.push_back(critic(input.candidate, y));
    for (std::size_t p = 0; p < n_pos; ++p)
      total += variational_score(config_.measure, critic(input.candidate, input.references[p]),
                                 negatives);
  }
  stats[0] = total / static_cast<double>(n_pos);
}

std::string MiMetric::undefined_reason(std::span<const double> stats) const {
  if (stats.size() > 2 && stats[2] > 0)
    return "the reference is empty: there is no information to share with it";
  if (stats.size() > 1 && stats[1] > 0)
    return "the predictor or the statement decomposition failed on this item (an LLM answer "
           "that failed or stayed unparseable after re-asking; counted in the LLM usage)";
  if (config_.estimator == Estimator::kVariational)
    return "no negative reference: the task's group has no other task";
  return "no reference";
}

}  // namespace probity::mi
