#include <gtest/gtest.h>

#include <memory>

#include "predict/pool.hpp"
#include "probity/error.hpp"
#include "probity/metric.hpp"

TEST(MetricSpec, ParsesBaseArgAndOptions) {
  auto s = probity::MetricSpec::parse("mi:tv/fvar/statement/oracle,k=8,seed=3");
  EXPECT_EQ(s.base(), "mi");
  EXPECT_EQ(s.arg(), "tv/fvar/statement/oracle");
  EXPECT_EQ(s.get_int("k", 4), 8);
  EXPECT_THROW(s.check_all_used(), std::runtime_error);
  EXPECT_EQ(s.get_int("seed", 0), 3);
  EXPECT_NO_THROW(s.check_all_used());
}

// The registry makes metrics from a MetricContext alone (no Engine): offline metrics need no
// session, model-backed ones name the missing session as a usage error, and metrics made with
// one context share its predictors.
TEST(MetricRegistry, MakesMetricsFromAContextWithoutAnEngine) {
  const auto registry = probity::MetricRegistry::builtin();
  const probity::MetricContext offline{nullptr,
                                       std::make_shared<probity::predict::PredictorPool>()};
  EXPECT_EQ(registry.create("bleu,tokenize=intl", offline)->name(), "bleu,tokenize=intl");
  EXPECT_THROW(registry.create("llm-judge", offline), probity::UsageError);
  auto a = registry.create("gppm-j", offline);
  auto b = registry.create("stmt-tv", offline);
  EXPECT_EQ(offline.predictors.use_count(), 3);  // the context and the two metrics
}
