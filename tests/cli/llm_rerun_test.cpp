// Failures are never kept: a run after a failing or garbling LLM server is fixed asks again and
// gets real results; cache files that are not caches are bad input.
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <nlohmann/json.hpp>

#include "cli_runner.hpp"
#include "llm/mock_server.hpp"
#include "test_paths.hpp"

namespace probity::test {
namespace {

using nlohmann::json;

std::string between(const std::string& prompt, const std::string& label) {
  const std::string open = label + ":\n<<<\n";
  const auto b = prompt.find(open);
  if (b == std::string::npos) return "";
  const auto start = b + open.size();
  return prompt.substr(start, prompt.find("\n>>>", start) - start);
}

bool is_rating(const json& request) {
  return request["messages"][0]["content"].get<std::string>().find("\"rating\"") !=
         std::string::npos;
}

// A working server: ratings that vary with the candidate's length (constant scores would not be
// testable), perturbations that keep the first half of the text.
std::string good_answer(const json& request) {
  if (is_rating(request)) {
    const std::string prompt = request["messages"][0]["content"].get<std::string>();
    return json{{"rating", 1 + between(prompt, "CANDIDATE").size() % 5}}.dump();
  }
  const std::string text = between(request["messages"][0]["content"].get<std::string>(), "TEXT");
  return json{{"text", text.substr(0, text.size() / 2) + "."}}.dump();
}

std::uint64_t requests_of(const std::string& report_json) {
  const auto j = json::parse(report_json);
  return j["llm_usage"]["total"]["requests"].get<std::uint64_t>();
}

class LlmRerun : public ::testing::Test {
 protected:
  void SetUp() override {
    dir_ = temp_dir("llm-rerun");
    // Failed requests are not retried: the failing run stays short.
    std::ofstream(dir_ + "/llm.toml") << "[llm.default]\nmax_attempts = 1\n";
    command_ = "audit --data " + data_path("summeval/summeval_sample20.jsonl") +
               " --metric llm-judge --perturber llm --degrade O --manipulate none --bootstrap 10 "
               "--llm-base-url " +
               server_.base_url() + " --llm-model m --config " + dir_ + "/llm.toml --cache " +
               dir_ + "/llm.sqlite --out " + dir_ + "/audit";
  }
  void TearDown() override { std::filesystem::remove_all(dir_); }

  // The rerun against the fixed server: it asks again and reports real results.
  void expect_real_results_after_the_fix() {
    server_.reset();
    server_.set_handler(good_answer);
    auto r = run_probity(command_);
    EXPECT_EQ(r.exit_code, 0) << r.err;
    EXPECT_GT(server_.count(), 0u);
    const std::string report = read_text(dir_ + "/audit/report.json");
    EXPECT_GT(requests_of(report), 0u);
    const auto tests = json::parse(report)["tests"];
    ASSERT_EQ(tests.size(), 1u);
    EXPECT_EQ(tests[0]["failed"], 0) << tests[0].dump();
    EXPECT_EQ(tests[0]["undefined"], 0) << tests[0].dump();
    EXPECT_EQ(tests[0]["applied"], 320) << tests[0].dump();
    EXPECT_TRUE(tests[0]["testable"].get<bool>()) << tests[0].dump();
    // And a third run is served by the caches.
    server_.reset();
    server_.set_handler(good_answer);
    r = run_probity(command_);
    EXPECT_EQ(r.exit_code, 0) << r.err;
    EXPECT_EQ(server_.count(), 0u);
  }

  MockServer server_;
  std::string dir_, command_;
};

// Defect 6: the audit cache kept "failed" perturbations and undefined judge scores.
TEST_F(LlmRerun, AnAuditAfterServerErrorsAsksAgain) {
  server_.set_handler(good_answer);
  server_.set_fault_rule([](const json&) { return MockFault::http(500); });
  auto r = run_probity(command_);
  ASSERT_EQ(r.exit_code, 5) << r.err;
  expect_real_results_after_the_fix();
}

// Defect 7: unusable answers (free text, a rating off the scale) were cached and replayed.
TEST_F(LlmRerun, AnAuditAfterUnusableAnswersAsksAgain) {
  server_.set_handler([](const json& request) {
    return is_rating(request) ? std::string(R"({"rating": 9})") : std::string("Sorry, no.");
  });
  auto r = run_probity(command_);
  ASSERT_EQ(r.exit_code, 5) << r.err;
  expect_real_results_after_the_fix();
}

// Defect 14: --import of a file that is not an audit cache, and an --out whose cache.sqlite is
// not one, exited 1.
TEST(AuditCacheFiles, ForeignOrDamagedCachesAreBadInputNamingTheFile) {
  const std::string dir = temp_dir("audit-cache-files");
  const std::string data = data_path("summeval/summeval_sample20.jsonl");
  const std::string notes = dir + "/notes.txt";
  std::ofstream(notes) << "not a cache\n" << std::string(2048, 'x');
  auto r = run_probity("audit --data " + data +
                       " --metric bleu --degrade S --manipulate none --bootstrap 10 --out " + dir +
                       "/a --import " + notes);
  EXPECT_EQ(r.exit_code, 3) << r.err;
  EXPECT_NE(r.err.find(notes), std::string::npos) << r.err;
  std::filesystem::create_directories(dir + "/b");
  std::ofstream(dir + "/b/cache.sqlite") << "not a cache\n" << std::string(2048, 'x');
  r = run_probity("audit --data " + data +
                  " --metric bleu --degrade S --manipulate none --bootstrap 10 --out " + dir +
                  "/b");
  EXPECT_EQ(r.exit_code, 3) << r.err;
  EXPECT_NE(r.err.find(dir + "/b/cache.sqlite"), std::string::npos) << r.err;
  std::filesystem::remove_all(dir);
}

}  // namespace
}  // namespace probity::test
