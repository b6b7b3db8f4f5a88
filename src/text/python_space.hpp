#pragma once
// Python's idea of whitespace, which the reference tools (sacreBLEU, bert-score) strip and split
// on: str.isspace() over code points, and str.strip() on UTF-8 text.
#include <string_view>

namespace probity::text {

// The code points for which Python's str.isspace() is true.
constexpr bool is_python_space(char32_t c) {
  return (c >= 0x09 && c <= 0x0D) || (c >= 0x1C && c <= 0x20) || c == 0x85 || c == 0xA0 ||
         c == 0x1680 || (c >= 0x2000 && c <= 0x200A) || c == 0x2028 || c == 0x2029 || c == 0x202F ||
         c == 0x205F || c == 0x3000;
}

// Python's str.strip() on UTF-8 text: `s` without those code points at either end (bytes that
// are not well-formed UTF-8 are not space).
std::string_view python_strip(std::string_view s);

}  // namespace probity::text
