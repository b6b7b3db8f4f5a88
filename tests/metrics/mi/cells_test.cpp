// Every cell of the design space runs through the scorer and the audit with the offline
// predictors: every cell runs in score and audit.
#include <gtest/gtest.h>

#include <cmath>

#include "probity/audit.hpp"
#include "probity/engine.hpp"
#include "probity/error.hpp"
#include "probity/scoring.hpp"
#include "test_paths.hpp"

namespace {

std::vector<std::string> all_cells() {
  std::vector<std::string> cells;
  for (const char* rp : {"token/ar", "statement/ar", "report/oracle", "statement/oracle"})
    for (const char* f : {"tv", "kl", "rkl", "chi2", "hellinger"})
      for (const char* e : {"direct", "fvar"})
        cells.push_back(std::string("mi:") + f + "/" + e + "/" + rp);
  return cells;
}

TEST(MiCells, EveryCellScoresTheSampleWithFiniteValues) {
  auto ds = probity::load_dataset(probity::test::data_path("summeval/summeval_sample20.jsonl"));
  auto items = probity::all_items(ds);
  std::vector<probity::MetricSelection> metrics;
  for (const auto& c : all_cells()) metrics.push_back(probity::select_metric(c));
  for (const char* preset : {"gem", "gppm-j", "tvd-mi", "stmt-tv"})
    metrics.push_back(probity::select_metric(preset));
  auto stats = probity::compute_stats(ds, items, metrics);
  for (std::size_t m = 0; m < metrics.size(); ++m) {
    std::size_t finite = 0;
    const double first = stats[m].row(0)[0];
    bool varies = false;
    for (std::size_t i = 0; i < items.size(); ++i) {
      const double v = stats[m].row(i)[0];  // the score; the other statistics are flags
      finite += std::isfinite(v) ? 1 : 0;
      varies |= v != first;
    }
    EXPECT_EQ(finite, items.size()) << metrics[m].spec;
    EXPECT_TRUE(varies) << metrics[m].spec << " gives the same score to every candidate";
    EXPECT_NE(metrics[m].metric->signature().find("version:probity-"), std::string::npos);
  }
}

TEST(MiCells, PresetsEqualTheirCells) {
  auto ds = probity::load_dataset(probity::test::data_path("summeval/summeval_sample20.jsonl"));
  auto items = probity::all_items(ds);
  std::vector<probity::MetricSelection> m;
  m.push_back(probity::select_metric("stmt-tv"));
  m.push_back(probity::select_metric("mi:tv/fvar/statement/oracle"));
  m.push_back(probity::select_metric("gem"));
  m.push_back(probity::select_metric("mi:kl/direct/token/ar"));
  auto stats = probity::compute_stats(ds, items, m);
  EXPECT_EQ(stats[0].stats, stats[1].stats);
  EXPECT_EQ(stats[2].stats, stats[3].stats);
}

TEST(MiCells, InvalidCellsAreUsageErrors) {
  EXPECT_THROW(probity::select_metric("mi:kl/direct/token/oracle"), probity::UsageError);
  EXPECT_THROW(probity::select_metric("mi:kl/direct/report/ar"), probity::UsageError);
  EXPECT_THROW(probity::select_metric("mi:js/direct/token/ar"), probity::UsageError);
  EXPECT_THROW(probity::select_metric("mi:kl/direct"), probity::UsageError);
  EXPECT_THROW(probity::select_metric("mi:tv/fvar/report/oracle,k=0"), probity::UsageError);
  EXPECT_THROW(probity::select_metric("gem,order=3,critic=sideways"), probity::UsageError);
  EXPECT_THROW(probity::select_metric("stmt-tv,order=3"), probity::UsageError);  // an ar option
}

TEST(MiCells, PresetsRunThroughTheAudit) {
  probity::AuditOptions o;
  o.data = {probity::test::data_path("summeval/summeval_sample20.jsonl")};
  o.metrics = {"gem", "stmt-tv", "mi:hellinger/fvar/report/oracle"};
  o.degradations = {"R", "S"};
  o.manipulations = {"M"};
  o.sample = 60;
  o.bootstrap = 50;
  o.out_dir = probity::test::temp_dir("mi-audit");
  auto report = probity::run_audit(o);
  ASSERT_EQ(report.tests.size(), 3u * 3u);
  for (const auto& t : report.tests) {
    EXPECT_TRUE(t.testable) << t.metric << " " << t.code;
    EXPECT_TRUE(std::isfinite(t.d)) << t.metric << " " << t.code;
  }
  // Random replacement must be detected by every MI preset.
  for (const auto& t : report.tests) {
    if (t.code == "R" && t.kind == probity::StrategyKind::kDegradation) {
      EXPECT_TRUE(t.passed) << t.metric;
    }
  }
}

}  // namespace
