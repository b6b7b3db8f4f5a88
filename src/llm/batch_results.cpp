// Reading a batch output line in OpenAI's format, which vllm run-batch writes too:
// {"custom_id", "response": {"status_code", "body"}, "error"}. A line whose request failed is an
// outcome with the kind the online client would give the same HTTP answer.
#include <fmt/format.h>

#include <nlohmann/json.hpp>

#include "llm/batch.hpp"
#include "llm/http_post.hpp"
#include "llm/internal.hpp"

namespace probity::llm::detail {

namespace {

// The `error` field: OpenAI's {code, message} object, or vLLM's string.
std::string error_text(const nlohmann::json& error) {
  if (error.is_string()) return error.get<std::string>();
  if (error.is_object()) {
    const std::string code =
        error.contains("code") && error["code"].is_string() ? error["code"].get<std::string>() : "";
    const std::string message = error.contains("message") && error["message"].is_string()
                                    ? error["message"].get<std::string>()
                                    : error.dump();
    return code.empty() ? message : code + ": " + message;
  }
  return "";
}

}  // namespace

PostOptions batch_post_options(const BatchContext& context) {
  PostOptions options;
  options.timeout_s = context.config->timeout_s;
  options.retries = context.config->max_attempts - 1;
  options.backoff_base_s = context.config->backoff_base_s;
  options.backoff_max_s = context.config->backoff_max_s;
  options.headers = context.auth_headers;
  return options;
}

std::string describe_http(const BatchContext& context, const PostResult& r) {
  const std::string message =
      r.status == 0 ? r.error : fmt::format("HTTP {}: {}", r.status, error_message(r.body));
  return context.redact ? context.redact(message) : message;
}

nlohmann::json expect_json(const BatchContext& context, const PostResult& r,
                           const std::string& doing) {
  if (r.status < 200 || r.status >= 300)
    throw BatchTransportError(fmt::format("{}: {}", doing, describe_http(context, r)));
  auto j = nlohmann::json::parse(r.body, nullptr, false);
  if (!j.is_object())
    throw BatchTransportError(fmt::format("{}: the answer is not a JSON object", doing));
  return j;
}

bool parse_openai_result_line(std::string_view line, std::string& custom_id, BatchOutcome& outcome,
                              std::string& problem) {
  const auto j = nlohmann::json::parse(line, nullptr, false);
  if (!j.is_object()) {
    problem = "not a JSON object";
    return false;
  }
  if (!j.contains("custom_id") || !j["custom_id"].is_string()) {
    problem = "no custom_id (not a batch output line)";
    return false;
  }
  custom_id = j["custom_id"].get<std::string>();
  outcome = BatchOutcome{};
  const nlohmann::json none;
  const auto& response = j.contains("response") ? j["response"] : none;
  const auto& error = j.contains("error") ? j["error"] : none;
  if (response.is_object() && response.contains("status_code") &&
      response["status_code"].is_number_integer()) {
    const int status = response["status_code"].get<int>();
    const auto& body = response.contains("body") ? response["body"] : none;
    if (status >= 200 && status < 300 && body.is_object()) {
      outcome.ok = true;
      outcome.body = body.dump();
      return true;
    }
    const std::string text =
        body.is_object() || body.is_string()
            ? error_message(body.is_string() ? body.get<std::string>() : body.dump())
            : error_text(error);
    outcome.kind = error_kind_of_status(status, body.is_object() ? body.dump() : "");
    if (status >= 200 && status < 300) outcome.kind = ErrorKind::kMalformed;
    outcome.error = fmt::format("HTTP {}: {}", status, text.empty() ? "no message" : text);
    return true;
  }
  if (!error.is_null()) {
    const std::string code =
        error.is_object() && error.contains("code") && error["code"].is_string()
            ? error["code"].get<std::string>()
            : "";
    outcome.kind = code == "batch_expired" || code == "batch_cancelled" ? ErrorKind::kBatchExpired
                                                                        : ErrorKind::kBatchFailed;
    outcome.error = error_text(error);
    return true;
  }
  problem = "neither a response with a status_code nor an error";
  return false;
}

}  // namespace probity::llm::detail
