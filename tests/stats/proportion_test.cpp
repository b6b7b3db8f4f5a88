// stats::wilson_interval against tests/golden/wilson.json (tests/golden/gen/wilson.py: SciPy's
// binomtest(k, n).proportion_ci(method="wilson")) to 1e-9, including 0 and n successes.
#include <gtest/gtest.h>

#include <cmath>
#include <fstream>
#include <nlohmann/json.hpp>

#include "probity/stats.hpp"
#include "test_paths.hpp"

namespace {

TEST(Wilson, MatchesScipyBinomtestProportionCi) {
  std::ifstream in(probity::test::golden_path("wilson.json"));
  ASSERT_TRUE(in) << "missing tests/golden/wilson.json";
  const auto golden = nlohmann::json::parse(in);
  ASSERT_GT(golden["cases"].size(), 100u);
  for (const auto& c : golden["cases"]) {
    const auto ci = probity::stats::wilson_interval(c["k"].get<std::size_t>(),
                                                    c["n"].get<std::size_t>(), c["confidence"]);
    EXPECT_NEAR(ci.low, c["low"].get<double>(), 1e-9) << c.dump();
    EXPECT_NEAR(ci.high, c["high"].get<double>(), 1e-9) << c.dump();
  }
}

TEST(Wilson, NoTrialsHasNoInterval) {
  const auto ci = probity::stats::wilson_interval(0, 0, 0.95);
  EXPECT_TRUE(std::isnan(ci.low) && std::isnan(ci.high));
}

}  // namespace
