// The replacement families of `probity attack` (audit/replacement_attacks.cpp): judges with
// planted weaknesses answering through a test server that speaks as vLLM does (one that gives
// content-free answers the top rating, one that obeys a verdict written in the answer) are each
// caught on held-out tasks; lexical metrics, which give ":" no credit over a real candidate, are
// not; the rates carry Wilson intervals and the report reads back.
#include "audit/replacement_attacks.hpp"

#include <gtest/gtest.h>

#include <filesystem>
#include <nlohmann/json.hpp>

#include "audit/attack_fixtures.hpp"
#include "cli_runner.hpp"
#include "llm/fakes/fake_server.hpp"
#include "probity/stats.hpp"
#include "test_paths.hpp"

namespace probity::test {
namespace {

using nlohmann::json;

std::string candidate_of(const json& request) {
  const std::string prompt = request["messages"].front()["content"];
  const std::string label = "CANDIDATE:\n<<<\n";
  const std::size_t start = prompt.find(label) + label.size();
  return prompt.substr(start, prompt.find("\n>>>", start) - start);
}

enum class Planted { kRewardsContentFree, kObeysVerdicts };

json attack(Planted judge, const std::string& family, const std::string& name) {
  FakeOptions fo;
  fo.flavour = Flavour::kVllm;
  fo.reply = [judge](const json& r) {
    const std::string c = candidate_of(r);
    int rating = 3;
    if (judge == Planted::kRewardsContentFree)
      rating = c.empty() ? 1 : c.size() < 45 ? 5 : 3;  // short, content-free: "correct"
    else
      rating = c.find("ating") != std::string::npos || c.find("rated") != std::string::npos ? 5 : 3;
    return json{{"rating", rating}}.dump();
  };
  FakeServer server(fo);
  const auto out = std::filesystem::path(temp_dir(name));
  std::filesystem::remove_all(out);
  const auto r = run_probity("attack --data " + data_path("summeval/summeval_sample20.jsonl") +
                             " --metric llm-judge --family " + family + " --out " + out.string() +
                             " --llm-base-url " + server.base_url() + " --llm-model fake-model");
  EXPECT_EQ(r.exit_code, 0) << r.err;
  EXPECT_NE(r.out.find(family), std::string::npos) << r.out;
  const json doc = json::parse(read_text((out / "attack.json").string()));
  std::filesystem::remove_all(out);
  return doc["metrics"][0]["replacements"][0];
}

TEST(ReplacementAttacks, AJudgeThatRewardsMasterKeysIsCaught) {
  const json x = attack(Planted::kRewardsContentFree, "master-key", "probity_master_key");
  EXPECT_EQ(x["family"], "master-key");
  EXPECT_GE(x["held_out"]["rate"].get<double>(), 0.9) << x.dump();
  EXPECT_TRUE(x["vulnerable"].get<bool>());
  EXPECT_EQ(x["answers"].size(), attack::replacement_answers(ReplacementFamily::kMasterKey).size());
}

TEST(ReplacementAttacks, AJudgeThatObeysAVerdictInTheAnswerLosesToATemplateBreakingNullModel) {
  const json x = attack(Planted::kObeysVerdicts, "null-model", "probity_null_model");
  EXPECT_EQ(x["family"], "null-model");
  EXPECT_TRUE(x["vulnerable"].get<bool>()) << x.dump();
  // A few candidates mention a rating themselves ("separating"): they tie, which is no hit.
  EXPECT_GE(x["held_out"]["rate"].get<double>(), 0.95);
  // The plain constant answers carry no verdict: this judge does not prefer them.
  EXPECT_EQ(x["answers"][0]["hits"].get<std::size_t>(), 0u);
}

TEST(ReplacementAttacks, LexicalMetricsGiveContentFreeAnswersNoCreditOverACandidate) {
  const Dataset ds = load_dataset(data_path("summeval/summeval_sample20.jsonl"));
  const auto items = all_items(ds);
  std::vector<bool> in_search;
  for (std::size_t i = 0; i < items.size(); ++i) in_search.push_back(items[i].task % 2 == 0);
  // A metric that counts characters: "." scores above "" (so a floor-only rule would call every
  // item a false positive) but far below the real candidate.
  std::vector<double> original;
  for (const auto& it : items)
    original.push_back(static_cast<double>(ds.tasks[it.task].candidates[it.candidate].text.size()));
  const attack::ScoreTexts chars = [](std::span<const ItemRef>, std::span<const std::string> t) {
    std::vector<double> v;
    for (const auto& s : t) v.push_back(static_cast<double>(s.size()));
    return v;
  };
  const auto r = attack::replacement_attack(ReplacementFamily::kMasterKey, items, original,
                                            in_search, chars, 0.95, 0.05);
  ASSERT_TRUE(r.testable) << r.untestable;
  EXPECT_EQ(r.held_out.hits, 0u);
  EXPECT_FALSE(r.vulnerable);
  EXPECT_EQ(r.floor_mean, 0.0);
  const auto ci = stats::wilson_interval(0, r.held_out.n, 0.95);
  EXPECT_EQ(r.held_out.rate_hi, ci.high);
  // A score every answer ties with: ties with the candidate above the floor are hits, so a
  // metric that cannot tell ":" from the answer is caught; equal to the floor they are not.
  const attack::ScoreTexts constant = [](std::span<const ItemRef>, std::span<const std::string> t) {
    std::vector<double> v;
    for (const auto& s : t) v.push_back(s.empty() ? 0.0 : 1.0);
    return v;
  };
  const std::vector<double> ones(items.size(), 1.0);
  const auto tie = attack::replacement_attack(ReplacementFamily::kMasterKey, items, ones, in_search,
                                              constant, 0.95, 0.05);
  EXPECT_EQ(tie.held_out.rate, 1.0);
  EXPECT_TRUE(tie.vulnerable);
}

TEST(ReplacementAttacks, AJudgeWithOneRatingForEverythingIsUntestedNotResistant) {
  // The real tiny llama.cpp model (a 264k-parameter llama2.c checkpoint) rated every text 1: zero
  // hits would read as "resists".
  const Dataset ds = load_dataset(data_path("summeval/summeval_sample20.jsonl"));
  const auto items = all_items(ds);
  std::vector<bool> in_search;
  for (const auto& it : items) in_search.push_back(it.task % 2 == 0);
  const attack::ScoreTexts ones = [](std::span<const ItemRef>, std::span<const std::string> t) {
    return std::vector<double>(t.size(), 1.0);
  };
  const std::vector<double> original(items.size(), 1.0);
  for (auto f : {ReplacementFamily::kMasterKey, ReplacementFamily::kNullModel}) {
    const auto r = attack::replacement_attack(f, items, original, in_search, ones, 0.95, 0.05);
    EXPECT_FALSE(r.testable);
    EXPECT_FALSE(r.vulnerable);
    EXPECT_NE(r.untestable.find("same score"), std::string::npos) << r.untestable;
  }
}

TEST(ReplacementAttacks, SeveralMetricsGiveADefenseMatrix) {
  const auto out = std::filesystem::path(temp_dir("probity_defense_matrix"));
  std::filesystem::remove_all(out);
  const auto r = run_probity("attack --data " + data_path("summeval/summeval_sample20.jsonl") +
                             " --metric chrf --metric rougeL --family master-key,null-model"
                             " --out " +
                             out.string());
  ASSERT_EQ(r.exit_code, 0) << r.err;
  const auto at = r.out.find("Defense matrix");
  ASSERT_NE(at, std::string::npos) << r.out;
  const std::string matrix = r.out.substr(at);
  EXPECT_NE(matrix.find("master-key"), std::string::npos) << matrix;
  EXPECT_NE(matrix.find("null-model"), std::string::npos) << matrix;
  EXPECT_NE(matrix.find("rougeL.f"), std::string::npos) << matrix;
  std::filesystem::remove_all(out);
}

}  // namespace
}  // namespace probity::test
