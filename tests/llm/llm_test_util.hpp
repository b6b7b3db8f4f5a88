#pragma once
// Shared set-up of the LLM tests: an endpoint aimed at the mock server with fast retries.
#include <chrono>
#include <fstream>
#include <sstream>
#include <string>
#include <vector>

#include "llm/mock_server.hpp"
#include "probity/llm.hpp"

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
