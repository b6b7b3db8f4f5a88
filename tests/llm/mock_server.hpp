#pragma once
// An in-process OpenAI-compatible server for the LLM tests and benchmark (cpp-httplib, 127.0.0.1,
// ephemeral port): POST /v1/chat/completions, /v1/completions, /tokenize, with `usage` in every
// success, OpenAI-style error bodies, scripted replies, injected faults and a request log.
//
// Token model (transparent, so tests compute expected log-probabilities by hand): tokens are the
// whitespace-separated words of the text (chat: of every message's content, in order); a token's
// log-probability is -1.0 when the same word occurred earlier in the sequence, else -5.0; the first
// prompt token has none (null), as with vLLM for a tokenizer without BOS. Token ids come from a
// vocabulary filled on first sight ("the" = 1).
#include <atomic>
#include <chrono>
#include <cstdint>
#include <deque>
#include <functional>
#include <map>
#include <memory>
#include <mutex>
#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <string_view>
#include <thread>
#include <vector>

namespace httplib {
class Server;
}

namespace probity::test {

// Raises the listen backlog of the socket listening on `port` (cpp-httplib uses 5, so a burst of
// connections loses SYNs, retried a second later). Shared by every fake server of the tests.
void widen_backlog(int port);

struct MockFault {
  enum class Kind {
    kStatus,        // an error status with an OpenAI-style error body (and Retry-After)
    kDelay,         // wait delay_ms, then answer normally
    kMalformed,     // 200 with a body that is not JSON
    kTruncated,     // 200 with the first half of a valid JSON body
    kEmptyContent,  // 200, valid JSON, empty text, finish_reason "length"
    kClose,         // headers sent, then the connection is closed without the body
  };
  Kind kind = Kind::kStatus;
  int status = 500;
  std::string retry_after;  // Retry-After header value for kStatus ("" = none)
  int delay_ms = 0;
  std::string message;  // kStatus: the error body's message ("" = "mock fault: HTTP <status>")

  static MockFault http(int status, std::string retry_after = "") {
    return {Kind::kStatus, status, std::move(retry_after), 0, ""};
  }
  // A client error with the server's words, e.g. a parameter it rejects.
  static MockFault rejection(int status, std::string message) {
    return {Kind::kStatus, status, "", 0, std::move(message)};
  }
  static MockFault delay(int ms) { return {Kind::kDelay, 200, "", ms, ""}; }
  static MockFault of(Kind kind) { return {kind, 200, "", 0, ""}; }
};

struct MockCall {
  std::string path;
  std::string body;
  std::string authorization;      // the Authorization header as received ("" when absent)
  int status = 0;                 // what the server answered (0: connection closed)
  double start_s = 0, end_s = 0;  // seconds since the server started
};

class MockServer {
 public:
  struct Options {
    std::size_t threads = 64;  // one per concurrent connection (keep-alive holds a thread)
    std::string model;         // when set, other models get 404
    std::string api_key;       // when set, other Authorization headers get 401
    // false: like llama.cpp server or hosted chat models, `echo` and `prompt_logprobs` are
    // accepted and ignored, so answers carry no log-probabilities of the prompt.
    bool scores_prompts = true;
  };
  MockServer();
  explicit MockServer(Options options);
  ~MockServer();
  MockServer(const MockServer&) = delete;
  MockServer& operator=(const MockServer&) = delete;

  int port() const { return port_; }
  std::string base_url() const;  // http://127.0.0.1:<port>/v1

  // The generated text for a chat or completion request (the parsed body). Default: "ok".
  void set_handler(std::function<std::string(const nlohmann::json&)> handler);
  // A fault for particular requests, consulted before the queue.
  void set_fault_rule(std::function<std::optional<MockFault>(const nlohmann::json&)> rule);
  void push_fault(MockFault fault);  // consumed one per request, in arrival order
  void set_latency_ms(int ms);       // added to every answer

  std::vector<MockCall> calls() const;
  std::size_t count(std::string_view path = "") const;  // requests received ("" = any path)
  int max_in_flight() const { return max_in_flight_.load(); }
  int in_flight() const { return in_flight_.load(); }
  void reset();  // log, faults, rule, handler, latency and the in-flight maximum

  // The token model.
  static std::vector<std::string> words(std::string_view text);
  static double logprob(const std::vector<std::string>& tokens, std::size_t i);
  std::int64_t token_id(const std::string& word);
  std::string token_word(std::int64_t id) const;

 private:
  struct Reply {
    int status = 200;
    std::string body;
    std::map<std::string, std::string> headers;
    bool close = false;
  };
  Reply handle(const std::string& path, const std::string& body, const std::string& auth);
  Reply generate(const std::string& path, const nlohmann::json& request,
                 const std::optional<MockFault>& fault);
  Reply tokenize(const nlohmann::json& request);
  double now() const;

  Options options_;
  std::unique_ptr<httplib::Server> server_;
  std::thread thread_;
  int port_ = 0;
  const std::chrono::steady_clock::time_point epoch_ = std::chrono::steady_clock::now();

  mutable std::mutex mutex_;
  std::function<std::string(const nlohmann::json&)> handler_;
  std::function<std::optional<MockFault>(const nlohmann::json&)> rule_;
  std::deque<MockFault> faults_;
  std::vector<MockCall> calls_;
  std::map<std::string, std::int64_t> vocab_;
  std::map<std::int64_t, std::string> words_;
  std::atomic<int> latency_ms_{0};
  std::atomic<int> in_flight_{0};
  std::atomic<int> max_in_flight_{0};
};

}  // namespace probity::test
