#pragma once
// Guards for nlohmann's JSON parser on untrusted text (data files, score files, LLM responses).
// The parser itself is iterative, but what it builds is copied, compared and printed (dump)
// recursively: a value nested 100k levels deep overflows the stack there. And the parser takes a
// NUL byte for the end of the input, accepting whatever came before it and ignoring the rest.
#include <cstddef>
#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <string_view>

namespace probity::util {

// Deeper than any input probity reads (a task is 4 levels deep) and far from the stack's limit.
inline constexpr std::size_t kMaxJsonDepth = 128;

// Why `text` must not be parsed: where (0-based byte) and what.
struct JsonHazard {
  std::size_t byte = 0;
  std::string message;
};

// A NUL byte, or an array or object opened past `max_depth` levels (outside strings); nullopt
// when neither. Linear, without allocating; malformed JSON is left to the parser.
std::optional<JsonHazard> json_hazard(std::string_view text, std::size_t max_depth = kMaxJsonDepth);

// json::parse(text) that throws json::parse_error for a hazard too.
template <class Json = nlohmann::json>
Json parse_json(std::string_view text) {
  if (auto hazard = json_hazard(text))
    throw Json::parse_error::create(101, hazard->byte + 1, hazard->message, nullptr);
  return Json::parse(text);
}

// json::parse(text, nullptr, false): discarded for malformed JSON or a hazard.
template <class Json = nlohmann::json>
Json parse_json_or_discarded(std::string_view text) {
  if (json_hazard(text)) return Json(Json::value_t::discarded);
  return Json::parse(text, nullptr, false);
}

}  // namespace probity::util
