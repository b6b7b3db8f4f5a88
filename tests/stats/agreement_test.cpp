// Agreement statistics: every case of tests/golden/agreement.json (scikit-learn 1.2.1, written by
// tests/golden/gen/agreement.py) to 1e-9 (absolute below 1, relative above: sklearn's own
// rounding, e.g. a kappa of 0.3999999999999999, and its trapezoid AUC differ from ours in the last
// bits), null exactly where the C++ API reports NaN; then hand-checked and degenerate cases.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <fstream>
#include <iostream>
#include <limits>
#include <nlohmann/json.hpp>
#include <stdexcept>
#include <string>
#include <vector>

#include "probity/stats.hpp"
#include "test_paths.hpp"

namespace st = probity::stats;
using nlohmann::json;

namespace {

constexpr double kTol = 1e-9;

double max_deviation = 0.0;

void expect_value(double actual, const json& expected, const std::string& what) {
  if (expected.is_null()) {
    EXPECT_TRUE(std::isnan(actual)) << what << ": expected undefined, got " << actual;
    return;
  }
  const double e = expected.get<double>();
  ASSERT_FALSE(std::isnan(actual)) << what << ": expected " << e << ", got NaN";
  const double deviation = std::abs(actual - e) / std::max(1.0, std::abs(e));
  max_deviation = std::max(max_deviation, deviation);
  EXPECT_LE(deviation, kTol) << what << ": expected " << e << ", got " << actual;
}

}  // namespace

TEST(StatsAgreementGolden, ReproducesEveryCase) {
  std::ifstream in(probity::test::golden_path("agreement.json"));
  ASSERT_TRUE(in) << "missing tests/golden/agreement.json";
  const json doc = json::parse(in);
  const json& cases = doc.at("cases");
  ASSERT_GE(cases.size(), 80u);
  std::size_t values = 0;
  for (const json& c : cases) {
    const std::string name = c.at("name");
    SCOPED_TRACE(name);
    const auto truth = c.at("labels").get<std::vector<int>>();
    const auto pred = c.at("pred").get<std::vector<int>>();
    const json& ex = c.at("expected");
    const auto check = [&](double actual, const char* key) {
      expect_value(actual, ex.at(key), name + " " + key);
      ++values;
    };
    check(st::cohen_kappa(truth, pred), "kappa");
    check(st::cohen_kappa(truth, pred, st::KappaWeights::kLinear), "kappa_linear");
    check(st::cohen_kappa(truth, pred, st::KappaWeights::kQuadratic), "kappa_quadratic");
    check(st::matthews_corrcoef(truth, pred), "mcc");
    check(st::balanced_accuracy(truth, pred), "balanced_accuracy");
    check(st::f1_macro(truth, pred), "f1_macro");
    if (c.at("kind") == "binary") {
      const auto scores = c.at("scores").get<std::vector<double>>();
      const auto probs = c.at("probabilities").get<std::vector<double>>();
      check(st::roc_auc(truth, scores), "roc_auc");
      check(st::brier_score(truth, probs), "brier");
      for (const auto& [bins, expected] : ex.at("ece").items()) {
        expect_value(st::expected_calibration_error(truth, probs, std::stoul(bins)), expected,
                     name + " ece bins=" + bins);
        ++values;
      }
    }
  }
  std::cout << "agreement golden: " << cases.size() << " cases, " << values
            << " values, largest deviation " << max_deviation << "\n";
}

TEST(StatsAgreement, RocAucByHand) {
  // sklearn's roc_auc_score docstring example: 3 of the 4 positive-negative pairs are ordered.
  EXPECT_DOUBLE_EQ(
      st::roc_auc(std::vector<int>{0, 0, 1, 1}, std::vector<double>{0.1, 0.4, 0.35, 0.8}), 0.75);
  // A tied pair counts 1/2.
  EXPECT_DOUBLE_EQ(st::roc_auc(std::vector<int>{0, 1, 1}, std::vector<double>{0.5, 0.5, 0.9}),
                   0.75);
  EXPECT_DOUBLE_EQ(st::roc_auc(std::vector<int>{1, 0}, std::vector<double>{0.0, 1.0}), 0.0);
}

TEST(StatsAgreement, KappaWeightsOnLabelIndices) {
  // Raters reversing three labels: observed disagreement 2 (none), 4 (linear), 8 (quadratic)
  // against 2, 8/3 and 4 expected.
  const std::vector<int> a{1, 2, 3}, b{3, 2, 1};
  // (The expected sums of thirds round: compare to 1e-15.)
  EXPECT_NEAR(st::cohen_kappa(a, b), 0.0, 1e-15);
  EXPECT_NEAR(st::cohen_kappa(a, b, st::KappaWeights::kLinear), -0.5, 1e-15);
  EXPECT_NEAR(st::cohen_kappa(a, b, st::KappaWeights::kQuadratic), -1.0, 1e-15);
  // Labels 1 and 3 are adjacent indices: every weighting gives 1 - 1 / (5/3) = 0.4.
  const std::vector<int> c{1, 1, 3}, d{1, 3, 3};
  for (const auto w :
       {st::KappaWeights::kNone, st::KappaWeights::kLinear, st::KappaWeights::kQuadratic}) {
    EXPECT_DOUBLE_EQ(st::cohen_kappa(c, d, w), 0.4);
  }
}

TEST(StatsAgreement, ClassificationByHand) {
  // Examples of sklearn's docstrings.
  EXPECT_DOUBLE_EQ(
      st::matthews_corrcoef(std::vector<int>{1, 1, 1, 0}, std::vector<int>{1, 0, 1, 1}),
      -1.0 / 3.0);
  EXPECT_DOUBLE_EQ(
      st::balanced_accuracy(std::vector<int>{0, 1, 0, 0, 1, 0}, std::vector<int>{0, 1, 0, 0, 0, 1}),
      0.625);
  EXPECT_DOUBLE_EQ(
      st::f1_macro(std::vector<int>{0, 1, 2, 0, 1, 2}, std::vector<int>{0, 2, 1, 0, 0, 1}),
      4.0 / 15.0);
  EXPECT_DOUBLE_EQ(
      st::brier_score(std::vector<int>{0, 1, 1, 0}, std::vector<double>{0.1, 0.9, 0.8, 0.3}),
      0.0375);
  // A class only predicted has no recall and is left out of the mean.
  EXPECT_DOUBLE_EQ(st::balanced_accuracy(std::vector<int>{0, 0}, std::vector<int>{0, 1}), 0.5);
}

TEST(StatsAgreement, CalibrationBinEdges) {
  // 0.1 lies on the first inner edge and goes to the lower bin: 0.5 * 0.9 + 0.5 * 0.15.
  EXPECT_DOUBLE_EQ(
      st::expected_calibration_error(std::vector<int>{1, 0}, std::vector<double>{0.1, 0.15}),
      0.525);
  // NumPy's third edge is 3 * 0.1 = 0.30000000000000004 (not 0.3): that value goes to bin 2,
  // 0.35 to bin 3.
  const double edge = 3 * 0.1;
  ASSERT_GT(edge, 0.3);
  EXPECT_NEAR(
      st::expected_calibration_error(std::vector<int>{1, 0}, std::vector<double>{edge, 0.35}),
      0.5 * (1 - edge) + 0.5 * 0.35, 1e-15);
  // One bin: |mean label - mean probability|.
  EXPECT_NEAR(st::expected_calibration_error(std::vector<int>{1, 1, 0},
                                             std::vector<double>{0.2, 0.5, 0.8}, 1),
              2.0 / 3.0 - 0.5, 1e-15);
}

TEST(StatsAgreement, DegenerateInputs) {
  const std::vector<int> zeros{0, 0, 0}, ones{1, 1, 1}, mixed{0, 1, 0};
  const std::vector<double> scores{0.2, 0.4, 0.6};
  EXPECT_TRUE(std::isnan(st::roc_auc(zeros, scores)));  // one class: sklearn raises
  EXPECT_TRUE(std::isnan(st::roc_auc(ones, scores)));
  EXPECT_DOUBLE_EQ(st::roc_auc(mixed, std::vector<double>{0.5, 0.5, 0.5}), 0.5);
  EXPECT_TRUE(std::isnan(st::cohen_kappa(ones, ones)));  // one shared label: 0 / 0
  EXPECT_DOUBLE_EQ(st::cohen_kappa(zeros, ones), 0.0);
  EXPECT_DOUBLE_EQ(st::matthews_corrcoef(mixed, ones), 0.0);  // constant prediction
  EXPECT_DOUBLE_EQ(st::matthews_corrcoef(ones, ones), 0.0);
  EXPECT_DOUBLE_EQ(st::f1_macro(mixed, zeros), 0.4);  // class 1 never predicted: its F1 is 0
  EXPECT_DOUBLE_EQ(st::brier_score(ones, std::vector<double>{1.0, 1.0, 1.0}), 0.0);

  const std::vector<int> none;
  const std::vector<double> no_scores;
  EXPECT_TRUE(std::isnan(st::roc_auc(none, no_scores)));
  EXPECT_TRUE(std::isnan(st::cohen_kappa(none, none)));
  EXPECT_TRUE(std::isnan(st::matthews_corrcoef(none, none)));
  EXPECT_TRUE(std::isnan(st::balanced_accuracy(none, none)));
  EXPECT_TRUE(std::isnan(st::f1_macro(none, none)));
  EXPECT_TRUE(std::isnan(st::brier_score(none, no_scores)));
  EXPECT_TRUE(std::isnan(st::expected_calibration_error(none, no_scores)));

  EXPECT_THROW(st::roc_auc(mixed, std::vector<double>{0.1}), std::invalid_argument);
  EXPECT_THROW(st::roc_auc(std::vector<int>{0, 2}, std::vector<double>{0.1, 0.2}),
               std::invalid_argument);
  EXPECT_THROW(st::cohen_kappa(mixed, std::vector<int>{1}), std::invalid_argument);
  EXPECT_THROW(st::brier_score(mixed, std::vector<double>{0.1, 1.5, 0.2}), std::invalid_argument);
  EXPECT_THROW(st::expected_calibration_error(mixed, scores, 0), std::invalid_argument);
  EXPECT_THROW(st::expected_calibration_error(
                   mixed, std::vector<double>{0.1, std::numeric_limits<double>::quiet_NaN(), 0.2}),
               std::invalid_argument);
}
