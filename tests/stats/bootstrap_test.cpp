#include <gtest/gtest.h>

#include <cmath>
#include <cstring>
#include <numeric>
#include <random>
#include <stdexcept>
#include <vector>

#include "probity/stats.hpp"

namespace st = probity::stats;

namespace {

struct Pair {
  std::vector<double> x, y;
};

// Correlated scores with ties in y (a 1-5 rating scale), like metric vs human ratings.
Pair correlated(std::size_t n, unsigned seed) {
  std::mt19937_64 gen(seed);
  std::normal_distribution<double> normal;
  Pair p;
  for (std::size_t i = 0; i < n; ++i) {
    const double truth = normal(gen);
    p.x.push_back(truth + 0.8 * normal(gen));
    p.y.push_back(std::round(std::clamp(3.0 + truth, 1.0, 5.0)));
  }
  return p;
}

bool bit_identical(const std::vector<double>& a, const std::vector<double>& b) {
  return a.size() == b.size() && std::memcmp(a.data(), b.data(), a.size() * sizeof(double)) == 0;
}

bool bit_identical(double a, double b) {
  return std::memcmp(&a, &b, sizeof(double)) == 0;
}

void expect_rel(double actual, double expected, double tol) {
  EXPECT_LE(std::abs(actual - expected), tol * std::abs(expected))
      << "expected " << expected << ", got " << actual;
}

}  // namespace

// Reference values from SciPy 1.10.1 on a fixed bootstrap distribution (SciPy's RNG differs from
// ours, so only the interval construction is compared). Produced with /usr/bin/python3:
//   x = np.array([2.1, 3.4, 1.9, 5.6, 4.4, 3.3, 2.8, 7.9, 3.1, 4.0, 2.2, 6.5, 3.8, 2.9, 4.7])
//   rng = np.random.default_rng(7)
//   dist = np.round([x[rng.integers(0, 15, 15)].mean() for _ in range(40)], 6)
//   prev = stats._resampling.BootstrapResult(confidence_interval=None,
//                                            bootstrap_distribution=dist, standard_error=None)
//   stats.bootstrap((x,), np.mean, n_resamples=0, bootstrap_result=prev, method=m,
//                   confidence_level=c).confidence_interval   # m in BCa, percentile
TEST(StatsBootstrap, IntervalsMatchScipyOnAFixedDistribution) {
  const std::vector<double> x = {2.1, 3.4, 1.9, 5.6, 4.4, 3.3, 2.8, 7.9,
                                 3.1, 4.0, 2.2, 6.5, 3.8, 2.9, 4.7};
  const std::vector<double> dist = {
      3.966667, 4.8,      4.08,     3.793333, 4.22,     3.693333, 4.106667, 3.453333,
      3.266667, 4.1,      4.08,     3.486667, 4.033333, 3.493333, 4.246667, 3.726667,
      4.34,     3.573333, 4.66,     3.626667, 3.98,     4.033333, 4.006667, 3.32,
      3.466667, 3.733333, 3.546667, 3.96,     3.84,     4.46,     3.546667, 3.533333,
      3.24,     4.253333, 3.76,     4.253333, 3.353333, 4.04,     3.846667, 4.173333};
  const double estimate = std::accumulate(x.begin(), x.end(), 0.0) / 15.0;
  std::vector<double> jackknife;
  for (std::size_t j = 0; j < x.size(); ++j) {
    double s = 0.0;
    for (std::size_t i = 0; i < x.size(); ++i) s += i == j ? 0.0 : x[i];
    jackknife.push_back(s / 14.0);
  }
  const double tol = 1e-12;
  auto bca90 = st::bca_interval(estimate, dist, jackknife, 0.9);
  expect_rel(bca90.low, 3.333945464967953, tol);
  expect_rel(bca90.high, 4.559138054755142, tol);
  auto bca95 = st::bca_interval(estimate, dist, jackknife, 0.95);
  expect_rel(bca95.low, 3.286395769808223, tol);
  expect_rel(bca95.high, 4.710925402475658, tol);
  auto pct90 = st::percentile_interval(dist, 0.9);
  expect_rel(pct90.low, 3.3173333499999997, tol);
  expect_rel(pct90.high, 4.47, tol);
  auto pct95 = st::percentile_interval(dist, 0.95);
  expect_rel(pct95.low, 3.266000325, tol);
  expect_rel(pct95.high, 4.6635, tol);
}

TEST(StatsBootstrap, BcaIsUndefinedForADegenerateDistribution) {
  const std::vector<double> dist(50, 1.0), jack(10, 1.0);
  const auto ci = st::bca_interval(1.0, dist, jack, 0.95);
  EXPECT_TRUE(std::isnan(ci.low));
  EXPECT_TRUE(std::isnan(ci.high));
}

TEST(StatsBootstrap, ThreadCountDoesNotChangeAnyBit) {
  const Pair d = correlated(300, 1);
  std::vector<std::size_t> clusters;
  for (std::size_t i = 0; i < d.x.size(); ++i) clusters.push_back(i / 7);
  for (auto type : {st::CorrelationType::kPearson, st::CorrelationType::kSpearman,
                    st::CorrelationType::kKendallB, st::CorrelationType::kKendallC}) {
    for (bool clustered : {false, true}) {
      st::BootstrapOptions o;
      o.resamples = 333;
      o.method = st::CiMethod::kBCa;
      o.seed = 42;
      if (clustered) o.clusters = clusters;
      o.threads = 1;
      const auto one = st::bootstrap_correlation(d.x, d.y, type, o);
      for (unsigned threads : {2u, 3u}) {
        o.threads = threads;
        const auto many = st::bootstrap_correlation(d.x, d.y, type, o);
        EXPECT_TRUE(bit_identical(one.distribution, many.distribution))
            << st::correlation_name(type) << " threads=" << threads;
        EXPECT_TRUE(bit_identical(one.ci.low, many.ci.low));
        EXPECT_TRUE(bit_identical(one.ci.high, many.ci.high));
        EXPECT_TRUE(bit_identical(one.standard_error, many.standard_error));
      }
    }
  }
  // The generic callback path too.
  const st::IndexStatistic mean = [&](std::span<const std::size_t> idx) {
    double s = 0.0;
    for (std::size_t i : idx) s += d.x[i];
    return s / static_cast<double>(idx.size());
  };
  st::BootstrapOptions o;
  o.resamples = 257;
  o.method = st::CiMethod::kBCa;
  o.threads = 1;
  const auto one = st::bootstrap(d.x.size(), mean, o);
  o.threads = 3;
  const auto three = st::bootstrap(d.x.size(), mean, o);
  EXPECT_TRUE(bit_identical(one.distribution, three.distribution));
  EXPECT_TRUE(bit_identical(one.ci.low, three.ci.low));
  EXPECT_TRUE(bit_identical(one.ci.high, three.ci.high));
}

TEST(StatsBootstrap, SeedSelectsTheResamples) {
  const Pair d = correlated(100, 2);
  st::BootstrapOptions o;
  o.resamples = 50;
  o.seed = 1;
  const auto a = st::bootstrap_correlation(d.x, d.y, st::CorrelationType::kSpearman, o);
  const auto b = st::bootstrap_correlation(d.x, d.y, st::CorrelationType::kSpearman, o);
  o.seed = 2;
  const auto c = st::bootstrap_correlation(d.x, d.y, st::CorrelationType::kSpearman, o);
  EXPECT_TRUE(bit_identical(a.distribution, b.distribution));
  EXPECT_FALSE(bit_identical(a.distribution, c.distribution));
}

// The weighted fast paths give what the plain correlation gives on the materialized resample.
TEST(StatsBootstrap, FastPathsMatchMaterializedResamples) {
  const Pair d = correlated(120, 3);
  for (auto type : {st::CorrelationType::kPearson, st::CorrelationType::kSpearman,
                    st::CorrelationType::kKendallB, st::CorrelationType::kKendallC}) {
    st::BootstrapOptions o;
    o.resamples = 200;
    o.seed = 9;
    o.method = st::CiMethod::kBCa;
    const auto fast = st::bootstrap_correlation(d.x, d.y, type, o);
    const st::IndexStatistic plain = [&](std::span<const std::size_t> idx) {
      std::vector<double> xs, ys;
      for (std::size_t i : idx) {
        xs.push_back(d.x[i]);
        ys.push_back(d.y[i]);
      }
      return st::correlation(type, xs, ys).statistic;
    };
    const auto slow = st::bootstrap(d.x.size(), plain, o);
    ASSERT_EQ(fast.distribution.size(), slow.distribution.size());
    for (std::size_t b = 0; b < fast.distribution.size(); ++b) {
      EXPECT_NEAR(fast.distribution[b], slow.distribution[b], 1e-13)
          << st::correlation_name(type) << " resample " << b;
    }
    EXPECT_EQ(fast.estimate, slow.estimate);
    EXPECT_NEAR(fast.ci.low, slow.ci.low, 1e-12);
    EXPECT_NEAR(fast.ci.high, slow.ci.high, 1e-12);
  }
}

TEST(StatsBootstrap, IntervalContainsTheEstimate) {
  const Pair d = correlated(200, 4);
  for (auto method : {st::CiMethod::kPercentile, st::CiMethod::kBCa}) {
    for (auto type : {st::CorrelationType::kPearson, st::CorrelationType::kSpearman,
                      st::CorrelationType::kKendallB}) {
      st::BootstrapOptions o;
      o.method = method;
      o.seed = 5;
      const auto r = st::bootstrap_correlation(d.x, d.y, type, o);
      EXPECT_EQ(r.estimate, st::correlation(type, d.x, d.y).statistic);
      EXPECT_LT(r.ci.low, r.estimate) << st::correlation_name(type);
      EXPECT_GT(r.ci.high, r.estimate) << st::correlation_name(type);
      EXPECT_GT(r.standard_error, 0.0);
      EXPECT_LT(r.ci.high - r.ci.low, 0.5);
      EXPECT_EQ(r.undefined, 0u);
    }
  }
}

// For the mean of symmetric data the bias correction and acceleration are near zero.
TEST(StatsBootstrap, BcaIsCloseToPercentileForASymmetricStatistic) {
  std::mt19937_64 gen(11);
  std::normal_distribution<double> normal;
  std::vector<double> v(400);
  for (double& a : v) a = normal(gen);
  const st::IndexStatistic mean = [&](std::span<const std::size_t> idx) {
    double s = 0.0;
    for (std::size_t i : idx) s += v[i];
    return s / static_cast<double>(idx.size());
  };
  st::BootstrapOptions o;
  o.resamples = 4000;
  o.seed = 3;
  const auto pct = st::bootstrap(v.size(), mean, o);
  o.method = st::CiMethod::kBCa;
  const auto bca = st::bootstrap(v.size(), mean, o);
  EXPECT_TRUE(bit_identical(pct.distribution, bca.distribution));
  const double width = pct.ci.high - pct.ci.low;
  EXPECT_NEAR(bca.ci.low, pct.ci.low, 0.05 * width);
  EXPECT_NEAR(bca.ci.high, pct.ci.high, 0.05 * width);
}

TEST(StatsBootstrap, ClustersAreResampledWhole) {
  // Singleton clusters numbered like the items reproduce the item bootstrap exactly.
  const Pair d = correlated(60, 6);
  std::vector<std::size_t> singletons(d.x.size());
  std::iota(singletons.begin(), singletons.end(), std::size_t{100});
  st::BootstrapOptions o;
  o.resamples = 100;
  const auto plain = st::bootstrap_correlation(d.x, d.y, st::CorrelationType::kSpearman, o);
  o.clusters = singletons;
  const auto single = st::bootstrap_correlation(d.x, d.y, st::CorrelationType::kSpearman, o);
  EXPECT_TRUE(bit_identical(plain.distribution, single.distribution));

  // Clusters of unequal size (labels interleaved): every resample is a union of whole clusters.
  const std::size_t n = 30;
  std::vector<std::size_t> label(n);
  for (std::size_t i = 0; i < n; ++i) label[i] = (i * 7) % 5 == 0 ? 9 : i % 4;
  o.clusters = label;
  o.method = st::CiMethod::kBCa;
  o.threads = 1;  // the check below writes to shared state
  bool whole = true;
  const st::IndexStatistic check = [&](std::span<const std::size_t> idx) {
    std::vector<std::size_t> per_label(10, 0);
    for (std::size_t i : idx) ++per_label[label[i]];
    std::vector<std::size_t> size(10, 0);
    for (std::size_t l : label) ++size[l];
    for (std::size_t l = 0; l < 10; ++l) {
      if (size[l] != 0 && per_label[l] % size[l] != 0) whole = false;
    }
    return static_cast<double>(idx.size());
  };
  const auto r = st::bootstrap(n, check, o);
  EXPECT_TRUE(whole);
  EXPECT_EQ(r.estimate, 30.0);
}

TEST(StatsBootstrap, RejectsBadOptions) {
  const Pair d = correlated(20, 7);
  st::BootstrapOptions o;
  o.confidence = 1.0;
  EXPECT_THROW(st::bootstrap_correlation(d.x, d.y, st::CorrelationType::kPearson, o),
               std::invalid_argument);
  o.confidence = 0.95;
  o.clusters = {1, 2, 3};
  EXPECT_THROW(st::bootstrap_correlation(d.x, d.y, st::CorrelationType::kPearson, o),
               std::invalid_argument);
  o.clusters.clear();
  o.resamples = 0;
  EXPECT_THROW(st::bootstrap_correlation(d.x, d.y, st::CorrelationType::kPearson, o),
               std::invalid_argument);
  const std::vector<double> shorter(19, 1.0);
  o.resamples = 10;
  EXPECT_THROW(st::bootstrap_correlation(d.x, shorter, st::CorrelationType::kPearson, o),
               std::invalid_argument);
}

TEST(StatsBootstrap, UndefinedResamplesAreLeftOut) {
  // Two distinct values among 6 items: some resamples are constant, their correlation undefined.
  const std::vector<double> x = {0, 0, 0, 0, 0, 1}, y = {1, 2, 3, 4, 5, 6};
  st::BootstrapOptions o;
  o.resamples = 200;
  const auto r = st::bootstrap_correlation(x, y, st::CorrelationType::kPearson, o);
  EXPECT_GT(r.undefined, 0u);
  EXPECT_LT(r.undefined, o.resamples);
  std::size_t nan = 0;
  for (double v : r.distribution) nan += std::isnan(v);
  EXPECT_EQ(nan, r.undefined);
  EXPECT_FALSE(std::isnan(r.ci.low));
}

namespace {

// The mean row's old computation: the mean of spearman() over the dimensions, each on the
// materialised resample's items where both scores are finite.
st::BootstrapResult mean_spearman_reference(const std::vector<double>& x,
                                            const std::vector<std::vector<double>>& ys,
                                            const st::BootstrapOptions& o) {
  return st::bootstrap(
      x.size(),
      [&](std::span<const std::size_t> idx) {
        double sum = 0;
        for (const auto& y : ys) {
          std::vector<double> bx, by;
          for (std::size_t i : idx)
            if (std::isfinite(x[i]) && std::isfinite(y[i])) {
              bx.push_back(x[i]);
              by.push_back(y[i]);
            }
          sum += st::spearman(bx, by).statistic;
        }
        return sum / static_cast<double>(ys.size());
      },
      o);
}

void expect_same_bootstrap(const st::BootstrapResult& got, const st::BootstrapResult& want,
                           const std::string& what) {
  ASSERT_EQ(got.distribution.size(), want.distribution.size()) << what;
  std::size_t defined = 0;
  for (std::size_t b = 0; b < got.distribution.size(); ++b) {
    if (std::isnan(want.distribution[b])) {
      EXPECT_TRUE(std::isnan(got.distribution[b])) << what << " resample " << b;
      continue;
    }
    ++defined;
    EXPECT_TRUE(bit_identical(got.distribution[b], want.distribution[b]))
        << what << " resample " << b << ": " << got.distribution[b] << " vs "
        << want.distribution[b];
  }
  EXPECT_GT(defined, 0u) << what;
  EXPECT_TRUE(bit_identical(got.estimate, want.estimate)) << what;
  EXPECT_TRUE(bit_identical(got.ci.low, want.ci.low)) << what;
  EXPECT_TRUE(bit_identical(got.ci.high, want.ci.high)) << what;
  EXPECT_EQ(got.undefined, want.undefined) << what;
}

}  // namespace

// Four rating dimensions with ties; NaN scores and ratings (so the dimensions' items differ); one
// dimension rated on a few items only, so that some resamples leave it constant or empty.
TEST(StatsBootstrap, MeanSpearmanIsTheMeanOfSpearmanOnTheMaterialisedResample) {
  const Pair base = correlated(400, 5);
  std::vector<double> x = base.x;
  std::vector<std::vector<double>> ys(4, base.y);
  std::mt19937_64 gen(8);
  for (std::size_t i = 0; i < x.size(); ++i) {
    ys[1][i] = std::round(ys[1][i] + static_cast<double>(gen() % 3) - 1.0);
    ys[2][i] = static_cast<double>(gen() % 100000) / 7.0;  // many levels: walked, not counted
    if (gen() % 20 == 0) x[i] = std::nan("");
    if (gen() % 10 == 0) ys[1][i] = std::nan("");
    if (i % 97 != 0) ys[3][i] = std::nan("");  // 5 rated items
    if (i % 50 == 0) x[i] = std::round(x[i]);  // ties in x
  }
  std::vector<std::size_t> clusters;
  for (std::size_t i = 0; i < x.size(); ++i) clusters.push_back((i * 7919) % 37);
  for (bool clustered : {false, true})
    for (auto method : {st::CiMethod::kPercentile, st::CiMethod::kBCa})
      for (std::size_t dims : {std::size_t{3}, std::size_t{4}}) {
        st::BootstrapOptions o;
        o.resamples = 300;
        o.seed = 17;
        o.method = method;
        o.threads = 2;
        if (clustered) o.clusters = clusters;
        const std::vector<std::vector<double>> used(ys.begin(),
                                                    ys.begin() + static_cast<std::ptrdiff_t>(dims));
        const auto got = st::bootstrap_mean_spearman(x, used, o);
        const auto want = mean_spearman_reference(x, used, o);
        expect_same_bootstrap(got, want,
                              "clustered=" + std::to_string(clustered) +
                                  " bca=" + std::to_string(method == st::CiMethod::kBCa) +
                                  " dims=" + std::to_string(dims));
        if (dims == 4) {
          EXPECT_GT(got.undefined, 0u);  // the sparse dimension
        }
        o.threads = 1;
        EXPECT_TRUE(
            bit_identical(st::bootstrap_mean_spearman(x, used, o).distribution, got.distribution));
      }
}

TEST(StatsBootstrap, MeanSpearmanOfOneConstantDimensionIsUndefined) {
  const Pair d = correlated(50, 6);
  const std::vector<std::vector<double>> ys = {d.y, std::vector<double>(50, 3.0)};
  st::BootstrapOptions o;
  o.resamples = 20;
  const auto r = st::bootstrap_mean_spearman(d.x, ys, o);
  EXPECT_EQ(r.undefined, 20u);
  EXPECT_TRUE(std::isnan(r.estimate));
  EXPECT_TRUE(std::isnan(r.ci.low));
}

TEST(StatsBootstrap, SmdBootstrapIsTheGenericOneWithoutAllocating) {
  const Pair d = correlated(250, 7);
  std::vector<double> perturbed = d.x;
  for (double& v : perturbed) v = v * 0.9 - 0.1;
  for (auto method : {st::CiMethod::kPercentile, st::CiMethod::kBCa}) {
    st::BootstrapOptions o;
    o.resamples = 400;
    o.seed = 3;
    o.method = method;
    o.threads = 2;
    const auto got = st::bootstrap_smd(perturbed, d.x, o);
    const auto want = st::bootstrap(
        d.x.size(), [&](std::span<const std::size_t> idx) { return st::smd(perturbed, d.x, idx); },
        o);
    expect_same_bootstrap(got, want, "smd");
  }
}

// Spearman's fast path (multiplicities per slot of x's order, any rank ties) gives the bits of the
// weighted-rank path that clustered resampling still takes: one-item clusters draw the same
// resamples.
TEST(StatsBootstrap, SpearmanSlotsGiveTheBitsOfWeightedRanks) {
  Pair d = correlated(700, 12);
  for (std::size_t i = 0; i < d.x.size(); i += 3) d.x[i] = std::round(d.x[i] * 2.0);  // x ties
  std::vector<std::size_t> singletons(d.x.size());
  std::iota(singletons.begin(), singletons.end(), std::size_t{0});
  // y a rating (few levels: counted per level) or continuous (walked along its order).
  std::vector<double> continuous = d.y;
  for (std::size_t i = 0; i < continuous.size(); ++i) continuous[i] += 0.001 * d.x[(i * 31) % 700];
  for (const auto* y : {&d.y, &continuous})
    for (auto method : {st::CiMethod::kPercentile, st::CiMethod::kBCa}) {
      st::BootstrapOptions o;
      o.resamples = 500;
      o.seed = 5;
      o.method = method;
      o.clusters.clear();
      const auto fast = st::bootstrap_correlation(d.x, *y, st::CorrelationType::kSpearman, o);
      o.clusters = singletons;
      const auto weighted = st::bootstrap_correlation(d.x, *y, st::CorrelationType::kSpearman, o);
      EXPECT_TRUE(bit_identical(fast.distribution, weighted.distribution));
      EXPECT_TRUE(bit_identical(fast.ci.low, weighted.ci.low));
      EXPECT_TRUE(bit_identical(fast.ci.high, weighted.ci.high));
    }
}
