// Every LLM feature, replayed from a whole run recorded against a real llama.cpp server with a
// real (tiny) model (tests/llm/fakes/record_e2e.sh; docs/llm-servers.md, "Checking against a
// real llama.cpp"): the same commands must send the same requests, ask nothing that was not
// recorded, leave nothing recorded unasked, and end with the recorded exit codes. A change to
// what probity sends shows here as an unmatched request; re-record against the real server.
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <nlohmann/json.hpp>
#include <string>

#include "cli_runner.hpp"
#include "llm/fakes/fake_server.hpp"
#include "llm/fakes/run_batch.hpp"
#include "llm/fakes/transcript.hpp"
#include "test_paths.hpp"

namespace probity::test {
namespace {

using nlohmann::json;

const std::string kPrefix = "llm/fixtures/transcripts/llamacpp-e2e";

std::string fixture(const std::string& suffix) {
  return std::string(PROBITY_TEST_DIR) + "/" + kPrefix + suffix;
}

std::string replace_all(std::string s, const std::string& from, const std::string& to) {
  for (auto at = s.find(from); at != std::string::npos; at = s.find(from, at + to.size()))
    s.replace(at, from.size(), to);
  return s;
}

TEST(LlamaCppReplay, EveryFeatureSendsWhatWasRecordedAndEndsAsItDid) {
  json manifest;
  std::ifstream(fixture(".commands.json")) >> manifest;
  auto transcript = Transcript::load(fixture(".jsonl"));
  FakeOptions options;
  options.flavour = Flavour::kLlamaCpp;
  options.model = "tiny";
  options.transcript = transcript;
  FakeServer server(options);
  const std::string dir = temp_dir("llamacpp-replay");
  for (const auto& c : manifest["commands"]) {
    const std::string name = c["name"].get<std::string>();
    const std::string out = dir + "/" + name;
    std::filesystem::create_directories(out);
    std::string args = replace_all(c["args"].get<std::string>(), "{data}", fixture("-data.jsonl"));
    args = replace_all(args, "{out}", out);
    const auto r = run_probity(args + " --llm-base-url " + server.base_url() + " " +
                               manifest["llm_flags"].get<std::string>() + " 2>&1");
    EXPECT_EQ(r.exit_code, c["exit"].get<int>())
        << name << ": " << args << "\n"
        << r.out.substr(r.out.size() > 4000 ? r.out.size() - 4000 : 0);
  }
  std::string unasked;
  for (const auto* e : transcript->unserved())
    unasked += "\n  line " + std::to_string(e->line) + ": " + e->path;
  EXPECT_TRUE(unasked.empty()) << "recorded requests the replay never sent:" << unasked;
  std::filesystem::remove_all(dir);
}

// The same real answers through batch files: each command that writes scores, run with --batch
// file, stops (exit 6) until the requests files it wrote are answered (here by vllm run-batch's
// fake, answering from the recording) and imported, and then writes the file the online run
// wrote, byte for byte.
TEST(LlamaCppReplay, BatchFilesAnsweredWithTheRecordedAnswersGiveTheOnlineScores) {
  json manifest;
  std::ifstream(fixture(".commands.json")) >> manifest;
  const std::string dir = temp_dir("llamacpp-replay-batch");
  auto replaying = [] {
    FakeOptions options;
    options.flavour = Flavour::kLlamaCpp;
    options.model = "tiny";
    options.transcript = Transcript::load(fixture(".jsonl"));
    return options;
  };
  FakeServer online(replaying());
  FakeServer offline(replaying());
  std::size_t compared = 0;
  for (const auto& c : manifest["commands"]) {
    const std::string name = c["name"].get<std::string>();
    const std::string args = c["args"].get<std::string>();
    if (!args.starts_with("score ") || c["exit"] != 0) continue;
    auto command = [&](const std::string& out, const FakeServer& server, const std::string& extra) {
      std::filesystem::create_directories(out);
      std::string a = replace_all(args, "{data}", fixture("-data.jsonl"));
      a = replace_all(a, "{out}", out);
      return a + " --llm-base-url " + server.base_url() + " " +
             manifest["llm_flags"].get<std::string>() + " " + extra;
    };
    const std::string want_dir = dir + "/online-" + name;
    auto r = run_probity(command(want_dir, online, ""));
    ASSERT_EQ(r.exit_code, 0) << name << ": " << r.err;
    // The batch files name the server they stand for: the same URL as the offline replay.
    const std::string got_dir = dir + "/batch-" + name;
    const std::string batches = dir + "/batches-" + name;
    const std::string cache = dir + "/" + name + ".sqlite";
    int rounds = 0;
    for (;; ++rounds) {
      ASSERT_LT(rounds, 10) << name;
      r = run_probity(
          command(got_dir, offline, "--batch file --batch-dir " + batches + " --cache " + cache));
      if (r.exit_code == 0) break;
      ASSERT_EQ(r.exit_code, 6) << name << ": " << r.err;
      std::string results;
      for (const auto& e : std::filesystem::directory_iterator(batches)) {
        const std::string file = e.path().filename().string();
        if (!file.starts_with("requests-")) continue;
        const std::string result = batches + "/results-" + file.substr(9);
        if (std::filesystem::exists(result)) continue;
        std::ofstream(result) << vllm_run_batch(offline, read_text(e.path().string()));
        results += " " + result;
      }
      ASSERT_FALSE(results.empty()) << name;
      const auto imported = run_probity("cache import --cache " + cache + results);
      ASSERT_EQ(imported.exit_code, 0) << imported.err;
    }
    EXPECT_GE(rounds, 1) << name;
    for (const auto& e : std::filesystem::directory_iterator(want_dir)) {
      const std::string file = e.path().filename().string();
      EXPECT_EQ(read_text(got_dir + "/" + file), read_text(e.path().string()))
          << name << " " << file;
      ++compared;
    }
  }
  EXPECT_GE(compared, 4u);
  std::filesystem::remove_all(dir);
}

}  // namespace
}  // namespace probity::test
