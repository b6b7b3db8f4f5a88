#include <gtest/gtest.h>

#include "probity/report.hpp"
#include "report/fixture.hpp"

namespace {

using probity::report::to_html;

std::size_t count(const std::string& haystack, const std::string& needle) {
  std::size_t n = 0;
  for (auto pos = haystack.find(needle); pos != std::string::npos;
       pos = haystack.find(needle, pos + needle.size()))
    ++n;
  return n;
}

TEST(ReportHtml, IsSelfContained) {
  std::string html = to_html(probity::test::make_sample_report());
  EXPECT_EQ(html.rfind("<!DOCTYPE html>", 0), 0u);
  EXPECT_EQ(html.find("http://"), std::string::npos);
  EXPECT_EQ(html.find("https://"), std::string::npos);
  EXPECT_EQ(html.find("<script"), std::string::npos);
  EXPECT_EQ(html.find("<link"), std::string::npos);
  EXPECT_EQ(html.find("<img"), std::string::npos);
  EXPECT_EQ(html.find("@import"), std::string::npos);
  EXPECT_EQ(html.find("url("), std::string::npos);
  EXPECT_NE(html.find("<style>"), std::string::npos);
  EXPECT_NE(html.find("</html>"), std::string::npos);
}

TEST(ReportHtml, OneSvgPerForestPanel) {
  auto r = probity::test::make_sample_report();
  std::string html = to_html(r);
  // 2 datasets × (6 degradation + 6 manipulation strategies), and a correlation chart each.
  EXPECT_EQ(count(html, "aria-label=\"Effect sizes of"), 24u);
  EXPECT_EQ(count(html, "aria-label=\"Human correlation of"), 2u);
  EXPECT_EQ(count(html, "<svg"), 26u);
  EXPECT_EQ(count(html, "</svg>"), 26u);
  EXPECT_EQ(count(html, "<figure class=\"panel\">"), 26u);
  // Dropping one strategy on one dataset removes exactly one panel.
  std::erase_if(r.tests, [](const probity::StrategyTest& t) {
    return t.dataset == "summeval" && t.kind == probity::StrategyKind::kManipulation &&
           t.code == "H";
  });
  EXPECT_EQ(count(to_html(r), "aria-label=\"Effect sizes of"), 23u);
}

TEST(ReportHtml, EscapesEveryText) {
  std::string html = to_html(probity::test::make_sample_report());
  EXPECT_EQ(html.find(probity::test::kOddMetric), std::string::npos);
  EXPECT_NE(html.find("a&lt;b&amp;&quot;c&quot;"), std::string::npos);
  EXPECT_EQ(html.find("<script>alert"), std::string::npos);
  EXPECT_NE(html.find("&lt;script&gt;alert(1)&lt;/script&gt; &amp; fell"), std::string::npos);
  EXPECT_EQ(html.find("x:<y>"), std::string::npos);  // the odd signature
}

TEST(ReportHtml, GridsAreColouredAndMarkHolm) {
  std::string html = to_html(probity::test::make_sample_report());
  EXPECT_NE(html.find("<table class=\"grid\">"), std::string::npos);
  EXPECT_NE(html.find("class=\"c pass"), std::string::npos);
  EXPECT_NE(html.find("class=\"c fail"), std::string::npos);
  EXPECT_NE(html.find("class=\"c na"), std::string::npos);
  EXPECT_NE(html.find("class=\"c fail holm"), std::string::npos);  // M,N† (raw fail)
  EXPECT_NE(html.find("class=\"c warn holm"), std::string::npos);  // ?:U† (inconclusive)
  EXPECT_NE(html.find(">R,S,U</td>"), std::string::npos);
  EXPECT_NE(html.find(">?:U\u2020</td>"), std::string::npos);
  EXPECT_NE(html.find(">n/a</td>"), std::string::npos);
}

TEST(ReportHtml, HasSectionsSignaturesAndFooter) {
  auto r = probity::test::make_sample_report();
  std::string html = to_html(r);
  for (const char* id : {"id=\"correlation\"", "id=\"grids\"", "id=\"effects\"",
                         "id=\"accounting\"", "id=\"examples\"", "id=\"run\""})
    EXPECT_NE(html.find(id), std::string::npos) << id;
  EXPECT_NE(html.find(r.signatures[0]), std::string::npos);
  EXPECT_NE(html.find("<footer>probity 0.1.0"), std::string::npos);
  EXPECT_NE(html.find("seed 18446744073709551557"), std::string::npos);
  // Both CIs are drawn: solid analytic bars and dashed bootstrap lines.
  EXPECT_NE(html.find("stroke-width=\"4\""), std::string::npos);
  EXPECT_NE(html.find("stroke-dasharray=\"3 2\""), std::string::npos);
  // Long examples are truncated.
  EXPECT_EQ(html.find(r.examples[0].original), std::string::npos);
  EXPECT_NE(html.find("\u2026</p>"), std::string::npos);
}

TEST(ReportHtml, ExamplesMarkWordDifferences) {
  std::string html = to_html(probity::test::make_sample_report());
  EXPECT_NE(html.find("I <mark class=\"del\">love</mark> `jazz` | it&#39;s "
                      "<mark class=\"del\">great.</mark>"),
            std::string::npos);
  EXPECT_NE(html.find("I <mark class=\"ins\">hate</mark> `jazz`"), std::string::npos);
  // Added words after an unchanged prefix, escaped inside the mark.
  EXPECT_NE(html.find("fell. <mark class=\"ins\">Moreover, it is important"), std::string::npos);
}

TEST(ReportHtml, EmptyReportStillRenders) {
  probity::AuditReport r;
  r.version = "0.1.0";
  std::string html = to_html(r);
  EXPECT_NE(html.find("</html>"), std::string::npos);
  EXPECT_EQ(html.find("<svg"), std::string::npos);
}

}  // namespace
