// Report examples are bounded excerpts of the edited texts (a 50 MB
// candidate was copied whole into every strategy's example and each report format).
#include "audit/excerpt.hpp"

#include <gtest/gtest.h>

#include <string>

namespace probity::audit {
namespace {

std::string words(std::size_t n, const std::string& word) {
  std::string s;
  for (std::size_t i = 0; i < n; ++i) s += (i ? " " : "") + word + std::to_string(i);
  return s;
}

bool valid_utf8(const std::string& s) {
  for (std::size_t i = 0; i < s.size();) {
    const auto c = static_cast<unsigned char>(s[i]);
    const std::size_t len = c < 0x80         ? 1
                            : (c >> 5) == 6  ? 2
                            : (c >> 4) == 14 ? 3
                            : (c >> 3) == 30 ? 4
                                             : 0;
    if (len == 0 || i + len > s.size()) return false;
    for (std::size_t k = 1; k < len; ++k)
      if ((static_cast<unsigned char>(s[i + k]) & 0xC0) != 0x80) return false;
    i += len;
  }
  return true;
}

TEST(Excerpt, ShortTextsAreShownWhole) {
  const auto e = excerpt_edit("the cat sat", "the dog sat");
  EXPECT_EQ(e.original, "the cat sat");
  EXPECT_EQ(e.edited, "the dog sat");
}

TEST(Excerpt, ALongTextKeepsTheEditWithContextAndMarksTheCuts) {
  const std::string before = words(20000, "w");  // ~130 kB
  std::string after = before;
  const std::size_t at = after.find(" w10000 ");
  after.replace(at, 8, " EDITED ");
  const auto e = excerpt_edit(before, after);
  EXPECT_LT(e.original.size(), 1000u);
  EXPECT_LT(e.edited.size(), 1000u);
  EXPECT_NE(e.original.find("w10000"), std::string::npos);
  EXPECT_NE(e.edited.find("EDITED"), std::string::npos);
  EXPECT_TRUE(e.original.starts_with("\u2026 ")) << e.original.substr(0, 20);
  EXPECT_TRUE(e.edited.ends_with(" \u2026")) << e.edited;
  // Both share the same context, so a word diff of the excerpts is the edit alone.
  EXPECT_EQ(e.original.substr(0, e.original.find("w10000")),
            e.edited.substr(0, e.edited.find("EDITED")));
}

TEST(Excerpt, AChangedMiddleLongerThanTheLimitKeepsItsEnds) {
  const std::string before = words(100000, "a");
  const std::string after = words(100000, "b");  // differs from the second byte on
  const auto e = excerpt_edit(before, after, 300, 2000);
  EXPECT_LE(e.original.size(), 2400u);
  EXPECT_LE(e.edited.size(), 2400u);
  EXPECT_NE(e.edited.find("\u2026"), std::string::npos);
  EXPECT_TRUE(e.edited.starts_with("b0 b1"));
  EXPECT_TRUE(e.edited.ends_with("b99999"));
}

TEST(Excerpt, CutsFallOnCharacterBoundaries) {
  std::string before;
  for (int i = 0; i < 5000; ++i) before += "\u00e9\u4e2d";  // 2- and 3-byte characters, no spaces
  // One character changed into another sharing its first two bytes (E4 B8 AD to E4 B8 AE):
  // the common beginning ends inside a character.
  std::string after = before;
  const std::size_t at = after.find("\u4e2d", before.size() / 2);
  after.replace(at, 3, "\u4e2e");
  for (std::size_t context : {0u, 1u, 7u, 300u})
    for (std::size_t limit : {0u, 3u, 2000u}) {
      const auto e = excerpt_edit(before, after, context, limit);
      EXPECT_TRUE(valid_utf8(e.original)) << context << " " << limit;
      EXPECT_TRUE(valid_utf8(e.edited)) << context << " " << limit;
    }
}

}  // namespace
}  // namespace probity::audit
