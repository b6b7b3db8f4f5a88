#include "llm/fakes/run_batch.hpp"

#include <atomic>
#include <cstdint>
#include <map>
#include <nlohmann/json.hpp>
#include <random>
#include <stdexcept>

namespace probity::test {

namespace {

using json = nlohmann::json;
using ojson = nlohmann::ordered_json;

// vllm.utils.random_uuid(): uuid4().hex, 32 lowercase hex digits.
std::string random_uuid() {
  static std::atomic<std::uint64_t> counter{0xA0761D6478BD642Full};
  std::mt19937_64 rng(counter.fetch_add(0x9E3779B97F4A7C15ull));
  static const char* digits = "0123456789abcdef";
  std::string out;
  for (int i = 0; i < 32; ++i) out += digits[rng() % 16];
  return out;
}

// make_error_request_output: a 400 without body, the message in `error`.
ojson error_line(const std::string& custom_id, const std::string& message) {
  return ojson{
      {"id", "vllm-" + random_uuid()},
      {"custom_id", custom_id},
      {"response",
       {{"status_code", 400}, {"request_id", "vllm-batch-" + random_uuid()}, {"body", nullptr}}},
      {"error", message}};
}

bool ends_with(const std::string& s, const std::string& tail) {
  return s.size() >= tail.size() && s.compare(s.size() - tail.size(), tail.size(), tail) == 0;
}

}  // namespace

std::string vllm_run_batch(FakeServer& server, const std::string& requests_jsonl) {
  std::string out;
  std::size_t from = 0;
  std::size_t line_no = 0;
  while (from < requests_jsonl.size()) {
    auto end = requests_jsonl.find('\n', from);
    if (end == std::string::npos) end = requests_jsonl.size();
    std::string line = requests_jsonl.substr(from, end - from);
    from = end + 1;
    ++line_no;
    // stream_file_lines: each line stripped, empty ones skipped.
    const auto first = line.find_first_not_of(" \t\r\n");
    if (first == std::string::npos) continue;
    line = line.substr(first, line.find_last_not_of(" \t\r\n") - first + 1);
    const json r = json::parse(line, nullptr, false);
    // BatchRequestInput.model_validate_json raises: the whole run stops.
    if (r.is_discarded() || !r.is_object() || !r.contains("custom_id") ||
        !r["custom_id"].is_string() || !r.contains("method") || !r["method"].is_string() ||
        !r.contains("url") || !r["url"].is_string() || !r.contains("body") ||
        !r["body"].is_object())
      throw std::runtime_error("vllm run-batch: line " + std::to_string(line_no) +
                               " is not a valid BatchRequestInput");
    const std::string custom_id = r["custom_id"];
    const std::string url = r["url"];
    ojson result;
    if (url == "/v1/chat/completions") {
      if (r["body"].value("stream", false)) {
        result = error_line(custom_id, "Request must not be sent in stream mode");
      } else {
        std::map<std::string, std::string> headers{{"Content-Type", "application/json"}};
        if (!server.options().api_key.empty())
          headers["Authorization"] = "Bearer " + server.options().api_key;
        const FakeServer::Reply reply =
            server.answer("POST", "/v1/chat/completions", r["body"].dump(), headers);
        const ojson body = ojson::parse(reply.body, nullptr, false);
        if (reply.status == 200) {
          result = ojson{{"id", "vllm-" + random_uuid()},
                         {"custom_id", custom_id},
                         {"response",
                          {{"status_code", 200},
                           {"request_id", "vllm-batch-" + random_uuid()},
                           {"body", body}}},
                         {"error", nullptr}};
        } else {
          // An ErrorResponse: its code as the status, no body, the error response in `error`.
          int code = reply.status;
          if (body.is_object() && body.contains("error") && body["error"].is_object() &&
              body["error"].contains("code") && body["error"]["code"].is_number_integer())
            code = body["error"]["code"].get<int>();
          result = ojson{{"id", "vllm-" + random_uuid()},
                         {"custom_id", custom_id},
                         {"response",
                          {{"status_code", code},
                           {"request_id", "vllm-batch-" + random_uuid()},
                           {"body", nullptr}}},
                         {"error", body.is_discarded() ? ojson(reply.body) : body}};
        }
      }
    } else if (url == "/v1/embeddings") {
      // The fakes serve generative models: no "embed" task.
      result = error_line(custom_id, "The model does not support Embeddings API");
    } else if (ends_with(url, "/score")) {
      result = error_line(custom_id, "The model does not support Scores API");
    } else if (ends_with(url, "/rerank")) {
      result = error_line(custom_id, "The model does not support Rerank API");
    } else {
      result = error_line(custom_id, "URL " + url +
                                         " was used. Supported endpoints: /v1/chat/completions, "
                                         "/v1/embeddings, /score, /rerank.");
    }
    out += result.dump() + "\n";
  }
  return out;
}

}  // namespace probity::test
