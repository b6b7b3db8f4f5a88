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

// The LLM context of one process: set by the command line (or a test) before metrics are created,
// reached by the metric factories. Clients are created on first use of a role.
class Session {
 public:
  explicit Session(LlmConfig config);
  Session(const Session&) = delete;
  Session& operator=(const Session&) = delete;

  // The installed session; throws UsageError naming the flags when none is installed.
  static std::shared_ptr<Session> current();
  static std::shared_ptr<Session> current_or_null();
  static void install(std::shared_ptr<Session> session);  // nullptr uninstalls

  Client& client(std::string_view role);
  // Polled by every client of the session while it waits for answers (see
  // ClientOptions::interrupted); set before the first client is made.
  void set_interrupt_check(std::function<bool()> check) { interrupt_check_ = std::move(check); }
  Accounting& accounting() { return accounting_; }
  Cache* cache() { return cache_.get(); }
  const LlmConfig& config() const { return config_; }
  // Distinguishes sessions in shared-predictor keys (a new session must not reuse old clients).
  std::uint64_t id() const { return id_; }

 private:
  LlmConfig config_;
  std::unique_ptr<Cache> cache_;
  Accounting accounting_;
  std::mutex mutex_;
  std::map<std::string, std::unique_ptr<Client>, std::less<>> clients_;
  std::uint64_t id_;
  std::function<bool()> interrupt_check_;
};

}  // namespace probity::llm
