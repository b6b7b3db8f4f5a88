#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <random>
#include <stdexcept>
#include <utility>
#include <vector>

#include "probity/stats.hpp"

namespace st = probity::stats;

namespace {

std::vector<double> random_levels(std::size_t n, int levels, std::mt19937_64& gen) {
  std::uniform_int_distribution<int> pick(0, levels - 1);
  std::vector<double> v(n);
  for (double& a : v) a = pick(gen);
  return v;
}

// Kendall's tau-b and tau-c from an O(n^2) count of pairs.
std::pair<double, double> brute_force_tau(const std::vector<double>& x,
                                          const std::vector<double>& y) {
  double s = 0.0, tx = 0.0, ty = 0.0, pairs = 0.0;
  for (std::size_t i = 0; i < x.size(); ++i) {
    for (std::size_t j = i + 1; j < x.size(); ++j) {
      const double dx = x[j] - x[i], dy = y[j] - y[i];
      s += static_cast<double>(((dx > 0) - (dx < 0)) * ((dy > 0) - (dy < 0)));
      tx += dx == 0;
      ty += dy == 0;
      pairs += 1;
    }
  }
  auto distinct = [](std::vector<double> v) {
    std::sort(v.begin(), v.end());
    return static_cast<double>(std::unique(v.begin(), v.end()) - v.begin());
  };
  const double m = std::min(distinct(x), distinct(y));
  const double n = static_cast<double>(x.size());
  return {s / std::sqrt((pairs - tx) * (pairs - ty)), 2.0 * s / (n * n * (m - 1) / m)};
}

}  // namespace

TEST(StatsCorrelation, SpearmanIsInvariantUnderMonotoneTransforms) {
  std::mt19937_64 gen(1);
  std::normal_distribution<double> normal;
  std::vector<double> x(200), y(200);
  for (std::size_t i = 0; i < x.size(); ++i) {
    x[i] = normal(gen);
    y[i] = x[i] + normal(gen);
  }
  const auto base = st::spearman(x, y);
  std::vector<double> ex, affine, cube;
  for (double a : x) {
    ex.push_back(std::exp(a));
    affine.push_back(3.0 * a - 7.0);
    cube.push_back(a * a * a);
  }
  for (const auto* t : {&ex, &affine, &cube}) {
    const auto r = st::spearman(*t, y);
    EXPECT_EQ(r.statistic, base.statistic);
    EXPECT_EQ(r.p_two_sided, base.p_two_sided);
    EXPECT_EQ(st::kendall_tau_b(*t, y).statistic, st::kendall_tau_b(x, y).statistic);
  }
  // A decreasing transform flips the sign.
  std::vector<double> neg;
  for (double a : x) neg.push_back(-a);
  EXPECT_EQ(st::spearman(neg, y).statistic, -base.statistic);
}

TEST(StatsCorrelation, KendallMatchesAPairCountWithTies) {
  std::mt19937_64 gen(2);
  for (int trial = 0; trial < 20; ++trial) {
    const std::size_t n = 5 + static_cast<std::size_t>(trial) * 7;
    const auto x = random_levels(n, 3 + trial % 5, gen);
    const auto y = random_levels(n, 2 + trial % 7, gen);
    const auto [b, c] = brute_force_tau(x, y);
    const auto rb = st::kendall_tau_b(x, y), rc = st::kendall_tau_c(x, y);
    if (std::isnan(b)) {
      EXPECT_TRUE(std::isnan(rb.statistic));
      continue;
    }
    EXPECT_NEAR(rb.statistic, b, 1e-12) << "n=" << n;
    EXPECT_NEAR(rc.statistic, c, 1e-12) << "n=" << n;
    EXPECT_EQ(rb.p_two_sided, rc.p_two_sided);
  }
}

TEST(StatsCorrelation, KendallHandlesLargeInputs) {
  std::mt19937_64 gen(3);
  std::normal_distribution<double> normal;
  const std::size_t n = 100000;
  std::vector<double> x(n), y(n);
  for (std::size_t i = 0; i < n; ++i) {
    x[i] = normal(gen);
    y[i] = std::round(x[i] + normal(gen));  // heavy ties in y
  }
  const auto r = st::kendall_tau_b(x, y);
  EXPECT_GT(r.statistic, 0.4);
  EXPECT_LT(r.statistic, 0.7);
  EXPECT_EQ(r.p_two_sided, 0.0);  // underflows, as in SciPy
  const auto self = st::kendall_tau_b(x, x);
  EXPECT_EQ(self.statistic, 1.0);
}

TEST(StatsCorrelation, UndefinedAndInvalidInput) {
  const std::vector<double> x = {1, 2, 3, 4}, nan_x = {1, NAN, 3, 4}, shorter = {1, 2, 3};
  for (auto type : {st::CorrelationType::kPearson, st::CorrelationType::kSpearman,
                    st::CorrelationType::kKendallB, st::CorrelationType::kKendallC}) {
    const auto r = st::correlation(type, nan_x, x);
    EXPECT_TRUE(std::isnan(r.statistic));
    EXPECT_TRUE(std::isnan(r.p_two_sided));
    const auto one = st::correlation(type, std::vector<double>{1}, std::vector<double>{2});
    EXPECT_TRUE(std::isnan(one.statistic));
    EXPECT_THROW(st::correlation(type, x, shorter), std::invalid_argument);
  }
  const auto ranks = st::rankdata_average(nan_x);
  for (double r : ranks) EXPECT_TRUE(std::isnan(r));
}

TEST(StatsCorrelation, NamesRoundTrip) {
  for (auto type : {st::CorrelationType::kPearson, st::CorrelationType::kSpearman,
                    st::CorrelationType::kKendallB, st::CorrelationType::kKendallC}) {
    EXPECT_EQ(st::parse_correlation_type(st::correlation_name(type)), type);
  }
  EXPECT_EQ(st::parse_correlation_type("kendall"), st::CorrelationType::kKendallB);
  // The level statistics' spelling of tau-c is accepted too; the printed name stays kendall_c.
  EXPECT_EQ(st::parse_correlation_type("kendall-c"), st::CorrelationType::kKendallC);
  EXPECT_EQ(st::correlation_name(st::CorrelationType::kKendallC), "kendall_c");
  EXPECT_EQ(st::correlation_name(st::CorrelationType::kKendallB), "kendall_b");
  try {
    st::parse_correlation_type("tau");
    ADD_FAILURE() << "no exception";
  } catch (const std::invalid_argument& e) {
    EXPECT_STREQ(e.what(),
                 "unknown correlation 'tau' (pearson, spearman, kendall, kendall_b, "
                 "kendall_c)");
  }
}

// SciPy 1.10.1 kendalltau p-values at the edges of its "auto" rule (exact when there are no ties
// and n <= 33 or at most one discordant pair), from /usr/bin/python3:
//   rng = np.random.default_rng(5); x = np.arange(33.); y = np.round(x + rng.normal(0, 6, 33), 3)
//   x2 = np.arange(40.); y2 = x2 with items 3, 4 swapped; y3 = y2 with items 10, 11 swapped too
TEST(StatsCorrelation, KendallPValueMethodFollowsScipy) {
  std::vector<double> x(33);
  for (std::size_t i = 0; i < x.size(); ++i) x[i] = static_cast<double>(i);
  const std::vector<double> y = {
      -4.812, -6.946, 0.51,   5.523,  10.816, 5.658,  2.684,  2.291,  12.492, 18.809, 11.637,
      3.6,    6.25,   22.6,   15.217, 4.607,  15.498, 10.021, 14.224, 16.072, 15.72,  24.32,
      21.621, 19.463, 26.458, 29.979, 16.142, 25.46,  22.116, 27.961, 22.263, 31.124, 31.773};
  const auto exact = st::kendall_tau_b(x, y);  // n = 33: exact distribution
  EXPECT_NEAR(exact.statistic, 0.7121212121212122, 1e-15);
  EXPECT_NEAR(exact.p_two_sided, 7.61670730448581e-11, 1e-9 * 7.61670730448581e-11);

  std::vector<double> x2(40);
  for (std::size_t i = 0; i < x2.size(); ++i) x2[i] = static_cast<double>(i);
  std::vector<double> y2 = x2;
  std::swap(y2[3], y2[4]);  // one discordant pair: exact although n > 33
  const auto one = st::kendall_tau_b(x2, y2);
  EXPECT_NEAR(one.p_two_sided, 9.804939513027087e-47, 1e-9 * 9.804939513027087e-47);
  std::swap(y2[10], y2[11]);  // two: normal approximation
  const auto two = st::kendall_tau_b(x2, y2);
  EXPECT_NEAR(two.statistic, 0.994871794871795, 1e-15);
  EXPECT_NEAR(two.p_two_sided, 1.549572233556233e-19, 1e-9 * 1.549572233556233e-19);
}
