// OpenAI's Batch API: the JSONL goes up through the Files API (purpose "batch"), a batch is
// created on it, polled until it ends, and its output and error files are read back. Azure
// OpenAI and other services with the same routes work through base_url.
#include <fmt/format.h>

#include <nlohmann/json.hpp>
#include <sstream>

#include "llm/batch.hpp"
#include "llm/http_post.hpp"
#include "llm/internal.hpp"

namespace probity::llm::detail {
namespace {

using nlohmann::json;

class OpenAiBatchApi : public BatchApi {
 public:
  explicit OpenAiBatchApi(const BatchContext& ctx)
      : ctx_(ctx), base_(normalize_base(ctx.config->base_url)) {
    options_ = batch_post_options(ctx);
  }

  // OpenAI's documented limits per batch input file.
  std::size_t max_requests() const override { return 50000; }
  std::size_t max_bytes() const override { return std::size_t{200} << 20; }

  std::string line(const BatchItem& item) const override {
    return json{{"custom_id", item.key},
                {"method", "POST"},
                {"url", item.path},
                {"body", json::parse(item.body)}}
        .dump();
  }

  std::string submit(const std::string& jsonl, std::size_t count) override {
    // All lines of a batch share one endpoint (the client batches one kind of request per run).
    const auto first = json::parse(jsonl.substr(0, jsonl.find('\n')));
    const std::string endpoint = first.value("url", "/v1/chat/completions");
    const std::string boundary = "probity-" + sha256_hex(jsonl).substr(0, 24);
    std::string form;
    form +=
        "--" + boundary + "\r\nContent-Disposition: form-data; name=\"purpose\"\r\n\r\nbatch\r\n";
    form += "--" + boundary +
            "\r\nContent-Disposition: form-data; name=\"file\"; filename=\"probity-batch.jsonl\""
            "\r\nContent-Type: application/jsonl\r\n\r\n";
    form += jsonl;
    form += "\r\n--" + boundary + "--\r\n";
    const json file =
        expect_json(ctx_,
                    http_request("POST", base_ + "/files", form,
                                 "multipart/form-data; boundary=" + boundary, options_),
                    "uploading the batch file");
    const std::string file_id = file.value("id", "");
    if (file_id.empty()) throw BatchTransportError("the file upload answered without an id");
    const json request = {
        {"input_file_id", file_id},
        {"endpoint", endpoint},
        {"completion_window", "24h"},
        {"metadata", {{"probity_role", ctx_.config->name}, {"requests", std::to_string(count)}}}};
    const json batch = expect_json(
        ctx_,
        http_request("POST", base_ + "/batches", request.dump(), "application/json", options_),
        "creating the batch");
    const std::string id = batch.value("id", "");
    if (id.empty()) throw BatchTransportError("the batch was created without an id");
    return id;
  }

  Status poll(const std::string& id) override {
    const json b =
        expect_json(ctx_, http_request("GET", base_ + "/batches/" + id, "", "", options_),
                    "polling batch " + id);
    Status s;
    s.status = b.value("status", "");
    // completed, failed, expired and cancelled are final; validating, in_progress, finalizing
    // and cancelling are not.
    s.ended = s.status == "completed" || s.status == "failed" || s.status == "expired" ||
              s.status == "cancelled";
    if (b.contains("request_counts") && b["request_counts"].is_object()) {
      const auto& c = b["request_counts"];
      s.total = c.value("total", std::uint64_t{0});
      s.completed = c.value("completed", std::uint64_t{0});
      s.failed = c.value("failed", std::uint64_t{0});
    }
    output_[id] = string_or_empty(b, "output_file_id");
    error_[id] = string_or_empty(b, "error_file_id");
    if (s.status == "failed") {
      std::string problem;
      if (b.contains("errors") && b["errors"].is_object() && b["errors"].contains("data") &&
          b["errors"]["data"].is_array())
        for (const auto& e : b["errors"]["data"]) {
          if (!problem.empty()) problem += "; ";
          problem += fmt::format("{}{}: {}", e.value("code", "error"),
                                 e.contains("line") && e["line"].is_number()
                                     ? fmt::format(" (line {})", e["line"].get<long>())
                                     : std::string(),
                                 e.value("message", ""));
        }
      s.problem = problem.empty() ? "the provider gave no reason" : problem;
    }
    return s;
  }

  std::vector<std::pair<std::string, BatchOutcome>> results(const std::string& id) override {
    std::vector<std::pair<std::string, BatchOutcome>> out;
    for (const auto* files : {&output_, &error_}) {
      const auto it = files->find(id);
      if (it == files->end() || it->second.empty()) continue;
      const PostResult r =
          http_request("GET", base_ + "/files/" + it->second + "/content", "", "", options_);
      if (r.status < 200 || r.status >= 300) throw BatchTransportError(describe_http(ctx_, r));
      std::istringstream in(ctx_.redact ? ctx_.redact(r.body) : r.body);
      std::string text;
      for (std::size_t number = 1; std::getline(in, text); ++number) {
        if (text.find_first_not_of(" \t\r") == std::string::npos) continue;
        std::string key, problem;
        BatchOutcome outcome;
        if (!parse_openai_result_line(text, key, outcome, problem))
          throw BatchTransportError(
              fmt::format("file {} of batch {}, line {}: {}", it->second, id, number, problem));
        out.emplace_back(std::move(key), std::move(outcome));
      }
    }
    return out;
  }

 private:
  static std::string string_or_empty(const json& j, const char* field) {
    return j.contains(field) && j[field].is_string() ? j[field].get<std::string>() : "";
  }

  const BatchContext& ctx_;
  std::string base_;
  PostOptions options_;
  std::map<std::string, std::string> output_, error_;
};

}  // namespace

std::unique_ptr<BatchApi> make_openai_batch_api(const BatchContext& context) {
  return std::make_unique<OpenAiBatchApi>(context);
}

}  // namespace probity::llm::detail
