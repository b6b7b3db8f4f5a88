// `probity power` end to end: each mode solves with the statsmodels-equal functions of stats
// (tests/stats/power_test.cpp holds their goldens), in the audit's units when sds are given,
// and per test of a pilot report.
#include <gtest/gtest.h>

#include <cmath>
#include <fstream>
#include <nlohmann/json.hpp>
#include <string>

#include "cli_runner.hpp"
#include "probity/report.hpp"
#include "probity/stats.hpp"
#include "report/fixture.hpp"
#include "test_paths.hpp"

namespace {

using nlohmann::json;
using probity::test::run_probity;
namespace st = probity::stats;

json rows_of(const std::string& args) {
  auto r = run_probity("power " + args + " --json");
  EXPECT_EQ(r.exit_code, 0) << args << ": " << r.err;
  return json::parse(r.out).at("rows");
}

TEST(PowerCli, SolvesWhatIsNotGiven) {
  auto rows = rows_of("--effect 0.5");
  ASSERT_EQ(rows.size(), 1u);
  EXPECT_EQ(rows[0]["solved"], "n");
  EXPECT_DOUBLE_EQ(rows[0]["n"].get<double>(),
                   st::ttest_nobs(0.5, 0.8, 0.05, st::Alternative::kGreater));
  rows = rows_of("--n 30 --alternative two-sided --power 0.9");
  EXPECT_EQ(rows[0]["solved"], "effect");
  EXPECT_DOUBLE_EQ(rows[0]["effect"].get<double>(),
                   st::ttest_mde(30, 0.9, 0.05, st::Alternative::kTwoSided));
  rows = rows_of("--n 30 --effect 0.4 --alpha 0.01");
  EXPECT_EQ(rows[0]["solved"], "power");
  EXPECT_DOUBLE_EQ(rows[0]["power"].get<double>(),
                   st::ttest_power(0.4, 30, 0.01, st::Alternative::kGreater));
  // The audit's d (pooled-sd units) is dz = d * pooled / sd_delta = 0.2 here.
  rows = rows_of("--effect 0.1 --sd-delta 0.5 --pooled-sd 1");
  EXPECT_DOUBLE_EQ(rows[0]["n"].get<double>(),
                   st::ttest_nobs(0.2, 0.8, 0.05, st::Alternative::kGreater));
  rows = rows_of("--correlation 0.45,0.35");
  EXPECT_DOUBLE_EQ(
      rows[0]["n"].get<double>(),
      st::correlation_difference_nobs(0.45, 0.35, 0.8, 0.05, st::Alternative::kGreater));
}

TEST(PowerCli, PerTestOfAPilotReport) {
  const auto report = probity::test::make_sample_report();
  const std::string path = probity::test::temp_dir("power") + "/report.json";
  std::ofstream(path) << probity::report::to_json(report);
  const auto rows = rows_of("--report " + path);
  std::size_t testable = 0;
  for (const auto& t : report.tests) testable += t.testable;
  ASSERT_EQ(rows.size(), testable);
  // The fixture's tests: sd of Δ 0.12, pooled sd 0.2; the margin 0.1 is dz = 0.1 * 0.2 / 0.12.
  const double n = st::ttest_nobs(0.1 * 0.2 / 0.12, 0.8, 0.05, st::Alternative::kGreater);
  for (const auto& row : rows) {
    EXPECT_EQ(row["solved"], "n");
    EXPECT_DOUBLE_EQ(row["n"].get<double>(), n);
    EXPECT_DOUBLE_EQ(row["effect"].get<double>(), 0.1);
  }
}

TEST(PowerCli, UsageErrorsSayWhatIsMissing) {
  auto r = run_probity("power");
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_NE(r.err.find("--effect, --n"), std::string::npos) << r.err;
  r = run_probity("power --effect 0.2 --sd-delta 0.5");
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_NE(r.err.find("together"), std::string::npos) << r.err;
  r = run_probity("power --correlation 0.4,0.4");
  EXPECT_EQ(r.exit_code, 2);
}

}  // namespace
