// The implementation of probity/metric.hpp's Metric helpers: item scores and corpus scores
// from sufficient statistics.
#include "probity/metric.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <stdexcept>

namespace probity {

Metric::FitSections Metric::save_fit() const {
  throw std::logic_error(fmt::format("metric '{}': its fit cannot be saved", name()));
}

void Metric::load_fit(const FitSections& /*sections*/) {
  throw std::logic_error(fmt::format("metric '{}': its fit cannot be loaded", name()));
}

std::vector<double> Metric::score(const MetricInput& input) const {
  std::vector<double> stats(num_stats());
  item_stats(input, stats);
  std::vector<double> out(parts().size());
  sentence_score(stats, out);
  return out;
}

CorpusAccumulator::CorpusAccumulator(const Metric& metric)
    : metric_(&metric),
      sum_(metric.num_stats(), 0.0),
      parts_(metric.parts().size(), 0.0),
      item_(metric.parts().size(), 0.0) {}

void CorpusAccumulator::add(std::span<const double> item_stats) {
  ++n_;
  if (metric_->corpus_aggregation() == CorpusAggregation::kSumStats) {
    for (std::size_t j = 0; j < sum_.size(); ++j) sum_[j] += item_stats[j];
    return;
  }
  std::fill(item_.begin(), item_.end(), 0.0);
  metric_->sentence_score(item_stats, item_);
  for (std::size_t j = 0; j < parts_.size(); ++j) parts_[j] += item_[j];
}

std::vector<double> CorpusAccumulator::score() const {
  std::vector<double> parts(parts_.size(), 0.0);
  if (metric_->corpus_aggregation() == CorpusAggregation::kSumStats) {
    metric_->corpus_score(sum_, parts);
    return parts;
  }
  for (std::size_t j = 0; j < parts.size(); ++j)
    parts[j] = n_ == 0 ? std::nan("") : parts_[j] / static_cast<double>(n_);
  return parts;
}

std::string CorpusAccumulator::breakdown() const {
  if (n_ == 0 || metric_->corpus_aggregation() != CorpusAggregation::kSumStats) return {};
  return metric_->corpus_breakdown(sum_);
}

std::vector<double> corpus_score(const Metric& metric, std::span<const double> all_stats,
                                 std::span<const std::size_t> indices) {
  const std::size_t k = metric.num_stats();
  const std::size_t n_items = k == 0 ? 0 : all_stats.size() / k;
  const std::size_t n = indices.empty() ? n_items : indices.size();
  CorpusAccumulator acc(metric);
  for (std::size_t i = 0; i < n; ++i)
    acc.add(all_stats.subspan((indices.empty() ? i : indices[i]) * k, k));
  return acc.score();
}

std::string_view judge_mode_name(JudgeMode mode) {
  switch (mode) {
    case JudgeMode::kPairwise:
      return "pairwise";
    case JudgeMode::kGeval:
      return "geval";
    case JudgeMode::kPointwise:
      break;
  }
  return "pointwise";
}

JudgeMode parse_judge_mode(std::string_view name) {
  if (name == "pointwise") return JudgeMode::kPointwise;
  if (name == "pairwise") return JudgeMode::kPairwise;
  if (name == "geval") return JudgeMode::kGeval;
  throw std::invalid_argument("unknown judge mode \"" + std::string(name) +
                              "\" (pointwise, pairwise, geval)");
}

}  // namespace probity
