// UTF-8 decoding (text/utf8.hpp): the offsets of the first ill-formed sequence are the ones
// Python's strict decoder reports (UnicodeDecodeError.start of bytes.decode("utf-8")).
#include "text/utf8.hpp"

#include <gtest/gtest.h>

#include <string>
#include <utility>
#include <vector>

#include "probity/text.hpp"
#include "text/python_space.hpp"

namespace probity::text {
namespace {

TEST(Utf8, TheFirstIllFormedSequenceIsWherePythonsDecoderStops) {
  const std::vector<std::pair<std::string, std::size_t>> cases = {
      {"", 0},
      {"plain", 5},
      {"caf\xc3\xa9", 5},
      {"\xe2\x82\xac", 3},
      {"\xf0\x9f\x98\x80", 4},
      {"\xc0\x80", 0},          // overlong NUL
      {"\xc1\xbf", 0},          // overlong
      {"\xe0\x80\x80", 0},      // overlong, 3 bytes
      {"\xe0\x9f\xbf", 0},      // overlong U+07FF
      {"\xed\xa0\x80", 0},      // surrogate U+D800
      {"\xed\x9f\xbf", 3},      // U+D7FF, the last before the surrogates
      {"\xf0\x8f\xbf\xbf", 0},  // overlong, 4 bytes
      {"\xf4\x90\x80\x80", 0},  // past U+10FFFF
      {"\xf4\x8f\xbf\xbf", 4},  // U+10FFFF
      {"\xf5\x80\x80\x80", 0},
      {"\xff", 0},
      {"\x80", 0},        // a lone continuation byte
      {"ab\xe2\x82", 2},  // truncated
      {"ab\xe2\x82\xac"
       "c\xc3",
       6},
      {"\xc3\xa9\xc3", 2},
  };
  for (const auto& [bytes, offset] : cases) {
    EXPECT_EQ(first_invalid_utf8(bytes), offset) << testing::PrintToString(bytes);
    EXPECT_EQ(is_valid_utf8(bytes), offset == bytes.size()) << testing::PrintToString(bytes);
  }
}

TEST(Utf8, DecodesOneCharacterAndItsLength) {
  char32_t cp = 0;
  EXPECT_EQ(decode_utf8("a", cp), 1u);
  EXPECT_EQ(cp, U'a');
  EXPECT_EQ(decode_utf8("\xc3\xa9x", cp), 2u);
  EXPECT_EQ(cp, U'\u00e9');
  EXPECT_EQ(decode_utf8("\xe2\x82\xac", cp), 3u);
  EXPECT_EQ(cp, U'\u20ac');
  EXPECT_EQ(decode_utf8("\xf0\x9f\x98\x80", cp), 4u);
  EXPECT_EQ(cp, U'\U0001F600');
  EXPECT_EQ(decode_utf8("\xe2\x82", cp), 0u);  // truncated
  EXPECT_EQ(decode_utf8("\xc0\x80", cp), 0u);  // overlong
}

TEST(Utf8, EncodingAndSurrogateEscapesRoundTrip) {
  std::string out;
  for (char32_t cp : {U'a', U'\u00e9', U'\u20ac', U'\U0001F600'}) append_utf8(out, cp);
  EXPECT_EQ(out, "a\xc3\xa9\xe2\x82\xac\xf0\x9f\x98\x80");
  // Python's surrogateescape: an undecodable byte b is U+DC00+b, and encodes back to b.
  EXPECT_EQ(escaped_byte(0xff), char32_t{0xDCFF});
  std::string escaped;
  append_utf8_escaped(escaped, escaped_byte(0xff));
  append_utf8_escaped(escaped, U'\u00e9');
  EXPECT_EQ(escaped, "\xff\xc3\xa9");
}

TEST(Utf8, PythonStripRemovesStrIsspaceAtBothEnds) {
  EXPECT_EQ(python_strip(" \t\u00a0a b\u3000\n"), "a b");
  EXPECT_EQ(python_strip("\u2028\u205f"), "");
  EXPECT_EQ(python_strip("x\u200b"), "x\u200b");          // zero-width space is not str.isspace
  const std::string lone = std::string(1, '\x85') + "a";  // a lone byte 0x85 is not U+0085
  EXPECT_EQ(python_strip(lone), lone);
  EXPECT_TRUE(is_python_space(U'\u0085'));
  EXPECT_FALSE(is_python_space(U'\u200b'));
}

}  // namespace
}  // namespace probity::text
