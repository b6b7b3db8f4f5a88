#pragma once
// Shared set-up of the LLM tests: an endpoint aimed at the mock server with fast retries.
#include <unistd.h>

#include <chrono>
#include <filesystem>
#include <fstream>
#include <memory>
#include <sstream>
#include <string>
#include <vector>

#include "llm/mock_server.hpp"
#include "llm/prompts.hpp"
#include "llm/session.hpp"
#include "llm/structured.hpp"
#include "probity/engine.hpp"
#include "probity/llm.hpp"
#include "probity/perturb.hpp"
#include "probity/scoring.hpp"

namespace probity::test {

inline llm::EndpointConfig mock_endpoint(const MockServer& server, std::string name = "test") {
  llm::EndpointConfig c;
  c.name = std::move(name);
  c.base_url = server.base_url();
  c.model = "mock-model";
  c.timeout_s = 5;
  c.backoff_base_s = 0.01;  // retries in tests wait milliseconds, not seconds
  c.backoff_max_s = 0.05;
  return c;
}

inline llm::Request chat_request(const std::string& content, std::uint32_t sample = 0) {
  llm::Request r;
  r.endpoint = llm::Endpoint::kChat;
  r.messages = {{"user", content}};
  r.sample = sample;
  return r;
}

// n different one-word prompts (identical requests in a batch are sent only once).
inline std::vector<llm::Request> distinct_requests(int n, const std::string& prefix) {
  std::vector<llm::Request> out;
  for (int i = 0; i < n; ++i) out.push_back(chat_request(prefix + std::to_string(i)));
  return out;
}

// The engine of the innermost SessionGuard alive on this thread, else an offline one: tests make
// their metrics and strategies with it, as a command does with the engine built from its flags.
inline Engine*& guarded_engine() {
  thread_local Engine* engine = nullptr;
  return engine;
}
inline Engine& engine() {
  thread_local Engine offline;
  return guarded_engine() ? *guarded_engine() : offline;
}

// An engine connected to `s` for the scope of a test.
struct SessionGuard {
  explicit SessionGuard(std::shared_ptr<llm::Session> s) : previous(guarded_engine()) {
    engine.set_llm(std::move(s));
    guarded_engine() = &engine;
  }
  ~SessionGuard() { guarded_engine() = previous; }
  SessionGuard(const SessionGuard&) = delete;
  SessionGuard& operator=(const SessionGuard&) = delete;
  Engine engine;
  Engine* previous;
};

// select_metric with engine().
inline MetricSelection engine_select_metric(const std::string& spec) {
  return select_metric(spec, engine());
}

// A session whose every role talks to the mock server, as the CLI flags would configure it;
// `cache` empty: no response cache; `key_env`: the name of the API key's variable.
inline std::shared_ptr<llm::Session> mock_session(const MockServer& server,
                                                  const std::string& cache = "",
                                                  const std::string& key_env = "") {
  llm::LlmConfig config;
  config.cache_path = cache;
  llm::CliOverrides o;
  o.base_url = server.base_url();
  o.model = "mock-model";
  if (!key_env.empty()) o.api_key_env = key_env;
  llm::apply_cli_overrides(config, o);
  return std::make_shared<llm::Session>(std::move(config));
}

// A path in the temporary directory unique to this process, removed first.
inline std::string temp_path(const std::string& name) {
  auto p = std::filesystem::temp_directory_path() /
           ("probity_llm_test_" + std::to_string(::getpid()) + "_" + name);
  std::filesystem::remove_all(p);
  return p.string();
}

inline std::string read_file(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  std::ostringstream s;
  s << in.rdbuf();
  return s.str();
}

inline double elapsed_since(std::chrono::steady_clock::time_point t0) {
  return std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
}

}  // namespace probity::test
