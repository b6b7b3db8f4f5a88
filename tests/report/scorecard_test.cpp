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
  EXPECT_EQ(bleu->kinds[0].passed, 3u);  // R, S, U fail
  EXPECT_EQ(bleu->kinds[0].tested, 6u);
  EXPECT_EQ(bleu->kinds[1].passed, 4u);  // M fails, N fails before Holm
  EXPECT_EQ(bleu->kinds[1].holm, std::vector<std::string>{"N"});
  EXPECT_EQ(bleu->verdict,
            "gameable: meaningless-elongation (M), negative-shift (N); misses: "
            "random-replacement (R), sentence-deletion (S), ultra-concise (U)");
  ASSERT_NE(bleu->correlation, nullptr);
  EXPECT_EQ(bleu->correlation->dimension, "mean");
  const auto* odd = find("summeval", probity::test::kOddMetric);
  ASSERT_NE(odd, nullptr);
  EXPECT_EQ(odd->kinds[0].passed, 4u);
  EXPECT_EQ(odd->kinds[0].tested, 5u);
  EXPECT_EQ(odd->kinds[0].untestable, 1u);
  EXPECT_EQ(odd->verdict, "misses: deletion-completion (D); 1 not testable");
  const auto* rouge = find("topical_chat", "rouge-L");
  ASSERT_NE(rouge, nullptr);
  EXPECT_EQ(rouge->kinds[0].passed, 6u);  // U passes before Holm
  EXPECT_EQ(rouge->verdict, "gameable: positive-shift (P)");
  const auto* clean = find("topical_chat", "bleu");
  ASSERT_NE(clean, nullptr);
  EXPECT_EQ(clean->verdict, "robust: passed all 12 tested");
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
              "no verdict: 1 of 12 tests could run (11 not testable: 11 × 0 applied items (LLM "
              "rewrites unusable))");
  }
  EXPECT_EQ(to_text(report).find("robust: passed all 1 tested"), std::string::npos);
}

TEST(ReportScorecard, LeadsTheDocumentsAndEndsTheTerminal) {
  const auto report = probity::test::make_sample_report();
  const std::string verdict = "gameable: meaningless-elongation (M), negative-shift (N)";
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
  EXPECT_NE(html.find("<td class=\"c pass nowrap\" data-label=\"degradations passed\">6/6</td>"),
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
  EXPECT_EQ(s["degradations"]["passed"], 3);
  EXPECT_EQ(s["degradations"]["tested"], 6);
  EXPECT_EQ(s["degradations"]["failed"], nlohmann::json::array({"R", "S", "U"}));
  EXPECT_EQ(s["manipulations"]["resisted"], 4);
  EXPECT_EQ(s["manipulations"]["holm_changes"], nlohmann::json::array({"N"}));
  EXPECT_EQ(s["human"]["dimension"], "mean");
  EXPECT_TRUE(s["verdict"].get<std::string>().starts_with("gameable: "));
  for (const char* key : {"schema", "datasets", "metrics", "correlations", "tests", "examples"})
    EXPECT_TRUE(j.contains(key)) << key;
  // The summary is derived: a report read back renders the same one.
  EXPECT_EQ(to_json(from_json(to_json(report))), to_json(report));
}

}  // namespace
