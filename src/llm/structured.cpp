#include "llm/structured.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <cctype>
#include <cmath>
#include <utility>
#include <vector>

#include "text/ascii.hpp"
#include "util/json_limits.hpp"

namespace probity::llm {

std::string trim(std::string_view s) {
  return std::string(text::trim_ascii_space(s));
}
namespace {

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

// Every top-level balanced {...} of `s` (quotes of either kind respected), in order.
std::vector<std::string> top_level_objects(const std::string& s) {
  std::vector<std::string> out;
  std::size_t from = 0;
  while (true) {
    const auto start = s.find('{', from);
    if (start == std::string::npos) return out;
    int depth = 0;
    char quote = 0;
    std::size_t i = start;
    for (; i < s.size(); ++i) {
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
        break;
      }
    }
    if (i >= s.size()) return out;  // unbalanced: what follows is not an object
    out.push_back(s.substr(start, i - start + 1));
    from = i + 1;
  }
}

// The answer without reasoning: a model served without a reasoning parser writes its thinking,
// which can hold draft JSON, into the content as <think>...</think>.
std::string strip_reasoning(std::string_view text) {
  std::string out(text);
  for (const auto& [open, close] :
       {std::pair<std::string_view, std::string_view>{"<think>", "</think>"},
        {"<thinking>", "</thinking>"},
        {"<reasoning>", "</reasoning>"}}) {
    // A chat template that opens the block itself leaves only its end in the answer.
    if (auto c = out.find(close); c != std::string::npos && out.rfind(open, c) == std::string::npos)
      out.erase(0, c + close.size());
    for (auto o = out.find(open); o != std::string::npos; o = out.find(open, o)) {
      const auto c = out.find(close, o);
      // Unclosed: the model stopped while thinking; nothing after it is an answer.
      out.erase(o, c == std::string::npos ? std::string::npos : c + close.size() - o);
    }
  }
  return out;
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
  std::string w = text::ascii_lower(trim(raw));
  while (!w.empty() && std::ispunct(static_cast<unsigned char>(w.back()))) w.pop_back();
  if (w == "yes" || w == "true") return true;
  if (w == "no" || w == "false") return false;
  return std::nullopt;
}

}  // namespace

// ---- Structured answers ------------------------------------------------------------------------

std::optional<nlohmann::json> parse_json_answer(std::string_view text, std::string& error) {
  const std::string body = trim(strip_fences(strip_reasoning(text)));
  if (body.empty()) {
    error = text.find("<think") != std::string_view::npos
                ? "empty answer after the reasoning block (it may have used up max_tokens)"
                : "empty answer";
    return std::nullopt;
  }
  const std::vector<std::string> objects = top_level_objects(body);
  if (objects.empty()) {
    if (auto b = yes_no_word(body)) return nlohmann::json{{"answer", *b}};
    // A leading "Yes." or "No, because ..." is an answer too; anything longer is not.
    std::string first = body.substr(0, body.find_first_of(" \n\t,"));
    if (auto b = yes_no_word(first)) return nlohmann::json{{"answer", *b}};
    error = "the answer holds no JSON object";
    return std::nullopt;
  }
  auto parse = [](const std::string& object) -> std::optional<nlohmann::json> {
    for (const std::string& attempt : {object, pythonic_to_json(object)}) {
      auto j = util::parse_json_or_discarded(attempt);
      if (!j.is_discarded() && j.is_object()) return j;
    }
    return std::nullopt;
  };
  auto first = parse(objects.front());
  if (!first) {
    error = fmt::format("not valid JSON: {}", objects.front().substr(0, 200));
    return std::nullopt;
  }
  // Two different answers in one reply (a draft and a correction, say): neither is the answer.
  for (std::size_t k = 1; k < objects.size(); ++k) {
    auto other = parse(objects[k]);
    if (other && *other != *first) {
      error = fmt::format("the answer holds {} different JSON objects; give exactly one",
                          objects.size());
      return std::nullopt;
    }
  }
  return first;
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

std::string describe_failure(const Answer& answer) {
  switch (answer.failure) {
    case Answer::Failure::kRequest:
      return fmt::format("the request failed ({})", answer.detail);
    case Answer::Failure::kUnparseable: {
      const int reasks = std::max(answer.asks - 1, 0);
      return fmt::format("the answer stayed unparseable after {} re-ask{} ({})", reasks,
                         reasks == 1 ? "" : "s", answer.detail);
    }
    case Answer::Failure::kNone:
      break;
  }
  return answer.error;
}

std::vector<Answer> ask_structured(Client& client, const std::vector<std::string>& prompts,
                                   const AnswerSchema& schema, const AnswerParser& parser,
                                   int max_reasks, const std::vector<std::uint32_t>& samples,
                                   const std::vector<std::int64_t>& seeds) {
  std::vector<Answer> out(prompts.size());
  std::vector<std::vector<Message>> conv(prompts.size());
  std::vector<std::size_t> pending(prompts.size());
  std::vector<std::string> schemas(prompts.size());
  for (std::size_t i = 0; i < prompts.size(); ++i) {
    if (schema) schemas[i] = schema(i).dump();
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
      r.schema = schemas[i];
      r.sample = samples.empty() ? 0 : samples[i];
      if (!seeds.empty()) r.seed = seeds[i];
      batch.push_back(std::move(r));
    }
    auto responses = client.run(batch);
    std::vector<std::size_t> again;
    std::vector<Request> unusable;  // answered, but not with what was asked
    for (std::size_t k = 0; k < pending.size(); ++k) {
      const std::size_t i = pending[k];
      Answer& a = out[i];
      ++a.asks;
      const Response& r = responses[k];
      if (!r.ok) {
        // Transport failures were already retried by the client; re-asking would repeat them.
        a.error = fmt::format("request failed ({}): {}", error_kind_name(r.error_kind), r.error);
        a.failure = Answer::Failure::kRequest;
        a.check.clear();
        a.detail = r.http_error() ? r.error
                                  : fmt::format("{}: {}", error_kind_name(r.error_kind), r.error);
        continue;
      }
      std::string error;
      auto parsed = parse_json_answer(r.text(), error);
      std::optional<nlohmann::json> value;
      std::string check;
      if (parsed) {
        try {
          value = parser(i, *parsed, error);
        } catch (const ContentCheckFailed& failed) {
          check = failed.check;
          error = fmt::format("{}: {}", failed.check, failed.message);
        }
      }
      a.check = std::move(check);
      if (value) {
        a.ok = true;
        a.value = std::move(*value);
        a.error.clear();
        a.failure = Answer::Failure::kNone;
        a.detail.clear();
        a.check.clear();
        continue;
      }
      // A grammar-constrained answer cut by max_tokens is the usual way a small model fails.
      if (!r.finish_reasons.empty() && r.finish_reasons.front() == "length")
        error = fmt::format("the answer was cut off by max_tokens ({}) ({})",
                            client.config().max_completion_tokens
                                ? *client.config().max_completion_tokens
                                : client.config().max_tokens.value_or(-1),
                            error);
      a.error = "unparseable answer: " + error;
      a.failure = Answer::Failure::kUnparseable;
      a.detail = error;
      unusable.push_back(batch[k]);
      conv[i].push_back({"assistant", r.text()});
      conv[i].push_back(
          {"user", fmt::format("Your answer could not be used ({}). Reply again with only the "
                               "JSON object requested, nothing else.",
                               error)});
      again.push_back(i);
    }
    // A batch file run stops at every round and replays the answers so far when rerun: its
    // unusable answers stay cached, or each rerun would ask the first question again and never
    // reach the re-ask that the last import answered.
    if (client.config().batch != BatchMode::kFile) client.forget(unusable);
    pending = std::move(again);
  }
  EndpointUsage delta;
  delta.questions = prompts.size();
  for (const Answer& a : out) {
    delta.reasks += static_cast<std::uint64_t>(std::max(a.asks - 1, 0));
    if (a.failure == Answer::Failure::kUnparseable) {
      ++delta.unparsed;
      if (!a.check.empty()) ++delta.rejected_by_check[a.check];
    }
  }
  client.accounting().add(client.config().name, client.config().model, delta);
  return out;
}

}  // namespace probity::llm
