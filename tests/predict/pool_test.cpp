// The predictor pool of an engine: one predictor per typed configuration, fitted once per
// dataset, refitted when the data changes, owned by the pool (no address-keyed bookkeeping).
#include "predict/pool.hpp"

#include <gtest/gtest.h>

#include "probity/engine.hpp"
#include "probity/error.hpp"
#include "probity/metric.hpp"

namespace {

using probity::predict::PredictorConfig;
using probity::predict::PredictorPool;
using probity::predict::SupportJudge;

std::vector<probity::Task> tasks(int n) {
  std::vector<probity::Task> out;
  for (int t = 0; t < n; ++t) {
    probity::Task task;
    task.task_id = "t" + std::to_string(t);
    task.references.push_back({"r", "The river flooded village number " + std::to_string(t)});
    task.candidates.push_back({"c", "A", "A flood hit village " + std::to_string(t), {}});
    out.push_back(std::move(task));
  }
  return out;
}

PredictorConfig rules(std::uint64_t seed) {
  PredictorConfig c;
  c.kind = PredictorConfig::Kind::kRules;
  c.statement_targets = true;
  c.rules.seed = seed;
  return c;
}

TEST(PredictorPool, OnePredictorPerConfigurationFittedPerDataset) {
  PredictorPool pool;
  auto a = pool.get(rules(0), nullptr);
  EXPECT_EQ(a, pool.get(rules(0), nullptr));
  EXPECT_NE(a, pool.get(rules(1), nullptr));
  auto& judge = dynamic_cast<SupportJudge&>(*a);
  const auto six = tasks(6), nine = tasks(9);
  pool.fit(*a, six, true);
  const auto documents = judge.calibration().documents;
  EXPECT_GT(documents, 0u);
  pool.fit(*a, nine, true);  // other data: refitted
  EXPECT_GT(judge.calibration().documents, documents);
  pool.fit(*a, six, true);  // back to the first data: refitted again, not skipped
  EXPECT_EQ(judge.calibration().documents, documents);
}

// Metrics sharing a predictor fit it in passes over a file once: the first to begin drives the
// fit, the others leave it to that one; once it has ended, the next fit is whoever begins it.
TEST(PredictorPool, ChunkedFitIsDrivenByTheFirstMetric) {
  PredictorPool pool;
  auto a = pool.get(rules(0), nullptr);
  auto& judge = dynamic_cast<SupportJudge&>(*a);
  const int first = 0, second = 0;
  const auto six = tasks(6), nine = tasks(9);
  EXPECT_TRUE(pool.begin_fit(*a, true, &first));
  EXPECT_FALSE(pool.begin_fit(*a, true, &second));  // under way: left to the first
  EXPECT_TRUE(pool.begin_fit(*a, true, &first));    // the driver starts over
  for (std::size_t pass = 0; pass < a->fit_passes().value(); ++pass) {
    a->fit_chunk(pass, std::span(six).first(4));
    a->fit_chunk(pass, std::span(six).subspan(4));
    a->end_fit_pass(pass);
  }
  pool.end_fit(*a, &second);  // not the driver: nothing ends
  EXPECT_FALSE(pool.begin_fit(*a, true, &second));
  pool.end_fit(*a, &first);
  const auto documents = judge.calibration().documents;
  EXPECT_GT(documents, 0u);
  EXPECT_TRUE(pool.begin_fit(*a, true, &second));
  for (std::size_t pass = 0; pass < a->fit_passes().value(); ++pass) {
    a->fit_chunk(pass, nine);
    a->end_fit_pass(pass);
  }
  pool.end_fit(*a, &second);
  EXPECT_GT(judge.calibration().documents, documents);
  pool.fit(*a, six, true);  // a whole-dataset fit after a chunked one fits again
  EXPECT_EQ(judge.calibration().documents, documents);
}

TEST(PredictorPool, LlmPredictorsNeedASession) {
  PredictorPool pool;
  PredictorConfig c;
  c.kind = PredictorConfig::Kind::kLlmOracle;
  EXPECT_THROW(pool.get(c, nullptr), probity::UsageError);
}

TEST(Engine, EnginesShareNoPredictorAndMetricsOutliveTheirEngine) {
  std::unique_ptr<probity::Metric> kept;
  {
    probity::Engine a, b;
    auto pa = a.predictors().get(rules(0), nullptr);
    EXPECT_EQ(pa, a.predictors().get(rules(0), nullptr));
    EXPECT_NE(pa, b.predictors().get(rules(0), nullptr));
    kept = a.make_metric("stmt-tv");
  }
  const auto ds = tasks(6);
  kept->fit(ds);  // the metric holds its predictor (and the pool) itself
  std::vector<double> stats(kept->num_stats());
  probity::MetricInput in{
      ds[0].candidates[0].text, {ds[0].references[0].text}, {ds[1].references[0].text}, {}};
  kept->item_stats(in, stats);
  EXPECT_TRUE(std::isfinite(stats[0]));
}

TEST(Engine, LlmMetricsWithoutASessionAreAUsageError) {
  probity::Engine e;
  EXPECT_THROW(e.make_metric("llm-judge"), probity::UsageError);
  EXPECT_THROW(e.make_metric("stmt-tv,predictor=llm"), probity::UsageError);
  EXPECT_NO_THROW(e.make_metric("stmt-tv"));
}

}  // namespace
