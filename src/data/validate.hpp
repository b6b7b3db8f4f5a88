#pragma once
// Small helpers shared by the JSONL and CSV readers.
#include <cstddef>
#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <string_view>

namespace probity::data {

// True when `s` holds only whitespace (an "empty text").
bool is_blank(std::string_view s);
// nlohmann's parse error text without its "[json.exception.parse_error.101] " prefix.
std::string short_json_message(std::string_view what);

// One JSONL line parsed, or nullopt with `message` (and, where it can be told, the `field` of a
// number too large for a double, such as 1e999) set.
std::optional<nlohmann::json> parse_json_line(const std::string& line, std::string& field,
                                              std::string& message);

}  // namespace probity::data
