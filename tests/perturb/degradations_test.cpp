#include <gtest/gtest.h>

#include "perturb/lexicon.hpp"
#include "perturb/perturb_fixtures.hpp"
#include "perturb/textops.hpp"
#include "test_paths.hpp"

namespace {

using probity::Dataset;
using probity::PerturbResult;
using probity::StrategyKind;
using probity::test::degrade;
using probity::test::line_count;
using probity::test::markdown_review;
using probity::test::word_set;
using Status = PerturbResult::Status;

const Dataset& summeval_sample() {
  static const Dataset ds =
      probity::load_dataset(probity::test::data_path("summeval/summeval_sample20.jsonl"));
  return ds;
}

// ---- S: sentence deletion --------------------------------------------------------------------

TEST(PerturbSentenceDeletion, KeepsHeadersListMarkersAndLines) {
  const auto r = degrade("S", markdown_review());
  ASSERT_EQ(r.status, Status::kApplied) << r.note;
  // Per section, sentences 1, 3, ... go; the last paragraph belongs to the Weaknesses section
  // (no header before it) and is its fourth sentence, so its line stays but is empty.
  EXPECT_EQ(r.text,
            "## Summary\n"
            "The paper proposes a new method for text evaluation. The results are strong.\n"
            "\n"
            "## Strengths\n"
            "- The idea is simple.\n"
            "- Clear writing.\n"
            "- Thorough ablations.\n"
            "\n"
            "## Weaknesses\n"
            "1. Missing related work.\n"
            "2. I do not think the baselines are strong enough.\n"
            "\n");
  EXPECT_EQ(line_count(r.text), line_count(markdown_review()));
}

TEST(PerturbSentenceDeletion, EmptiedListItemKeepsItsMarker) {
  const auto r = degrade("S", "## Pros\n- Fast training.\n- Simple code.\n- Good results.\n");
  ASSERT_EQ(r.status, Status::kApplied);
  EXPECT_EQ(r.text, "## Pros\n- Fast training.\n-\n- Good results.\n");
}

TEST(PerturbSentenceDeletion, TokenizedLowercaseText) {
  const auto r = degrade("S",
                         "the team 's coach left . he was fired . the club won the cup . "
                         "fans cheered .");
  ASSERT_EQ(r.status, Status::kApplied);
  EXPECT_EQ(r.text, "the team 's coach left . the club won the cup .");
}

TEST(PerturbSentenceDeletion, RemovesExactlyEveryOtherSentenceOnSummEval) {
  const Dataset& ds = summeval_sample();
  std::size_t checked = 0;
  for (std::size_t t = 0; t < ds.tasks.size(); ++t) {
    for (std::size_t c = 0; c < ds.tasks[t].candidates.size(); ++c) {
      const std::string& text = ds.tasks[t].candidates[c].text;
      const auto r = probity::test::run(StrategyKind::kDegradation, "S", ds, t, c);
      const auto before = probity::text::split_sentences(text);
      if (before.size() < 2) {
        EXPECT_EQ(r.status, Status::kUnchanged);
        continue;
      }
      ASSERT_EQ(r.status, Status::kApplied) << text;
      std::vector<std::string> expected;
      for (std::size_t i = 0; i < before.size(); i += 2) expected.push_back(before[i]);
      EXPECT_EQ(probity::text::split_sentences(r.text), expected) << text;
      ++checked;
    }
  }
  EXPECT_GT(checked, 250u);
}

TEST(PerturbSentenceDeletion, SingleSentenceIsUnchanged) {
  const auto r = degrade("S", "Only one sentence here.");
  EXPECT_EQ(r.status, Status::kUnchanged);
  EXPECT_EQ(r.text, "Only one sentence here.");
  EXPECT_FALSE(r.note.empty());
}

// ---- D: deletion and completion --------------------------------------------------------------

// Words of the output that are neither in the original nor function words.
std::set<std::string> new_words(const std::string& original, const std::string& output) {
  const auto known = word_set(original);
  std::set<std::string> extra;
  for (const auto& w : word_set(output))
    if (!known.count(w) && !probity::perturb::lex::is_function_word(w)) extra.insert(w);
  return extra;
}

TEST(PerturbDeletionCompletion, FillsGapsFromKeptTextOnly) {
  const auto r = degrade("D", markdown_review(), 3);
  ASSERT_EQ(r.status, Status::kApplied) << r.note;
  EXPECT_TRUE(new_words(markdown_review(), r.text).empty());
  // Same layout, same sentences at the kept positions.
  EXPECT_EQ(line_count(r.text), line_count(markdown_review()));
  const auto s = degrade("S", markdown_review());
  auto before = probity::perturb::parse_doc(s.text);
  auto after = probity::perturb::parse_doc(r.text);
  ASSERT_EQ(before.lines.size(), after.lines.size());
  for (std::size_t i = 0; i < before.lines.size(); ++i) {
    EXPECT_EQ(before.lines[i].prefix, after.lines[i].prefix);
    if (before.lines[i].kind == probity::perturb::Line::Kind::kHeader) {
      EXPECT_EQ(before.lines[i].content, after.lines[i].content);
    }
  }
  EXPECT_NE(r.text.find("The paper proposes a new method for text evaluation."), std::string::npos);
}

TEST(PerturbDeletionCompletion, NoNewWordsOnSummEval) {
  const Dataset& ds = summeval_sample();
  std::size_t applied = 0, distinct_fillers = 0;
  for (std::size_t t = 0; t < ds.tasks.size(); ++t) {
    for (std::size_t c = 0; c < ds.tasks[t].candidates.size(); ++c) {
      const std::string& text = ds.tasks[t].candidates[c].text;
      const auto r = probity::test::run(StrategyKind::kDegradation, "D", ds, t, c, 5);
      if (r.status != Status::kApplied) continue;
      ++applied;
      EXPECT_TRUE(new_words(text, r.text).empty()) << text << "\n=> " << r.text;
      const auto before = probity::text::split_sentences(text);
      const auto after = probity::text::split_sentences(r.text);
      ASSERT_GE(after.size(), 2u);
      EXPECT_EQ(after.front(), before.front());
      // The filler is a new sentence, not a copy of a kept one, in most cases.
      if (after[1] != before[0] && (before.size() < 3 || after[1] != before[2])) ++distinct_fillers;
    }
  }
  EXPECT_GT(applied, 250u);
  EXPECT_GT(distinct_fillers, applied * 8 / 10);
}

// ---- R: random replacement -------------------------------------------------------------------

Dataset two_groups() {
  Dataset ds;
  auto task = [&](const std::string& id, const std::string& group,
                  std::vector<std::pair<std::string, std::string>> cands) {
    probity::Task t;
    t.task_id = id;
    t.group = group;
    for (auto& [system, text] : cands) {
      probity::Candidate c;
      c.id = id + "-" + system;
      c.system = system;
      c.text = text;
      t.candidates.push_back(c);
    }
    ds.tasks.push_back(t);
  };
  task("A", "news", {{"s1", "A one."}, {"s2", "A two."}});
  task("B", "news", {{"s1", "B one."}, {"s2", "B two."}});
  task("C", "news", {{"s3", "C three."}});
  task("D", "chat", {{"s1", "D one."}});
  return ds;
}

TEST(PerturbRandomReplacement, OtherTaskOfTheSameGroup) {
  const Dataset ds = two_groups();
  std::set<std::string> seen;
  for (std::uint64_t seed = 1; seed <= 60; ++seed) {
    for (std::size_t c = 0; c < 2; ++c) {
      const auto r = probity::test::run(StrategyKind::kDegradation, "R", ds, 0, c, seed);
      ASSERT_EQ(r.status, Status::kApplied);
      EXPECT_NE(r.text.front(), 'A');  // never the same task
      EXPECT_NE(r.text.front(), 'D');  // never another group
      // From task B the same system's candidate is taken.
      if (r.text.front() == 'B') {
        EXPECT_EQ(r.text, c == 0 ? "B one." : "B two.");
      }
      seen.insert(r.text);
    }
  }
  EXPECT_TRUE(seen.count("B one.") && seen.count("B two.") && seen.count("C three."));
}

TEST(PerturbRandomReplacement, NotApplicableWithoutAnotherTask) {
  const Dataset ds = two_groups();
  const auto r = probity::test::run(StrategyKind::kDegradation, "R", ds, 3, 0);
  EXPECT_EQ(r.status, Status::kNotApplicable);
  EXPECT_TRUE(r.text.empty());
  EXPECT_NE(r.note.find("chat"), std::string::npos);
}

// One strategy object indexes each group's tasks per dataset: alternating between two datasets
// gives what fresh objects give, and a group whose tasks repeat an id or have no candidates
// still draws only among other ids with candidates.
TEST(PerturbRandomReplacement, IndexFollowsTheDataset) {
  const Dataset a = two_groups();
  const Dataset b = [] {
    Dataset d = two_groups();
    d.tasks[2].group = "chat";                       // C leaves "news": A's only other task is B
    d.tasks.push_back(d.tasks[0]);                   // a second task "A" in "news" ...
    d.tasks.back().candidates[0].text = "A again.";  // ... never chosen for A (same id)
    d.tasks.push_back(d.tasks[1]);
    d.tasks.back().task_id = "E";
    d.tasks.back().candidates.clear();  // no candidates: never chosen
    return d;
  }();
  const auto shared = probity::test::builtin_strategies().create(StrategyKind::kDegradation, "R");
  std::set<std::string> from_b;
  for (std::uint64_t seed = 1; seed <= 40; ++seed) {
    for (const Dataset* ds : {&a, &b, &a}) {
      for (std::size_t c = 0; c < 2; ++c) {
        const probity::PerturbContext ctx{ds, 0, c, seed};
        const auto fresh =
            probity::test::builtin_strategies().create(StrategyKind::kDegradation, "R")->apply(ctx);
        const auto got = shared->apply(ctx);
        EXPECT_EQ(got.status, fresh.status);
        EXPECT_EQ(got.text, fresh.text);
        EXPECT_EQ(got.note, fresh.note);
        if (ds == &b) from_b.insert(got.text);
      }
    }
  }
  EXPECT_EQ(from_b, (std::set<std::string>{"B one.", "B two."}));
}

// ---- P: surface report -----------------------------------------------------------------------

TEST(PerturbSurfaceReport, NotApplicableWithoutSource) {
  const auto r = degrade("P", "The whale swam far. It set a record.");
  EXPECT_EQ(r.status, Status::kNotApplicable);
  EXPECT_TRUE(r.text.empty());
  EXPECT_FALSE(r.note.empty());
}

std::set<std::string> source_words(const std::string& source) {
  auto words = word_set(source);
  for (const auto& w : word_set(probity::perturb::ptb_tokenize(source))) words.insert(w);
  return words;
}

TEST(PerturbSurfaceReport, UsesOnlySourceWordsAndMatchesLength) {
  const Dataset& ds = summeval_sample();
  std::size_t applied = 0;
  for (std::size_t t = 0; t < ds.tasks.size(); ++t) {
    const auto known = source_words(ds.tasks[t].source);
    for (std::size_t c = 0; c < ds.tasks[t].candidates.size(); ++c) {
      const std::string& text = ds.tasks[t].candidates[c].text;
      const auto r = probity::test::run(StrategyKind::kDegradation, "P", ds, t, c);
      ASSERT_NE(r.status, Status::kFailed) << r.note;
      if (r.status != Status::kApplied) continue;
      ++applied;
      for (const auto& w : word_set(r.text)) {
        EXPECT_TRUE(known.count(w)) << w << " in " << r.text;
      }
      const double n = double(probity::perturb::count_words(text));
      const double m = double(probity::perturb::count_words(r.text));
      EXPECT_LE(std::abs(m - n), 0.3 * n + 4) << text << "\n=> " << r.text;
      // Same case style: lower-cased candidates get lower-cased reports.
      if (!probity::perturb::has_upper(text)) {
        EXPECT_FALSE(probity::perturb::has_upper(r.text));
      }
    }
  }
  EXPECT_GT(applied, 250u);
}

TEST(PerturbSurfaceReport, ReviewUsesAbstractAndKeepsLayout) {
  const std::string source =
      "Title: Robust Evaluation\n\nAbstract\nWe study how automatic metrics react to degraded "
      "answers. We propose a test suite of perturbations. Experiments on four datasets show "
      "that many metrics reward longer answers. Our code is public.\n\n1 Introduction\nMetrics "
      "are widely used in secret lab experiments.";
  const auto r = degrade("P", markdown_review(), 1, source);
  ASSERT_EQ(r.status, Status::kApplied) << r.note;
  EXPECT_NE(r.note.find("abstract"), std::string::npos);
  EXPECT_EQ(line_count(r.text), line_count(markdown_review()));
  EXPECT_EQ(r.text.find("secret"), std::string::npos);  // nothing beyond the abstract
  const auto doc = probity::perturb::parse_doc(r.text);
  const auto orig = probity::perturb::parse_doc(markdown_review());
  for (std::size_t i = 0; i < doc.lines.size(); ++i) {
    EXPECT_EQ(doc.lines[i].prefix, orig.lines[i].prefix);
    if (orig.lines[i].kind == probity::perturb::Line::Kind::kHeader) {
      EXPECT_EQ(doc.lines[i].content, orig.lines[i].content);
    }
  }
  EXPECT_EQ(r.text.rfind("## Summary\nWe study how automatic metrics react", 0), 0u) << r.text;
}

TEST(PerturbSurfaceReport, DialogueUsesLastTurn) {
  const Dataset ds = probity::test::single_task(
      {"i love the eagles , they are my favorite team ."},
      "do you like football ? \n yes , i watch every sunday . \n which team do you support ?",
      "topical_chat");
  const auto r = probity::test::run(StrategyKind::kDegradation, "P", ds);
  ASSERT_EQ(r.status, Status::kApplied);
  EXPECT_EQ(r.text.rfind("which team do you support ?", 0), 0u) << r.text;
}

// ---- U: ultra-concise ------------------------------------------------------------------------

TEST(PerturbUltraConcise, AboutTenPercentOfTheWords) {
  const Dataset& ds = summeval_sample();
  std::size_t checked = 0;
  for (std::size_t t = 0; t < ds.tasks.size(); ++t) {
    for (std::size_t c = 0; c < ds.tasks[t].candidates.size(); ++c) {
      const std::string& text = ds.tasks[t].candidates[c].text;
      const auto n = probity::perturb::count_words(text);
      const auto r = probity::test::run(StrategyKind::kDegradation, "U", ds, t, c);
      ASSERT_EQ(r.status, Status::kApplied) << text;
      const auto m = probity::perturb::count_words(r.text);
      EXPECT_GE(m, 1u);
      EXPECT_LE(m, std::max<std::size_t>(5, n * 15 / 100)) << text << "\n=> " << r.text;
      if (n >= 40) {
        EXPECT_LE(double(m), 0.15 * double(n)) << r.text;
        ++checked;
      }
      for (const auto& w : word_set(r.text)) {
        EXPECT_TRUE(word_set(text).count(w)) << w;
      }
      EXPECT_TRUE(r.text.ends_with(".")) << r.text;
    }
  }
  EXPECT_GT(checked, 100u);
}

// ---- O: opinion flip -------------------------------------------------------------------------

TEST(PerturbOpinionFlip, ReversesTheVerdict) {
  const auto r = degrade("O", "The paper is excellent and I recommend acceptance.");
  ASSERT_EQ(r.status, Status::kApplied);
  EXPECT_EQ(r.text, "The paper is poor and I recommend rejection.");
}

TEST(PerturbOpinionFlip, NegationIsRemovedOrInserted) {
  EXPECT_EQ(degrade("O", "I would not recommend this paper.").text,
            "I would recommend this paper.");
  EXPECT_EQ(degrade("O", "I recommend this paper.").text, "I do not recommend this paper.");
  EXPECT_EQ(degrade("O", "The authors do not provide a convincing evaluation.").text,
            "The authors provide a convincing evaluation.");
  EXPECT_EQ(degrade("O", "The writing isn't clear.").text, "The writing is clear.");
  EXPECT_EQ(degrade("O", "The approach is groundbreaking.").text,
            "The approach is not groundbreaking.");
  EXPECT_EQ(degrade("O", "I do not think the baselines are strong.").text,
            "I think the baselines are strong.");
}

TEST(PerturbOpinionFlip, SectionsAndTokenizedText) {
  EXPECT_EQ(degrade("O", "Strengths:\n- Clear writing.\n\nWeaknesses:\n- A confusing proof.").text,
            "Weaknesses:\n- Unclear writing.\n\nStrengths:\n- A clear proof.");
  EXPECT_EQ(degrade("O", "the paper is excellent . i do n't like the baselines .").text,
            "the paper is poor . i like the baselines .");
  const auto review = degrade("O", markdown_review());
  ASSERT_EQ(review.status, Status::kApplied);
  EXPECT_NE(review.text.find("## Weaknesses\n- The idea is simple."), std::string::npos);
  EXPECT_NE(review.text.find("I recommend rejection"), std::string::npos);
}

TEST(PerturbOpinionFlip, NothingToFlipIsUnchanged) {
  const auto r = degrade("O", "The meeting took place on Tuesday in Paris.");
  EXPECT_EQ(r.status, Status::kUnchanged);
  EXPECT_EQ(r.text, "The meeting took place on Tuesday in Paris.");
  EXPECT_FALSE(r.note.empty());
}

}  // namespace
