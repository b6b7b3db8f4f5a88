// Tests of the contract fakes themselves: raw JSON over httplib (not probity's client), one test
// per behaviour documented in tests/llm/fakes/SOURCES.md.
#include "llm/fakes/fake_server.hpp"

#include <gtest/gtest.h>
#include <httplib.h>
#include <unistd.h>

#include <cctype>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <set>

namespace probity::test {
namespace {

using json = nlohmann::json;

struct Resp {
  int status = 0;
  std::string raw;
  json body;
  httplib::Headers headers;
};

Resp send(const FakeServer& s, const std::string& method, const std::string& path,
          const json& body = json::object(), httplib::Headers headers = {},
          const std::string& content_type = "application/json") {
  httplib::Client cli("127.0.0.1", s.port());
  httplib::Result res = method == "GET"
                            ? cli.Get(path.c_str(), headers)
                            : cli.Post(path.c_str(), headers, body.dump(), content_type.c_str());
  Resp r;
  if (!res) return r;
  r.status = res->status;
  r.raw = res->body;
  r.headers = res->headers;
  r.body = json::parse(res->body, nullptr, false);
  return r;
}

Resp post(const FakeServer& s, const std::string& path, const json& body,
          httplib::Headers headers = {}) {
  return send(s, "POST", path, body, std::move(headers));
}

FakeOptions opts(Flavour f, std::string tokenizer = "llama3", std::string model = "fake-model") {
  FakeOptions o;
  o.flavour = f;
  o.tokenizer = std::move(tokenizer);
  o.model = std::move(model);
  return o;
}

const std::string kArticle = "Article: Rates rose on Wednesday.\n\n";
const std::string kMood = "Mood: \xF0\x9F\xA6\x99 llama time";
const std::string kReply = "Restatement: rates rose.";

std::vector<std::int64_t> ids_with_bos(const std::string& tok, const std::string& text) {
  std::vector<std::int64_t> ids;
  if (auto bos = fixture_bos(tok)) ids.push_back(*bos);
  const auto& t = fixture_tokens(tok, text);
  ids.insert(ids.end(), t.ids.begin(), t.ids.end());
  return ids;
}

double lp_at(const std::vector<std::int64_t>& ids, std::size_t i) {
  return fake_logprob(std::span<const std::int64_t>(ids.data(), i), ids[i]);
}

// ---------------------------------------------------------------------------------------------
// The table and the fixtures

TEST(FakeLogprob, IsDeterministicInContextAndToken) {
  const std::vector<std::int64_t> ctx{128000, 44};
  EXPECT_EQ(fake_logprob(ctx, 1411), fake_logprob(ctx, 1411));
  EXPECT_NE(fake_logprob(ctx, 1411), fake_logprob(std::vector<std::int64_t>{44}, 1411));
  for (std::int64_t t = 0; t < 200; ++t) {
    const double v = fake_logprob(ctx, t);
    EXPECT_LE(v, -0.25);
    EXPECT_GE(v, -10.24);
    EXPECT_GE(fake_rank(ctx, t), 1);
    EXPECT_LE(fake_rank(ctx, t), 3);
  }
}

TEST(FakeFixture, DecodesAsHfDoesForByteLevelAndSentencepiece) {
  const auto& t = fixture_tokens("llama2", kArticle);
  EXPECT_EQ(t.pieces[0],
            "\xE2\x96\x81"
            "Article");
  EXPECT_EQ(fixture_decode_one("llama2", t.ids[0]), "Article");  // Strip decoder
  EXPECT_EQ(fixture_decode_one("llama2", t.ids[2]), "R");
  const auto& mood = fixture_tokens("llama2", kMood);
  EXPECT_EQ(fixture_decode_one("llama2", mood.ids[4]), "\xEF\xBF\xBD");  // <0xF0> alone
  auto ids = ids_with_bos("llama2", kArticle);
  EXPECT_EQ(fixture_decode("llama2", ids), "<s> " + kArticle);
  EXPECT_EQ(fixture_decode("llama2", ids, true), kArticle);
  EXPECT_EQ(fixture_decode("llama3", ids_with_bos("llama3", kMood)), "<|begin_of_text|>" + kMood);
  const auto& m3 = fixture_tokens("llama3", kMood);
  EXPECT_EQ(fixture_decode_one("llama3", m3.ids[3]), " \xEF\xBF\xBD");
  EXPECT_EQ(fixture_decode_one("llama3", *fixture_bos("llama3")), "<|begin_of_text|>");
  EXPECT_FALSE(fixture_bos("cl100k").has_value());
}

TEST(FakeFixture, UnknownTextIsAnErrorNamingItAndIsRecorded) {
  const auto record = std::filesystem::temp_directory_path() /
                      ("probity-fixture-record-" + std::to_string(getpid()) + ".txt");
  std::filesystem::remove(record);
  ::setenv("PROBITY_FIXTURE_RECORD", record.c_str(), 1);
  FakeServer s(opts(Flavour::kVllm));
  const auto r = post(s, "/tokenize", {{"prompt", "no such text in any fixture"}});
  ::unsetenv("PROBITY_FIXTURE_RECORD");
  EXPECT_EQ(r.status, 500);
  EXPECT_NE(r.raw.find("no such text in any fixture"), std::string::npos) << r.raw;
  std::ifstream in(record);
  std::string line;
  std::getline(in, line);
  EXPECT_EQ(line, "\"no such text in any fixture\"");
  std::filesystem::remove(record);
  EXPECT_THROW(fixture_tokens("llama3", "no such text in any fixture"), std::runtime_error);
}

// ---------------------------------------------------------------------------------------------
// Replay of recorded transcripts

std::filesystem::path temp_file(const std::string& name) {
  return std::filesystem::temp_directory_path() /
         ("probity-" + name + "-" + std::to_string(getpid()) + ".jsonl");
}

std::filesystem::path write_transcript(const std::string& name,
                                       const std::vector<std::string>& lines) {
  const auto path = temp_file(name);
  std::ofstream out(path);
  for (const auto& l : lines) out << l << '\n';
  return path;
}

TEST(FakeReplay, ServesEveryRecordedExchangeByteForByte) {
  FakeOptions o = opts(Flavour::kLlamaCpp, "llama3", "tiny");
  o.transcript = Transcript::load(std::string(PROBITY_TEST_DIR) +
                                  "/llm/fixtures/transcripts/llamacpp-3f545bec-probes.jsonl");
  FakeServer s(o);
  for (const auto& e : o.transcript->exchanges()) {
    SCOPED_TRACE(e.probe);
    httplib::Client cli("127.0.0.1", s.port());
    auto res = e.method == "GET" ? cli.Get(e.path.c_str())
                                 : cli.Post(e.path.c_str(), e.request_body(), "application/json");
    ASSERT_TRUE(res);
    EXPECT_EQ(res->status, e.status);
    EXPECT_EQ(res->body, e.response_body());
    EXPECT_EQ(res->get_header_value("Content-Type"), "application/json; charset=utf-8");
  }
  EXPECT_TRUE(o.transcript->unserved().empty());
}

TEST(FakeReplay, ARepeatedRequestGetsItsRecordingsInOrderThenTheLastAgain) {
  const auto path = write_transcript(
      "repeat",
      {R"({"meta":{"what":"test"}})",
       R"({"method":"POST","path":"/v1/chat/completions","request":{"b":1.0,"a":[1,2]},"status":429,"headers":{"content-type":"application/json","retry-after":"1"},"response":{"error":"slow down"}})",
       R"({"method":"POST","path":"/v1/chat/completions","request":{"a":[1,2],"b":1},"status":200,"headers":{"content-type":"application/json"},"response":{"z":1,"a":2}})"});
  FakeOptions o = opts(Flavour::kVllm);
  o.transcript = Transcript::load(path.string());
  EXPECT_EQ(o.transcript->meta()["what"], "test");
  FakeServer s(o);
  // Key order and 1 vs 1.0 do not matter: the match is on the canonical body.
  const json req = {{"a", {1, 2}}, {"b", 1}};
  const auto first = post(s, "/v1/chat/completions", req);
  EXPECT_EQ(first.status, 429);
  EXPECT_EQ(first.headers.find("retry-after")->second, "1");
  const auto second = post(s, "/v1/chat/completions", req);
  EXPECT_EQ(second.status, 200);
  EXPECT_EQ(second.raw, R"({"z":1,"a":2})");  // the recorded key order
  EXPECT_EQ(post(s, "/v1/chat/completions", req).status, 200);
  EXPECT_TRUE(o.transcript->unserved().empty());
  std::filesystem::remove(path);
}

TEST(FakeReplay, AnUnmatchedRequestIsA500NamingItAndItsClosestRecordingAndIsRecorded) {
  const auto path = write_transcript(
      "unmatched",
      {R"({"method":"POST","path":"/v1/completions","request":{"prompt":"x","max_tokens":4,"seed":1},"status":200,"headers":{},"response":{"ok":true}})",
       R"({"method":"POST","path":"/v1/completions","request":{"prompt":"y"},"status":200,"headers":{},"response":{"ok":true}})"});
  const auto record = temp_file("unmatched-record");
  std::filesystem::remove(record);
  ::setenv("PROBITY_TRANSCRIPT_RECORD", record.c_str(), 1);
  FakeOptions o = opts(Flavour::kLlamaCpp);
  o.transcript = Transcript::load(path.string());
  FakeServer s(o);
  const auto r = post(s, "/v1/completions", {{"prompt", "x"}, {"max_tokens", 5}, {"seed", 1}});
  ::unsetenv("PROBITY_TRANSCRIPT_RECORD");
  EXPECT_EQ(r.status, 500);
  EXPECT_EQ(r.body["error"]["type"], "server_error");  // the flavour's error shape
  const std::string msg = r.body["error"]["message"];
  EXPECT_NE(msg.find("no recorded exchange"), std::string::npos) << msg;
  EXPECT_NE(msg.find("POST /v1/completions"), std::string::npos) << msg;
  EXPECT_NE(msg.find("closest recording (line 1)"), std::string::npos) << msg;
  EXPECT_NE(msg.find("replace /max_tokens = 5"), std::string::npos) << msg;
  std::ifstream in(record);
  std::string line;
  std::getline(in, line);
  EXPECT_EQ(json::parse(line),
            json({{"method", "POST"},
                  {"path", "/v1/completions"},
                  {"request", {{"prompt", "x"}, {"max_tokens", 5}, {"seed", 1}}}}));
  const auto other = post(s, "/v1/chat/completions", {{"messages", json::array()}});
  EXPECT_NE(other.raw.find("nothing recorded for that method and path"), std::string::npos);
  EXPECT_EQ(o.transcript->unserved().size(), 2u);
  std::filesystem::remove(path);
  std::filesystem::remove(record);
}

TEST(FakeReplay, IgnoredFieldsAndFallbackToTheFlavour) {
  const auto path = write_transcript(
      "ignored",
      {R"({"method":"POST","path":"/tokenize","request":{"content":"hi","user":"run-1","opts":{"trace":"a","keep":1}},"status":200,"headers":{},"response":{"tokens":[7]}})"});
  FakeOptions o = opts(Flavour::kLlamaCpp);
  o.transcript = Transcript::load(path.string(), {"user", "/opts/trace"});
  o.transcript_fallback = true;
  FakeServer s(o);
  const auto r =
      post(s, "/tokenize",
           {{"content", "hi"}, {"user", "run-2"}, {"opts", {{"trace", "b"}, {"keep", 1}}}});
  EXPECT_EQ(r.body, json({{"tokens", {7}}}));
  // Not recorded: the llama.cpp flavour answers.
  const auto own = post(s, "/tokenize", {{"content", kArticle}});
  EXPECT_EQ(own.body["tokens"], json(fixture_tokens("llama3", kArticle).ids));
  std::filesystem::remove(path);
  EXPECT_THROW(Transcript::load(path.string()), std::runtime_error);
  const auto bad = write_transcript("bad", {R"({"method":"GET"})"});
  try {
    Transcript::load(bad.string());
    ADD_FAILURE() << "no error";
  } catch (const std::runtime_error& e) {
    EXPECT_NE(std::string(e.what()).find(bad.string() + ":1:"), std::string::npos) << e.what();
  }
  std::filesystem::remove(bad);
}

// ---------------------------------------------------------------------------------------------
// Structured output: the schema a request carries, and replies that follow it

TEST(FakeStructured, SchemaInstanceFollowsTheSchemasProbityBuilds) {
  const json schema = {
      {"type", "object"},
      {"properties",
       {{"rating", {{"type", "integer"}, {"enum", {3, 4, 5}}}},
        {"score", {{"type", "integer"}, {"minimum", 10}, {"maximum", 100}}},
        {"p", {{"type", "number"}, {"maximum", -1.5}}},
        {"label", {{"type", "string"}, {"enum", {"A", "B"}}}},
        {"why", {{"type", "string"}, {"minLength", 2}}},
        {"flags",
         {{"type", "array"}, {"items", {{"type", "boolean"}}}, {"minItems", 3}, {"maxItems", 3}}},
        {"maybe", {{"anyOf", {{{"type", "string"}}, {{"type", "null"}}}}}},
        {"ref", {{"$ref", "#/$defs/inner"}}}}},
      {"required", {"rating"}},
      {"additionalProperties", false},
      {"$defs", {{"inner", {{"type", "object"}, {"properties", {{"k", {{"const", 7}}}}}}}}}};
  EXPECT_EQ(schema_instance(schema), json({{"rating", 3},
                                           {"score", 10},
                                           {"p", -1.5},
                                           {"label", "A"},
                                           {"why", "aa"},
                                           {"flags", {false, false, false}},
                                           {"maybe", ""},
                                           {"ref", {{"k", 7}}}}));
  const json chat = {
      {"messages", json::array()},
      {"response_format",
       {{"type", "json_schema"},
        {"json_schema", {{"name", "answer"}, {"strict", true}, {"schema", schema}}}}}};
  EXPECT_EQ(request_schema(chat), schema);
  EXPECT_EQ(request_schema({{"response_format", {{"type", "json_object"}}}}),
            json({{"type", "object"}}));
  EXPECT_FALSE(request_schema({{"response_format", {{"type", "text"}}}}));
  // llama.cpp's own field is read only by llama.cpp.
  EXPECT_FALSE(request_schema({{"json_schema", schema}}, Flavour::kVllm));
  EXPECT_EQ(request_schema({{"json_schema", schema}}, Flavour::kLlamaCpp), schema);
  EXPECT_EQ(schema_reply({{"json_schema",
                           {{"type", "object"}, {"properties", {{"a", {{"type", "boolean"}}}}}}}},
                         Flavour::kLlamaCpp),
            R"({"a":false})");
}

// Every fake takes the two OpenAI structured-output forms on chat, and without a reply function
// answers with JSON that follows the schema, as each real server constrains decoding.
TEST(FakeStructured, EveryFlavourAcceptsJsonSchemaAndJsonObjectAndAnswersSchemaShapedJson) {
  const json schema = {{"type", "object"},
                       {"properties", {{"rating", {{"type", "integer"}, {"enum", {1, 2, 3}}}}}},
                       {"required", {"rating"}},
                       {"additionalProperties", false}};
  for (Flavour f : {Flavour::kVllm, Flavour::kSglang, Flavour::kLlamaCpp, Flavour::kOllama,
                    Flavour::kOpenAiChat, Flavour::kOpenAiReasoning}) {
    SCOPED_TRACE(flavour_name(f));
    FakeServer s(opts(f, "llama3", "m"));
    json req = {{"model", "m"},
                {"messages", {{{"role", "user"}, {"content", "Rate it. Answer in JSON."}}}}};
    req["response_format"] = {
        {"type", "json_schema"},
        {"json_schema", {{"name", "answer"}, {"strict", true}, {"schema", schema}}}};
    const auto r = post(s, "/v1/chat/completions", req);
    ASSERT_EQ(r.status, 200) << r.raw;
    EXPECT_EQ(json::parse(r.body["choices"][0]["message"]["content"].get<std::string>()),
              json({{"rating", 1}}));
    req["response_format"] = {{"type", "json_object"}};
    const auto o = post(s, "/v1/chat/completions", req);
    ASSERT_EQ(o.status, 200) << o.raw;
    EXPECT_TRUE(
        json::parse(o.body["choices"][0]["message"]["content"].get<std::string>()).is_object());
  }
  // A test that wants free text says so.
  FakeOptions o = opts(Flavour::kVllm);
  o.structured_replies = false;
  FakeServer s(o);
  const auto r = post(s, "/v1/chat/completions",
                      {{"messages", {{{"role", "user"}, {"content", "x"}}}},
                       {"response_format", {{"type", "json_object"}}}});
  EXPECT_EQ(r.body["choices"][0]["message"]["content"], "ok");
}

// ---------------------------------------------------------------------------------------------
// vLLM

TEST(Vllm, EchoLogprobsFirstPromptPositionIsNull) {
  FakeServer s(opts(Flavour::kVllm));
  const auto r = post(s, "/v1/completions",
                      {{"model", "fake-model"},
                       {"prompt", kArticle},
                       {"echo", true},
                       {"logprobs", 1},
                       {"max_tokens", 1}});
  ASSERT_EQ(r.status, 200) << r.raw;
  const auto& lp = r.body["choices"][0]["logprobs"];
  const auto ids = ids_with_bos("llama3", kArticle);
  EXPECT_EQ(lp["tokens"][0], "<|begin_of_text|>");  // BOS decoded, included
  EXPECT_TRUE(lp["token_logprobs"][0].is_null());
  EXPECT_TRUE(lp["top_logprobs"][0].is_null());
  for (std::size_t i = 1; i < ids.size(); ++i)
    EXPECT_EQ(lp["token_logprobs"][i].get<double>(), lp_at(ids, i)) << i;
  EXPECT_EQ(lp["tokens"].size(), ids.size() + 1);  // prompt + one generated token
  EXPECT_EQ(r.body["choices"][0]["text"].get<std::string>().rfind(kArticle, 0), 0u);
  EXPECT_EQ(r.body["usage"]["prompt_tokens"], ids.size());  // BOS counted
}

TEST(Vllm, TextOffsetIsCumulativeDecodedTokenLength) {
  FakeServer s(opts(Flavour::kVllm));
  const auto r = post(s, "/v1/completions",
                      {{"prompt", kMood}, {"echo", true}, {"logprobs", 0}, {"max_tokens", 0}});
  ASSERT_EQ(r.status, 200) << r.raw;
  const auto& lp = r.body["choices"][0]["logprobs"];
  // <|begin_of_text|> M ood : [" \xf0\x9f"] [\xa6] [\x99] " llama" " time"
  EXPECT_EQ(lp["tokens"],
            json({"<|begin_of_text|>", "M", "ood", ":", "", "", "", " llama", " time"}));
  EXPECT_EQ(lp["text_offset"], json({0, 17, 18, 21, 22, 22, 22, 22, 28}));
}

TEST(Vllm, PartialUtf8PromptTokensDecodeToEmptyString) {
  FakeServer s(opts(Flavour::kVllm));
  const auto r =
      post(s, "/v1/completions", {{"prompt", kMood}, {"prompt_logprobs", 0}, {"max_tokens", 1}});
  ASSERT_EQ(r.status, 200) << r.raw;
  const auto ids = ids_with_bos("llama3", kMood);
  const auto& pl = r.body["choices"][0]["prompt_logprobs"];
  EXPECT_EQ(pl[4][std::to_string(ids[4])]["decoded_token"], "");  // " \xf0\x9f"
  EXPECT_EQ(pl[5][std::to_string(ids[5])]["decoded_token"], "");
  EXPECT_EQ(pl[7][std::to_string(ids[7])]["decoded_token"], " llama");
}

TEST(Vllm, SentencepieceDecodedTokensLoseTheirLeadingSpace) {
  FakeServer s(opts(Flavour::kVllm, "llama2"));
  const auto r = post(s, "/v1/completions",
                      {{"prompt", kArticle}, {"echo", true}, {"logprobs", 0}, {"max_tokens", 0}});
  ASSERT_EQ(r.status, 200) << r.raw;
  const auto& tokens = r.body["choices"][0]["logprobs"]["tokens"];
  EXPECT_EQ(tokens[0], "<s>");
  EXPECT_EQ(tokens[1], "Article");
  EXPECT_EQ(tokens[3], "R");  // "▁R" decoded alone: the Strip decoder eats the space
  EXPECT_EQ(tokens[11], "\n");
}

TEST(Vllm, PromptLogprobsListNullFirstThenDictsKeyedByTokenId) {
  FakeServer s(opts(Flavour::kVllm));
  const auto r =
      post(s, "/v1/completions", {{"prompt", kArticle}, {"prompt_logprobs", 0}, {"max_tokens", 1}});
  ASSERT_EQ(r.status, 200) << r.raw;
  const auto ids = ids_with_bos("llama3", kArticle);
  const auto& pl = r.body["choices"][0]["prompt_logprobs"];
  ASSERT_EQ(pl.size(), ids.size());
  EXPECT_TRUE(pl[0].is_null());
  for (std::size_t i = 1; i < ids.size(); ++i) {
    ASSERT_EQ(pl[i].size(), 1u) << i;  // k = 0: only the prompt token
    const auto& e = pl[i][std::to_string(ids[i])];
    EXPECT_EQ(e["logprob"].get<double>(), lp_at(ids, i));
    EXPECT_EQ(e["rank"].get<int>(),
              fake_rank(std::span<const std::int64_t>(ids.data(), i), ids[i]));
    EXPECT_TRUE(e.contains("decoded_token"));
  }
  EXPECT_TRUE(r.body["choices"][0]["logprobs"].is_null());  // no `logprobs` asked
}

TEST(Vllm, PromptLogprobsKAddsTheTopKAfterThePromptToken) {
  FakeServer s(opts(Flavour::kVllm));
  const auto r =
      post(s, "/v1/completions", {{"prompt", kArticle}, {"prompt_logprobs", 2}, {"max_tokens", 1}});
  ASSERT_EQ(r.status, 200) << r.raw;
  const auto ids = ids_with_bos("llama3", kArticle);
  // Key order matters here (the prompt token comes first): parse preserving it.
  const auto body = nlohmann::ordered_json::parse(r.raw);
  const auto& pl = body["choices"][0]["prompt_logprobs"];
  for (std::size_t i = 1; i < ids.size(); ++i) {
    const auto rank = fake_rank(std::span<const std::int64_t>(ids.data(), i), ids[i]);
    EXPECT_EQ(pl[i].size(), rank <= 2 ? 2u : 3u) << i;
    EXPECT_EQ(pl[i].begin().key(), std::to_string(ids[i]));
  }
}

TEST(Vllm, EchoWithLogprobsAlsoFillsPromptLogprobs) {
  FakeServer s(opts(Flavour::kVllm));
  const auto r = post(s, "/v1/completions",
                      {{"prompt", kArticle}, {"echo", true}, {"logprobs", 0}, {"max_tokens", 1}});
  ASSERT_EQ(r.status, 200) << r.raw;
  EXPECT_TRUE(r.body["choices"][0]["prompt_logprobs"].is_array());
}

TEST(Vllm, EchoMaxTokensZeroReturnsThePromptAndCountsOneGeneratedToken) {
  FakeServer s(opts(Flavour::kVllm));
  const auto r = post(s, "/v1/completions",
                      {{"prompt", kArticle}, {"echo", true}, {"logprobs", 0}, {"max_tokens", 0}});
  ASSERT_EQ(r.status, 200) << r.raw;
  const auto ids = ids_with_bos("llama3", kArticle);
  EXPECT_EQ(r.body["choices"][0]["text"], kArticle);
  EXPECT_EQ(r.body["choices"][0]["logprobs"]["tokens"].size(), ids.size());
  EXPECT_EQ(r.body["choices"][0]["finish_reason"], "length");
  EXPECT_EQ(r.body["usage"]["completion_tokens"], 1);  // the engine ran with max_tokens=1
}

TEST(Vllm, MaxTokensZeroWithoutEchoIs400) {
  FakeServer s(opts(Flavour::kVllm));
  const auto r = post(s, "/v1/completions", {{"prompt", kArticle}, {"max_tokens", 0}});
  EXPECT_EQ(r.status, 400);
  EXPECT_EQ(r.body["error"]["message"], "max_tokens must be at least 1, got 0.");
  EXPECT_EQ(r.body["error"]["type"], "BadRequestError");
  EXPECT_EQ(r.body["error"]["code"], 400);
}

TEST(Vllm, TokenIdPromptGetsNoBosAndEchoesItsDecode) {
  FakeServer s(opts(Flavour::kVllm));
  const auto& t = fixture_tokens("llama3", kArticle);
  const auto r = post(s, "/v1/completions",
                      {{"prompt", t.ids}, {"echo", true}, {"logprobs", 0}, {"max_tokens", 0}});
  ASSERT_EQ(r.status, 200) << r.raw;
  EXPECT_EQ(r.body["usage"]["prompt_tokens"], t.ids.size());
  EXPECT_EQ(r.body["choices"][0]["text"], kArticle);
  EXPECT_EQ(r.body["choices"][0]["logprobs"]["tokens"][0], "Article");
  EXPECT_TRUE(r.body["choices"][0]["logprobs"]["token_logprobs"][0].is_null());
}

TEST(Vllm, ReturnTokenIdsAddsIdsAndDropsPromptTextFromEcho) {
  FakeOptions o = opts(Flavour::kVllm);
  o.reply = [](const json&) { return kReply; };
  FakeServer s(o);
  const auto r = post(s, "/v1/completions",
                      {{"prompt", kArticle}, {"echo", true}, {"return_token_ids", true}});
  ASSERT_EQ(r.status, 200) << r.raw;
  const auto& c = r.body["choices"][0];
  EXPECT_EQ(c["prompt_token_ids"], json(ids_with_bos("llama3", kArticle)));
  EXPECT_EQ(c["token_ids"], json(fixture_tokens("llama3", kReply).ids));
  EXPECT_EQ(c["text"], kReply);
}

TEST(Vllm, TokenizeIsAtTheRootWithCountMaxModelLenTokensAndTokenStrs) {
  FakeServer s(opts(Flavour::kVllm));
  const auto r = post(s, "/tokenize",
                      {{"model", "fake-model"}, {"prompt", kArticle}, {"return_token_strs", true}});
  ASSERT_EQ(r.status, 200) << r.raw;
  const auto ids = ids_with_bos("llama3", kArticle);
  EXPECT_EQ(r.body["tokens"], json(ids));
  EXPECT_EQ(r.body["count"], ids.size());
  EXPECT_EQ(r.body["max_model_len"], FakeServer::kMaxModelLen);
  EXPECT_EQ(r.body["token_strs"][0], "<|begin_of_text|>");
  EXPECT_EQ(r.body["token_strs"][3],
            "\xC4\xA0"
            "Rates");  // "ĠRates"
  const auto no_special =
      post(s, "/tokenize", {{"prompt", kArticle}, {"add_special_tokens", false}});
  EXPECT_EQ(no_special.body["tokens"], json(fixture_tokens("llama3", kArticle).ids));
  EXPECT_TRUE(no_special.body["token_strs"].is_null());
  const auto v1 = post(s, "/v1/tokenize", {{"prompt", kArticle}});
  EXPECT_EQ(v1.status, 404);
  EXPECT_EQ(v1.body, json({{"detail", "Not Found"}}));
}

TEST(Vllm, UnknownRequestFieldsAreIgnored) {
  FakeServer s(opts(Flavour::kVllm));
  const auto r = post(s, "/v1/completions",
                      {{"prompt", kArticle},
                       {"max_tokens", 1},
                       {"guided_json", {{"type", "object"}}},
                       {"no_such_field", 1}});
  EXPECT_EQ(r.status, 200) << r.raw;
}

TEST(Vllm, UnknownModelIs404NotFoundError) {
  FakeServer s(opts(Flavour::kVllm));
  const auto r = post(s, "/v1/completions", {{"model", "other"}, {"prompt", kArticle}});
  EXPECT_EQ(r.status, 404);
  EXPECT_EQ(r.body, json({{"error",
                           {{"message", "The model `other` does not exist."},
                            {"type", "NotFoundError"},
                            {"param", "model"},
                            {"code", 404}}}}));
}

TEST(Vllm, ValidationErrorsAre400WithParam) {
  FakeServer s(opts(Flavour::kVllm));
  const auto neg = post(s, "/v1/completions", {{"prompt", kArticle}, {"logprobs", -2}});
  EXPECT_EQ(neg.status, 400);
  EXPECT_EQ(neg.body["error"]["type"], "Bad Request");
  EXPECT_EQ(neg.body["error"]["param"], "logprobs");
  EXPECT_NE(neg.body["error"]["message"].get<std::string>().find(
                "`logprobs` must be a positive value or -1."),
            std::string::npos);
  const auto empty = post(s, "/v1/completions", {{"prompt", ""}});
  EXPECT_EQ(empty.status, 400);
  EXPECT_EQ(empty.body["error"]["param"], "prompt");
  const auto form = send(s, "POST", "/v1/completions", {{"prompt", kArticle}}, {}, "text/plain");
  EXPECT_EQ(form.status, 400);
}

TEST(Vllm, ApiKeyGuardsV1ButNotTokenize) {
  FakeOptions o = opts(Flavour::kVllm);
  o.api_key = "secret";
  FakeServer s(o);
  const auto no = post(s, "/v1/completions", {{"prompt", kArticle}});
  EXPECT_EQ(no.status, 401);
  EXPECT_EQ(no.body, json({{"error", "Unauthorized"}}));
  EXPECT_EQ(post(s, "/v1/completions", {{"prompt", kArticle}, {"max_tokens", 1}},
                 {{"Authorization", "bearer secret"}})
                .status,
            200);
  EXPECT_EQ(post(s, "/tokenize", {{"prompt", kArticle}}).status, 200);
}

TEST(Vllm, ChatResponseShape) {
  FakeServer s(opts(Flavour::kVllm));
  const auto r =
      post(s, "/v1/chat/completions",
           {{"model", "fake-model"}, {"messages", {{{"role", "user"}, {"content", "hi"}}}}});
  ASSERT_EQ(r.status, 200) << r.raw;
  EXPECT_EQ(r.body["object"], "chat.completion");
  EXPECT_EQ(r.body["id"].get<std::string>().rfind("chatcmpl-", 0), 0u);
  const auto& m = r.body["choices"][0]["message"];
  EXPECT_EQ(m["role"], "assistant");
  EXPECT_EQ(m["content"], "ok");
  EXPECT_TRUE(m.contains("reasoning"));
  EXPECT_FALSE(m.contains("tool_calls"));  // dropped when empty
  EXPECT_TRUE(r.body["prompt_logprobs"].is_null());
  EXPECT_GT(r.body["usage"]["prompt_tokens"].get<int>(), 0);
}

TEST(Vllm, PromptPlusRequestedOutputBeyondMaxModelLenIs400NamingInputTokens) {
  FakeOptions o = opts(Flavour::kVllm);
  o.context_tokens = 16;
  FakeServer s(o);
  const auto ids = ids_with_bos("llama3", kArticle);  // 11 tokens, + 16 (default max_tokens)
  const auto r = post(s, "/v1/completions", {{"prompt", kArticle}});
  EXPECT_EQ(r.status, 400);
  EXPECT_EQ(r.body["error"]["type"], "BadRequestError");
  EXPECT_EQ(r.body["error"]["param"], "input_tokens");
  EXPECT_EQ(r.body["error"]["message"],
            "You passed " + std::to_string(ids.size()) +
                " input tokens and requested 16 output tokens. However, the model's context "
                "length is only 16 tokens, resulting in a maximum input length of 0 tokens. "
                "Please reduce the length of the input prompt.");
  EXPECT_EQ(post(s, "/v1/completions", {{"prompt", kArticle}, {"max_tokens", 5}}).status, 200);
  const auto big = post(s, "/v1/completions", {{"prompt", kArticle}, {"max_tokens", 17}});
  EXPECT_EQ(big.body["error"]["message"],
            "max_tokens=17cannot be greater than max_model_len=max_total_tokens=16. Please "
            "request fewer output tokens.");
  EXPECT_EQ(big.body["error"]["param"], "max_tokens");
  const auto chat = post(s, "/v1/chat/completions",
                         {{"messages", {{{"role", "user"}, {"content", std::string(100, 'x')}}}}});
  EXPECT_EQ(chat.status, 400);
  EXPECT_EQ(chat.body["error"]["param"], "input_tokens");
}

TEST(Vllm, ResponseFormatIsValidatedAndTopLogprobsNeedsLogprobs) {
  FakeServer s(opts(Flavour::kVllm));
  const json msgs = {{{"role", "user"}, {"content", "hi"}}};
  const auto missing = post(s, "/v1/chat/completions",
                            {{"messages", msgs}, {"response_format", {{"type", "json_schema"}}}});
  EXPECT_EQ(missing.status, 400);
  EXPECT_EQ(missing.body["error"]["type"], "Bad Request");
  EXPECT_EQ(missing.body["error"]["param"], "response_format");
  EXPECT_NE(missing.body["error"]["message"].get<std::string>().find(
                "When response_format type is 'json_schema', the 'json_schema' field must be "
                "provided."),
            std::string::npos);
  const auto xml =
      post(s, "/v1/chat/completions", {{"messages", msgs}, {"response_format", {{"type", "xml"}}}});
  EXPECT_EQ(xml.status, 400);
  EXPECT_EQ(post(s, "/v1/completions",
                 {{"prompt", kArticle}, {"max_tokens", 1}, {"response_format", {{"type", "xml"}}}})
                .status,
            400);
  const auto top = post(s, "/v1/chat/completions", {{"messages", msgs}, {"top_logprobs", 2}});
  EXPECT_EQ(top.status, 400);
  EXPECT_EQ(top.body["error"]["param"], "top_logprobs");
  // n choices, usage over all of them.
  const auto n = post(s, "/v1/chat/completions", {{"messages", msgs}, {"n", 3}});
  EXPECT_EQ(n.body["choices"].size(), 3u);
  EXPECT_EQ(n.body["usage"]["completion_tokens"], 3);
  EXPECT_TRUE(n.body["usage"]["prompt_tokens_details"].is_null());  // no cache report by default
}

// ---------------------------------------------------------------------------------------------
// SGLang

TEST(Sglang, EchoLogprobsFirstPromptPositionIsNullAndTextOffsetsAreMinusOne) {
  FakeServer s(opts(Flavour::kSglang));
  const auto r = post(s, "/v1/completions",
                      {{"model", "anything"},
                       {"prompt", kArticle},
                       {"echo", true},
                       {"logprobs", 1},
                       {"max_tokens", 1}});
  ASSERT_EQ(r.status, 200) << r.raw;
  const auto& lp = r.body["choices"][0]["logprobs"];
  const auto ids = ids_with_bos("llama3", kArticle);
  EXPECT_EQ(lp["tokens"][0], "<|begin_of_text|>");
  EXPECT_TRUE(lp["token_logprobs"][0].is_null());
  EXPECT_TRUE(lp["top_logprobs"][0].is_null());
  EXPECT_EQ(lp["token_logprobs"][1].get<double>(), lp_at(ids, 1));
  for (const auto& off : lp["text_offset"]) EXPECT_EQ(off, -1);
  EXPECT_EQ(lp["top_logprobs"][1].size(), 1u);  // top-k only, k = 1
  EXPECT_EQ(r.body["model"], "anything");       // the model name is echoed, not checked
}

TEST(Sglang, LogprobsZeroWithEchoGivesNoPromptLogprobs) {
  FakeOptions o = opts(Flavour::kSglang);
  o.reply = [](const json&) { return kReply; };
  FakeServer s(o);
  const auto r =
      post(s, "/v1/completions", {{"prompt", kArticle}, {"echo", true}, {"logprobs", 0}});
  ASSERT_EQ(r.status, 200) << r.raw;
  const auto& c = r.body["choices"][0];
  EXPECT_EQ(c["text"], kArticle + kReply);  // still echoed
  EXPECT_EQ(c["logprobs"]["tokens"].size(), fixture_tokens("llama3", kReply).ids.size());
}

TEST(Sglang, PartialUtf8TokensKeepTheReplacementCharacter) {
  FakeServer s(opts(Flavour::kSglang));
  const auto r = post(s, "/v1/completions",
                      {{"prompt", kMood}, {"echo", true}, {"logprobs", 1}, {"max_tokens", 1}});
  ASSERT_EQ(r.status, 200) << r.raw;
  const auto& tokens = r.body["choices"][0]["logprobs"]["tokens"];
  EXPECT_EQ(tokens[4], " \xEF\xBF\xBD");
  EXPECT_EQ(tokens[5], "\xEF\xBF\xBD");
}

TEST(Sglang, PromptLogprobsFieldIsIgnored) {
  FakeServer s(opts(Flavour::kSglang));
  const auto r =
      post(s, "/v1/completions", {{"prompt", kArticle}, {"prompt_logprobs", 1}, {"max_tokens", 1}});
  ASSERT_EQ(r.status, 200) << r.raw;
  EXPECT_FALSE(r.body["choices"][0].contains("prompt_logprobs"));
  EXPECT_TRUE(r.body["choices"][0]["logprobs"].is_null());
}

TEST(Sglang, TokenizeAnswersOnBothPaths) {
  FakeServer s(opts(Flavour::kSglang));
  for (const char* path : {"/tokenize", "/v1/tokenize"}) {
    const auto r = post(s, path, {{"prompt", kArticle}});
    ASSERT_EQ(r.status, 200) << path;
    EXPECT_EQ(r.body["tokens"], json(ids_with_bos("llama3", kArticle)));
    EXPECT_EQ(r.body["count"], ids_with_bos("llama3", kArticle).size());
    EXPECT_TRUE(r.body.contains("max_model_len"));
  }
}

TEST(Sglang, TokenIdPromptEchoDecodesWithoutSpecialTokens) {
  FakeServer s(opts(Flavour::kSglang));
  const auto r =
      post(s, "/v1/completions",
           {{"prompt", ids_with_bos("llama3", kArticle)}, {"echo", true}, {"max_tokens", 1}});
  ASSERT_EQ(r.status, 200) << r.raw;
  EXPECT_EQ(r.body["choices"][0]["text"].get<std::string>().rfind(kArticle, 0), 0u);
}

TEST(Sglang, ErrorsAreObjectErrorBodies) {
  FakeServer s(opts(Flavour::kSglang));
  const auto r = post(s, "/v1/completions", {{"prompt", "   "}});
  EXPECT_EQ(r.status, 400);
  EXPECT_EQ(r.body["object"], "error");
  EXPECT_EQ(r.body["message"], "Prompt cannot be empty or whitespace only");
  EXPECT_EQ(r.body["code"], 400);
  EXPECT_EQ(post(s, "/v1/completions", {{"prompt", kArticle}, {"max_tokens", 0}}).status, 400);
  EXPECT_EQ(post(s, "/nope", {}).body, json({{"detail", "Not Found"}}));
}

TEST(Sglang, ContextOverflowIs400AndChatNGivesNChoicesWithReasoningTokensInUsage) {
  FakeOptions o = opts(Flavour::kSglang);
  o.context_tokens = 20;
  FakeServer s(o);
  const auto ids = ids_with_bos("llama3", kArticle);
  const auto total = post(s, "/v1/completions", {{"prompt", kArticle}});  // + 16 > 20
  EXPECT_EQ(total.status, 400);
  EXPECT_EQ(total.body["object"], "error");
  EXPECT_EQ(total.body["message"],
            "Requested token count exceeds the model's maximum context length of 20 tokens. You "
            "requested a total of " +
                std::to_string(ids.size() + 16) + " tokens: " + std::to_string(ids.size()) +
                " tokens from the input messages and 16 tokens for the completion. Please reduce "
                "the number of tokens in the input messages or the completion to fit within the "
                "limit.");
  const auto input = post(s, "/v1/chat/completions",
                          {{"messages", {{{"role", "user"}, {"content", std::string(100, 'x')}}}}});
  EXPECT_EQ(input.status, 400);
  EXPECT_NE(input.body["message"].get<std::string>().find(
                "tokens) is longer than the model's context length (20 tokens)."),
            std::string::npos);
  FakeServer big(opts(Flavour::kSglang));
  const auto n = post(big, "/v1/chat/completions",
                      {{"messages", {{{"role", "user"}, {"content", "hi"}}}}, {"n", 2}});
  ASSERT_EQ(n.status, 200) << n.raw;
  EXPECT_EQ(n.body["choices"].size(), 2u);
  EXPECT_EQ(n.body["choices"][1]["index"], 1);
  EXPECT_EQ(n.body["usage"]["completion_tokens"], 2);
  EXPECT_EQ(n.body["usage"]["reasoning_tokens"], 0);
  EXPECT_EQ(post(big, "/v1/chat/completions",
                 {{"messages", {{{"role", "user"}, {"content", "hi"}}}},
                  {"response_format", {{"type", "xml"}}}})
                .status,
            400);
}

// ---------------------------------------------------------------------------------------------
// llama.cpp server

TEST(LlamaCpp, TokenizeReadsContentNotPrompt) {
  FakeServer s(opts(Flavour::kLlamaCpp));
  const auto ignored = post(s, "/tokenize", {{"prompt", kArticle}});
  EXPECT_EQ(ignored.status, 200);
  EXPECT_EQ(ignored.body, json({{"tokens", json::array()}}));
  const auto r = post(s, "/tokenize", {{"content", kArticle}});
  EXPECT_EQ(r.body["tokens"], json(fixture_tokens("llama3", kArticle).ids));  // add_special false
  const auto bos = post(s, "/tokenize", {{"content", kArticle}, {"add_special", true}});
  EXPECT_EQ(bos.body["tokens"], json(ids_with_bos("llama3", kArticle)));
}

TEST(LlamaCpp, TokenizeWithPiecesGivesBytesForPartialUtf8) {
  FakeServer s(opts(Flavour::kLlamaCpp));
  const auto r = post(s, "/tokenize", {{"content", kMood}, {"with_pieces", true}});
  ASSERT_EQ(r.status, 200);
  EXPECT_EQ(r.body["tokens"][0]["piece"], "M");
  EXPECT_EQ(r.body["tokens"][3]["piece"], json({32, 240, 159}));  // " \xf0\x9f"
  EXPECT_EQ(r.body["tokens"][6]["piece"], " llama");
}

TEST(LlamaCpp, CompletionLogprobsCoverGeneratedTokensOnly) {
  FakeOptions o = opts(Flavour::kLlamaCpp);
  o.reply = [](const json&) { return kReply; };
  FakeServer s(o);
  const auto r = post(s, "/v1/completions", {{"prompt", kArticle}, {"logprobs", 2}});
  ASSERT_EQ(r.status, 200) << r.raw;
  const auto& content = r.body["choices"][0]["logprobs"]["content"];
  const auto& gen = fixture_tokens("llama3", kReply).ids;
  ASSERT_EQ(content.size(), gen.size());
  auto ctx = ids_with_bos("llama3", kArticle);
  EXPECT_EQ(content[0]["id"], gen[0]);
  EXPECT_EQ(content[0]["logprob"].get<double>(), fake_logprob(ctx, gen[0]));
  EXPECT_EQ(content[0]["top_logprobs"].size(), 2u);
  EXPECT_EQ(r.body["usage"]["prompt_tokens"], ctx.size());
  EXPECT_EQ(r.body["object"], "text_completion");
}

TEST(LlamaCpp, ApiKeyAcceptsBearerOrXApiKey) {
  FakeOptions o = opts(Flavour::kLlamaCpp);
  o.api_key = "k";
  FakeServer s(o);
  const json req = {{"prompt", kArticle}, {"max_tokens", 1}};
  const auto no = post(s, "/v1/completions", req);
  EXPECT_EQ(no.status, 401);
  EXPECT_EQ(no.raw,
            R"({"error":{"message":"Invalid API Key","type":"authentication_error","code":401}})");
  EXPECT_EQ(post(s, "/v1/completions", req, {{"Authorization", "Bearer k"}}).status, 200);
  EXPECT_EQ(post(s, "/v1/completions", req, {{"X-Api-Key", "k"}}).status, 200);
  EXPECT_EQ(send(s, "GET", "/health").status, 200);
}

TEST(LlamaCpp, UnknownRouteIsFileNotFound) {
  FakeServer s(opts(Flavour::kLlamaCpp));
  const auto r = post(s, "/v1/nope", {});
  EXPECT_EQ(r.status, 404);
  EXPECT_EQ(r.body["error"]["message"], "File Not Found");
}

// ---------------------------------------------------------------------------------------------
// llama.cpp server against its recording: tests/llm/fixtures/transcripts/ holds what a real
// llama-server answered (provenance in the .md beside it). Every probe is sent to the fake, which
// must answer with the recorded status and a body of the recorded shape; the tests after it pin
// single behaviours in the recording and in the fake.

const std::string kLlamaCppProbes =
    std::string(PROBITY_TEST_DIR) + "/llm/fixtures/transcripts/llamacpp-3f545bec-probes.jsonl";

const Transcript& llamacpp_recording() {
  static const auto t = Transcript::load(kLlamaCppProbes);
  return *t;
}

FakeOptions llamacpp_like_recording() {
  FakeOptions o = opts(Flavour::kLlamaCpp, "llama3", "tiny");  // served as -a tiny, -np 4
  return o;
}

Resp replay_probe(const FakeServer& s, const RecordedExchange& e) {
  httplib::Client cli("127.0.0.1", s.port());
  httplib::Result res = e.method == "GET"
                            ? cli.Get(e.path.c_str())
                            : cli.Post(e.path.c_str(), e.request_body(), "application/json");
  Resp r;
  if (!res) return r;
  r.status = res->status;
  r.raw = res->body;
  r.headers = res->headers;
  r.body = json::parse(res->body, nullptr, false);
  return r;
}

// How a path of a recorded body is compared with the fake's ("*" stands for any array index).
// Values that change from run to run (ids, times, which slot's cache was hit), and those that
// only the real model and tokenizer determine (text, token ids, counts, log-probabilities),
// are compared by type; everything else by value.
enum class Compare { kValue, kType, kSkip, kId, kMaskedDigits };

Compare compare_rule(const std::string& path) {
  static const std::vector<std::pair<std::string, Compare>> rules = {
      {"/id", Compare::kId},
      {"/error/message", Compare::kMaskedDigits},
      {"/tokens/*/piece", Compare::kSkip},  // text, or bytes when not complete UTF-8
  };
  static const std::vector<std::string> typed_prefixes = {
      "/created", "/data/*/created", "/data/*/meta/",         "/timings/",
      "/usage/",  "/tokens/*",       "/error/n_prompt_tokens"};
  static const std::vector<std::string> typed_suffixes = {
      "/text", "/message/content", "/finish_reason", "/id", "/token", "/logprob", "/bytes/*"};
  for (const auto& [p, c] : rules)
    if (p == path) return c;
  for (const auto& p : typed_prefixes)
    if (path.rfind(p, 0) == 0) return Compare::kType;
  for (const auto& s : typed_suffixes)
    if (path.size() >= s.size() && path.compare(path.size() - s.size(), s.size(), s) == 0 &&
        path.rfind("/choices/", 0) == 0)
      return Compare::kType;
  return Compare::kValue;
}

// Arrays whose length is the model's or the tokenizer's: each element of the fake's is compared
// with the recording's first.
bool free_length(const std::string& path) {
  static const std::set<std::string> paths = {"/tokens", "/choices/*/logprobs/content",
                                              "/choices/*/logprobs/content/*/bytes",
                                              "/choices/*/logprobs/content/*/top_logprobs/*/bytes"};
  return paths.count(path) > 0;
}

std::string kind(const json& v) {
  if (v.is_number_integer()) return "integer";
  if (v.is_number_float()) return "float";
  return v.type_name();
}

std::string mask_digits(std::string s) {
  std::string out;
  for (char c : s) {
    if (std::isdigit(static_cast<unsigned char>(c))) {
      if (out.empty() || out.back() != '#') out += '#';
    } else {
      out += c;
    }
  }
  return out;
}

void compare_shape(const json& recorded, const json& fake, const std::string& path,
                   const std::string& rule_path, std::vector<std::string>& diffs) {
  const Compare rule = compare_rule(rule_path);
  if (rule == Compare::kSkip) return;
  if (kind(recorded) != kind(fake)) {
    diffs.push_back(path + ": " + kind(recorded) + " recorded, " + kind(fake) + " from the fake");
    return;
  }
  if (recorded.is_object()) {
    for (const auto& [k, v] : recorded.items()) {
      if (!fake.contains(k)) {
        diffs.push_back(path + "/" + k + ": missing from the fake");
        continue;
      }
      compare_shape(v, fake[k], path + "/" + k, rule_path + "/" + k, diffs);
    }
    for (const auto& [k, v] : fake.items())
      if (!recorded.contains(k)) diffs.push_back(path + "/" + k + ": not in the recording");
    return;
  }
  if (recorded.is_array()) {
    if (free_length(rule_path)) {
      if (recorded.empty()) return;
      for (std::size_t i = 0; i < fake.size(); ++i)
        compare_shape(recorded[0], fake[i], path + "/" + std::to_string(i), rule_path + "/*",
                      diffs);
      return;
    }
    if (recorded.size() != fake.size()) {
      diffs.push_back(path + ": " + std::to_string(recorded.size()) + " elements recorded, " +
                      std::to_string(fake.size()) + " from the fake");
      return;
    }
    for (std::size_t i = 0; i < recorded.size(); ++i)
      compare_shape(recorded[i], fake[i], path + "/" + std::to_string(i), rule_path + "/*", diffs);
    return;
  }
  const bool same =
      rule == Compare::kType ? true
      : rule == Compare::kId
          ? recorded.get<std::string>().substr(0, 9) == fake.get<std::string>().substr(0, 9) &&
                recorded.get<std::string>().size() == fake.get<std::string>().size()
      : rule == Compare::kMaskedDigits
          ? mask_digits(recorded.get<std::string>()) == mask_digits(fake.get<std::string>())
          : recorded == fake;
  if (!same) diffs.push_back(path + ": " + recorded.dump() + " recorded, " + fake.dump());
}

// Probes of routes the fake does not model; it says so with a 500.
const std::set<std::string> kNotModelled = {"native_completion"};

TEST(LlamaCppRecorded, FakeAnswersEveryProbeWithTheRecordedStatusAndShape) {
  const Transcript& rec = llamacpp_recording();
  ASSERT_EQ(rec.meta().value("llama_cpp_commit", ""), "3f545beccee69d9975f466ec7e45fd9aacd8ba90");
  ASSERT_GE(rec.exchanges().size(), 40u);
  // One server for all probes, in the recorded order: the slot caches carry over as they did.
  FakeServer s(llamacpp_like_recording());
  for (const auto& e : rec.exchanges()) {
    SCOPED_TRACE(e.probe + " (line " + std::to_string(e.line) + ")");
    const Resp r = replay_probe(s, e);
    if (kNotModelled.count(e.probe)) {
      EXPECT_EQ(r.status, 500);
      EXPECT_NE(r.raw.find("not modelled"), std::string::npos) << r.raw;
      continue;
    }
    EXPECT_EQ(r.status, e.status) << r.raw;
    EXPECT_EQ(r.headers.find("Content-Type")->second, e.content_type());
    ASSERT_FALSE(e.response_text) << "recorded a non-JSON body";
    std::vector<std::string> diffs;
    compare_shape(json::parse(e.response.dump()), r.body, "", "", diffs);
    std::string all;
    for (const auto& d : diffs) all += "\n  " + d;
    EXPECT_TRUE(diffs.empty()) << "the fake differs from the recording:" << all;
  }
}

// Sends probe `name` to a fresh fake (or `s`), after checking what the recording says.
Resp fake_answer(const std::string& name, const FakeServer* s = nullptr) {
  if (s != nullptr) return replay_probe(*s, llamacpp_recording().probe(name));
  FakeServer fresh(llamacpp_like_recording());
  return replay_probe(fresh, llamacpp_recording().probe(name));
}

json recorded_body(const std::string& name) {
  return json::parse(llamacpp_recording().probe(name).response.dump());
}

TEST(LlamaCppRecorded, EchoIsAcceptedAndIgnoredLogprobsCoverGeneratedTokensOnly) {
  for (const char* name : {"completion_echo_logprobs", "completion_echo"}) {
    SCOPED_TRACE(name);
    const json rec = recorded_body(name);
    const Resp fake = fake_answer(name);
    ASSERT_EQ(fake.status, 200) << fake.raw;
    for (const json* b : {&rec, &fake.body}) {
      const auto& c = (*b)["choices"][0];
      EXPECT_NE(c["text"].get<std::string>().rfind("Article:", 0), 0u);  // no prompt echoed
      if (c["logprobs"].is_object()) {
        EXPECT_EQ(c["logprobs"]["content"].size(), (*b)["usage"]["completion_tokens"]);
      }
    }
  }
  // Several generated tokens: the fake's list has one entry per token of the reply.
  FakeOptions o = llamacpp_like_recording();
  o.reply = [](const json&) { return kReply; };
  FakeServer s(o);
  const Resp r = fake_answer("completion_echo_logprobs", &s);
  EXPECT_EQ(r.body["choices"][0]["text"], "Restatement:");  // max_tokens 3
  EXPECT_EQ(r.body["choices"][0]["logprobs"]["content"].size(), 3u);
}

TEST(LlamaCppRecorded, NGivesNChoicesWithTheUsageOfTheFirstUpToTheSlotCount) {
  for (const char* name : {"completion_n2", "chat_n2", "completion_two_prompts"}) {
    SCOPED_TRACE(name);
    const json rec = recorded_body(name);
    const Resp fake = fake_answer(name);
    for (const json* b : {&rec, &fake.body}) {
      ASSERT_EQ((*b)["choices"].size(), 2u);
      EXPECT_EQ((*b)["choices"][1]["index"], 1);
      // Usage counts the first choice's tokens only.
      EXPECT_LE((*b)["usage"]["completion_tokens"].get<int>(), 3);
    }
  }
  const json over = recorded_body("completion_n_over_slots");
  EXPECT_EQ(over["error"]["message"],
            "Field 'n': Value must be between 1 <= value <= 4, but got 5");
  EXPECT_EQ(fake_answer("completion_n_over_slots").body, over);
}

TEST(LlamaCppRecorded, BestOfSuffixAndTheModelNameAreIgnored) {
  for (const char* name :
       {"completion_best_of", "completion_suffix", "completion_other_model_name"}) {
    SCOPED_TRACE(name);
    EXPECT_EQ(llamacpp_recording().probe(name).status, 200);
    EXPECT_EQ(recorded_body(name)["model"], "tiny");  // the served alias, not the request's
    const Resp fake = fake_answer(name);
    EXPECT_EQ(fake.status, 200) << fake.raw;
    EXPECT_EQ(fake.body["model"], "tiny");
  }
}

TEST(LlamaCppRecorded, RequestErrorsAre400InvalidRequestErrorWithTheServersMessage) {
  for (const char* name :
       {"completion_missing_prompt", "completion_prompt_object", "completion_max_tokens_negative",
        "chat_missing_messages", "chat_messages_not_array", "chat_message_without_content",
        "chat_top_logprobs_without_logprobs", "chat_response_format_bad_type",
        "chat_response_format_bad_schema"}) {
    SCOPED_TRACE(name);
    const RecordedExchange& e = llamacpp_recording().probe(name);
    EXPECT_EQ(e.status, 400);
    EXPECT_EQ(e.response["error"]["type"], "invalid_request_error");
    const Resp fake = fake_answer(name);
    EXPECT_EQ(fake.status, 400);
    EXPECT_EQ(fake.body, json::parse(e.response.dump()));
  }
}

TEST(LlamaCppRecorded, UnparsableBodiesAndJsonSchemaWithGrammarAre500ServerError) {
  for (const char* name : {"completion_bad_json", "chat_json_schema_and_grammar"}) {
    SCOPED_TRACE(name);
    const RecordedExchange& e = llamacpp_recording().probe(name);
    EXPECT_EQ(e.status, 500);
    EXPECT_EQ(e.response["error"]["type"], "server_error");
    const Resp fake = fake_answer(name);
    EXPECT_EQ(fake.status, 500);
    EXPECT_EQ(fake.body, json::parse(e.response.dump()));
  }
}

TEST(LlamaCppRecorded, ContextOverflowIs400WithPromptTokensAndSlotContext) {
  for (const char* name : {"completion_over_context", "chat_over_context"}) {
    SCOPED_TRACE(name);
    const json rec = recorded_body(name);
    const Resp fake = fake_answer(name);
    for (const json* b : {&rec, &fake.body}) {
      const auto& err = (*b)["error"];
      EXPECT_EQ(err["type"], "exceed_context_size_error");
      EXPECT_EQ(err["code"], 400);
      EXPECT_EQ(err["n_ctx"], 8192);
      EXPECT_GE(err["n_prompt_tokens"].get<int>(), 8192);
      EXPECT_EQ(err["message"], "request (" + std::to_string(err["n_prompt_tokens"].get<int>()) +
                                    " tokens) exceeds the available context size (8192 tokens), "
                                    "try increasing it");
    }
  }
  EXPECT_EQ(recorded_body("completion_over_context")["error"]["n_prompt_tokens"], 9000);
  EXPECT_EQ(fake_answer("completion_over_context").body["error"]["n_prompt_tokens"], 9000);
  FakeOptions o = llamacpp_like_recording();
  o.context_tokens = 8;  // a smaller slot
  FakeServer s(o);
  const auto r = post(s, "/v1/completions", {{"prompt", kArticle}});
  EXPECT_EQ(r.status, 400);
  EXPECT_EQ(r.body["error"]["n_ctx"], 8);
}

TEST(LlamaCppRecorded, IdsAreChatcmplAndEveryAnswerCarriesTimings) {
  for (const char* name : {"completion", "chat"}) {
    SCOPED_TRACE(name);
    const json rec = recorded_body(name);
    const Resp fake = fake_answer(name);
    for (const json* b : {&rec, &fake.body}) {
      EXPECT_EQ((*b)["id"].get<std::string>().rfind("chatcmpl-", 0), 0u);
      const auto& t = (*b)["timings"];
      EXPECT_EQ(t["cache_n"], (*b)["usage"]["prompt_tokens_details"]["cached_tokens"]);
      EXPECT_EQ(t["cache_n"].get<int>() + t["prompt_n"].get<int>(), (*b)["usage"]["prompt_tokens"]);
      EXPECT_EQ(t["predicted_n"], (*b)["usage"]["completion_tokens"]);
    }
  }
}

TEST(LlamaCppRecorded, ModelsListHasOllamaStyleModelsAndDataWithMeta) {
  const json rec = recorded_body("models");
  const Resp fake = fake_answer("models");
  for (const json* b : {&rec, &fake.body}) {
    EXPECT_EQ((*b)["models"][0]["name"], "tiny");
    EXPECT_EQ((*b)["data"][0]["aliases"], json::array({"tiny"}));
    EXPECT_EQ((*b)["data"][0]["meta"]["n_ctx"], 8192);
    EXPECT_TRUE((*b)["data"][0]["meta"]["n_ctx_train"].is_number_integer());
    EXPECT_TRUE((*b)["data"][0]["meta"]["n_params"].is_number_integer());
  }
  EXPECT_EQ(recorded_body("models_root"), [&] {
    json r = rec;
    r["data"][0]["created"] = recorded_body("models_root")["data"][0]["created"];
    return r;
  }());
}

TEST(LlamaCppRecorded, MaxTokensZeroStillGeneratesOneToken) {
  for (const char* name : {"completion_max_tokens_0", "chat_max_tokens_0"}) {
    SCOPED_TRACE(name);
    FakeOptions o = llamacpp_like_recording();
    o.reply = [](const json&) { return kReply; };
    FakeServer s(o);
    const json rec = recorded_body(name);
    const Resp fake = fake_answer(name, &s);
    for (const json* b : {&rec, &fake.body}) {
      EXPECT_EQ((*b)["usage"]["completion_tokens"], 1);
      EXPECT_EQ((*b)["choices"][0]["finish_reason"], "length");
    }
  }
}

TEST(LlamaCppRecorded, ARepeatedPrefixIsReusedFromTheSlotCache) {
  const json first = recorded_body("chat_repeated_1"), second = recorded_body("chat_repeated_2");
  EXPECT_EQ(second["usage"]["prompt_tokens_details"]["cached_tokens"],
            second["usage"]["prompt_tokens"].get<int>() - 1);  // all but the last prompt token
  FakeServer s(llamacpp_like_recording());
  const Resp a = fake_answer("chat_repeated_1", &s);
  const Resp b = fake_answer("chat_repeated_2", &s);
  EXPECT_EQ(a.body["usage"]["prompt_tokens_details"]["cached_tokens"], 0);  // a fresh server
  EXPECT_EQ(b.body["usage"]["prompt_tokens_details"]["cached_tokens"],
            b.body["usage"]["prompt_tokens"].get<int>() - 1);
  // Another question after the same system message reuses the shared prefix only.
  json other = json::parse(llamacpp_recording().probe("chat").request.dump());
  other["messages"][1]["content"] = "Source: Prices fell.\nSummary: Prices rose.\nRate it.";
  const auto c = post(s, "/v1/chat/completions", other);
  const int cached = c.body["usage"]["prompt_tokens_details"]["cached_tokens"].get<int>();
  EXPECT_GT(cached, 10);
  EXPECT_LT(cached, c.body["usage"]["prompt_tokens"].get<int>() - 1);
}

// The recorded rating schema: {"rating": 1..5}, nothing else; the tiny model's JSON has free
// whitespace (the grammar allows it), so parse, then check.
void expect_rating_json(const std::string& text) {
  const json j = json::parse(text, nullptr, false);
  ASSERT_TRUE(j.is_object()) << text;
  EXPECT_EQ(j.size(), 1u) << text;
  ASSERT_TRUE(j.contains("rating") && j["rating"].is_number_integer()) << text;
  EXPECT_GE(j["rating"].get<int>(), 1);
  EXPECT_LE(j["rating"].get<int>(), 5);
}

TEST(LlamaCppRecorded, JsonSchemaFromResponseFormatOrItsOwnFieldGivesSchemaShapedJson) {
  for (const char* name :
       {"chat_response_format_json_schema", "chat_json_schema_field", "completion_json_schema"}) {
    SCOPED_TRACE(name);
    const json rec = recorded_body(name);
    const Resp fake = fake_answer(name);
    ASSERT_EQ(fake.status, 200) << fake.raw;
    for (const json* b : {&rec, &fake.body}) {
      const auto& c = (*b)["choices"][0];
      expect_rating_json(c.contains("message") ? c["message"]["content"].get<std::string>()
                                               : c["text"].get<std::string>());
    }
  }
  // json_object and "text" are accepted too; json_object answers JSON.
  EXPECT_EQ(llamacpp_recording().probe("chat_response_format_json_object").status, 200);
  EXPECT_EQ(llamacpp_recording().probe("chat_response_format_text").status, 200);
  const Resp obj = fake_answer("chat_response_format_json_object");
  EXPECT_TRUE(
      json::parse(obj.body["choices"][0]["message"]["content"].get<std::string>()).is_object());
  // A grammar is applied as given; the fake cannot follow one and answers its reply.
  EXPECT_EQ(recorded_body("chat_grammar")["choices"][0]["message"]["content"], "{\"rating\": 1}");
}

// ---------------------------------------------------------------------------------------------
// Ollama

TEST(Ollama, TokenIdPromptIs400) {
  FakeServer s(opts(Flavour::kOllama));
  const auto r = post(s, "/v1/completions", {{"model", "fake-model"}, {"prompt", {1, 2, 3}}});
  EXPECT_EQ(r.status, 400);
  EXPECT_EQ(r.body, json({{"error",
                           {{"message",
                             "json: cannot unmarshal array into Go struct field "
                             "CompletionRequest.prompt of type string"},
                            {"type", "invalid_request_error"},
                            {"param", nullptr},
                            {"code", nullptr}}}}));
}

TEST(Ollama, EchoIsIgnoredAndCompletionsCarryNoLogprobs) {
  FakeServer s(opts(Flavour::kOllama));
  const auto r =
      post(s, "/v1/completions",
           {{"model", "fake-model"}, {"prompt", kArticle}, {"echo", true}, {"logprobs", 3}});
  ASSERT_EQ(r.status, 200) << r.raw;
  EXPECT_EQ(r.body["choices"][0]["text"], "ok");
  EXPECT_FALSE(r.body["choices"][0].contains("logprobs"));
  EXPECT_EQ(r.body["system_fingerprint"], "fp_ollama");
  EXPECT_EQ(r.body["usage"]["prompt_tokens"], ids_with_bos("llama3", kArticle).size());
}

TEST(Ollama, TokenizeIs404AndAuthorizationIsIgnored) {
  FakeOptions o = opts(Flavour::kOllama);
  o.api_key = "ignored";
  FakeServer s(o);
  const auto t = post(s, "/tokenize", {{"prompt", kArticle}});
  EXPECT_EQ(t.status, 404);
  EXPECT_EQ(t.raw, "404 page not found");
  EXPECT_EQ(post(s, "/v1/completions", {{"model", "fake-model"}, {"prompt", kArticle}}).status,
            200);
}

TEST(Ollama, TruncatesLongPromptsSilentlyKeepingHeadAndTail) {
  FakeOptions o = opts(Flavour::kOllama);
  o.context_tokens = 8;
  FakeServer s(o);
  const std::string text = "Text: The central bank raised interest rates.\nRestatement: ";
  const auto ids = ids_with_bos("llama3", text);
  ASSERT_GT(ids.size(), 7u);
  const auto r = post(s, "/v1/completions", {{"model", "fake-model"}, {"prompt", text}});
  ASSERT_EQ(r.status, 200) << r.raw;
  // num_keep 4 + BOS = 5; limit = 8 - max((8 - 5) / 2, 1) = 7.
  EXPECT_EQ(r.body["usage"]["prompt_tokens"], 7);
}

TEST(Ollama, ChatShapeAndUnknownModel) {
  FakeServer s(opts(Flavour::kOllama));
  const auto r =
      post(s, "/v1/chat/completions",
           {{"model", "fake-model"}, {"messages", {{{"role", "user"}, {"content", "hi"}}}}});
  ASSERT_EQ(r.status, 200) << r.raw;
  EXPECT_EQ(r.body["object"], "chat.completion");
  EXPECT_EQ(r.body["choices"][0]["message"], json({{"role", "assistant"}, {"content", "ok"}}));
  EXPECT_EQ(r.body["choices"][0]["finish_reason"], "stop");
  const auto missing =
      post(s, "/v1/chat/completions",
           {{"model", "llama9"}, {"messages", {{{"role", "user"}, {"content", "hi"}}}}});
  EXPECT_EQ(missing.status, 404);
  EXPECT_EQ(missing.body["error"]["type"], "not_found_error");
  EXPECT_EQ(missing.body["error"]["message"], "model 'llama9' not found");
}

TEST(Ollama, ResponseFormatTypeIsCaseInsensitiveAndUnknownTypesAreIgnored) {
  FakeServer s(opts(Flavour::kOllama));
  json req = {{"model", "fake-model"}, {"messages", {{{"role", "user"}, {"content", "hi"}}}}};
  req["response_format"] = {
      {"type", " JSON_Schema "},
      {"json_schema",
       {{"schema", {{"type", "object"}, {"properties", {{"ok", {{"type", "boolean"}}}}}}}}}};
  EXPECT_EQ(post(s, "/v1/chat/completions", req).body["choices"][0]["message"]["content"],
            R"({"ok":false})");
  req["response_format"] = {{"type", "xml"}};
  const auto xml = post(s, "/v1/chat/completions", req);
  EXPECT_EQ(xml.status, 200);
  EXPECT_EQ(xml.body["choices"][0]["message"]["content"], "ok");
  req["response_format"] = {{"type", "json_schema"}};  // no schema: no format
  EXPECT_EQ(post(s, "/v1/chat/completions", req).body["choices"][0]["message"]["content"], "ok");
  req["n"] = 3;  // not a field of its request: one choice
  EXPECT_EQ(post(s, "/v1/chat/completions", req).body["choices"].size(), 1u);
}

// ---------------------------------------------------------------------------------------------
// Hosted OpenAI

json chat_request(const std::string& model) {
  return {{"model", model}, {"messages", {{{"role", "user"}, {"content", "hi"}}}}};
}

TEST(OpenAiChat, UsageHasCachedAndReasoningTokenDetails) {
  FakeServer s(opts(Flavour::kOpenAiChat, "o200k", "gpt-4o-mini"));
  const auto r = post(s, "/v1/chat/completions", chat_request("gpt-4o-mini"));
  ASSERT_EQ(r.status, 200) << r.raw;
  EXPECT_EQ(r.body["usage"]["prompt_tokens_details"]["cached_tokens"], 0);
  EXPECT_EQ(r.body["usage"]["completion_tokens_details"]["reasoning_tokens"], 0);
  EXPECT_EQ(r.body["choices"][0]["message"]["refusal"], nullptr);
  EXPECT_EQ(r.body["object"], "chat.completion");
}

TEST(OpenAiChat, UnknownParameterIs400Unrecognized) {
  FakeServer s(opts(Flavour::kOpenAiChat, "o200k", "gpt-4o-mini"));
  json req = chat_request("gpt-4o-mini");
  req["prompt_logprobs"] = 1;
  const auto r = post(s, "/v1/chat/completions", req);
  EXPECT_EQ(r.status, 400);
  EXPECT_EQ(r.body, json({{"error",
                           {{"message", "Unrecognized request argument supplied: prompt_logprobs"},
                            {"type", "invalid_request_error"},
                            {"param", nullptr},
                            {"code", nullptr}}}}));
  req.erase("prompt_logprobs");
  req["reasoning_effort"] = "low";
  EXPECT_EQ(post(s, "/v1/chat/completions", req).status, 400);
}

TEST(OpenAiChat, RateLimitEveryKthRequestIs429WithHeaders) {
  FakeOptions o = opts(Flavour::kOpenAiChat, "o200k", "gpt-4o-mini");
  o.rate_limit_every = 2;
  FakeServer s(o);
  EXPECT_EQ(post(s, "/v1/chat/completions", chat_request("gpt-4o-mini")).status, 200);
  const auto r = post(s, "/v1/chat/completions", chat_request("gpt-4o-mini"));
  EXPECT_EQ(r.status, 429);
  EXPECT_EQ(r.body["error"]["code"], "rate_limit_exceeded");
  EXPECT_EQ(r.body["error"]["type"], "tokens");
  EXPECT_EQ(r.headers.find("retry-after-ms")->second, "210");
  EXPECT_TRUE(r.headers.count("x-ratelimit-remaining-tokens"));
  EXPECT_EQ(post(s, "/v1/chat/completions", chat_request("gpt-4o-mini")).status, 200);
}

TEST(OpenAiChat, WrongKeyIs401InvalidApiKey) {
  FakeOptions o = opts(Flavour::kOpenAiChat, "o200k", "gpt-4o-mini");
  o.api_key = "sk-proj-correct-key-1234";
  FakeServer s(o);
  const auto r = post(s, "/v1/chat/completions", chat_request("gpt-4o-mini"),
                      {{"Authorization", "Bearer sk-proj-wrongwrongwrong9876"}});
  EXPECT_EQ(r.status, 401);
  EXPECT_EQ(r.body["error"]["code"], "invalid_api_key");
  EXPECT_NE(r.body["error"]["message"].get<std::string>().find("sk-proj-"), std::string::npos);
  EXPECT_EQ(post(s, "/v1/chat/completions", chat_request("gpt-4o-mini"),
                 {{"Authorization", "Bearer sk-proj-correct-key-1234"}})
                .status,
            200);
}

TEST(OpenAiChat, CompletionsEndpointRejectsAChatModel) {
  FakeServer s(opts(Flavour::kOpenAiChat, "o200k", "gpt-4o-mini"));
  EXPECT_EQ(post(s, "/v1/completions", {{"model", "gpt-4o-mini"}, {"prompt", "x"}}).status, 404);
}

TEST(OpenAiChat, ResponseFormatIsCheckedAsTheApiDoes) {
  FakeServer s(opts(Flavour::kOpenAiChat, "o200k", "gpt-4o-mini"));
  json req = chat_request("gpt-4o-mini");
  req["response_format"] = {{"type", "object"}};
  auto r = post(s, "/v1/chat/completions", req);
  EXPECT_EQ(r.body, json({{"error",
                           {{"message",
                             "Invalid value: 'object'. Supported values are: 'json_object', "
                             "'json_schema', and 'text'."},
                            {"type", "invalid_request_error"},
                            {"param", "response_format.type"},
                            {"code", "invalid_value"}}}}));
  req["response_format"] = {{"type", "json_object"}};
  r = post(s, "/v1/chat/completions", req);  // "hi" does not mention JSON
  EXPECT_EQ(r.status, 400);
  EXPECT_EQ(r.body["error"]["param"], "messages");
  EXPECT_EQ(r.body["error"]["message"],
            "'messages' must contain the word 'json' in some form, to use 'response_format' of "
            "type 'json_object'.");
  req["messages"][0]["content"] = "Answer in JSON.";
  r = post(s, "/v1/chat/completions", req);
  ASSERT_EQ(r.status, 200) << r.raw;
  EXPECT_EQ(r.body["choices"][0]["message"]["content"], "{}");
  const json loose = {{"type", "object"}, {"properties", {{"a", {{"type", "integer"}}}}}};
  req["response_format"] = {
      {"type", "json_schema"},
      {"json_schema", {{"name", "answer"}, {"strict", true}, {"schema", loose}}}};
  r = post(s, "/v1/chat/completions", req);
  EXPECT_EQ(r.status, 400);
  EXPECT_EQ(r.body["error"]["message"],
            "Invalid schema for response_format 'answer': In context=(), 'additionalProperties' "
            "is required to be supplied and to be false.");
  EXPECT_EQ(r.body["error"]["param"], "response_format");
  req["response_format"]["json_schema"]["strict"] = false;  // not strict: not checked
  EXPECT_EQ(post(s, "/v1/chat/completions", req).status, 200);
  req["response_format"] = {{"type", "json_schema"}};
  EXPECT_EQ(post(s, "/v1/chat/completions", req).body["error"]["code"],
            "missing_required_parameter");
  req["response_format"] = {{"type", "json_schema"}, {"schema", loose}};
  EXPECT_EQ(post(s, "/v1/chat/completions", req).body["error"]["code"], "unknown_parameter");
}

TEST(OpenAiChat, ARepeatedPrefixOf1024TokensOrMoreIsCachedInStepsOf128) {
  FakeServer s(opts(Flavour::kOpenAiChat, "o200k", "gpt-4o-mini"));
  json req = chat_request("gpt-4o-mini");
  req["messages"][0]["content"] = std::string(6000, 'a') + " first question";
  const auto first = post(s, "/v1/chat/completions", req);
  EXPECT_EQ(first.body["usage"]["prompt_tokens_details"]["cached_tokens"], 0);
  req["messages"][0]["content"] = std::string(6000, 'a') + " another question";
  const auto second = post(s, "/v1/chat/completions", req);
  const int cached = second.body["usage"]["prompt_tokens_details"]["cached_tokens"];
  EXPECT_GE(cached, 1024);
  EXPECT_EQ((cached - 1024) % 128, 0);
  EXPECT_LE(cached, second.body["usage"]["prompt_tokens"].get<int>());
  // Short prompts are never cached.
  EXPECT_EQ(post(s, "/v1/chat/completions", chat_request("gpt-4o-mini"))
                .body["usage"]["prompt_tokens_details"]["cached_tokens"],
            0);
  EXPECT_EQ(post(s, "/v1/chat/completions", chat_request("gpt-4o-mini"))
                .body["usage"]["prompt_tokens_details"]["cached_tokens"],
            0);
}

TEST(OpenAiReasoning, MaxTokensIs400UnsupportedParameter) {
  FakeServer s(opts(Flavour::kOpenAiReasoning, "o200k", "gpt-5"));
  json req = chat_request("gpt-5");
  req["max_tokens"] = 10;
  const auto r = post(s, "/v1/chat/completions", req);
  EXPECT_EQ(r.status, 400);
  EXPECT_EQ(r.body, json({{"error",
                           {{"message",
                             "Unsupported parameter: 'max_tokens' is not supported with this "
                             "model. Use 'max_completion_tokens' instead."},
                            {"type", "invalid_request_error"},
                            {"param", "max_tokens"},
                            {"code", "unsupported_parameter"}}}}));
}

TEST(OpenAiReasoning, TemperatureOtherThanOneIs400UnsupportedValue) {
  FakeServer s(opts(Flavour::kOpenAiReasoning, "o200k", "gpt-5"));
  json req = chat_request("gpt-5");
  req["temperature"] = 0;
  const auto r = post(s, "/v1/chat/completions", req);
  EXPECT_EQ(r.status, 400);
  EXPECT_EQ(r.body["error"]["message"],
            "Unsupported value: 'temperature' does not support 0 with this model. Only the default "
            "(1) value is supported.");
  EXPECT_EQ(r.body["error"]["param"], "temperature");
  EXPECT_EQ(r.body["error"]["code"], "unsupported_value");
  req["temperature"] = 1;
  EXPECT_EQ(post(s, "/v1/chat/completions", req).status, 200);
}

TEST(OpenAiReasoning, AcceptsMaxCompletionTokensAndCountsReasoningTokens) {
  FakeServer s(opts(Flavour::kOpenAiReasoning, "o200k", "gpt-5"));
  json req = chat_request("gpt-5");
  req["max_completion_tokens"] = 1000;
  req["reasoning_effort"] = "low";
  const auto r = post(s, "/v1/chat/completions", req);
  ASSERT_EQ(r.status, 200) << r.raw;
  EXPECT_EQ(r.body["usage"]["completion_tokens_details"]["reasoning_tokens"],
            FakeServer::kReasoningTokens);
  EXPECT_EQ(r.body["choices"][0]["message"]["content"], "ok");
  req["max_completion_tokens"] = 10;  // the reasoning uses the whole budget
  const auto starved = post(s, "/v1/chat/completions", req);
  EXPECT_EQ(starved.body["choices"][0]["message"]["content"], "");
  EXPECT_EQ(starved.body["choices"][0]["finish_reason"], "length");
}

TEST(OpenAiLegacy, EchoWithLogprobsIs400OnInstructModels) {
  FakeServer s(opts(Flavour::kOpenAiLegacyCompletions, "cl100k", "gpt-3.5-turbo-instruct"));
  const auto r = post(
      s, "/v1/completions",
      {{"model", "gpt-3.5-turbo-instruct"}, {"prompt", kArticle}, {"echo", true}, {"logprobs", 1}});
  EXPECT_EQ(r.status, 400);
  EXPECT_EQ(r.body["error"]["message"],
            "Setting 'echo' and 'logprobs' at the same time is not supported for this model.");
}

TEST(OpenAiLegacy, Davinci002EchoLogprobsUseCharacterOffsetsAndBytesTokens) {
  FakeServer s(opts(Flavour::kOpenAiLegacyCompletions, "cl100k", "davinci-002"));
  const auto r = post(s, "/v1/completions",
                      {{"model", "davinci-002"},
                       {"prompt", kMood},
                       {"echo", true},
                       {"logprobs", 1},
                       {"max_tokens", 0}});
  ASSERT_EQ(r.status, 200) << r.raw;
  const auto& lp = r.body["choices"][0]["logprobs"];
  EXPECT_EQ(lp["tokens"], json({"M", "ood", ":", "bytes: \\xf0\\x9f", "bytes:\\xa6", "bytes:\\x99",
                                " llama", " time"}));
  EXPECT_EQ(lp["text_offset"], json({0, 1, 4, 5, 6, 6, 7, 13}));
  EXPECT_TRUE(lp["token_logprobs"][0].is_null());  // no BOS: the first prompt token is unscored
  const auto& ids = fixture_tokens("cl100k", kMood).ids;
  EXPECT_EQ(lp["token_logprobs"][1].get<double>(),
            fake_logprob(std::vector<std::int64_t>{ids[0]}, ids[1]));
  EXPECT_EQ(r.body["usage"]["prompt_tokens"], ids.size());
}

TEST(OpenAiLegacy, PromptLogprobsIsUnrecognized) {
  FakeServer s(opts(Flavour::kOpenAiLegacyCompletions, "cl100k", "davinci-002"));
  const auto r = post(s, "/v1/completions",
                      {{"model", "davinci-002"}, {"prompt", kArticle}, {"prompt_logprobs", 1}});
  EXPECT_EQ(r.status, 400);
  EXPECT_EQ(r.body["error"]["message"], "Unrecognized request argument supplied: prompt_logprobs");
}

}  // namespace
}  // namespace probity::test
