// Every case of tests/golden/stats.jsonl (SciPy 1.10.1, statsmodels 0.13.5): numbers to 1e-9
// relative, null exactly where the C++ API reports NaN.
#include <gtest/gtest.h>

#include <cmath>
#include <fstream>
#include <map>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "probity/stats.hpp"
#include "test_paths.hpp"

namespace st = probity::stats;
using nlohmann::json;

namespace {

constexpr double kRelTol = 1e-9;

std::vector<double> doubles(const json& j) {
  return j.get<std::vector<double>>();
}

// null <-> NaN; otherwise a relative difference of at most 1e-9 (so 0 must be exactly 0).
void expect_value(double actual, const json& expected, const std::string& what) {
  if (expected.is_null()) {
    EXPECT_TRUE(std::isnan(actual)) << what << ": expected undefined, got " << actual;
    return;
  }
  const double e = expected.get<double>();
  ASSERT_FALSE(std::isnan(actual)) << what << ": expected " << e << ", got NaN";
  EXPECT_LE(std::abs(actual - e), kRelTol * std::abs(e))
      << what << ": expected " << e << ", got " << actual;
}

void expect_values(const std::vector<double>& actual, const json& expected,
                   const std::string& what) {
  ASSERT_EQ(actual.size(), expected.size()) << what;
  for (std::size_t i = 0; i < actual.size(); ++i) {
    expect_value(actual[i], expected[i], what + "[" + std::to_string(i) + "]");
  }
}

void expect_reject(const std::vector<bool>& actual, const json& expected, const std::string& what) {
  ASSERT_EQ(actual.size(), expected.size()) << what;
  for (std::size_t i = 0; i < actual.size(); ++i) {
    EXPECT_EQ(actual[i], expected[i].get<double>() != 0.0) << what << "[" << i << "]";
  }
}

}  // namespace

TEST(StatsGolden, ReproducesEveryCase) {
  std::ifstream in(probity::test::golden_path("stats.jsonl"));
  ASSERT_TRUE(in) << "missing tests/golden/stats.jsonl";
  std::map<std::string, int> seen;
  std::string line;
  int line_no = 0;
  while (std::getline(in, line)) {
    if (line.empty()) continue;
    ++line_no;
    const json c = json::parse(line);
    const std::string fn = c.at("fn");
    const json& args = c.at("args");
    const json& ex = c.at("expected");
    const std::string what = fn + " (line " + std::to_string(line_no) + ")";
    SCOPED_TRACE(what);
    ++seen[fn];

    if (fn == "pearson" || fn == "spearman" || fn == "kendall_tau_b" || fn == "kendall_tau_c") {
      const auto x = doubles(args.at("x")), y = doubles(args.at("y"));
      st::CorrelationResult r;
      std::string key;
      if (fn == "pearson") {
        r = st::pearson(x, y);
        key = "r";
      } else if (fn == "spearman") {
        r = st::spearman(x, y);
        key = "rho";
      } else if (fn == "kendall_tau_b") {
        r = st::kendall_tau_b(x, y);
        key = "tau";
      } else {
        r = st::kendall_tau_c(x, y);
        key = "tau";
      }
      expect_value(r.statistic, ex.at(key), what + " " + key);
      expect_value(r.p_two_sided, ex.at("p_two_sided"), what + " p");
    } else if (fn == "rankdata_average") {
      expect_values(st::rankdata_average(doubles(args.at("x"))), ex.at("ranks"), what);
    } else if (fn == "paired_t") {
      const auto r = st::paired_t(doubles(args.at("perturbed")), doubles(args.at("original")));
      expect_value(r.t, ex.at("t"), what + " t");
      expect_value(r.df, ex.at("df"), what + " df");
      expect_value(r.p_two_sided, ex.at("p_two_sided"), what + " p_two_sided");
      expect_value(r.p_less, ex.at("p_less"), what + " p_less");
      expect_value(r.p_greater, ex.at("p_greater"), what + " p_greater");
      expect_value(r.smd, ex.at("smd"), what + " smd");
      expect_value(r.smd_ci_half_width, ex.at("smd_ci_half_width"), what + " smd_ci_half_width");
    } else if (fn == "student_t_cdf") {
      expect_value(st::student_t_cdf(args.at("t").get<double>(), args.at("df").get<double>()),
                   ex.at("cdf"), what);
    } else if (fn == "normal_ppf") {
      expect_value(st::normal_ppf(args.at("q").get<double>()), ex.at("x"), what);
    } else if (fn == "holm" || fn == "benjamini_hochberg") {
      const auto p = doubles(args.at("p"));
      const double alpha = args.at("alpha").get<double>();
      const auto r = fn == "holm" ? st::holm(p, alpha) : st::benjamini_hochberg(p, alpha);
      expect_values(r.adjusted, ex.at("adjusted"), what + " adjusted");
      expect_reject(r.reject, ex.at("reject"), what + " reject");
    } else if (fn == "cem_ord") {
      expect_value(st::cem_ord(doubles(args.at("pred")), doubles(args.at("gold")),
                               doubles(args.at("levels"))),
                   ex.at("cem"), what);
    } else {
      ADD_FAILURE() << "unknown golden function " << fn;
    }
  }
  // Every function of the file is covered; the file has 173 cases.
  EXPECT_EQ(line_no, 173);
  for (const char* fn :
       {"pearson", "spearman", "kendall_tau_b", "kendall_tau_c", "rankdata_average", "paired_t",
        "student_t_cdf", "normal_ppf", "holm", "benjamini_hochberg", "cem_ord"}) {
    EXPECT_GT(seen[fn], 0) << fn;
  }
}
