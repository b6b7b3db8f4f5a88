// The meta-evaluation commands with an LLM metric, end to end on the command line against the
// mock OpenAI-compatible server: bench-build (rules) -> score with llm-judge -> meta local;
// score -> meta global --direct; select computing an LLM variant itself; perturb --perturber llm.
#include <gtest/gtest.h>

#include <algorithm>
#include <nlohmann/json.hpp>
#include <set>
#include <sstream>
#include <string>

#include "cli_runner.hpp"
#include "llm/mock_server.hpp"
#include "test_paths.hpp"

namespace {

using json = nlohmann::json;
using probity::test::MockServer;
using probity::test::run_probity;

std::string between(const std::string& prompt, const std::string& label) {
  const std::string open = label + ":\n<<<\n";
  const auto b = prompt.find(open);
  if (b == std::string::npos) return "";
  const auto start = b + open.size();
  return prompt.substr(start, prompt.find("\n>>>", start) - start);
}

std::set<std::string> word_set(const std::string& text) {
  std::set<std::string> out;
  std::istringstream in(text);
  for (std::string w; in >> w;) out.insert(w);
  return out;
}

// Judge: 1 + 4 x (share of the candidate's words found in the reference), rounded. Perturbation
// prompts (they ask for {"text": ...}): the candidate's first half.
std::string answer(const json& request) {
  const std::string prompt = request["messages"][0]["content"].get<std::string>();
  if (prompt.find("\"rating\"") != std::string::npos) {
    const auto cand = word_set(between(prompt, "CANDIDATE"));
    const auto ref = word_set(between(prompt, "REFERENCE"));
    std::size_t shared = 0;
    for (const auto& w : cand) shared += ref.count(w);
    const double share =
        cand.empty() ? 0.0 : static_cast<double>(shared) / static_cast<double>(cand.size());
    return json{{"rating", 1 + static_cast<int>(4 * share + 0.5)}}.dump();
  }
  std::string text = between(prompt, "TEXT");
  return json{{"text", text.substr(0, text.size() / 2) + "."}}.dump();
}

class LlmMeta : public ::testing::Test {
 protected:
  void SetUp() override {
    server_.set_handler(answer);
    dir_ = probity::test::temp_dir("llm-meta");
    llm_ = " --llm-base-url " + server_.base_url() + " --llm-model mock-model --cache " + dir_ +
           "/cache.sqlite";
  }
  MockServer server_;
  std::string dir_, llm_;
  const std::string data_ = probity::test::data_path("summeval/summeval_sample20.jsonl");
};

TEST_F(LlmMeta, LocalBenchmarkScoredByAnLlmJudge) {
  auto r = run_probity("bench-build --data " + data_ +
                       " --dimension consistency --steps 3 --sources 6 --seed 1 --out " + dir_ +
                       "/local.jsonl");
  ASSERT_EQ(r.exit_code, 0) << r.err;
  r = run_probity("score --data " + dir_ + "/local.jsonl --metric llm-judge --metric bleu" + llm_ +
                  " --out " + dir_ + "/scores.jsonl");
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_NE(r.err.find("LLM usage"), std::string::npos);
  EXPECT_GT(server_.count(), 0u);
  r = run_probity("meta local --data " + dir_ + "/local.jsonl --scores " + dir_ +
                  "/scores.jsonl --bootstrap 50 --json");
  ASSERT_EQ(r.exit_code, 0) << r.err;
  const auto j = json::parse(r.out);
  EXPECT_NE(j.dump().find("llm-judge"), std::string::npos) << r.out;
  // Served from the cache the second time: the same scores, no request.
  const auto requests = server_.count();
  r = run_probity("score --data " + dir_ + "/local.jsonl --metric llm-judge --metric bleu" + llm_ +
                  " --out " + dir_ + "/scores2.jsonl");
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_EQ(server_.count(), requests);
  EXPECT_EQ(probity::test::read_text(dir_ + "/scores.jsonl"),
            probity::test::read_text(dir_ + "/scores2.jsonl"));
}

TEST_F(LlmMeta, GlobalCemUsesTheJudgesRatingsDirectly) {
  auto r = run_probity("score --data " + data_ + " --metric llm-judge" + llm_ + " --out " + dir_ +
                       "/scores.jsonl");
  ASSERT_EQ(r.exit_code, 0) << r.err;
  r = run_probity("meta global --data " + data_ + " --scores " + dir_ +
                  "/scores.jsonl --direct --max-spread 2 --bootstrap 50 --chance 10");
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_NE(r.out.find("llm-judge"), std::string::npos) << r.out;
}

TEST_F(LlmMeta, SelectComputesAnLlmVariantItself) {
  auto r = run_probity("select --data " + data_ +
                       " --metric llm-judge --metric bleu --bootstrap 50 --permutations 50" + llm_);
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_NE(r.out.find("llm-judge"), std::string::npos) << r.out;
  EXPECT_GT(server_.count(), 0u);
  // Without an endpoint the LLM metric is a usage error naming the flags.
  r = run_probity("select --data " + data_ + " --metric llm-judge --metric bleu");
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_NE(r.err.find("--llm-base-url"), std::string::npos) << r.err;
}

TEST_F(LlmMeta, PerturbWritesLlmPerturbations) {
  auto r =
      run_probity("perturb --data " + data_ + " --degrade O --manipulate none --perturber llm" +
                  llm_ + " --out " + dir_ + "/perturbed.jsonl");
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_GT(server_.count(), 0u);
  EXPECT_NE(r.err.find("LLM usage"), std::string::npos) << r.err;
  EXPECT_NE(r.out.find("failed 0;"), std::string::npos) << r.out;
  EXPECT_NE(probity::test::read_text(dir_ + "/perturbed.jsonl").find("~degradation-llm-O"),
            std::string::npos);
}

TEST_F(LlmMeta, PerturbCountsFailedLlmPerturbationsSeparately) {
  server_.set_handler([](const json&) { return std::string("Sorry, I cannot help."); });
  auto r =
      run_probity("perturb --data " + data_ + " --degrade O --manipulate none --perturber llm" +
                  llm_ + " --out " + dir_ + "/perturbed.jsonl");
  // Every answer unusable: the file is written (it holds the originals) and the exit code says
  // that the LLM failed.
  EXPECT_EQ(r.exit_code, 5) << r.err;
  EXPECT_NE(r.err.find("320 of 320 structured answers from 'perturber'"), std::string::npos)
      << r.err;
  EXPECT_NE(r.out.find("0 perturbed candidate(s) added"), std::string::npos) << r.out;
  EXPECT_EQ(r.out.find("failed 0;"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("unparseable"), std::string::npos) << r.out;
}

}  // namespace
