#include "metrics/lexical_common.hpp"

#include <algorithm>

#include "probity/text.hpp"

namespace probity::metrics::detail {

std::string lower(std::string_view s) {
  if (std::all_of(s.begin(), s.end(),
                  [](char c) { return static_cast<unsigned char>(c) < 0x80; })) {
    std::string out(s);
    for (char& c : out)
      if (c >= 'A' && c <= 'Z') c = static_cast<char>(c - 'A' + 'a');
    return out;
  }
  return text::to_lower(s);
}

}  // namespace probity::metrics::detail
