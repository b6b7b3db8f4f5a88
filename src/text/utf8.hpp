#pragma once
// UTF-8 decoding through utf8proc, for the scanners that walk text byte by byte (chrF's
// characters, display widths, validation). utf8proc's rules: no overlong forms, UTF-16
// surrogates or code points past U+10FFFF.
#include <utf8proc.h>

#include <cstddef>
#include <string_view>

namespace probity::text {

// The first character of `s` (not empty): its length in bytes, 0 when `s` does not start with a
// well-formed sequence; `cp` is set to its code point.
inline std::size_t decode_utf8(std::string_view s, char32_t& cp) {
  utf8proc_int32_t c = 0;
  const utf8proc_ssize_t n = utf8proc_iterate(reinterpret_cast<const utf8proc_uint8_t*>(s.data()),
                                              static_cast<utf8proc_ssize_t>(s.size()), &c);
  if (n <= 0) return 0;
  cp = static_cast<char32_t>(c);
  return static_cast<std::size_t>(n);
}

// The byte offset of the first ill-formed sequence; s.size() when `s` is valid UTF-8.
std::size_t first_invalid_utf8(std::string_view s);

}  // namespace probity::text
