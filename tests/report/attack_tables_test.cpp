// The attack's tables (report/attack_tables.cpp) in every rendering of an audit report: the
// replacement families, the universal suffixes and the defense matrix appear where the attacks
// have them, with the cause where a family could not run, and not at all where none ran.
#include <gtest/gtest.h>

#include "probity/report.hpp"
#include "report/fixture.hpp"
#include "report/format.hpp"

namespace probity::test {
namespace {

MetricAttack judge(const std::string& variant, bool vulnerable) {
  MetricAttack a;
  a.dataset = "summeval";
  a.metric = "llm-judge,prompt=" + variant;
  a.items = 40;
  a.success_rate = vulnerable ? 0.9 : 0.1;
  ReplacementAttack x;
  x.family = ReplacementFamily::kMasterKey;
  x.tolerance = 0.05;
  x.held_out = {"Thought process:",
                20,
                vulnerable ? 18u : 0u,
                vulnerable ? 0.9 : 0.0,
                vulnerable ? 0.699 : 0.0,
                vulnerable ? 0.972 : 0.161,
                4.2};
  x.vulnerable = vulnerable;
  a.replacements.push_back(x);
  UniversalSuffix u;
  u.search = SuffixSearch::kLogprobSearch;
  u.searched = false;
  u.untestable = "logprob-search needs a G-Eval judge";
  a.suffixes.push_back(u);
  return a;
}

TEST(AttackTables, ReplacementSuffixAndDefenseMatrixInEveryRendering) {
  AuditReport r = make_sample_report();
  r.attacks = {judge("naive", true), judge("sandwich", false)};
  const std::string text = report::to_text(r, false);
  for (const std::string& s : {std::string("Replacement"), std::string("Universal suffixes"),
                               std::string("Defense matrix"), std::string("VULNERABLE"),
                               std::string("18/20 = 0.900 [0.699, 0.972]"),
                               std::string("n/a: logprob-search needs a G-Eval judge")})
    EXPECT_NE(text.find(s), std::string::npos) << s << "\n" << text;
  const std::string md = report::to_markdown(r);
  EXPECT_NE(md.find("Defense matrix"), std::string::npos);
  EXPECT_NE(md.find("Replacement"), std::string::npos);
  const std::string html = report::to_html(r);
  EXPECT_NE(html.find("Defense matrix"), std::string::npos);
  EXPECT_NE(html.find("Universal suffixes"), std::string::npos);
}

TEST(AttackTables, OneMetricHasNoDefenseMatrixAndNoAttackNoTables) {
  const report::detail::Symbols sym{false};
  std::vector<MetricAttack> one = {judge("naive", true)};
  const auto tables = report::detail::attack_tables(one, 0.05, sym);
  ASSERT_EQ(tables.size(), 3u);  // search, replacement, suffix
  EXPECT_TRUE(report::detail::defense_matrix(one, sym).rows.empty());
  std::vector<MetricAttack> none;
  EXPECT_TRUE(report::detail::attack_tables(none, 0.05, sym).empty());
  AuditReport r = make_sample_report();
  EXPECT_EQ(report::to_text(r, false).find("Defense matrix"), std::string::npos);
}

}  // namespace
}  // namespace probity::test
