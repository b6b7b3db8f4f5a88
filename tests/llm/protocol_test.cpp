#include <curl/curl.h>
#include <gtest/gtest.h>

#include <ctime>
#include <nlohmann/json.hpp>

#include "llm/internal.hpp"
#include "probity/llm.hpp"

namespace probity::llm::detail {
namespace {

using nlohmann::json;

TEST(LlmProtocol, Sha256KnownVectors) {
  EXPECT_EQ(sha256_hex("abc"), "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad");
  EXPECT_EQ(sha256_hex(""), "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855");
}

TEST(LlmProtocol, RetryAfterSecondsAndHttpDates) {
  const std::time_t now = 1700000000;
  EXPECT_EQ(parse_retry_after("3", now), 3.0);
  EXPECT_EQ(parse_retry_after(" 1.5\r\n", now), 1.5);
  EXPECT_EQ(parse_retry_after("0", now), 0.0);
  // RFC 9110 IMF-fixdate, 120 s after `now` (2023-11-14 22:13:20 UTC).
  EXPECT_EQ(parse_retry_after("Tue, 14 Nov 2023 22:15:20 GMT", now), 120.0);
  EXPECT_EQ(parse_retry_after("Tue, 14 Nov 2023 22:00:00 GMT", now), 0.0);  // past: now
  EXPECT_FALSE(parse_retry_after("soon", now));
  EXPECT_FALSE(parse_retry_after("", now));
  EXPECT_FALSE(parse_retry_after("1.2.3", now));
}

TEST(LlmProtocol, BackoffIsSeededFullJitter) {
  EndpointConfig c;
  c.backoff_base_s = 1;
  c.backoff_max_s = 8;
  for (int retry = 1; retry <= 6; ++retry) {
    const double cap = std::min(8.0, std::ldexp(1.0, retry - 1));
    double lo = 1e9, hi = 0;
    for (int k = 0; k < 200; ++k) {
      const std::string key = "key" + std::to_string(k);
      const double d = backoff_delay(c, key, retry);
      EXPECT_EQ(d, backoff_delay(c, key, retry));  // reproducible
      EXPECT_GE(d, 0.0);
      EXPECT_LE(d, cap);
      lo = std::min(lo, d);
      hi = std::max(hi, d);
    }
    EXPECT_LT(lo, 0.1 * cap);  // spread over the whole interval
    EXPECT_GT(hi, 0.9 * cap);
  }
  auto other = c;
  other.jitter_seed = 99;
  EXPECT_NE(backoff_delay(c, "k", 2), backoff_delay(other, "k", 2));
}

TEST(LlmProtocol, TokenBucket) {
  TokenBucket off;
  EXPECT_FALSE(off.enabled());
  EXPECT_EQ(off.wait(1e9, 0), 0.0);
  TokenBucket b(120, 60);  // 2/s, capacity 2 (one second's worth)
  EXPECT_EQ(b.wait(1, 100), 0.0);
  b.spend(1, 100);
  b.spend(1, 100);
  EXPECT_DOUBLE_EQ(b.wait(1, 100), 0.5);
  EXPECT_EQ(b.wait(1, 100.5), 0.0);
  // A cost above the capacity waits for a full bucket, then goes negative.
  TokenBucket t(100, 1);
  t.spend(100, 10);
  EXPECT_DOUBLE_EQ(t.wait(500, 10), 1.0);
  EXPECT_EQ(t.wait(500, 11), 0.0);
  t.spend(500, 11);
  EXPECT_DOUBLE_EQ(t.wait(50, 11), 4.5);
  t.adjust(450, 11);  // the answer used 50, not 500
  EXPECT_EQ(t.wait(50, 11), 0.0);
  t.adjust(1e6, 11);  // never above the capacity
  t.spend(100, 11);
  EXPECT_GT(t.wait(1, 11), 0.0);
}

TEST(LlmProtocol, RequestBodies) {
  EndpointConfig c;
  c.base_url = "http://h:8000/v1/";
  c.model = "m";
  c.seed = 10;
  Request r;
  r.endpoint = Endpoint::kCompletion;
  r.prompt_tokens = {1, 2, 3};
  r.echo = true;
  r.logprobs = 0;
  r.max_tokens = 0;
  r.sample = 2;
  const auto w = build_request(c, r);
  EXPECT_EQ(w.url, "http://h:8000/v1/completions");
  const json body = json::parse(w.body);
  EXPECT_EQ(body["prompt"], json::array({1, 2, 3}));
  EXPECT_EQ(body["echo"], true);
  EXPECT_EQ(body["logprobs"], 0);
  EXPECT_EQ(body["max_tokens"], 0);
  EXPECT_EQ(body["seed"], 12);
  EXPECT_EQ(w.est_tokens, 3.0);
  r.endpoint = Endpoint::kTokenize;
  r.prompt = "abc";
  const json tok = json::parse(build_request(c, r).body);
  EXPECT_EQ(tokenize_url(c.base_url), "http://h:8000/tokenize");
  EXPECT_EQ(build_request(c, r).url, "http://h:8000/tokenize");
  // One body for vLLM/SGLang (prompt, add_special_tokens) and llama.cpp (content, add_special).
  EXPECT_EQ(tok, (json{{"model", "m"},
                       {"prompt", "abc"},
                       {"add_special_tokens", true},
                       {"content", "abc"},
                       {"add_special", true}}));
  // Invalid UTF-8 is sent as U+FFFD rather than failing the batch.
  Request bad;
  bad.messages = {{"user", std::string("caf\xe9")}};
  EXPECT_NE(build_request(c, bad).body.find("caf\xef\xbf\xbd"), std::string::npos);
}

// Each mode and server kind asks for the answer's shape its own way; the cache key is that of
// the body with the schema, and the body without it is kept for a server that rejects it.
TEST(LlmProtocol, StructuredOutputFieldsPerModeAndServer) {
  EndpointConfig c;
  c.base_url = "http://h:8000/v1";
  c.model = "m";
  Request r;
  r.messages = {{"user", "Rate it."}};
  const json schema = {{"type", "object"},
                       {"properties", {{"rating", {{"type", "integer"}, {"enum", {1, 2}}}}}},
                       {"required", {"rating"}},
                       {"additionalProperties", false}};
  r.schema = schema.dump();
  auto body_of = [&](const EndpointConfig& config) {
    return json::parse(build_request(config, r).body);
  };
  json b = body_of(c);
  EXPECT_EQ(b["response_format"]["type"], "json_schema");
  EXPECT_EQ(b["response_format"]["json_schema"]["schema"], schema);
  EXPECT_EQ(b["response_format"]["json_schema"]["strict"], true);
  EXPECT_EQ(b["response_format"]["json_schema"]["name"], "answer");
  const WireRequest w = build_request(c, r);
  EXPECT_FALSE(json::parse(w.unstructured_body).contains("response_format"));
  EXPECT_EQ(json::parse(w.unstructured_body)["messages"], b["messages"]);
  c.server = ServerKind::kLlamaCpp;
  b = body_of(c);
  EXPECT_EQ(b["json_schema"], schema);
  EXPECT_FALSE(b.contains("response_format"));
  c.server = ServerKind::kAuto;
  c.structured = StructuredMode::kJson;
  EXPECT_EQ(body_of(c)["response_format"], (json{{"type", "json_object"}}));
  c.structured = StructuredMode::kOff;
  EXPECT_FALSE(body_of(c).contains("response_format"));
  EXPECT_TRUE(build_request(c, r).unstructured_body.empty());
  // A user's own constraint in extra_body is sent instead of probity's, never next to it.
  c.structured = StructuredMode::kSchema;
  c.extra_body = R"({"grammar": "root ::= \"{}\""})";
  b = body_of(c);
  EXPECT_EQ(b["grammar"], "root ::= \"{}\"");
  EXPECT_FALSE(b.contains("response_format"));
  // A free-text question carries nothing.
  c.extra_body.clear();
  r.schema.clear();
  EXPECT_FALSE(body_of(c).contains("response_format"));
  EXPECT_TRUE(
      rejects_structured_output(400, "Unrecognized request argument supplied: response_format"));
  EXPECT_TRUE(rejects_structured_output(400, "JSON schema conversion failed: unsupported"));
  EXPECT_FALSE(rejects_structured_output(400, "'messages' is required"));
  EXPECT_FALSE(rejects_structured_output(500, "response_format"));
}

// kJson (embedding servers): the body as given in canonical form, at base + path, with nothing
// added (no model, temperature or extra_body); any JSON answer is a success, an error object not.
TEST(LlmProtocol, JsonRequestsGoAsGivenAndAnyJsonAnswerIsASuccess) {
  EndpointConfig c;
  c.base_url = "http://h:8080/";
  c.model = "m";
  c.extra_body = R"({"top_k": 5})";
  Request r;
  r.endpoint = Endpoint::kJson;
  r.path = "/embed_all";
  r.body = R"({"truncate": false, "inputs": "a b"})";
  const WireRequest w = build_request(c, r);
  EXPECT_EQ(w.url, "http://h:8080/embed_all");
  EXPECT_EQ(w.body, R"({"inputs":"a b","truncate":false})");
  Request other = r;
  other.path = "/tokenize";
  EXPECT_NE(build_request(c, other).key, w.key);
  other = r;
  other.body = R"({"inputs":"a b","truncate":false})";  // same JSON, other spelling
  EXPECT_EQ(build_request(c, other).key, w.key);
  other.path = "embed_all";
  EXPECT_THROW(build_request(c, other), std::invalid_argument);
  other.path = "/x";
  other.body = "{not json";
  EXPECT_THROW(build_request(c, other), std::invalid_argument);

  Response out;
  EXPECT_TRUE(parse_success(r, "[[[0.5, 1]]]", out));
  EXPECT_TRUE(out.ok);
  Response bad;
  EXPECT_FALSE(parse_success(r, "[[[0.5, ", bad));
  EXPECT_EQ(bad.error_kind, ErrorKind::kMalformed);
  Response err;
  EXPECT_FALSE(parse_success(r, R"({"error": "x", "error_type": "Backend"})", err));
  EXPECT_EQ(err.error_kind, ErrorKind::kInvalidRequest);
}

TEST(LlmProtocol, ParsesVllmPromptLogprobsByTokenId) {
  // The prompt token is not listed first here; the ids say which entry is whose.
  const std::string body = R"({"choices": [{"index": 0, "text": "", "finish_reason": "length",
    "prompt_token_ids": [7, 8, 9],
    "prompt_logprobs": [null,
      {"3": {"logprob": -0.1, "rank": 1, "decoded_token": " a"},
       "8": {"logprob": -2.5, "rank": 4, "decoded_token": " b"}},
      {"9": {"logprob": -0.7, "rank": 1, "decoded_token": " c"}}]}],
    "usage": {"prompt_tokens": 3, "completion_tokens": 0, "total_tokens": 3}})";
  Request r;
  r.endpoint = Endpoint::kCompletion;
  r.prompt = "x b c";
  Response out;
  ASSERT_TRUE(parse_success(r, body, out)) << out.error;
  ASSERT_EQ(out.prompt_logprobs.size(), 3u);
  EXPECT_FALSE(out.prompt_logprobs[0].logprob);
  EXPECT_EQ(out.prompt_logprobs[0].id, 7);
  EXPECT_EQ(out.prompt_logprobs[1].id, 8);
  EXPECT_EQ(out.prompt_logprobs[1].token, " b");
  EXPECT_EQ(out.prompt_logprobs[1].logprob, -2.5);
  EXPECT_EQ(out.prompt_logprobs[1].top.size(), 2u);
  EXPECT_EQ(out.prompt_logprobs[2].logprob, -0.7);
  EXPECT_EQ(out.usage.prompt_tokens, 3);
}

TEST(LlmProtocol, ParsesLegacyEchoLogprobs) {
  // usage absent: the prompt ends where text_offset passes the prompt's length.
  const std::string body = R"({"choices": [{"index": 0, "text": "a b c", "finish_reason": "length",
    "logprobs": {"tokens": ["a", " b", " c"], "token_logprobs": [null, -1.5, -0.25],
                 "top_logprobs": [null, {" b": -1.5, " x": -1.0}, {" c": -0.25}],
                 "text_offset": [0, 1, 3]}}]})";
  Request r;
  r.endpoint = Endpoint::kCompletion;
  r.prompt = "a b";
  r.echo = true;
  Response out;
  ASSERT_TRUE(parse_success(r, body, out)) << out.error;
  EXPECT_FALSE(out.usage.present);
  ASSERT_EQ(out.prompt_logprobs.size(), 2u);
  EXPECT_EQ(out.prompt_logprobs[1].logprob, -1.5);
  ASSERT_EQ(out.prompt_logprobs[1].top.size(), 2u);
  EXPECT_EQ(out.prompt_logprobs[1].top[1].first, " x");
  ASSERT_EQ(out.logprobs.size(), 1u);
  EXPECT_EQ(out.logprobs[0].token, " c");
}

TEST(LlmProtocol, ChoicesAreOrderedAndNullContentIsEmpty) {
  const std::string body = R"({"choices": [
    {"index": 1, "message": {"role": "assistant", "content": "second"}, "finish_reason": "stop"},
    {"index": 0, "message": {"role": "assistant", "content": null}, "finish_reason": "tool_calls"}],
    "usage": {"prompt_tokens": null, "completion_tokens": 4}})";
  Request r;
  Response out;
  ASSERT_TRUE(parse_success(r, body, out)) << out.error;
  EXPECT_EQ(out.texts, (std::vector<std::string>{"", "second"}));
  EXPECT_EQ(out.finish_reasons[0], "tool_calls");
  EXPECT_EQ(out.usage.prompt_tokens, 0);
  EXPECT_EQ(out.usage.completion_tokens, 4);
}

TEST(LlmProtocol, ImpossibleTokenCountsAreUnknownNotConverted) {
  // Found by the fuzzer: a double beyond int64 was cast (undefined behaviour).
  const std::string body = R"({"choices": [{"index": 0, "message": {"content": "a"}}],
    "usage": {"prompt_tokens": 7.77778e+20, "completion_tokens": 2.5,
              "prompt_tokens_details": {"cached_tokens": -3}}})";
  Request r;
  Response out;
  ASSERT_TRUE(parse_success(r, body, out)) << out.error;
  EXPECT_EQ(out.usage.prompt_tokens, -1);
  EXPECT_EQ(out.usage.completion_tokens, -1);
  EXPECT_EQ(out.usage.cached_prompt_tokens, -1);
}

TEST(LlmProtocol, MalformedAnswers) {
  Request r;
  Response out;
  EXPECT_FALSE(parse_success(r, "<html>502</html>", out));
  EXPECT_EQ(out.error_kind, ErrorKind::kMalformed);
  EXPECT_NE(out.error.find("<html>502</html>"), std::string::npos);
  out = {};
  EXPECT_FALSE(parse_success(r, R"({"object": "list"})", out));
  EXPECT_EQ(out.error_kind, ErrorKind::kMalformed);
  EXPECT_NE(out.error.find("choices"), std::string::npos);
  out = {};
  EXPECT_FALSE(parse_success(r, R"({"choices": [{"index": 0, "message": "text"}]})", out));
  EXPECT_EQ(out.error_kind, ErrorKind::kMalformed);
  EXPECT_NE(out.error.find("without 'message'"), std::string::npos);
  out = {};
  EXPECT_FALSE(parse_success(
      r, R"({"choices": [{"index": "one", "message": {}}, {"index": "zero", "message": {}}]})",
      out));
  EXPECT_EQ(out.error_kind, ErrorKind::kMalformed);
  EXPECT_NE(out.error.find("unexpected answer structure"), std::string::npos);
  out = {};
  EXPECT_FALSE(parse_success(r, R"({"error": {"message": "model overloaded"}})", out));
  EXPECT_EQ(out.error_kind, ErrorKind::kInvalidRequest);
  EXPECT_NE(out.error.find("model overloaded"), std::string::npos);
}

TEST(LlmProtocol, ErrorMessagesOfEveryServerFlavour) {
  EXPECT_EQ(error_message(
                R"({"error": {"message": "bad temperature", "type": "invalid_request_error"}})"),
            "bad temperature");  // OpenAI, llama.cpp, current vLLM
  EXPECT_EQ(error_message(R"({"object": "error", "message": "too long", "code": 400})"),
            "too long");  // older vLLM
  EXPECT_EQ(error_message(R"({"error": "model 'x' not found"})"), "model 'x' not found");  // Ollama
  EXPECT_EQ(error_message(R"({"detail": "Not Found"})"), "Not Found");  // FastAPI
  EXPECT_EQ(error_message("upstream timed out"), "upstream timed out");
  EXPECT_EQ(error_message(""), "(empty body)");
  EXPECT_EQ(error_kind_name(ErrorKind::kRateLimited), "rate_limited");
}

}  // namespace
}  // namespace probity::llm::detail
