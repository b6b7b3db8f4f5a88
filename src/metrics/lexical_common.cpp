#include "metrics/lexical_common.hpp"

#include <algorithm>

#include "probity/text.hpp"
#include "text/ascii.hpp"

namespace probity::metrics::detail {

std::string lower(std::string_view s) {
  if (std::all_of(s.begin(), s.end(),
                  [](char c) { return static_cast<unsigned char>(c) < 0x80; })) {
    return text::ascii_lower(s);
  }
  return text::to_lower(s);
}

}  // namespace probity::metrics::detail
