#pragma once
// The batch APIs of the contract fakes (FakeOptions::batch_api), internal to FakeServer: OpenAI's
// Files + Batches and Anthropic's Message Batches. Evidence: tests/llm/fakes/SOURCES.md, sections
// "OpenAI Batch API" and "Anthropic Message Batches".
#include <functional>
#include <map>
#include <memory>
#include <optional>
#include <string>

#include "llm/fakes/fake_server.hpp"

namespace probity::test {

// OpenAI's 401 for a missing or wrong Bearer key when FakeOptions::api_key is set (nullopt: the
// key is right or none is required). Shared by the hosted OpenAI flavours and the batch routes.
std::optional<FakeServer::Reply> openai_auth_failure(
    const FakeOptions& options, const std::map<std::string, std::string>& headers);

class BatchApi {
 public:
  // How a batch answers one of its requests: FakeServer::answer of the owning server.
  using Answer = std::function<FakeServer::Reply(
      const std::string& method, const std::string& path, const std::string& body,
      const std::map<std::string, std::string>& headers)>;
  BatchApi(const FakeOptions& options, Answer answer, std::string root_url);
  ~BatchApi();
  BatchApi(const BatchApi&) = delete;
  BatchApi& operator=(const BatchApi&) = delete;

  // The answer when `path` is a batch route, else nullopt (the flavour answers it).
  std::optional<FakeServer::Reply> handle(const std::string& method, const std::string& path,
                                          const std::string& body,
                                          const std::map<std::string, std::string>& headers);

  struct State;

 private:
  std::unique_ptr<State> state_;
};

}  // namespace probity::test
