#pragma once
// What the attack tests share: metrics that are a function of the candidate text, and the first
// 10 tasks of the bundled sample.
#include <functional>
#include <memory>
#include <string>
#include <string_view>

#include "probity/dataset.hpp"
#include "probity/scoring.hpp"
#include "test_paths.hpp"
#include "util/hash.hpp"

namespace probity::test {

// A metric from a function of the candidate text.
class TextMetric final : public Metric {
 public:
  TextMetric(std::string name, std::function<double(std::string_view)> f)
      : name_(std::move(name)), f_(std::move(f)) {}
  std::string name() const override { return name_; }
  std::string signature() const override { return name_; }
  std::size_t num_stats() const override { return 1; }
  void item_stats(const MetricInput& in, std::span<double> stats) const override {
    stats[0] = f_(in.candidate);
  }
  void sentence_score(std::span<const double> stats, std::span<double> parts) const override {
    parts[0] = stats[0];
  }
  CorpusAggregation corpus_aggregation() const override { return CorpusAggregation::kMeanScores; }

 private:
  std::string name_;
  std::function<double(std::string_view)> f_;
};

inline MetricSelection selection(std::string name, std::function<double(std::string_view)> f) {
  MetricSelection sel;
  sel.spec = name;
  sel.parsed = MetricSpec::parse(name);
  sel.metric = std::make_unique<TextMetric>(name, std::move(f));
  sel.parts = {0};
  return sel;
}

// Uniform in [0, 1) from the text: any edit moves it, in no consistent direction.
inline double noise(std::string_view text) {
  return static_cast<double>(util::fnv1a64(text) >> 11) * 0x1.0p-53;
}

// The first 10 tasks of the bundled sample (160 candidates): 100 seeded runs stay quick.
inline const Dataset& sample() {
  static const Dataset ds = [] {
    Dataset d = load_dataset(data_path("summeval/summeval_sample20.jsonl"));
    d.tasks.resize(10);
    return d;
  }();
  return ds;
}

}  // namespace probity::test
