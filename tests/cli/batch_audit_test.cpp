// The audit through every batch mode: the paper's suite with an LLM judge, run online, through
// OpenAI's and Anthropic's batch APIs (contract fakes) and through batch files answered as vllm
// run-batch answers them, writes the same report; the file mode takes one round per
// `probity cache import`.
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <nlohmann/json.hpp>
#include <sstream>

#include "cli_runner.hpp"
#include "llm/fakes/fake_models.hpp"
#include "llm/fakes/fake_server.hpp"
#include "llm/fakes/run_batch.hpp"
#include "test_paths.hpp"

namespace probity::test {
namespace {

using nlohmann::json;

// The judge of probity_fake_servers --llm judge-overlap (copy_model for the other roles), with
// the batch APIs on. The copy model leaves some llm-D and llm-U rewrites unusable (a [GAP] left,
// over the word cap): --max-unparsed 1 lets those items stay undefined, in every mode alike, and
// the file mode has re-asks to replay across its rounds.
FakeOptions judge_server() {
  FakeOptions o = *fake_llm_options("judge-overlap");
  o.batch_api = true;
  o.threads = 32;
  return o;
}

std::string audit_command(const FakeServer& server, const std::string& out,
                          const std::string& extra) {
  return "audit --data " + data_path("summeval/summeval_sample20.jsonl") +
         " --metric bleu --metric llm-judge,scale=1-5 --suite paper --sample 50 --bootstrap 50 "
         "--max-unparsed 1 --llm-base-url " +
         server.base_url() + " --llm-model judge-overlap --out " + out + " " + extra;
}

// The report without what differs between any two runs (times, cache counters, usage).
json stable_report(const std::string& dir) {
  json j = json::parse(read_text(dir + "/report.json"));
  for (const char* field : {"seconds", "cache_hits", "cache_misses", "llm_usage"}) j.erase(field);
  return j;
}

// report.md without the run's time and cache counters and the LLM usage section (the requests
// went another way, and a file-mode run's last round finds every answer cached).
std::string stable_markdown(const std::string& dir) {
  std::istringstream in(read_text(dir + "/report.md"));
  std::string out;
  bool usage = false;
  for (std::string line; std::getline(in, line);) {
    if (line.starts_with("## ")) usage = line == "## LLM usage";
    if (usage || line.starts_with("- **Run:**") ||
        (line.starts_with("probity ") && line.find(" · seed ") != std::string::npos))
      continue;
    out += line + '\n';
  }
  return out;
}

std::string poll_config(const std::string& dir) {
  const std::string path = dir + "/probity.toml";
  std::ofstream(path) << "[llm.default]\nbatch_poll = 0.01\nbatch_poll_max = 0.05\n";
  return path;
}

TEST(BatchAudit, EveryBatchModeWritesTheOnlineReport) {
  FakeServer server(judge_server());
  const std::string dir = temp_dir("batch_audit");
  auto r = run_probity(audit_command(server, dir + "/online", ""));
  ASSERT_EQ(r.exit_code, 0) << r.err;
  const json online = stable_report(dir + "/online");
  const std::string online_md = stable_markdown(dir + "/online");

  for (const std::string mode : {"openai", "anthropic"}) {
    const std::string out = dir + "/" + mode;
    const std::size_t before = server.count();
    r = run_probity(audit_command(server, out,
                                  "--config " + poll_config(dir) + " --batch " + mode +
                                      " --cache " + dir + "/" + mode + ".sqlite"));
    ASSERT_EQ(r.exit_code, 0) << mode << ": " << r.err;
    EXPECT_EQ(stable_report(out), online) << mode;
    const json usage = json::parse(read_text(out + "/report.json"))["llm_usage"];
    EXPECT_GT(usage["total"]["batch"]["requests"].get<int>(), 0) << usage.dump();
    EXPECT_GT(usage["total"]["batch"]["batches"].get<int>(), 0) << usage.dump();
    EXPECT_NE(read_text(out + "/report.md").find("Batches (--batch): judge: "), std::string::npos);
    EXPECT_EQ(stable_markdown(out), online_md) << mode;
    // Nothing went to the online routes.
    std::size_t online_calls = 0;
    const auto calls = server.calls();
    for (std::size_t i = before; i < calls.size(); ++i)
      if (calls[i].path == "/v1/chat/completions" || calls[i].path == "/v1/completions")
        ++online_calls;
    EXPECT_EQ(online_calls, 0u) << mode;
  }

  // File mode: each round stops with exit 6 until its answers are imported.
  const std::string out = dir + "/file";
  const std::string cache = dir + "/file.sqlite";
  int rounds = 0;
  for (;; ++rounds) {
    ASSERT_LT(rounds, 20) << "file mode does not converge";
    r = run_probity(audit_command(server, out,
                                  "--batch file --batch-dir " + dir + "/batches --cache " + cache));
    if (r.exit_code == 0) break;
    ASSERT_EQ(r.exit_code, 6) << r.err;
    ASSERT_NE(r.err.find("probity cache import"), std::string::npos) << r.err;
    std::vector<std::string> results;
    for (const auto& e : std::filesystem::directory_iterator(dir + "/batches")) {
      const std::string name = e.path().filename().string();
      if (!name.starts_with("requests-")) continue;
      const std::string result = dir + "/batches/results-" + name.substr(9);
      if (std::filesystem::exists(result)) continue;
      std::ofstream(result) << vllm_run_batch(server, read_text(e.path().string()));
      results.push_back(result);
    }
    ASSERT_FALSE(results.empty());
    std::string files;
    for (const auto& f : results) files += " " + f;
    const auto imported = run_probity("cache import --cache " + cache + files);
    ASSERT_EQ(imported.exit_code, 0) << imported.err;
  }
  EXPECT_GE(rounds, 1);
  EXPECT_EQ(stable_report(out), online);
  EXPECT_EQ(stable_markdown(out), online_md);
  const auto listed = run_probity("cache batches --cache " + cache + " --json");
  ASSERT_EQ(listed.exit_code, 0) << listed.err;
  for (const auto& b : json::parse(listed.out)) EXPECT_FALSE(b["open"].get<bool>()) << b;
}

}  // namespace
}  // namespace probity::test
