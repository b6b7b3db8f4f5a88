// rouge-score's BootstrapAggregator (stats::rouge_bootstrap_aggregate) against the aggregator
// itself run after np.random.seed(seed) (tests/golden/significance/rouge_bootstrap.json,
// gen/significance.py): low/mid/high of precision, recall and F of every type to 1e-9, given
// rouge-score's per-item scores and given probity's own ROUGE scores of the same items.
#include <gtest/gtest.h>

#include <cmath>
#include <fstream>
#include <nlohmann/json.hpp>
#include <stdexcept>
#include <string>
#include <vector>

#include "probity/engine.hpp"
#include "probity/metric.hpp"
#include "probity/stats.hpp"
#include "test_paths.hpp"

namespace probity::stats {
namespace {

const nlohmann::json& golden() {
  static const nlohmann::json j = [] {
    std::ifstream in(test::golden_path("significance/rouge_bootstrap.json"));
    return nlohmann::json::parse(in);
  }();
  return j;
}

void expect_bounds(const std::vector<AggregateBounds>& got, const nlohmann::json& c) {
  const auto types = c["types"].get<std::vector<std::string>>();
  ASSERT_EQ(got.size(), types.size());
  for (std::size_t t = 0; t < types.size(); ++t) {
    const auto& want = c["aggregate"][types[t]];
    for (const char* bound : {"low", "mid", "high"}) {
      const auto& g = std::string(bound) == "low"   ? got[t].low
                      : std::string(bound) == "mid" ? got[t].mid
                                                    : got[t].high;
      for (std::size_t m = 0; m < 3; ++m)
        EXPECT_NEAR(g[m], want[bound][m].get<double>(), 1e-9)
            << c["name"] << " " << types[t] << " " << bound << " " << m;
    }
  }
}

std::vector<std::vector<double>> matrices(const nlohmann::json& c) {
  std::vector<std::vector<double>> out;
  for (const auto& t : c["types"]) {
    std::vector<double> m;
    for (const auto& row : c["scores"][t.get<std::string>()])
      for (const auto& v : row) m.push_back(v.get<double>());
    out.push_back(std::move(m));
  }
  return out;
}

TEST(RougeBootstrap, EqualsRougeScoresAggregatorOnItsScores) {
  ASSERT_EQ(golden()["cases"].size(), 4u);
  for (const auto& c : golden()["cases"]) {
    const auto got = rouge_bootstrap_aggregate(matrices(c), 3, c["n_samples"].get<std::size_t>(),
                                               c["confidence_interval"].get<double>(),
                                               c["seed"].get<std::uint32_t>());
    expect_bounds(got, c);
  }
}

// probity's ROUGE (equal to rouge-score's, tests/metrics/rouge_test.cpp) of the same items, then
// the aggregator: rouge-score's numbers end to end.
TEST(RougeBootstrap, EqualsRougeScoresAggregatorOnProbitysRouge) {
  Engine engine;
  std::vector<nlohmann::json> items;
  std::ifstream in(test::golden_path("lexical/sentence.jsonl"));
  for (std::string line; std::getline(in, line);)
    if (!line.empty()) items.push_back(nlohmann::json::parse(line));
  for (const auto& c : golden()["cases"]) {
    if (c["name"] != "summeval300" && c["name"] != "summeval300_stem_seed0") continue;
    const bool stem = c["name"] == "summeval300_stem_seed0";
    std::vector<std::vector<double>> types;
    for (const auto& t : c["types"]) {
      auto metric = engine.make_metric(t.get<std::string>() + (stem ? ",stem=true" : ""));
      const auto parts = metric->parts();
      std::vector<double> m;
      for (std::size_t i = 12; i < items.size(); ++i) {
        MetricInput input;
        input.candidate = items[i]["hyp"].get_ref<const std::string&>();
        input.references.push_back(items[i]["refs"][0].get_ref<const std::string&>());
        const auto score = metric->score(input);
        for (const char* part : {"p", "r", "f"})
          m.push_back(score[static_cast<std::size_t>(std::find(parts.begin(), parts.end(), part) -
                                                     parts.begin())]);
      }
      types.push_back(std::move(m));
    }
    const auto got = rouge_bootstrap_aggregate(types, 3, c["n_samples"].get<std::size_t>(),
                                               c["confidence_interval"].get<double>(),
                                               c["seed"].get<std::uint32_t>());
    expect_bounds(got, c);
  }
}

TEST(RougeBootstrap, TheSeedAndTheTypeOrderChooseTheDraws) {
  const auto& c = golden()["cases"][0];
  auto m = matrices(c);
  const auto a = rouge_bootstrap_aggregate(m, 3, 200, 0.95, 1);
  const auto b = rouge_bootstrap_aggregate(m, 3, 200, 0.95, 2);
  EXPECT_NE(a[0].low, b[0].low);
  // One stream through the types: rouge2 first draws what rouge1 drew.
  std::swap(m[0], m[1]);
  const auto swapped = rouge_bootstrap_aggregate(m, 3, 200, 0.95, 1);
  EXPECT_NE(swapped[0].low, a[1].low);
}

// numpy.percentile (linear) bit for bit: NumPy 1.24.2's outputs
// (tests/golden/significance/numpy_streams.json).
TEST(RougeBootstrap, PercentileEqualsNumpyBitForBit) {
  std::ifstream in(test::golden_path("significance/numpy_streams.json"));
  const auto streams = nlohmann::json::parse(in);
  ASSERT_EQ(streams["percentile"].size(), 5u);
  for (const auto& r : streams["percentile"]) {
    const auto v = r["values"].get<std::vector<double>>();
    const auto qs = r["qs"].get<std::vector<double>>();
    for (std::size_t i = 0; i < qs.size(); ++i)
      EXPECT_EQ(numpy_percentile(v, qs[i]), r["expected"][i].get<double>())
          << v.size() << " q=" << qs[i];
  }
}

TEST(RougeBootstrap, RejectsWhatRougeScoreRejects) {
  std::vector<std::vector<double>> m{{0.5, 0.5, 0.5}};
  EXPECT_THROW(rouge_bootstrap_aggregate(m, 3, 0), std::invalid_argument);
  EXPECT_THROW(rouge_bootstrap_aggregate(m, 3, 10, 1.5), std::invalid_argument);
  std::vector<std::vector<double>> empty{{}};
  EXPECT_THROW(rouge_bootstrap_aggregate(empty, 3, 10), std::invalid_argument);
}

}  // namespace
}  // namespace probity::stats
