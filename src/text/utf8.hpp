#pragma once
// UTF-8 decoding through utf8proc, for the scanners that walk text byte by byte (chrF's
// characters, display widths, validation). utf8proc's rules: no overlong forms, UTF-16
// surrogates or code points past U+10FFFF.
#include <utf8proc.h>

#include <cstddef>
#include <string>
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

// Unicode code points of a UTF-8 text, as Python's len() on it (a malformed byte counts as one).
inline std::size_t code_points(std::string_view s) {
  std::size_t n = 0;
  while (!s.empty()) {
    char32_t cp = 0;
    const std::size_t len = decode_utf8(s, cp);
    s.remove_prefix(len == 0 ? 1 : len);
    ++n;
  }
  return n;
}

// Appends the UTF-8 encoding of `cp` (a code point of at most U+10FFFF).
inline void append_utf8(std::string& out, char32_t cp) {
  utf8proc_uint8_t buf[4];
  const utf8proc_ssize_t n = utf8proc_encode_char(static_cast<utf8proc_int32_t>(cp), buf);
  out.append(reinterpret_cast<const char*>(buf), static_cast<std::size_t>(n));
}

// Python's "surrogateescape" error handler, as sacreBLEU's tokenizers see undecodable input: a
// byte that starts no well-formed sequence is the code point U+DC00 + byte (U+DC80..U+DCFF) when
// decoding, and that code point is the byte again when encoding.
constexpr char32_t escaped_byte(unsigned char byte) {
  return 0xDC00 + byte;
}
inline void append_utf8_escaped(std::string& out, char32_t cp) {
  if (cp >= 0xDC80 && cp <= 0xDCFF)
    out.push_back(static_cast<char>(cp - 0xDC00));
  else
    append_utf8(out, cp);
}

// The byte offset of the first ill-formed sequence; s.size() when `s` is valid UTF-8.
std::size_t first_invalid_utf8(std::string_view s);

}  // namespace probity::text
