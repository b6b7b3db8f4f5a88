#include "llm/session.hpp"

#include <fmt/format.h>

#include "probity/error.hpp"

namespace probity::llm {
// ---- Session -----------------------------------------------------------------------------------

Session::Session(LlmConfig config) : config_(std::move(config)), cache_(config_.open_cache()) {
  accounting_.set_budget_usd(config_.budget_usd);
}

std::shared_ptr<Session> require_session(std::shared_ptr<Session> session) {
  if (!session)
    throw UsageError(
        "this metric needs an LLM endpoint: give --config probity.toml or --llm-base-url "
        "(and --llm-model) to the command");
  return session;
}

Client& Session::client(std::string_view role) {
  std::lock_guard lock(mutex_);
  auto it = clients_.find(role);
  if (it != clients_.end()) return *it->second;
  EndpointConfig cfg = config_.endpoint(role);
  if (cfg.base_url.empty())
    throw UsageError(fmt::format(
        "LLM role '{}' has no base_url: set [llm.{}] or [llm.default] in the configuration, or "
        "--llm-base-url",
        role, role));
  ClientOptions opts;
  opts.cache = cache_.get();
  opts.accounting = &accounting_;
  opts.interrupted = interrupt_check_;
  opts.log = log_;
  auto client = std::make_unique<Client>(std::move(cfg), opts);
  auto& ref = *client;
  clients_.emplace(std::string(role), std::move(client));
  return ref;
}

Client& Session::client(const EndpointConfig& config) {
  std::lock_guard lock(mutex_);
  const std::string key = config.name + '\n' + config.base_url + '\n' + config.model;
  auto it = configured_.find(key);
  if (it != configured_.end()) return *it->second;
  ClientOptions opts;
  opts.cache = cache_.get();
  opts.accounting = &accounting_;
  opts.interrupted = interrupt_check_;
  opts.log = log_;
  auto client = std::make_unique<Client>(config, opts);
  auto& ref = *client;
  configured_.emplace(key, std::move(client));
  return ref;
}

}  // namespace probity::llm
