// Judge bias statistics against tests/golden/judge_bias.json (tests/golden/gen/judge_bias.py):
// JudgeLM's calculate_metrics for the position shares, AlpacaEval's get_length_biases,
// get_list_biases and contains_list, SciPy for the partial correlation (regression residuals)
// and ICC(1,1) (one-way ANOVA F), to 1e-9; then hand-checked planted cases.
#include <gtest/gtest.h>

#include <cmath>
#include <fstream>
#include <nlohmann/json.hpp>
#include <string>
#include <string_view>
#include <vector>

#include "probity/stats.hpp"
#include "test_paths.hpp"

namespace st = probity::stats;
using nlohmann::json;

namespace {

json golden() {
  std::ifstream in(probity::test::golden_path("judge_bias.json"));
  EXPECT_TRUE(in) << "missing tests/golden/judge_bias.json";
  return json::parse(in);
}

void expect_near_or_nan(double actual, const json& expected, const std::string& what) {
  if (expected.is_null()) {
    EXPECT_TRUE(std::isnan(actual)) << what << ": expected undefined, got " << actual;
    return;
  }
  EXPECT_NEAR(actual, expected.get<double>(), 1e-9) << what;
}

std::vector<std::string_view> views(const std::vector<std::string>& v) {
  return {v.begin(), v.end()};
}

}  // namespace

TEST(JudgeBiasGolden, ContainsListAsAlpacaEval) {
  const json g = golden();
  ASSERT_GE(g.at("contains_list").size(), 20u);
  for (const auto& c : g.at("contains_list")) {
    const std::string text = c.at("text");
    EXPECT_EQ(st::alpaca_contains_list(text), c.at("value").get<bool>()) << '"' << text << '"';
  }
}

TEST(JudgeBiasGolden, PreferLongerAndListsAsAlpacaEval) {
  const json g = golden();
  ASSERT_EQ(g.at("pairs").size(), 6u);
  for (const auto& c : g.at("pairs")) {
    const auto o1 = c.at("output_1").get<std::vector<std::string>>();
    const auto o2 = c.at("output_2").get<std::vector<std::string>>();
    const auto pref = c.at("preference").get<std::vector<double>>();
    expect_near_or_nan(st::prefer_longer(views(o1), views(o2), pref), c.at("prefer_longer"),
                       "prefer_longer");
    expect_near_or_nan(st::prefer_lists(views(o1), views(o2), pref), c.at("prefer_lists"),
                       "prefer_lists");
  }
}

TEST(JudgeBiasGolden, PositionSharesAsJudgeLm) {
  const json g = golden();
  ASSERT_EQ(g.at("position").size(), 6u);
  for (const auto& c : g.at("position")) {
    const auto b = st::position_bias(c.at("x_first").get<std::vector<double>>(),
                                     c.at("x_second").get<std::vector<double>>());
    EXPECT_NEAR(b.consistency, c.at("consistency").get<double>(), 1e-12);
    EXPECT_NEAR(b.prefer_first, c.at("prefer_first").get<double>(), 1e-12);
    EXPECT_NEAR(b.prefer_second, c.at("prefer_second").get<double>(), 1e-12);
  }
}

TEST(JudgeBiasGolden, PartialCorrelationAsScipyResiduals) {
  const json g = golden();
  ASSERT_EQ(g.at("partial").size(), 8u);
  for (const auto& c : g.at("partial"))
    expect_near_or_nan(st::partial_correlation(c.at("x").get<std::vector<double>>(),
                                               c.at("y").get<std::vector<double>>(),
                                               c.at("z").get<std::vector<double>>()),
                       c.at("value"), "partial correlation");
}

TEST(JudgeBiasGolden, SelfConsistencyAsScipyAnova) {
  const json g = golden();
  ASSERT_EQ(g.at("icc").size(), 8u);
  for (const auto& c : g.at("icc")) {
    std::vector<double> flat;
    for (const auto& row : c.at("ratings"))
      for (const auto& v : row) flat.push_back(v.get<double>());
    const auto s = st::self_consistency(flat, c.at("samples").get<std::size_t>());
    expect_near_or_nan(s.icc, c.at("icc"), "icc");
    EXPECT_NEAR(s.flip_rate, c.at("flip_rate").get<double>(), 1e-12);
    EXPECT_NEAR(s.mean_sd, c.at("mean_sd").get<double>(), 1e-9);
  }
}

TEST(JudgeBias, AlwaysFirstJudgeHasNoConsistency) {
  // A judge that always prefers the response shown first: X wins when first, loses when second.
  const std::vector<double> first(20, 1.0), second(20, 0.0);
  const auto b = st::position_bias(first, second);
  EXPECT_EQ(b.consistency, 0.0);
  EXPECT_EQ(b.prefer_first, 1.0);
  EXPECT_EQ(b.prefer_second, 0.0);
}

TEST(JudgeBias, DegenerateInputs) {
  EXPECT_TRUE(std::isnan(st::position_bias({}, {}).consistency));
  EXPECT_THROW(st::position_bias(std::vector<double>{1}, std::vector<double>{}),
               std::invalid_argument);
  EXPECT_TRUE(std::isnan(st::self_consistency(std::vector<double>{1, 2}, 2).icc));
  EXPECT_THROW(st::self_consistency(std::vector<double>{1, 2, 3}, 2), std::invalid_argument);
  const std::vector<std::string_view> same{"a", "b"};
  EXPECT_TRUE(std::isnan(st::prefer_longer(same, same, std::vector<double>{1, 2})));
}
