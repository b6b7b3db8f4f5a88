#include <gtest/gtest.h>

#include <algorithm>
#include <atomic>
#include <cstdlib>
#include <filesystem>
#include <mutex>
#include <thread>

#include "llm/llm_test_util.hpp"
#include "llm/mock_server.hpp"
#include "probity/llm.hpp"
#include "test_paths.hpp"

namespace probity::test {
namespace {

using llm::Client;
using llm::Endpoint;
using llm::ErrorKind;
using llm::Request;
using llm::Response;
using nlohmann::json;

std::string last_content(const json& request) {
  return request["messages"].back()["content"].get<std::string>();
}

TEST(LlmClient, ChatAnswersInInputOrderWithUsage) {
  MockServer server;
  server.set_handler([](const json& r) { return "re: " + last_content(r); });
  server.set_latency_ms(5);
  auto config = mock_endpoint(server);
  config.concurrency = 8;
  Client client(config);
  std::vector<Request> requests;
  for (int i = 0; i < 40; ++i) requests.push_back(chat_request("item " + std::to_string(i)));
  const auto responses = client.run(requests);
  ASSERT_EQ(responses.size(), 40u);
  for (int i = 0; i < 40; ++i) {
    const Response& r = responses[static_cast<std::size_t>(i)];
    ASSERT_TRUE(r.ok) << r.error;
    EXPECT_EQ(r.status, 200);
    EXPECT_EQ(r.text(), "re: item " + std::to_string(i));
    EXPECT_EQ(r.finish_reasons, std::vector<std::string>{"stop"});
    EXPECT_TRUE(r.usage.present);
    EXPECT_EQ(r.usage.prompt_tokens, 2);      // "item i"
    EXPECT_EQ(r.usage.completion_tokens, 3);  // "re: item i"
    EXPECT_EQ(r.attempts, 1);
    EXPECT_FALSE(r.from_cache);
    EXPECT_GT(r.latency_s, 0.0);
    EXPECT_EQ(r.error_kind, ErrorKind::kNone);
  }
  EXPECT_EQ(server.count("/v1/chat/completions"), 40u);
  // What went on the wire.
  const json body = json::parse(server.calls().front().body);
  EXPECT_EQ(body["model"], "mock-model");
  EXPECT_EQ(body["temperature"], 0.0);
  EXPECT_FALSE(body.contains("seed"));
  EXPECT_FALSE(body.contains("n"));
}

// A server without structured output (hosted models reject unknown parameters) still answers:
// the first rejection is noted, that request goes again at once without the field, and so does
// every later one; nothing counts as failed.
TEST(LlmClient, ARejectedSchemaIsSentAgainWithoutAndNotedInTheUsage) {
  MockServer server;
  server.set_fault_rule([](const json& r) -> std::optional<MockFault> {
    if (r.contains("response_format"))
      return MockFault::rejection(400, "Unrecognized request argument supplied: response_format");
    return std::nullopt;
  });
  server.set_handler([](const json&) { return R"({"rating": 3})"; });
  auto config = mock_endpoint(server);
  config.concurrency = 1;
  Client client(config);
  std::vector<Request> requests;
  for (int i = 0; i < 5; ++i) {
    requests.push_back(chat_request("item " + std::to_string(i)));
    requests.back().schema = R"({"type": "object"})";
  }
  const std::string key = client.key(requests[0]);
  const auto responses = client.run(requests);
  for (const auto& r : responses) {
    ASSERT_TRUE(r.ok) << r.error;
    EXPECT_EQ(r.text(), R"({"rating": 3})");
  }
  EXPECT_EQ(server.count("/v1/chat/completions"), 6u);  // one rejection, then five without
  EXPECT_EQ(server.calls()[0].status, 400);
  for (std::size_t k = 1; k < 6; ++k)
    EXPECT_FALSE(json::parse(server.calls()[k].body).contains("response_format"));
  const auto usage = client.accounting().total();
  EXPECT_EQ(usage.unstructured, 5u);
  EXPECT_TRUE(usage.failures.empty());
  EXPECT_NE(usage.structured_rejection.find("response_format"), std::string::npos);
  const std::string summary = client.accounting().summary();
  EXPECT_NE(summary.find("the server rejected it"), std::string::npos) << summary;
  EXPECT_NE(summary.find("5 requests were sent without it"), std::string::npos) << summary;
  // The cache key is the configured request's: a re-run finds the answers whatever was sent.
  EXPECT_EQ(client.key(requests[0]), key);
  EXPECT_NE(client.signature().find("structured:schema"), std::string::npos);
}

TEST(LlmClient, ConvenienceCallsAndChoices) {
  MockServer server;
  server.set_handler([](const json&) { return "one two three four"; });
  auto config = mock_endpoint(server);
  config.max_tokens = 2;
  config.seed = 7;
  Client client(config);
  Response r = client.chat({{"system", "be brief"}, {"user", "hello"}});
  ASSERT_TRUE(r.ok) << r.error;
  EXPECT_EQ(r.text(), "one two");
  EXPECT_EQ(r.finish_reasons.front(), "length");
  EXPECT_EQ(r.usage.prompt_tokens, 3);
  const json body = json::parse(server.calls().back().body);
  EXPECT_EQ(body["max_tokens"], 2);
  EXPECT_EQ(body["seed"], 7);

  Request multi = chat_request("x");
  multi.n = 3;
  r = client.call(multi);
  ASSERT_TRUE(r.ok) << r.error;
  EXPECT_EQ(r.texts.size(), 3u);
  EXPECT_EQ(r.usage.completion_tokens, 6);

  r = client.completion("complete this");
  ASSERT_TRUE(r.ok) << r.error;
  EXPECT_EQ(r.text(), "one two");
  EXPECT_EQ(server.calls().back().path, "/v1/completions");
}

TEST(LlmClient, ProgressReachesTotal) {
  MockServer server;
  Client client(mock_endpoint(server));
  auto requests = distinct_requests(12, "p");
  std::vector<std::size_t> seen;
  client.run(requests, [&](std::size_t done, std::size_t total) {
    EXPECT_EQ(total, 12u);
    seen.push_back(done);
  });
  ASSERT_FALSE(seen.empty());
  EXPECT_TRUE(std::is_sorted(seen.begin(), seen.end()));
  EXPECT_EQ(seen.back(), 12u);
}

TEST(LlmClient, IdenticalRequestsInABatchAreSentOnce) {
  MockServer server;
  server.set_handler([](const json& r) { return "re: " + last_content(r); });
  Client client(mock_endpoint(server));
  std::vector<Request> requests = {chat_request("a"), chat_request("b"), chat_request("a"),
                                   chat_request("a", 1), chat_request("b")};
  std::size_t last = 0;
  const auto out = client.run(requests, [&](std::size_t done, std::size_t) { last = done; });
  EXPECT_EQ(last, 5u);
  EXPECT_EQ(server.count(), 3u);  // "a", "b" and sample 1 of "a"
  for (const auto& r : out) ASSERT_TRUE(r.ok) << r.error;
  EXPECT_EQ(out[2].text(), "re: a");
  EXPECT_EQ(out[4].text(), "re: b");
  EXPECT_EQ(client.accounting().total().answers, 5u);
}

TEST(LlmClient, RetriesOn429HonouringRetryAfter) {
  MockServer server;
  server.push_fault(MockFault::http(429, "1"));
  Client client(mock_endpoint(server));
  const Response r = client.call(chat_request("hi"));
  ASSERT_TRUE(r.ok) << r.error;
  EXPECT_EQ(r.attempts, 2);
  const auto calls = server.calls();
  ASSERT_EQ(calls.size(), 2u);
  EXPECT_EQ(calls[0].status, 429);
  // The retry went out no earlier than the server asked (the backoff alone is ≤ 50 ms).
  EXPECT_GE(calls[1].start_s - calls[0].end_s, 1.0);
  EXPECT_EQ(client.accounting().total().retries, 1u);
}

TEST(LlmClient, RetriesOnServerErrors) {
  MockServer server;
  server.push_fault(MockFault::http(500));
  server.push_fault(MockFault::http(503));
  server.push_fault(MockFault::http(502));
  Client client(mock_endpoint(server));
  const Response r = client.call(chat_request("hi"));
  ASSERT_TRUE(r.ok) << r.error;
  EXPECT_EQ(r.attempts, 4);
  EXPECT_EQ(r.text(), "ok");
  EXPECT_TRUE(r.error.empty());
}

TEST(LlmClient, RetriesOnTimeout) {
  MockServer server;
  server.push_fault(MockFault::delay(700));
  auto config = mock_endpoint(server);
  config.timeout_s = 0.2;
  Client client(config);
  const auto t0 = std::chrono::steady_clock::now();
  const Response r = client.call(chat_request("hi"));
  ASSERT_TRUE(r.ok) << r.error;
  EXPECT_EQ(r.attempts, 2);
  EXPECT_LT(elapsed_since(t0), 0.6);  // the slow attempt was abandoned, not awaited
}

TEST(LlmClient, FailsAfterMaxAttemptsWithTheError) {
  MockServer server;
  for (int i = 0; i < 3; ++i) server.push_fault(MockFault::http(500));
  auto config = mock_endpoint(server);
  config.max_attempts = 3;
  Client client(config);
  const Response r = client.call(chat_request("hi"));
  EXPECT_FALSE(r.ok);
  EXPECT_EQ(r.error_kind, ErrorKind::kServer);
  EXPECT_EQ(r.status, 500);
  EXPECT_EQ(r.attempts, 3);
  EXPECT_NE(r.error.find("mock fault: HTTP 500"), std::string::npos) << r.error;
  EXPECT_NE(r.error.find("after 3 attempts"), std::string::npos) << r.error;
  EXPECT_TRUE(r.texts.empty());  // never a default answer
  EXPECT_EQ(server.count(), 3u);
  const auto total = client.accounting().total();
  EXPECT_EQ(total.failures.at("server"), 1u);
  EXPECT_EQ(total.retries, 2u);
  EXPECT_EQ(total.requests, 3u);
}

TEST(LlmClient, TimeoutOnEveryAttemptIsReported) {
  MockServer server;
  server.set_fault_rule([](const json&) { return MockFault::delay(400); });
  auto config = mock_endpoint(server);
  config.timeout_s = 0.1;
  config.max_attempts = 2;
  Client client(config);
  const Response r = client.call(chat_request("hi"));
  EXPECT_FALSE(r.ok);
  EXPECT_EQ(r.error_kind, ErrorKind::kTimeout);
  EXPECT_EQ(r.attempts, 2);
  EXPECT_EQ(r.status, 0);
  EXPECT_NE(r.error.find("Timeout"), std::string::npos) << r.error;
}

TEST(LlmClient, NonRetryable4xxFailsAtOnce) {
  MockServer server({64, "mock-model", ""});
  server.push_fault(MockFault::http(400));
  Client client(mock_endpoint(server));
  Response r = client.call(chat_request("hi"));
  EXPECT_FALSE(r.ok);
  EXPECT_EQ(r.error_kind, ErrorKind::kInvalidRequest);
  EXPECT_EQ(r.status, 400);
  EXPECT_EQ(r.attempts, 1);
  EXPECT_EQ(r.error, "HTTP 400: mock fault: HTTP 400");
  EXPECT_EQ(server.count(), 1u);

  auto wrong = mock_endpoint(server);
  wrong.model = "no-such-model";
  Client other(wrong);
  r = other.call(chat_request("hi"));
  EXPECT_FALSE(r.ok);
  EXPECT_EQ(r.status, 404);
  EXPECT_EQ(r.attempts, 1);
  EXPECT_NE(r.error.find("The model `no-such-model` does not exist."), std::string::npos)
      << r.error;
}

TEST(LlmClient, MalformedJsonFailsWithAClearError) {
  MockServer server;
  server.push_fault(MockFault::of(MockFault::Kind::kMalformed));
  server.push_fault(MockFault::of(MockFault::Kind::kTruncated));
  auto config = mock_endpoint(server);
  config.max_attempts = 2;
  Client client(config);
  Response r = client.call(chat_request("hi"));
  EXPECT_FALSE(r.ok);
  EXPECT_EQ(r.error_kind, ErrorKind::kMalformed);
  EXPECT_EQ(r.status, 200);
  EXPECT_NE(r.error.find("malformed JSON in the answer"), std::string::npos) << r.error;
  EXPECT_TRUE(r.texts.empty());

  // A garbled body once is transient: the retry succeeds.
  server.push_fault(MockFault::of(MockFault::Kind::kMalformed));
  r = client.call(chat_request("hi"));
  ASSERT_TRUE(r.ok) << r.error;
  EXPECT_EQ(r.attempts, 2);
}

TEST(LlmClient, EmptyContentIsAnAnswerNotAFailure) {
  MockServer server;
  server.push_fault(MockFault::of(MockFault::Kind::kEmptyContent));
  Client client(mock_endpoint(server));
  const Response r = client.call(chat_request("hi"));
  ASSERT_TRUE(r.ok) << r.error;
  EXPECT_EQ(r.text(), "");
  EXPECT_EQ(r.finish_reasons.front(), "length");
  EXPECT_EQ(r.attempts, 1);
}

TEST(LlmClient, DroppedConnectionsAreRetriedThenReported) {
  MockServer server;
  server.push_fault(MockFault::of(MockFault::Kind::kClose));
  auto config = mock_endpoint(server);
  config.max_attempts = 2;
  Client client(config);
  Response r = client.call(chat_request("hi"));
  ASSERT_TRUE(r.ok) << r.error;
  EXPECT_EQ(r.attempts, 2);

  server.push_fault(MockFault::of(MockFault::Kind::kClose));
  server.push_fault(MockFault::of(MockFault::Kind::kClose));
  r = client.call(chat_request("again"));
  EXPECT_FALSE(r.ok);
  EXPECT_EQ(r.error_kind, ErrorKind::kConnection);
  EXPECT_FALSE(r.error.empty());
}

TEST(LlmClient, ConnectionRefusedIsAConnectionError) {
  int port = 0;
  {
    MockServer gone;
    port = gone.port();
  }
  llm::EndpointConfig config;
  config.base_url = "http://127.0.0.1:" + std::to_string(port) + "/v1";
  config.model = "m";
  config.max_attempts = 2;
  config.backoff_base_s = 0.01;
  Client client(config);
  const Response r = client.call(chat_request("hi"));
  EXPECT_FALSE(r.ok);
  EXPECT_EQ(r.error_kind, ErrorKind::kConnection);
  EXPECT_EQ(r.attempts, 2);
  EXPECT_NE(r.error.find("onnect"), std::string::npos) << r.error;
}

TEST(LlmClient, UnusableUrlsAreUsageErrors) {
  llm::EndpointConfig config;
  config.model = "m";
  for (const char* url : {"nosuchscheme://127.0.0.1/v1", "ftp://127.0.0.1/v1", "127.0.0.1:8000"}) {
    config.base_url = url;
    try {
      Client client(config);
      ADD_FAILURE() << url;
    } catch (const UsageError& e) {
      EXPECT_NE(std::string(e.what()).find("must start with http:// or https://"),
                std::string::npos)
          << e.what();
    }
  }
  config.base_url = "http://127.0.0.1:1/v1";
  config.model.clear();  // would be sent as nothing: no signature could say which model ran
  EXPECT_THROW(Client c(config), UsageError);
  config.model = "m";
  config.timeout_s = 1e308;  // "no timeout" in disguise
  EXPECT_THROW(Client c(config), UsageError);
}

TEST(LlmClient, ConcurrencyLimitHonoured) {
  MockServer server;
  server.set_latency_ms(25);
  auto config = mock_endpoint(server);
  config.concurrency = 4;
  Client client(config);
  auto requests = distinct_requests(24, "c");
  const auto t0 = std::chrono::steady_clock::now();
  const auto responses = client.run(requests);
  const double elapsed = elapsed_since(t0);
  for (const auto& r : responses) ASSERT_TRUE(r.ok) << r.error;
  EXPECT_LE(server.max_in_flight(), 4);
  EXPECT_GE(server.max_in_flight(), 3);  // and it did run requests in parallel
  EXPECT_GE(elapsed, 6 * 0.025 * 0.95);
}

TEST(LlmClient, ConcurrentCallersShareTheLimit) {
  MockServer server;
  server.set_latency_ms(10);
  auto config = mock_endpoint(server);
  config.concurrency = 2;
  Client client(config);
  std::atomic<int> ok{0};
  std::vector<std::thread> threads;
  for (int t = 0; t < 4; ++t)
    threads.emplace_back([&, t] {
      std::vector<Request> requests;
      for (int i = 0; i < 5; ++i)
        requests.push_back(chat_request(std::to_string(t) + "/" + std::to_string(i)));
      for (const auto& r : client.run(requests)) ok += r.ok ? 1 : 0;
    });
  for (auto& th : threads) th.join();
  EXPECT_EQ(ok.load(), 20);
  EXPECT_LE(server.max_in_flight(), 2);
}

TEST(LlmClient, RequestsPerPeriodLimitHonoured) {
  MockServer server;
  auto config = mock_endpoint(server);
  config.rpm = 10;  // 10 per 0.5 s: a burst of 10, then one every 50 ms
  config.rate_period_s = 0.5;
  Client client(config);
  auto requests = distinct_requests(25, "r");
  const auto t0 = std::chrono::steady_clock::now();
  for (const auto& r : client.run(requests)) ASSERT_TRUE(r.ok) << r.error;
  const double elapsed = elapsed_since(t0);
  EXPECT_GE(elapsed, 0.7);
  EXPECT_LT(elapsed, 2.0);
  std::vector<double> starts;
  for (const auto& c : server.calls()) starts.push_back(c.start_s);
  std::sort(starts.begin(), starts.end());
  // Token bucket (capacity 10, 20/s): after the burst of 10, one start every 50 ms. Server-side
  // times jitter by a few ms each; unlimited, all 25 would start within milliseconds.
  ASSERT_EQ(starts.size(), 25u);
  EXPECT_GE(starts[24] - starts[12], 12 * 0.05 - 0.05);
}

TEST(LlmClient, TokensPerPeriodLimitHonoured) {
  MockServer server;
  server.set_handler([](const json&) {
    std::string s;
    for (int i = 0; i < 100; ++i) s += "w ";
    return s;
  });
  auto config = mock_endpoint(server);
  config.max_tokens = 100;
  config.tpm = 202;  // estimate per request: 1 prompt + 100 completion tokens
  config.rate_period_s = 0.5;
  Client client(config);
  auto requests = distinct_requests(5, "x");
  const auto t0 = std::chrono::steady_clock::now();
  for (const auto& r : client.run(requests)) {
    ASSERT_TRUE(r.ok) << r.error;
    EXPECT_EQ(r.usage.prompt_tokens + r.usage.completion_tokens, 101);
  }
  // Two fit the bucket; three more at 404 tokens/s take 3 * 0.25 s.
  EXPECT_GE(elapsed_since(t0), 0.7);
}

TEST(LlmClient, TokenEstimatesAreCorrectedByUsage) {
  MockServer server;  // answers "ok": 1 completion token, far below the estimate
  auto config = mock_endpoint(server);
  config.max_tokens = 1000;
  config.tpm = 1000;  // one estimated request empties the bucket for a whole period
  config.rate_period_s = 1;
  config.concurrency = 1;
  Client client(config);
  auto requests = distinct_requests(8, "x");
  const auto t0 = std::chrono::steady_clock::now();
  for (const auto& r : client.run(requests)) ASSERT_TRUE(r.ok) << r.error;
  // Without the refund from `usage` this would take about 7 s.
  EXPECT_LT(elapsed_since(t0), 0.8);
}

TEST(LlmClient, ExtraBodyFieldsAreSent) {
  MockServer server;
  auto config = mock_endpoint(server);
  config.extra_body = R"({"top_p": 0.5, "temperature": 0.3, "stop": ["x"]})";
  Client client(config);
  Request r = chat_request("x");
  r.extra = R"({"stop": ["\n"]})";
  ASSERT_TRUE(client.call(r).ok);
  const json body = json::parse(server.calls().back().body);
  EXPECT_EQ(body["top_p"], 0.5);
  EXPECT_EQ(body["temperature"], 0.0);           // probity's own field is never replaced
  EXPECT_EQ(body["stop"], json::array({"\n"}));  // the request's extra beats extra_body
  // extra_body belongs to generation requests: a tokenize body stays as the server reads it.
  Request tok;
  tok.endpoint = Endpoint::kTokenize;
  tok.prompt = "x";
  ASSERT_TRUE(client.call(tok).ok);
  EXPECT_FALSE(json::parse(server.calls().back().body).contains("top_p"));
  r.extra = "[1, 2]";
  EXPECT_THROW(client.run({r}), std::invalid_argument);
  config.extra_body = "not json";
  EXPECT_THROW(Client bad(config), UsageError);
}

TEST(LlmClient, InvalidSettingsAreUsageErrors) {
  llm::EndpointConfig config;
  config.model = "m";
  EXPECT_THROW(Client c(config), UsageError);  // no base_url
  config.base_url = "http://127.0.0.1:1/v1";
  config.concurrency = 513;
  EXPECT_THROW(Client c(config), UsageError);
  config.concurrency = 16;
  config.api_key_env = "PROBITY_TEST_UNSET_KEY_VARIABLE";
  unsetenv("PROBITY_TEST_UNSET_KEY_VARIABLE");
  try {
    Client c(config);
    FAIL() << "expected a UsageError";
  } catch (const UsageError& e) {
    EXPECT_NE(std::string(e.what()).find("PROBITY_TEST_UNSET_KEY_VARIABLE"), std::string::npos);
  }
}

TEST(LlmClient, ApiKeyIsSentButNeverWrittenAnywhere) {
  const std::string secret = "sk-probity-test-5e3f9a7c1d2b4e6f";
  setenv("PROBITY_TEST_API_KEY", secret.c_str(), 1);
  MockServer server({64, "", secret});
  server.set_handler(
      [](const json& r) { return r.contains("messages") ? "echo " + last_content(r) : "done"; });
  const std::string dir = temp_dir("llm-key");
  const std::string cache_path = dir + "/cache.sqlite";
  std::vector<std::string> log;
  std::mutex log_mutex;
  llm::Accounting accounting;
  std::vector<Response> responses;
  std::string signature, key;
  {
    llm::Cache cache(cache_path);
    auto config = mock_endpoint(server, "judge");
    config.api_key_env = "PROBITY_TEST_API_KEY";
    config.max_attempts = 2;
    llm::ClientOptions options;
    options.cache = &cache;
    options.accounting = &accounting;
    options.log = [&](std::string_view line) {
      std::lock_guard lock(log_mutex);
      log.emplace_back(line);
    };
    Client client(config, options);
    server.push_fault(MockFault::http(500));  // a retry and a log line
    server.push_fault(MockFault::http(400));  // a failure and a log line
    std::vector<Request> requests;
    for (int i = 0; i < 6; ++i) requests.push_back(chat_request("q" + std::to_string(i)));
    Request logprobs;
    logprobs.endpoint = Endpoint::kCompletion;
    logprobs.prompt = "a b a";
    logprobs.prompt_logprobs = 1;
    requests.push_back(logprobs);
    responses = client.run(requests);
    signature = client.signature();
    key = client.key(requests.front());
  }
  // It did reach the server, in the Authorization header of every request.
  for (const auto& c : server.calls()) EXPECT_EQ(c.authorization, "Bearer " + secret);
  EXPECT_FALSE(log.empty());
  std::size_t failed = 0;
  for (const auto& r : responses) {
    failed += r.ok ? 0 : 1;
    for (const auto& t : r.texts) EXPECT_EQ(t.find(secret), std::string::npos);
    EXPECT_EQ(r.error.find(secret), std::string::npos);
    EXPECT_EQ(r.body.find(secret), std::string::npos);
  }
  EXPECT_EQ(failed, 1u);
  for (const auto& line : log) EXPECT_EQ(line.find(secret), std::string::npos) << line;
  EXPECT_EQ(accounting.to_json().find(secret), std::string::npos);
  EXPECT_EQ(accounting.summary().find(secret), std::string::npos);
  EXPECT_EQ(signature.find(secret), std::string::npos);
  EXPECT_EQ(key.find(secret), std::string::npos);
  // Every file the cache wrote (database, WAL, shared memory).
  std::size_t files = 0;
  for (const auto& entry : std::filesystem::directory_iterator(dir)) {
    ++files;
    EXPECT_EQ(read_file(entry.path().string()).find(secret), std::string::npos) << entry.path();
  }
  EXPECT_GE(files, 1u);
  llm::Cache reopened(cache_path);
  EXPECT_EQ(reopened.size(), 6u);

  // A wrong key is refused by the server; the error names no key either.
  setenv("PROBITY_TEST_API_KEY", "sk-wrong-key-0000", 1);
  auto config = mock_endpoint(server);
  config.api_key_env = "PROBITY_TEST_API_KEY";
  Client wrong(config);
  const Response r = wrong.call(chat_request("x"));
  EXPECT_EQ(r.status, 401);
  EXPECT_EQ(r.error.find("sk-wrong-key-0000"), std::string::npos);
  unsetenv("PROBITY_TEST_API_KEY");
}

TEST(LlmClient, RedactsTheKeyIfAServerEchoesIt) {
  const std::string secret = "sk-echoed-secret-value-42";
  setenv("PROBITY_TEST_ECHO_KEY", secret.c_str(), 1);
  MockServer server;
  auto config = mock_endpoint(server);
  config.api_key_env = "PROBITY_TEST_ECHO_KEY";
  Client client(config);
  // The answer carries the key, as a misbehaving proxy might.
  server.set_handler([&](const json&) { return "key " + secret; });
  const Response r = client.call(chat_request("y"));
  ASSERT_TRUE(r.ok) << r.error;
  EXPECT_EQ(r.text(), "key [redacted]");
  EXPECT_EQ(r.body.find(secret), std::string::npos);
  unsetenv("PROBITY_TEST_ECHO_KEY");
}

TEST(LlmClient, PromptLogprobsVllmFormat) {
  MockServer server;
  Client client(mock_endpoint(server));
  Request r;
  r.endpoint = Endpoint::kCompletion;
  r.prompt = "a b a c";
  r.max_tokens = 0;
  r.prompt_logprobs = 1;
  const Response resp = client.call(r);
  ASSERT_TRUE(resp.ok) << resp.error;
  ASSERT_TRUE(resp.has_prompt_logprobs);
  ASSERT_EQ(resp.prompt_logprobs.size(), 4u);
  EXPECT_FALSE(resp.prompt_logprobs[0].logprob.has_value());
  const std::vector<std::string> tokens = {"a", "b", "a", "c"};
  const std::vector<double> expected = {0, -5.0, -1.0, -5.0};
  for (std::size_t i = 1; i < 4; ++i) {
    EXPECT_EQ(resp.prompt_logprobs[i].token, tokens[i]);
    EXPECT_EQ(resp.prompt_logprobs[i].logprob, expected[i]);
    EXPECT_EQ(resp.prompt_logprobs[i].id, server.token_id(tokens[i]));
    ASSERT_EQ(resp.prompt_logprobs[i].top.size(), 2u);  // itself and the alternative "the"
    EXPECT_EQ(resp.prompt_logprobs[i].top[1].first, "the");
  }
  // Chat: the values come back at the top level of the answer.
  Request chat = chat_request("x y");
  chat.messages.push_back({"assistant", "y z"});
  chat.prompt_logprobs = 0;
  chat.max_tokens = 1;
  const Response c = client.call(chat);
  ASSERT_TRUE(c.ok) << c.error;
  ASSERT_EQ(c.prompt_logprobs.size(), 4u);
  EXPECT_EQ(c.prompt_logprobs[2].logprob, -1.0);  // "y" again
  EXPECT_EQ(c.prompt_logprobs[3].logprob, -5.0);  // "z"
}

TEST(LlmClient, PromptLogprobsLegacyEchoFormatAndPmi) {
  MockServer server;
  server.set_handler([](const json&) { return "mat"; });
  Client client(mock_endpoint(server));
  auto score = [&](const std::string& prompt) {
    Request r;
    r.endpoint = Endpoint::kCompletion;
    r.prompt = prompt;
    r.echo = true;
    r.logprobs = 1;
    r.max_tokens = 1;
    return client.call(r);
  };
  // log p(y | x) with x = "the cat", y = "cat sat", and log p(y) with the prefix token "the".
  const Response joint = score("the cat cat sat");
  const Response alone = score("the cat sat");
  ASSERT_TRUE(joint.ok) << joint.error;
  ASSERT_TRUE(alone.ok) << alone.error;
  ASSERT_TRUE(joint.has_prompt_logprobs);
  ASSERT_EQ(joint.prompt_logprobs.size(), 4u);  // the generated token is cut off
  ASSERT_EQ(joint.logprobs.size(), 1u);
  EXPECT_EQ(joint.logprobs[0].token, "mat");
  EXPECT_EQ(joint.logprobs[0].logprob, -5.0);
  EXPECT_FALSE(joint.prompt_logprobs[0].logprob);
  auto sum = [](const Response& r, std::size_t from) {
    double s = 0;
    for (std::size_t i = from; i < r.prompt_logprobs.size(); ++i)
      s += *r.prompt_logprobs[i].logprob;
    return s;
  };
  const double log_p_y_x = sum(joint, 2);  // "cat" seen (-1), "sat" new (-5)
  const double log_p_y = sum(alone, 1);    // "cat" new (-5), "sat" new (-5)
  EXPECT_DOUBLE_EQ(log_p_y_x, -6.0);
  EXPECT_DOUBLE_EQ(log_p_y, -10.0);
  EXPECT_DOUBLE_EQ(log_p_y_x - log_p_y, 4.0);

  // By token ids (no boundary drift): the prompt length is the id count.
  const auto ids = client.tokenize("the cat cat sat");
  ASSERT_EQ(ids.size(), 4u);
  Request by_ids;
  by_ids.endpoint = Endpoint::kCompletion;
  by_ids.prompt_tokens = ids;
  by_ids.echo = true;
  by_ids.logprobs = 0;
  by_ids.max_tokens = 1;
  const Response r = client.call(by_ids);
  ASSERT_TRUE(r.ok) << r.error;
  ASSERT_EQ(r.prompt_logprobs.size(), 4u);
  EXPECT_DOUBLE_EQ(sum(r, 2), -6.0);
  EXPECT_EQ(json::parse(server.calls().back().body)["prompt"], json(ids));
}

TEST(LlmClient, ChatGeneratedTokenLogprobs) {
  MockServer server;
  server.set_handler([](const json&) { return "yes yes no"; });
  Client client(mock_endpoint(server));
  Request r = chat_request("answer yes or no");
  r.logprobs = 2;
  const Response resp = client.call(r);
  ASSERT_TRUE(resp.ok) << resp.error;
  EXPECT_FALSE(resp.has_prompt_logprobs);
  ASSERT_EQ(resp.logprobs.size(), 3u);
  EXPECT_EQ(resp.logprobs[0].token, "yes");
  EXPECT_EQ(resp.logprobs[0].logprob, -1.0);  // "yes" was in the prompt
  EXPECT_EQ(resp.logprobs[2].logprob, -1.0);
  ASSERT_EQ(resp.logprobs[0].top.size(), 1u);
  const json body = json::parse(server.calls().back().body);
  EXPECT_EQ(body["logprobs"], true);
  EXPECT_EQ(body["top_logprobs"], 2);
}

TEST(LlmClient, Tokenize) {
  MockServer server;
  Client client(mock_endpoint(server));
  const auto ids = client.tokenize("x y x");
  ASSERT_EQ(ids.size(), 3u);
  EXPECT_EQ(ids[0], ids[2]);
  EXPECT_NE(ids[0], ids[1]);
  EXPECT_EQ(server.calls().back().path, "/tokenize");
  Request chat;
  chat.endpoint = Endpoint::kTokenize;
  chat.messages = {{"user", "x"}, {"assistant", "y z"}};
  chat.extra = R"({"return_token_strs": true})";
  const Response r = client.call(chat);
  ASSERT_TRUE(r.ok) << r.error;
  EXPECT_EQ(r.tokens.size(), 3u);
  EXPECT_EQ(r.token_strs, (std::vector<std::string>{"x", "y", "z"}));

  auto config = mock_endpoint(server);
  config.base_url = "http://127.0.0.1:" + std::to_string(server.port()) + "/nothing/v1";
  Client elsewhere(config);
  EXPECT_THROW(elsewhere.tokenize("x"), std::runtime_error);
}

}  // namespace
}  // namespace probity::test
