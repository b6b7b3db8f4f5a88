// Power analysis against tests/golden/power.json (tests/golden/gen/power.py: statsmodels'
// TTestPower and NormalIndPower, the t-test's critical values exact; roots to full precision by
// brentq), then the rules the reference has no answer for.
#include <gtest/gtest.h>

#include <cmath>
#include <fstream>
#include <nlohmann/json.hpp>
#include <string>

#include "probity/stats.hpp"
#include "test_paths.hpp"

namespace st = probity::stats;
using nlohmann::json;

namespace {

json load() {
  std::ifstream in(probity::test::golden_path("power.json"));
  EXPECT_TRUE(in) << "missing tests/golden/power.json";
  return json::parse(in);
}

st::Alternative alternative(const json& c) {
  const auto a = c.at("alternative").get<std::string>();
  if (a == "greater") return st::Alternative::kGreater;
  if (a == "less") return st::Alternative::kLess;
  return st::Alternative::kTwoSided;
}

// |got - want| <= rel |want| + abs; `null` wants NaN. The power's far tails come from Boost's
// noncentral t as 1 - (the other side), exact to ~1e-16 absolute, not relative.
void expect_close(double got, const json& want, double rel, double abs, const std::string& what) {
  if (want.is_null()) {
    EXPECT_TRUE(std::isnan(got)) << what << ": " << got;
    return;
  }
  const double w = want.get<double>();
  EXPECT_NEAR(got, w, rel * std::abs(w) + abs) << what;
}

std::string describe(const json& c) {
  return c.dump();
}

}  // namespace

TEST(Power, TTestPowerMatchesStatsmodels) {
  const json g = load();
  ASSERT_GE(g.at("ttest_power").size(), 20u);
  for (const auto& c : g.at("ttest_power")) {
    const double p = st::ttest_power(c.at("effect_size").get<double>(), c.at("nobs").get<double>(),
                                     c.at("alpha").get<double>(), alternative(c));
    expect_close(p, c.at("expected"), 1e-9, 1e-15, describe(c));
    // statsmodels as it runs, with SciPy's critical values good to ~1e-9.
    expect_close(p, c.at("statsmodels"), 1e-7, 1e-15, "statsmodels " + describe(c));
  }
}

TEST(Power, TTestNobsAndMdeMatchStatsmodels) {
  const json g = load();
  ASSERT_GE(g.at("ttest_nobs").size(), 10u);
  ASSERT_GE(g.at("ttest_mde").size(), 10u);
  for (const auto& c : g.at("ttest_nobs")) {
    const double n = st::ttest_nobs(c.at("effect_size").get<double>(), c.at("power").get<double>(),
                                    c.at("alpha").get<double>(), alternative(c));
    expect_close(n, c.at("expected"), 1e-9, 0, describe(c));
    // statsmodels' solve_power stops at brentq's xtol 1e-5.
    if (!c.at("statsmodels").is_null()) expect_close(n, c.at("statsmodels"), 1e-5, 0, describe(c));
  }
  for (const auto& c : g.at("ttest_mde")) {
    const double d = st::ttest_mde(c.at("nobs").get<double>(), c.at("power").get<double>(),
                                   c.at("alpha").get<double>(), alternative(c));
    expect_close(d, c.at("expected"), 1e-9, 0, describe(c));
    if (!c.at("statsmodels").is_null()) expect_close(d, c.at("statsmodels"), 1e-4, 0, describe(c));
  }
}

TEST(Power, CorrelationDifferenceMatchesNormalIndPower) {
  const json g = load();
  ASSERT_GE(g.at("correlation_difference_power").size(), 10u);
  for (const auto& c : g.at("correlation_difference_power")) {
    const double p = st::correlation_difference_power(
        c.at("r1").get<double>(), c.at("r2").get<double>(), c.at("nobs").get<double>(),
        c.at("alpha").get<double>(), alternative(c));
    expect_close(p, c.at("expected"), 1e-9, 1e-15, describe(c));
  }
  for (const auto& c : g.at("correlation_difference_nobs")) {
    const double n = st::correlation_difference_nobs(
        c.at("r1").get<double>(), c.at("r2").get<double>(), c.at("power").get<double>(),
        c.at("alpha").get<double>(), alternative(c));
    expect_close(n, c.at("expected"), 1e-9, 0, describe(c));
  }
}

TEST(Power, SolvedValuesGiveThePower) {
  for (const auto alt :
       {st::Alternative::kTwoSided, st::Alternative::kGreater, st::Alternative::kLess}) {
    const double d = alt == st::Alternative::kLess ? -0.4 : 0.4;
    const double n = st::ttest_nobs(d, 0.8, 0.05, alt);
    EXPECT_NEAR(st::ttest_power(d, n, 0.05, alt), 0.8, 1e-12);
    const double mde = st::ttest_mde(n, 0.8, 0.05, alt);
    EXPECT_NEAR(mde, d, 1e-9);
  }
  const double n = st::correlation_difference_nobs(0.5, 0.3, 0.9, 0.05, st::Alternative::kTwoSided);
  EXPECT_NEAR(st::correlation_difference_power(0.5, 0.3, n, 0.05, st::Alternative::kTwoSided), 0.9,
              1e-12);
}

TEST(Power, UndefinedInputsAreNaN) {
  const auto two = st::Alternative::kTwoSided;
  EXPECT_TRUE(std::isnan(st::ttest_power(0.5, 1.0, 0.05, two)));  // df = 0
  EXPECT_TRUE(std::isnan(st::ttest_power(0.5, 20, 0.0, two)));
  EXPECT_TRUE(std::isnan(st::ttest_power(0.5, 20, 1.0, two)));
  EXPECT_TRUE(std::isnan(st::ttest_nobs(0.0, 0.8, 0.05, two)));
  EXPECT_TRUE(std::isnan(st::ttest_nobs(0.5, 1.0, 0.05, two)));
  EXPECT_TRUE(std::isnan(st::ttest_nobs(-0.5, 0.8, 0.05, st::Alternative::kGreater)));
  EXPECT_TRUE(std::isnan(st::ttest_mde(20, 0.05, 0.05, two)));  // power alpha needs no effect
  EXPECT_TRUE(std::isnan(st::correlation_difference_power(1.0, 0.5, 50, 0.05, two)));
  EXPECT_TRUE(std::isnan(st::correlation_difference_power(0.5, 0.3, 3, 0.05, two)));
  EXPECT_TRUE(std::isnan(st::correlation_difference_nobs(0.4, 0.4, 0.8, 0.05, two)));
  // Beyond a noncentrality of 65,536 Boost's noncentral t gives up (SciPy aborts there).
  EXPECT_TRUE(std::isnan(st::ttest_power(1.0, 1e10, 0.05, two)));
}
