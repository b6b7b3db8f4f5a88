// probity.toml: [llm] (cache, cache_mode) and one table per role, [llm.default] inherited by the
// others. Every key is checked; mistakes name the file, the line and the key.
#include <fmt/format.h>
#include <toml++/toml.h>

#include <algorithm>
#include <cstdlib>
#include <fstream>
#include <functional>
#include <limits>
#include <map>
#include <nlohmann/json.hpp>
#include <sstream>

#include "llm/toml_depth.hpp"
#include "probity/llm.hpp"

namespace probity::llm {

ConfigError::ConfigError(std::string file, std::size_t line, std::string key,
                         const std::string& message)
    : UsageError(fmt::format("{}{}: {}{}", file.empty() ? "<config>" : file,
                             line ? fmt::format(":{}", line) : "",
                             key.empty() ? "" : fmt::format("'{}': ", key), message)),
      file_(std::move(file)),
      line_(line),
      key_(std::move(key)) {}

const std::vector<std::string>& role_names() {
  static const std::vector<std::string> names = {"default",   "judge", "oracle",
                                                 "perturber", "lm",    "decomposer",
                                                 "attacker",  "guard", "embedder"};
  return names;
}

namespace {
// "default, judge, ... or guard", for messages.
std::string role_list() {
  const auto& names = role_names();
  return fmt::format("{} or {}", fmt::join(names.begin(), names.end() - 1, ", "), names.back());
}
}  // namespace

void EndpointSettings::apply_to(EndpointConfig& c) const {
  if (base_url) c.base_url = *base_url;
  if (model) c.model = *model;
  if (api_key_env) c.api_key_env = *api_key_env;
  if (headers) c.headers = *headers;
  if (concurrency) c.concurrency = *concurrency;
  if (rpm) c.rpm = *rpm;
  if (tpm) c.tpm = *tpm;
  if (timeout_s) c.timeout_s = *timeout_s;
  if (rate_limit_budget_s) c.rate_limit_budget_s = *rate_limit_budget_s;
  if (max_attempts) c.max_attempts = *max_attempts;
  if (circuit_breaker) c.circuit_breaker = *circuit_breaker;
  if (max_response_bytes) c.max_response_bytes = *max_response_bytes;
  if (temperature) c.temperature = *temperature;
  if (max_tokens) c.max_tokens = *max_tokens;
  if (max_completion_tokens) c.max_completion_tokens = *max_completion_tokens;
  if (seed) c.seed = *seed;
  if (price_in) c.price_in = *price_in;
  if (price_out) c.price_out = *price_out;
  if (price_cached_in) c.price_cached_in = *price_cached_in;
  if (extra_body) c.extra_body = *extra_body;
  if (structured) c.structured = *structured;
  if (server) c.server = *server;
  if (batch) c.batch = *batch;
  if (batch_dir) c.batch_dir = *batch_dir;
  if (batch_poll_s) c.batch_poll_s = *batch_poll_s;
  if (batch_poll_max_s) c.batch_poll_max_s = *batch_poll_max_s;
  if (batch_max_requests) c.batch_max_requests = *batch_max_requests;
  if (batch_max_bytes) c.batch_max_bytes = *batch_max_bytes;
  if (price_batch_in) c.price_batch_in = *price_batch_in;
  if (price_batch_out) c.price_batch_out = *price_batch_out;
}

EndpointSettings role_defaults(std::string_view role) {
  // Room for the answer each role's prompts ask for, with slack for the whitespace a grammar
  // lets a small model write between JSON tokens; a role's table or [llm.default] may change it.
  static const std::map<std::string_view, int> max_tokens = {
      {"default", 1024},    {"judge", 512},     {"oracle", 1024}, {"perturber", 2048},
      {"decomposer", 1024}, {"attacker", 4096}, {"guard", 512}};
  EndpointSettings s;
  // lm and embedder ask no structured question: nothing is sent, and signatures say nothing.
  if (role == "lm" || role == "embedder") s.structured = StructuredMode::kOff;
  if (auto it = max_tokens.find(role); it != max_tokens.end()) {
    s.max_tokens = it->second;
    s.seed = 0;
  }
  return s;
}

bool LlmConfig::has_role(std::string_view role) const {
  return roles.find(role) != roles.end();
}

EndpointConfig LlmConfig::endpoint(std::string_view role) const {
  const auto& names = role_names();
  if (std::find(names.begin(), names.end(), role) == names.end())
    throw UsageError(fmt::format("unknown llm role '{}' (expected {})", role, role_list()));
  EndpointConfig c;
  c.name = std::string(role);
  const EndpointSettings builtin = role_defaults(role);
  builtin.apply_to(c);
  // A table that sets max_completion_tokens (reasoning models) replaces the built-in max_tokens:
  // the two are exclusive.
  for (std::string_view table : {std::string_view("default"), role})
    if (auto it = roles.find(table); it != roles.end() && it->second.max_completion_tokens)
      c.max_tokens.reset();
  if (auto it = roles.find("default"); it != roles.end()) it->second.apply_to(c);
  if (role != "default")
    if (auto it = roles.find(role); it != roles.end()) it->second.apply_to(c);
  return c;
}

std::unique_ptr<Cache> LlmConfig::open_cache() const {
  if (cache_path.empty() || cache_mode == CacheMode::kOff) return nullptr;
  return std::make_unique<Cache>(cache_path, cache_mode);
}

namespace {

// Body fields that probity's requests set: extra_body must not replace them.
bool is_reserved_body_field(std::string_view field) {
  static const std::vector<std::string_view> reserved = {
      "model",    "messages",     "prompt",          "echo",
      "logprobs", "top_logprobs", "prompt_logprobs", "n",
      "stream",   "temperature",  "max_tokens",      "max_completion_tokens",
      "seed"};
  return std::find(reserved.begin(), reserved.end(), field) != reserved.end();
}

std::string reserved_field_hint(std::string_view field) {
  if (field == "temperature" || field == "max_tokens" || field == "max_completion_tokens" ||
      field == "seed" || field == "model")
    return fmt::format(" (set {} in the role's table instead)", field);
  return "";
}

// "llm.judge" + "model" -> "llm.judge.model"; either part may be empty.
std::string key_path(const std::string& table, std::string_view key) {
  if (key.empty()) return table;
  if (table.empty()) return std::string(key);
  return fmt::format("{}.{}", table, key);
}

std::size_t line_of(const toml::key& key) {
  return key.source().begin.line;
}

struct Reader {
  const std::string& path;

  // `key` names the key or table the message is about; its line is where the file sets it.
  [[noreturn]] void fail(const std::string& table, const toml::key& key,
                         const std::string& message) const {
    throw ConfigError(path, line_of(key), key_path(table, key.str()), message);
  }

  std::string string(const std::string& table, const toml::key& key, const toml::node& v) const {
    if (auto s = v.as_string()) return s->get();
    fail(table, key, "expected a string");
  }

  double number(const std::string& table, const toml::key& key, const toml::node& v,
                double min) const {
    double x = 0;
    if (auto d = v.as_floating_point())
      x = d->get();
    else if (auto i = v.as_integer())
      x = static_cast<double>(i->get());
    else
      fail(table, key, "expected a number");
    if (!(x >= min)) fail(table, key, fmt::format("must be at least {}", min));
    return x;
  }

  std::int64_t integer(const std::string& table, const toml::key& key, const toml::node& v,
                       std::int64_t min, std::int64_t max) const {
    auto i = v.as_integer();
    if (!i) fail(table, key, "expected an integer");
    if (i->get() < min || i->get() > max)
      fail(table, key, fmt::format("must be in {}..{}", min, max));
    return i->get();
  }

  // Recursive, as deep as the document: toml_too_deep bounded that before parsing.
  nlohmann::json to_json(const std::string& table, const toml::key& key,
                         const toml::node& v) const {
    if (auto t = v.as_table()) {
      nlohmann::json j = nlohmann::json::object();
      for (const auto& [k, child] : *t) j[std::string(k.str())] = to_json(table, key, child);
      return j;
    }
    if (auto a = v.as_array()) {
      nlohmann::json j = nlohmann::json::array();
      for (const auto& child : *a) j.push_back(to_json(table, key, child));
      return j;
    }
    if (auto s = v.as_string()) return s->get();
    if (auto i = v.as_integer()) return i->get();
    if (auto d = v.as_floating_point()) return d->get();
    if (auto b = v.as_boolean()) return b->get();
    fail(table, key, "dates are not allowed in extra_body");
  }

  EndpointSettings role(const std::string& table, const toml::table& t) const {
    EndpointSettings s;
    const toml::key* max_completion_tokens_key = nullptr;
    for (const auto& [key, v] : t) {
      const std::string_view name = key.str();
      if (name == "extra_body") {
        const toml::table* body = v.as_table();
        if (body == nullptr) fail(table, key, "expected a table of request body fields");
        // probity sets these itself; letting extra_body replace them would silently change
        // what a metric measures (e.g. an echo turned off under a log-probability metric).
        for (const auto& [field, value] : *body)
          if (is_reserved_body_field(field.str()))
            fail(key_path(table, name), field,
                 fmt::format("'{}' is set by probity and cannot be overridden in extra_body{}",
                             field.str(), reserved_field_hint(field.str())));
        s.extra_body = to_json(table, key, v).dump();
        continue;
      }
      if (name == "headers") {
        const toml::table* names = v.as_table();
        if (names == nullptr) fail(table, key, "expected a table of header names and values");
        std::vector<std::pair<std::string, std::string>> headers;
        const std::string headers_table = key_path(table, name);
        for (const auto& [header, value] : *names) {
          // The value is never repeated in a message: headers carry keys.
          auto str = value.as_string();
          if (!str) fail(headers_table, header, "expected a string");
          if (auto problem = header_problem(header.str(), str->get()))
            fail(headers_table, header, *problem);
          headers.emplace_back(std::string(header.str()), str->get());
        }
        s.headers = std::move(headers);
        continue;
      }
      if (v.is_table()) fail(table, key, "unexpected table");
      if (name == "base_url")
        s.base_url = string(table, key, v);
      else if (name == "model")
        s.model = string(table, key, v);
      else if (name == "api_key_env")
        s.api_key_env = string(table, key, v);
      else if (name == "concurrency")
        s.concurrency = static_cast<std::size_t>(integer(table, key, v, 1, 512));
      else if (name == "rpm")
        s.rpm = number(table, key, v, 0);
      else if (name == "tpm")
        s.tpm = number(table, key, v, 0);
      else if (name == "timeout") {
        s.timeout_s = number(table, key, v, 0);
        if (*s.timeout_s <= 0 || *s.timeout_s > 86400)
          fail(table, key, "must be more than 0 and at most 86400 (seconds)");
      } else if (name == "rate_limit_budget") {
        s.rate_limit_budget_s = number(table, key, v, 0);
        if (*s.rate_limit_budget_s > 7 * 86400)
          fail(table, key, "must be at most 604800 (seconds)");
      } else if (name == "max_attempts")
        s.max_attempts = static_cast<int>(integer(table, key, v, 1, 100));
      else if (name == "circuit_breaker")
        s.circuit_breaker = static_cast<int>(integer(table, key, v, 0, 1000000));
      else if (name == "max_response_bytes")
        s.max_response_bytes = static_cast<std::size_t>(integer(table, key, v, 1024, 1LL << 32));
      else if (name == "temperature") {
        if (auto str = v.as_string()) {
          if (str->get() != "default")
            fail(table, key, "expected a number, or \"default\" to leave it to the server");
          s.temperature = std::optional<double>{};
        } else {
          s.temperature = number(table, key, v, 0);
          if (**s.temperature > 2) fail(table, key, "must be in 0..2 (or \"default\")");
        }
      } else if (name == "max_tokens")
        s.max_tokens = static_cast<int>(integer(table, key, v, 0, 1 << 30));
      else if (name == "max_completion_tokens") {
        s.max_completion_tokens = static_cast<int>(integer(table, key, v, 1, 1 << 30));
        max_completion_tokens_key = &key;
      } else if (name == "seed")
        s.seed = integer(table, key, v, std::numeric_limits<std::int64_t>::min(),
                         std::numeric_limits<std::int64_t>::max());
      else if (name == "structured") {
        try {
          s.structured = parse_structured_mode(string(table, key, v));
        } catch (const UsageError& e) {
          fail(table, key, e.what());
        }
      } else if (name == "server") {
        try {
          s.server = parse_server_kind(string(table, key, v));
        } catch (const UsageError& e) {
          fail(table, key, e.what());
        }
      } else if (name == "price_in")
        s.price_in = number(table, key, v, 0);
      else if (name == "price_out")
        s.price_out = number(table, key, v, 0);
      else if (name == "price_cached_in")
        s.price_cached_in = number(table, key, v, 0);
      else if (name == "price_batch_in")
        s.price_batch_in = number(table, key, v, 0);
      else if (name == "price_batch_out")
        s.price_batch_out = number(table, key, v, 0);
      else if (name == "batch") {
        try {
          s.batch = parse_batch_mode(string(table, key, v));
        } catch (const UsageError& e) {
          fail(table, key, e.what());
        }
      } else if (name == "batch_dir")
        s.batch_dir = string(table, key, v);
      else if (name == "batch_poll") {
        s.batch_poll_s = number(table, key, v, 0);
        if (*s.batch_poll_s > 86400) fail(table, key, "must be at most 86400 (seconds)");
      } else if (name == "batch_poll_max") {
        s.batch_poll_max_s = number(table, key, v, 0);
        if (*s.batch_poll_max_s > 86400) fail(table, key, "must be at most 86400 (seconds)");
      } else if (name == "batch_max_requests")
        s.batch_max_requests = static_cast<std::size_t>(integer(table, key, v, 1, 1000000));
      else if (name == "batch_max_bytes")
        s.batch_max_bytes = static_cast<std::size_t>(integer(table, key, v, 1024, 1LL << 32));
      // The value is not repeated in the message: it may be a secret.
      else if (name == "api_key" || name == "key" || name == "token")
        fail(table, key,
             "API keys do not belong in the configuration file: put the key in an "
             "environment variable and name it with api_key_env");
      else
        fail(table, key,
             "unknown key (expected base_url, model, api_key_env, headers, concurrency, rpm, "
             "tpm, timeout, rate_limit_budget, max_attempts, circuit_breaker, "
             "max_response_bytes, temperature, max_tokens, max_completion_tokens, seed, "
             "structured, server, price_in, price_out, price_cached_in, batch, batch_dir, "
             "batch_poll, batch_poll_max, batch_max_requests, batch_max_bytes, price_batch_in, "
             "price_batch_out or extra_body)");
    }
    if (s.max_tokens && s.max_completion_tokens)
      fail(table, *max_completion_tokens_key,
           "set max_tokens or max_completion_tokens, not both (reasoning models take only "
           "max_completion_tokens)");
    return s;
  }
};

}  // namespace

LlmConfig parse_config(std::string_view text, const std::string& path) {
  if (const std::size_t line = detail::toml_too_deep(text))
    throw ConfigError(path, line, "",
                      fmt::format("tables, arrays and dotted keys nested deeper than {} levels",
                                  detail::kMaxTomlDepth));
  toml::table root;
  try {
    // toml++ also rejects what the TOML specification forbids and cpptoml let through: NUL
    // and other control characters, invalid UTF-8.
    root = toml::parse(text, std::string_view(path));
  } catch (const toml::parse_error& e) {
    throw ConfigError(path, e.source().begin.line, "", std::string(e.description()));
  }
  LlmConfig config;
  config.path = path;
  Reader reader{path};
  // probity reads only [llm]: anything else is a mistake that would otherwise be ignored (a
  // top-level `cache = ...` is never read, so shards would share nothing).
  const toml::node* llm = nullptr;
  const toml::key* llm_key = nullptr;
  for (const auto& [key, v] : root) {
    if (key.str() == "llm") {
      llm = &v;
      llm_key = &key;
      continue;
    }
    if (v.is_table())
      reader.fail("", key, "unknown table (probity.toml has only [llm] and [llm.<role>] tables)");
    reader.fail("", key,
                key.str() == "cache" || key.str() == "cache_mode"
                    ? fmt::format("'{}' belongs in the [llm] table", key.str())
                    : std::string("unknown key (probity.toml has only the [llm] table)"));
  }
  if (llm == nullptr) return config;
  if (!llm->is_table()) reader.fail("", *llm_key, "expected a table [llm]");
  const auto& names = role_names();
  for (const auto& [key, v] : *llm->as_table()) {
    const std::string name(key.str());
    if (name == "cache") {
      config.cache_path = reader.string("llm", key, v);
    } else if (name == "cache_mode") {
      const std::string mode = reader.string("llm", key, v);
      try {
        config.cache_mode = parse_cache_mode(mode);
      } catch (const UsageError& e) {
        reader.fail("llm", key, e.what());
      }
    } else if (name == "budget_usd") {
      config.budget_usd = reader.number("llm", key, v, 0);
    } else if (std::find(names.begin(), names.end(), name) != names.end()) {
      if (!v.is_table()) reader.fail("llm", key, "expected a table [llm." + name + "]");
      config.roles[name] = reader.role("llm." + name, *v.as_table());
    } else if (v.is_table()) {
      reader.fail("llm", key, fmt::format("unknown role (expected {})", role_list()));
    } else {
      reader.fail("llm", key,
                  "unknown key (expected cache, cache_mode, budget_usd or a role table)");
    }
  }
  return config;
}

LlmConfig load_config(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  if (!in) throw ConfigError(path, 0, "", "cannot read the file");
  std::ostringstream text;
  text << in.rdbuf();
  return parse_config(text.str(), path);
}

void apply_cli_overrides(LlmConfig& config, const CliOverrides& o) {
  EndpointSettings& d = config.roles["default"];
  if (o.base_url) d.base_url = *o.base_url;
  if (o.model) d.model = *o.model;
  if (o.api_key_env) d.api_key_env = *o.api_key_env;
  if (o.concurrency) {
    if (*o.concurrency < 1 || *o.concurrency > 512)
      throw UsageError(fmt::format("--llm-concurrency must be 1..512, got {}", *o.concurrency));
    d.concurrency = *o.concurrency;
  }
  if (o.cache) config.cache_path = *o.cache;
  if (o.cache_mode) config.cache_mode = parse_cache_mode(*o.cache_mode);
  if (o.structured) d.structured = *o.structured;
  if (o.server) d.server = *o.server;
  if (o.batch) d.batch = *o.batch;
  if (o.batch_dir) d.batch_dir = *o.batch_dir;
  if (o.budget_usd) config.budget_usd = *o.budget_usd;
  if (o.max_tokens) {
    d.max_tokens = *o.max_tokens;
    d.max_completion_tokens.reset();
  }
}

namespace {
const char* env_value(const std::function<const char*(const char*)>& getenv, const char* name) {
  const char* v = getenv ? getenv(name) : std::getenv(name);
  return v && *v ? v : nullptr;
}
}  // namespace

bool environment_names_endpoint(const std::function<const char*(const char*)>& getenv) {
  return env_value(getenv, "OPENAI_BASE_URL") != nullptr;
}

void apply_environment(LlmConfig& config, const std::function<const char*(const char*)>& getenv) {
  EndpointSettings& d = config.roles["default"];
  if (!d.base_url)
    if (const char* v = env_value(getenv, "OPENAI_BASE_URL")) d.base_url = v;
  if (!d.model)
    if (const char* v = env_value(getenv, "OPENAI_MODEL")) d.model = v;
  // By name, like every key: the value stays in the environment until a client reads it.
  if (!d.api_key_env && env_value(getenv, "OPENAI_API_KEY")) d.api_key_env = "OPENAI_API_KEY";
}

}  // namespace probity::llm
