// The length-controlled win rate against tests/golden/length_controlled.json
// (tests/golden/gen/length_controlled.py: statsmodels' Binomial GLM on soft labels), to 1e-9,
// then the rules the reference has no answer for.
#include <gtest/gtest.h>

#include <cmath>
#include <fstream>
#include <nlohmann/json.hpp>
#include <random>
#include <vector>

#include "probity/stats.hpp"
#include "test_paths.hpp"

namespace st = probity::stats;
using nlohmann::json;

TEST(LengthControlled, MatchesStatsmodelsGlm) {
  std::ifstream in(probity::test::golden_path("length_controlled.json"));
  ASSERT_TRUE(in) << "missing tests/golden/length_controlled.json";
  const json g = json::parse(in);
  ASSERT_GE(g.at("cases").size(), 30u);
  std::size_t defined = 0, index = 0;
  for (const auto& c : g.at("cases")) {
    const auto pref = c.at("preference").get<std::vector<double>>();
    const auto delta = c.at("delta_length").get<std::vector<double>>();
    const auto r = st::length_controlled_win_rate(pref, delta);
    const std::string what = "case " + std::to_string(index++);
    EXPECT_NEAR(r.win_rate, c.at("win_rate").get<double>(), 1e-12) << what;
    const json& e = c.at("expected");
    if (e.is_null()) {
      EXPECT_FALSE(r.defined) << what;
      EXPECT_TRUE(std::isnan(r.lc_win_rate)) << what;
      continue;
    }
    ++defined;
    ASSERT_TRUE(r.defined) << what;
    EXPECT_NEAR(r.theta, e.at("theta").get<double>(), 1e-9) << what;
    EXPECT_NEAR(r.beta, e.at("beta").get<double>(), 1e-9) << what;
    EXPECT_NEAR(r.lc_win_rate, e.at("lc_win_rate").get<double>(), 1e-9) << what;
  }
  EXPECT_GE(defined, 28u);
}

TEST(LengthControlled, OneSidedVerdictsHaveNoFiniteFit) {
  // Winning (or losing) every pair says nothing of what the verdicts would be at equal length.
  const std::vector<double> delta{-40, 10, 200, 5};
  for (double v : {0.0, 1.0}) {
    const auto r = st::length_controlled_win_rate(std::vector<double>(4, v), delta);
    EXPECT_FALSE(r.defined);
    EXPECT_TRUE(std::isnan(r.lc_win_rate));
    EXPECT_EQ(r.win_rate, v);
  }
  // All ties is a finite fit: theta = beta = 0.
  const auto ties = st::length_controlled_win_rate(std::vector<double>(4, 0.5), delta);
  ASSERT_TRUE(ties.defined);
  EXPECT_NEAR(ties.lc_win_rate, 0.5, 1e-12);
  EXPECT_NEAR(ties.beta, 0.0, 1e-12);
}

TEST(LengthControlled, ALengthRewardingJudgeIsPulledBackToEven) {
  // The system is no better than the baseline at equal length (theta = 0), the judge rewards
  // length (beta = 3), and the system's outputs are longer on average: the raw win rate is
  // inflated, the LC win rate is near 0.5.
  std::mt19937_64 rng(11);
  std::normal_distribution<double> length(60, 100);
  std::uniform_real_distribution<double> u(0, 1);
  std::vector<double> pref, delta;
  for (int i = 0; i < 2000; ++i) delta.push_back(std::round(length(rng)));
  double mean = 0, ss = 0;
  for (double d : delta) mean += d / 2000;
  for (double d : delta) ss += (d - mean) * (d - mean);
  const double sd = std::sqrt(ss / 1999);
  for (double d : delta)
    pref.push_back(u(rng) < 1 / (1 + std::exp(-3 * std::tanh(d / sd))) ? 1 : 0);
  const auto r = st::length_controlled_win_rate(pref, delta);
  ASSERT_TRUE(r.defined);
  EXPECT_GT(r.win_rate, 0.65);
  EXPECT_NEAR(r.beta, 3.0, 0.4);
  EXPECT_NEAR(r.lc_win_rate, 0.5, 0.05);
}

TEST(LogisticRegression, RefusesMisshapenInput) {
  EXPECT_THROW(st::logistic_regression(std::vector<double>{1, 2, 3}, 2, std::vector<double>{1, 0}),
               std::invalid_argument);
  EXPECT_THROW(st::logistic_regression(std::vector<double>{1, 1}, 1, std::vector<double>{1, 2}),
               std::invalid_argument);
}
