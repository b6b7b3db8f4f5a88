#pragma once
// The LLM session of one run: configuration, response cache, accounting and one client per role
// (created on first use). Everything that talks to a model reaches its endpoints through it.
#include <cstdint>
#include <functional>
#include <map>
#include <memory>
#include <mutex>
#include <string>
#include <string_view>

#include "probity/llm.hpp"

namespace probity::llm {

// The LLM context of one run, held by its Engine. Clients are created on first use of a role.
class Session {
 public:
  explicit Session(LlmConfig config);
  Session(const Session&) = delete;
  Session& operator=(const Session&) = delete;

  Client& client(std::string_view role);
  // A client for an endpoint the caller configured (an embedding server named by a metric
  // option), sharing the session's cache, accounting and interrupt check; one per (name,
  // base_url, model), created on first use.
  Client& client(const EndpointConfig& config);
  // Polled by every client of the session while it waits for answers (see
  // ClientOptions::interrupted); set before the first client is made.
  void set_interrupt_check(std::function<bool()> check) { interrupt_check_ = std::move(check); }
  // Where every client of the session writes its notes (retries, a rejected structured-output
  // field, batch progress); set before the first client is made. Unset: nowhere.
  void set_log(std::function<void(std::string_view)> log) { log_ = std::move(log); }
  Accounting& accounting() { return accounting_; }
  Cache* cache() { return cache_.get(); }
  const LlmConfig& config() const { return config_; }

 private:
  LlmConfig config_;
  std::unique_ptr<Cache> cache_;
  Accounting accounting_;
  std::mutex mutex_;
  std::map<std::string, std::unique_ptr<Client>, std::less<>> clients_;
  std::map<std::string, std::unique_ptr<Client>> configured_;
  std::function<bool()> interrupt_check_;
  std::function<void(std::string_view)> log_;
};

// `session` itself; throws UsageError naming the flags when it is null.
std::shared_ptr<Session> require_session(std::shared_ptr<Session> session);

}  // namespace probity::llm
