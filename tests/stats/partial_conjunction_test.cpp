// The partial-conjunction test against tests/golden/partial_conjunction.json
// (tests/golden/gen/partial_conjunction.py: SacreROUGE's partial_conjunction_pvalue_test run as
// published): k and the datasets exactly, the p-values to 1e-9.
#include <gtest/gtest.h>

#include <cmath>
#include <fstream>
#include <nlohmann/json.hpp>
#include <stdexcept>
#include <string>
#include <vector>

#include "probity/stats.hpp"
#include "test_paths.hpp"

namespace st = probity::stats;
using nlohmann::json;

TEST(PartialConjunction, MatchesSacreRouge) {
  std::ifstream in(probity::test::golden_path("partial_conjunction.json"));
  ASSERT_TRUE(in) << "missing tests/golden/partial_conjunction.json";
  const json g = json::parse(in);
  ASSERT_GE(g.at("cases").size(), 20u);
  for (const auto& c : g.at("cases")) {
    const auto p = c.at("p").get<std::vector<double>>();
    const std::string what = c.dump();
    const auto r = st::partial_conjunction_test(p, c.at("alpha").get<double>());
    EXPECT_EQ(r.k, c.at("k").get<std::size_t>()) << what;
    EXPECT_EQ(r.significant, c.at("significant").get<std::vector<std::size_t>>()) << what;
    const auto want = c.at("p_values").get<std::vector<double>>();
    const auto bonferroni = c.at("bonferroni").get<std::vector<double>>();
    ASSERT_EQ(r.p_values.size(), want.size()) << what;
    for (std::size_t u = 0; u < want.size(); ++u) {
      EXPECT_NEAR(r.p_values[u], want[u], 1e-9 * want[u]) << what << " u = " << u + 1;
      EXPECT_NEAR(st::partial_conjunction_pvalue(p, u + 1), bonferroni[u], 1e-9 * bonferroni[u])
          << what << " u = " << u + 1;
    }
  }
}

TEST(PartialConjunction, RejectsWhatIsNoPValue) {
  const std::vector<double> bad{0.01, std::nan("")};
  EXPECT_THROW(st::partial_conjunction_test(bad), std::invalid_argument);
  EXPECT_THROW(st::partial_conjunction_test(std::vector<double>{0.2, 1.5}), std::invalid_argument);
  const std::vector<double> p{0.01, 0.02};
  EXPECT_THROW(st::partial_conjunction_pvalue(p, 0), std::invalid_argument);
  EXPECT_THROW(st::partial_conjunction_pvalue(p, 3), std::invalid_argument);
  EXPECT_EQ(st::partial_conjunction_test({}).k, 0u);
}
