// The universal suffix searches of `probity attack` (audit/suffix_search.cpp): a planted
// rewarded word is found on the search half and confirmed on the held-out half; a metric no
// suffix moves consistently gives held-out findings at no more than the stated rate; the random
// search climbs a smooth score; logprob-search refuses a score that is not a verdict probability;
// the same seed gives the same suffix.
#include "audit/suffix_search.hpp"

#include <gtest/gtest.h>

#include <cmath>
#include <filesystem>
#include <iostream>
#include <nlohmann/json.hpp>

#include "audit/attack_fixtures.hpp"
#include "cli_runner.hpp"
#include "llm/fakes/fake_server.hpp"
#include "perturb/edit_ops.hpp"
#include "probity/attack.hpp"
#include "test_paths.hpp"

namespace probity::test {
namespace {

AttackOptions phrase_only(std::uint64_t seed) {
  AttackOptions o;
  o.seed = seed;
  o.families = {"universal-phrase"};
  o.phrase_words = 3;
  o.phrase_candidates = 30;
  o.bootstrap = 0;
  o.threads = 2;
  return o;
}

std::size_t count(std::string_view text, std::string_view word) {
  std::size_t n = 0;
  for (auto at = text.find(word); at != std::string_view::npos; at = text.find(word, at + 1)) ++n;
  return n;
}

const UniversalSuffix& phrase(const AttackReport& r, std::size_t metric = 0) {
  return r.metrics.at(metric).suffixes.at(0);
}

TEST(SuffixSearch, APlantedRewardedWordIsFoundAndConfirmedOnHeldOutTasks) {
  // Rewards "flawless" (any number of times, saturating) and nothing else but noise: the
  // greedy phrase must contain it, and the held-out test must call the metric vulnerable.
  const auto registry = perturb::EditOpRegistry::builtin();
  const auto items = all_items(sample());
  std::size_t hits = 0;
  constexpr std::uint64_t kRuns = 20;
  for (std::uint64_t seed = 0; seed < kRuns; ++seed) {
    std::vector<MetricSelection> metrics;
    metrics.push_back(selection("planted", [](std::string_view t) {
      return 0.3 * noise(t) + (count(t, "flawless") > 0 ? 1.0 : 0.0);
    }));
    auto o = phrase_only(seed);
    o.phrase_candidates = 1000;  // the whole vocabulary: the word is always tried
    const auto r = run_attack(sample(), items, metrics, o, registry);
    const auto& u = phrase(r);
    ASSERT_TRUE(u.searched) << u.untestable;
    EXPECT_FALSE(r.metrics[0].testable);  // no edit search was asked for, and it says so
    hits +=
        u.text.find("flawless") != std::string::npos && u.held_out.testable && !u.held_out.passed;
  }
  std::cout << "planted word found and confirmed on held-out tasks in " << hits << "/" << kRuns
            << " runs\n";
  EXPECT_EQ(hits, kRuns);
}

TEST(SuffixSearch, NoConsistentEffectGivesHeldOutFindingsAtMostAtTheStatedRate) {
  // The best phrase for a noise metric looks good on the search half only: on held-out tasks
  // its one-sided test at alpha 0.05 must fire in at most 10 of 100 runs
  // (P(X > 10) < 0.012 for Binomial(100, 0.05)).
  const auto registry = perturb::EditOpRegistry::builtin();
  const auto items = all_items(sample());
  std::size_t findings = 0, searched = 0;
  for (std::uint64_t seed = 0; seed < 100; ++seed) {
    std::vector<MetricSelection> metrics;
    metrics.push_back(selection("noise", noise));
    auto o = phrase_only(seed);
    o.phrase_words = 2;
    o.phrase_candidates = 10;
    const auto r = run_attack(sample(), items, metrics, o, registry);
    const auto& u = phrase(r);
    searched += !u.text.empty();
    findings += u.held_out.testable && !u.held_out.passed;
  }
  std::cout << "noise metric: universal phrase found in " << searched
            << "/100 runs, a held-out finding in " << findings << "/100\n";
  EXPECT_GT(searched, 30u);  // the search does overfit the search half: that is the point
  EXPECT_LE(findings, 10u);
}

TEST(SuffixSearch, TheRandomSearchClimbsASmoothScoreAndKeepsOnlyImprovements) {
  const auto items = all_items(sample());
  std::vector<ItemRef> some(items.begin(), items.begin() + 20);
  std::vector<std::string> texts;
  std::vector<double> original;
  // A smooth score: the share of suffix words among a target set.
  const auto score_of = [](std::string_view t) {
    double s = 0;
    for (std::string_view w : {"score", "verdict", "rating", "top", "excellent"})
      s += count(t, w) > 0 ? 0.2 : 0.0;
    return s;
  };
  for (const auto& it : some) {
    texts.push_back(sample().tasks[it.task].candidates[it.candidate].text);
    original.push_back(score_of(texts.back()));
  }
  const attack::ScoreTexts score = [&](std::span<const ItemRef>, std::span<const std::string> t) {
    std::vector<double> out;
    for (const auto& x : t) out.push_back(score_of(x));
    return out;
  };
  const auto found = attack::random_suffix(some, texts, original, score, 8, 400, 7);
  ASSERT_FALSE(found.trajectory.empty());
  for (std::size_t k = 1; k < found.trajectory.size(); ++k)
    EXPECT_GT(found.trajectory[k], found.trajectory[k - 1]);
  EXPECT_GE(found.search_mean_delta, 0.59) << found.text;
  EXPECT_EQ(found.queries % 20, 0u);  // every text of a suffix scored in one batch
  EXPECT_LE(found.queries, 20u * (1 + 400));
  const auto again = attack::random_suffix(some, texts, original, score, 8, 400, 7);
  EXPECT_EQ(again.text, found.text);  // same seed, same suffix
  const auto other = attack::random_suffix(some, texts, original, score, 8, 400, 8);
  EXPECT_NE(other.text, found.text);
}

TEST(SuffixSearch, LogprobSearchRefusesAScoreThatIsNotAVerdictProbability) {
  const auto registry = perturb::EditOpRegistry::builtin();
  std::vector<MetricSelection> metrics;
  metrics.push_back(selection("noise", noise));
  auto o = phrase_only(1);
  o.families = {"logprob-search"};
  const auto r = run_attack(sample(), all_items(sample()), metrics, o, registry);
  const auto& u = phrase(r);
  EXPECT_FALSE(u.searched);
  EXPECT_NE(u.untestable.find("llm-judge,mode=geval"), std::string::npos) << u.untestable;
  EXPECT_FALSE(u.held_out.testable);
}

// G-Eval from top log-probabilities is the score logprob-search climbs: the search runs on it
// (the fake server's probabilities do not follow the text, so nothing is expected to be found).
TEST(SuffixSearch, LogprobSearchRunsOnAGevalJudge) {
  FakeOptions fo;
  fo.flavour = Flavour::kLlamaCpp;
  fo.reply = [](const nlohmann::json&) { return std::string("4"); };
  FakeServer server(fo);
  const auto out = std::filesystem::path(temp_dir("probity_suffix_geval"));
  std::filesystem::remove_all(out);
  const auto r = run_probity("attack --data " + data_path("summeval/summeval_sample20.jsonl") +
                             " --metric llm-judge,mode=geval --family logprob-search"
                             " --suffix-words 2 --suffix-iterations 2 --bootstrap 0 --out " +
                             out.string() + " --llm-base-url " + server.base_url() +
                             " --llm-model fake-model");
  ASSERT_EQ(r.exit_code, 0) << r.err;
  const auto doc = nlohmann::json::parse(read_text((out / "attack.json").string()));
  const auto& s = doc["metrics"][0]["suffixes"];
  ASSERT_EQ(s.size(), 1u) << doc.dump();
  EXPECT_EQ(s[0]["search"], "logprob-search");
  EXPECT_TRUE(s[0]["searched"].get<bool>()) << s[0].dump();
  std::filesystem::remove_all(out);
}

TEST(SuffixSearch, TheCommandReportsTheSuffixWithTheSameBytesAtAnyThreadCount) {
  const auto out = std::filesystem::path(temp_dir("probity_suffix_cli"));
  std::string bytes[2];
  for (int run = 0; run < 2; ++run) {
    std::filesystem::remove_all(out);
    const auto r = run_probity(
        "attack --data " + data_path("summeval/summeval_sample20.jsonl") +
        " --metric rouge1 --family universal-phrase,filler --budget 5 --programs 2"
        " --phrase-words 2 --phrase-candidates 20 --min-applied 10 --bootstrap 0 --out " +
        out.string() + " --threads " + std::to_string(run + 1));
    ASSERT_EQ(r.exit_code, 0) << r.err;
    EXPECT_NE(r.out.find("universal-phrase"), std::string::npos) << r.out;
    auto doc = nlohmann::json::parse(read_text((out / "attack.json").string()));
    for (auto& m : doc["metrics"]) m.erase("seconds");  // the only varying field: timings
    bytes[run] = doc.dump();
  }
  EXPECT_EQ(bytes[0], bytes[1]);
  const auto doc = nlohmann::json::parse(bytes[0]);
  const auto& s = doc["metrics"][0]["suffixes"];
  ASSERT_EQ(s.size(), 1u);
  EXPECT_EQ(s[0]["search"], "universal-phrase");
  EXPECT_TRUE(s[0].contains("held_out"));
  std::filesystem::remove_all(out);
}

}  // namespace
}  // namespace probity::test
