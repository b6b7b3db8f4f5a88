// Tests of the fakes' batch APIs (FakeOptions::batch_api) and of vllm_run_batch(): raw HTTP over
// httplib, one test per behaviour of tests/llm/fakes/SOURCES.md's batch sections.
#include <gtest/gtest.h>
#include <httplib.h>

#include <map>
#include <regex>
#include <set>
#include <string>
#include <vector>

#include "llm/fakes/fake_server.hpp"
#include "llm/fakes/run_batch.hpp"

namespace probity::test {
namespace {

using json = nlohmann::json;

struct Resp {
  int status = 0;
  std::string raw;
  json body;
};

Resp to_resp(const httplib::Result& res) {
  Resp r;
  if (!res) return r;
  r.status = res->status;
  r.raw = res->body;
  r.body = json::parse(res->body, nullptr, false);
  return r;
}

httplib::Headers bearer(const std::string& key) {
  return {{"Authorization", "Bearer " + key}};
}

Resp get(const FakeServer& s, const std::string& path, httplib::Headers headers = {}) {
  httplib::Client cli("127.0.0.1", s.port());
  return to_resp(cli.Get(path.c_str(), headers));
}

Resp post(const FakeServer& s, const std::string& path, const json& body,
          httplib::Headers headers = {}) {
  httplib::Client cli("127.0.0.1", s.port());
  return to_resp(cli.Post(path.c_str(), headers, body.dump(), "application/json"));
}

Resp upload(const FakeServer& s, const std::string& jsonl, httplib::Headers headers = {},
            const std::string& purpose = "batch") {
  httplib::Client cli("127.0.0.1", s.port());
  httplib::MultipartFormDataItems items = {{"purpose", purpose, "", ""},
                                           {"file", jsonl, "requests.jsonl", "application/jsonl"}};
  return to_resp(cli.Post("/v1/files", headers, items));
}

FakeOptions batch_opts(Flavour flavour = Flavour::kVllm, std::string model = "fake-model") {
  FakeOptions o;
  o.flavour = flavour;
  o.model = std::move(model);
  o.batch_api = true;
  return o;
}

json chat_body(const std::string& model, const std::string& text) {
  return {{"model", model},
          {"messages", json::array({{{"role", "user"}, {"content", text}}})},
          {"max_tokens", 8}};
}

std::string line(const std::string& id, const json& body,
                 const std::string& url = "/v1/chat/completions") {
  return json{{"custom_id", id}, {"method", "POST"}, {"url", url}, {"body", body}}.dump() + "\n";
}

std::string three_lines(const std::string& model = "fake-model") {
  return line("a", chat_body(model, "Hello")) + line("b", chat_body(model, "World")) +
         line("c", chat_body(model, "Again"));
}

Resp create_batch(const FakeServer& s, const std::string& file_id, httplib::Headers h = {}) {
  return post(s, "/v1/batches",
              {{"input_file_id", file_id},
               {"endpoint", "/v1/chat/completions"},
               {"completion_window", "24h"},
               {"metadata", {{"run", "t"}}}},
              std::move(h));
}

std::vector<json> parse_lines(const std::string& text) {
  std::vector<json> out;
  std::size_t from = 0;
  while (from < text.size()) {
    auto end = text.find('\n', from);
    if (end == std::string::npos) end = text.size();
    if (end > from) out.push_back(json::parse(text.substr(from, end - from)));
    from = end + 1;
  }
  return out;
}

// Polls until the batch reaches a final status; returns every status seen.
std::vector<std::string> poll_to_end(const FakeServer& s, const std::string& id, json& last) {
  static const std::set<std::string> final_states = {"completed", "failed", "expired", "cancelled"};
  std::vector<std::string> seen;
  for (int i = 0; i < 50; ++i) {
    last = get(s, "/v1/batches/" + id).body;
    seen.push_back(last["status"]);
    if (final_states.count(seen.back())) break;
  }
  return seen;
}

TEST(FakeBatchOpenAi, FileUploadReturnsTheFileObjectAndItsContent) {
  FakeServer s(batch_opts());
  const std::string jsonl = three_lines();
  const Resp f = upload(s, jsonl);
  ASSERT_EQ(f.status, 200) << f.raw;
  EXPECT_TRUE(f.body["id"].get<std::string>().starts_with("file-"));
  EXPECT_EQ(f.body["object"], "file");
  EXPECT_EQ(f.body["bytes"], jsonl.size());
  EXPECT_EQ(f.body["filename"], "requests.jsonl");
  EXPECT_EQ(f.body["purpose"], "batch");
  EXPECT_EQ(f.body["status"], "processed");
  EXPECT_TRUE(f.body["created_at"].is_number_integer());
  const Resp content = get(s, "/v1/files/" + f.body["id"].get<std::string>() + "/content");
  EXPECT_EQ(content.status, 200);
  EXPECT_EQ(content.raw, jsonl);
  EXPECT_EQ(get(s, "/v1/files/file-nope/content").status, 404);
  EXPECT_EQ(upload(s, jsonl, {}, "fine-tune").status, 400);
}

TEST(FakeBatchOpenAi, StatusAdvancesOnEachPollToCompletedWithEveryBatchField) {
  FakeServer s(batch_opts());
  const std::string file_id = upload(s, three_lines()).body["id"];
  const Resp b = create_batch(s, file_id);
  ASSERT_EQ(b.status, 200) << b.raw;
  for (const char* key : {"id",
                          "object",
                          "endpoint",
                          "errors",
                          "input_file_id",
                          "completion_window",
                          "status",
                          "output_file_id",
                          "error_file_id",
                          "created_at",
                          "in_progress_at",
                          "expires_at",
                          "finalizing_at",
                          "completed_at",
                          "failed_at",
                          "expired_at",
                          "cancelling_at",
                          "cancelled_at",
                          "request_counts",
                          "metadata",
                          "usage",
                          "model"})
    EXPECT_TRUE(b.body.contains(key)) << key;
  EXPECT_TRUE(b.body["id"].get<std::string>().starts_with("batch_"));
  EXPECT_EQ(b.body["object"], "batch");
  EXPECT_EQ(b.body["status"], "validating");
  EXPECT_EQ(b.body["metadata"]["run"], "t");
  EXPECT_EQ(b.body["expires_at"].get<std::int64_t>() - b.body["created_at"].get<std::int64_t>(),
            86400);
  json last;
  const auto seen = poll_to_end(s, b.body["id"], last);
  EXPECT_EQ(seen, (std::vector<std::string>{"in_progress", "finalizing", "completed"}));
  EXPECT_EQ(last["request_counts"], (json{{"total", 3}, {"completed", 3}, {"failed", 0}}));
  EXPECT_TRUE(last["completed_at"].is_number_integer());
  EXPECT_TRUE(last["error_file_id"].is_null());
  EXPECT_GT(last["usage"]["input_tokens"].get<int>(), 0);
  const auto out = parse_lines(
      get(s, "/v1/files/" + last["output_file_id"].get<std::string>() + "/content").raw);
  ASSERT_EQ(out.size(), 3u);
  EXPECT_EQ(out[0]["custom_id"], "a");
  EXPECT_TRUE(out[0]["id"].get<std::string>().starts_with("batch_req_"));
  EXPECT_EQ(out[0]["response"]["status_code"], 200);
  EXPECT_TRUE(out[0]["response"]["request_id"].is_string());
  EXPECT_EQ(out[0]["response"]["body"]["object"], "chat.completion");
  EXPECT_TRUE(out[0]["error"].is_null());
}

TEST(FakeBatchOpenAi, PollsPerStepKeepsEachStatusForThatManyPolls) {
  FakeOptions o = batch_opts();
  o.batch_polls_per_step = 2;
  FakeServer s(o);
  const Resp b = create_batch(s, upload(s, three_lines()).body["id"]);
  json last;
  const auto seen = poll_to_end(s, b.body["id"], last);
  EXPECT_EQ(seen, (std::vector<std::string>{"validating", "in_progress", "in_progress",
                                            "finalizing", "finalizing", "completed"}));
}

TEST(FakeBatchOpenAi, BatchAnswerEqualsTheOnlineAnswerForEveryFlavour) {
  for (Flavour f : {Flavour::kVllm, Flavour::kSglang, Flavour::kOllama, Flavour::kOpenAiChat}) {
    FakeServer s(batch_opts(f));
    json body = chat_body("fake-model", "Hello");
    body["response_format"] = {
        {"type", "json_schema"},
        {"json_schema",
         {{"name", "answer"},
          {"strict", true},
          {"schema",
           {{"type", "object"},
            {"properties", {{"score", {{"type", "integer"}, {"minimum", 1}}}}},
            {"required", {"score"}},
            {"additionalProperties", false}}}}}};
    const Resp online = post(s, "/v1/chat/completions", body);
    ASSERT_EQ(online.status, 200) << flavour_name(f) << online.raw;
    const std::string file_id = upload(s, line("x", body)).body["id"];
    json last;
    poll_to_end(s, create_batch(s, file_id).body["id"], last);
    ASSERT_EQ(last["status"], "completed") << flavour_name(f) << last.dump();
    const auto out = parse_lines(
        get(s, "/v1/files/" + last["output_file_id"].get<std::string>() + "/content").raw);
    ASSERT_EQ(out.size(), 1u);
    const json& batch_body = out[0]["response"]["body"];
    EXPECT_EQ(batch_body["choices"][0]["message"], online.body["choices"][0]["message"])
        << flavour_name(f);
    EXPECT_EQ(batch_body["usage"]["prompt_tokens"], online.body["usage"]["prompt_tokens"]);
    EXPECT_EQ(batch_body["choices"][0]["message"]["content"], R"({"score":1})");
  }
}

TEST(FakeBatchOpenAi, RequestsTheFlavourRejectsAndTheFailKnobGoToTheErrorFile) {
  FakeOptions o = batch_opts();
  o.batch_fail_request = 2;
  FakeServer s(o);
  const std::string jsonl = line("a", chat_body("fake-model", "Hello")) +
                            line("b", chat_body("fake-model", "World")) +
                            line("c", chat_body("fake-model", "Again"));
  json last;
  poll_to_end(s, create_batch(s, upload(s, jsonl).body["id"]).body["id"], last);
  ASSERT_EQ(last["status"], "completed");
  EXPECT_EQ(last["request_counts"], (json{{"total", 3}, {"completed", 2}, {"failed", 1}}));
  const auto errors =
      parse_lines(get(s, "/v1/files/" + last["error_file_id"].get<std::string>() + "/content").raw);
  ASSERT_EQ(errors.size(), 1u);
  EXPECT_EQ(errors[0]["custom_id"], "b");
  EXPECT_EQ(errors[0]["response"]["status_code"], 500);
  EXPECT_EQ(errors[0]["response"]["body"]["error"]["type"], "server_error");
  EXPECT_TRUE(errors[0]["error"].is_null());
  const auto out = parse_lines(
      get(s, "/v1/files/" + last["output_file_id"].get<std::string>() + "/content").raw);
  ASSERT_EQ(out.size(), 2u);
  EXPECT_EQ(out[1]["custom_id"], "c");
}

TEST(FakeBatchOpenAi, AFlavourErrorStatusLandsInTheErrorFileWithItsBody) {
  FakeServer s(batch_opts());
  // vLLM refuses top_logprobs without logprobs: a 400, as online.
  json bad = chat_body("fake-model", "Hello");
  bad["top_logprobs"] = 2;
  const std::string jsonl = line("ok", chat_body("fake-model", "Hello")) + line("bad", bad);
  json last;
  poll_to_end(s, create_batch(s, upload(s, jsonl).body["id"]).body["id"], last);
  const auto errors =
      parse_lines(get(s, "/v1/files/" + last["error_file_id"].get<std::string>() + "/content").raw);
  ASSERT_EQ(errors.size(), 1u);
  EXPECT_EQ(errors[0]["custom_id"], "bad");
  EXPECT_EQ(errors[0]["response"]["status_code"], 400);
  EXPECT_EQ(errors[0]["response"]["body"], post(s, "/v1/chat/completions", bad).body);
}

TEST(FakeBatchOpenAi, ExpiryLeavesTheUnansweredRequestsAsBatchExpiredLines) {
  FakeOptions o = batch_opts();
  o.batch_expire_after = 1;
  FakeServer s(o);
  json last;
  const auto seen =
      poll_to_end(s, create_batch(s, upload(s, three_lines()).body["id"]).body["id"], last);
  EXPECT_EQ(seen.back(), "expired");
  EXPECT_TRUE(last["expired_at"].is_number_integer());
  EXPECT_EQ(last["request_counts"]["completed"], 1);
  const auto out = parse_lines(
      get(s, "/v1/files/" + last["output_file_id"].get<std::string>() + "/content").raw);
  ASSERT_EQ(out.size(), 1u);
  const auto errors =
      parse_lines(get(s, "/v1/files/" + last["error_file_id"].get<std::string>() + "/content").raw);
  ASSERT_EQ(errors.size(), 2u);
  EXPECT_EQ(errors[0]["custom_id"], "b");
  EXPECT_TRUE(errors[0]["response"].is_null());
  EXPECT_EQ(errors[0]["error"]["code"], "batch_expired");
  EXPECT_TRUE(errors[0]["error"]["message"].is_string());
}

TEST(FakeBatchOpenAi, CancelGoesThroughCancellingAndKeepsWhatWasDone) {
  FakeOptions o = batch_opts();
  o.batch_polls_per_step = 3;
  FakeServer s(o);
  const std::string id = create_batch(s, upload(s, three_lines()).body["id"]).body["id"];
  for (int i = 0; i < 3; ++i) get(s, "/v1/batches/" + id);  // validating -> in_progress
  const Resp p = get(s, "/v1/batches/" + id);               // first third answered
  EXPECT_EQ(p.body["status"], "in_progress");
  EXPECT_EQ(p.body["request_counts"]["completed"], 1);
  const Resp c = post(s, "/v1/batches/" + id + "/cancel", json::object());
  EXPECT_EQ(c.body["status"], "cancelling");
  EXPECT_TRUE(c.body["cancelling_at"].is_number_integer());
  const Resp done = get(s, "/v1/batches/" + id);
  EXPECT_EQ(done.body["status"], "cancelled");
  EXPECT_TRUE(done.body["cancelled_at"].is_number_integer());
  const auto out = parse_lines(
      get(s, "/v1/files/" + done.body["output_file_id"].get<std::string>() + "/content").raw);
  EXPECT_EQ(out.size(), 1u);
  const auto errors = parse_lines(
      get(s, "/v1/files/" + done.body["error_file_id"].get<std::string>() + "/content").raw);
  ASSERT_EQ(errors.size(), 2u);
  EXPECT_EQ(errors[0]["error"]["code"], "batch_cancelled");
  EXPECT_EQ(post(s, "/v1/batches/" + id + "/cancel", json::object()).body["status"], "cancelled");
}

TEST(FakeBatchOpenAi, ValidationErrorsFailTheBatchWithLineNumbers) {
  FakeServer s(batch_opts());
  const std::string jsonl = line("a", chat_body("fake-model", "Hello")) +
                            line("a", chat_body("fake-model", "World")) +
                            line("b", chat_body("fake-model", "Hi"), "/v1/completions") +
                            line("c", chat_body("other-model", "Hi")) + "{not json\n";
  json last;
  const auto seen = poll_to_end(s, create_batch(s, upload(s, jsonl).body["id"]).body["id"], last);
  EXPECT_EQ(seen, (std::vector<std::string>{"failed"}));
  EXPECT_TRUE(last["failed_at"].is_number_integer());
  EXPECT_EQ(last["errors"]["object"], "list");
  std::map<std::string, int> codes;
  for (const auto& e : last["errors"]["data"])
    codes[e["code"].get<std::string>()] = e["line"].get<int>();
  EXPECT_EQ(codes["duplicate_custom_id"], 2);
  EXPECT_EQ(codes["url_mismatch"], 3);
  EXPECT_EQ(codes["model_mismatch"], 4);
  EXPECT_EQ(codes["invalid_json_line"], 5);
  EXPECT_TRUE(last["output_file_id"].is_null());
}

TEST(FakeBatchOpenAi, LimitsAreKnobs) {
  FakeOptions o = batch_opts();
  o.batch_max_requests = 2;
  FakeServer s(o);
  json last;
  poll_to_end(s, create_batch(s, upload(s, three_lines()).body["id"]).body["id"], last);
  EXPECT_EQ(last["status"], "failed");
  EXPECT_EQ(last["errors"]["data"][0]["code"], "too_many_tasks");
  FakeOptions small = batch_opts();
  small.batch_max_file_bytes = 10;
  FakeServer t(small);
  poll_to_end(t, create_batch(t, upload(t, three_lines()).body["id"]).body["id"], last);
  EXPECT_EQ(last["status"], "failed");
  EXPECT_EQ(last["errors"]["data"][0]["code"], "file_too_large");
  EXPECT_EQ(post(t, "/v1/batches",
                 {{"input_file_id", "file-x"},
                  {"endpoint", "/v1/chat/completions"},
                  {"completion_window", "1h"}})
                .status,
            400);
}

TEST(FakeBatchOpenAi, ApiKeyGetsOpenAisUnauthorizedShape) {
  FakeOptions o = batch_opts(Flavour::kOpenAiChat);
  o.api_key = "sk-test-1234567890abcd";
  FakeServer s(o);
  const Resp missing = upload(s, three_lines());
  EXPECT_EQ(missing.status, 401);
  EXPECT_TRUE(missing.body["error"]["code"].is_null());
  const Resp wrong = get(s, "/v1/batches/batch_x", bearer("sk-wrong-000000000000"));
  EXPECT_EQ(wrong.status, 401);
  EXPECT_EQ(wrong.body["error"]["code"], "invalid_api_key");
  const Resp f = upload(s, three_lines(), bearer(o.api_key));
  ASSERT_EQ(f.status, 200);
  const Resp b = create_batch(s, f.body["id"], bearer(o.api_key));
  ASSERT_EQ(b.status, 200);
  Resp last;
  for (int i = 0; i < 3; ++i)
    last = get(s, "/v1/batches/" + b.body["id"].get<std::string>(), bearer(o.api_key));
  EXPECT_EQ(last.body["status"], "completed");
  EXPECT_EQ(last.body["request_counts"]["completed"], 3);  // the lines pass the flavour's auth
}

// -----------------------------------------------------------------------------------------------
// Anthropic

httplib::Headers anthropic_headers(const std::string& key = "ak-test") {
  return {{"x-api-key", key}, {"anthropic-version", "2023-06-01"}};
}

json message_params(const std::string& text, const std::string& model = "fake-model") {
  return {{"model", model},
          {"max_tokens", 16},
          {"system", "Be brief."},
          {"messages", json::array({{{"role", "user"}, {"content", text}}})}};
}

std::vector<json> anthropic_results(const FakeServer& s, const json& batch) {
  const std::string url = batch["results_url"];
  const std::string path = url.substr(url.find("/v1/"));
  httplib::Client cli("127.0.0.1", s.port());
  auto res = cli.Get(path.c_str(), anthropic_headers());
  return res ? parse_lines(res->body) : std::vector<json>{};
}

TEST(FakeBatchAnthropic, BatchGoesInProgressToEndedWithResultsUrl) {
  FakeOptions o = batch_opts();
  o.api_key = "ak-test";
  FakeServer s(o);
  const json req = {
      {"requests", json::array({{{"custom_id", "one"}, {"params", message_params("Hello")}},
                                {{"custom_id", "two"}, {"params", message_params("World")}}})}};
  const Resp b = post(s, "/v1/messages/batches", req, anthropic_headers());
  ASSERT_EQ(b.status, 200) << b.raw;
  EXPECT_TRUE(b.body["id"].get<std::string>().starts_with("msgbatch_"));
  EXPECT_EQ(b.body["type"], "message_batch");
  EXPECT_EQ(b.body["processing_status"], "in_progress");
  EXPECT_EQ(
      b.body["request_counts"],
      (json{{"processing", 2}, {"succeeded", 0}, {"errored", 0}, {"canceled", 0}, {"expired", 0}}));
  EXPECT_TRUE(b.body["results_url"].is_null());
  EXPECT_TRUE(b.body["ended_at"].is_null());
  EXPECT_TRUE(b.body["archived_at"].is_null());
  EXPECT_TRUE(b.body["cancel_initiated_at"].is_null());
  EXPECT_TRUE(std::regex_match(b.body["created_at"].get<std::string>(),
                               std::regex(R"(\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{6}Z)")));
  const std::string id = b.body["id"];
  const Resp early = get(s, "/v1/messages/batches/" + id + "/results", anthropic_headers());
  EXPECT_EQ(early.status, 400);
  const Resp e = get(s, "/v1/messages/batches/" + id, anthropic_headers());
  EXPECT_EQ(e.body["processing_status"], "ended");
  EXPECT_TRUE(e.body["ended_at"].is_string());
  EXPECT_EQ(e.body["results_url"], s.root_url() + "/v1/messages/batches/" + id + "/results");
  EXPECT_EQ(e.body["request_counts"]["succeeded"], 2);
  EXPECT_EQ(e.body["request_counts"]["processing"], 0);
  const auto results = anthropic_results(s, e.body);
  ASSERT_EQ(results.size(), 2u);
  EXPECT_EQ(results[0]["custom_id"], "one");
  const json& m = results[0]["result"]["message"];
  EXPECT_EQ(results[0]["result"]["type"], "succeeded");
  EXPECT_TRUE(m["id"].get<std::string>().starts_with("msg_"));
  EXPECT_EQ(m["type"], "message");
  EXPECT_EQ(m["role"], "assistant");
  EXPECT_EQ(m["model"], "fake-model");
  EXPECT_EQ(m["content"], (json::array({{{"type", "text"}, {"text", "ok"}}})));
  EXPECT_EQ(m["stop_reason"], "end_turn");
  EXPECT_TRUE(m["stop_sequence"].is_null());
  for (const char* key :
       {"input_tokens", "output_tokens", "cache_creation_input_tokens", "cache_read_input_tokens"})
    EXPECT_TRUE(m["usage"][key].is_number_integer()) << key;
}

TEST(FakeBatchAnthropic, StructuredOutputAnswerEqualsTheOnlineChatAnswer) {
  FakeServer s(batch_opts(Flavour::kOpenAiChat));
  const json schema = {{"type", "object"},
                       {"properties", {{"label", {{"type", "string"}, {"enum", {"yes", "no"}}}}}},
                       {"required", {"label"}},
                       {"additionalProperties", false}};
  json params = message_params("Is it?");
  params["output_config"] = {{"format", {{"type", "json_schema"}, {"schema", schema}}}};
  const json online_body = {
      {"model", "fake-model"},
      {"messages", json::array({{{"role", "system"}, {"content", "Be brief."}},
                                {{"role", "user"}, {"content", "Is it?"}}})},
      {"max_completion_tokens", 16},
      {"response_format",
       {{"type", "json_schema"},
        {"json_schema", {{"name", "answer"}, {"schema", schema}, {"strict", true}}}}}};
  const Resp online = post(s, "/v1/chat/completions", online_body);
  ASSERT_EQ(online.status, 200) << online.raw;
  const Resp b = post(s, "/v1/messages/batches",
                      {{"requests", json::array({{{"custom_id", "q"}, {"params", params}}})}},
                      anthropic_headers());
  const Resp e =
      get(s, "/v1/messages/batches/" + b.body["id"].get<std::string>(), anthropic_headers());
  const auto results = anthropic_results(s, e.body);
  ASSERT_EQ(results.size(), 1u);
  EXPECT_EQ(results[0]["result"]["message"]["content"][0]["text"],
            online.body["choices"][0]["message"]["content"]);
  EXPECT_EQ(results[0]["result"]["message"]["content"][0]["text"], R"({"label":"yes"})");
}

TEST(FakeBatchAnthropic, ErroredExpiredAndFailedRequestsHaveTheirResultShapes) {
  FakeOptions o = batch_opts();
  o.batch_fail_request = 2;
  o.batch_expire_after = 3;
  FakeServer s(o);
  json no_max = message_params("Hello");
  no_max.erase("max_tokens");
  json bad_role = message_params("Hello");
  bad_role["messages"][0]["role"] = "system";
  const json req = {
      {"requests", json::array({{{"custom_id", "bad-max"}, {"params", no_max}},
                                {{"custom_id", "fails"}, {"params", message_params("A")}},
                                {{"custom_id", "bad_role"}, {"params", bad_role}},
                                {{"custom_id", "late"}, {"params", message_params("B")}}})}};
  const Resp b = post(s, "/v1/messages/batches", req, anthropic_headers());
  ASSERT_EQ(b.status, 200) << b.raw;
  const Resp e =
      get(s, "/v1/messages/batches/" + b.body["id"].get<std::string>(), anthropic_headers());
  EXPECT_EQ(
      e.body["request_counts"],
      (json{{"processing", 0}, {"succeeded", 0}, {"errored", 3}, {"canceled", 0}, {"expired", 1}}));
  const auto results = anthropic_results(s, e.body);
  ASSERT_EQ(results.size(), 4u);
  EXPECT_EQ(
      results[0]["result"],
      (json{{"type", "errored"},
            {"error",
             {{"type", "error"},
              {"error",
               {{"type", "invalid_request_error"}, {"message", "max_tokens: Field required"}}}}}}));
  EXPECT_EQ(results[1]["result"]["error"]["error"]["type"], "api_error");
  EXPECT_EQ(results[2]["result"]["error"]["error"]["type"], "invalid_request_error");
  EXPECT_EQ(results[3]["result"], (json{{"type", "expired"}}));
}

TEST(FakeBatchAnthropic, CancelEndsWithCanceledResultsOnTheNextPoll) {
  FakeOptions o = batch_opts();
  o.batch_polls_per_step = 2;
  FakeServer s(o);
  const json req = {
      {"requests", json::array({{{"custom_id", "one"}, {"params", message_params("Hello")}},
                                {{"custom_id", "two"}, {"params", message_params("World")}}})}};
  const std::string id = post(s, "/v1/messages/batches", req, anthropic_headers()).body["id"];
  EXPECT_EQ(get(s, "/v1/messages/batches/" + id, anthropic_headers()).body["processing_status"],
            "in_progress");  // first half answered
  const Resp c =
      post(s, "/v1/messages/batches/" + id + "/cancel", json::object(), anthropic_headers());
  EXPECT_EQ(c.body["processing_status"], "canceling");
  EXPECT_TRUE(c.body["cancel_initiated_at"].is_string());
  const Resp e = get(s, "/v1/messages/batches/" + id, anthropic_headers());
  EXPECT_EQ(e.body["processing_status"], "ended");
  EXPECT_EQ(e.body["request_counts"]["succeeded"], 1);
  EXPECT_EQ(e.body["request_counts"]["canceled"], 1);
  const auto results = anthropic_results(s, e.body);
  ASSERT_EQ(results.size(), 2u);
  EXPECT_EQ(results[1]["result"], (json{{"type", "canceled"}}));
}

TEST(FakeBatchAnthropic, HeadersCustomIdsAndLimitsAreChecked) {
  FakeOptions o = batch_opts();
  o.api_key = "ak-test";
  o.anthropic_batch_max_requests = 2;
  FakeServer s(o);
  const json one = {
      {"requests", json::array({{{"custom_id", "ok"}, {"params", message_params("Hello")}}})}};
  const Resp no_key = post(s, "/v1/messages/batches", one, {{"anthropic-version", "2023-06-01"}});
  EXPECT_EQ(no_key.status, 401);
  EXPECT_EQ(no_key.body["type"], "error");
  EXPECT_EQ(no_key.body["error"]["type"], "authentication_error");
  EXPECT_EQ(post(s, "/v1/messages/batches", one, anthropic_headers("wrong")).status, 401);
  const Resp no_version = post(s, "/v1/messages/batches", one, {{"x-api-key", "ak-test"}});
  EXPECT_EQ(no_version.status, 400);
  EXPECT_EQ(no_version.body["error"]["type"], "invalid_request_error");
  const json bad_id = {{"requests", json::array({{{"custom_id", "has space"},
                                                  {"params", message_params("Hello")}}})}};
  EXPECT_EQ(post(s, "/v1/messages/batches", bad_id, anthropic_headers()).status, 400);
  const json dup = {
      {"requests", json::array({{{"custom_id", "a"}, {"params", message_params("Hello")}},
                                {{"custom_id", "a"}, {"params", message_params("World")}}})}};
  EXPECT_EQ(post(s, "/v1/messages/batches", dup, anthropic_headers()).status, 400);
  json three = dup;
  three["requests"][1]["custom_id"] = "b";
  three["requests"].push_back({{"custom_id", "c"}, {"params", message_params("Again")}});
  const Resp many = post(s, "/v1/messages/batches", three, anthropic_headers());
  EXPECT_EQ(many.status, 400);
  EXPECT_EQ(many.body["error"]["type"], "invalid_request_error");
  EXPECT_EQ(get(s, "/v1/messages/batches/msgbatch_nope", anthropic_headers()).status, 404);
}

// -----------------------------------------------------------------------------------------------
// vllm run-batch

TEST(FakeBatchRunBatch, WritesVllmsOutputLinesWithErrorsForFailedRequests) {
  FakeOptions o;
  o.flavour = Flavour::kVllm;
  FakeServer s(o);
  const json body = chat_body("fake-model", "Hello");
  const std::string in =
      line("ok", body) + "\n" + line("unknown", chat_body("nope", "Hello")) +
      line("emb", {{"model", "fake-model"}, {"input", "x"}}, "/v1/embeddings") +
      line("legacy", {{"model", "fake-model"}, {"prompt", "x"}}, "/v1/completions");
  const std::string out = vllm_run_batch(s, in);
  const auto lines = parse_lines(out);
  ASSERT_EQ(lines.size(), 4u);
  const std::regex id("vllm-[0-9a-f]{32}"), request_id("vllm-batch-[0-9a-f]{32}");
  for (const auto& l : lines) {
    EXPECT_TRUE(std::regex_match(l["id"].get<std::string>(), id));
    EXPECT_TRUE(std::regex_match(l["response"]["request_id"].get<std::string>(), request_id));
  }
  // Compact JSON in field order id, custom_id, response {status_code, request_id, body}, error.
  EXPECT_TRUE(out.rfind("{\"id\":\"vllm-", 0) == 0);
  EXPECT_NE(out.find("\"custom_id\":\"ok\",\"response\":{\"status_code\":200,\"request_id\":"),
            std::string::npos);
  EXPECT_EQ(lines[0]["custom_id"], "ok");
  EXPECT_TRUE(lines[0]["error"].is_null());
  const Resp online = post(s, "/v1/chat/completions", body);
  EXPECT_EQ(lines[0]["response"]["body"]["choices"], online.body["choices"]);
  EXPECT_EQ(lines[1]["response"]["status_code"], 404);
  EXPECT_TRUE(lines[1]["response"]["body"].is_null());
  EXPECT_EQ(lines[1]["error"]["error"]["type"], "NotFoundError");
  EXPECT_EQ(lines[2]["response"]["status_code"], 400);
  EXPECT_EQ(lines[2]["error"], "The model does not support Embeddings API");
  EXPECT_EQ(lines[3]["error"],
            "URL /v1/completions was used. Supported endpoints: /v1/chat/completions, "
            "/v1/embeddings, /score, /rerank.");
  EXPECT_THROW(vllm_run_batch(s, "{\"custom_id\":\"x\"}\n"), std::runtime_error);
}

}  // namespace
}  // namespace probity::test
