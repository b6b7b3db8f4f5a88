// G-Eval (llm-judge,mode=geval): the weighted rating against deepeval's own function
// (tests/golden/geval.json, tests/golden/gen/geval.py), the rating-position rule, and a whole run
// replayed from a real llama.cpp server's answers (tests/llm/fixtures/transcripts/
// llamacpp-3f545bec-geval.jsonl): what it sends for logprobs/top_logprobs goes through the
// client's parser and the judge. A server without top_logprobs stops the run at the first answer.
#include "metrics/geval.hpp"

#include <gtest/gtest.h>

#include <cmath>
#include <filesystem>
#include <fstream>
#include <nlohmann/json.hpp>
#include <string>

#include "cli_runner.hpp"
#include "llm/fakes/fake_server.hpp"
#include "llm/fakes/transcript.hpp"
#include "llm/internal.hpp"
#include "test_paths.hpp"

namespace probity::test {
namespace {

using nlohmann::json;
namespace geval = metrics::geval;

const std::string kTranscript =
    std::string(PROBITY_TEST_DIR) + "/llm/fixtures/transcripts/llamacpp-3f545bec-geval.jsonl";

json read_json(const std::string& path) {
  std::ifstream in(path);
  return json::parse(in);
}

std::vector<llm::TokenLogprob> tokens_of(const json& list) {
  std::vector<llm::TokenLogprob> out;
  for (const auto& t : list) {
    llm::TokenLogprob lp;
    lp.token = t["token"].get<std::string>();
    lp.logprob = t["logprob"].get<double>();
    for (const auto& a : t["top_logprobs"])
      lp.top.emplace_back(a["token"].get<std::string>(), a["logprob"].get<double>());
    out.push_back(std::move(lp));
  }
  return out;
}

TEST(Geval, MatchesDeepevalsWeightedScoreWhereTheRulesAgree) {
  const json golden = read_json(golden_path("geval.json"));
  ASSERT_EQ(golden["reference"]["function"], "calculate_weighted_summed_score");
  std::size_t same = 0, recorded = 0;
  for (const auto& c : golden["cases"]) {
    SCOPED_TRACE(c["name"].get<std::string>());
    const int lo = c["scale"][0], hi = c["scale"][1];
    const auto tokens = tokens_of(c["tokens"]);
    std::string error;
    const auto at = geval::find_rating(tokens, lo, hi, error);
    if (c["rating"].is_null()) {
      EXPECT_FALSE(at.has_value());
      EXPECT_FALSE(error.empty());
      continue;
    }
    ASSERT_TRUE(at.has_value()) << error;
    EXPECT_EQ(at->value, c["rating"].get<int>());
    const auto w = geval::weighted_score(tokens[at->index].top, lo, hi, at->value);
    EXPECT_NEAR(w.score, c["probity"].get<double>(), 1e-9);
    EXPECT_NEAR(w.mass, c["mass"].get<double>(), 1e-9);
    if (c["same"].get<bool>()) {
      EXPECT_NEAR(w.score, c["deepeval"].get<double>(), 1e-9);
      ++same;
    }
    recorded += c["name"].get<std::string>().starts_with("recorded") ? 1 : 0;
  }
  EXPECT_GE(same, 8u);
  EXPECT_GE(recorded, 1u);
}

TEST(Geval, DiffersFromDeepevalOnlyWhereDocumented) {
  // Whitespace around a token and out-of-scale digits: deepeval drops " 4" and counts "7".
  const json golden = read_json(golden_path("geval.json"));
  for (const auto& c : golden["cases"]) {
    const std::string name = c["name"];
    if (c["same"].get<bool>() || c["rating"].is_null()) continue;
    EXPECT_TRUE(name.find("deepeval drops") != std::string::npos ||
                name.find("deepeval counts") != std::string::npos ||
                name.find("ten split") != std::string::npos)
        << name << ": probity " << c["probity"] << ", deepeval " << c["deepeval"];
  }
}

llm::TokenLogprob token(std::string text) {
  llm::TokenLogprob t;
  t.token = std::move(text);
  return t;
}

TEST(Geval, RatingPositionIsTheFirstTokenThatIsAScaleValue) {
  std::string error;
  std::vector<llm::TokenLogprob> t = {token("\n"), token(" \""), token("4"), token("\"")};
  auto at = geval::find_rating(t, 1, 5, error);
  ASSERT_TRUE(at);
  EXPECT_EQ(at->index, 2u);
  EXPECT_EQ(at->value, 4);
  // " 3" (a leading space, as llama.cpp and OpenAI decode SentencePiece/BPE tokens) is 3.
  t = {token("Rating"), token(":"), token(" 3")};
  at = geval::find_rating(t, 1, 5, error);
  ASSERT_TRUE(at);
  EXPECT_EQ(at->index, 2u);
  // 7 is outside 1-5; "1" "5" is fifteen; then 2.
  t = {token("7"), token(" 1"), token("5"), token(" "), token("2")};
  at = geval::find_rating(t, 1, 5, error);
  ASSERT_TRUE(at);
  EXPECT_EQ(at->index, 4u);
  t = {token("Good"), token(".")};
  EXPECT_FALSE(geval::find_rating(t, 1, 5, error));
  EXPECT_NE(error.find("no generated token is a rating from 1 to 5"), std::string::npos) << error;
  EXPECT_FALSE(geval::find_rating({}, 1, 5, error));
}

TEST(Geval, RatingInTextIsTheFirstNumber) {
  std::string error;
  EXPECT_EQ(geval::rating_in_text(" \"4\"", 1, 5, error), 4);
  EXPECT_EQ(geval::rating_in_text("Rating: 2/5", 1, 5, error), 2);
  EXPECT_FALSE(geval::rating_in_text("10", 1, 5, error));
  EXPECT_NE(error.find("not a rating from 1 to 5"), std::string::npos);
  EXPECT_FALSE(geval::rating_in_text("good", 1, 5, error));
}

TEST(Geval, RealLlamaCppAnswersGoThroughTheParser) {
  // Every recorded chat answer with log-probabilities parses into tokens with alternatives,
  // as many as were asked (llama.cpp lists n_probs of them at every position).
  std::ifstream in(kTranscript);
  ASSERT_TRUE(in) << kTranscript;
  std::size_t answers = 0;
  json meta;
  for (std::string line; std::getline(in, line);) {
    const json e = json::parse(line);
    if (e.contains("meta")) {
      meta = e["meta"];
      continue;
    }
    if (e.value("path", "") != "/v1/chat/completions" || e.value("status", 0) != 200) continue;
    llm::Request request;
    request.endpoint = llm::Endpoint::kChat;
    llm::Response response;
    ASSERT_TRUE(llm::detail::parse_success(request, e["response"].dump(), response))
        << response.error;
    ASSERT_FALSE(response.logprobs.empty());
    const int k = e["request"]["top_logprobs"];
    for (const auto& t : response.logprobs) {
      EXPECT_EQ(t.top.size(), static_cast<std::size_t>(k));
      EXPECT_TRUE(t.logprob.has_value());
    }
    ++answers;
  }
  EXPECT_GE(answers, 5u);
  EXPECT_NE(meta.dump().find("3f545beccee69d9975f466ec7e45fd9aacd8ba90"), std::string::npos);
}

struct Replay {
  explicit Replay(const std::string& transcript) {
    FakeOptions o;
    o.flavour = Flavour::kLlamaCpp;
    o.model = "tiny";
    o.transcript = Transcript::load(transcript);
    server = std::make_unique<FakeServer>(o);
  }
  std::unique_ptr<FakeServer> server;
};

std::string replace_all(std::string s, const std::string& from, const std::string& to) {
  for (auto at = s.find(from); at != std::string::npos; at = s.find(from, at + to.size()))
    s.replace(at, from.size(), to);
  return s;
}

const std::string kPrefix =
    std::string(PROBITY_TEST_DIR) + "/llm/fixtures/transcripts/llamacpp-3f545bec-geval";

RunResult run_recorded(const json& manifest, const json& command, const Replay& replay,
                       const std::string& out) {
  std::string args =
      replace_all(command["args"].get<std::string>(), "{data}", kPrefix + "-data.jsonl");
  args = replace_all(args, "{config}", kPrefix + ".toml");
  args = replace_all(args, "{out}", out);
  return run_probity(args + " --llm-base-url " + replay.server->base_url() + " " +
                     manifest["llm_flags"].get<std::string>());
}

std::vector<double> scores_in(const std::string& path) {
  std::ifstream in(path);
  std::vector<double> scores;
  for (std::string line; std::getline(in, line);) {
    const json rec = json::parse(line);
    if (!rec.contains("score")) continue;
    scores.push_back(rec["score"].is_null() ? std::nan("") : rec["score"].get<double>());
  }
  return scores;
}

TEST(Geval, RealLlamaCppRunReplaysToTheRecordedScores) {
  // Without a grammar the tiny model writes newlines: no rating, every item undefined (exit 5).
  // With llama.cpp's grammar the rating is forced to "1"; the top log-probabilities at that
  // token are the model's own (before the grammar) and hold no digit, so the score is the
  // generated rating.
  const json manifest = read_json(kPrefix + ".json");
  Replay replay(kPrefix + ".jsonl");
  const std::string dir = temp_dir("geval_replay");
  for (const auto& c : manifest["commands"]) {
    SCOPED_TRACE(c["name"].get<std::string>());
    const std::string out = dir + "/" + c["name"].get<std::string>() + ".jsonl";
    const auto r = run_recorded(manifest, c, replay, out);
    EXPECT_EQ(r.exit_code, c["exit"].get<int>()) << r.err;
    const auto scores = scores_in(out);
    const auto& expected = c["scores"];
    ASSERT_EQ(scores.size(), expected.size());
    for (std::size_t i = 0; i < scores.size(); ++i) {
      if (expected[i].is_null()) {
        EXPECT_TRUE(std::isnan(scores[i])) << i;
      } else {
        EXPECT_NEAR(scores[i], expected[i].get<double>(), 1e-9) << i;
      }
    }
  }
  std::string unasked;
  for (const auto* e : replay.server->options().transcript->unserved())
    unasked += " line " + std::to_string(e->line);
  EXPECT_TRUE(unasked.empty()) << "recorded requests the replay never sent:" << unasked;
  std::filesystem::remove_all(dir);
}

TEST(Geval, ServerWithoutTopLogprobsIsANamedErrorAtOnce) {
  // The recorded answers with their log-probabilities removed, as a server that ignores
  // `logprobs` sends them.
  const std::string dir = temp_dir("geval_no_logprobs");
  const std::string stripped = dir + "/t.jsonl";
  {
    std::ifstream in(kPrefix + ".jsonl");
    std::ofstream out(stripped);
    for (std::string line; std::getline(in, line);) {
      json e = json::parse(line);
      if (e.contains("response") && e["response"].is_object() && e["response"].contains("choices"))
        for (auto& c : e["response"]["choices"]) c.erase("logprobs");
      out << e.dump() << "\n";
    }
  }
  const json manifest = read_json(kPrefix + ".json");
  Replay replay(stripped);
  const auto r = run_recorded(manifest, manifest["commands"][1], replay, dir + "/s.jsonl");
  EXPECT_EQ(r.exit_code, 2) << r.err;
  EXPECT_NE(r.err.find("returned no top_logprobs"), std::string::npos) << r.err;
  EXPECT_NE(r.err.find("mode=geval needs them (llama.cpp"), std::string::npos) << r.err;
  EXPECT_EQ(replay.server->count("/v1/chat/completions"), 1u);
  std::filesystem::remove_all(dir);
}

TEST(Geval, OptionsThatDoNotFitAreUsageErrors) {
  for (const char* spec :
       {"llm-judge,mode=geval,scale=1-10", "llm-judge,mode=geval,samples=3",
        "llm-judge,mode=geval,prompt=naive", "llm-judge,mode=geval,reasks=1",
        "llm-judge,mode=geval,estimate=samples,top_logprobs=5", "llm-judge,estimate=samples"}) {
    const auto r =
        run_probity(std::string("score --data ") + data_path("summeval/summeval_sample20.jsonl") +
                    " --metric '" + spec + "' --llm-base-url http://127.0.0.1:9/v1 --llm-model m");
    EXPECT_EQ(r.exit_code, 2) << spec << "\n" << r.err;
  }
}

}  // namespace
}  // namespace probity::test
