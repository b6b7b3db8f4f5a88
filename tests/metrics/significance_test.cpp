// Paired significance tests (probity/significance.hpp) against sacreBLEU 2.6.0's PairedTest run
// on the same systems (tests/golden/significance/paired.json, gen/significance.py): scores,
// bootstrap means and CIs to 1e-9, p-values exactly, the signatures' test fields; the same bits
// at any thread count.
#include "probity/significance.hpp"

#include <gtest/gtest.h>

#include <cmath>
#include <fstream>
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

TEST(PairedTest, RefusesWhatSacrebleuCannotTest) {
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
  auto rouge = engine.make_metric("rouge1");
  std::vector<std::vector<double>> two(2, std::vector<double>(rouge->num_stats(), 1.0));
  EXPECT_THROW(paired_test(*rouge, two), UsageError);
}

TEST(PairedTest, EstimateCiIsSacrebleus) {
  // 40 scores: lower index 1, upper 38; mean of the sorted values.
  std::vector<double> scores;
  for (int i = 0; i < 40; ++i) scores.push_back(static_cast<double>((i * 7) % 40));
  const auto m = sacrebleu_estimate_ci(scores);
  EXPECT_EQ(m.mean, 19.5);
  EXPECT_EQ(m.ci, 0.5 * (38 - 1));
}

}  // namespace
}  // namespace probity
