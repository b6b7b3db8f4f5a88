// The scorecard: one verdict per metric, first in every rendering and as report.json's summary,
// derived from the planted per-strategy results of the fixture with the audit's criteria.
#include <gtest/gtest.h>

#include <nlohmann/json.hpp>

#include "probity/report.hpp"
#include "report/fixture.hpp"
#include "report/format.hpp"

namespace {

using namespace probity::report;

// The position of the first table or section after the scorecard in each rendering.
void expect_before(const std::string& doc, const std::string& first, const std::string& later) {
  const auto a = doc.find(first), b = doc.find(later);
  ASSERT_NE(a, std::string::npos) << first;
  ASSERT_NE(b, std::string::npos) << later;
  EXPECT_LT(a, b) << first << " should come before " << later;
}

TEST(ReportScorecard, CountsAndVerdictsFollowTheSpecCriteria) {
  const auto report = probity::test::make_sample_report();
  const detail::TestIndex index(report);
  const auto lines = detail::scorecard(index);
  ASSERT_EQ(lines.size(), 6u);  // 2 datasets × 3 metrics
  const auto find = [&](const std::string& ds, const std::string& m) {
    for (const auto& l : lines)
      if (l.dataset == ds && l.metric == m) return &l;
    return static_cast<const detail::ScoreLine*>(nullptr);
  };
  const auto* bleu = find("summeval", "bleu");
  ASSERT_NE(bleu, nullptr);
  EXPECT_EQ(bleu->kinds[0].passed, 3u);  // R, S, U are missed (a drop is ruled out)
  EXPECT_EQ(bleu->kinds[0].tested, 6u);
  // M fools the metric; N does before Holm and is inconclusive after it (counts after Holm).
  EXPECT_EQ(bleu->kinds[1].passed, 4u);
  ASSERT_EQ(bleu->kinds[1].failed.size(), 1u);
  EXPECT_EQ(bleu->kinds[1].failed[0].code, "M");
  ASSERT_EQ(bleu->kinds[1].inconclusive.size(), 1u);
  EXPECT_EQ(bleu->kinds[1].inconclusive[0].code, "N");
  EXPECT_EQ(bleu->kinds[1].holm, std::vector<std::string>{"N"});
  EXPECT_EQ(bleu->verdict,
            "gameable: meaningless-elongation (M); misses: random-replacement (R), "
            "sentence-deletion (S), ultra-concise (U); inconclusive at margin 0.1: "
            "negative-shift (N)");
  ASSERT_NE(bleu->correlation, nullptr);
  EXPECT_EQ(bleu->correlation->dimension, "mean");
  const auto* odd = find("summeval", probity::test::kOddMetric);
  ASSERT_NE(odd, nullptr);
  EXPECT_EQ(odd->kinds[0].passed, 4u);
  EXPECT_EQ(odd->kinds[0].tested, 5u);
  EXPECT_EQ(odd->kinds[0].untestable, 1u);
  EXPECT_EQ(odd->verdict,
            "misses: deletion-completion (D); 1 not testable (1 with no cause recorded)");
  const auto* rouge = find("topical_chat", "rouge-L");
  ASSERT_NE(rouge, nullptr);
  EXPECT_EQ(rouge->kinds[0].passed, 5u);  // U is detected before Holm only
  EXPECT_EQ(rouge->verdict,
            "gameable: positive-shift (P); inconclusive at margin 0.1: ultra-concise (U)");
  const auto* clean = find("topical_chat", "bleu");
  ASSERT_NE(clean, nullptr);
  EXPECT_EQ(clean->verdict, "robust: 12 of 12 tests passed at margin 0.1");
  EXPECT_TRUE(clean->robust);
}

// Robustness needs most of the suite to have run: 1 passed test of 12 is no verdict, and the
// scorecard says so first with the causes (LLM rewrites that all failed, say).
TEST(ReportScorecard, MostTestsUntestableIsNoVerdictNotRobust) {
  auto report = probity::test::make_sample_report();
  std::size_t kept = 0;
  for (auto& t : report.tests) {
    if (t.dataset != "topical_chat" || t.metric != "bleu") continue;
    if (kept++ == 0) continue;
    t.testable = false;
    t.untestable = "0 applied items (LLM rewrites unusable)";
  }
  const detail::TestIndex index(report);
  for (const auto& l : detail::scorecard(index)) {
    if (l.dataset != "topical_chat" || l.metric != "bleu") continue;
    EXPECT_EQ(l.verdict,
              "no verdict: 1 of 12 tests could run (11 not testable: 11 with 0 applied items (LLM "
              "rewrites unusable))");
  }
  EXPECT_EQ(to_text(report).find("robust: passed all 1 tested"), std::string::npos);
}

TEST(ReportScorecard, LeadsTheDocumentsAndEndsTheTerminal) {
  const auto report = probity::test::make_sample_report();
  const std::string verdict = "gameable: meaningless-elongation (M); misses: random-replacement";
  // On the terminal the verdict comes last, where it stays in view: details, summary, scorecard.
  const std::string text = to_text(report);
  expect_before(text, "Human correlation", "probity 0.1.0");
  expect_before(text, "probity 0.1.0", "Scorecard");
  expect_before(text, "Item accounting", "Scorecard");
  EXPECT_EQ(text.find("\n\n", text.find("Scorecard")), std::string::npos);  // the last block
  const std::string md = to_markdown(report);
  EXPECT_EQ(md.find("## Scorecard"), md.find("\n## ") + 1);  // the first section
  expect_before(md, "## Scorecard", "- **Version:**");
  expect_before(md, verdict, "## How to read");
  const std::string html = to_html(report);
  expect_before(html, "id=\"scorecard\"", "<dl class=\"meta\">");
  expect_before(html, "id=\"scorecard\"", "id=\"how\"");
  expect_before(html, verdict, "id=\"correlation\"");
  // The correlation chart follows the scorecard, before the metadata.
  expect_before(html, "aria-label=\"Human correlation of the metrics on summeval\"",
                "<dl class=\"meta\">");
  EXPECT_NE(html.find("<td class=\"c pass nowrap\" data-label=\"degradations detected\">6/6</td>"),
            std::string::npos);
}

TEST(ReportScorecard, JsonSummaryKeepsTheOtherFields) {
  const auto report = probity::test::make_sample_report();
  const auto j = nlohmann::json::parse(to_json(report));
  ASSERT_TRUE(j.contains("summary"));
  ASSERT_EQ(j["summary"].size(), 6u);
  const auto& s = j["summary"][0];
  EXPECT_EQ(s["dataset"], "summeval");
  EXPECT_EQ(s["metric"], "bleu");
  EXPECT_EQ(s["degradations"]["detected"], 3);
  EXPECT_EQ(s["degradations"]["tested"], 6);
  EXPECT_EQ(s["degradations"]["missed"], nlohmann::json::array({"R", "S", "U"}));
  EXPECT_EQ(s["manipulations"]["resisted"], 4);
  EXPECT_EQ(s["manipulations"]["fooled"], nlohmann::json::array({"M"}));
  EXPECT_EQ(s["manipulations"]["inconclusive"], nlohmann::json::array({"N"}));
  EXPECT_EQ(s["signal"], "ok");
  EXPECT_EQ(s["manipulations"]["holm_changes"], nlohmann::json::array({"N"}));
  EXPECT_EQ(s["human"]["dimension"], "mean");
  EXPECT_TRUE(s["verdict"].get<std::string>().starts_with("gameable: "));
  for (const char* key : {"schema", "datasets", "metrics", "correlations", "tests", "examples"})
    EXPECT_TRUE(j.contains(key)) << key;
  // The summary is derived: a report read back renders the same one.
  EXPECT_EQ(to_json(from_json(to_json(report))), to_json(report));
}

// The verdict uses all the evidence: the baselines, the attack's held-out findings and the
// inconclusive tests keep a metric whose strategy tests all pass from reading "robust".
TEST(ReportScorecard, VerdictUsesBaselinesAttackAndInconclusiveTests) {
  auto report = probity::test::make_sample_report();
  const auto verdict_of = [](const probity::AuditReport& r, const std::string& ds,
                             const std::string& m) {
    const detail::TestIndex index(r);
    for (const auto& l : detail::scorecard(index))
      if (l.dataset == ds && l.metric == m) return l;
    return detail::ScoreLine{};
  };
  const auto clean = verdict_of(report, "topical_chat", "bleu");
  ASSERT_TRUE(clean.robust) << clean.verdict;
  const double rho = clean.correlation->spearman;

  // A length baseline whose CI reaches above the metric's correlation.
  auto with_length = report;
  probity::MetricCorrelations length;
  length.dataset = "topical_chat";
  length.metric = "baseline:length";
  length.baseline = true;
  length.rows.push_back({"mean", 100, rho - 0.01, rho - 0.1, rho + 0.08, NAN, NAN, NAN});
  with_length.correlations.push_back(length);
  auto line = verdict_of(with_length, "topical_chat", "bleu");
  EXPECT_FALSE(line.robust);
  EXPECT_EQ(line.signal, detail::SignalProblem::kNoBetterThanLength);
  EXPECT_NE(line.verdict.find("not shown better than length"), std::string::npos) << line.verdict;
  // A random baseline that does as well: no signal, which comes before length.
  auto random = length;
  random.metric = "baseline:random";
  with_length.correlations.push_back(random);
  line = verdict_of(with_length, "topical_chat", "bleu");
  EXPECT_EQ(line.signal, detail::SignalProblem::kNoSignal);
  EXPECT_TRUE(line.verdict.starts_with("no signal shown")) << line.verdict;

  // An attack whose universal program is significant on the held-out half, and a master key.
  auto attacked = report;
  probity::MetricAttack a;
  a.dataset = "topical_chat";
  a.metric = "bleu";
  probity::UniversalProgram u;
  u.program = {"append-filler"};
  u.held_out.testable = true;
  u.held_out.passed_holm = false;
  a.universal.push_back(u);
  u.held_out.passed_holm = true;
  a.universal.push_back(u);
  probity::ReplacementAttack key;
  key.vulnerable = true;
  a.replacements.push_back(key);
  attacked.attacks.push_back(a);
  line = verdict_of(attacked, "topical_chat", "bleu");
  EXPECT_FALSE(line.robust);
  EXPECT_EQ(line.verdict, "gameable: attack: 1/2 universal edit programs, master-key");
  // The per-item search counts when its best edits raise the score significantly after Holm.
  auto searched = attacked;
  searched.attacks[0].success_rate = 0.5;
  searched.attacks[0].best_edits.testable = true;
  searched.attacks[0].best_edits.d = 0.3;
  searched.attacks[0].best_edits.outcome_holm = probity::Outcome::kFooled;
  EXPECT_EQ(verdict_of(searched, "topical_chat", "bleu").verdict,
            "gameable: attack: per-item search raised 50% of items (d = 0.30), 1/2 universal "
            "edit programs, master-key");
  // Every rendering and the JSON summary say the same.
  EXPECT_NE(to_text(attacked).find("1/2 universal edit programs"), std::string::npos);
  const auto j = nlohmann::json::parse(to_json(attacked));
  bool found = false;
  for (const auto& s : j["summary"])
    if (s["dataset"] == "topical_chat" && s["metric"] == "bleu") {
      found = true;
      EXPECT_EQ(s["robust"], false);
      EXPECT_EQ(s["attack_findings"].size(), 2u);
    }
  EXPECT_TRUE(found);

  // One inconclusive test is enough to withhold "robust".
  auto unsure = report;
  for (auto& t : unsure.tests)
    if (t.dataset == "topical_chat" && t.metric == "bleu" && t.code == "R" &&
        t.kind == probity::StrategyKind::kManipulation)
      t.outcome_holm = probity::Outcome::kInconclusive;
  line = verdict_of(unsure, "topical_chat", "bleu");
  EXPECT_FALSE(line.robust);
  EXPECT_EQ(line.verdict, "inconclusive at margin 0.1: rephrase (R)");
}

}  // namespace
