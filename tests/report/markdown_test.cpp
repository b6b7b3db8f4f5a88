#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <sstream>

#include "probity/llm.hpp"
#include "probity/report.hpp"
#include "report/fixture.hpp"
#include "test_paths.hpp"

namespace {

using probity::report::to_markdown;

TEST(ReportMarkdown, ContainsHeaderAndGrids) {
  auto r = probity::test::make_sample_report();
  std::string md = to_markdown(r);
  EXPECT_EQ(md.rfind("# probity audit report", 0), 0u);
  EXPECT_NE(md.find("**Seed:** 18446744073709551557"), std::string::npos);
  EXPECT_NE(md.find("probity 0.1.0"), std::string::npos);
  EXPECT_NE(md.find("summeval (100 tasks"), std::string::npos);
  // Signatures as code spans; pipes stay unescaped outside tables.
  EXPECT_NE(md.find("  - bleu: `bleu|nrefs:1|case:mixed"), std::string::npos);
  EXPECT_NE(md.find("| `deg:R\\|rule\\|v1` |"), std::string::npos);
  EXPECT_NE(md.find("## How to read"), std::string::npos);
  EXPECT_NE(md.find("## Degradation tests"), std::string::npos);
  EXPECT_NE(md.find("## Manipulation tests"), std::string::npos);
  EXPECT_NE(md.find("| metric | summeval | topical_chat | fails | Holm | inconclusive |"),
            std::string::npos);
  EXPECT_NE(md.find("| bleu | **R,S,U** | \u2713 | 3 | 3 | 0 |"), std::string::npos);
  EXPECT_NE(md.find("| rouge-L | \u2713 | **P** | 1 | 1 | 0 |"), std::string::npos);
  EXPECT_NE(md.find("| rouge-L | \u2713 | *?:U\u2020* | 0 | 0 | 1 |"), std::string::npos);
  EXPECT_NE(md.find("| a&lt;b&amp;\"c\" | \u2713 | n/a | 0 | 0 | 0 |"), std::string::npos);
  EXPECT_NE(md.find("### Effect sizes d \u00b1 95% CI"), std::string::npos);
  EXPECT_NE(md.find("-0.84\u00b10.12"), std::string::npos);
  EXPECT_NE(md.find("## Item accounting"), std::string::npos);
}

TEST(ReportMarkdown, LlmUsageTableShowsTransportAndParseFailures) {
  auto r = probity::test::make_sample_report();
  EXPECT_EQ(to_markdown(r).find("## LLM usage"), std::string::npos);  // no LLM, no table
  probity::llm::Accounting accounting;
  probity::llm::EndpointUsage u;
  u.answers = 40;
  u.requests = 45;
  u.cache_hits = 3;
  u.retries = 5;
  u.failures["http_429"] = 2;
  u.questions = 40;
  u.reasks = 4;
  u.unparsed = 1;
  u.tokens_in = 1200;
  u.tokens_out = 80;
  accounting.add("judge", "qwen", u);
  r.llm_usage = accounting.to_json();
  const std::string md = to_markdown(r);
  EXPECT_NE(md.find("## LLM usage"), std::string::npos);
  EXPECT_NE(md.find("| judge | qwen | 40 | 45 | 3 | 5 | 2 | 1 | 1200 | 80 | 0.0000 |"),
            std::string::npos)
      << md;
  EXPECT_NE(md.find("Failures: judge http_429: 2."), std::string::npos);
  EXPECT_NE(probity::report::to_text(r, true).find("LLM usage"), std::string::npos);
  EXPECT_NE(probity::report::to_html(r).find("<h3>LLM usage</h3>"), std::string::npos);
}

TEST(ReportMarkdown, ExamplesAreTruncatedAndFenced) {
  auto r = probity::test::make_sample_report();
  std::string md = to_markdown(r);
  EXPECT_NE(md.find("## Perturbation examples"), std::string::npos);
  EXPECT_EQ(md.find(r.examples[0].original), std::string::npos);
  EXPECT_NE(md.find("\u2026\n```"), std::string::npos);
  EXPECT_NE(md.find("```text\nI love `jazz` | it's great.\n```"), std::string::npos);
}

TEST(ReportMarkdown, TablesHaveConsistentColumnCounts) {
  std::string md = to_markdown(probity::test::make_sample_report());
  std::istringstream in(md);
  std::size_t expected = 0, tables = 0;
  for (std::string line; std::getline(in, line);) {
    if (line.rfind("|", 0) != 0) {
      expected = 0;
      continue;
    }
    // Count unescaped pipes.
    std::size_t pipes = 0;
    for (std::size_t i = 0; i < line.size(); ++i)
      if (line[i] == '|' && (i == 0 || line[i - 1] != '\\')) ++pipes;
    if (expected == 0) {
      expected = pipes;
      ++tables;
    }
    EXPECT_EQ(pipes, expected) << line;
  }
  EXPECT_GE(tables, 10u);
}

TEST(ReportWrite, WritesTheThreeFiles) {
  auto r = probity::test::make_sample_report();
  std::string dir = probity::test::temp_dir("report-write") + "/nested/out";
  probity::report::write_all(r, dir);
  auto read = [&](const std::string& name) {
    std::ifstream in(dir + "/" + name, std::ios::binary);
    std::ostringstream s;
    s << in.rdbuf();
    return s.str();
  };
  EXPECT_EQ(read("report.json"), probity::report::to_json(r));
  EXPECT_EQ(read("report.md"), to_markdown(r));
  EXPECT_EQ(read("report.html"), probity::report::to_html(r));
}

}  // namespace
