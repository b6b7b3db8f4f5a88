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

}  // namespace
}  // namespace probity::test
