// LLM failures are diagnosable and reflected in the exit code:
// server messages kept per kind, TLS and auth errors not retried, a circuit breaker for dead or
// hanging servers, a size cap on answers, keys never printed even when escaped.
#include <gtest/gtest.h>
#include <httplib.h>

#include <chrono>
#include <filesystem>
#include <nlohmann/json.hpp>
#include <thread>

#include "cli_runner.hpp"
#include "llm/llm_test_util.hpp"
#include "test_paths.hpp"

namespace probity::test {
namespace {

using llm::Client;
using llm::ErrorKind;
using nlohmann::json;

std::string sample() {
  return data_path("summeval/summeval_sample20.jsonl");
}

double since(std::chrono::steady_clock::time_point t0) {
  return std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
}

// A server that answers every request with a fixed status and raw body.
class RawServer {
 public:
  RawServer(int status, std::string body) : status_(status), body_(std::move(body)) {
    server_.set_tcp_nodelay(true);  // no 40 ms delayed-ACK stalls per request
    // A thread per kept-alive connection: the client keeps up to 16 open.
    server_.new_task_queue = [] { return new httplib::ThreadPool(32); };
    server_.Post(".*", [this](const httplib::Request&, httplib::Response& res) {
      ++count_;
      res.status = status_;
      res.set_content(body_, "application/json");
    });
    port_ = server_.bind_to_any_port("127.0.0.1");
    thread_ = std::thread([this] { server_.listen_after_bind(); });
    for (int i = 0; i < 5000 && !server_.is_running(); ++i)
      std::this_thread::sleep_for(std::chrono::milliseconds(1));
  }
  ~RawServer() {
    server_.stop();
    thread_.join();
  }
  std::string base_url() const { return "http://127.0.0.1:" + std::to_string(port_) + "/v1"; }
  int count() const { return count_; }

 private:
  int status_;
  std::string body_;
  httplib::Server server_;
  std::thread thread_;
  int port_ = 0;
  std::atomic<int> count_{0};
};

// Reproduction 4: 100% failure used to exit 0 with only "invalid_request 12".
TEST(LlmFailures, AuthFailuresAreShownWithTheServersMessageAndExitFive) {
  RawServer server(401, R"({"error": {"message": "Incorrect API key provided: sk-ab***yz.",
                                     "type": "invalid_request_error", "code": "invalid_api_key"}})");
  ::setenv("PROBITY_TEST_FAIL_KEY", "sk-the-wrong-key-123", 1);
  const std::string dir = temp_dir("llm-fail-auth");
  auto r = run_probity(
      "score --data " + sample() + " --metric llm-judge --llm-base-url " + server.base_url() +
      " --llm-model m --llm-api-key-env PROBITY_TEST_FAIL_KEY --out " + dir + "/s.jsonl");
  EXPECT_EQ(r.exit_code, 5) << r.err;
  EXPECT_NE(r.err.find("given up after 8 failed attempts in a row"), std::string::npos) << r.err;
  EXPECT_NE(r.err.find("HTTP 401: Incorrect API key provided"), std::string::npos) << r.err;
  EXPECT_NE(r.err.find("(auth)"), std::string::npos) << r.err;
  EXPECT_EQ(r.err.find("sk-the-wrong-key-123"), std::string::npos);
  // Auth errors are not retried, and the breaker stops the run: a handful of requests, not 320.
  EXPECT_LE(server.count(), 8 + 16);
  // Below the breaker's threshold the run finishes, and the exit code still says it failed.
  r = run_probity("score --data " + sample() + " --metric llm-judge --llm-base-url " +
                  server.base_url() + " --llm-model m --llm-concurrency 1 --config " +
                  [&] {
                    const std::string conf = dir + "/probity.toml";
                    std::ofstream(conf) << "[llm.default]\ncircuit_breaker = 0\n";
                    return conf;
                  }() +
                  " --out " + dir + "/s.jsonl");
  EXPECT_EQ(r.exit_code, 5) << r.err;
  EXPECT_NE(r.err.find("320 of 320 LLM requests to 'judge' (m) failed: auth 320"),
            std::string::npos)
      << r.err;
  EXPECT_NE(r.err.find("auth: HTTP 401: Incorrect API key provided"), std::string::npos) << r.err;
  EXPECT_TRUE(std::filesystem::exists(dir + "/s.jsonl"));  // the records say why, item by item
}

TEST(LlmFailures, TlsErrorsAreTheirOwnKindAndNotRetried) {
  MockServer server;  // plain HTTP: a TLS handshake with it fails
  auto config = mock_endpoint(server);
  config.base_url = "https://127.0.0.1:" + std::to_string(server.port()) + "/v1";
  Client client(config);
  const auto r = client.call(chat_request("hi"));
  EXPECT_FALSE(r.ok);
  EXPECT_EQ(r.error_kind, ErrorKind::kTls) << r.error;
  EXPECT_EQ(r.attempts, 1);
  const auto usage = client.accounting().total();
  ASSERT_EQ(usage.failure_examples.count("tls"), 1u);
  EXPECT_FALSE(usage.failure_examples.at("tls").front().empty());
}

// A dead server used to cost 4 attempts per request for every request; a hanging one 4 x 120 s.
TEST(LlmFailures, TheCircuitBreakerStopsDeadAndHangingServersEarly) {
  int port = 0;
  {
    MockServer gone;
    port = gone.port();
  }
  llm::EndpointConfig config;
  config.name = "judge";
  config.model = "m";
  config.base_url = "http://127.0.0.1:" + std::to_string(port) + "/v1";
  config.backoff_base_s = 0.01;
  config.backoff_max_s = 0.02;
  {
    Client client(config);
    const auto t0 = std::chrono::steady_clock::now();
    EXPECT_THROW(client.run(distinct_requests(200, "x")), llm::EndpointDown);
    EXPECT_LT(since(t0), 5.0);
    EXPECT_LE(client.accounting().total().requests, 8u + 16u);
    // Given up: later batches are refused at once.
    EXPECT_THROW(client.run(distinct_requests(3, "y")), llm::EndpointDown);
  }
  MockServer hanging;
  hanging.set_latency_ms(800);
  config = mock_endpoint(hanging);
  config.timeout_s = 0.1;
  config.circuit_breaker = 4;
  config.concurrency = 2;
  Client client(config);
  const auto t0 = std::chrono::steady_clock::now();
  try {
    client.run(distinct_requests(50, "z"));
    ADD_FAILURE() << "no EndpointDown";
  } catch (const llm::EndpointDown& e) {
    EXPECT_NE(std::string(e.what()).find("timeout"), std::string::npos) << e.what();
  }
  EXPECT_LT(since(t0), 5.0);
}

// A server answering 429 insufficient_quota forever gave no result after
// 240 s for 20 items: quota errors were waited out as rate limits.
TEST(LlmFailures, AQuotaErrorStopsAtOnceWithTheServersMessage) {
  RawServer server(429, R"({"error": {"message": "You exceeded your current quota, please check )"
                        R"(your plan and billing details.", "type": "insufficient_quota", )"
                        R"("param": null, "code": "insufficient_quota"}})");
  llm::EndpointConfig config;
  config.name = "judge";
  config.model = "m";
  config.base_url = server.base_url();
  config.concurrency = 4;
  Client client(config);
  const auto t0 = std::chrono::steady_clock::now();
  try {
    client.run(distinct_requests(20, "q"));
    ADD_FAILURE() << "no EndpointDown";
  } catch (const llm::EndpointDown& e) {
    EXPECT_NE(std::string(e.what()).find("out of quota"), std::string::npos) << e.what();
    EXPECT_NE(std::string(e.what()).find("You exceeded your current quota"), std::string::npos)
        << e.what();
  }
  EXPECT_LT(since(t0), 5.0);
  EXPECT_LE(server.count(), 4);  // those in flight when the first answer came, no retry
  const auto failures = client.accounting().total().failures;
  ASSERT_TRUE(failures.count("quota")) << client.accounting().summary();
  EXPECT_GE(failures.at("quota"), 1u);
  // The CLI: exit 5 with the server's message, at once.
  const auto t1 = std::chrono::steady_clock::now();
  auto r = run_probity("score --data " + sample() + " --metric llm-judge --llm-base-url " +
                       server.base_url() + " --llm-model m");
  EXPECT_EQ(r.exit_code, 5) << r.err;
  EXPECT_NE(r.err.find("You exceeded your current quota"), std::string::npos) << r.err;
  EXPECT_LT(since(t1), 20.0);
}

// 40 requests to a server that answers only 429 with fast backoff: the EndpointDown message,
// after checking that it came within 5 s and quotes the server.
std::string give_up_on_rate_limits(double rate_limit_budget_s, int circuit_breaker) {
  RawServer server(429, R"({"error": {"message": "Rate limit reached", "type": "requests"}})");
  llm::EndpointConfig config;
  config.name = "judge";
  config.model = "m";
  config.base_url = server.base_url();
  config.concurrency = 4;
  config.backoff_base_s = 0.01;
  config.backoff_max_s = 0.05;
  config.rate_limit_budget_s = rate_limit_budget_s;
  config.circuit_breaker = circuit_breaker;
  Client client(config);
  const auto t0 = std::chrono::steady_clock::now();
  std::string message;
  try {
    client.run(distinct_requests(40, "r"));
    ADD_FAILURE() << "no EndpointDown";
  } catch (const llm::EndpointDown& e) {
    message = e.what();
    EXPECT_NE(message.find("Rate limit reached"), std::string::npos) << message;
  }
  EXPECT_LT(since(t0), 5.0);
  return message;
}

// A server answering only 429 is given up after circuit_breaker retries with no success in
// between, long before the rate-limit budget (600 s a request by default) is spent.
TEST(LlmFailures, RateLimitsWithNoSuccessOpenTheBreakerBeforeTheBudgetIsSpent) {
  const std::string message = give_up_on_rate_limits(600, 8);
  EXPECT_NE(message.find("given up after 8 failed attempts in a row"), std::string::npos)
      << message;
}

// With a budget shorter than the breaker's retries, the budget ends it: the endpoint is given
// up, not waited out once per queued request.
TEST(LlmFailures, RateLimitsForAWholeBudgetOpenTheBreaker) {
  const std::string message = give_up_on_rate_limits(0.3, 1000);
  EXPECT_NE(message.find("answered only 429"), std::string::npos) << message;
}

// Reproduction 6: one 300 MB answer used 4 GB of memory and 945 MB of cache.
TEST(LlmFailures, AnswersLargerThanTheCapAreTooLargeFailures) {
  MockServer server;
  server.set_handler([](const json&) { return std::string(3 << 20, 'x'); });  // 3 MiB
  const std::string cache_path = temp_path("too-large.sqlite");
  llm::Cache cache(cache_path);
  auto config = mock_endpoint(server);
  config.max_response_bytes = 1 << 20;
  llm::ClientOptions options;
  options.cache = &cache;
  Client client(config, options);
  const auto r = client.call(chat_request("write a lot"));
  EXPECT_FALSE(r.ok);
  EXPECT_EQ(r.error_kind, ErrorKind::kTooLarge);
  EXPECT_EQ(r.attempts, 1);
  EXPECT_NE(r.error.find("max_response_bytes (1048576 bytes)"), std::string::npos) << r.error;
  EXPECT_EQ(cache.size(), 0u);
  std::filesystem::remove(cache_path);
}

// Reproduction 7: the key's value in an error, an escaped echo landing decoded in reports, a CR/LF
// in the key injecting a header.
TEST(LlmFailures, KeysNeverAppearEvenEscapedOrPassedAsTheName) {
  const std::string key = "sk-escaped-key-0123456789";
  // The key echoed JSON-escaped ("\u0073k-...") inside an answer.
  std::string escaped = "\\u0073" + key.substr(1);
  RawServer echo(200, R"({"choices": [{"index": 0, "finish_reason": "stop", "message":
      {"role": "assistant", "content": "{\"rating\": 3, \"note\": \")" +
                          escaped +
                          R"(\"}"}}], "usage": {"prompt_tokens": 1, "completion_tokens": 1}})");
  ::setenv("PROBITY_TEST_ESCAPED_KEY", key.c_str(), 1);
  const std::string cache_path = temp_path("escaped.sqlite");
  {
    llm::Cache cache(cache_path);
    auto config = mock_endpoint(*std::make_unique<MockServer>());
    config.base_url = echo.base_url();
    config.api_key_env = "PROBITY_TEST_ESCAPED_KEY";
    llm::ClientOptions options;
    options.cache = &cache;
    Client client(config, options);
    const auto r = client.call(chat_request("rate"));
    ASSERT_TRUE(r.ok) << r.error;
    EXPECT_EQ(r.text().find(key), std::string::npos) << r.text();
    EXPECT_NE(r.text().find("[redacted]"), std::string::npos) << r.text();
    EXPECT_EQ(r.body.find(escaped), std::string::npos) << r.body;
  }
  EXPECT_EQ(read_file(cache_path).find(key.substr(1)), std::string::npos);
  std::filesystem::remove(cache_path);
  // The value where the variable's name belongs.
  auto r = run_probity("score --data " + sample() + " --metric llm-judge --llm-base-url " +
                       echo.base_url() + " --llm-model m --llm-api-key-env " + key);
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_EQ(r.err.find(key), std::string::npos) << r.err;
  EXPECT_NE(r.err.find("not the key itself"), std::string::npos) << r.err;
  // A CR/LF in the key would inject a header.
  ::setenv("PROBITY_TEST_ESCAPED_KEY", "sk-abc\r\nX-Injected: 1", 1);
  auto config = mock_endpoint(*std::make_unique<MockServer>());
  config.api_key_env = "PROBITY_TEST_ESCAPED_KEY";
  try {
    Client c(config);
    ADD_FAILURE();
  } catch (const UsageError& e) {
    EXPECT_NE(std::string(e.what()).find("control character"), std::string::npos);
    EXPECT_EQ(std::string(e.what()).find("sk-abc"), std::string::npos);
  }
  ::unsetenv("PROBITY_TEST_ESCAPED_KEY");
}

// The report carries the failures' first messages, so an audit that failed can be diagnosed.
TEST(LlmFailures, TheReportShowsFailureMessagesByKind) {
  RawServer server(400, R"({"error": {"message": "context length exceeded", "type": "x"}})");
  const std::string out = temp_dir("llm-fail-report");
  auto r = run_probity("audit --data " + sample() +
                       " --metric llm-judge --degrade none --manipulate none --bootstrap 10 "
                       "--llm-base-url " +
                       server.base_url() + " --llm-model m --out " + out);
  EXPECT_EQ(r.exit_code, 5) << r.err;
  const auto report = json::parse(read_file(out + "/report.json"));
  const auto& judge = report["llm_usage"]["endpoints"][0];
  EXPECT_EQ(judge["failures"]["invalid_request"], 320);
  EXPECT_EQ(judge["failure_examples"]["invalid_request"][0], "HTTP 400: context length exceeded");
  EXPECT_NE(read_file(out + "/report.md").find("HTTP 400: context length exceeded"),
            std::string::npos);
}

}  // namespace
}  // namespace probity::test
