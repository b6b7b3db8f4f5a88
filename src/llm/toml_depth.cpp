#include "llm/toml_depth.hpp"

#include <vector>

namespace probity::llm::detail {

std::size_t toml_too_deep(std::string_view text, std::size_t max_depth) {
  std::size_t line = 1;
  // Dotted-key components seen at each open bracket level (the first entry: outside any), and
  // their sum; a comma or, at the top, a line break starts the next key.
  std::vector<std::size_t> dots{0};
  std::size_t dot_sum = 0;
  auto depth = [&] { return dots.size() - 1 + dot_sum; };
  // Skips a string opened at i by `quote` (escapes only in basic strings); returns the index of
  // its last character. An unterminated string ends at the line break (or the end) for the
  // parser to report.
  auto skip_string = [&](std::size_t i, char quote) {
    const bool multi = text.substr(i, 3) == std::string_view(quote == '"' ? "\"\"\"" : "'''");
    for (std::size_t j = i + (multi ? 3 : 1); j < text.size(); ++j) {
      const char c = text[j];
      if (c == '\\' && quote == '"') {
        if (j + 1 < text.size() && text[j + 1] == '\n') ++line;
        ++j;
      } else if (c == '\n') {
        if (!multi) return j - 1;
        ++line;
      } else if (c == quote && (!multi || text.substr(j, 3) == text.substr(i, 3))) {
        return multi ? j + 2 : j;
      }
    }
    return text.size();
  };
  for (std::size_t i = 0; i < text.size(); ++i) {
    const char c = text[i];
    switch (c) {
      case '#':
        while (i + 1 < text.size() && text[i + 1] != '\n') ++i;
        break;
      case '"':
      case '\'':
        i = skip_string(i, c);
        break;
      case '[':
      case '{':
        dots.push_back(0);
        if (depth() > max_depth) return line;
        break;
      case ']':
      case '}':
        if (dots.size() > 1) {
          dot_sum -= dots.back();
          dots.pop_back();
        }
        break;
      case '.':
        ++dots.back();
        ++dot_sum;
        if (depth() > max_depth) return line;
        break;
      case ',':
        dot_sum -= dots.back();
        dots.back() = 0;
        break;
      case '\n':
        ++line;
        if (dots.size() == 1) dot_sum = dots.back() = 0;
        break;
      default:
        break;
    }
  }
  return 0;
}

}  // namespace probity::llm::detail
