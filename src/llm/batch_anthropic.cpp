// Anthropic's Message Batches: each request is an OpenAI chat body translated to Messages
// params; the answers (Messages) come back translated to OpenAI chat completions, so the cache,
// its keys and every parser stay those of the online client.
#include <fmt/format.h>

#include <nlohmann/json.hpp>
#include <sstream>

#include "llm/batch.hpp"
#include "llm/http_post.hpp"
#include "llm/internal.hpp"

namespace probity::llm::detail {

using nlohmann::json;

std::string anthropic_params(const std::string& openai_body, const EndpointConfig& config) {
  const json body = json::parse(openai_body);
  if (!body.contains("messages"))
    throw UsageError(fmt::format(
        "llm[{}]: Anthropic batches take chat requests only (this role sends completions); use "
        "--batch openai or file, or no batch",
        config.name));
  for (const char* field : {"logprobs", "top_logprobs", "echo", "prompt_logprobs"})
    if (body.contains(field) && !body[field].is_null() && body[field] != false)
      throw UsageError(
          fmt::format("llm[{}]: Anthropic's Messages API has no log-probabilities ({} was asked)",
                      config.name, field));
  if (body.value("n", 1) != 1)
    throw UsageError(
        fmt::format("llm[{}]: Anthropic's Messages API gives one answer per request (n = {})",
                    config.name, body.value("n", 1)));
  json params = json::object();
  params["model"] = body.value("model", config.model);
  // Messages requires max_tokens; the roles' defaults set one (role_defaults).
  int max_tokens = 1024;
  for (const char* field : {"max_tokens", "max_completion_tokens"})
    if (body.contains(field) && body[field].is_number_integer())
      max_tokens = body[field].get<int>();
  params["max_tokens"] = max_tokens;
  std::string system;
  json messages = json::array();
  for (const auto& m : body["messages"]) {
    const std::string role = m.value("role", "user");
    const std::string content =
        m.contains("content") && m["content"].is_string() ? m["content"].get<std::string>() : "";
    if (role == "system" || role == "developer") {
      system += (system.empty() ? "" : "\n\n") + content;
      continue;
    }
    messages.push_back({{"role", role}, {"content", content}});
  }
  if (!system.empty()) params["system"] = system;
  params["messages"] = std::move(messages);
  if (body.contains("temperature") && body["temperature"].is_number())
    params["temperature"] = body["temperature"];
  if (body.contains("top_p") && body["top_p"].is_number()) params["top_p"] = body["top_p"];
  if (body.contains("stop")) {
    const auto& stop = body["stop"];
    if (stop.is_string()) params["stop_sequences"] = json::array({stop});
    if (stop.is_array()) params["stop_sequences"] = stop;
  }
  // Structured outputs: the answer's JSON Schema as output_config.format (json_object has no
  // Messages equivalent; the strict parser checks the answer either way).
  if (body.contains("response_format") && body["response_format"].is_object()) {
    const auto& rf = body["response_format"];
    if (rf.value("type", "") == "json_schema" && rf.contains("json_schema") &&
        rf["json_schema"].contains("schema"))
      params["output_config"] = {
          {"format", {{"type", "json_schema"}, {"schema", rf["json_schema"]["schema"]}}}};
  }
  return params.dump();
}

std::string openai_body_of_message(const std::string& message_json) {
  const json m = json::parse(message_json);
  std::string text;
  if (m.contains("content") && m["content"].is_array())
    for (const auto& block : m["content"])
      if (block.value("type", "") == "text" && block.contains("text") && block["text"].is_string())
        text += block["text"].get<std::string>();
  const std::string stop = m.contains("stop_reason") && m["stop_reason"].is_string()
                               ? m["stop_reason"].get<std::string>()
                               : "";
  // end_turn, stop_sequence -> stop; max_tokens -> length; refusal -> content_filter.
  const std::string finish = stop == "max_tokens" ? "length"
                             : stop == "refusal"  ? "content_filter"
                             : stop == "tool_use" ? "tool_calls"
                                                  : "stop";
  json usage = json::object();
  if (m.contains("usage") && m["usage"].is_object()) {
    const auto& u = m["usage"];
    auto count = [&](const char* f) {
      return u.contains(f) && u[f].is_number_integer() ? u[f].get<std::int64_t>() : 0;
    };
    const std::int64_t read = count("cache_read_input_tokens");
    const std::int64_t in = count("input_tokens") + count("cache_creation_input_tokens") + read;
    usage = {{"prompt_tokens", in},
             {"completion_tokens", count("output_tokens")},
             {"total_tokens", in + count("output_tokens")},
             {"prompt_tokens_details", {{"cached_tokens", read}}}};
  }
  json out = {{"id", m.value("id", "")},
              {"object", "chat.completion"},
              {"model", m.value("model", "")},
              {"choices", json::array({{{"index", 0},
                                        {"message", {{"role", "assistant"}, {"content", text}}},
                                        {"finish_reason", finish}}})},
              {"usage", usage}};
  return out.dump();
}

namespace {

ErrorKind kind_of_anthropic_error(const std::string& type) {
  if (type == "invalid_request_error" || type == "not_found_error" || type == "request_too_large")
    return ErrorKind::kInvalidRequest;
  if (type == "authentication_error" || type == "permission_error") return ErrorKind::kAuth;
  if (type == "rate_limit_error") return ErrorKind::kRateLimited;
  if (type == "billing_error") return ErrorKind::kQuota;
  return ErrorKind::kServer;  // api_error, overloaded_error
}

class AnthropicBatchApi : public BatchApi {
 public:
  explicit AnthropicBatchApi(const BatchContext& ctx)
      : ctx_(ctx), base_(normalize_base(ctx.config->base_url)) {
    options_ = batch_post_options(ctx);
    options_.headers.push_back("anthropic-version: 2023-06-01");
  }

  // Anthropic's documented limits per Message Batch.
  std::size_t max_requests() const override { return 100000; }
  std::size_t max_bytes() const override { return std::size_t{256} << 20; }

  std::string line(const BatchItem& item) const override {
    return json{{"custom_id", item.key},
                {"params", json::parse(anthropic_params(item.body, *ctx_.config))}}
        .dump();
  }

  std::string submit(const std::string& jsonl, std::size_t) override {
    json requests = json::array();
    std::istringstream in(jsonl);
    for (std::string text; std::getline(in, text);)
      if (!text.empty()) requests.push_back(json::parse(text));
    const json batch =
        expect_json(ctx_,
                    http_request("POST", base_ + "/messages/batches",
                                 json{{"requests", requests}}.dump(), "application/json", options_),
                    "creating the message batch");
    const std::string id = batch.value("id", "");
    if (id.empty()) throw BatchTransportError("the message batch was created without an id");
    return id;
  }

  Status poll(const std::string& id) override {
    const json b =
        expect_json(ctx_, http_request("GET", base_ + "/messages/batches/" + id, "", "", options_),
                    "polling message batch " + id);
    Status s;
    s.status = b.value("processing_status", "");
    s.ended = s.status == "ended";
    if (b.contains("request_counts") && b["request_counts"].is_object()) {
      const auto& c = b["request_counts"];
      auto n = [&](const char* f) { return c.value(f, std::uint64_t{0}); };
      s.completed = n("succeeded");
      s.failed = n("errored") + n("canceled") + n("expired");
      s.total = n("processing") + s.completed + s.failed;
    }
    if (b.contains("results_url") && b["results_url"].is_string())
      results_url_[id] = b["results_url"].get<std::string>();
    return s;
  }

  std::vector<std::pair<std::string, BatchOutcome>> results(const std::string& id) override {
    std::vector<std::pair<std::string, BatchOutcome>> out;
    const auto it = results_url_.find(id);
    if (it == results_url_.end() || it->second.empty())
      throw BatchTransportError(fmt::format("message batch {} ended without a results_url", id));
    const PostResult r = http_request("GET", it->second, "", "", options_);
    if (r.status < 200 || r.status >= 300) throw BatchTransportError(describe_http(ctx_, r));
    std::istringstream in(ctx_.redact ? ctx_.redact(r.body) : r.body);
    std::string text;
    for (std::size_t number = 1; std::getline(in, text); ++number) {
      if (text.find_first_not_of(" \t\r") == std::string::npos) continue;
      const auto j = json::parse(text, nullptr, false);
      if (!j.is_object() || !j.contains("custom_id") || !j["custom_id"].is_string() ||
          !j.contains("result") || !j["result"].is_object())
        throw BatchTransportError(
            fmt::format("results of message batch {}, line {}: not a result line", id, number));
      const auto& result = j["result"];
      const std::string type = result.value("type", "");
      BatchOutcome outcome;
      if (type == "succeeded" && result.contains("message")) {
        outcome.ok = true;
        outcome.body = openai_body_of_message(result["message"].dump());
      } else if (type == "errored") {
        const json none;
        const auto& e = result.contains("error") && result["error"].contains("error")
                            ? result["error"]["error"]
                            : none;
        const std::string etype = e.is_object() ? e.value("type", "") : "";
        outcome.kind = kind_of_anthropic_error(etype);
        outcome.error = fmt::format("{}: {}", etype.empty() ? "errored" : etype,
                                    e.is_object() ? e.value("message", "") : "");
      } else {
        outcome.kind = ErrorKind::kBatchExpired;  // canceled, expired
        outcome.error = fmt::format("message batch {}: request {}", id, type);
      }
      out.emplace_back(j["custom_id"].get<std::string>(), std::move(outcome));
    }
    return out;
  }

 private:
  const BatchContext& ctx_;
  std::string base_;
  PostOptions options_;
  std::map<std::string, std::string> results_url_;
};

}  // namespace

std::unique_ptr<BatchApi> make_anthropic_batch_api(const BatchContext& context) {
  return std::make_unique<AnthropicBatchApi>(context);
}

}  // namespace probity::llm::detail
