#include <gtest/gtest.h>

#include "perturb/lexicon.hpp"
#include "perturb/perturb_fixtures.hpp"
#include "perturb/textops.hpp"
#include "test_paths.hpp"

namespace {

using probity::Dataset;
using probity::PerturbResult;
using probity::StrategyKind;
using probity::perturb::has_upper;
using probity::test::manipulate;
using probity::test::markdown_review;
using probity::test::word_set;
using Status = PerturbResult::Status;
namespace lex = probity::perturb::lex;

const Dataset& summeval_sample() {
  static const Dataset ds =
      probity::load_dataset(probity::test::data_path("summeval/summeval_sample20.jsonl"));
  return ds;
}

std::set<std::string> words_of(const std::vector<std::string_view>& phrases) {
  std::set<std::string> out;
  for (auto p : phrases)
    for (const auto& w : word_set(std::string(p))) out.insert(w);
  return out;
}

// Words the manipulation may add for a tone: its lexicon plus function words.
std::set<std::string> tone_vocabulary(lex::Tone tone) {
  std::set<std::string> v;
  for (const auto* list :
       {&lex::openers(tone), &lex::adjectives(tone), &lex::adverbs(tone), &lex::framings(tone)})
    for (const auto& w : words_of(*list)) v.insert(w);
  return v;
}

// Added words (not in the original) that are outside `allowed` and not function words.
std::set<std::string> foreign_words(const std::string& original, const std::string& output,
                                    const std::set<std::string>& allowed) {
  const auto known = word_set(original);
  std::set<std::string> extra;
  for (const auto& w : word_set(output))
    if (!known.count(w) && !allowed.count(w) && !lex::is_function_word(w)) extra.insert(w);
  return extra;
}

// ---- M: meaningless elongation ---------------------------------------------------------------

TEST(PerturbElongation, SameFillerForEveryCandidate) {
  const Dataset& ds = summeval_sample();
  std::map<bool, std::set<std::string>> suffixes;  // by "candidate is lower-case"
  for (std::size_t t = 0; t < ds.tasks.size(); ++t) {
    for (std::size_t c = 0; c < ds.tasks[t].candidates.size(); ++c) {
      const std::string& text = ds.tasks[t].candidates[c].text;
      const auto r = probity::test::run(StrategyKind::kManipulation, "M", ds, t, c, t * 31 + c);
      ASSERT_EQ(r.status, Status::kApplied);
      ASSERT_EQ(r.text.rfind(text, 0), 0u) << "the candidate must be kept as it is";
      const auto style = probity::perturb::detect_style(text);
      const std::string filler = probity::perturb::render(lex::filler_paragraph(), style);
      ASSERT_TRUE(r.text.ends_with(filler)) << r.text;
      if (style.casing == probity::perturb::CaseStyle::kLower && style.tokenized) {
        suffixes[true].insert(r.text.substr(r.text.size() - filler.size()));
      }
    }
  }
  // Identical across all lower-cased tokenized candidates (the common SummEval style).
  ASSERT_EQ(suffixes[true].size(), 1u);
  EXPECT_EQ(*suffixes[true].begin(),
            "overall , this summary brings together the main points discussed above . taken as "
            "a whole , these points give a general picture of the topic . each of them is part "
            "of the broader context described here , and together they round out the overall "
            "account .");
}

TEST(PerturbElongation, OwnParagraphForMultiLineText) {
  const auto r = manipulate("M", markdown_review());
  ASSERT_EQ(r.status, Status::kApplied);
  EXPECT_EQ(r.text, markdown_review() + "\n\n" + std::string(lex::filler_paragraph()));
  // A candidate without final punctuation gets a period before the filler.
  EXPECT_EQ(manipulate("M", "i like the eagles").text.rfind("i like the eagles. overall,", 0), 0u);
  EXPECT_EQ(manipulate("M", "i like them , a lot").text.rfind("i like them , a lot . overall ,", 0),
            0u);
}

// ---- P / N: sentiment shifts -----------------------------------------------------------------

TEST(PerturbSentimentShift, AddsOnlySentimentWords) {
  const std::string text =
      "The team won the match on Sunday. The coach said the players trained hard. The club "
      "plans a parade next week.";
  for (auto [code, tone] : {std::pair{"P", lex::Tone::kPositive}, {"N", lex::Tone::kNegative}}) {
    for (std::uint64_t seed = 1; seed <= 20; ++seed) {
      const auto r = manipulate(code, text, seed);
      ASSERT_EQ(r.status, Status::kApplied);
      EXPECT_TRUE(foreign_words(text, r.text, tone_vocabulary(tone)).empty()) << r.text;
      // One framing sentence closes the text.
      bool framed = false;
      for (auto f : lex::framings(tone)) framed |= r.text.ends_with(std::string(f));
      EXPECT_TRUE(framed) << r.text;
      EXPECT_GT(probity::perturb::count_words(r.text), probity::perturb::count_words(text) + 5);
    }
  }
}

TEST(PerturbSentimentShift, KeepsLowerCaseTokenizedStyle) {
  const std::string text = "the team 's coach left . he was fired after the team lost .";
  for (const char* code : {"P", "N", "H", "S", "M", "R"}) {
    for (std::uint64_t seed = 1; seed <= 10; ++seed) {
      const auto r = manipulate(code, text, seed);
      ASSERT_NE(r.status, Status::kFailed) << code;
      EXPECT_FALSE(has_upper(r.text)) << code << ": " << r.text;
      // Punctuation stays a separate token ("word ," never "word,").
      for (std::size_t i = 1; i < r.text.size(); ++i) {
        if (r.text[i] == ',' || r.text[i] == '.') {
          EXPECT_EQ(r.text[i - 1], ' ') << code << ": " << r.text;
        }
      }
    }
  }
}

// ---- H: hedged shift -------------------------------------------------------------------------

TEST(PerturbHedgedShift, SoftensClaims) {
  const std::string text =
      "The method is clearly better than the baseline. The results show that it works. The "
      "authors will release the code.";
  std::set<std::string> allowed = tone_vocabulary(lex::Tone::kHedged);
  for (auto w : {"may", "might", "seems", "seem", "appears", "appeared", "show", "possibly",
                 "often", "rarely", "somewhat", "fairly", "largely", "suggests", "suggested"})
    allowed.insert(w);
  std::size_t hedges = 0;
  for (std::uint64_t seed = 1; seed <= 20; ++seed) {
    const auto r = manipulate("H", text, seed);
    ASSERT_EQ(r.status, Status::kApplied);
    EXPECT_TRUE(foreign_words(text, r.text, allowed).empty()) << r.text;
    for (auto h : {"may ", "might ", "seems", "appears", "arguably", "apparently", "perhaps",
                   "possibly", "probably", "to some extent", "in some respects", "It is possible"})
      hedges += r.text.find(h) != std::string::npos;
  }
  EXPECT_GE(hedges, 20u);
  EXPECT_EQ(manipulate("H", "The results are strong.", 4).text.find("strong"),
            manipulate("H", "The results are strong.", 4).text.size() - 7);
}

// ---- S: strong shift -------------------------------------------------------------------------

TEST(PerturbStrongShift, IntensifiesClaims) {
  const std::string text =
      "The results are good. It was a dramatic match. The coach was happy with the big win.";
  std::set<std::string> strong = tone_vocabulary(lex::Tone::kStrong);
  for (auto w : {"excellent", "outstanding", "spectacular", "thrilled", "enormous", "best", "most",
                 "biggest", "absolutely", "certain", "clear"})
    strong.insert(w);
  for (std::uint64_t seed = 1; seed <= 20; ++seed) {
    const auto r = manipulate("S", text, seed);
    ASSERT_EQ(r.status, Status::kApplied);
    EXPECT_TRUE(foreign_words(text, r.text, strong).empty()) << r.text;
  }
  // Every scalar word is upgraded when that edit is drawn.
  bool upgraded = false;
  for (std::uint64_t seed = 1; seed <= 30 && !upgraded; ++seed)
    upgraded = manipulate("S", "The results are good.", seed).text == "The results are excellent.";
  EXPECT_TRUE(upgraded);
}

// ---- R: rephrase -----------------------------------------------------------------------------

TEST(PerturbRephrase, SynonymsAndClauseOrder) {
  const std::string text = "The children bought a car because the old one was broken.";
  std::set<std::string> outputs;
  for (std::uint64_t seed = 1; seed <= 30; ++seed) {
    const auto r = manipulate("R", text, seed);
    ASSERT_EQ(r.status, Status::kApplied);
    const auto n = probity::perturb::count_words(r.text);
    EXPECT_GE(n + 2, probity::perturb::count_words(text));
    EXPECT_LE(n, probity::perturb::count_words(text) + 2);
    outputs.insert(r.text);
  }
  EXPECT_TRUE(outputs.count("Because the old one was broken, the children bought a car.") ||
              outputs.count("Because the old one was broken, the kids bought a car.") ||
              outputs.count("Because the old one was broken, the children purchased a car.") ||
              outputs.count("Because the old one was broken, the kids purchased a car."))
      << *outputs.begin();
  EXPECT_TRUE(outputs.count("The kids bought a car because the old one was broken.") ||
              outputs.count("The children purchased a car because the old one was broken."));
}

TEST(PerturbRephrase, KeepsNamesAndStructure) {
  const auto r = manipulate("R", markdown_review(), 2);
  ASSERT_EQ(r.status, Status::kApplied);
  EXPECT_EQ(probity::test::line_count(r.text), probity::test::line_count(markdown_review()));
  EXPECT_EQ(r.text.rfind("## Summary\n", 0), 0u);
  EXPECT_NE(r.text.find("## Strengths\n- "), std::string::npos);
}

}  // namespace
