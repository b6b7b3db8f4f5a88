#include "util/json_limits.hpp"

#include <fmt/format.h>

namespace probity::util {

std::optional<JsonHazard> json_hazard(std::string_view text, std::size_t max_depth) {
  std::size_t depth = 0;
  bool in_string = false;
  for (std::size_t i = 0; i < text.size(); ++i) {
    const char c = text[i];
    if (c == '\0')
      return JsonHazard{i, "NUL byte (JSON text cannot hold one; inside a string write \\u0000)"};
    if (in_string) {
      if (c == '\\' && i + 1 < text.size() && text[i + 1] != '\0')
        ++i;
      else if (c == '"')
        in_string = false;
    } else if (c == '"') {
      in_string = true;
    } else if (c == '[' || c == '{') {
      if (++depth > max_depth)
        return JsonHazard{
            i, fmt::format("arrays and objects nested deeper than {} levels", max_depth)};
    } else if ((c == ']' || c == '}') && depth > 0) {
      --depth;
    }
  }
  return std::nullopt;
}

}  // namespace probity::util
