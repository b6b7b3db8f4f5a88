#include <unicode/locid.h>
#include <unicode/unistr.h>
#include <utf8proc.h>

#include <algorithm>
#include <cstdlib>
#include <memory>
#include <stdexcept>

#include "probity/text.hpp"
#include "text/ascii.hpp"
#include "text/python_space.hpp"
#include "text/utf8.hpp"

namespace probity::text {

std::size_t first_invalid_utf8(std::string_view s) {
  char32_t cp = 0;
  std::size_t i = 0;
  while (i < s.size()) {
    const std::size_t n = decode_utf8(s.substr(i), cp);
    if (n == 0) return i;
    i += n;
  }
  return s.size();
}

std::string_view python_strip(std::string_view s) {
  // An ill-formed byte counts as a non-space character of one byte.
  const auto next = [&](std::size_t i, char32_t& cp) {
    const std::size_t n = decode_utf8(s.substr(i), cp);
    if (n > 0) return n;
    cp = 0xFFFD;
    return std::size_t{1};
  };
  std::size_t begin = 0;
  char32_t cp = 0;
  while (begin < s.size()) {
    const std::size_t n = next(begin, cp);
    if (!is_python_space(cp)) break;
    begin += n;
  }
  std::size_t end = begin;
  for (std::size_t i = begin; i < s.size();) {  // the end of the last non-space character
    i += next(i, cp);
    if (!is_python_space(cp)) end = i;
  }
  return s.substr(begin, end - begin);
}

bool is_valid_utf8(std::string_view s) {
  return first_invalid_utf8(s) == s.size();
}

std::string normalize_unicode(std::string_view s, bool compat) {
  utf8proc_uint8_t* out = nullptr;
  auto options = static_cast<utf8proc_option_t>(UTF8PROC_STABLE | UTF8PROC_COMPOSE |
                                                (compat ? UTF8PROC_COMPAT : 0));
  utf8proc_ssize_t n = utf8proc_map(reinterpret_cast<const utf8proc_uint8_t*>(s.data()),
                                    static_cast<utf8proc_ssize_t>(s.size()), &out, options);
  if (n < 0) throw std::invalid_argument(std::string("invalid UTF-8: ") + utf8proc_errmsg(n));
  std::unique_ptr<utf8proc_uint8_t, decltype(&std::free)> guard(out, &std::free);
  return std::string(reinterpret_cast<const char*>(out), static_cast<std::size_t>(n));
}

std::string to_lower(std::string_view s) {
  // ASCII text: ICU's root-locale lower-casing changes only A-Z there.
  if (std::all_of(s.begin(), s.end(), [](char c) { return static_cast<unsigned char>(c) < 0x80; }))
    return ascii_lower(s);
  std::string out;
  icu::UnicodeString::fromUTF8(icu::StringPiece(s.data(), static_cast<int32_t>(s.size())))
      .toLower(icu::Locale::getRoot())
      .toUTF8String(out);
  return out;
}

bool is_blank(std::string_view s) {
  for (char c : s)
    if (c != ' ' && c != '\t' && c != '\n' && c != '\r' && c != '\f' && c != '\v') return false;
  return true;
}

}  // namespace probity::text
