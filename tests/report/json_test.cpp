#include <gtest/gtest.h>

#include <cmath>
#include <cstring>
#include <limits>
#include <nlohmann/json.hpp>
#include <stdexcept>

#include "probity/report.hpp"
#include "report/fixture.hpp"
#include "report/format.hpp"

namespace {

using probity::AuditReport;
using probity::report::from_json;
using probity::report::to_json;

// Doubles must come back bit for bit; NaN must come back as NaN.
void expect_same(double a, double b, const std::string& what) {
  if (std::isnan(a)) {
    EXPECT_TRUE(std::isnan(b)) << what;
  } else {
    EXPECT_EQ(std::memcmp(&a, &b, sizeof a), 0) << what << ": " << a << " vs " << b;
  }
}

void expect_same(const AuditReport& a, const AuditReport& b) {
  EXPECT_EQ(a.version, b.version);
  EXPECT_EQ(a.seed, b.seed);
  EXPECT_EQ(a.sample, b.sample);
  EXPECT_EQ(a.bootstrap, b.bootstrap);
  expect_same(a.alpha, b.alpha, "alpha");
  expect_same(a.confidence, b.confidence, "confidence");
  ASSERT_EQ(a.datasets.size(), b.datasets.size());
  for (std::size_t i = 0; i < a.datasets.size(); ++i) {
    const auto &x = a.datasets[i], &y = b.datasets[i];
    EXPECT_EQ(x.name, y.name);
    EXPECT_EQ(x.path, y.path);
    EXPECT_EQ(x.tasks, y.tasks);
    EXPECT_EQ(x.candidates, y.candidates);
    EXPECT_EQ(x.audited, y.audited);
    EXPECT_EQ(x.dimensions, y.dimensions);
    ASSERT_EQ(x.skipped.size(), y.skipped.size());
    for (std::size_t k = 0; k < x.skipped.size(); ++k) {
      EXPECT_EQ(x.skipped[k].file, y.skipped[k].file);
      EXPECT_EQ(x.skipped[k].line, y.skipped[k].line);
      EXPECT_EQ(x.skipped[k].field, y.skipped[k].field);
      EXPECT_EQ(x.skipped[k].message, y.skipped[k].message);
    }
  }
  EXPECT_EQ(a.metrics, b.metrics);
  EXPECT_EQ(a.signatures, b.signatures);
  ASSERT_EQ(a.strategies.size(), b.strategies.size());
  for (std::size_t i = 0; i < a.strategies.size(); ++i) {
    const auto &x = a.strategies[i], &y = b.strategies[i];
    EXPECT_EQ(x.kind, y.kind);
    EXPECT_EQ(x.code, y.code);
    EXPECT_EQ(x.name, y.name);
    EXPECT_EQ(x.description, y.description);
    EXPECT_EQ(x.signature, y.signature);
  }
  ASSERT_EQ(a.correlations.size(), b.correlations.size());
  for (std::size_t i = 0; i < a.correlations.size(); ++i) {
    const auto &x = a.correlations[i], &y = b.correlations[i];
    EXPECT_EQ(x.dataset, y.dataset);
    EXPECT_EQ(x.metric, y.metric);
    ASSERT_EQ(x.rows.size(), y.rows.size());
    for (std::size_t k = 0; k < x.rows.size(); ++k) {
      const auto &u = x.rows[k], &v = y.rows[k];
      EXPECT_EQ(u.dimension, v.dimension);
      EXPECT_EQ(u.n, v.n);
      expect_same(u.spearman, v.spearman, "spearman");
      expect_same(u.spearman_lo, v.spearman_lo, "spearman_lo");
      expect_same(u.spearman_hi, v.spearman_hi, "spearman_hi");
      expect_same(u.spearman_p, v.spearman_p, "spearman_p");
      expect_same(u.kendall, v.kendall, "kendall");
      expect_same(u.pearson, v.pearson, "pearson");
    }
  }
  ASSERT_EQ(a.tests.size(), b.tests.size());
  for (std::size_t i = 0; i < a.tests.size(); ++i) {
    const auto &x = a.tests[i], &y = b.tests[i];
    EXPECT_EQ(x.dataset, y.dataset);
    EXPECT_EQ(x.metric, y.metric);
    EXPECT_EQ(x.kind, y.kind);
    EXPECT_EQ(x.code, y.code);
    EXPECT_EQ(x.name, y.name);
    EXPECT_EQ(x.considered, y.considered);
    EXPECT_EQ(x.applied, y.applied);
    EXPECT_EQ(x.not_applicable, y.not_applicable);
    EXPECT_EQ(x.unchanged, y.unchanged);
    EXPECT_EQ(x.failed, y.failed);
    EXPECT_EQ(x.undefined, y.undefined);
    EXPECT_EQ(x.testable, y.testable);
    expect_same(x.mean_original, y.mean_original, "mean_original");
    expect_same(x.mean_perturbed, y.mean_perturbed, "mean_perturbed");
    expect_same(x.mean_delta, y.mean_delta, "mean_delta");
    expect_same(x.sd_delta, y.sd_delta, "sd_delta");
    expect_same(x.t, y.t, "t");
    expect_same(x.df, y.df, "df");
    expect_same(x.p, y.p, "p");
    expect_same(x.p_holm, y.p_holm, "p_holm");
    EXPECT_EQ(x.passed, y.passed);
    EXPECT_EQ(x.passed_holm, y.passed_holm);
    expect_same(x.d, y.d, "d");
    expect_same(x.d_lo, y.d_lo, "d_lo");
    expect_same(x.d_hi, y.d_hi, "d_hi");
    expect_same(x.d_boot_lo, y.d_boot_lo, "d_boot_lo");
    expect_same(x.d_boot_hi, y.d_boot_hi, "d_boot_hi");
  }
  ASSERT_EQ(a.examples.size(), b.examples.size());
  for (std::size_t i = 0; i < a.examples.size(); ++i) {
    const auto &x = a.examples[i], &y = b.examples[i];
    EXPECT_EQ(x.dataset, y.dataset);
    EXPECT_EQ(x.task_id, y.task_id);
    EXPECT_EQ(x.candidate_id, y.candidate_id);
    EXPECT_EQ(x.kind, y.kind);
    EXPECT_EQ(x.code, y.code);
    EXPECT_EQ(x.original, y.original);
    EXPECT_EQ(x.perturbed, y.perturbed);
  }
  EXPECT_EQ(a.cache_hits, b.cache_hits);
  EXPECT_EQ(a.cache_misses, b.cache_misses);
  expect_same(a.seconds, b.seconds, "seconds");
}

std::vector<std::string> keys(const nlohmann::ordered_json& j) {
  std::vector<std::string> out;
  for (auto it = j.begin(); it != j.end(); ++it) out.push_back(it.key());
  return out;
}

TEST(ReportJson, RoundTripIsLossless) {
  AuditReport r = probity::test::make_sample_report();
  // Values that need all 17 significant digits.
  r.tests[0].p = 0.1 + 0.2;
  r.tests[0].d = -1.0 / 3.0;
  r.tests[1].t = 1e-300;
  r.tests[1].mean_delta = -0.0;
  std::string json = to_json(r);
  AuditReport back = from_json(json);
  expect_same(r, back);
  EXPECT_EQ(to_json(back), json);
}

TEST(ReportJson, NotTestableReasonTravelsAsAnEnum) {
  AuditReport r = probity::test::make_sample_report();
  r.tests[0].testable = false;
  r.tests[0].reason = probity::NotTestable::kConstantScores;
  r.tests[0].untestable = "constant scores (the pooled sd is zero)";
  const std::string json = to_json(r);
  EXPECT_NE(json.find("\"untestable_reason\": \"constant_scores\""), std::string::npos);
  EXPECT_EQ(from_json(json).tests[0].reason, probity::NotTestable::kConstantScores);
  // The renderers word it from the enum, whatever the sentence says.
  r.tests[0].untestable = "anything";
  EXPECT_EQ(probity::report::detail::na_text(r.tests[0]), "n/a (constant)");
  r.tests[0].reason = probity::NotTestable::kLanguage;
  EXPECT_EQ(probity::report::detail::na_text(r.tests[0]), "n/a (language)");
}

TEST(ReportJson, HasSchemaAndEveryFieldInOrder) {
  AuditReport r = probity::test::make_sample_report();
  auto j = nlohmann::ordered_json::parse(to_json(r));
  EXPECT_EQ(j["schema"], "probity.audit/1");
  EXPECT_EQ(keys(j), (std::vector<std::string>{
                         "schema",       "version",  "seed",     "sample",     "bootstrap",
                         "min_applied",  "alpha",    "margin",   "test",       "confidence",
                         "summary",      "datasets", "metrics",  "signatures", "strategies",
                         "correlations", "tests",    "examples", "cache_hits", "cache_misses",
                         "seconds",      "llm_usage"}));
  EXPECT_EQ(j["seed"].get<std::uint64_t>(), 18446744073709551557ull);
  EXPECT_EQ(keys(j["datasets"][0]), (std::vector<std::string>{"name", "path", "tasks", "candidates",
                                                              "audited", "dimensions", "skipped"}));
  EXPECT_EQ(keys(j["datasets"][0]["skipped"][0]),
            (std::vector<std::string>{"file", "line", "field", "message"}));
  EXPECT_EQ(keys(j["strategies"][0]),
            (std::vector<std::string>{"kind", "code", "name", "description", "signature"}));
  EXPECT_EQ(j["strategies"][0]["kind"], "degradation");
  EXPECT_EQ(j["strategies"][6]["kind"], "manipulation");
  EXPECT_EQ(keys(j["correlations"][0]), (std::vector<std::string>{"dataset", "metric", "rows"}));
  EXPECT_EQ(keys(j["correlations"][0]["rows"][0]),
            (std::vector<std::string>{"dimension", "n", "spearman", "spearman_lo", "spearman_hi",
                                      "spearman_p", "kendall", "pearson"}));
  EXPECT_EQ(keys(j["tests"][0]), (std::vector<std::string>{"dataset",
                                                           "metric",
                                                           "kind",
                                                           "code",
                                                           "name",
                                                           "considered",
                                                           "applied",
                                                           "not_applicable",
                                                           "unchanged",
                                                           "failed",
                                                           "undefined",
                                                           "testable",
                                                           "mean_original",
                                                           "mean_perturbed",
                                                           "mean_delta",
                                                           "sd_delta",
                                                           "pooled_sd",
                                                           "t",
                                                           "df",
                                                           "p",
                                                           "p_holm",
                                                           "passed",
                                                           "passed_holm",
                                                           "margin",
                                                           "p_equiv",
                                                           "p_equiv_holm",
                                                           "outcome",
                                                           "outcome_holm",
                                                           "test",
                                                           "mde",
                                                           "d",
                                                           "d_lo",
                                                           "d_hi",
                                                           "d_boot_lo",
                                                           "d_boot_hi"}));
  EXPECT_EQ(keys(j["examples"][0]),
            (std::vector<std::string>{"dataset", "task_id", "candidate_id", "kind", "code",
                                      "original", "perturbed"}));
  // NaN is written as null.
  bool found_null = false;
  for (const auto& t : j["tests"])
    if (!t["testable"].get<bool>()) {
      EXPECT_TRUE(t["d"].is_null());
      EXPECT_TRUE(t["p"].is_null());
      found_null = true;
    }
  EXPECT_TRUE(found_null);
  EXPECT_TRUE(j["correlations"][0]["rows"].back()["kendall"].is_null());
}

TEST(ReportJson, InfinityIsWrittenAsNullAndReadAsNaN) {
  AuditReport r = probity::test::make_sample_report();
  r.tests[0].t = std::numeric_limits<double>::infinity();
  r.tests[0].d_hi = -std::numeric_limits<double>::infinity();
  std::string json = to_json(r);
  auto j = nlohmann::json::parse(json);
  EXPECT_TRUE(j["tests"][0]["t"].is_null());
  EXPECT_TRUE(j["tests"][0]["d_hi"].is_null());
  AuditReport back = from_json(json);
  EXPECT_TRUE(std::isnan(back.tests[0].t));
  EXPECT_TRUE(std::isnan(back.tests[0].d_hi));
}

TEST(ReportJson, RejectsForeignOrMalformedInput) {
  EXPECT_THROW(from_json("{"), std::invalid_argument);
  EXPECT_THROW(from_json("[]"), std::invalid_argument);
  EXPECT_THROW(from_json(R"({"version": "0.1.0"})"), std::invalid_argument);
  EXPECT_THROW(from_json(R"({"schema": "probity.audit/99"})"), std::invalid_argument);
  EXPECT_THROW(from_json(R"({"schema": "probity.audit/1", "seed": -1})"), std::invalid_argument);
  EXPECT_THROW(from_json(R"({"schema": "probity.audit/1", "tests": [{"kind": "other"}]})"),
               std::invalid_argument);
  AuditReport minimal = from_json(R"({"schema": "probity.audit/1", "seed": 7})");
  EXPECT_EQ(minimal.seed, 7u);
  EXPECT_TRUE(minimal.tests.empty());
}

}  // namespace
