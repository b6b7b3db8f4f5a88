// Metric names are parsed once (MetricSpec), parts included; the corpus score has one definition
// (CorpusAccumulator) whether streamed in chunks or computed at once.
#include <gtest/gtest.h>

#include <cmath>

#include "probity/engine.hpp"
#include "probity/error.hpp"
#include "probity/metric.hpp"
#include "probity/mi.hpp"
#include "probity/scoring.hpp"

namespace {

TEST(MetricSpec, APartIsParsedOnceAndSelectsOutputOnly) {
  const auto s = probity::MetricSpec::parse("rougeL.f,stem=true");
  EXPECT_EQ(s.base(), "rougeL");
  EXPECT_EQ(s.part(), "f");
  EXPECT_EQ(s.text(), "rougeL,stem=true");
  EXPECT_EQ(s.without_part().part(), "");
  const auto arg = probity::MetricSpec::parse("scores:my.file.jsonl,data=x.jsonl");
  EXPECT_EQ(arg.base(), "scores");
  EXPECT_EQ(arg.part(), "");
  EXPECT_EQ(arg.arg(), "my.file.jsonl");
  probity::Engine engine;
  EXPECT_THROW(engine.make_metric("rougeL.f"), probity::UsageError);
  const auto sel = probity::select_metric("rougeL.f,stem=true", engine);
  EXPECT_EQ(sel.primary_name(), "rougeL.f,stem=true");
  EXPECT_EQ(sel.metric->name(), "rougeL,stem=true");
}

TEST(MetricSpec, NameGivesAnyMetricADisplayNameAndKeepsItsSignature) {
  probity::Engine engine;
  const auto plain = probity::select_metric("rougeL.f,stem=true", engine);
  const auto named = probity::select_metric("rougeL.f,stem=true,name=R", engine);
  EXPECT_EQ(named.primary_name(), "R");
  EXPECT_EQ(named.metric->signature(), plain.metric->signature());
  const auto all_parts = probity::select_metric("rougeL,name=R", engine);
  EXPECT_EQ(all_parts.record_name(0), "R.p");
  EXPECT_EQ(all_parts.record_name(2), "R.f");
  EXPECT_EQ(probity::select_metric("bleu,name=B", engine).primary_name(), "B");
  EXPECT_THROW(probity::select_metric("bleu,name=", engine), probity::UsageError);

  std::vector<probity::MetricSelection> two;
  two.push_back(probity::select_metric("bleu,name=X", engine));
  two.push_back(probity::select_metric("chrf,name=X", engine));
  EXPECT_THROW(probity::check_distinct_names(two), probity::UsageError);
  two[1] = probity::select_metric("chrf,name=Y", engine);
  EXPECT_NO_THROW(probity::check_distinct_names(two));
}

TEST(CorpusAccumulator, StreamingGivesCorpusScoreExactly) {
  for (const char* name : {"bleu", "chrf", "rougeL"}) {
    auto metric = probity::make_metric(name);
    const std::vector<std::pair<std::string, std::string>> pairs = {
        {"the cat sat on the mat", "the cat is on the mat"},
        {"a quick brown fox", "the quick brown fox jumps"},
        {"nothing in common", "entirely different words here"}};
    std::vector<double> all;
    probity::CorpusAccumulator acc(*metric);
    for (const auto& [c, r] : pairs) {
      probity::MetricInput in{c, {r}, {}, {}};
      std::vector<double> stats(metric->num_stats());
      metric->item_stats(in, stats);
      all.insert(all.end(), stats.begin(), stats.end());
      acc.add(stats);
    }
    EXPECT_EQ(acc.count(), pairs.size());
    EXPECT_EQ(acc.score(), probity::corpus_score(*metric, all)) << name;
  }
  auto rouge = probity::make_metric("rougeL");
  EXPECT_TRUE(std::isnan(probity::CorpusAccumulator(*rouge).score()[0]));  // mean of nothing
}

TEST(Measures, VariationalScoreWithSeveralNegativesIsMinusTheMeanConjugate) {
  using probity::mi::Measure;
  const std::vector<double> negatives = {0.1, -0.3, 0.25};
  for (auto m : {Measure::kTV, Measure::kKL, Measure::kHellinger}) {
    double mean = 0;
    for (double c : negatives) mean += probity::mi::conjugate(m, c);
    mean /= 3;
    EXPECT_EQ(probity::mi::variational_score(m, 0.4, negatives), 0.4 - mean);
    EXPECT_EQ(probity::mi::variational_score(m, 0.4, 0.1), 0.4 - probity::mi::conjugate(m, 0.1));
  }
}

}  // namespace
