// util/json_limits.hpp: the guards in front of nlohmann's parser (deep nesting and NUL bytes).
#include "util/json_limits.hpp"

#include <gtest/gtest.h>

#include <string>

namespace probity::util {
namespace {

std::string nested(std::size_t depth) {
  return std::string(depth, '[') + std::string(depth, ']');
}

TEST(JsonLimits, NestingPastTheLimitIsAHazardAtItsByte) {
  EXPECT_FALSE(json_hazard(nested(kMaxJsonDepth)).has_value());
  const auto deep = json_hazard(nested(kMaxJsonDepth + 1));
  ASSERT_TRUE(deep.has_value());
  EXPECT_EQ(deep->byte, kMaxJsonDepth);  // the bracket that opens one level too many
  EXPECT_NE(deep->message.find("nested deeper than"), std::string::npos) << deep->message;
  // Objects count as arrays do; closing brackets give the levels back.
  std::string siblings;
  for (int i = 0; i < 1000; ++i) siblings += R"({"a": [1, {"b": 2}]},)";
  EXPECT_FALSE(json_hazard("[" + siblings + "0]").has_value());
  EXPECT_TRUE(json_hazard(std::string(kMaxJsonDepth + 1, '{')).has_value());
}

TEST(JsonLimits, BracketsInsideStringsDoNotCount) {
  const std::string in_string =
      "[\"" + std::string(1000, '[') + "\\\"" + std::string(1000, '{') + "\", \"]]]\"]";
  EXPECT_FALSE(json_hazard(in_string).has_value());
  EXPECT_NO_THROW(parse_json(in_string));
}

TEST(JsonLimits, ANulByteIsAHazardWhereverItIs) {
  using namespace std::string_literals;
  const std::string task = R"({"task_id": "t"})";
  for (const std::string& text : {task + "\0garbage"s, "{\"a\": \"x\0y\"}"s, "\0"s}) {
    const auto hazard = json_hazard(text);
    ASSERT_TRUE(hazard.has_value());
    EXPECT_EQ(hazard->byte, text.find('\0'));
    EXPECT_NE(hazard->message.find("NUL"), std::string::npos);
  }
  // nlohmann alone takes the NUL for the end of the input and accepts the task before it.
  const auto truncated = nlohmann::json::parse(task + "\0garbage"s);
  EXPECT_EQ(truncated, nlohmann::json::parse(task));
  EXPECT_THROW(parse_json(task + "\0garbage"s), nlohmann::json::parse_error);
  EXPECT_TRUE(parse_json_or_discarded(task + "\0garbage"s).is_discarded());
}

TEST(JsonLimits, ParsersRefuseHazardsAndReadTheRest) {
  EXPECT_THROW(parse_json(nested(100000)), nlohmann::json::parse_error);
  EXPECT_TRUE(parse_json_or_discarded(nested(100000)).is_discarded());
  EXPECT_TRUE(parse_json_or_discarded<nlohmann::ordered_json>(nested(100000)).is_discarded());
  EXPECT_EQ(parse_json(R"({"a": [1, 2]})")["a"][1], 2);
  EXPECT_EQ(parse_json_or_discarded<nlohmann::ordered_json>(R"({"b": 1, "a": 2})").begin().key(),
            "b");
  EXPECT_TRUE(parse_json_or_discarded("{").is_discarded());
  EXPECT_THROW(parse_json("{"), nlohmann::json::parse_error);
}

}  // namespace
}  // namespace probity::util
