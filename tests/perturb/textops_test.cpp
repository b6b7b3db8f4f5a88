// analyze(): what it remembers of a text rebuilds exactly what parsing it again gives.
#include "perturb/textops.hpp"

#include <gtest/gtest.h>

#include <string>
#include <thread>
#include <vector>

#include "perturb/perturb_fixtures.hpp"

namespace {

namespace pt = probity::perturb;

void expect_same_doc(const pt::Doc& got, const pt::Doc& want, const std::string& text) {
  ASSERT_EQ(got.lines.size(), want.lines.size()) << text;
  for (std::size_t i = 0; i < want.lines.size(); ++i) {
    const pt::Line& g = got.lines[i];
    const pt::Line& w = want.lines[i];
    EXPECT_EQ(g.kind, w.kind) << text;
    EXPECT_EQ(g.prefix, w.prefix) << text;
    EXPECT_EQ(g.content, w.content) << text;
    EXPECT_EQ(g.suffix, w.suffix) << text;
    EXPECT_EQ(g.sentences, w.sentences) << text;
    EXPECT_EQ(g.gaps, w.gaps) << text;
    EXPECT_EQ(g.section, w.section) << text;
  }
  EXPECT_EQ(pt::render_doc(got), pt::render_doc(want)) << text;
}

const std::vector<std::string>& texts() {
  static const std::vector<std::string> all = {
      probity::test::markdown_review(),
      "the team 's coach left . he was fired .  \n\n  - a list item . another one .\r\n",
      "Donald Sterling's remarks cost him. But now V. Stiviano has lost big!  ",
      "Bad \xC3\x28 byte. Next one.",  // ill-formed: the splitter substitutes, nothing is kept
      "",
      "   ",
      "\xE4\xBB\x8A\xE5\xA4\xA9\xE3\x80\x82\xE6\x98\x8E\xE5\xA4\xA9\xE3\x80\x82 Caf\xC3\xA9 "
      "\xF0\x9F\x98\x80 "
      "opened. The End.",
  };
  return all;
}

TEST(PerturbAnalyze, RememberedAnalysisEqualsAFreshOne) {
  for (const auto& text : texts()) {
    for (int round = 0; round < 2; ++round) {  // the first analyses, the second remembers
      const pt::Analysis a = pt::analyze(text);
      const pt::Doc doc = pt::parse_doc(text);
      expect_same_doc(a.doc, doc, text);
      const pt::Style style = pt::detect_style(text);
      EXPECT_EQ(a.style.casing, style.casing) << text;
      EXPECT_EQ(a.style.tokenized, style.tokenized) << text;
      EXPECT_EQ(pt::analyze_style(text).tokenized, style.tokenized) << text;
      ASSERT_NE(a.names, nullptr);
      EXPECT_EQ(*a.names, pt::midsentence_capitals(doc)) << text;
    }
  }
}

TEST(PerturbAnalyze, SameAnswersFromManyThreads) {
  std::vector<std::string> want;
  for (const auto& text : texts()) want.push_back(pt::render_doc(pt::parse_doc(text)));
  std::vector<int> mismatches(4, 0);
  std::vector<std::thread> threads;
  for (int t = 0; t < 4; ++t)
    threads.emplace_back([&, t] {
      for (int round = 0; round < 100; ++round)
        for (std::size_t i = 0; i < texts().size(); ++i) {
          // A fresh variant per round and thread as well, so that threads also insert.
          const std::string variant = texts()[i] + " Round " + std::to_string(round % 7) + ".";
          mismatches[t] += pt::render_doc(pt::analyze(texts()[i]).doc) != want[i];
          mismatches[t] +=
              pt::render_doc(pt::analyze(variant).doc) != pt::render_doc(pt::parse_doc(variant));
        }
    });
  for (auto& th : threads) th.join();
  for (int m : mismatches) EXPECT_EQ(m, 0);
}

}  // namespace
