#include "llm/structured.hpp"

#include <gtest/gtest.h>

#include <atomic>

#include "llm/llm_test_util.hpp"
#include "llm/mock_server.hpp"
#include "llm/schema.hpp"

namespace probity::test {
namespace {

using nlohmann::json;

std::optional<json> parse(std::string_view text, std::string& error) {
  return llm::parse_json_answer(text, error);
}

// A reasoning model served without a reasoning parser puts its thinking into the content, where
// it can hold a draft answer.
TEST(StructuredAnswer, ReasoningBlocksAreNotTheAnswer) {
  std::string err;
  auto j =
      parse("<think>Maybe {\"level\": 1}? No, the text says more.</think>\n{\"level\": 3}", err);
  ASSERT_TRUE(j) << err;
  EXPECT_EQ((*j)["level"], 3);
  // The chat template opened the block; only its end is in the answer.
  j = parse(
      "The candidate mentions both facts {\"supported\": false}... </think>{\"supported\": true}",
      err);
  ASSERT_TRUE(j) << err;
  EXPECT_EQ((*j)["supported"], true);
  j = parse("<thinking>{\"level\": -3}</thinking> ```json\n{\"level\": 2}\n```", err);
  ASSERT_TRUE(j) << err;
  EXPECT_EQ((*j)["level"], 2);
  // Stopped while thinking (max_tokens used up): no answer, and the draft is not taken.
  EXPECT_FALSE(parse("<think>First {\"level\": 1} then", err));
  EXPECT_NE(err.find("reasoning block"), std::string::npos) << err;
}

TEST(StructuredAnswer, TwoDifferentObjectsAreUnparsedNotTheFirst) {
  std::string err;
  EXPECT_FALSE(parse("{\"level\": 1}\nCorrection: {\"level\": 2}", err));
  EXPECT_NE(err.find("2 different JSON objects"), std::string::npos) << err;
  // The same object twice is one answer; braces in prose after it are not an object.
  auto j = parse("{\"level\": 2}\n{\"level\": 2}", err);
  ASSERT_TRUE(j) << err;
  EXPECT_EQ((*j)["level"], 2);
  j = parse("{\"level\": 2} (see {the text} for why)", err);
  ASSERT_TRUE(j) << err;
  EXPECT_EQ((*j)["level"], 2);
}

TEST(StructuredAnswer, AnAnswerWithTwoObjectsIsReasked) {
  MockServer server;
  std::atomic<int> calls{0};
  server.set_handler([&](const json&) -> std::string {
    return calls++ == 0 ? "{\"level\": 1} or rather {\"level\": 3}" : "{\"level\": 3}";
  });
  llm::Client client(mock_endpoint(server));
  auto parser = [](std::size_t, const json& j, std::string& error) -> std::optional<json> {
    return llm::get_int_field(j, "level", -3, 3, error);
  };
  auto answers = llm::ask_structured(client, {"Rate it."}, {}, parser, 2);
  ASSERT_TRUE(answers[0].ok) << answers[0].error;
  EXPECT_EQ(answers[0].value, 3);
  EXPECT_EQ(answers[0].asks, 2);
  const auto usage = client.accounting().total();
  EXPECT_EQ(usage.reasks, 1u);
  EXPECT_EQ(usage.unparsed, 0u);
  // The re-ask told the model why.
  const json second = json::parse(server.calls().back().body);
  EXPECT_NE(second["messages"].back()["content"].get<std::string>().find("different JSON objects"),
            std::string::npos);
}

// Every ask carries its prompt's schema (re-asks too), in the shapes the schema builders make:
// all properties required, nothing else allowed, small integer ranges enumerated.
TEST(StructuredAnswer, EachQuestionSendsItsSchemaAndReasksDoToo) {
  MockServer server;
  std::atomic<int> calls{0};
  server.set_handler(
      [&](const json&) -> std::string { return calls++ == 0 ? "five" : "{\"rating\": 5}"; });
  llm::Client client(mock_endpoint(server));
  auto parser = [](std::size_t, const json& j, std::string& error) -> std::optional<json> {
    return llm::get_int_field(j, "rating", 1, 5, error);
  };
  const auto schema = [](std::size_t) {
    return llm::schema::object({{"rating", llm::schema::integer(1, 5)}});
  };
  auto answers = llm::ask_structured(client, {"Rate it."}, schema, parser, 2);
  ASSERT_TRUE(answers[0].ok) << answers[0].error;
  ASSERT_EQ(server.count(), 2u);
  const json want = {{"type", "object"},
                     {"properties", {{"rating", {{"type", "integer"}, {"enum", {1, 2, 3, 4, 5}}}}}},
                     {"required", {"rating"}},
                     {"additionalProperties", false}};
  for (const auto& call : server.calls())
    EXPECT_EQ(json::parse(call.body)["response_format"]["json_schema"]["schema"], want);
  EXPECT_EQ(llm::schema::integer(0, 100),
            (json{{"type", "integer"}, {"minimum", 0}, {"maximum", 100}}));
  EXPECT_EQ(
      llm::schema::array(llm::schema::boolean(), 3, 3),
      (json{
          {"type", "array"}, {"items", {{"type", "boolean"}}}, {"minItems", 3}, {"maxItems", 3}}));
  EXPECT_EQ(llm::schema::nullable(llm::schema::string())["anyOf"][1], (json{{"type", "null"}}));
  EXPECT_EQ(llm::schema::string_enum({"A", "B"}), (json{{"type", "string"}, {"enum", {"A", "B"}}}));
}

// A well-formed answer that fails a content check is re-asked, and when it stays so it is
// counted under the check's name (the exit message and usage table name it).
TEST(StructuredAnswer, AContentCheckFailureIsCountedUnderItsName) {
  MockServer server;
  server.set_handler([](const json&) -> std::string { return R"({"text": "far too long"})"; });
  llm::Client client(mock_endpoint(server));
  auto parser = [](std::size_t, const json&, std::string&) -> std::optional<json> {
    throw llm::ContentCheckFailed{"over the cap", "the text has 3 words; the cap is 1"};
  };
  auto answers = llm::ask_structured(client, {"Shorten it."}, {}, parser, 1);
  EXPECT_FALSE(answers[0].ok);
  EXPECT_NE(answers[0].error.find("over the cap: the text has 3 words"), std::string::npos)
      << answers[0].error;
  // The kind travels with the answer: callers need not read it back from the message.
  EXPECT_EQ(answers[0].failure, llm::Answer::Failure::kUnparseable);
  EXPECT_EQ(answers[0].check, "over the cap");
  EXPECT_EQ(server.count(), 2u);
  const json reask = json::parse(server.calls().back().body);
  EXPECT_NE(reask["messages"].back()["content"].get<std::string>().find("the cap is 1"),
            std::string::npos);
  const auto usage = client.accounting().total();
  EXPECT_EQ(usage.unparsed, 1u);
  EXPECT_EQ(usage.rejected_by_check.at("over the cap"), 1u);
  EXPECT_NE(client.accounting().summary().find("failed a content check: over the cap 1"),
            std::string::npos);
}

}  // namespace
}  // namespace probity::test
