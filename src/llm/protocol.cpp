// The OpenAI-compatible wire format: request bodies and cache keys, answer parsing for chat,
// completions (legacy echo log-probs and vLLM prompt_logprobs) and tokenize, error bodies.
#include <curl/curl.h>
#include <fmt/format.h>
#include <openssl/evp.h>

#include <algorithm>
#include <cctype>
#include <charconv>
#include <cmath>
#include <nlohmann/json.hpp>
#include <stdexcept>

#include "llm/internal.hpp"
#include "text/ascii.hpp"
#include "util/enum_names.hpp"
#include "util/hash.hpp"
#include "util/json_limits.hpp"
#include "util/random.hpp"

namespace probity::llm {

using nlohmann::json;
using ojson = nlohmann::ordered_json;

std::string sha256_hex(std::string_view data) {
  unsigned char digest[EVP_MAX_MD_SIZE];
  unsigned int length = 0;
  if (EVP_Digest(data.data(), data.size(), digest, &length, EVP_sha256(), nullptr) != 1)
    throw std::runtime_error("SHA-256 failed");
  static const char* hex = "0123456789abcdef";
  std::string out(2 * length, '0');
  for (unsigned int i = 0; i < length; ++i) {
    out[2 * i] = hex[digest[i] >> 4];
    out[2 * i + 1] = hex[digest[i] & 15];
  }
  return out;
}

namespace {
constexpr auto kErrorKinds = std::to_array<util::EnumName<ErrorKind>>({
    {ErrorKind::kNone, "none"},
    {ErrorKind::kInvalidRequest, "invalid_request"},
    {ErrorKind::kAuth, "auth"},
    {ErrorKind::kUnsupported, "unsupported"},
    {ErrorKind::kTls, "tls"},
    {ErrorKind::kTooLarge, "too_large"},
    {ErrorKind::kCircuitOpen, "circuit_open"},
    {ErrorKind::kRateLimited, "rate_limited"},
    {ErrorKind::kQuota, "quota"},
    {ErrorKind::kServer, "server"},
    {ErrorKind::kTimeout, "timeout"},
    {ErrorKind::kConnection, "connection"},
    {ErrorKind::kMalformed, "malformed"},
    {ErrorKind::kCacheMiss, "cache_miss"},
    {ErrorKind::kBatchExpired, "batch_expired"},
    {ErrorKind::kBatchFailed, "batch_failed"},
});
}  // namespace

std::string_view error_kind_name(ErrorKind kind) {
  return util::name_of(kErrorKinds, kind, "unknown");
}

ErrorKind detail::parse_error_kind(std::string_view name) {
  return util::parse_enum(kErrorKinds, name).value_or(ErrorKind::kBatchFailed);
}

ErrorKind detail::error_kind_of_status(int status, const std::string& body) {
  if (status == 429) return is_quota_exhausted(body) ? ErrorKind::kQuota : ErrorKind::kRateLimited;
  if (status == 408) return ErrorKind::kTimeout;
  if (is_deterministic_refusal(status, error_message(body))) return ErrorKind::kUnsupported;
  if (status == 401 || status == 403) return ErrorKind::kAuth;
  if (status >= 500) return ErrorKind::kServer;
  return ErrorKind::kInvalidRequest;
}

bool capability_absent(const Response& response) {
  return !response.ok && (response.error_kind == ErrorKind::kInvalidRequest ||
                          response.error_kind == ErrorKind::kUnsupported ||
                          response.error_kind == ErrorKind::kMalformed);
}

std::optional<std::string> header_problem(std::string_view name, std::string_view value) {
  if (name.empty()) return "empty header name";
  static constexpr std::string_view token_extra = "!#$%&'*+-.^_`|~";
  for (char c : name)
    if (!std::isalnum(static_cast<unsigned char>(c)) &&
        token_extra.find(c) == std::string_view::npos)
      return fmt::format("header name '{}' is not an HTTP token", name);
  const std::string lower = text::ascii_lower(name);
  if (lower == "authorization")
    return "Authorization is sent from api_key_env (Bearer); name the key's variable there";
  for (std::string_view own : {"content-type", "content-length", "accept", "expect", "host",
                               "transfer-encoding", "connection"})
    if (lower == own) return fmt::format("header '{}' is set by probity", name);
  for (char c : value)
    if ((static_cast<unsigned char>(c) < 0x20 && c != '\t') || c == 0x7f)
      return fmt::format("the value of header '{}' holds a control character (CR, LF, ...)", name);
  return std::nullopt;
}

const std::string& Response::text() const {
  static const std::string empty;
  return texts.empty() ? empty : texts.front();
}

namespace detail {
namespace {

// Invalid UTF-8 in a prompt must not abort a batch; it is sent (and hashed) as U+FFFD.
std::string dump(const json& j) {
  return j.dump(-1, ' ', false, json::error_handler_t::replace);
}

json parse_object(const std::string& text, const char* what) {
  json j = util::parse_json_or_discarded(text);
  if (j.is_discarded() || !j.is_object())
    throw std::invalid_argument(fmt::format("{} must be a JSON object: {}", what, text));
  return j;
}

}  // namespace

std::string normalize_base(std::string_view base_url) {
  while (!base_url.empty() && base_url.back() == '/') base_url.remove_suffix(1);
  return std::string(base_url);
}

std::string tokenize_url(std::string_view base_url) {
  std::string base = normalize_base(base_url);
  if (base.size() >= 3 && base.compare(base.size() - 3, 3, "/v1") == 0)
    base.resize(base.size() - 3);
  return base + "/tokenize";
}

WireRequest build_request(const EndpointConfig& config, const Request& request) {
  json body = json::object();
  if (!config.model.empty()) body["model"] = config.model;
  auto messages_json = [&] {
    json arr = json::array();
    for (const auto& m : request.messages)
      arr.push_back({{"role", m.role}, {"content", m.content}});
    return arr;
  };
  WireRequest wire;
  const std::string base = normalize_base(config.base_url);
  double prompt_chars = 0;
  for (const auto& m : request.messages) prompt_chars += static_cast<double>(m.content.size());
  prompt_chars += static_cast<double>(request.prompt.size());
  if (request.endpoint == Endpoint::kJson) {
    if (request.path.empty() || request.path.front() != '/')
      throw std::invalid_argument(
          fmt::format("a JSON request needs a path starting with '/', got '{}'", request.path));
    const json j = util::parse_json_or_discarded(request.body);
    if (j.is_discarded())
      throw std::invalid_argument(fmt::format("request body is not JSON: {}", request.body));
    wire.url = base + request.path;
    wire.body = dump(j);
    wire.key =
        sha256_hex(fmt::format("probity-llm-v1\n{}\n{}\n{}", wire.url, request.sample, wire.body));
    wire.est_tokens = std::ceil(static_cast<double>(request.body.size()) / 4.0);
    return wire;
  }
  switch (request.endpoint) {
    case Endpoint::kJson:  // answered above
      break;
    case Endpoint::kChat:
      wire.url = base + "/chat/completions";
      body["messages"] = messages_json();
      break;
    case Endpoint::kCompletion:
      wire.url = base + "/completions";
      if (!request.prompt_tokens.empty()) {
        body["prompt"] = request.prompt_tokens;
        prompt_chars = 4.0 * static_cast<double>(request.prompt_tokens.size());
      } else {
        body["prompt"] = request.prompt;
      }
      break;
    case Endpoint::kTokenize:
      wire.url = tokenize_url(config.base_url);
      if (!request.messages.empty()) {
        body["messages"] = messages_json();
      } else {
        // vLLM and SGLang read `prompt` and `add_special_tokens`; llama.cpp server reads
        // `content` and `add_special` (default false). Each ignores the other's fields, so one
        // body gets the ids with BOS from all three.
        body["prompt"] = request.prompt;
        body["add_special_tokens"] = true;
        body["content"] = request.prompt;
        body["add_special"] = true;
      }
      break;
  }
  int max_tokens = -1;
  int n = 1;
  if (request.endpoint != Endpoint::kTokenize) {
    // Omitted when configured as "default": OpenAI reasoning models reject any other value.
    if (auto t = request.temperature ? request.temperature : config.temperature)
      body["temperature"] = *t;
    if (request.max_tokens)
      max_tokens = *request.max_tokens;
    else if (config.max_completion_tokens)
      max_tokens = *config.max_completion_tokens;
    else if (config.max_tokens)
      max_tokens = *config.max_tokens;
    if (max_tokens >= 0) {
      const bool completion_tokens = !request.max_tokens && config.max_completion_tokens &&
                                     request.endpoint == Endpoint::kChat;
      body[completion_tokens ? "max_completion_tokens" : "max_tokens"] = max_tokens;
    }
    n = request.n.value_or(config.n);
    // Sent only when needed: Anthropic's layer refuses n != 1, llama.cpp any n beyond its slots.
    if (n != 1) body["n"] = n;
    // Samples of one request must differ even under a fixed seed.
    if (auto seed = request.seed ? request.seed : config.seed)
      body["seed"] = *seed + static_cast<std::int64_t>(request.sample);
    if (request.endpoint == Endpoint::kCompletion) {
      if (request.echo) body["echo"] = true;
      if (request.logprobs) body["logprobs"] = *request.logprobs;
    } else if (request.logprobs) {
      body["logprobs"] = true;
      body["top_logprobs"] = *request.logprobs;
    }
    if (request.prompt_logprobs) body["prompt_logprobs"] = *request.prompt_logprobs;
  }
  // Extra fields never replace a field probity set. A request's own extras come first (they are
  // more specific); the endpoint's extra_body goes to generation requests only.
  for (const auto& [text, what] :
       {std::pair{&request.extra, "request extra"}, std::pair{&config.extra_body, "extra_body"}}) {
    if (text->empty() || (text == &config.extra_body && request.endpoint == Endpoint::kTokenize))
      continue;
    const json extra = parse_object(*text, what);
    for (const auto& [field, value] : extra.items())
      if (!body.contains(field)) body[field] = value;
  }
  if (!request.schema.empty() && request.endpoint != Endpoint::kTokenize) {
    const json schema = parse_object(request.schema, "a request's answer schema");
    const json fields = structured_output_body(config, schema);
    // A user's own constraint (a grammar in extra_body, say) is what they asked for: kept, and
    // probity's not added next to it (servers refuse two).
    bool own = false;
    for (std::string_view field : structured_output_fields()) own = own || body.contains(field);
    if (!own && !fields.empty()) {
      wire.unstructured_body = dump(body);
      for (const auto& [field, value] : fields.items()) body[field] = value;
    }
  }
  wire.body = dump(body);
  // Everything that determines the answer: where it goes, what is sent (canonical JSON: sorted
  // keys, no spaces), which sample. The API key travels in a header and is never part of this.
  wire.key =
      sha256_hex(fmt::format("probity-llm-v1\n{}\n{}\n{}", wire.url, request.sample, wire.body));
  if (request.endpoint != Endpoint::kTokenize) {
    const double completion = max_tokens >= 0 ? max_tokens : 256.0;
    wire.est_tokens = std::ceil(prompt_chars / 4.0) + completion * std::max(n, 1);
  }
  return wire;
}

namespace {

std::string prefix(const std::string& s, std::size_t n = 200) {
  return s.size() <= n ? s : s.substr(0, n) + "...";
}

std::string string_or_empty(const ojson& j) {
  return j.is_string() ? j.get<std::string>() : "";
}

std::optional<double> number(const ojson& j) {
  if (j.is_number()) return j.get<double>();
  return std::nullopt;
}

// A token count from a usage object: -1 (unknown) unless a whole number a count can be; a broken
// server's 7.7e20 must not reach an integer conversion.
std::int64_t token_count(const ojson& j) {
  const auto d = number(j);
  if (!d) return 0;
  if (!(*d >= 0 && *d <= 9007199254740992.0) || std::floor(*d) != *d) return -1;
  return static_cast<std::int64_t>(*d);
}

std::int64_t parse_id(const std::string& s) {
  std::int64_t v = -1;
  auto [p, ec] = std::from_chars(s.data(), s.data() + s.size(), v);
  return ec == std::errc() && p == s.data() + s.size() ? v : -1;
}

// vLLM prompt_logprobs: [null, {"<id>": {"logprob", "rank", "decoded_token"}, ...}, ...]. The
// prompt token is listed first (object order is kept); with known ids we pick by id instead.
std::vector<TokenLogprob> parse_vllm_prompt_logprobs(const ojson& arr,
                                                     const std::vector<std::int64_t>& ids) {
  std::vector<TokenLogprob> out;
  out.reserve(arr.size());
  for (std::size_t i = 0; i < arr.size(); ++i) {
    const ojson& pos = arr[i];
    TokenLogprob t;
    if (i < ids.size()) t.id = ids[i];
    if (pos.is_object() && !pos.empty()) {
      auto chosen = pos.begin();
      if (t.id >= 0) {
        auto it = pos.find(std::to_string(t.id));
        if (it != pos.end()) chosen = it;
      }
      for (auto it = pos.begin(); it != pos.end(); ++it) {
        const ojson& entry = it.value();
        const std::string token =
            entry.is_object() ? string_or_empty(entry.value("decoded_token", ojson())) : "";
        const auto lp = entry.is_object() ? number(entry.value("logprob", ojson())) : std::nullopt;
        if (it == chosen) {
          t.id = parse_id(it.key());
          t.token = token;
          t.logprob = lp;
        }
        if (lp) t.top.emplace_back(token, *lp);
      }
    }
    out.push_back(std::move(t));
  }
  return out;
}

// Legacy completions logprobs: {tokens, token_logprobs, top_logprobs, text_offset}.
std::vector<TokenLogprob> parse_legacy_logprobs(const ojson& lp) {
  std::vector<TokenLogprob> out;
  const ojson tokens = lp.value("tokens", ojson::array());
  const ojson values = lp.value("token_logprobs", ojson::array());
  const ojson tops = lp.value("top_logprobs", ojson::array());
  if (!tokens.is_array() || !values.is_array()) return out;
  for (std::size_t i = 0; i < tokens.size(); ++i) {
    TokenLogprob t;
    t.token = string_or_empty(tokens[i]);
    if (i < values.size()) t.logprob = number(values[i]);
    if (tops.is_array() && i < tops.size() && tops[i].is_object())
      for (auto it = tops[i].begin(); it != tops[i].end(); ++it)
        if (auto v = number(it.value())) t.top.emplace_back(it.key(), *v);
    out.push_back(std::move(t));
  }
  return out;
}

// Chat logprobs: {content: [{token, logprob, top_logprobs: [{token, logprob}]}]}.
std::vector<TokenLogprob> parse_chat_logprobs(const ojson& lp) {
  std::vector<TokenLogprob> out;
  const ojson content = lp.value("content", ojson());
  if (!content.is_array()) return out;
  for (const auto& e : content) {
    if (!e.is_object()) continue;
    TokenLogprob t;
    t.token = string_or_empty(e.value("token", ojson()));
    t.logprob = number(e.value("logprob", ojson()));
    const ojson tops = e.value("top_logprobs", ojson());
    if (tops.is_array())
      for (const auto& a : tops)
        if (a.is_object())
          if (auto v = number(a.value("logprob", ojson())))
            t.top.emplace_back(string_or_empty(a.value("token", ojson())), *v);
    out.push_back(std::move(t));
  }
  return out;
}

std::vector<std::int64_t> int_list(const ojson& j) {
  std::vector<std::int64_t> out;
  if (!j.is_array()) return out;
  for (const auto& v : j)
    if (v.is_number_integer()) out.push_back(v.get<std::int64_t>());
  return out;
}

}  // namespace

std::string error_message(const std::string& body) {
  const ojson j = util::parse_json_or_discarded<ojson>(body);
  if (!j.is_discarded() && j.is_object()) {
    if (auto it = j.find("error"); it != j.end()) {
      if (it->is_string()) return it->get<std::string>();
      if (it->is_object() && it->contains("message") && (*it)["message"].is_string())
        return (*it)["message"].get<std::string>();
    }
    if (auto it = j.find("message"); it != j.end() && it->is_string())
      return it->get<std::string>();
    if (auto it = j.find("detail"); it != j.end())
      return it->is_string() ? it->get<std::string>() : it->dump();
  }
  if (body.empty()) return "(empty body)";
  return prefix(body);
}

std::string config_hint(const std::string& body, const EndpointConfig& config) {
  const ojson j = util::parse_json_or_discarded<ojson>(body);
  std::string param, message = error_message(body);
  if (!j.is_discarded() && j.is_object())
    if (auto e = j.find("error"); e != j.end() && e->is_object())
      param = string_or_empty(e->value("param", ojson()));
  auto mentions = [&](std::string_view word) {
    return param == word || message.find(fmt::format("'{}'", word)) != std::string::npos;
  };
  const std::string table = fmt::format("[llm.{}]", config.name);
  if (mentions("max_tokens"))
    return fmt::format("set max_completion_tokens instead of max_tokens in {} of the configuration",
                       table);
  if (mentions("temperature"))
    return fmt::format("set temperature = \"default\" in {} of the configuration", table);
  if (!param.empty()) {
    if (!config.extra_body.empty()) {
      const json extra = util::parse_json_or_discarded(config.extra_body);
      if (extra.is_object() && extra.contains(param))
        return fmt::format("remove '{}' from [llm.{}.extra_body] of the configuration", param,
                           config.name);
    }
    return fmt::format("the server rejects the parameter '{}' (see {} of the configuration)", param,
                       table);
  }
  return "";
}

bool is_deterministic_refusal(int status, const std::string& message) {
  if (status == 501) return true;
  // llama.cpp server; OpenAI's instruct models (since 2023).
  return (status == 500 && message.find("Only no echo is supported") != std::string::npos) ||
         (status == 400 && message.find("'echo' and 'logprobs'") != std::string::npos &&
          message.find("not supported") != std::string::npos);
}

bool is_quota_exhausted(const std::string& body) {
  const ojson j = ojson::parse(body, nullptr, false);
  if (j.is_discarded() || !j.is_object()) return false;
  auto e = j.find("error");
  if (e == j.end() || !e->is_object()) return false;
  for (const char* field : {"code", "type"})
    if (auto f = e->find(field);
        f != e->end() && f->is_string() && f->get<std::string>() == "insufficient_quota")
      return true;
  return false;
}

namespace {

bool parse_success_impl(const Request& request, const std::string& body, Response& out) {
  if (request.endpoint == Endpoint::kJson) {
    // The caller reads the body; here it only has to be JSON. Embedding servers answer with
    // arrays (TEI) or objects (vLLM); an object holding a non-null "error" is a failure.
    const json j = util::parse_json_or_discarded(body);
    if (j.is_discarded()) {
      out.error_kind = ErrorKind::kMalformed;
      out.error =
          fmt::format("malformed JSON in the answer ({} bytes): {}", body.size(), prefix(body));
      return false;
    }
    if (j.is_object() && j.contains("error") && !j["error"].is_null()) {
      out.error_kind = ErrorKind::kInvalidRequest;
      out.error = fmt::format("error object in a success answer: {}", error_message(body));
      return false;
    }
    out.ok = true;
    return true;
  }
  const ojson j = util::parse_json_or_discarded<ojson>(body);
  if (j.is_discarded() || !j.is_object()) {
    out.error_kind = ErrorKind::kMalformed;
    out.error =
        fmt::format("malformed JSON in the answer ({} bytes): {}", body.size(), prefix(body));
    return false;
  }
  if (j.contains("error") && !j["error"].is_null()) {
    out.error_kind = ErrorKind::kInvalidRequest;
    out.error = fmt::format("error object in a success answer: {}", error_message(body));
    return false;
  }
  out.texts.clear();
  out.finish_reasons.clear();
  out.prompt_logprobs.clear();
  out.logprobs.clear();
  out.has_prompt_logprobs = false;
  if (auto u = j.find("usage"); u != j.end() && u->is_object()) {
    out.usage.present = true;
    out.usage.prompt_tokens = token_count(u->value("prompt_tokens", ojson()));
    out.usage.completion_tokens = token_count(u->value("completion_tokens", ojson()));
    if (auto d = u->find("prompt_tokens_details"); d != u->end() && d->is_object())
      out.usage.cached_prompt_tokens = token_count(d->value("cached_tokens", ojson()));
  }
  if (request.endpoint == Endpoint::kTokenize) {
    auto t = j.find("tokens");
    if (t == j.end() || !t->is_array()) {
      out.error_kind = ErrorKind::kMalformed;
      out.error = fmt::format("tokenize answer without 'tokens': {}", prefix(body));
      return false;
    }
    out.tokens = int_list(*t);
    out.token_strs.clear();
    if (auto s = j.find("token_strs"); s != j.end() && s->is_array())
      for (const auto& v : *s) out.token_strs.push_back(string_or_empty(v));
    out.ok = true;
    return true;
  }
  auto choices_it = j.find("choices");
  if (choices_it == j.end() || !choices_it->is_array() || choices_it->empty()) {
    out.error_kind = ErrorKind::kMalformed;
    out.error = fmt::format("answer without 'choices': {}", prefix(body));
    return false;
  }
  // Servers may list choices out of order (n > 1 with parallel decoding).
  std::vector<const ojson*> choices;
  for (const auto& c : *choices_it) {
    if (!c.is_object()) {
      out.error_kind = ErrorKind::kMalformed;
      out.error = "a choice is not an object";
      return false;
    }
    choices.push_back(&c);
  }
  std::stable_sort(choices.begin(), choices.end(), [](const ojson* a, const ojson* b) {
    return a->value("index", 0) < b->value("index", 0);
  });
  for (const ojson* c : choices) {
    if (request.endpoint == Endpoint::kChat) {
      auto m = c->find("message");
      if (m == c->end() || !m->is_object()) {
        out.error_kind = ErrorKind::kMalformed;
        out.error = fmt::format("chat choice without 'message': {}", prefix(body));
        return false;
      }
      out.texts.push_back(string_or_empty(m->value("content", ojson())));  // null content: ""
    } else {
      auto t = c->find("text");
      if (t == c->end() || !t->is_string()) {
        out.error_kind = ErrorKind::kMalformed;
        out.error = fmt::format("completion choice without 'text': {}", prefix(body));
        return false;
      }
      out.texts.push_back(t->get<std::string>());
    }
    out.finish_reasons.push_back(string_or_empty(c->value("finish_reason", ojson())));
  }

  const ojson& first = *choices.front();
  // Prompt token ids, to pick each position's own entry in prompt_logprobs.
  std::vector<std::int64_t> ids = request.prompt_tokens;
  if (ids.empty()) ids = int_list(first.value("prompt_token_ids", ojson()));
  if (ids.empty()) ids = int_list(j.value("prompt_token_ids", ojson()));
  const ojson* vllm = nullptr;
  if (auto p = first.find("prompt_logprobs"); p != first.end() && p->is_array())
    vllm = &*p;
  else if (auto q = j.find("prompt_logprobs"); q != j.end() && q->is_array())
    vllm = &*q;
  if (vllm) {
    out.prompt_logprobs = parse_vllm_prompt_logprobs(*vllm, ids);
    out.has_prompt_logprobs = true;
  }
  if (auto lp = first.find("logprobs"); lp != first.end() && lp->is_object()) {
    if (request.endpoint == Endpoint::kChat) {
      out.logprobs = parse_chat_logprobs(*lp);
    } else {
      std::vector<TokenLogprob> all = parse_legacy_logprobs(*lp);
      // Servers that do not implement echo (llama.cpp server, newer hosted models) accept the
      // flag and return the completion alone: then the list holds no prompt tokens at all.
      const bool echoed =
          request.echo && (request.prompt.empty() ? all.size() >= request.prompt_tokens.size()
                                                  : out.texts.front().starts_with(request.prompt));
      // With echo the list covers prompt + generated tokens; find where the prompt ends. A list
      // shorter than the prompt holds generated tokens only (SGLang given logprobs 0).
      std::optional<std::size_t> prompt_len;
      if (echoed) {
        if (!request.prompt_tokens.empty()) {
          prompt_len = request.prompt_tokens.size();
        } else if (out.usage.present) {
          if (out.usage.prompt_tokens >= 0 &&
              static_cast<std::size_t>(out.usage.prompt_tokens) <= all.size())
            prompt_len = static_cast<std::size_t>(out.usage.prompt_tokens);
        } else if (auto off = lp->find("text_offset"); off != lp->end() && off->is_array()) {
          // Character offsets (Python str indices), as OpenAI reports them.
          std::size_t chars = 0;
          for (unsigned char c : request.prompt) chars += (c & 0xC0) != 0x80;
          std::size_t n = 0;
          for (const auto& o : *off)
            if (o.is_number() && o.get<double>() >= 0 &&
                o.get<double>() < static_cast<double>(chars))
              ++n;
          if (n > 0) prompt_len = n;
        }
      }
      if (prompt_len) {
        const auto cut =
            all.begin() + static_cast<std::ptrdiff_t>(std::min(*prompt_len, all.size()));
        if (!vllm) {
          out.prompt_logprobs.assign(all.begin(), cut);
          out.has_prompt_logprobs = true;
        }
        out.logprobs.assign(cut, all.end());
      } else {
        out.logprobs = std::move(all);
      }
    }
  }
  out.ok = true;
  return true;
}

}  // namespace

bool parse_success(const Request& request, const std::string& body, Response& out) {
  try {
    return parse_success_impl(request, body, out);
  } catch (const nlohmann::json::exception& e) {
    // A field of an unexpected type (e.g. a string index).
    out.ok = false;
    out.error_kind = ErrorKind::kMalformed;
    out.error = fmt::format("unexpected answer structure: {}", e.what());
    return false;
  }
}

std::optional<double> parse_retry_after(std::string_view value, std::time_t now) {
  while (!value.empty() && (value.front() == ' ' || value.front() == '\t')) value.remove_prefix(1);
  while (!value.empty() && (value.back() == ' ' || value.back() == '\t' || value.back() == '\r' ||
                            value.back() == '\n'))
    value.remove_suffix(1);
  if (value.empty()) return std::nullopt;
  if (std::all_of(value.begin(), value.end(),
                  [](char c) { return (c >= '0' && c <= '9') || c == '.'; })) {
    double seconds = 0;
    auto [p, ec] = std::from_chars(value.data(), value.data() + value.size(), seconds);
    if (ec != std::errc() || p != value.data() + value.size()) return std::nullopt;
    return seconds;
  }
  const std::string date(value);
  const std::time_t t = curl_getdate(date.c_str(), nullptr);
  if (t == -1) return std::nullopt;
  return std::max(0.0, static_cast<double>(t - now));
}

double backoff_delay(const EndpointConfig& config, std::string_view key, int retry) {
  const double cap = std::min(config.backoff_max_s,
                              config.backoff_base_s * std::ldexp(1.0, std::max(retry - 1, 0)));
  util::Rng rng(config.jitter_seed ^ util::fnv1a64(key), static_cast<std::uint64_t>(retry));
  const double u = static_cast<double>(rng.next() >> 11) * 0x1.0p-53;
  return u * std::max(cap, 0.0);
}

TokenBucket::TokenBucket(double limit, double period_s) {
  if (limit <= 0 || period_s <= 0) return;
  rate_ = limit / period_s;
  capacity_ = std::max(rate_ * std::min(1.0, period_s), 1.0);
  level_ = capacity_;
}

void TokenBucket::refill(double now) {
  if (now > last_) {
    level_ = std::min(capacity_, level_ + (now - last_) * rate_);
    last_ = now;
  }
}

double TokenBucket::wait(double cost, double now) {
  if (!enabled()) return 0;
  refill(now);
  const double need = std::min(cost, capacity_);
  return level_ >= need ? 0.0 : (need - level_) / rate_;
}

void TokenBucket::spend(double cost, double now) {
  if (!enabled()) return;
  refill(now);
  level_ -= cost;
}

void TokenBucket::adjust(double delta, double now) {
  if (!enabled()) return;
  refill(now);
  level_ = std::min(capacity_, level_ + delta);
}

}  // namespace detail
}  // namespace probity::llm
