#include "predict/llm_common.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <atomic>
#include <cctype>
#include <cmath>
#include <fstream>
#include <set>
#include <sstream>

#include "probity/error.hpp"

#ifndef PROBITY_PROMPTS_DIR
#error "PROBITY_PROMPTS_DIR must name the prompts/ directory (set by CMake)"
#endif

namespace probity::llm {

std::string trim(std::string_view s) {
  std::size_t b = 0, e = s.size();
  while (b < e && std::isspace(static_cast<unsigned char>(s[b]))) ++b;
  while (e > b && std::isspace(static_cast<unsigned char>(s[e - 1]))) --e;
  return std::string(s.substr(b, e - b));
}
namespace {

std::mutex g_session_mutex;
std::shared_ptr<Session> g_session;
std::atomic<std::uint64_t> g_session_ids{1};

std::string lower(std::string_view s) {
  std::string out(s);
  for (auto& c : out) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  return out;
}

// The body of the first ``` fence when the answer has one (models like to wrap JSON in fences).
std::string strip_fences(std::string_view text) {
  auto open = text.find("```");
  if (open == std::string_view::npos) return std::string(text);
  auto line_end = text.find('\n', open);
  if (line_end == std::string_view::npos) return std::string(text);
  auto close = text.find("```", line_end);
  return std::string(text.substr(
      line_end + 1, (close == std::string_view::npos ? text.size() : close) - line_end - 1));
}

// The first balanced {...} of `s` (quotes of either kind respected), or "" when none.
std::string first_object(const std::string& s) {
  auto start = s.find('{');
  if (start == std::string::npos) return {};
  int depth = 0;
  char quote = 0;
  for (std::size_t i = start; i < s.size(); ++i) {
    char c = s[i];
    if (quote) {
      if (c == '\\') {
        ++i;
      } else if (c == quote) {
        quote = 0;
      }
      continue;
    }
    if (c == '"' || c == '\'') {
      quote = c;
    } else if (c == '{') {
      ++depth;
    } else if (c == '}' && --depth == 0) {
      return s.substr(start, i - start + 1);
    }
  }
  return {};
}

// Python-style literals: single-quoted strings and True/False/None outside strings.
std::string pythonic_to_json(const std::string& s) {
  std::string out;
  char quote = 0;
  for (std::size_t i = 0; i < s.size(); ++i) {
    char c = s[i];
    if (quote) {
      if (c == '\\' && i + 1 < s.size()) {
        out += c;
        out += s[++i];
      } else if (c == quote) {
        out += '"';
        quote = 0;
      } else if (c == '"' && quote == '\'') {
        out += "\\\"";
      } else {
        out += c;
      }
      continue;
    }
    if (c == '"' || c == '\'') {
      quote = c;
      out += '"';
      continue;
    }
    auto word_at = [&](std::string_view w) {
      return s.compare(i, w.size(), w) == 0 &&
             (i == 0 || !std::isalnum(static_cast<unsigned char>(s[i - 1]))) &&
             (i + w.size() >= s.size() ||
              !std::isalnum(static_cast<unsigned char>(s[i + w.size()])));
    };
    if (word_at("True")) {
      out += "true";
      i += 3;
    } else if (word_at("False")) {
      out += "false";
      i += 4;
    } else if (word_at("None")) {
      out += "null";
      i += 3;
    } else {
      out += c;
    }
  }
  return out;
}

std::optional<bool> yes_no_word(std::string_view raw) {
  std::string w = lower(trim(raw));
  while (!w.empty() && std::ispunct(static_cast<unsigned char>(w.back()))) w.pop_back();
  if (w == "yes" || w == "true") return true;
  if (w == "no" || w == "false") return false;
  return std::nullopt;
}

}  // namespace

// ---- Session -----------------------------------------------------------------------------------

Session::Session(LlmConfig config)
    : config_(std::move(config)), cache_(config_.open_cache()), id_(g_session_ids++) {}

std::shared_ptr<Session> Session::current_or_null() {
  std::lock_guard lock(g_session_mutex);
  return g_session;
}

std::shared_ptr<Session> Session::current() {
  auto s = current_or_null();
  if (!s)
    throw UsageError(
        "this metric needs an LLM endpoint: give --config probity.toml or --llm-base-url "
        "(and --llm-model) to the command");
  return s;
}

void Session::install(std::shared_ptr<Session> session) {
  std::lock_guard lock(g_session_mutex);
  g_session = std::move(session);
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
  auto client = std::make_unique<Client>(std::move(cfg), opts);
  auto& ref = *client;
  clients_.emplace(std::string(role), std::move(client));
  return ref;
}

// ---- Prompt templates --------------------------------------------------------------------------

std::string PromptTemplate::render(const std::map<std::string, std::string>& values) const {
  // One pass over the template: inserted values are never rescanned, so a candidate that
  // contains "{target}" stays as written.
  std::string out;
  std::set<std::string> used;
  std::size_t from = 0;
  while (true) {
    const auto open = text.find('{', from);
    if (open == std::string::npos) break;
    const auto close = text.find('}', open + 1);
    if (close == std::string::npos) break;
    auto it = values.find(text.substr(open + 1, close - open - 1));
    if (it == values.end()) {
      out.append(text, from, open + 1 - from);
      from = open + 1;
      continue;
    }
    out.append(text, from, open - from);
    out += it->second;
    used.insert(it->first);
    from = close + 1;
  }
  out.append(text, from);
  for (const auto& [key, value] : values)
    if (!used.count(key))
      throw std::invalid_argument(
          fmt::format("prompt template '{}' has no placeholder {{{}}}", name, key));
  return out;
}

PromptTemplate load_prompt(const std::string& name, const std::string& dir) {
  const std::string base = dir.empty() ? std::string(PROBITY_PROMPTS_DIR) : dir;
  const std::string path = base + "/" + name + ".txt";
  std::ifstream in(path, std::ios::binary);
  if (!in) throw UsageError(fmt::format("prompt template not found: {}", path));
  std::ostringstream s;
  s << in.rdbuf();
  PromptTemplate t;
  t.name = name;
  t.text = s.str();
  t.sha256 = sha256_hex(t.text);
  return t;
}

// ---- Structured answers ------------------------------------------------------------------------

std::optional<nlohmann::json> parse_json_answer(std::string_view text, std::string& error) {
  const std::string body = trim(strip_fences(text));
  if (body.empty()) {
    error = "empty answer";
    return std::nullopt;
  }
  const std::string object = first_object(body);
  if (object.empty()) {
    if (auto b = yes_no_word(body)) return nlohmann::json{{"answer", *b}};
    // A leading "Yes." or "No, because ..." is an answer too; anything longer is not.
    std::string first = body.substr(0, body.find_first_of(" \n\t,"));
    if (auto b = yes_no_word(first)) return nlohmann::json{{"answer", *b}};
    error = "the answer holds no JSON object";
    return std::nullopt;
  }
  for (const std::string& attempt : {object, pythonic_to_json(object)}) {
    auto j = nlohmann::json::parse(attempt, nullptr, false);
    if (!j.is_discarded() && j.is_object()) return j;
  }
  error = fmt::format("not valid JSON: {}", object.substr(0, 200));
  return std::nullopt;
}

std::optional<bool> get_bool_field(const nlohmann::json& j, const std::string& field,
                                   std::string& error) {
  const nlohmann::json* v = nullptr;
  if (j.contains(field)) {
    v = &j.at(field);
  } else if (j.contains("answer")) {
    v = &j.at("answer");
  }
  if (v == nullptr) {
    error = fmt::format("the JSON object has no \"{}\" field", field);
    return std::nullopt;
  }
  if (v->is_boolean()) return v->get<bool>();
  if (v->is_string())
    if (auto b = yes_no_word(v->get<std::string>())) return b;
  error = fmt::format("\"{}\" must be true or false, got {}", field, v->dump());
  return std::nullopt;
}

std::optional<int> get_int_field(const nlohmann::json& j, const std::string& field, int lo, int hi,
                                 std::string& error) {
  if (!j.contains(field)) {
    error = fmt::format("the JSON object has no \"{}\" field", field);
    return std::nullopt;
  }
  const auto& v = j.at(field);
  std::optional<double> d;
  if (v.is_number()) {
    d = v.get<double>();
  } else if (v.is_string()) {
    try {
      std::size_t used = 0;
      std::string s = trim(v.get<std::string>());
      double x = std::stod(s, &used);
      if (used == s.size()) d = x;
    } catch (const std::exception&) {
    }
  }
  if (!d || std::floor(*d) != *d || *d < lo || *d > hi) {
    error = fmt::format("\"{}\" must be an integer from {} to {}, got {}", field, lo, hi, v.dump());
    return std::nullopt;
  }
  return static_cast<int>(*d);
}

void FailureTally::add(std::string_view error) {
  std::lock_guard lock(mutex_);
  ++counts_[std::string(error.substr(0, error.find('\n')))];
}

std::map<std::string, std::size_t> FailureTally::by_reason() const {
  std::lock_guard lock(mutex_);
  return counts_;
}

std::size_t FailureTally::total() const {
  std::lock_guard lock(mutex_);
  std::size_t n = 0;
  for (const auto& [reason, count] : counts_) n += count;
  return n;
}

std::vector<Answer> ask_structured(Client& client, const std::vector<std::string>& prompts,
                                   const AnswerParser& parser, int max_reasks,
                                   const std::vector<std::uint32_t>& samples,
                                   const std::vector<std::int64_t>& seeds) {
  std::vector<Answer> out(prompts.size());
  std::vector<std::vector<Message>> conv(prompts.size());
  std::vector<std::size_t> pending(prompts.size());
  for (std::size_t i = 0; i < prompts.size(); ++i) {
    conv[i] = {{"user", prompts[i]}};
    pending[i] = i;
  }
  for (int round = 0; round <= max_reasks && !pending.empty(); ++round) {
    std::vector<Request> batch;
    batch.reserve(pending.size());
    for (std::size_t i : pending) {
      Request r;
      r.endpoint = Endpoint::kChat;
      r.messages = conv[i];
      r.sample = samples.empty() ? 0 : samples[i];
      if (!seeds.empty()) r.seed = seeds[i];
      batch.push_back(std::move(r));
    }
    auto responses = client.run(batch);
    std::vector<std::size_t> again;
    for (std::size_t k = 0; k < pending.size(); ++k) {
      const std::size_t i = pending[k];
      Answer& a = out[i];
      ++a.asks;
      const Response& r = responses[k];
      if (!r.ok) {
        // Transport failures were already retried by the client; re-asking would repeat them.
        a.error = fmt::format("request failed ({}): {}", error_kind_name(r.error_kind), r.error);
        continue;
      }
      std::string error;
      auto parsed = parse_json_answer(r.text(), error);
      std::optional<nlohmann::json> value;
      if (parsed) value = parser(i, *parsed, error);
      if (value) {
        a.ok = true;
        a.value = std::move(*value);
        a.error.clear();
        continue;
      }
      a.error = "unparseable answer: " + error;
      conv[i].push_back({"assistant", r.text()});
      conv[i].push_back(
          {"user", fmt::format("Your answer could not be used ({}). Reply again with only the "
                               "JSON object requested, nothing else.",
                               error)});
      again.push_back(i);
    }
    pending = std::move(again);
  }
  EndpointUsage delta;
  delta.questions = prompts.size();
  for (const Answer& a : out) {
    delta.reasks += static_cast<std::uint64_t>(std::max(a.asks - 1, 0));
    if (!a.ok && a.error.starts_with("unparseable")) ++delta.unparsed;
  }
  client.accounting().add(client.config().name, client.config().model, delta);
  return out;
}

}  // namespace probity::llm
