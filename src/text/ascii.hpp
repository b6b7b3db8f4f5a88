#pragma once
// ASCII case and whitespace, locale-independent: the reference tools' and the prompts' parsers
// work on ASCII here (Unicode case folding is text::to_lower).
#include <string>
#include <string_view>

namespace probity::text {

// The six characters C's isspace accepts in the "C" locale.
constexpr bool is_ascii_space(char c) {
  return c == ' ' || c == '\t' || c == '\n' || c == '\r' || c == '\f' || c == '\v';
}

constexpr char ascii_lower(char c) {
  return c >= 'A' && c <= 'Z' ? static_cast<char>(c - 'A' + 'a') : c;
}

inline std::string ascii_lower(std::string_view s) {
  std::string out(s);
  for (char& c : out) c = ascii_lower(c);
  return out;
}

// `s` without leading and trailing ASCII whitespace.
inline std::string_view trim_ascii_space(std::string_view s) {
  while (!s.empty() && is_ascii_space(s.front())) s.remove_prefix(1);
  while (!s.empty() && is_ascii_space(s.back())) s.remove_suffix(1);
  return s;
}

}  // namespace probity::text
