// Batch mode without a batch API: --batch file writes OpenAI batch JSONL and stops, the lines
// are answered by a fake server (as vllm run-batch would), `cache import` loads them, and the
// rerun gives exactly the online answers. Also the translations to and from Anthropic's
// Messages, batch pricing, the budget, and cache import / export / merge.
#include "llm/batch.hpp"

#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <nlohmann/json.hpp>
#include <sstream>

#include "llm/fakes/fake_server.hpp"
#include "llm/fakes/run_batch.hpp"
#include "llm/http_post.hpp"
#include "llm/internal.hpp"
#include "llm/llm_test_util.hpp"
#include "probity/cache_tools.hpp"
#include "probity/dataset.hpp"
#include "test_paths.hpp"

namespace probity::test {
namespace {

using nlohmann::json;

std::vector<llm::Request> questions(int n) {
  std::vector<llm::Request> out;
  for (int i = 0; i < n; ++i) out.push_back(chat_request("Rate answer " + std::to_string(i)));
  return out;
}

llm::EndpointConfig fake_endpoint(const FakeServer& server) {
  llm::EndpointConfig c;
  c.name = "judge";
  c.base_url = server.base_url();
  c.model = server.options().model;
  c.timeout_s = 5;
  c.backoff_base_s = 0.01;
  c.backoff_max_s = 0.05;
  c.max_tokens = 16;
  return c;
}

std::string read_text(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  std::ostringstream s;
  s << in.rdbuf();
  return s.str();
}

// Answers a requests file line by line through the server's online route, in OpenAI's batch
// output format; `fail` (1-based) lines get a 500 instead.
std::string answer_file(const FakeServer& server, const std::string& requests,
                        std::size_t fail = 0) {
  std::istringstream in(read_text(requests));
  std::string out, line;
  for (std::size_t n = 1; std::getline(in, line); ++n) {
    const json j = json::parse(line);
    if (n == fail) {
      out += json{{"custom_id", j["custom_id"]},
                  {"response",
                   {{"status_code", 500},
                    {"body", {{"error", {{"message", "engine died"}, {"type", "server_error"}}}}}}},
                  {"error", nullptr}}
                 .dump() +
             '\n';
      continue;
    }
    llm::PostOptions options;
    const auto r = llm::http_request("POST", server.root_url() + j["url"].get<std::string>(),
                                     j["body"].dump(), "application/json", options);
    out += json{{"custom_id", j["custom_id"]},
                {"response", {{"status_code", r.status}, {"body", json::parse(r.body)}}},
                {"error", nullptr}}
               .dump() +
           '\n';
  }
  return out;
}

std::vector<std::string> files_in(const std::string& dir) {
  std::vector<std::string> out;
  for (const auto& e : std::filesystem::directory_iterator(dir)) out.push_back(e.path().string());
  std::sort(out.begin(), out.end());
  return out;
}

TEST(LlmBatchFile, WritesRequestsStopsAndTheRerunAfterImportEqualsTheOnlineRun) {
  FakeServer server(FakeOptions{});
  const std::string dir = temp_dir("batch-file");
  auto requests = questions(6);
  requests.push_back(requests[2]);  // a repeat is sent once and answered twice

  // Online, its own cache.
  llm::Cache online_cache(dir + "/online.sqlite");
  llm::ClientOptions online_options;
  online_options.cache = &online_cache;
  llm::Client online(fake_endpoint(server), online_options);
  const auto want = online.run(requests);
  const std::size_t online_calls = server.count();

  llm::Cache cache(dir + "/batch.sqlite");
  llm::ClientOptions options;
  options.cache = &cache;
  auto config = fake_endpoint(server);
  config.batch = llm::BatchMode::kFile;
  config.batch_dir = dir + "/batches";
  {
    llm::Client client(config, options);
    try {
      client.run(requests);
      FAIL() << "no BatchPending";
    } catch (const llm::BatchPending& e) {
      const std::string message = e.what();
      EXPECT_NE(message.find("vllm run-batch -i"), std::string::npos) << message;
      EXPECT_NE(message.find("probity cache import"), std::string::npos) << message;
    }
    EXPECT_EQ(server.count(), online_calls) << "file mode sends nothing";
    EXPECT_EQ(client.accounting().total().batches, 1u);
  }
  const auto files = files_in(dir + "/batches");
  ASSERT_EQ(files.size(), 1u);
  std::size_t lines = 0;
  {
    std::istringstream in(read_text(files[0]));
    for (std::string line; std::getline(in, line); ++lines) {
      const json j = json::parse(line);
      EXPECT_EQ(j["method"], "POST");
      EXPECT_EQ(j["url"], "/v1/chat/completions");
      EXPECT_EQ(j["custom_id"].get<std::string>().size(), 64u);
      EXPECT_EQ(j["body"]["model"], server.options().model);
    }
  }
  EXPECT_EQ(lines, 6u) << "the repeat is one line";

  // Rerun without importing: the same file is named again, nothing new written.
  {
    llm::Client client(config, options);
    EXPECT_THROW(client.run(requests), llm::BatchPending);
  }
  EXPECT_EQ(files_in(dir + "/batches").size(), 1u);

  const std::string results = dir + "/results.jsonl";
  {
    std::ofstream out(results);
    out << vllm_run_batch(server, read_text(files[0]));  // vllm run-batch's output lines
  }
  const auto summary = llm::import_into_cache(cache, {results});
  EXPECT_EQ(summary.answers, 6u);
  EXPECT_EQ(summary.failures, 0u);
  EXPECT_EQ(summary.closed_batches, 1u);

  const std::size_t before = server.count();
  llm::Client client(config, options);
  const auto got = client.run(requests);
  EXPECT_EQ(server.count(), before);
  ASSERT_EQ(got.size(), want.size());
  for (std::size_t i = 0; i < got.size(); ++i) {
    ASSERT_TRUE(got[i].ok) << got[i].error;
    EXPECT_EQ(got[i].texts, want[i].texts);
    EXPECT_EQ(got[i].finish_reasons, want[i].finish_reasons);
  }
  for (const auto& b : cache.batches()) {
    EXPECT_FALSE(b.open);
    EXPECT_EQ(b.completed, 6u);
    EXPECT_EQ(b.failed, 0u);
  }
}

TEST(LlmBatchFile, AFailedLineIsCountedOnceWithItsCauseAndAskedAgainAfter) {
  FakeServer server(FakeOptions{});
  const std::string dir = temp_dir("batch-file-fail");
  const auto requests = questions(3);
  llm::Cache cache(dir + "/c.sqlite");
  llm::ClientOptions options;
  options.cache = &cache;
  auto config = fake_endpoint(server);
  config.batch = llm::BatchMode::kFile;
  config.batch_dir = dir + "/b";
  {
    llm::Client client(config, options);
    EXPECT_THROW(client.run(requests), llm::BatchPending);
  }
  const auto files = files_in(dir + "/b");
  ASSERT_EQ(files.size(), 1u);
  {
    std::ofstream out(dir + "/results.jsonl");
    out << answer_file(server, files[0], 2);
  }
  const auto summary = llm::import_into_cache(cache, {dir + "/results.jsonl"});
  EXPECT_EQ(summary.answers, 2u);
  EXPECT_EQ(summary.failures, 1u);

  llm::Client client(config, options);
  const auto got = client.run(requests);
  std::size_t failed = 0;
  for (const auto& r : got)
    if (!r.ok) {
      ++failed;
      EXPECT_EQ(r.error_kind, llm::ErrorKind::kServer);
      EXPECT_NE(r.error.find("engine died"), std::string::npos) << r.error;
      EXPECT_NE(r.error.find("results.jsonl, line 2"), std::string::npos) << r.error;
    }
  EXPECT_EQ(failed, 1u);
  const auto usage = client.accounting().total();
  EXPECT_EQ(usage.failures.at("server"), 1u);

  // The failure is not frozen: the next run writes that one request again.
  llm::Client again(config, options);
  EXPECT_THROW(again.run(requests), llm::BatchPending);
  const auto now = files_in(dir + "/b");
  ASSERT_EQ(now.size(), 2u);
  std::size_t lines = 0;
  for (const auto& f : now)
    if (f != files[0]) {
      std::istringstream in(read_text(f));
      for (std::string line; std::getline(in, line);) ++lines;
    }
  EXPECT_EQ(lines, 1u);
}

// ---- Batch APIs, against the contract fakes of OpenAI's and Anthropic's (tests/llm/fakes) ----

FakeOptions batch_fake(Flavour flavour = Flavour::kOpenAiChat) {
  FakeOptions o;
  o.flavour = flavour;
  o.model = flavour == Flavour::kVllm ? "fake-model" : "gpt-4o-mini";
  o.batch_api = true;
  o.api_key = "sk-test-batch-key-123456";
  return o;
}

llm::EndpointConfig batch_endpoint(const FakeServer& server, llm::BatchMode mode) {
  auto c = fake_endpoint(server);
  c.batch = mode;
  c.batch_poll_s = 0.01;
  c.batch_poll_max_s = 0.02;
  c.api_key_env = "PROBITY_TEST_BATCH_KEY";
  return c;
}

struct KeyEnv {
  KeyEnv() { setenv("PROBITY_TEST_BATCH_KEY", "sk-test-batch-key-123456", 1); }
  ~KeyEnv() { unsetenv("PROBITY_TEST_BATCH_KEY"); }
};

std::size_t calls_to(const FakeServer& server, const std::string& method_path) {
  std::size_t n = 0;
  for (const auto& c : server.calls())
    if (c.path == method_path) ++n;
  return n;
}

// The same requests answered online by the same server, with the batch tests' key.
std::vector<llm::Response> online_answers(const FakeServer& server,
                                          const std::vector<llm::Request>& requests) {
  auto config = fake_endpoint(server);
  config.api_key_env = "PROBITY_TEST_BATCH_KEY";
  llm::Client online(config);
  return online.run(requests);
}

TEST(LlmBatchApi, OpenAiBatchAnswersEqualTheOnlineAnswersAndAreCached) {
  KeyEnv key;
  FakeServer server(batch_fake());
  const std::string dir = temp_dir("batch-openai");
  auto requests = questions(5);
  const auto want = online_answers(server, requests);

  llm::Cache cache(dir + "/c.sqlite");
  llm::ClientOptions options;
  options.cache = &cache;
  std::vector<std::string> log;
  options.log = [&](std::string_view line) { log.emplace_back(line); };
  auto config = batch_endpoint(server, llm::BatchMode::kOpenAi);
  config.price_in = 2;
  config.price_out = 8;
  llm::Client client(config, options);
  const auto got = client.run(requests);
  ASSERT_EQ(got.size(), want.size());
  for (std::size_t i = 0; i < got.size(); ++i) {
    ASSERT_TRUE(got[i].ok) << got[i].error;
    EXPECT_EQ(got[i].texts, want[i].texts);
  }
  EXPECT_EQ(calls_to(server, "/v1/files"), 1u);
  EXPECT_EQ(calls_to(server, "/v1/batches"), 1u);
  const auto usage = client.accounting().total();
  EXPECT_EQ(usage.batches, 1u);
  EXPECT_EQ(usage.batch_requests, 5u);
  EXPECT_GE(usage.batch_polls, 3u);  // validating, in_progress, finalizing, completed
  EXPECT_GT(usage.batch_tokens_in, 0u);
  EXPECT_NEAR(usage.batch_cost_usd * 2, usage.batch_online_cost_usd, 1e-12);
  bool progress = false;
  for (const auto& l : log) progress |= l.find("completed, 0 failed") != std::string::npos;
  EXPECT_TRUE(progress);
  for (const auto& l : log) EXPECT_EQ(l.find("sk-test-batch-key"), std::string::npos) << l;
  ASSERT_EQ(cache.batches().size(), 1u);
  EXPECT_FALSE(cache.batches()[0].open);
  EXPECT_EQ(cache.batches()[0].completed, 5u);

  // Everything is cached now: another run asks nothing.
  const std::size_t before = server.count();
  llm::Client again(config, options);
  for (const auto& r : again.run(requests)) EXPECT_TRUE(r.from_cache);
  EXPECT_EQ(server.count(), before);
}

TEST(LlmBatchApi, PartialFailuresAndExpiryAreFailuresWithTheirCause) {
  KeyEnv key;
  auto o = batch_fake();
  o.batch_fail_request = 2;
  o.batch_expire_after = 4;
  FakeServer server(o);
  const std::string dir = temp_dir("batch-openai-partial");
  llm::Cache cache(dir + "/c.sqlite");
  llm::ClientOptions options;
  options.cache = &cache;
  llm::Client client(batch_endpoint(server, llm::BatchMode::kOpenAi), options);
  const auto got = client.run(questions(6));
  std::map<std::string, int> kinds;
  for (const auto& r : got)
    if (!r.ok) ++kinds[std::string(llm::error_kind_name(r.error_kind))];
  EXPECT_EQ(kinds["server"], 1);
  EXPECT_EQ(kinds["batch_expired"], 2);
  const auto usage = client.accounting().total();
  EXPECT_EQ(usage.failures.at("server"), 1u);
  EXPECT_EQ(usage.failures.at("batch_expired"), 2u);
  EXPECT_EQ(cache.size(), 3u);
}

TEST(LlmBatchApi, ARunKilledWhileItsBatchRunsPollsItWhenRerunAndSubmitsNothingNew) {
  KeyEnv key;
  auto o = batch_fake();
  o.batch_polls_per_step = 3;
  FakeServer server(o);
  const std::string dir = temp_dir("batch-resume");
  llm::Cache cache(dir + "/c.sqlite");
  const auto requests = questions(4);
  {
    llm::ClientOptions options;
    options.cache = &cache;
    int polls = 0;
    // Stopped (as Ctrl-C does) after the batch was submitted and polled once.
    options.interrupted = [&] { return ++polls > 1; };
    llm::Client client(batch_endpoint(server, llm::BatchMode::kOpenAi), options);
    EXPECT_THROW(client.run(requests), llm::Interrupted);
  }
  ASSERT_EQ(cache.batches().size(), 1u);
  EXPECT_TRUE(cache.batches()[0].open);
  EXPECT_EQ(calls_to(server, "/v1/batches"), 1u);

  llm::ClientOptions options;
  options.cache = &cache;
  llm::Client client(batch_endpoint(server, llm::BatchMode::kOpenAi), options);
  const auto got = client.run(requests);
  for (const auto& r : got) EXPECT_TRUE(r.ok) << r.error;
  EXPECT_EQ(calls_to(server, "/v1/batches"), 1u) << "the rerun submitted again";
  EXPECT_EQ(calls_to(server, "/v1/files"), 1u);
  EXPECT_EQ(client.accounting().total().batches, 0u);
  EXPECT_FALSE(cache.batches()[0].open);
}

TEST(LlmBatchApi, AnthropicMessageBatchesAnswerAsTheOnlineChatDoes) {
  KeyEnv key;
  FakeServer server(batch_fake());
  const std::string dir = temp_dir("batch-anthropic");
  auto requests = questions(3);
  const auto want = online_answers(server, requests);

  llm::Cache cache(dir + "/c.sqlite");
  llm::ClientOptions options;
  options.cache = &cache;
  llm::Client client(batch_endpoint(server, llm::BatchMode::kAnthropic), options);
  const auto got = client.run(requests);
  for (std::size_t i = 0; i < got.size(); ++i) {
    ASSERT_TRUE(got[i].ok) << got[i].error;
    EXPECT_EQ(got[i].texts, want[i].texts);
  }
  EXPECT_EQ(calls_to(server, "/v1/messages/batches"), 1u);
  bool keyed = false;
  for (const auto& c : server.calls())
    if (c.path == "/v1/messages/batches") {
      keyed = c.headers.contains("x-api-key") && c.headers.contains("anthropic-version");
      const auto body = json::parse(c.body);
      EXPECT_EQ(body["requests"].size(), 3u);
      EXPECT_TRUE(body["requests"][0]["params"].contains("max_tokens"));
    }
  EXPECT_TRUE(keyed);
}

TEST(LlmBatchApi, AProviderThatRefusesTheBatchFailsItsRequestsWithTheReason) {
  KeyEnv key;
  auto o = batch_fake();
  o.batch_max_requests = 2;  // the fake's validation limit
  FakeServer server(o);
  auto config = batch_endpoint(server, llm::BatchMode::kOpenAi);
  config.batch_max_requests = 10;  // probity believes the provider takes more
  llm::Client client(config);
  const auto got = client.run(questions(3));
  for (const auto& r : got) {
    EXPECT_FALSE(r.ok);
    EXPECT_EQ(r.error_kind, llm::ErrorKind::kBatchFailed);
    EXPECT_NE(r.error.find("too_many_tasks"), std::string::npos) << r.error;
  }
}

TEST(LlmBatchApi, RequestsAreSplitWithinTheBatchLimits) {
  KeyEnv key;
  FakeServer server(batch_fake());
  auto config = batch_endpoint(server, llm::BatchMode::kOpenAi);
  config.batch_max_requests = 2;
  llm::Client client(config);
  for (const auto& r : client.run(questions(5))) EXPECT_TRUE(r.ok) << r.error;
  EXPECT_EQ(calls_to(server, "/v1/batches"), 3u);
  EXPECT_EQ(client.accounting().total().batches, 3u);
}

TEST(LlmBatchFile, AFailureWaitsForTheRunThatReturnsItWhenTheCallStopsForAnotherFile) {
  FakeServer server(FakeOptions{});
  const std::string dir = temp_dir("batch-file-fail-kept");
  auto requests = questions(2);
  llm::Cache cache(dir + "/c.sqlite");
  llm::ClientOptions options;
  options.cache = &cache;
  auto config = fake_endpoint(server);
  config.batch = llm::BatchMode::kFile;
  config.batch_dir = dir + "/b";
  auto round = [&](const std::vector<llm::Request>& asked, std::size_t fail) {
    {
      llm::Client client(config, options);
      EXPECT_THROW(client.run(asked), llm::BatchPending);
    }
    for (const auto& f : files_in(dir + "/b")) {
      const std::string results = f + ".results";
      if (f.ends_with(".results") || std::filesystem::exists(results)) continue;
      std::ofstream(results) << answer_file(server, f, fail);
      llm::import_into_cache(cache, {results});
    }
  };
  round(requests, 1);  // the first request fails
  // A third question joins: the call stops for its file; the failure is not lost meanwhile.
  requests.push_back(chat_request("Rate answer 99"));
  round(requests, 0);
  llm::Client client(config, options);
  const auto got = client.run(requests);
  EXPECT_FALSE(got[0].ok);
  EXPECT_EQ(got[0].error_kind, llm::ErrorKind::kServer);
  EXPECT_TRUE(got[1].ok);
  EXPECT_TRUE(got[2].ok);
  EXPECT_EQ(client.accounting().total().failures.at("server"), 1u);
}

TEST(LlmBatchFile, ABatchDirectoryThatCannotBeMadeIsAnOutputErrorNamingIt) {
  FakeServer server(FakeOptions{});
  const std::string dir = temp_dir("batch-bad-dir");
  std::ofstream(dir + "/file") << "x";
  llm::Cache cache(dir + "/c.sqlite");
  llm::ClientOptions options;
  options.cache = &cache;
  auto config = fake_endpoint(server);
  config.batch = llm::BatchMode::kFile;
  config.batch_dir = dir + "/file/batches";
  llm::Client client(config, options);
  try {
    client.run(questions(1));
    FAIL() << "no OutputError";
  } catch (const OutputError& e) {
    EXPECT_EQ(e.path(), config.batch_dir);
  }
  EXPECT_TRUE(cache.batches().empty());
}

TEST(LlmBatchFile, FileModeWithoutAWrittenCacheIsAUsageError) {
  FakeServer server(FakeOptions{});
  auto config = fake_endpoint(server);
  config.batch = llm::BatchMode::kFile;
  config.batch_dir = temp_dir("batch-no-cache");
  llm::Client client(config);
  EXPECT_THROW(client.run(questions(1)), UsageError);
}

TEST(LlmBatchFile, ImportNamesTheFileLineAndFieldOfABadLineAndStoresNothingOfIt) {
  const std::string dir = temp_dir("batch-import-bad");
  llm::Cache cache(dir + "/c.sqlite");
  {
    std::ofstream out(dir + "/r.jsonl");
    out << R"({"custom_id":"a","response":{"status_code":200,"body":{"choices":[]}},"error":null})"
        << "\n{\"id\": 3}\n";
  }
  try {
    llm::import_into_cache(cache, {dir + "/r.jsonl"});
    FAIL() << "no InputError";
  } catch (const InputError& e) {
    EXPECT_EQ(e.line(), 2u);
    EXPECT_EQ(e.field(), "custom_id");
  }
  EXPECT_EQ(cache.size(), 0u);
}

TEST(LlmBatchFile, ABudgetStopsTheSubmissionBeforeAnythingIsWritten) {
  FakeServer server(FakeOptions{});
  const std::string dir = temp_dir("batch-budget");
  llm::Cache cache(dir + "/c.sqlite");
  llm::Accounting accounting;
  accounting.set_budget_usd(1e-6);
  llm::ClientOptions options;
  options.cache = &cache;
  options.accounting = &accounting;
  auto config = fake_endpoint(server);
  config.batch = llm::BatchMode::kFile;
  config.batch_dir = dir + "/b";
  config.price_in = 2.5;
  config.price_out = 10;
  llm::Client client(config, options);
  try {
    client.run(questions(4));
    FAIL() << "no BudgetExceeded";
  } catch (const llm::BudgetExceeded& e) {
    EXPECT_NE(std::string(e.what()).find("--budget-usd"), std::string::npos);
  }
  EXPECT_FALSE(std::filesystem::exists(dir + "/b"));
  EXPECT_TRUE(cache.batches().empty());
}

TEST(LlmBatchAccounting, BatchTokensCostTheBatchPricesAndTheOnlinePriceIsShown) {
  llm::Accounting a;
  llm::EndpointConfig c;
  c.name = "judge";
  c.model = "m";
  c.price_in = 2;
  c.price_out = 8;
  a.register_endpoint(c);
  llm::EndpointUsage d;
  d.tokens_in = 3'000'000;  // 1M online, 2M through batches
  d.tokens_out = 1'000'000;
  d.batch_tokens_in = 2'000'000;
  d.batch_tokens_out = 500'000;
  d.batch_requests = 10;
  d.batches = 1;
  a.add("judge", "m", d);
  const auto u = a.total();
  EXPECT_DOUBLE_EQ(u.batch_cost_usd, 2 * 1.0 + 0.5 * 4.0);
  EXPECT_DOUBLE_EQ(u.batch_online_cost_usd, 2 * 2.0 + 0.5 * 8.0);
  EXPECT_DOUBLE_EQ(u.cost_usd, 1 * 2.0 + 0.5 * 8.0 + 4.0);
  EXPECT_NE(a.summary().find("at the batch prices"), std::string::npos);
  const auto j = json::parse(a.to_json());
  EXPECT_EQ(j["endpoints"][0]["batch"]["price_in_per_mtok"], 1.0);
  EXPECT_EQ(j["total"]["batch"]["requests"], 10);
}

TEST(LlmBatchAnthropic, ChatBodiesBecomeMessagesParamsAndMessagesBecomeChatCompletions) {
  llm::EndpointConfig c;
  c.name = "judge";
  c.model = "claude-x";
  const json body = {
      {"model", "claude-x"},
      {"messages",
       {{{"role", "system"}, {"content", "Be strict."}}, {{"role", "user"}, {"content", "Rate"}}}},
      {"temperature", 0.0},
      {"max_tokens", 64},
      {"seed", 3},
      {"response_format",
       {{"type", "json_schema"},
        {"json_schema", {{"name", "a"}, {"schema", {{"type", "object"}}}, {"strict", true}}}}}};
  const json p = json::parse(llm::detail::anthropic_params(body.dump(), c));
  EXPECT_EQ(p["system"], "Be strict.");
  ASSERT_EQ(p["messages"].size(), 1u);
  EXPECT_EQ(p["messages"][0]["role"], "user");
  EXPECT_EQ(p["max_tokens"], 64);
  EXPECT_EQ(p["output_config"]["format"]["schema"], json({{"type", "object"}}));
  EXPECT_FALSE(p.contains("seed"));
  EXPECT_THROW(llm::detail::anthropic_params(json{{"prompt", "x"}}.dump(), c), UsageError);

  const json message = {
      {"id", "msg_1"},
      {"type", "message"},
      {"role", "assistant"},
      {"model", "claude-x"},
      {"content",
       {{{"type", "text"}, {"text", "{\"score\": "}}, {{"type", "text"}, {"text", "4}"}}}},
      {"stop_reason", "max_tokens"},
      {"usage",
       {{"input_tokens", 10},
        {"output_tokens", 5},
        {"cache_read_input_tokens", 4},
        {"cache_creation_input_tokens", 0}}}};
  const json chat = json::parse(llm::detail::openai_body_of_message(message.dump()));
  EXPECT_EQ(chat["choices"][0]["message"]["content"], "{\"score\": 4}");
  EXPECT_EQ(chat["choices"][0]["finish_reason"], "length");
  EXPECT_EQ(chat["usage"]["prompt_tokens"], 14);
  EXPECT_EQ(chat["usage"]["prompt_tokens_details"]["cached_tokens"], 4);
  llm::Response r;
  llm::Request request = chat_request("Rate");
  ASSERT_TRUE(llm::detail::parse_success(request, chat.dump(), r)) << r.error;
  EXPECT_EQ(r.text(), "{\"score\": 4}");
}

TEST(LlmCacheTools, ExportImportAndMergeCarryEveryAnswerAndTheBatchRecords) {
  const std::string dir = temp_dir("cache-tools");
  {
    llm::Cache a(dir + "/a.sqlite");
    a.put_many({{"k1", "{\"x\":1}"}, {"k2", "{\"x\":2}"}});
    llm::Cache::BatchRecord r;
    r.id = "batch_1";
    r.provider = "openai";
    r.keys = {"k1"};
    r.open = true;
    r.created = 5;
    a.put_batch(r);
    llm::Cache b(dir + "/b.sqlite");
    b.put_many({{"k2", "{\"x\":\"other\"}"}, {"k3", "{\"x\":3}"}});
  }
  llm::Cache merged(dir + "/m.sqlite");
  const auto s = llm::merge_caches(merged, {dir + "/a.sqlite", dir + "/b.sqlite"});
  EXPECT_EQ(s.read, 4u);
  EXPECT_EQ(s.written, 3u);  // k2 kept from the first
  EXPECT_EQ(*merged.get("k2"), "{\"x\":2}");
  ASSERT_EQ(merged.batches().size(), 1u);
  EXPECT_EQ(merged.batches()[0].keys, std::vector<std::string>{"k1"});

  EXPECT_EQ(llm::export_cache(merged, dir + "/e.jsonl"), 3u);
  llm::Cache fresh(dir + "/f.sqlite");
  const auto imported = llm::import_into_cache(fresh, {dir + "/e.jsonl"});
  EXPECT_EQ(imported.answers, 3u);
  EXPECT_EQ(*fresh.get("k3"), "{\"x\":3}");
  const auto stats = llm::cache_stats(fresh);
  EXPECT_EQ(stats.entries, 3u);
}

TEST(LlmBatchConfig, BatchKeysAreReadPerRoleAndTheFlagsOverrideTheDefault) {
  const auto config = llm::parse_config(R"(
[llm]
budget_usd = 12.5
[llm.default]
base_url = "http://127.0.0.1:1/v1"
model = "m"
[llm.judge]
batch = "anthropic"
price_batch_in = 1.5
batch_poll = 2
)",
                                        "p.toml");
  EXPECT_EQ(config.budget_usd, 12.5);
  EXPECT_EQ(config.endpoint("judge").batch, llm::BatchMode::kAnthropic);
  EXPECT_EQ(config.endpoint("judge").price_batch_in, 1.5);
  EXPECT_EQ(config.endpoint("judge").batch_poll_s, 2);
  EXPECT_EQ(config.endpoint("oracle").batch, llm::BatchMode::kOff);
  auto with_flags = config;
  llm::CliOverrides o;
  o.batch = llm::BatchMode::kFile;
  o.batch_dir = "d";
  llm::apply_cli_overrides(with_flags, o);
  EXPECT_EQ(with_flags.endpoint("oracle").batch, llm::BatchMode::kFile);
  EXPECT_EQ(with_flags.endpoint("judge").batch, llm::BatchMode::kAnthropic);
  EXPECT_THROW(llm::parse_config("[llm.judge]\nbatch = \"fax\"\n", "p.toml"), llm::ConfigError);
}

}  // namespace
}  // namespace probity::test
