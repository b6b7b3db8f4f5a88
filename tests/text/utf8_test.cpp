// UTF-8 decoding (text/utf8.hpp): the offsets of the first ill-formed sequence are the ones
// Python's strict decoder reports (UnicodeDecodeError.start of bytes.decode("utf-8")).
#include "text/utf8.hpp"

#include <gtest/gtest.h>

#include <string>
#include <utility>
#include <vector>

#include "probity/text.hpp"

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

}  // namespace
}  // namespace probity::text
