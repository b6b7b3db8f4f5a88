#include <gtest/gtest.h>

#include <cmath>
#include <cstring>
#include <random>
#include <stdexcept>
#include <vector>

#include "probity/stats.hpp"

namespace st = probity::stats;

namespace {

constexpr st::CorrelationType kTypes[] = {
    st::CorrelationType::kPearson, st::CorrelationType::kSpearman, st::CorrelationType::kKendallB,
    st::CorrelationType::kKendallC};

struct Scores {
  std::vector<double> human, good, bad;
};

// human: a 1-5 rating (ties); good tracks it closely, bad loosely.
Scores scores(std::size_t n, unsigned seed) {
  std::mt19937_64 gen(seed);
  std::normal_distribution<double> normal;
  Scores s;
  for (std::size_t i = 0; i < n; ++i) {
    const double truth = normal(gen);
    s.human.push_back(std::round(std::clamp(3.0 + truth, 1.0, 5.0)));
    s.good.push_back(10.0 * (truth + 0.5 * normal(gen)));  // another scale on purpose
    s.bad.push_back(truth + 2.0 * normal(gen));
  }
  return s;
}

std::vector<double> zscore(const std::vector<double>& v) {
  double mean = 0.0;
  for (double a : v) mean += a;
  mean /= static_cast<double>(v.size());
  double ss = 0.0;
  for (double a : v) ss += (a - mean) * (a - mean);
  const double sd = std::sqrt(ss / static_cast<double>(v.size()));
  std::vector<double> z;
  for (double a : v) z.push_back((a - mean) / sd);
  return z;
}

}  // namespace

TEST(StatsPermutation, MetricAgainstItselfGivesPOne) {
  const Scores s = scores(80, 1);
  for (auto type : kTypes) {
    for (auto alt :
         {st::Alternative::kTwoSided, st::Alternative::kGreater, st::Alternative::kLess}) {
      st::PermutationOptions o;
      o.permutations = 200;
      o.alternative = alt;
      const auto r = st::permutation_correlation_diff(s.good, s.good, s.human, type, o);
      EXPECT_EQ(r.delta, 0.0) << st::correlation_name(type);
      EXPECT_EQ(r.p, 1.0) << st::correlation_name(type);
      EXPECT_EQ(r.extreme, 200u);
    }
  }
}

TEST(StatsPermutation, ThreadCountDoesNotChangeAnyBit) {
  const Scores s = scores(250, 2);
  for (auto type : kTypes) {
    st::PermutationOptions o;
    o.permutations = 301;
    o.seed = 17;
    o.threads = 1;
    const auto one = st::permutation_correlation_diff(s.good, s.bad, s.human, type, o);
    for (unsigned threads : {2u, 3u}) {
      o.threads = threads;
      const auto many = st::permutation_correlation_diff(s.good, s.bad, s.human, type, o);
      EXPECT_EQ(std::memcmp(&one.delta, &many.delta, sizeof(double)), 0);
      EXPECT_EQ(std::memcmp(&one.p, &many.p, sizeof(double)), 0);
      EXPECT_EQ(one.extreme, many.extreme);
      EXPECT_EQ(one.permutations, many.permutations);
    }
  }
}

// The rank-walk fast paths agree with recomputing the correlations from scratch.
TEST(StatsPermutation, FastPathsMatchTheGenericTest) {
  const Scores s = scores(150, 3);
  const std::vector<double> za = zscore(s.good), zb = zscore(s.bad);
  for (auto type : kTypes) {
    st::PermutationOptions o;
    o.permutations = 400;
    o.seed = 5;
    o.alternative = st::Alternative::kGreater;
    o.standardize = false;
    const auto fast = st::permutation_correlation_diff(za, zb, s.human, type, o);
    const st::PairStatistic diff = [&](std::span<const double> a, std::span<const double> b) {
      return st::correlation(type, a, s.human).statistic -
             st::correlation(type, b, s.human).statistic;
    };
    const auto slow = st::paired_permutation_test(za, zb, diff, o);
    EXPECT_NEAR(fast.delta, slow.delta, 1e-12) << st::correlation_name(type);
    EXPECT_EQ(fast.extreme, slow.extreme) << st::correlation_name(type);
    EXPECT_EQ(fast.p, slow.p);
  }
}

TEST(StatsPermutation, DetectsAClearDifference) {
  const Scores s = scores(300, 4);
  for (auto type : kTypes) {
    st::PermutationOptions o;
    o.permutations = 500;
    const auto two = st::permutation_correlation_diff(s.good, s.bad, s.human, type, o);
    EXPECT_GT(two.delta, 0.0);
    EXPECT_LT(two.p, 0.01) << st::correlation_name(type);
    o.alternative = st::Alternative::kGreater;
    EXPECT_LT(st::permutation_correlation_diff(s.good, s.bad, s.human, type, o).p, 0.01);
    o.alternative = st::Alternative::kLess;
    EXPECT_GT(st::permutation_correlation_diff(s.good, s.bad, s.human, type, o).p, 0.99);
    // Reversing the roles flips the sign and the one-sided direction.
    const auto rev = st::permutation_correlation_diff(s.bad, s.good, s.human, type, o);
    EXPECT_NEAR(rev.delta, -two.delta, 1e-12);
    EXPECT_LT(rev.p, 0.01);
  }
}

TEST(StatsPermutation, AddOneNeverReportsZero) {
  const Scores s = scores(300, 4);
  st::PermutationOptions o;
  o.permutations = 200;
  const auto plain =
      st::permutation_correlation_diff(s.good, s.bad, s.human, st::CorrelationType::kSpearman, o);
  o.add_one = true;
  const auto plus =
      st::permutation_correlation_diff(s.good, s.bad, s.human, st::CorrelationType::kSpearman, o);
  EXPECT_EQ(plain.extreme, plus.extreme);
  EXPECT_EQ(plus.p, static_cast<double>(plus.extreme + 1) / 201.0);
  EXPECT_GT(plus.p, 0.0);
}

// Accuracy of two classifiers on the same items (1 = correct), via the generic callback.
TEST(StatsPermutation, GenericStatisticForAccuracies) {
  std::mt19937_64 gen(8);
  std::bernoulli_distribution better(0.8), worse(0.6), same(0.7);
  std::vector<double> a, b, c, d;
  for (int i = 0; i < 400; ++i) {
    a.push_back(better(gen));
    b.push_back(worse(gen));
    c.push_back(same(gen));
    d.push_back(same(gen));
  }
  const st::PairStatistic accuracy_gap = [](std::span<const double> x, std::span<const double> y) {
    double s = 0.0;
    for (std::size_t i = 0; i < x.size(); ++i) s += x[i] - y[i];
    return s / static_cast<double>(x.size());
  };
  st::PermutationOptions o;
  o.permutations = 1000;
  const auto clear = st::paired_permutation_test(a, b, accuracy_gap, o);
  EXPECT_GT(clear.delta, 0.1);
  EXPECT_LT(clear.p, 0.005);
  const auto null = st::paired_permutation_test(c, d, accuracy_gap, o);
  EXPECT_GT(null.p, 0.05);
  const auto self = st::paired_permutation_test(a, a, accuracy_gap, o);
  EXPECT_EQ(self.p, 1.0);
}

TEST(StatsPermutation, UndefinedAndInvalidInput) {
  const Scores s = scores(50, 9);
  const std::vector<double> constant(50, 1.0), shorter(49, 1.0);
  const auto r =
      st::permutation_correlation_diff(constant, s.bad, s.human, st::CorrelationType::kPearson);
  EXPECT_TRUE(std::isnan(r.delta));
  EXPECT_TRUE(std::isnan(r.p));
  EXPECT_THROW(
      st::permutation_correlation_diff(shorter, s.bad, s.human, st::CorrelationType::kPearson),
      std::invalid_argument);
  st::PermutationOptions o;
  o.permutations = 0;
  EXPECT_THROW(
      st::permutation_correlation_diff(s.good, s.bad, s.human, st::CorrelationType::kPearson, o),
      std::invalid_argument);
}

// The Spearman evaluator (ranks from the pooled sort by prefix counts, the human's sums once)
// against the formula it had, recomputed from scratch per permutation: the same bits for delta,
// the same extreme permutations, with ties within and across the two metrics.
TEST(StatsPermutation, SpearmanFastPathKeepsItsBits) {
  const Scores s = scores(301, 8);
  std::vector<double> za = zscore(s.good), zb = zscore(s.bad);
  for (double& v : za) v = std::round(v * 4.0) / 4.0;
  for (double& v : zb) v = std::round(v * 4.0) / 4.0;
  auto rho = [&](std::span<const double> v) {
    const std::vector<double> r = st::rankdata_average(v), h = st::rankdata_average(s.human);
    const double mean = (static_cast<double>(v.size()) + 1.0) / 2.0;
    double xx = 0, yy = 0, xy = 0;
    for (std::size_t i = 0; i < v.size(); ++i) {
      xx += (r[i] - mean) * (r[i] - mean);
      yy += (h[i] - mean) * (h[i] - mean);
      xy += (r[i] - mean) * (h[i] - mean);
    }
    return xx == 0.0 ? std::nan("") : std::clamp(xy / std::sqrt(xx * yy), -1.0, 1.0);
  };
  const st::PairStatistic diff = [&](std::span<const double> a, std::span<const double> b) {
    return rho(a) - rho(b);
  };
  for (auto alt : {st::Alternative::kTwoSided, st::Alternative::kGreater, st::Alternative::kLess})
    for (std::uint64_t seed : {1u, 2u}) {
      st::PermutationOptions o;
      o.permutations = 300;
      o.seed = seed;
      o.alternative = alt;
      o.standardize = false;
      const auto fast =
          st::permutation_correlation_diff(za, zb, s.human, st::CorrelationType::kSpearman, o);
      const auto slow = st::paired_permutation_test(za, zb, diff, o);
      EXPECT_EQ(std::memcmp(&fast.delta, &slow.delta, sizeof(double)), 0)
          << fast.delta << " vs " << slow.delta;
      EXPECT_EQ(fast.extreme, slow.extreme);
      EXPECT_EQ(fast.permutations, slow.permutations);
    }
}
