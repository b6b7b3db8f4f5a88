// The binomial and sign tests against tests/golden/sign_test.json (tests/golden/gen/sign_test.py:
// scipy.stats.binomtest of SciPy 1.10.1) to 1e-9, then the inputs SciPy rejects.
#include <gtest/gtest.h>

#include <cmath>
#include <fstream>
#include <nlohmann/json.hpp>
#include <stdexcept>
#include <string>
#include <utility>
#include <vector>

#include "probity/stats.hpp"
#include "test_paths.hpp"

namespace st = probity::stats;
using nlohmann::json;

namespace {

const std::pair<const char*, st::Alternative> kAlternatives[] = {
    {"two-sided", st::Alternative::kTwoSided},
    {"greater", st::Alternative::kGreater},
    {"less", st::Alternative::kLess}};

json load() {
  std::ifstream in(probity::test::golden_path("sign_test.json"));
  EXPECT_TRUE(in) << "missing tests/golden/sign_test.json";
  return json::parse(in);
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

TEST(BinomTest, MatchesScipy) {
  const json g = load();
  ASSERT_GE(g.at("binom_test").size(), 20u);
  for (const auto& c : g.at("binom_test")) {
    for (const auto& [name, alt] : kAlternatives) {
      const double p = st::binom_test(c.at("k").get<std::size_t>(), c.at("n").get<std::size_t>(),
                                      c.at("p").get<double>(), alt);
      expect_rel(p, c.at("pvalue").at(name), c.dump() + " " + name);
    }
  }
}

TEST(SignTest, MatchesScipy) {
  const json g = load();
  ASSERT_GE(g.at("sign_test").size(), 15u);
  for (const auto& c : g.at("sign_test")) {
    std::vector<double> d;
    for (const auto& v : c.at("d")) d.push_back(v.is_null() ? std::nan("") : v.get<double>());
    for (const auto& [name, alt] : kAlternatives) {
      const auto r = st::sign_test(d, alt);
      const std::string what = c.at("name").get<std::string>() + " " + name;
      EXPECT_EQ(r.positive, c.at("positive").get<std::size_t>()) << what;
      EXPECT_EQ(r.negative, c.at("negative").get<std::size_t>()) << what;
      EXPECT_EQ(r.zeros, c.at("zeros").get<std::size_t>()) << what;
      expect_rel(r.p, c.at("pvalue").at(name), what);
    }
  }
}

TEST(BinomTest, RejectsWhatScipyRejects) {
  EXPECT_THROW(st::binom_test(4, 3), std::invalid_argument);
  EXPECT_THROW(st::binom_test(1, 3, 1.5), std::invalid_argument);
  EXPECT_THROW(st::binom_test(1, 3, std::nan("")), std::invalid_argument);
  EXPECT_TRUE(std::isnan(st::binom_test(0, 0)));
}
