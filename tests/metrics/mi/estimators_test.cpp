// Verification of the estimators (issue: "proven correct against distributions whose mutual
// information is known"): with the exact predictor, the mean sample score converges to I_f.
#include <gtest/gtest.h>

#include <cmath>

#include "metrics/mi/mi_metric.hpp"
#include "predict/exact_predictor.hpp"
#include "probity/mi.hpp"
#include "probity/scoring.hpp"
#include "util/random.hpp"

namespace {

using probity::mi::Estimator;
using probity::mi::Measure;
using probity::predict::ExactPredictor;

const Measure kMeasures[] = {Measure::kTV, Measure::kKL, Measure::kReverseKL, Measure::kPearson,
                             Measure::kHellinger};

// A dependent 4 x 4 joint distribution without cells where r = 1 exactly.
std::vector<std::vector<double>> joint() {
  std::vector<std::vector<double>> p = {{0.16, 0.03, 0.02, 0.01},
                                        {0.02, 0.14, 0.03, 0.02},
                                        {0.01, 0.04, 0.17, 0.03},
                                        {0.03, 0.02, 0.04, 0.23}};
  return p;
}

// X garbled: symbols 2 and 3 merged into 2 (a channel that does not see Y).
std::vector<std::vector<double>> garbled() {
  auto p = joint();
  for (std::size_t j = 0; j < 4; ++j) p[2][j] += p[3][j];
  p.pop_back();
  return p;
}

std::size_t draw(const std::vector<double>& probs, probity::util::Rng& rng) {
  double u = static_cast<double>(rng.next() >> 11) * 0x1.0p-53;
  for (std::size_t i = 0; i + 1 < probs.size(); ++i) {
    if (u < probs[i]) return i;
    u -= probs[i];
  }
  return probs.size() - 1;
}

// Mean and standard error of the sample score over n draws (x, y) ~ P with k negatives y⁻ ~ P_Y.
struct Estimate {
  double mean, se;
};

Estimate estimate(const ExactPredictor& p, Measure m, Estimator e, std::size_t n,
                  std::uint64_t seed, std::size_t k = 4) {
  probity::util::Rng rng(seed, 7);
  std::vector<double> flat;
  for (const auto& row : p.joint()) flat.insert(flat.end(), row.begin(), row.end());
  const std::size_t ny = p.py().size();
  double sum = 0, sum2 = 0;
  for (std::size_t s = 0; s < n; ++s) {
    std::size_t cell = draw(flat, rng);
    std::string x = "x" + std::to_string(cell / ny), y = "y" + std::to_string(cell % ny);
    double v;
    if (e == Estimator::kDirect) {
      v = probity::mi::direct_score(m, p.log_ratio(x, y));
    } else {
      double tpos = probity::mi::optimal_critic(m, std::exp(p.log_ratio(x, y)));
      double neg = 0;
      for (std::size_t j = 0; j < k; ++j) {
        std::string yn = "y" + std::to_string(draw(p.py(), rng));
        neg +=
            probity::mi::conjugate(m, probity::mi::optimal_critic(m, std::exp(p.log_ratio(x, yn))));
      }
      v = tpos - neg / static_cast<double>(k);
    }
    sum += v;
    sum2 += v * v;
  }
  double mean = sum / static_cast<double>(n);
  double var = (sum2 - static_cast<double>(n) * mean * mean) / static_cast<double>(n - 1);
  return {mean, std::sqrt(var / static_cast<double>(n))};
}

TEST(MiMeasures, TableNineIdentities) {
  // f*(T*(r)) equals the closed forms of Xu et al. 2025 (Table 9), and f*(T*(r)) = r·T*(r) − f(r)
  // (Fenchel).
  for (double r : {0.2, 0.7, 1.5, 4.0}) {
    EXPECT_NEAR(probity::mi::conjugate(Measure::kKL, probity::mi::optimal_critic(Measure::kKL, r)),
                r, 1e-12);
    EXPECT_NEAR(probity::mi::conjugate(Measure::kReverseKL,
                                       probity::mi::optimal_critic(Measure::kReverseKL, r)),
                -1 + std::log(r), 1e-12);
    EXPECT_NEAR(probity::mi::conjugate(Measure::kPearson,
                                       probity::mi::optimal_critic(Measure::kPearson, r)),
                r * r - 1, 1e-12);
    EXPECT_NEAR(probity::mi::conjugate(Measure::kHellinger,
                                       probity::mi::optimal_critic(Measure::kHellinger, r)),
                std::sqrt(r) - 1, 1e-12);
    EXPECT_NEAR(probity::mi::conjugate(Measure::kTV, probity::mi::optimal_critic(Measure::kTV, r)),
                0.5 * (r > 1 ? 1 : -1), 1e-12);
    for (Measure m : kMeasures) {
      double t = probity::mi::optimal_critic(m, r);
      EXPECT_NEAR(probity::mi::conjugate(m, t), r * t - probity::mi::f(m, r), 1e-12)
          << probity::mi::measure_name(m) << " r=" << r;
    }
  }
  EXPECT_DOUBLE_EQ(probity::mi::direct_score(Measure::kKL, std::log(3.0)), std::log(3.0));
  EXPECT_DOUBLE_EQ(probity::mi::direct_score(Measure::kTV, std::log(4.0)), 0.375);
}

TEST(MiEstimators, ConvergeToTrueMutualInformation) {
  ExactPredictor p(joint());
  for (Measure m : kMeasures) {
    const double truth = p.mutual_information(m);
    ASSERT_GT(truth, 0.01);
    for (Estimator e : {Estimator::kDirect, Estimator::kVariational}) {
      double previous_se = INFINITY;
      for (std::size_t n : {2000u, 20000u, 200000u}) {
        auto est = estimate(p, m, e, n, 11 + n);
        EXPECT_LT(std::abs(est.mean - truth), 4 * est.se)
            << probity::mi::measure_name(m) << "/" << probity::mi::estimator_name(e) << " n=" << n
            << " mean=" << est.mean << " truth=" << truth;
        EXPECT_LT(est.se, previous_se);
        previous_se = est.se;
      }
      // The error at the largest n is small in absolute terms too.
      auto big = estimate(p, m, e, 200000, 99);
      EXPECT_LT(std::abs(big.mean - truth), 0.05 * truth + 0.01);
    }
  }
}

TEST(MiEstimators, GarblingXLowersTheEstimate) {
  ExactPredictor full(joint()), coarse(garbled());
  for (Measure m : kMeasures) {
    EXPECT_LT(coarse.mutual_information(m), full.mutual_information(m));
    for (Estimator e : {Estimator::kDirect, Estimator::kVariational}) {
      auto a = estimate(full, m, e, 100000, 5), b = estimate(coarse, m, e, 100000, 6);
      EXPECT_LT(b.mean + 2 * b.se, a.mean - 2 * a.se)
          << probity::mi::measure_name(m) << "/" << probity::mi::estimator_name(e);
    }
  }
}

// A synthetic dataset: each task is one draw (x, y) ~ P; negatives come from other tasks, i.e.
// from the marginal of Y, exactly as the metric sees real data.
probity::Dataset synthetic_dataset(const ExactPredictor& p, std::size_t n, std::uint64_t seed) {
  probity::util::Rng rng(seed, 3);
  std::vector<double> flat;
  for (const auto& row : p.joint()) flat.insert(flat.end(), row.begin(), row.end());
  probity::Dataset ds;
  for (std::size_t s = 0; s < n; ++s) {
    std::size_t cell = draw(flat, rng);
    probity::Task t;
    t.task_id = "t" + std::to_string(s);
    t.group = "g";
    t.references.push_back({"r", "y" + std::to_string(cell % p.py().size())});
    t.candidates.push_back({"c", "", "x" + std::to_string(cell / p.py().size()), {}});
    ds.tasks.push_back(std::move(t));
  }
  return ds;
}

TEST(MiMetricPipeline, EveryCellEstimatesTheTruthThroughTheScorer) {
  auto predictor = std::make_shared<ExactPredictor>(joint());
  auto ds = synthetic_dataset(*predictor, 20000, 42);
  auto items = probity::all_items(ds);
  for (Measure m : kMeasures) {
    for (Estimator e : {Estimator::kDirect, Estimator::kVariational}) {
      probity::mi::MiConfig cfg;
      cfg.measure = m;
      cfg.estimator = e;
      cfg.representation = probity::mi::Representation::kReport;
      cfg.mechanism = probity::mi::Mechanism::kExact;
      cfg.name = "test";
      std::vector<probity::MetricSelection> sel(1);
      sel[0].spec = "test";
      sel[0].metric = std::make_unique<probity::mi::MiMetric>(cfg, predictor);
      sel[0].parts = {0};
      auto stats = probity::compute_stats(ds, items, sel);
      auto corpus = probity::corpus_score(*sel[0].metric, stats[0].stats);
      double sum2 = 0;
      for (double v : stats[0].stats) sum2 += (v - corpus[0]) * (v - corpus[0]);
      double se = std::sqrt(sum2 / static_cast<double>(items.size() - 1) /
                            static_cast<double>(items.size()));
      EXPECT_LT(std::abs(corpus[0] - predictor->mutual_information(m)), 4 * se)
          << probity::mi::measure_name(m) << "/" << probity::mi::estimator_name(e);
    }
  }
}

// App. B: statement-level TV with a centred binary local critic. Y is three bits; X is a noisy
// copy; statement k of y says "bit k is b"; the critic says whether x agrees on bit k.
class BitsPredictor final : public probity::mi::Predictor {
 public:
  std::string signature() const override { return "bits"; }
  void fit(std::span<const probity::Task>, bool) override {}
  double log_ratio(std::string_view, std::string_view) const override { return 0; }
  int critic(std::string_view x, std::string_view statement) const override {
    std::size_t k = static_cast<std::size_t>(statement[0] - '0');
    return x[k] == statement[2] ? 1 : -1;  // statement "k=b"
  }
};

TEST(MiStatementTv, ExpectationIsMatchedMinusMismatchedCriticAndBoundedByItv) {
  // Exact joint over x, y in {0..7}: y uniform, x flips each bit of y with probability 0.2.
  std::vector<std::vector<double>> pxy(8, std::vector<double>(8));
  for (int x = 0; x < 8; ++x)
    for (int y = 0; y < 8; ++y) {
      double pr = 1.0 / 8;
      for (int b = 0; b < 3; ++b) pr *= ((x >> b) & 1) == ((y >> b) & 1) ? 0.8 : 0.2;
      pxy[static_cast<std::size_t>(x)][static_cast<std::size_t>(y)] = pr;
    }
  auto bits = [](int v) {
    std::string s;
    for (int b = 0; b < 3; ++b) s += static_cast<char>('0' + ((v >> b) & 1));
    return s;
  };
  auto t_psi = [&](int x, int y) {  // mean over statements of the ±½ critic
    double s = 0;
    for (int b = 0; b < 3; ++b) s += ((x >> b) & 1) == ((y >> b) & 1) ? 0.5 : -0.5;
    return s / 3;
  };
  double matched = 0, mismatched = 0, itv = 0;
  for (int x = 0; x < 8; ++x)
    for (int y = 0; y < 8; ++y) {
      double pj = pxy[static_cast<std::size_t>(x)][static_cast<std::size_t>(y)];
      matched += pj * t_psi(x, y);
      mismatched += (1.0 / 8) * (1.0 / 8) * t_psi(x, y);  // both marginals uniform
      itv += 0.5 * std::abs(pj - 1.0 / 64);
    }
  const double expected = matched - mismatched;
  EXPECT_LE(expected, itv);
  EXPECT_GT(expected, 0.0);

  // The metric on sampled data: its mean converges to `expected`.
  probity::util::Rng rng(1, 1);
  std::vector<double> flat;
  for (const auto& row : pxy) flat.insert(flat.end(), row.begin(), row.end());
  probity::Dataset ds;
  for (std::size_t s = 0; s < 20000; ++s) {
    std::size_t cell = draw(flat, rng);
    probity::Task t;
    t.task_id = "t" + std::to_string(s);
    t.group = "g";
    t.references.push_back({"r", bits(static_cast<int>(cell % 8))});
    t.candidates.push_back({"c", "", bits(static_cast<int>(cell / 8)), {}});
    ds.tasks.push_back(std::move(t));
  }
  probity::mi::MiConfig cfg;
  cfg.measure = Measure::kTV;
  cfg.estimator = Estimator::kVariational;
  cfg.representation = probity::mi::Representation::kStatement;
  cfg.mechanism = probity::mi::Mechanism::kOracle;
  cfg.name = "stmt-tv";
  // Ψ(y): one statement per bit, "k=<bit>".
  struct Bits final : probity::mi::Decomposer {
    std::string signature() const override { return "bits"; }
    std::vector<probity::mi::Decomposition> decompose(
        std::span<const std::string> texts) const override {
      std::vector<probity::mi::Decomposition> out;
      for (const auto& y : texts) {
        probity::mi::Decomposition d;
        for (std::size_t k = 0; k < y.size(); ++k)
          d.statements.push_back(std::to_string(k) + "=" + y[k]);
        out.push_back(std::move(d));
      }
      return out;
    }
  };
  cfg.decomposer = std::make_shared<Bits>();
  std::vector<probity::MetricSelection> sel(1);
  sel[0].spec = "stmt-tv";
  sel[0].metric = std::make_unique<probity::mi::MiMetric>(cfg, std::make_shared<BitsPredictor>());
  sel[0].parts = {0};
  auto items = probity::all_items(ds);
  auto stats = probity::compute_stats(ds, items, sel);
  double mean = 0, sum2 = 0;
  for (double v : stats[0].stats) mean += v;
  mean /= static_cast<double>(items.size());
  for (double v : stats[0].stats) sum2 += (v - mean) * (v - mean);
  double se =
      std::sqrt(sum2 / static_cast<double>(items.size() - 1) / static_cast<double>(items.size()));
  EXPECT_LT(std::abs(mean - expected), 4 * se) << mean << " vs " << expected;
  EXPECT_LE(mean - 4 * se, itv);
}

}  // namespace
