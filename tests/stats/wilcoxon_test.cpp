// The Wilcoxon signed-rank test against tests/golden/wilcoxon.json (tests/golden/gen/wilcoxon.py:
// scipy.stats.wilcoxon of SciPy 1.10.1 under every zero method, correction, alternative and
// method), rank sums exactly and p-values and z to 1e-9.
#include <gtest/gtest.h>

#include <cmath>
#include <fstream>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "probity/stats.hpp"
#include "test_paths.hpp"

namespace st = probity::stats;
using nlohmann::json;

namespace {

st::WilcoxonZeroMethod zero_method(const std::string& s) {
  if (s == "pratt") return st::WilcoxonZeroMethod::kPratt;
  if (s == "zsplit") return st::WilcoxonZeroMethod::kZsplit;
  return st::WilcoxonZeroMethod::kWilcox;
}

st::Alternative alternative(const std::string& s) {
  if (s == "greater") return st::Alternative::kGreater;
  if (s == "less") return st::Alternative::kLess;
  return st::Alternative::kTwoSided;
}

st::WilcoxonMethod method(const std::string& s) {
  if (s == "exact") return st::WilcoxonMethod::kExact;
  if (s == "approx") return st::WilcoxonMethod::kApprox;
  return st::WilcoxonMethod::kAuto;
}

void expect_rel(double got, const json& want, const std::string& what) {
  if (want.is_null()) {
    EXPECT_TRUE(std::isnan(got)) << what << ": " << got;
    return;
  }
  const double w = want.get<double>();
  EXPECT_NEAR(got, w, 1e-9 * std::abs(w)) << what;
}

}  // namespace

TEST(Wilcoxon, MatchesScipy) {
  std::ifstream in(probity::test::golden_path("wilcoxon.json"));
  ASSERT_TRUE(in) << "missing tests/golden/wilcoxon.json";
  const json g = json::parse(in);
  ASSERT_GE(g.at("cases").size(), 20u);
  std::size_t rows = 0;
  for (const auto& c : g.at("cases")) {
    // JSON has no NaN: the generator's NaN difference is null.
    std::vector<double> d;
    for (const auto& v : c.at("d")) d.push_back(v.is_null() ? std::nan("") : v.get<double>());
    for (const auto& row : c.at("results")) {
      ++rows;
      const auto r =
          st::wilcoxon(d, zero_method(row[0].get<std::string>()), row[1].get<bool>(),
                       alternative(row[2].get<std::string>()), method(row[3].get<std::string>()));
      const std::string what = c.at("name").get<std::string>() + " " + row.dump();
      if (row[5].is_null()) {
        EXPECT_TRUE(std::isnan(r.statistic)) << what;
        EXPECT_TRUE(std::isnan(r.p)) << what;
        continue;
      }
      EXPECT_EQ(r.statistic, row[5].get<double>()) << what;  // a rank sum: exact
      expect_rel(r.p, row[6], what);
      EXPECT_EQ(r.method, method(row[4].get<std::string>())) << what;
      if (r.method == st::WilcoxonMethod::kApprox)
        expect_rel(r.z, row[7], what);
      else
        EXPECT_TRUE(std::isnan(r.z)) << what;
    }
  }
  EXPECT_GE(rows, 1000u);
}

TEST(Wilcoxon, CountsWhatItRanks) {
  const std::vector<double> d{0, 0, 1, -2, 3};
  EXPECT_EQ(st::wilcoxon(d).n, 3u);  // wilcox drops the zeros
  EXPECT_EQ(st::wilcoxon(d, st::WilcoxonZeroMethod::kPratt).n, 5u);
  EXPECT_EQ(st::wilcoxon(d, st::WilcoxonZeroMethod::kZsplit).n, 5u);
}
