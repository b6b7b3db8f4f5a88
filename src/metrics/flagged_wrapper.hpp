#pragma once
// A metric that prepares the items of another (style normalisation, reference selection) and
// keeps one extra statistic: 1 when it could not prepare an item, which is then undefined (NaN
// parts, the wrapper's reason), never scored on the unprepared item.
#include <algorithm>
#include <cmath>
#include <memory>
#include <optional>

#include "probity/metric.hpp"

namespace probity::metrics {

class FlaggedWrapper : public Metric {
 public:
  explicit FlaggedWrapper(std::unique_ptr<Metric> inner) : inner_(std::move(inner)) {}

  std::string name() const override { return inner_->name(); }
  std::vector<std::string> parts() const override { return inner_->parts(); }
  std::size_t primary_part() const override { return inner_->primary_part(); }
  // The inner metric's statistics, then the flag.
  std::size_t num_stats() const override { return inner_->num_stats() + 1; }
  bool needs_references() const override { return inner_->needs_references(); }
  CorpusAggregation corpus_aggregation() const override { return inner_->corpus_aggregation(); }
  bool higher_is_better() const override { return inner_->higher_is_better(); }

  void sentence_score(std::span<const double> stats, std::span<double> parts) const override {
    if (flagged(stats)) return undefined(parts);
    inner_->sentence_score(stats.first(inner_->num_stats()), parts);
  }
  void corpus_score(std::span<const double> summed, std::span<double> parts) const override {
    if (flagged(summed)) return undefined(parts);  // any flagged item: no corpus score
    inner_->corpus_score(summed.first(inner_->num_stats()), parts);
  }
  bool has(MetricCapability capability) const override { return inner_->has(capability); }
  bool scores_new_texts() const override { return inner_->scores_new_texts(); }
  // The inner statistics come first, so the judge's layout holds for the wrapper too.
  std::optional<JudgeDesign> judge_design() const override { return inner_->judge_design(); }
  std::size_t references_used(const Task& task) const override {
    return inner_->references_used(task);
  }
  std::string corpus_breakdown(std::span<const double> summed) const override {
    if (flagged(summed)) return {};
    return inner_->corpus_breakdown(summed.first(inner_->num_stats()));
  }
  std::string undefined_reason(std::span<const double> stats) const override {
    const std::size_t n = inner_->num_stats();
    if (stats.size() > n && stats[n] > 0) return flag_reason();
    return inner_->undefined_reason(stats.first(std::min(n, stats.size())));
  }

 protected:
  // Why a flagged item is undefined.
  virtual std::string flag_reason() const = 0;
  // item_stats of a prepared input, or the flag when it could not be prepared.
  void stats_of(const std::optional<MetricInput>& prepared, std::span<double> stats) const {
    const std::size_t n = inner_->num_stats();
    if (!prepared) {
      std::fill(stats.begin(), stats.begin() + static_cast<std::ptrdiff_t>(n), std::nan(""));
      stats[n] = 1;
      return;
    }
    stats[n] = 0;
    inner_->item_stats(*prepared, stats.first(n));
  }
  const Metric& inner() const { return *inner_; }
  Metric& inner() { return *inner_; }

 private:
  bool flagged(std::span<const double> stats) const { return stats[inner_->num_stats()] > 0; }
  static void undefined(std::span<double> parts) {
    std::fill(parts.begin(), parts.end(), std::nan(""));
  }
  std::unique_ptr<Metric> inner_;
};

}  // namespace probity::metrics
