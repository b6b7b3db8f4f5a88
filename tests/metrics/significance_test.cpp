// Paired significance tests (probity/significance.hpp) against sacreBLEU 2.6.0's PairedTest run
// on the same systems (tests/golden/significance/paired.json, gen/significance.py): scores,
// bootstrap means and CIs to 1e-9, p-values exactly, the signatures' test fields; the same bits
// at any thread count. The same tests on the mean of item scores, over every pair, and the
// clusters, against the NumPy reference (tests/golden/significance/any_metric.json,
// gen/significance_any.py).
#include "probity/significance.hpp"

#include <fmt/format.h>
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <fstream>
#include <limits>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "probity/engine.hpp"
#include "probity/error.hpp"
#include "probity/metric.hpp"
#include "test_paths.hpp"

namespace probity {
namespace {

const nlohmann::json& golden() {
  static const nlohmann::json j = [] {
    std::ifstream in(test::golden_path("significance/paired.json"));
    return nlohmann::json::parse(in);
  }();
  return j;
}

void expect_close(double actual, double expected, const std::string& what) {
  EXPECT_NEAR(actual, expected, 1e-9 * std::max(1.0, std::abs(expected))) << what;
}

// Item statistics of each system of a golden case, as the CLI computes them.
std::vector<std::vector<double>> system_stats(const Metric& metric, const nlohmann::json& c) {
  const auto& refs = c["refs"];
  std::vector<std::vector<double>> out;
  for (const auto& sys : c["systems"]) {
    const auto& lines = sys[1];
    std::vector<double> stats(lines.size() * metric.num_stats());
    for (std::size_t i = 0; i < lines.size(); ++i) {
      MetricInput in;
      in.candidate = lines[i].get_ref<const std::string&>();
      for (const auto& stream : refs)
        in.references.push_back(stream[i].get_ref<const std::string&>());
      metric.item_stats(in, std::span(stats).subspan(i * metric.num_stats(), metric.num_stats()));
    }
    out.push_back(std::move(stats));
  }
  return out;
}

PairedTestOptions options_of(const nlohmann::json& c, unsigned threads) {
  PairedTestOptions o;
  o.kind = c["test"] == "bs" ? PairedTestKind::kBootstrap : PairedTestKind::kRandomization;
  o.samples = c["n"].get<std::size_t>();
  o.seed = c["seed"].get<std::uint64_t>();
  o.threads = threads;
  return o;
}

TEST(PairedTest, EqualsSacrebleuOnEveryGoldenCase) {
  EXPECT_EQ(golden()["versions"]["sacrebleu"], "2.6.0");
  Engine engine;
  std::size_t checked = 0;
  for (const auto& c : golden()["cases"]) {
    for (const auto& [name, want] : c["results"].items()) {
      const std::string what = c["name"].get<std::string>() + " " + name;
      auto metric = engine.make_metric(name);
      const auto stats = system_stats(*metric, c);
      const auto got = paired_test(*metric, stats, options_of(c, 2));
      ASSERT_EQ(got.systems.size(), want["systems"].size()) << what;
      for (std::size_t s = 0; s < got.systems.size(); ++s) {
        const auto& w = want["systems"][s];
        const auto& g = got.systems[s];
        const std::string at = what + " system " + std::to_string(s);
        expect_close(g.score, w["score"].get<double>(), at + " score");
        ASSERT_EQ(g.p_value.has_value(), !w["p_value"].is_null()) << at;
        // (c + 1) / (n + 1): the same count gives the same double.
        if (g.p_value) {
          EXPECT_EQ(*g.p_value, w["p_value"].get<double>()) << at << " p";
        }
        ASSERT_EQ(g.mean.has_value(), !w["mean"].is_null()) << at;
        if (g.mean) {
          expect_close(*g.mean, w["mean"].get<double>(), at + " mean");
          expect_close(*g.ci, w["ci"].get<double>(), at + " ci");
        }
        ++checked;
      }
      // sacreBLEU's signature carries bs:/ar: and seed: in the same spelling.
      const std::string test = c["test"].get<std::string>();
      const std::string fields = "|" + test + ":" + std::to_string(c["n"].get<int>()) +
                                 "|seed:" + std::to_string(c["seed"].get<int>());
      EXPECT_NE(want["signature"].get<std::string>().find(fields), std::string::npos) << what;
      EXPECT_NE(got.signature.find(fields + "|version:probity-"), std::string::npos)
          << got.signature;
    }
  }
  EXPECT_EQ(checked, 68u);
}

TEST(PairedTest, SameBitsAtAnyThreadCount) {
  Engine engine;
  for (const auto& c : golden()["cases"]) {
    if (c["name"] != "summeval20_2refs_bs_seed7" && c["name"] != "summeval20_2refs_ar_seed7")
      continue;
    for (const char* name : {"chrf", "ter"}) {
      auto metric = engine.make_metric(name);
      const auto stats = system_stats(*metric, c);
      const auto one = paired_test(*metric, stats, options_of(c, 1));
      for (unsigned threads : {2u, 3u, 8u}) {
        const auto many = paired_test(*metric, stats, options_of(c, threads));
        for (std::size_t s = 0; s < one.systems.size(); ++s) {
          EXPECT_EQ(one.systems[s].score, many.systems[s].score);
          EXPECT_EQ(one.systems[s].p_value, many.systems[s].p_value);
          EXPECT_EQ(one.systems[s].mean, many.systems[s].mean);
          EXPECT_EQ(one.systems[s].ci, many.systems[s].ci);
        }
      }
    }
  }
}

// The resamples are scored from float32 statistics: with one item every resample is that item,
// yet sacreBLEU's chrF mean differs from the score in the 7th digit (a float32 quotient).
TEST(PairedTest, ResamplesAreScoredFromFloat32Statistics) {
  Engine engine;
  for (const auto& c : golden()["cases"]) {
    if (c["name"] != "one_item_bs") continue;
    auto metric = engine.make_metric("chrf");
    const auto got = paired_test(*metric, system_stats(*metric, c), options_of(c, 1));
    EXPECT_NE(*got.systems[0].mean, got.systems[0].score);
    EXPECT_NEAR(*got.systems[0].mean, got.systems[0].score, 1e-5);
    EXPECT_EQ(*got.systems[0].ci, 0.0);
  }
}

TEST(PairedTest, RefusesWhatCannotBeTested) {
  Engine engine;
  auto bleu = engine.make_metric("bleu");
  const std::size_t k = bleu->num_stats();
  std::vector<std::vector<double>> one_system{std::vector<double>(k, 1.0)};
  EXPECT_THROW(paired_test(*bleu, one_system), UsageError);
  std::vector<std::vector<double>> uneven{std::vector<double>(k, 1.0),
                                          std::vector<double>(2 * k, 1.0)};
  EXPECT_THROW(paired_test(*bleu, uneven), UsageError);
  std::vector<std::vector<double>> undefined{std::vector<double>(k, 1.0),
                                             std::vector<double>(k, std::nan(""))};
  EXPECT_THROW(paired_test(*bleu, undefined), UsageError);
  EXPECT_THROW(paired_test(*bleu, uneven, {}, 1), UsageError);  // BLEU has one part
}

TEST(PairedTest, EstimateCiIsSacrebleus) {
  // 40 scores: lower index 1, upper 38; mean of the sorted values.
  std::vector<double> scores;
  for (int i = 0; i < 40; ++i) scores.push_back(static_cast<double>((i * 7) % 40));
  const auto m = sacrebleu_estimate_ci(scores);
  EXPECT_EQ(m.mean, 19.5);
  EXPECT_EQ(m.ci, 0.5 * (38 - 1));
}

// ---- Any metric: the mean of item scores, every pair, the clusters ------------------------------

const nlohmann::json& any_golden() {
  static const nlohmann::json j = [] {
    std::ifstream in(test::golden_path("significance/any_metric.json"));
    return nlohmann::json::parse(in);
  }();
  return j;
}

// A metric whose one statistic is the item's score, aggregated as the mean of item scores (what
// a scores file, ROUGE or BERTScore is to the tests).
class ItemScores final : public Metric {
 public:
  explicit ItemScores(bool higher_is_better = true) : higher_(higher_is_better) {}
  std::string name() const override { return "item-scores"; }
  std::string signature() const override { return "item-scores|version:test"; }
  std::size_t num_stats() const override { return 1; }
  void item_stats(const MetricInput&, std::span<double> stats) const override { stats[0] = 0; }
  void sentence_score(std::span<const double> stats, std::span<double> parts) const override {
    parts[0] = stats[0];
  }
  CorpusAggregation corpus_aggregation() const override { return CorpusAggregation::kMeanScores; }
  bool higher_is_better() const override { return higher_; }

 private:
  bool higher_ = true;
};

// A ratio of summed statistics, a metric of none of sacreBLEU's: float64 sums.
class Ratio final : public Metric {
 public:
  std::string name() const override { return "ratio"; }
  std::string signature() const override { return "ratio|version:test"; }
  std::size_t num_stats() const override { return 2; }
  void item_stats(const MetricInput&, std::span<double> stats) const override {
    stats[0] = stats[1] = 1;
  }
  void sentence_score(std::span<const double> stats, std::span<double> parts) const override {
    parts[0] = stats[0] / stats[1];
  }
};

std::vector<std::vector<double>> any_systems(const nlohmann::json& c) {
  const auto& scores = any_golden()["scores"][c["metric"].get<std::string>()];
  const auto tasks = c["tasks"].get<std::size_t>();
  std::vector<std::vector<double>> out;
  for (const auto& s : c["systems"]) {
    const auto all = scores[s.get<std::string>()].get<std::vector<double>>();
    out.emplace_back(all.begin(), all.begin() + static_cast<std::ptrdiff_t>(tasks));
  }
  return out;
}

PairedTestOptions any_options(const nlohmann::json& c, unsigned threads) {
  PairedTestOptions o = options_of(c, threads);
  o.all_pairs = true;
  return o;
}

double relative_error(double actual, double expected) {
  return std::abs(actual - expected) / std::max(std::abs(expected), 1e-300);
}

TEST(PairedTestAnyMetric, EqualsTheNumpyReferenceOnEveryGoldenCase) {
  std::size_t checked = 0;
  double worst = 0;
  const auto close = [&](double actual, double expected, const std::string& what) {
    EXPECT_LE(relative_error(actual, expected), 1e-9)
        << what << ": " << actual << " vs " << expected;
    worst = std::max(worst, relative_error(actual, expected));
    ++checked;
  };
  for (const auto& c : any_golden()["cases"]) {
    const std::string name = c["name"].get<std::string>();
    const ItemScores metric(c["better"] == "higher");
    const auto systems = any_systems(c);
    const auto got = paired_test(metric, systems, any_options(c, 2));
    const auto& want = c["results"];
    EXPECT_EQ(got.aggregation, PairedAggregation::kItemMean);
    ASSERT_EQ(got.systems.size(), want["systems"].size()) << name;
    for (std::size_t s = 0; s < got.systems.size(); ++s) {
      const auto& w = want["systems"][s];
      const auto& g = got.systems[s];
      const std::string at = name + " system " + std::to_string(s);
      close(g.score, w["score"].get<double>(), at + " score");
      ASSERT_EQ(g.p_value.has_value(), !w["p_value"].is_null()) << at;
      // (c + 1) / (n + 1): the same count gives the same double.
      if (g.p_value) {
        EXPECT_EQ(*g.p_value, w["p_value"].get<double>()) << at;
      }
      ASSERT_EQ(g.mean.has_value(), !w["mean"].is_null()) << at;
      if (g.mean) {
        close(*g.mean, w["mean"].get<double>(), at + " mean");
        close(*g.ci, w["ci"].get<double>(), at + " ci");
      }
    }
    const std::size_t n = systems.size();
    ASSERT_EQ(got.pairwise.size(), n) << name;
    const auto clusters = significance_clusters(
        got, c["better"] == "higher",
        stats::parse_rank_correction(c["correction"].get<std::string>()), c["alpha"].get<double>());
    for (std::size_t i = 0; i < n; ++i) {
      for (std::size_t j = 0; j < n; ++j) {
        const std::string at = name + " pair " + std::to_string(i) + "," + std::to_string(j);
        if (i == j) {
          EXPECT_TRUE(std::isnan(got.pairwise[i][j])) << at;
          EXPECT_TRUE(want["pairwise"][i][j].is_null()) << at;
          continue;
        }
        EXPECT_EQ(got.pairwise[i][j], want["pairwise"][i][j].get<double>()) << at;
        close(clusters.adjusted[i][j], want["adjusted"][i][j].get<double>(), at + " adjusted");
      }
    }
    EXPECT_EQ(clusters.rank, want["rank"].get<std::vector<std::size_t>>()) << name;
    EXPECT_EQ(clusters.order, want["order"].get<std::vector<std::size_t>>()) << name;
    // The baseline's column is the pairs' first row.
    for (std::size_t s = 1; s < n; ++s) EXPECT_EQ(*got.systems[s].p_value, got.pairwise[0][s]);
  }
  EXPECT_EQ(any_golden()["cases"].size(), 10u);
  EXPECT_GT(checked, 1000u);
  RecordProperty("max_relative_error", fmt::format("{:.3g}", worst));
}

TEST(PairedTestAnyMetric, SameBitsAtAnyThreadCountAndWithoutAllPairs) {
  for (const auto& c : any_golden()["cases"]) {
    if (c["name"] != "chrf_six_lower_ar" && c["name"] != "chrf_six_lower_bs") continue;
    const ItemScores metric;
    const auto systems = any_systems(c);
    const auto one = paired_test(metric, systems, any_options(c, 1));
    for (unsigned threads : {2u, 3u, 8u}) {
      const auto many = paired_test(metric, systems, any_options(c, threads));
      for (std::size_t s = 0; s < one.systems.size(); ++s) {
        EXPECT_EQ(one.systems[s].p_value, many.systems[s].p_value);
        EXPECT_EQ(one.systems[s].mean, many.systems[s].mean);
        EXPECT_EQ(one.systems[s].ci, many.systems[s].ci);
      }
      for (std::size_t i = 0; i < systems.size(); ++i) {
        for (std::size_t j = 0; j < systems.size(); ++j) {
          if (i != j) {
            EXPECT_EQ(one.pairwise[i][j], many.pairwise[i][j]);
          }
        }
      }
    }
    // Against the baseline only: the same p-values, no matrix.
    const auto baseline = paired_test(metric, systems, options_of(c, 2));
    EXPECT_TRUE(baseline.pairwise.empty());
    for (std::size_t s = 1; s < systems.size(); ++s)
      EXPECT_EQ(baseline.systems[s].p_value, one.systems[s].p_value);
  }
}

// sacreBLEU's metrics keep their goldens with all pairs on: the baseline's p-values are the
// first row of the matrix.
TEST(PairedTestAnyMetric, SacrebleuGoldensHoldWithAllPairs) {
  Engine engine;
  for (const auto& c : golden()["cases"]) {
    if (c["name"] != "summeval20_2refs_bs_seed7" && c["name"] != "summeval20_2refs_ar_seed7")
      continue;
    for (const auto& [name, want] : c["results"].items()) {
      auto metric = engine.make_metric(name);
      PairedTestOptions o = options_of(c, 2);
      o.all_pairs = true;
      const auto got = paired_test(*metric, system_stats(*metric, c), o);
      EXPECT_EQ(got.aggregation, PairedAggregation::kSacrebleu);
      for (std::size_t s = 1; s < got.systems.size(); ++s)
        EXPECT_EQ(*got.systems[s].p_value, want["systems"][s]["p_value"].get<double>())
            << name << " " << s;
    }
  }
}

// A metric of summed statistics that is none of sacreBLEU's: float64 sums of the drawn items;
// a resample of identical items scores as the item.
TEST(PairedTestAnyMetric, SummedStatisticsOfOtherMetrics) {
  const Ratio ratio;
  // Three items per system: (matches, length).
  const std::vector<std::vector<double>> systems = {
      {1, 2, 3, 4, 5, 10}, {2, 2, 3, 4, 1, 10}, {0, 2, 1, 4, 2, 10}};
  PairedTestOptions o;
  o.kind = PairedTestKind::kBootstrap;
  o.samples = 200;
  o.all_pairs = true;
  const auto got = paired_test(ratio, systems, o);
  EXPECT_EQ(got.aggregation, PairedAggregation::kSummedStats);
  EXPECT_DOUBLE_EQ(got.systems[0].score, 9.0 / 16.0);
  EXPECT_DOUBLE_EQ(got.systems[2].score, 3.0 / 16.0);
  EXPECT_GT(*got.systems[0].mean, 0.3);
  EXPECT_NE(got.signature.find("ratio|bs:200|seed:12345|version:test"), std::string::npos);
  o.kind = PairedTestKind::kRandomization;
  const auto ar = paired_test(ratio, systems, o);
  for (std::size_t s = 1; s < 3; ++s) EXPECT_GT(*ar.systems[s].p_value, 0.0);
  EXPECT_FALSE(ar.systems[0].mean.has_value());
}

TEST(PairedTestAnyMetric, UndefinedItemScoresAndAggregationNames) {
  const ItemScores metric;
  const std::vector<std::vector<double>> systems = {{0.1, 0.2}, {0.3, std::nan("")}};
  EXPECT_THROW(paired_test(metric, systems), UsageError);
  Engine engine;
  EXPECT_EQ(paired_aggregation_of(*engine.make_metric("chrf")), PairedAggregation::kSacrebleu);
  EXPECT_EQ(paired_aggregation_of(*engine.make_metric("rougeL")), PairedAggregation::kItemMean);
  EXPECT_EQ(paired_aggregation_name(PairedAggregation::kSummedStats), "stats");
  EXPECT_EQ(parse_paired_test_kind("ar"), PairedTestKind::kRandomization);
  EXPECT_EQ(paired_test_kind_name(PairedTestKind::kBootstrap), "bs");
  EXPECT_THROW(parse_paired_test_kind("xx"), UsageError);
}

TEST(SignificanceClusters, NeedAllPairsAndKeepEqualScoresTogether) {
  const ItemScores metric;
  const std::vector<std::vector<double>> systems = {{0.9, 0.8, 0.7}, {0.9, 0.8, 0.7}};
  PairedTestOptions o;
  o.samples = 50;
  EXPECT_THROW(significance_clusters(paired_test(metric, systems, o), true,
                                     stats::RankCorrection::kNone, 0.05),
               UsageError);
  o.all_pairs = true;
  const auto test = paired_test(metric, systems, o);
  EXPECT_EQ(test.pairwise[0][1], 1.0 / 51.0);  // sacreBLEU's p of a zero difference
  const auto c = significance_clusters(test, true, stats::RankCorrection::kNone, 0.05);
  EXPECT_EQ(c.rank, (std::vector<std::size_t>{1, 1}));
  EXPECT_EQ(c.adjusted[0][1], 1.0);
}

}  // namespace
}  // namespace probity
