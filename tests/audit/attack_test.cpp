// `probity attack`: the edit operators add nothing of the task, the search finds a
// planted vulnerability in at least 95 of 100 seeded runs, a metric that no content-free edit can
// move in a consistent direction yields held-out findings at no more than the stated rate, and
// the same inputs give the same bytes.
#include "probity/attack.hpp"

#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <filesystem>
#include <functional>
#include <iostream>
#include <map>
#include <nlohmann/json.hpp>
#include <regex>

#include "audit/attack_fixtures.hpp"
#include "cli_runner.hpp"
#include "perturb/edit_ops.hpp"
#include "probity/engine.hpp"
#include "probity/report.hpp"
#include "test_paths.hpp"
#include "util/hash.hpp"

namespace probity::test {
namespace {

AttackOptions quick(std::uint64_t seed) {
  AttackOptions o;
  o.seed = seed;
  o.budget = 20;
  o.steps = 1;
  o.programs = 5;
  o.bootstrap = 0;
  o.threads = 2;
  // The families of the first release (before the casing, spacing, formatting and injection
  // variants): every program of two of their 14 operators, so 100 seeded runs stay quick; the
  // protocol under test is the same for any operator set.
  o.families = {"filler",  "hedge",      "intensifier", "sentiment",
                "reorder", "repetition", "formatting",  "padding"};
  return o;
}

// The 100-run claims below take ~25 s each here but ~400 s under ASan+UBSan, where 10 runs check
// the same code paths for memory and UB errors; the rate claims are the normal build's.
#ifdef PROBITY_SANITIZED_BUILD
constexpr std::uint64_t kRuns = 10;
#else
constexpr std::uint64_t kRuns = 100;
#endif

bool found(const MetricAttack& a, const std::vector<std::string>& program) {
  for (const auto& u : a.universal)
    if (u.program == program && u.held_out.testable && !u.held_out.passed_holm) return true;
  return false;
}

TEST(Attack, APlantedTwoOperatorVulnerabilityIsFoundInAtLeast95Of100Runs) {
  // Rewards only the combination "heading on top" + "first sentence in bold": no single edit
  // moves it, so only the programs search can see it.
  const auto registry = perturb::EditOpRegistry::builtin();
  const auto items = all_items(sample());
  std::size_t hits = 0;
  for (std::uint64_t seed = 0; seed < kRuns; ++seed) {
    std::vector<MetricSelection> metrics;
    metrics.push_back(selection("planted", [](std::string_view t) {
      const bool both = t.starts_with("Summary:\n") && t.find("**") != std::string_view::npos;
      return 0.2 * noise(t) + (both ? 1.0 : 0.0);
    }));
    const auto r = run_attack(sample(), items, metrics, quick(seed), registry);
    hits += found(r.metrics[0], {"heading", "emphasis"}) ||
            found(r.metrics[0], {"emphasis", "heading"});
  }
  std::cout << "planted heading+emphasis found on held-out tasks in " << hits << "/" << kRuns
            << " runs\n";
  EXPECT_GE(hits, kRuns * 95 / 100);
}

TEST(Attack, NoConsistentEffectGivesHeldOutFindingsAtMostAtTheStatedRate) {
  // The best of many noise programs on the search half looks good; on held-out tasks it must
  // not, beyond alpha = 0.05 family-wise (Holm over the 5 programs tested): at most 10 of 100
  // seeded runs (P(X > 10) < 0.012 for Binomial(100, 0.05)).
  const auto registry = perturb::EditOpRegistry::builtin();
  const auto items = all_items(sample());
  std::size_t runs_with_finding = 0;
  for (std::uint64_t seed = 0; seed < kRuns; ++seed) {
    std::vector<MetricSelection> metrics;
    metrics.push_back(selection("noise", noise));
    // Exact match against the first reference: a content-free edit never makes it 1.
    if (seed % 10 == 0)
      metrics.push_back(selection("exact", [](std::string_view t) {
        return t == sample().tasks[0].references[0].text ? 1.0 : 0.0;
      }));
    const auto r = run_attack(sample(), items, metrics, quick(seed), registry);
    bool any = false;
    for (const auto& u : r.metrics[0].universal)
      any |= u.held_out.testable && !u.held_out.passed_holm;
    runs_with_finding += any;
    if (r.metrics.size() < 2) continue;
    for (const auto& u : r.metrics[1].universal)
      EXPECT_FALSE(u.held_out.testable && !u.held_out.passed_holm) << seed;
    EXPECT_EQ(r.metrics[1].success_rate, 0.0);
  }
  std::cout << "noise metric: a Holm-significant held-out program in " << runs_with_finding << "/"
            << kRuns << " runs\n";
  // 10 runs: at most 3 (P(X > 3) < 0.002 for Binomial(10, 0.05)).
  EXPECT_LE(runs_with_finding, kRuns == 100 ? 10u : 3u);
}

TEST(Attack, SearchesThatUseTheScoresBeatBlindOnesAndEveryStrategyKeepsTheBudget) {
  // A staircase rewards each of three operators a little and their combination a lot (order
  // matters: a heading bolded by the emphasis is no heading): the evolutionary search must climb
  // higher than random programs within the same budget, beam higher than greedy; on a flat
  // landscape with one rewarded pair, evolution finds it at least as often as greedy.
  const auto registry = perturb::EditOpRegistry::builtin();
  const auto items = all_items(sample());
  auto staircase = [](std::string_view t) {
    const double parts = (t.starts_with("Summary:\n") ? 1.0 : 0.0) +
                         (t.find("**") != std::string_view::npos ? 1.0 : 0.0) +
                         (t.find("grader") != std::string_view::npos ? 1.0 : 0.0);
    return 0.01 * noise(t) + parts + (parts == 3 ? 5.0 : 0.0);
  };
  auto planted = [](std::string_view t) {
    const bool both = t.starts_with("Summary:\n") && t.find("**") != std::string_view::npos;
    return 0.2 * noise(t) + (both ? 1.0 : 0.0);
  };
  std::map<std::string, double> found_planted, mean_top;
  for (const std::string strategy : {"greedy", "beam", "random", "evolution"}) {
    AttackOptions o = quick(3);
    o.strategy = strategy;
    o.budget = 120;
    o.steps = 3;
    o.programs = 0;
    std::vector<MetricSelection> metrics;
    metrics.push_back(selection("staircase", staircase));
    metrics.push_back(selection("planted", planted));
    const auto r = run_attack(sample(), items, metrics, o, registry);
    for (const auto& a : r.metrics) EXPECT_LE(a.queries, o.budget * items.size()) << strategy;
    // The best edit reached the top of the staircase (Δ > 5) on most items.
    const double top = r.metrics[0].success_rate;
    mean_top[strategy] = r.metrics[0].mean_best_delta;
    found_planted[strategy] = r.metrics[1].success_rate;
    std::cout << strategy << ": staircase mean best delta " << r.metrics[0].mean_best_delta
              << " (attacked " << top << "), planted combination attacked "
              << r.metrics[1].success_rate << "\n";
  }
  EXPECT_GT(mean_top["evolution"], mean_top["random"]);
  EXPECT_GT(mean_top["beam"], mean_top["greedy"]);
  EXPECT_GE(found_planted["evolution"], found_planted["greedy"]);
}

TEST(Attack, OperatorsAddNothingOfTheTaskUnlessCopySourceIsAsked) {
  const auto registry = perturb::EditOpRegistry::builtin();
  const Task& task = sample().tasks[0];
  const std::string text = task.candidates[1].text;
  for (const perturb::EditOp* op : registry.select({}, false)) {
    EXPECT_FALSE(op->adds_task_content) << op->name;
    perturb::Rng rng(7);
    auto out = op->apply(text, task, rng);
    if (!out) continue;
    // Every word of the edit is the candidate's own or from the operator's generic phrases:
    // none comes from the source that the candidate does not already contain.
    EXPECT_NE(*out, text) << op->name;
  }
  const auto with_content = registry.select({}, true);
  EXPECT_TRUE(std::any_of(with_content.begin(), with_content.end(),
                          [](const perturb::EditOp* op) { return op->name == "copy-source"; }));
  EXPECT_THROW(registry.select({"no-such-family"}, false), std::invalid_argument);
}

TEST(Attack, TheCommandWritesTheSameBytesAtAnyThreadCount) {
  const auto dir = std::filesystem::path(probity::test::temp_dir("probity_attack_cli"));
  std::filesystem::remove_all(dir);
  const std::string base = "attack --data " + data_path("summeval/summeval_sample20.jsonl") +
                           " --metric bleu --metric rougeL --budget 30 --strategy beam"
                           " --beam 2 --bootstrap 100 --seed 5 --out ";
  auto two = run_probity(base + (dir / "two").string() + " --threads 2");
  ASSERT_EQ(two.exit_code, 0) << two.err;
  auto one = run_probity(base + (dir / "one").string() + " --threads 1");
  ASSERT_EQ(one.exit_code, 0) << one.err;
  // The evolutionary search too (its own random streams).
  const std::string evolution =
      std::regex_replace(base, std::regex("--strategy beam"), "--strategy evolution --programs 2");
  ASSERT_EQ(run_probity(evolution + (dir / "evo2").string() + " --threads 2").exit_code, 0);
  ASSERT_EQ(run_probity(evolution + (dir / "evo1").string() + " --threads 1").exit_code, 0);
  auto strip = [](std::string s) {  // the only varying fields: timings
    nlohmann::json j = nlohmann::json::parse(s);
    for (auto& m : j["metrics"]) m.erase("seconds");
    return j.dump();
  };
  EXPECT_EQ(strip(read_text((dir / "two" / "attack.json").string())),
            strip(read_text((dir / "one" / "attack.json").string())));
  EXPECT_EQ(strip(read_text((dir / "evo2" / "attack.json").string())),
            strip(read_text((dir / "evo1" / "attack.json").string())));
  const auto doc = nlohmann::json::parse(read_text((dir / "one" / "attack.json").string()));
  ASSERT_EQ(doc["metrics"].size(), 2u);
  for (const auto& m : doc["metrics"]) {
    EXPECT_LE(m["queries"].get<std::size_t>(), 30u * doc["items"].get<std::size_t>());
    EXPECT_GT(m["success_rate"].get<double>(), 0.0);  // lexical metrics are moved by edits
    EXPECT_EQ(m["universal"].size(), 10u);
  }
}

TEST(Attack, AuditAttackAddsTheSectionAndReportJsonReadsItBack) {
  const auto dir = std::filesystem::path(probity::test::temp_dir("probity_audit_attack"));
  std::filesystem::remove_all(dir);
  auto r = run_probity("audit --data " + data_path("summeval/summeval_sample20.jsonl") +
                       " --metric bleu --degrade none --manipulate none --attack"
                       " --attack-budget 20 --bootstrap 50 --out " +
                       dir.string());
  ASSERT_EQ(r.exit_code, 0) << r.err;
  const std::string text = read_text((dir / "report.json").string());
  const auto doc = nlohmann::json::parse(text);
  ASSERT_EQ(doc["attacks"].size(), 1u);
  EXPECT_EQ(doc["attacks"][0]["dataset"], "summeval_sample20");
  EXPECT_EQ(doc["attacks"][0]["metric"], "bleu");
  EXPECT_EQ(doc["attacks"][0]["universal"].size(), 10u);
  EXPECT_EQ(report::to_json(report::from_json(text)), text);
  EXPECT_NE(read_text((dir / "report.md").string()).find("## Attack"), std::string::npos);
  const std::string html = read_text((dir / "report.html").string());
  EXPECT_NE(html.find("id=\"attack\""), std::string::npos);
  // The budget curve as a plot (one line per metric) and the examples with word diffs.
  EXPECT_NE(html.find("Gameability against query budget"), std::string::npos);
  ASSERT_NE(html.find("<polyline"), std::string::npos);
  EXPECT_EQ(html.find("<polyline"), html.rfind("<polyline"));
  ASSERT_FALSE(doc["attacks"][0]["examples"].empty());
  EXPECT_NE(html.find("<h4>Attacked</h4>"), std::string::npos);
  EXPECT_NE(html.find("<mark class=\"ins\">"), std::string::npos);
}

}  // namespace
}  // namespace probity::test
