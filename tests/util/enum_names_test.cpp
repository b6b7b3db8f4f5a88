#include "util/enum_names.hpp"

#include <gtest/gtest.h>

#include <array>

namespace probity::util {
namespace {

enum class Colour { kRed, kGreen, kBlue };

constexpr auto kColours = std::to_array<EnumName<Colour>>({
    {Colour::kRed, "red"},
    {.value = Colour::kRed, .name = "rouge", .printed = false},
    {Colour::kGreen, "green"},
    {.value = Colour::kGreen, .name = "vert", .printed = false, .listed = false},
});

TEST(EnumNames, PrintsTheFirstPrintedNameAndParsesEverySpelling) {
  static_assert(name_of(kColours, Colour::kRed) == "red");
  EXPECT_EQ(name_of(kColours, Colour::kGreen), "green");
  EXPECT_EQ(name_of(kColours, Colour::kBlue), "?");
  EXPECT_EQ(name_of(kColours, Colour::kBlue, "unknown"), "unknown");
  EXPECT_EQ(parse_enum(kColours, "rouge"), Colour::kRed);
  EXPECT_EQ(parse_enum(kColours, "vert"), Colour::kGreen);
  EXPECT_EQ(parse_enum(kColours, "Red"), std::nullopt);
}

TEST(EnumNames, ListsTheListedSpellingsInTableOrder) {
  EXPECT_EQ(listed_names(kColours), "red, rouge, green");
  EXPECT_EQ(listed_names(kColours, " or "), "red, rouge or green");
}

}  // namespace
}  // namespace probity::util
