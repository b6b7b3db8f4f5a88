// McNemar's test against tests/golden/mcnemar.json (tests/golden/gen/mcnemar.py: statsmodels'
// contingency_tables.mcnemar) to 1e-9, exact and chi-square, with and without correction.
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

void expect_rel(double got, const json& want, const std::string& what) {
  if (want.is_null()) {
    EXPECT_TRUE(std::isnan(got)) << what << ": " << got;
    return;
  }
  const double w = want.get<double>();
  EXPECT_NEAR(got, w, 1e-9 * std::abs(w)) << what;
}

}  // namespace

TEST(McNemar, MatchesStatsmodels) {
  std::ifstream in(probity::test::golden_path("mcnemar.json"));
  ASSERT_TRUE(in) << "missing tests/golden/mcnemar.json";
  const json g = json::parse(in);
  ASSERT_GE(g.at("cases").size(), 20u);
  for (const auto& c : g.at("cases")) {
    const json& table = c.at("table");
    const auto b = table.at(0).at(1).get<std::size_t>(), cc = table.at(1).at(0).get<std::size_t>();
    for (const auto& e : c.at("results")) {
      const auto r = st::mcnemar(b, cc, e.at("exact").get<bool>(), e.at("correction").get<bool>());
      const std::string what = table.dump() + " " + e.dump();
      expect_rel(r.statistic, e.at("statistic"), what);
      expect_rel(r.p, e.at("pvalue"), what);
    }
  }
}

TEST(McNemar, NoDiscordantPairIsNoEvidence) {
  const auto exact = st::mcnemar(0, 0);
  EXPECT_EQ(exact.statistic, 0.0);
  EXPECT_EQ(exact.p, 1.0);
  for (bool correction : {true, false}) {
    const auto r = st::mcnemar(0, 0, false, correction);
    EXPECT_TRUE(std::isnan(r.statistic));
    EXPECT_TRUE(std::isnan(r.p));
  }
}
