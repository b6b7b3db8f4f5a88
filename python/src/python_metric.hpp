#pragma once
// A Python callable as a probity metric, for the audit and the attack: fn(candidates: list[str],
// references: list[list[str]], sources: list[str]) -> sequence of float, one value per candidate
// (NaN: undefined). probity.PythonMetric passes `sources` on to a function that takes them.
#include <memory>
#include <mutex>
#include <span>
#include <string>
#include <unordered_map>
#include <vector>

#include "common.hpp"
#include "probity/audit.hpp"
#include "probity/metric.hpp"
#include "probity/scoring.hpp"

namespace probity::python {

// Calls the Python function in batches and remembers the values of the last batch. The function
// is borrowed: the caller keeps it alive for as long as the scorer is used.
class PythonScorer {
 public:
  PythonScorer(py::handle fn, std::string name) : fn_(fn), name_(std::move(name)) {}
  // Scores a batch (takes the GIL). Python exceptions propagate as py::error_already_set.
  std::vector<double> call(std::span<const MetricInput> inputs) const;
  // Scores a batch and remembers its values for lookup(); forgets earlier batches.
  void prefetch(std::span<const MetricInput> inputs);
  // The value of one input: from the last prefetch() if it was there, else scored alone.
  // Thread-safe.
  double lookup(const MetricInput& input);

 private:
  static std::string key(const MetricInput& input);

  py::handle fn_;
  std::string name_;
  std::mutex mutex_;
  std::unordered_map<std::string, double> memo_;
};

class PythonMetric final : public Metric {
 public:
  // batch > 0: compute_stats hands it batches of that many items (Metric::prefetch), as the
  // attack needs; 0: the caller prefetches (the audit's ExtraMetric::prefetch).
  PythonMetric(std::string name, std::string signature, std::shared_ptr<PythonScorer> scorer,
               std::size_t batch = 0)
      : name_(std::move(name)),
        signature_(std::move(signature)),
        scorer_(std::move(scorer)),
        batch_(batch) {}

  std::string name() const override { return name_; }
  std::string signature() const override { return signature_; }
  std::size_t num_stats() const override { return 1; }
  void item_stats(const MetricInput& input, std::span<double> stats) const override {
    stats[0] = scorer_->lookup(input);
  }
  void sentence_score(std::span<const double> stats, std::span<double> parts) const override {
    parts[0] = stats[0];
  }
  CorpusAggregation corpus_aggregation() const override { return CorpusAggregation::kMeanScores; }
  std::string undefined_reason(std::span<const double>) const override {
    return "the Python metric returned NaN";
  }
  std::size_t batch_size() const override { return batch_; }
  void prefetch(std::span<const MetricInput> inputs) const override {
    if (batch_ > 0) scorer_->prefetch(inputs);
  }

 private:
  std::string name_;
  std::string signature_;
  std::shared_ptr<PythonScorer> scorer_;
  std::size_t batch_ = 0;
};

// The audit hook of a Python callable: record name `spec` ("python:<name>"), `signature` as the
// cache key and report signature.
// The attack's selection of a Python callable, scored in batches of `batch` items.
MetricSelection python_metric_selection(py::handle fn, const std::string& spec,
                                        const std::string& signature, std::size_t batch);

AuditOptions::ExtraMetric python_extra_metric(py::handle fn, const std::string& spec,
                                              const std::string& signature);

}  // namespace probity::python
