#include "probity/audit.hpp"

#include <gtest/gtest.h>
#include <signal.h>
#include <sqlite3.h>
#include <sys/wait.h>
#include <unistd.h>

#include <chrono>
#include <cmath>
#include <filesystem>
#include <nlohmann/json.hpp>
#include <sstream>
#include <thread>

#include "cli_runner.hpp"
#include "probity/stats.hpp"
#include "test_paths.hpp"
#include "util/random.hpp"

namespace {

using probity::PerturbResult;
using probity::StrategyKind;
using probity::test_strategy;
using Status = PerturbResult::Status;

double normal(probity::util::Rng& rng) {
  double u1 = (static_cast<double>(rng.next() >> 11) + 0.5) * 0x1.0p-53;
  double u2 = static_cast<double>(rng.next() >> 11) * 0x1.0p-53;
  return std::sqrt(-2 * std::log(u1)) * std::cos(2 * M_PI * u2);
}

// Paired scores with a planted mean shift of the perturbed scores.
void planted(std::size_t n, double shift, std::uint64_t seed, std::vector<double>& orig,
             std::vector<double>& pert) {
  probity::util::Rng rng(seed, 0);
  orig.resize(n);
  pert.resize(n);
  for (std::size_t i = 0; i < n; ++i) {
    orig[i] = normal(rng);
    pert[i] = orig[i] + shift + normal(rng);
  }
}

TEST(AuditDecisions, PlantedInflationIsFlaggedAndNullIsNotAtExpectedRates) {
  const std::size_t reps = 400, n = 100;
  std::vector<Status> applied(n, Status::kApplied);
  std::size_t null_fail = 0, inflated_fail = 0, degraded_pass = 0, null_degraded_pass = 0;
  std::vector<double> o, p;
  for (std::size_t r = 0; r < reps; ++r) {
    planted(n, 0.0, 1000 + r, o, p);
    if (!test_strategy(StrategyKind::kManipulation, o, p, applied, 0.05, 0, 0.95, r).passed)
      ++null_fail;
    if (test_strategy(StrategyKind::kDegradation, o, p, applied, 0.05, 0, 0.95, r).passed)
      ++null_degraded_pass;
    planted(n, 0.5, 5000 + r, o, p);
    if (!test_strategy(StrategyKind::kManipulation, o, p, applied, 0.05, 0, 0.95, r).passed)
      ++inflated_fail;
    planted(n, -0.5, 9000 + r, o, p);
    if (test_strategy(StrategyKind::kDegradation, o, p, applied, 0.05, 0, 0.95, r).passed)
      ++degraded_pass;
  }
  // Under the null the one-sided test rejects at about α = 5% (binomial sd ≈ 1.1%).
  EXPECT_GT(null_fail, reps * 2 / 100);
  EXPECT_LT(null_fail, reps * 9 / 100);
  EXPECT_GT(null_degraded_pass, reps * 2 / 100);
  EXPECT_LT(null_degraded_pass, reps * 9 / 100);
  // With a shift of 0.5 sd of Δ·√2 at n = 100 the power is above 99.9%.
  EXPECT_GE(inflated_fail, reps - 2);
  EXPECT_GE(degraded_pass, reps - 2);
}

// Absence of evidence is not robustness: a manipulation resists only when a rise of the margin
// is ruled out, which a handful of noisy items cannot do.
TEST(AuditDecisions, ThreeWayOutcomesNeedEvidenceEitherWay) {
  using probity::Outcome;
  std::vector<double> o, p;
  auto outcome = [&](StrategyKind kind, std::size_t n, double shift, std::uint64_t seed) {
    planted(n, shift, seed, o, p);
    std::vector<Status> applied(n, Status::kApplied);
    return test_strategy(kind, o, p, applied, 0.05, 0, 0.95, seed, 0, 2, 0.1);
  };
  std::size_t resists = 0, small_inconclusive = 0, small_resists = 0, at_margin_resists = 0,
              misses = 0, detects = 0, fooled = 0;
  // d = shift / pooled sd, the pooled sd of planted() being sqrt((1 + 2) / 2).
  const double margin_shift = 0.1 * std::sqrt(1.5);
  for (std::uint64_t r = 0; r < 100; ++r) {
    // No change, many items: the upper bound of d falls below 0.1 (power ~1 at n = 4000).
    resists +=
        outcome(StrategyKind::kManipulation, 4000, 0.0, 100 + r).outcome == Outcome::kResists;
    // No change, 8 items: mostly neither a rise nor its absence can be shown; "resists" only
    // when the sample happens to drop far enough (the test's power at d = 0 is about 10%).
    const auto few = outcome(StrategyKind::kManipulation, 8, 0.0, 300 + r).outcome;
    small_inconclusive += few == Outcome::kInconclusive;
    small_resists += few == Outcome::kResists;
    // A rise of exactly the margin: "resists" is the error the equivalence test controls at α.
    at_margin_resists += outcome(StrategyKind::kManipulation, 30, margin_shift, 1100 + r).outcome ==
                         Outcome::kResists;
    misses += outcome(StrategyKind::kDegradation, 4000, 0.0, 500 + r).outcome == Outcome::kMisses;
    detects += outcome(StrategyKind::kDegradation, 100, -0.5, 700 + r).outcome == Outcome::kDetects;
    fooled += outcome(StrategyKind::kManipulation, 100, 0.5, 900 + r).outcome == Outcome::kFooled;
  }
  EXPECT_GE(resists, 90u);
  EXPECT_GE(small_inconclusive, 70u);
  EXPECT_LE(small_resists, 20u);
  EXPECT_LE(at_margin_resists, 10u);  // α = 5% of 100, with binomial noise
  EXPECT_GE(misses, 90u);
  EXPECT_GE(detects, 98u);
  EXPECT_GE(fooled, 98u);
  // The decision itself: significance first, then equivalence.
  EXPECT_EQ(probity::decide_outcome(StrategyKind::kManipulation, 0.01, 0.01, 0.05),
            Outcome::kFooled);
  EXPECT_EQ(probity::decide_outcome(StrategyKind::kManipulation, 0.5, 0.01, 0.05),
            Outcome::kResists);
  EXPECT_EQ(probity::decide_outcome(StrategyKind::kDegradation, 0.5, 0.2, 0.05),
            Outcome::kInconclusive);
  EXPECT_EQ(probity::decide_outcome(StrategyKind::kDegradation, NAN, NAN, 0.05),
            Outcome::kInconclusive);
  for (Outcome x : {Outcome::kUntestable, Outcome::kDetects, Outcome::kMisses, Outcome::kResists,
                    Outcome::kFooled, Outcome::kInconclusive})
    EXPECT_EQ(probity::parse_outcome(probity::outcome_name(x)), x);
  EXPECT_THROW(probity::parse_outcome("robust"), std::invalid_argument);
}

// Holm adjusts the equivalence tests too: five borderline equivalences in one family do not all
// survive.
TEST(AuditDecisions, HolmCorrectsBothFamiliesOfTests) {
  using probity::Outcome;
  std::vector<probity::StrategyTest> tests(5);
  for (std::size_t i = 0; i < tests.size(); ++i) {
    auto& t = tests[i];
    t.dataset = "d";
    t.metric = "m";
    t.kind = StrategyKind::kManipulation;
    t.code = std::string(1, static_cast<char>('A' + i));
    t.testable = true;
    t.p = 0.5;
    t.p_equiv = 0.02;
    t.outcome = probity::decide_outcome(t.kind, t.p, t.p_equiv, 0.05);
  }
  probity::apply_holm(tests, 0.05);
  for (const auto& t : tests) {
    EXPECT_EQ(t.outcome, Outcome::kResists);
    EXPECT_EQ(t.outcome_holm, Outcome::kInconclusive);
    EXPECT_DOUBLE_EQ(t.p_equiv_holm, 0.1);
    EXPECT_TRUE(t.passed_holm);  // the effect test alone finds nothing either way
  }
}

TEST(AuditDecisions, NotAppliedItemsAreCountedAndLeftOut) {
  std::vector<double> o = {1, 2, 3, 4, 5, 6}, p = {0, 1, 2, 9, 9, NAN};
  std::vector<Status> s = {Status::kApplied,       Status::kApplied,   Status::kApplied,
                           Status::kNotApplicable, Status::kUnchanged, Status::kApplied};
  auto t = test_strategy(StrategyKind::kDegradation, o, p, s, 0.05, 200, 0.95, 1);
  EXPECT_EQ(t.considered, 6u);
  EXPECT_EQ(t.applied, 3u);
  EXPECT_EQ(t.not_applicable, 1u);
  EXPECT_EQ(t.unchanged, 1u);
  EXPECT_EQ(t.undefined, 1u);
  EXPECT_TRUE(t.testable);
  EXPECT_DOUBLE_EQ(t.mean_delta, -1.0);  // only the three applied items
  // Δ is constant and negative: t = -inf, p = 0 (as SciPy), a clear pass.
  EXPECT_EQ(t.p, 0.0);
  EXPECT_TRUE(t.passed);
  // Δ constant zero: the t statistic is undefined, which is no evidence of detection.
  std::vector<double> same = {1, 2, 3};
  std::vector<Status> three(3, Status::kApplied);
  auto z = test_strategy(StrategyKind::kDegradation, same, same, three, 0.05, 0, 0.95, 1);
  EXPECT_TRUE(std::isnan(z.p));
  EXPECT_FALSE(z.passed);
  EXPECT_EQ(z.d, 0.0);
  // ...but no change at all rules a drop out: the metric misses it.
  EXPECT_EQ(z.p_equiv, 0.0);
  EXPECT_EQ(z.outcome, probity::Outcome::kMisses);

  std::vector<Status> none(6, Status::kNotApplicable);
  auto u = test_strategy(StrategyKind::kManipulation, o, p, none, 0.05, 0, 0.95, 1);
  EXPECT_FALSE(u.testable);
  EXPECT_FALSE(u.passed);  // not testable is never a pass
  EXPECT_EQ(u.not_applicable, 6u);
}

TEST(AuditDecisions, EffectSizeCisAndHolmFamilies) {
  std::vector<double> o, p;
  planted(200, -0.4, 77, o, p);
  std::vector<Status> applied(o.size(), Status::kApplied);
  auto t = test_strategy(StrategyKind::kDegradation, o, p, applied, 0.05, 500, 0.95, 3);
  EXPECT_LT(t.d, 0);
  EXPECT_LT(t.d_lo, t.d);
  EXPECT_GT(t.d_hi, t.d);
  EXPECT_LT(t.d_boot_lo, t.d);
  EXPECT_GT(t.d_boot_hi, t.d);

  // Two families; Holm multiplies the smallest p of a family of 3 by 3.
  std::vector<probity::StrategyTest> tests(4);
  double ps[] = {0.02, 0.04, 0.5, 0.02};
  for (std::size_t i = 0; i < 4; ++i) {
    tests[i].dataset = "d";
    tests[i].metric = i < 3 ? "m1" : "m2";
    tests[i].kind = StrategyKind::kDegradation;
    tests[i].testable = true;
    tests[i].p = ps[i];
    tests[i].passed = ps[i] < 0.05;
  }
  probity::apply_holm(tests, 0.05);
  EXPECT_NEAR(tests[0].p_holm, 0.06, 1e-12);
  EXPECT_FALSE(tests[0].passed_holm);
  EXPECT_TRUE(tests[0].passed);
  EXPECT_NEAR(tests[3].p_holm, 0.02, 1e-12);  // alone in its family
  EXPECT_TRUE(tests[3].passed_holm);
}

std::string strip_volatile(const std::string& json_text) {
  auto j = nlohmann::json::parse(json_text);
  j.erase("seconds");
  j.erase("cache_hits");
  j.erase("cache_misses");
  return j.dump();
}

// Markdown without the lines that report run time and cache use.
std::string stable_markdown(const std::string& md) {
  std::string out, line;
  std::istringstream in(md);
  while (std::getline(in, line))
    if (line.find("cache") == std::string::npos) out += line + "\n";
  return out;
}

std::string audit_args(const std::string& out) {
  return "audit --data " + probity::test::data_path("summeval/summeval.jsonl") +
         " --metric bleu --metric rougeL.f --sample 300 --seed 7 --bootstrap 100 --out " + out;
}

TEST(AuditRun, SameSeedSameBytesAndRerunRecomputesNothing) {
  std::string a = probity::test::temp_dir("audit-a"), b = probity::test::temp_dir("audit-b");
  auto r1 = probity::test::run_probity(audit_args(a));
  ASSERT_EQ(r1.exit_code, 0) << r1.err;
  auto r2 = probity::test::run_probity(audit_args(b));
  ASSERT_EQ(r2.exit_code, 0) << r2.err;
  EXPECT_EQ(strip_volatile(probity::test::read_text(a + "/report.json")),
            strip_volatile(probity::test::read_text(b + "/report.json")));
  EXPECT_EQ(stable_markdown(probity::test::read_text(a + "/report.md")),
            stable_markdown(probity::test::read_text(b + "/report.md")));
  // The terminal tables are there.
  EXPECT_NE(r1.out.find("Degradation"), std::string::npos);
  // A first run misses every lookup, including those of stages the cache has never seen.
  const auto first = nlohmann::json::parse(probity::test::read_text(b + "/report.json"));
  EXPECT_EQ(first["cache_hits"].get<int>(), 0);
  EXPECT_GT(first["cache_misses"].get<int>(), 0);
  // A re-run in the same directory is served from the cache.
  auto r3 = probity::test::run_probity(audit_args(a));
  ASSERT_EQ(r3.exit_code, 0) << r3.err;
  auto j = nlohmann::json::parse(probity::test::read_text(a + "/report.json"));
  EXPECT_GT(j["cache_hits"].get<int>(), 0);
  EXPECT_EQ(j["cache_misses"].get<int>(), 0);
  EXPECT_EQ(strip_volatile(probity::test::read_text(a + "/report.json")),
            strip_volatile(probity::test::read_text(b + "/report.json")));
}

std::size_t cached_rows(const std::string& db_path) {
  sqlite3* db = nullptr;
  if (sqlite3_open_v2(db_path.c_str(), &db, SQLITE_OPEN_READONLY, nullptr) != SQLITE_OK) {
    sqlite3_close(db);
    return 0;
  }
  sqlite3_busy_timeout(db, 1000);
  sqlite3_stmt* st = nullptr;
  std::size_t n = 0;
  if (sqlite3_prepare_v2(db, "SELECT count(*) FROM scores", -1, &st, nullptr) == SQLITE_OK &&
      sqlite3_step(st) == SQLITE_ROW)
    n = static_cast<std::size_t>(sqlite3_column_int64(st, 0));
  sqlite3_finalize(st);
  sqlite3_close(db);
  return n;
}

TEST(AuditRun, KilledRunResumesAndGivesTheSameReport) {
  std::string clean = probity::test::temp_dir("audit-clean"),
              killed = probity::test::temp_dir("audit-killed");
  ASSERT_EQ(probity::test::run_probity(audit_args(clean)).exit_code, 0);

  std::string cmd = probity::test::probity_binary() + " " + audit_args(killed) + " >/dev/null 2>&1";
  pid_t pid = fork();
  ASSERT_GE(pid, 0);
  if (pid == 0) {
    execl("/bin/sh", "sh", "-c", ("exec " + cmd).c_str(), static_cast<char*>(nullptr));
    _exit(127);
  }
  // Kill it hard once some work is committed (but before it can finish).
  bool killed_midway = false;
  for (int i = 0; i < 2000; ++i) {
    int status = 0;
    if (waitpid(pid, &status, WNOHANG) == pid) break;  // finished before we could kill it
    if (cached_rows(killed + "/cache.sqlite") > 0) {
      kill(pid, SIGKILL);
      waitpid(pid, &status, 0);
      killed_midway = true;
      break;
    }
    std::this_thread::sleep_for(std::chrono::milliseconds(5));
  }
  EXPECT_TRUE(killed_midway) << "the audit finished before it could be killed";
  EXPECT_FALSE(std::filesystem::exists(killed + "/report.json"));
  auto resumed = probity::test::run_probity(audit_args(killed));
  ASSERT_EQ(resumed.exit_code, 0) << resumed.err;
  auto j = nlohmann::json::parse(probity::test::read_text(killed + "/report.json"));
  EXPECT_GT(j["cache_hits"].get<int>(), 0);  // finished work was kept
  EXPECT_EQ(strip_volatile(probity::test::read_text(killed + "/report.json")),
            strip_volatile(probity::test::read_text(clean + "/report.json")));
}

TEST(AuditRun, UnknownStrategyIsAUsageError) {
  auto r = probity::test::run_probity(
      "audit --data " + probity::test::data_path("summeval/summeval_sample20.jsonl") +
      " --metric bleu --degrade X --out " + probity::test::temp_dir("audit-x"));
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_NE(r.err.find("unknown degradation strategy 'X'"), std::string::npos) << r.err;
}

}  // namespace

// Constant scores used to give d = -8e15 (noise in a zero pooled sd),
// and two applied items made a strategy testable.
TEST(AuditTest, DegenerateTestsAreNotTestableAndSayWhy) {
  using probity::PerturbResult;
  using probity::StrategyKind;
  const std::size_t n = 100;
  std::vector<double> orig(n), pert(n);
  std::vector<PerturbResult::Status> status(n, PerturbResult::Status::kNotApplicable);
  for (std::size_t i = 0; i < n; ++i) {
    orig[i] = static_cast<double>(i % 7);
    pert[i] = orig[i] - 1.0 - 0.01 * static_cast<double>(i % 3);
  }
  for (std::size_t i = 0; i < 8; ++i) status[i] = PerturbResult::Status::kApplied;
  auto t = probity::test_strategy(StrategyKind::kDegradation, orig, pert, status, 0.05, 0, 0.95, 1,
                                  1, 30);
  EXPECT_FALSE(t.testable);
  EXPECT_EQ(t.untestable, "8 applied items, fewer than 30");
  EXPECT_TRUE(std::isnan(t.d) && std::isnan(t.p));
  // A dataset smaller than the minimum needs all of its items.
  std::vector<PerturbResult::Status> all8(8, PerturbResult::Status::kApplied);
  t = probity::test_strategy(StrategyKind::kDegradation, std::span(orig).first(8),
                             std::span(pert).first(8), all8, 0.05, 0, 0.95, 1, 1, 30);
  EXPECT_TRUE(t.testable) << t.untestable;
  // Constant scores (BLEU of 21.0711 everywhere, up to rounding): no d, no verdict.
  std::vector<double> flat(n, 21.0711), flat2(n, 21.0711);
  flat2[3] += 1e-14;
  std::vector<PerturbResult::Status> applied(n, PerturbResult::Status::kApplied);
  t = probity::test_strategy(StrategyKind::kManipulation, flat, flat2, applied, 0.05, 50, 0.95, 1,
                             1, 30);
  EXPECT_FALSE(t.testable);
  EXPECT_EQ(t.untestable, "constant scores (the pooled sd is zero)");
  EXPECT_TRUE(std::isnan(t.d) && std::isnan(t.d_lo) && std::isnan(t.d_boot_hi));
}

namespace {

// The rank tests instead of t: SciPy's signed-rank and sign tests of the differences, and of the
// differences shifted by the margin for the equivalence.
TEST(AuditDecisions, WilcoxonAndSignTestsReplaceTheTTest) {
  std::vector<double> o, p;
  planted(40, 0.3, 17, o, p);
  std::vector<Status> applied(o.size(), Status::kApplied);
  const auto t = test_strategy(StrategyKind::kManipulation, o, p, applied, 0.05, 0, 0.95, 1, 0, 2,
                               0.1, probity::PairedTest::kT);
  std::vector<double> delta, shifted;
  for (std::size_t i = 0; i < o.size(); ++i) {
    delta.push_back(p[i] - o[i]);
    shifted.push_back(p[i] - o[i] - 0.1 * t.pooled_sd);
  }
  namespace st = probity::stats;
  const auto w = test_strategy(StrategyKind::kManipulation, o, p, applied, 0.05, 0, 0.95, 1, 0, 2,
                               0.1, probity::PairedTest::kWilcoxon);
  EXPECT_EQ(w.test, probity::PairedTest::kWilcoxon);
  EXPECT_EQ(
      w.p,
      st::wilcoxon(delta, st::WilcoxonZeroMethod::kWilcox, false, st::Alternative::kGreater).p);
  EXPECT_EQ(
      w.p_equiv,
      st::wilcoxon(shifted, st::WilcoxonZeroMethod::kWilcox, false, st::Alternative::kLess).p);
  const auto s = test_strategy(StrategyKind::kManipulation, o, p, applied, 0.05, 0, 0.95, 1, 0, 2,
                               0.1, probity::PairedTest::kSign);
  EXPECT_EQ(s.p, st::sign_test(delta, st::Alternative::kGreater).p);
  EXPECT_EQ(s.p_equiv, st::sign_test(shifted, st::Alternative::kLess).p);
  // d and the detectable effect stay those of the t framework.
  EXPECT_EQ(w.d, t.d);
  EXPECT_EQ(s.mde, t.mde);
  EXPECT_GT(t.mde, 0.0);
  EXPECT_EQ(probity::parse_paired_test("wilcoxon"), probity::PairedTest::kWilcoxon);
}

// The partial-conjunction test over datasets: the failure's p-value per dataset (p_equiv for a
// degradation, p for a manipulation), strategies tested on one dataset left out.
TEST(AuditDecisions, ReplicabilityCountsTheDatasetsWhereAFailureIsShown) {
  std::vector<probity::StrategyTest> tests;
  auto add = [&](const std::string& ds, StrategyKind kind, const std::string& code, double p,
                 double p_equiv) {
    probity::StrategyTest t;
    t.dataset = ds;
    t.metric = "m";
    t.kind = kind;
    t.code = t.name = code;
    t.testable = true;
    t.p = p;
    t.p_equiv = p_equiv;
    tests.push_back(t);
  };
  add("a", StrategyKind::kManipulation, "M", 0.001, 0.9);
  add("b", StrategyKind::kManipulation, "M", 0.01, 0.9);
  add("c", StrategyKind::kManipulation, "M", 0.5, 0.01);
  add("a", StrategyKind::kDegradation, "S", 0.9, 0.2);
  add("b", StrategyKind::kDegradation, "S", 0.9, NAN);    // undefined: counts as p = 1
  add("a", StrategyKind::kDegradation, "O", 0.9, 0.001);  // one dataset only
  const auto r = probity::replicability(tests, 0.05);
  ASSERT_EQ(r.size(), 2u);
  EXPECT_EQ(r[0].code, "M");
  EXPECT_EQ(r[0].datasets, (std::vector<std::string>{"a", "b", "c"}));
  EXPECT_EQ(r[0].failing, 2u);  // 3 * 0.001 and 2 * 0.01 are below 0.05, 1 * 0.5 is not
  ASSERT_EQ(r[0].p_at_least.size(), 3u);
  EXPECT_DOUBLE_EQ(r[0].p_at_least[0], 0.003);
  EXPECT_DOUBLE_EQ(r[0].p_at_least[1], 0.02);
  EXPECT_DOUBLE_EQ(r[0].p_at_least[2], 0.5);
  EXPECT_EQ(r[1].code, "S");
  EXPECT_EQ(r[1].p_fail, (std::vector<double>{0.2, 1.0}));
  EXPECT_EQ(r[1].failing, 0u);
}

}  // namespace
