#include "data/validate.hpp"

#include "probity/text.hpp"

namespace probity::data {

bool is_blank(std::string_view s) {
  for (char c : s)
    if (c != ' ' && c != '\t' && c != '\n' && c != '\r' && c != '\f' && c != '\v') return false;
  return true;
}

std::size_t first_invalid_utf8(std::string_view s) {
  // Walk sequence by sequence; the first one that does not validate is the culprit.
  std::size_t i = 0;
  while (i < s.size()) {
    std::size_t len = 1;
    auto c = static_cast<unsigned char>(s[i]);
    if (c >= 0xF0) {
      len = 4;
    } else if (c >= 0xE0) {
      len = 3;
    } else if (c >= 0xC0) {
      len = 2;
    }
    if (i + len > s.size() || !text::is_valid_utf8(s.substr(i, len))) return i;
    i += len;
  }
  return s.size();
}

std::string short_json_message(std::string_view what) {
  auto pos = what.find("] ");
  std::string_view msg = pos == std::string_view::npos ? what : what.substr(pos + 2);
  return std::string(msg);
}

}  // namespace probity::data
