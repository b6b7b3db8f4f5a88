// Edge cases beyond the golden file: t-test fields, distribution functions, multiple testing
// with undefined p-values, CEM input checks.
#include <gtest/gtest.h>

#include <cmath>
#include <fstream>
#include <limits>
#include <nlohmann/json.hpp>
#include <stdexcept>
#include <string>
#include <vector>

#include "probity/stats.hpp"
#include "test_paths.hpp"

namespace st = probity::stats;

TEST(StatsPairedT, ReportsDeltaSummaries) {
  const std::vector<double> pert = {3.0, 4.5, 2.0, 6.0, 5.5}, orig = {2.0, 4.0, 2.5, 5.0, 4.0};
  const auto r = st::paired_t(pert, orig);
  EXPECT_EQ(r.n, 5u);
  EXPECT_DOUBLE_EQ(r.mean_delta, 0.7);
  // deltas 1, 0.5, -0.5, 1, 1.5: sample variance 0.575
  EXPECT_DOUBLE_EQ(r.sd_delta, std::sqrt(0.575));
  EXPECT_DOUBLE_EQ(r.t, r.mean_delta / (r.sd_delta / std::sqrt(5.0)));
  EXPECT_DOUBLE_EQ(r.df, 4.0);
  EXPECT_DOUBLE_EQ(r.p_less + r.p_greater, 1.0);
  EXPECT_DOUBLE_EQ(r.p_two_sided, 2.0 * r.p_greater);
}

TEST(StatsPairedT, DegenerateInputs) {
  // Constant and equal: the test and d are undefined (no scale to measure a change in).
  const std::vector<double> c = {2.0, 2.0, 2.0};
  auto r = st::paired_t(c, c);
  EXPECT_TRUE(std::isnan(r.t));
  EXPECT_TRUE(std::isnan(r.p_two_sided));
  EXPECT_TRUE(std::isnan(r.smd));
  EXPECT_TRUE(std::isnan(r.smd_ci_half_width));
  // Constant up to floating-point noise (a "zero" pooled sd of 1e-17 used to give d = -8e15).
  const std::vector<double> noisy = {0.1 + 0.2, 0.3, 0.30000000000000004};
  EXPECT_TRUE(std::isnan(st::smd(noisy, std::vector<double>{0.3, 0.3, 0.3})));
  EXPECT_TRUE(std::isnan(st::smd(std::vector<double>{21.07, 21.07, 21.07},
                                 std::vector<double>{21.07, 21.07 + 1e-14, 21.07})));
  // A constant shift: t infinite (p = 0), SMD undefined.
  const std::vector<double> shifted = {3.0, 3.0, 3.0};
  r = st::paired_t(shifted, c);
  EXPECT_TRUE(std::isinf(r.t));
  EXPECT_EQ(r.p_two_sided, 0.0);
  EXPECT_TRUE(std::isnan(r.smd));
  // Too few items.
  r = st::paired_t(std::vector<double>{1.0}, std::vector<double>{0.0});
  EXPECT_TRUE(std::isnan(r.t));
  EXPECT_TRUE(std::isnan(r.smd));
  EXPECT_THROW(st::paired_t(c, std::vector<double>{1.0}), std::invalid_argument);
}

TEST(StatsDistributions, EdgeCases) {
  const double inf = std::numeric_limits<double>::infinity();
  EXPECT_DOUBLE_EQ(st::student_t_cdf(1.3, inf), st::normal_cdf(1.3));
  EXPECT_NEAR(st::student_t_cdf(1.3, 1e12), st::normal_cdf(1.3), 1e-12);
  EXPECT_TRUE(std::isnan(st::student_t_cdf(1.0, 0.0)));
  EXPECT_TRUE(std::isnan(st::student_t_cdf(1.0, -2.0)));
  EXPECT_TRUE(std::isnan(st::student_t_cdf(NAN, 3.0)));
  EXPECT_EQ(st::student_t_cdf(inf, 3.0), 1.0);
  EXPECT_EQ(st::student_t_cdf(-inf, 3.0), 0.0);
  EXPECT_EQ(st::student_t_cdf(1e300, 3.0), 1.0);
  EXPECT_GT(st::student_t_cdf(-1e8, 3.0), 0.0);  // deep tail, no underflow yet
  EXPECT_EQ(st::normal_ppf(0.0), -inf);
  EXPECT_EQ(st::normal_ppf(1.0), inf);
  EXPECT_TRUE(std::isnan(st::normal_ppf(1.5)));
  EXPECT_NEAR(st::normal_cdf(st::normal_ppf(0.123)), 0.123, 1e-15);
}

TEST(StatsMultipleTesting, UndefinedPValuesAreLeftOut) {
  const std::vector<double> p = {0.01, NAN, 0.04, 0.03};
  const auto h = st::holm(p, 0.05);
  const auto h3 = st::holm(std::vector<double>{0.01, 0.04, 0.03}, 0.05);
  EXPECT_TRUE(std::isnan(h.adjusted[1]));
  EXPECT_FALSE(h.reject[1]);
  EXPECT_EQ(h.adjusted[0], h3.adjusted[0]);
  EXPECT_EQ(h.adjusted[2], h3.adjusted[1]);
  EXPECT_EQ(h.adjusted[3], h3.adjusted[2]);
  const auto bh = st::benjamini_hochberg(p, 0.05);
  EXPECT_TRUE(std::isnan(bh.adjusted[1]));
  EXPECT_DOUBLE_EQ(bh.adjusted[0], 0.03);
  EXPECT_TRUE(bh.reject[0] && bh.reject[2] && bh.reject[3]);
  EXPECT_TRUE(st::holm(std::vector<double>{}, 0.05).adjusted.empty());
  EXPECT_THROW(st::holm(std::vector<double>{1.5}, 0.05), std::invalid_argument);
  EXPECT_THROW(st::benjamini_hochberg(std::vector<double>{0.5}, 0.0), std::invalid_argument);
}

TEST(StatsMultipleTesting, RankCorrectionsByName) {
  const std::vector<double> p = {0.01, NAN, 0.04, 0.03};
  EXPECT_EQ(st::adjust_p_values(p, st::RankCorrection::kHolm, 0.05)[3], st::holm(p).adjusted[3]);
  EXPECT_EQ(st::adjust_p_values(p, st::RankCorrection::kBenjaminiHochberg)[0],
            st::benjamini_hochberg(p).adjusted[0]);
  const auto none = st::adjust_p_values(p, st::RankCorrection::kNone);
  EXPECT_EQ(none[2], 0.04);
  EXPECT_TRUE(std::isnan(none[1]));
  for (auto c : {st::RankCorrection::kNone, st::RankCorrection::kHolm,
                 st::RankCorrection::kBenjaminiHochberg})
    EXPECT_EQ(st::parse_rank_correction(st::rank_correction_name(c)), c);
  EXPECT_THROW(st::parse_rank_correction("bonferroni"), std::invalid_argument);
}

TEST(StatsCem, PerfectAndInvalidInput) {
  const std::vector<double> levels = {1, 2, 3};
  const std::vector<double> gold = {1, 2, 2, 3, 3, 3};
  EXPECT_EQ(st::cem_ord(gold, gold, levels), 1.0);
  // Predicting farther from the gold class is never closer.
  const std::vector<double> near = {2, 2, 2, 3, 3, 3}, far = {3, 2, 2, 3, 3, 3};
  EXPECT_GT(st::cem_ord(near, gold, levels), st::cem_ord(far, gold, levels));
  EXPECT_THROW(st::cem_ord(std::vector<double>{4, 2, 2, 3, 3, 3}, gold, levels),
               std::invalid_argument);
  EXPECT_THROW(st::cem_ord(gold, gold, std::vector<double>{3, 2, 1}), std::invalid_argument);
  EXPECT_THROW(st::cem_ord(near, std::vector<double>{1, 2}, levels), std::invalid_argument);
}

// TOST with the margin in d units = statsmodels' ttost_paired with +-margin * pooled sd
// (tests/golden/gen/equivalence.py).
TEST(StatsEquivalence, MatchesStatsmodelsTtostPaired) {
  std::ifstream in(probity::test::golden_path("equivalence.json"));
  ASSERT_TRUE(in) << "missing tests/golden/equivalence.json";
  const auto g = nlohmann::json::parse(in);
  ASSERT_GE(g.at("cases").size(), 25u);
  for (const auto& c : g.at("cases")) {
    const auto o = c.at("original").get<std::vector<double>>();
    const auto p = c.at("perturbed").get<std::vector<double>>();
    const auto r = st::paired_t(p, o);
    const auto e = st::paired_equivalence(r, c.at("margin").get<double>());
    const std::string what = c.at("name").get<std::string>();
    const auto near = [](double a, double b) { return std::abs(a - b) <= 1e-9 * std::abs(b); };
    EXPECT_TRUE(near(r.pooled_sd, c.at("pooled_sd").get<double>())) << what;
    EXPECT_TRUE(near(e.p_above_lower, c.at("p_above_lower").get<double>()))
        << what << ": " << e.p_above_lower;
    EXPECT_TRUE(near(e.p_below_upper, c.at("p_below_upper").get<double>()))
        << what << ": " << e.p_below_upper;
  }
  // Differences that do not vary: the statistic is infinite, the equivalence certain or
  // impossible (a rise of 1 = 1 pooled sd is above a margin of 0.1 sd, below one of 2 sd).
  const std::vector<double> o = {1, 2, 3}, p = {2, 3, 4};
  auto e = st::paired_equivalence(st::paired_t(p, o), 0.1);
  EXPECT_EQ(e.p_above_lower, 0.0);
  EXPECT_EQ(e.p_below_upper, 1.0);
  e = st::paired_equivalence(st::paired_t(p, o), 2.0);
  EXPECT_EQ(e.p_below_upper, 0.0);
  e = st::paired_equivalence(st::paired_t(o, o), 0.1);  // no change at all: both ruled out
  EXPECT_EQ(e.p_above_lower, 0.0);
  EXPECT_EQ(e.p_below_upper, 0.0);
  e = st::paired_equivalence(st::paired_t(std::vector<double>{1}, std::vector<double>{2}), 0.1);
  EXPECT_TRUE(std::isnan(e.p_above_lower) && std::isnan(e.p_below_upper));
}
