#include "predict/support_judge.hpp"

#include <gtest/gtest.h>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <span>
#include <stdexcept>
#include <string>
#include <thread>
#include <vector>

#include "probity/dataset.hpp"
#include "probity/mi.hpp"
#include "test_paths.hpp"
#include "text/wordnet.hpp"

namespace {

using probity::predict::SupportJudge;
using probity::predict::SupportJudgeOptions;
namespace wn = probity::text::wordnet;

const probity::Dataset& summeval() {
  static const probity::Dataset d =
      probity::load_dataset(probity::test::data_path("summeval/summeval_sample20.jsonl"));
  return d;
}

// Fitted judges are shared across tests: calibration scores a few thousand pairs.
const SupportJudge& fitted(bool statements, std::uint64_t seed = 0) {
  static SupportJudge statement_judge = [] {
    SupportJudge j;
    j.fit(summeval().tasks, true);
    return j;
  }();
  static SupportJudge report_judge = [] {
    SupportJudge j;
    j.fit(summeval().tasks, false);
    return j;
  }();
  if (seed != 0) throw std::logic_error("only seed 0 is cached");
  return statements ? statement_judge : report_judge;
}

TEST(JudgeWordNet, SynonymsAntonymsAndVerbForms) {
  ASSERT_TRUE(wn::available());
  EXPECT_EQ(wn::version(), "3.0");
  const auto& syn = wn::synonyms("buy");
  EXPECT_NE(std::find(syn.begin(), syn.end(), "purchase"), syn.end());
  const auto& ant = wn::antonyms("won");  // through the irregular form to "win"
  EXPECT_NE(std::find(ant.begin(), ant.end(), "lose"), ant.end());
  const auto& good = wn::antonyms("good");
  EXPECT_NE(std::find(good.begin(), good.end(), "bad"), good.end());
  EXPECT_TRUE(wn::is_inflected_verb("won"));
  EXPECT_TRUE(wn::is_inflected_verb("resigned"));
  EXPECT_FALSE(wn::is_inflected_verb("win"));
  EXPECT_FALSE(wn::is_inflected_verb("speed"));
  EXPECT_TRUE(wn::synsets("zzzzqx").empty());
}

TEST(JudgeSupport, ExactAndSynonymParaphraseScoresHigh) {
  SupportJudge judge;  // unfitted: uniform word weights
  const std::string x = "The company purchased a large car near the harbour last year.";
  EXPECT_NEAR(judge.support(x, "The company purchased a large car."), 1.0, 1e-12);
  // "bought" → buy ~ purchase, big ~ large, automobile ~ car: shared WordNet synsets.
  const double paraphrase = judge.support(x, "The company bought a big automobile.");
  EXPECT_NEAR(paraphrase, (1.0 + 3 * 0.75) / 4, 1e-12);
  EXPECT_LT(paraphrase, 1.0);
  EXPECT_LT(judge.support(x, "Heavy rain flooded the football stadium on Sunday."), 0.15);
}

TEST(JudgeSupport, StemsCountAlmostLikeExactWords) {
  SupportJudge judge;
  const double s = judge.support("The voters rejected the proposals.", "voter rejects proposal");
  EXPECT_NEAR(s, 0.9, 1e-9);
}

TEST(JudgeSupport, NegationAndAntonymsLowerSupport) {
  SupportJudge judge;
  const std::string x = "The home team won the final match against the visitors.";
  const double affirmative = judge.support(x, "The home team won the final match.");
  const double negated = judge.support(x, "The home team did not win the final match.");
  const double antonym = judge.support(x, "The home team lost the final match.");
  EXPECT_GT(affirmative, 0.95);
  EXPECT_LT(negated, 0.5 * affirmative);
  EXPECT_LT(antonym, 0.5 * affirmative);
  // Negation and antonyms are scoped: another clause of the sentence does not flip polarity.
  EXPECT_GT(judge.support("The team did not travel by bus, but it won the final.",
                          "The team won the final."),
            0.95);
  EXPECT_GT(judge.support("The home team won the final, and the visiting fans lost their voices.",
                          "The home team won the final."),
            0.95);
  // Negation on both sides agrees; "didn't" and tokenized "did n't" are negations too.
  const std::string y = "the home team did n't win the final match .";
  EXPECT_GT(judge.support(y, "The home team didn't win the final match."), 0.9);
  EXPECT_LT(judge.support(y, "The home team won the final match."), 0.5);
}

TEST(JudgeSupport, NumbersMustMatch) {
  SupportJudge judge;
  const std::string x = "The whale swam nearly 14,000 miles from Russia to Mexico.";
  const double right = judge.support(x, "The whale swam 14000 miles.");
  const double wrong = judge.support(x, "The whale swam 10,000 miles.");
  // Without a figure in the candidate the number is merely unsupported.
  const double absent = judge.support("The whale swam many miles from Russia to Mexico.",
                                      "The whale swam 10,000 miles.");
  EXPECT_NEAR(right, 1.0, 1e-12);
  EXPECT_NEAR(absent, 0.75, 1e-12);
  EXPECT_NEAR(wrong, 0.5 * 0.75, 1e-12);
  EXPECT_GT(judge.support("Two Bentleys were sold.", "2 Bentleys were sold."), 0.99);
}

TEST(JudgeSupport, BestSentenceAndWholeText) {
  SupportJudge judge;
  const std::string x =
      "The mayor opened a new library. Critics said the budget was too small. The library has "
      "ten thousand books.";
  // Supported by one sentence.
  EXPECT_GT(judge.support(x, "Critics called the budget too small."), 0.6);
  // Spread over two sentences: the whole text still gives partial support (0.8 × whole).
  const double spread = judge.support(x, "The mayor criticised the small budget.");
  EXPECT_GT(spread, 0.5);
  EXPECT_EQ(judge.support("", "The mayor opened a library."), 0.0);
  EXPECT_EQ(judge.support(x, "It is."), 0.0);  // no content words
}

TEST(JudgeSupport, SameItemIsSymmetric) {
  SupportJudge judge;
  const std::string a = "A gray whale swam 14,000 miles. It set a migration record.";
  const std::string b = "The whale set a record for the longest mammal migration.";
  EXPECT_DOUBLE_EQ(judge.same_item(a, b), judge.same_item(b, a));
  EXPECT_GT(judge.same_item(a, b), judge.same_item(a, "The court fined the owner $2.5 million."));
}

TEST(JudgeCalibration, UnfittedJudgeRefusesJudgments) {
  SupportJudge judge;
  EXPECT_THROW(judge.critic("a b c", "a b c"), std::logic_error);
  EXPECT_THROW(judge.log_ratio("a b c", "a b c"), std::logic_error);
  EXPECT_NE(judge.signature().find("calib:none"), std::string::npos);
}

TEST(JudgeCalibration, NeedsTwoTasks) {
  SupportJudge judge;
  std::vector<probity::Task> one(summeval().tasks.begin(), summeval().tasks.begin() + 1);
  EXPECT_THROW(judge.fit(one, true), std::invalid_argument);
}

void expect_separates(const SupportJudge& judge) {
  const auto& c = judge.calibration();
  ASSERT_TRUE(c.fitted);
  std::printf(
      "[ judge    ] %s: pairs %zu/%zu threshold %.4f balanced accuracy %.3f mean score %.3f/%.3f "
      "mean level %.2f/%.2f bins %zu\n",
      c.statement_targets ? "statement" : "report", c.matched_pairs, c.mismatched_pairs,
      c.threshold, c.balanced_accuracy, c.matched_mean_score, c.mismatched_mean_score,
      c.matched_mean_level, c.mismatched_mean_level, c.bin_lower.size());
  EXPECT_GT(c.matched_pairs, 100u);
  EXPECT_EQ(c.matched_pairs, c.mismatched_pairs);
  EXPECT_GT(c.balanced_accuracy, 0.8);
  EXPECT_GT(c.matched_mean_score, c.mismatched_mean_score);
  EXPECT_GT(c.matched_mean_level, c.mismatched_mean_level + 1.0);
  ASSERT_EQ(c.bin_lower.size(), c.bin_level.size());
  ASSERT_EQ(c.bin_lower.size(), c.bin_log2_ratio.size());
  EXPECT_TRUE(std::is_sorted(c.bin_lower.begin(), c.bin_lower.end()));
  EXPECT_TRUE(std::is_sorted(c.bin_log2_ratio.begin(), c.bin_log2_ratio.end()));  // monotone
  for (int level : c.bin_level) {
    EXPECT_GE(level, -3);
    EXPECT_LE(level, 3);
  }
}

TEST(JudgeCalibration, StatementLevelSeparatesMatchedFromMismatched) {
  const auto& judge = fitted(true);
  expect_separates(judge);
  // The critic agrees with the calibration on fresh judgments: matched statements of another
  // reference of the same task, mismatched ones from the next task.
  const auto& tasks = summeval().tasks;
  int matched_yes = 0, mismatched_yes = 0, matched_n = 0, mismatched_n = 0;
  double matched_level = 0, mismatched_level = 0;
  for (std::size_t t = 0; t < tasks.size(); ++t) {
    const auto& other = tasks[(t + 1) % tasks.size()];
    for (const auto& cand : tasks[t].candidates) {
      for (const auto& psi : probity::mi::decompose_statements(tasks[t].references[0].text)) {
        matched_yes += judge.critic(cand.text, psi) > 0;
        matched_level += judge.log_ratio(cand.text, psi) / std::log(2.0);
        ++matched_n;
      }
      for (const auto& psi : probity::mi::decompose_statements(other.references[0].text)) {
        mismatched_yes += judge.critic(cand.text, psi) > 0;
        mismatched_level += judge.log_ratio(cand.text, psi) / std::log(2.0);
        ++mismatched_n;
      }
    }
  }
  const double tpr = double(matched_yes) / matched_n, fpr = double(mismatched_yes) / mismatched_n;
  EXPECT_GT(0.5 * (tpr + 1 - fpr), 0.8);
  EXPECT_GT(matched_level / matched_n, mismatched_level / mismatched_n + 1.0);
}

TEST(JudgeCalibration, ReportLevelSeparatesMatchedFromMismatched) {
  const auto& judge = fitted(false);
  expect_separates(judge);
  const auto& tasks = summeval().tasks;
  EXPECT_EQ(judge.critic(tasks[0].candidates[0].text, tasks[0].references[2].text), 1);
  EXPECT_EQ(judge.critic(tasks[0].candidates[0].text, tasks[5].references[2].text), -1);
  EXPECT_NE(judge.signature().find("target:report"), std::string::npos);
}

TEST(JudgeCalibration, DeterministicForASeedAndSeedMatters) {
  const auto& a = fitted(true);
  SupportJudge b;
  b.fit(summeval().tasks, true);
  EXPECT_EQ(a.signature(), b.signature());
  EXPECT_EQ(a.calibration().threshold, b.calibration().threshold);
  EXPECT_EQ(a.calibration().bin_level, b.calibration().bin_level);
  EXPECT_EQ(a.calibration().matched_mean_level, b.calibration().matched_mean_level);

  SupportJudgeOptions options;
  options.seed = 7;
  SupportJudge c(options);
  c.fit(summeval().tasks, true);
  EXPECT_NE(c.signature().find("calib:seed7"), std::string::npos);
  EXPECT_NE(a.calibration().mismatched_mean_score, c.calibration().mismatched_mean_score);
  EXPECT_GT(c.calibration().balanced_accuracy, 0.8);
}

// `probity score` fits on a file it reads in chunks: pass by pass, chunk by chunk, the judge ends
// exactly as fitted on the whole dataset, with the full calibration sample and with one drawn
// from more pairs than it keeps.
TEST(JudgeCalibration, ChunkedFitEqualsTheWholeFit) {
  const auto& tasks = summeval().tasks;
  for (const bool statements : {true, false}) {
    for (const std::size_t max_pairs : {std::size_t{4000}, std::size_t{150}}) {
      SCOPED_TRACE(std::to_string(statements) + " " + std::to_string(max_pairs));
      SupportJudgeOptions options;
      options.max_pairs = max_pairs;
      SupportJudge whole(options), chunked(options);
      whole.fit(tasks, statements);
      chunked.begin_fit(statements);
      const std::size_t passes = chunked.fit_passes().value();
      for (std::size_t pass = 0; pass < passes; ++pass) {
        for (std::size_t b = 0; b < tasks.size(); b += 3)
          chunked.fit_chunk(pass, std::span<const probity::Task>(tasks).subspan(
                                      b, std::min<std::size_t>(3, tasks.size() - b)));
        chunked.end_fit_pass(pass);
      }
      const auto& a = whole.calibration();
      const auto& c = chunked.calibration();
      EXPECT_EQ(chunked.signature(), whole.signature());
      EXPECT_EQ(c.documents, a.documents);
      EXPECT_EQ(c.matched_pairs, a.matched_pairs);
      EXPECT_EQ(c.threshold, a.threshold);
      EXPECT_EQ(c.bin_lower, a.bin_lower);
      EXPECT_EQ(c.bin_level, a.bin_level);
      EXPECT_EQ(c.matched_mean_score, a.matched_mean_score);
      EXPECT_EQ(c.mismatched_mean_score, a.mismatched_mean_score);
      if (max_pairs == 150) {
        EXPECT_EQ(a.matched_pairs, 150u);
      }
    }
  }
  // The calibrations of before fitting in passes (the hashes probity score wrote for
  // stmt-tv and tvd-mi on this file).
  EXPECT_NE(fitted(true).signature().find("|06516756"), std::string::npos);
  EXPECT_NE(fitted(false).signature().find("|61a35f21"), std::string::npos);
}

TEST(JudgeCalibration, SignatureNamesEveryChoice) {
  const auto sig = fitted(true).signature();
  EXPECT_EQ(
      sig.rfind("oracle:support-judge|target:statement|idf:dataset|wordnet:3.0|calib:seed0|", 0),
      0u)
      << sig;
}

TEST(JudgeCalibration, ThreadSafeAfterFit) {
  const auto& judge = fitted(true);
  const auto& tasks = summeval().tasks;
  std::vector<std::pair<std::string, std::string>> pairs;
  for (const auto& task : tasks)
    for (const auto& cand : task.candidates)
      for (const auto& psi : probity::mi::decompose_statements(task.references[2].text))
        pairs.emplace_back(cand.text, psi);
  std::vector<double> serial(pairs.size()), parallel(pairs.size());
  for (std::size_t i = 0; i < pairs.size(); ++i)
    serial[i] = judge.log_ratio(pairs[i].first, pairs[i].second);
  std::vector<std::thread> threads;
  for (unsigned w = 0; w < 4; ++w)
    threads.emplace_back([&, w] {
      for (std::size_t i = w; i < pairs.size(); i += 4)
        parallel[i] = judge.log_ratio(pairs[i].first, pairs[i].second);
    });
  for (auto& t : threads) t.join();
  EXPECT_EQ(serial, parallel);
}

TEST(JudgeThroughput, StatementJudgmentsAreFast) {
  const auto& judge = fitted(true);
  const auto& tasks = summeval().tasks;
  std::vector<std::string> statements;
  for (const auto& task : tasks)
    for (const auto& ref : task.references)
      for (auto& psi : probity::mi::decompose_statements(ref.text)) statements.push_back(psi);
  // Warm the per-thread analysis cache, then time judgments only.
  std::size_t judgments = 0;
  double sink = 0;
  const auto start = std::chrono::steady_clock::now();
  for (const auto& task : tasks)
    for (const auto& cand : task.candidates)
      for (std::size_t k = 0; k < 60; ++k) {
        sink += judge.log_ratio(cand.text, statements[(k * 7 + judgments) % statements.size()]);
        ++judgments;
      }
  const double seconds =
      std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  const double n = static_cast<double>(judgments);
  RecordProperty("judgments_per_second", static_cast<int>(n / seconds));
  std::printf("[ judge    ] %zu judgments in %.3f s: %.0f / s\n", judgments, seconds, n / seconds);
  EXPECT_TRUE(std::isfinite(sink));
  EXPECT_LT(seconds / n, 200e-6);  // generous for shared CI cores
}

}  // namespace
