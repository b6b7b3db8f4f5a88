#include "llm/fakes/fake_batch.hpp"

#include <algorithm>
#include <atomic>
#include <chrono>
#include <cstdint>
#include <cstdio>
#include <ctime>
#include <mutex>
#include <nlohmann/json.hpp>
#include <random>
#include <regex>
#include <set>
#include <stdexcept>
#include <vector>

#include "text/ascii.hpp"

namespace probity::test {

using json = nlohmann::json;
using ojson = nlohmann::ordered_json;
using Reply = FakeServer::Reply;
using Headers = std::map<std::string, std::string>;

namespace {

std::string header_value(const Headers& headers, const std::string& name) {
  for (const auto& [k, v] : headers)
    if (text::ascii_lower(k) == text::ascii_lower(name)) return v;
  return "";
}

std::string random_from(const std::string& chars, std::size_t n) {
  static std::atomic<std::uint64_t> counter{0xD1B54A32D192ED03ull};
  std::mt19937_64 rng(counter.fetch_add(0x9E3779B97F4A7C15ull));
  std::string out;
  for (std::size_t i = 0; i < n; ++i) out += chars[rng() % chars.size()];
  return out;
}
std::string hex(std::size_t n) {
  return random_from("0123456789abcdef", n);
}
std::string alnum(std::size_t n) {
  return random_from("0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz", n);
}

std::int64_t now_s() {
  return std::chrono::duration_cast<std::chrono::seconds>(
             std::chrono::system_clock::now().time_since_epoch())
      .count();
}

// RFC 3339 with microseconds, as Anthropic writes its times ("2024-08-20T18:37:24.100435Z").
std::string rfc3339(std::chrono::system_clock::time_point t) {
  const auto us =
      std::chrono::duration_cast<std::chrono::microseconds>(t.time_since_epoch()).count();
  const std::time_t secs = static_cast<std::time_t>(us / 1000000);
  std::tm tm{};
  gmtime_r(&secs, &tm);
  char buf[96];
  std::snprintf(buf, sizeof buf, "%04d-%02d-%02dT%02d:%02d:%02d.%06lldZ", tm.tm_year + 1900,
                tm.tm_mon + 1, tm.tm_mday, tm.tm_hour, tm.tm_min, tm.tm_sec,
                static_cast<long long>(us % 1000000));
  return buf;
}

Reply reply_json(int status, const ojson& body) {
  return {status, body.dump(), "application/json", {}};
}

ojson openai_error(const std::string& message, const json& param = nullptr,
                   const json& code = nullptr, const std::string& type = "invalid_request_error") {
  return ojson{{"error", {{"message", message}, {"type", type}, {"param", param}, {"code", code}}}};
}

ojson anthropic_error(const std::string& type, const std::string& message) {
  return ojson{{"type", "error"}, {"error", {{"type", type}, {"message", message}}}};
}

Reply anthropic_reply(int status, const std::string& type, const std::string& message) {
  ojson body = anthropic_error(type, message);
  body["request_id"] = "req_" + alnum(24);
  return reply_json(status, body);
}

// The parts of a multipart/form-data body: name -> (filename, content).
struct Part {
  std::string filename;
  std::string content;
};
std::optional<std::map<std::string, Part>> multipart(const std::string& body,
                                                     const std::string& content_type) {
  const auto at = content_type.find("boundary=");
  if (at == std::string::npos) return std::nullopt;
  std::string boundary = content_type.substr(at + 9);
  boundary = boundary.substr(0, boundary.find(';'));
  if (boundary.size() >= 2 && boundary.front() == '"')
    boundary = boundary.substr(1, boundary.size() - 2);
  const std::string delim = "--" + boundary;
  std::map<std::string, Part> parts;
  std::size_t pos = body.find(delim);
  while (pos != std::string::npos) {
    pos += delim.size();
    if (body.compare(pos, 2, "--") == 0) break;
    const auto head_end = body.find("\r\n\r\n", pos);
    if (head_end == std::string::npos) return std::nullopt;
    const std::string head = body.substr(pos, head_end - pos);
    const auto next = body.find("\r\n" + delim, head_end + 4);
    if (next == std::string::npos) return std::nullopt;
    auto field = [&](const std::string& key) -> std::string {
      const auto k = head.find(key + "=\"");
      if (k == std::string::npos) return "";
      const auto from = k + key.size() + 2;
      return head.substr(from, head.find('"', from) - from);
    };
    parts[field("name")] = {field("filename"), body.substr(head_end + 4, next - head_end - 4)};
    pos = next + 2;
  }
  return parts;
}

std::vector<std::string> jsonl_lines(const std::string& text) {
  std::vector<std::string> lines;
  std::size_t from = 0;
  while (from <= text.size()) {
    auto end = text.find('\n', from);
    if (end == std::string::npos) end = text.size();
    std::string line = text.substr(from, end - from);
    if (!line.empty() && line.back() == '\r') line.pop_back();
    lines.push_back(line);
    from = end + 1;
  }
  while (!lines.empty() && lines.back().find_first_not_of(" \t") == std::string::npos)
    lines.pop_back();
  return lines;
}

std::string join_lines(const std::vector<std::string>& lines) {
  std::string out;
  for (const auto& l : lines) out += l + "\n";
  return out;
}

// Requests answered after `polls` of `steps` polls in progress: equal parts, one per poll.
std::size_t due(std::size_t total, int polls, int steps) {
  if (polls >= steps) return total;
  return (total * static_cast<std::size_t>(polls) + static_cast<std::size_t>(steps) - 1) /
         static_cast<std::size_t>(steps);
}

const char* const kExpiredMessage =
    "This request could not be executed before the completion window expired.";

const std::set<std::string> kOpenAiEndpoints = {
    "/v1/responses",   "/v1/chat/completions",   "/v1/embeddings",   "/v1/completions",
    "/v1/moderations", "/v1/images/generations", "/v1/images/edits", "/v1/videos"};

}  // namespace

// ---------------------------------------------------------------------------------------------
// State

struct OpenAiFile {
  std::string id;
  std::int64_t created_at = 0;
  std::string filename;
  std::string purpose;
  std::string content;
};

struct LineRequest {
  std::string custom_id;
  std::string url;
  json body;
};

struct OpenAiBatch {
  std::string id;
  std::string endpoint;
  std::string input_file_id;
  std::string completion_window;
  json metadata;
  json model;
  std::string status = "validating";
  std::int64_t created_at = 0;
  json in_progress_at, finalizing_at, completed_at, failed_at, expired_at, cancelling_at,
      cancelled_at;
  ojson errors;  // null, or {"object":"list","data":[...]} once validation found any
  std::vector<LineRequest> requests;
  std::size_t answered = 0;
  std::vector<std::string> output, error;
  std::size_t completed = 0, failed = 0;
  std::int64_t input_tokens = 0, cached_tokens = 0, output_tokens = 0, reasoning_tokens = 0;
  json output_file_id, error_file_id;
  int polls = 0;  // GETs in the current status
};

struct AnthropicRequest {
  std::string custom_id;
  json params;
  std::optional<ojson> result;  // {"type": ...} once answered
};

struct AnthropicBatch {
  std::string id;
  std::string status = "in_progress";
  std::string created_at, expires_at;
  json ended_at, cancel_initiated_at;
  std::vector<AnthropicRequest> requests;
  std::size_t answered = 0;
  int polls = 0;
};

struct BatchApi::State {
  FakeOptions options;
  Answer answer;
  std::string root_url;
  std::mutex mutex;
  std::map<std::string, OpenAiFile> files;
  std::map<std::string, OpenAiBatch> batches;
  std::vector<std::string> batch_order;
  std::map<std::string, AnthropicBatch> message_batches;
  std::vector<std::string> message_batch_order;

  int steps() const { return std::max(1, options.batch_polls_per_step); }
  std::size_t answer_limit(std::size_t total) const {
    return options.batch_expire_after ? std::min(total, *options.batch_expire_after) : total;
  }
  Headers line_headers() const {
    Headers h{{"Content-Type", "application/json"}};
    if (!options.api_key.empty()) h["Authorization"] = "Bearer " + options.api_key;
    return h;
  }

  // -------------------------------------------------------------------------------------------
  // OpenAI

  ojson file_object(const OpenAiFile& f) const {
    return ojson{{"id", f.id},
                 {"object", "file"},
                 {"bytes", f.content.size()},
                 {"created_at", f.created_at},
                 {"filename", f.filename},
                 {"purpose", f.purpose},
                 {"status", "processed"},
                 {"expires_at", nullptr},
                 {"status_details", nullptr}};
  }

  ojson batch_object(const OpenAiBatch& b) const {
    const bool counted = b.status != "validating" && b.status != "failed";
    return ojson{{"id", b.id},
                 {"object", "batch"},
                 {"endpoint", b.endpoint},
                 {"model", b.model},
                 {"errors", b.errors},
                 {"input_file_id", b.input_file_id},
                 {"completion_window", b.completion_window},
                 {"status", b.status},
                 {"output_file_id", b.output_file_id},
                 {"error_file_id", b.error_file_id},
                 {"created_at", b.created_at},
                 {"in_progress_at", b.in_progress_at},
                 {"expires_at", b.created_at + 24 * 3600},
                 {"finalizing_at", b.finalizing_at},
                 {"completed_at", b.completed_at},
                 {"failed_at", b.failed_at},
                 {"expired_at", b.expired_at},
                 {"cancelling_at", b.cancelling_at},
                 {"cancelled_at", b.cancelled_at},
                 {"request_counts",
                  {{"total", counted ? b.requests.size() : 0},
                   {"completed", b.completed},
                   {"failed", b.failed}}},
                 {"usage",
                  {{"input_tokens", b.input_tokens},
                   {"input_tokens_details", {{"cached_tokens", b.cached_tokens}}},
                   {"output_tokens", b.output_tokens},
                   {"output_tokens_details", {{"reasoning_tokens", b.reasoning_tokens}}},
                   {"total_tokens", b.input_tokens + b.output_tokens}}},
                 {"metadata", b.metadata}};
  }

  std::string store_file(const std::string& filename, const std::string& purpose,
                         const std::string& content) {
    OpenAiFile f{"file-" + alnum(22), now_s(), filename, purpose, content};
    files[f.id] = f;
    return f.id;
  }

  // The line-level checks the API runs while a batch is "validating"; any error fails the batch.
  ojson validate(OpenAiBatch& b, const OpenAiFile& input) const {
    ojson data = ojson::array();
    auto add = [&](const std::string& code, const std::string& message, const json& param,
                   const json& line) {
      data.push_back({{"code", code}, {"message", message}, {"param", param}, {"line", line}});
    };
    if (input.content.size() > options.batch_max_file_bytes) {
      add("file_too_large",
          "The input file is larger than the " + std::to_string(options.batch_max_file_bytes) +
              " bytes allowed for a batch.",
          nullptr, nullptr);
      return data;
    }
    const auto lines = jsonl_lines(input.content);
    std::size_t count = 0;
    for (const auto& l : lines)
      if (l.find_first_not_of(" \t") != std::string::npos) ++count;
    if (count == 0) {
      add("empty_file", "The batch input file is empty.", nullptr, nullptr);
      return data;
    }
    if (count > options.batch_max_requests) {
      add("too_many_tasks",
          "The batch input file contains " + std::to_string(count) + " requests; the limit is " +
              std::to_string(options.batch_max_requests) + ".",
          nullptr, nullptr);
      return data;
    }
    std::set<std::string> seen;
    for (std::size_t i = 0; i < lines.size(); ++i) {
      const json line_no = static_cast<std::int64_t>(i + 1);
      if (lines[i].find_first_not_of(" \t") == std::string::npos) continue;
      const json r = json::parse(lines[i], nullptr, false);
      if (r.is_discarded() || !r.is_object()) {
        add("invalid_json_line", "This line is not parseable as valid JSON.", nullptr, line_no);
        continue;
      }
      bool complete = true;
      for (const char* key : {"custom_id", "method", "url", "body"})
        if (!r.contains(key) || r[key].is_null()) {
          add("missing_required_parameter",
              std::string("Missing required parameter: '") + key + "'.", key, line_no);
          complete = false;
        }
      if (!complete) continue;
      if (!r["custom_id"].is_string()) {
        add("invalid_type", "Invalid type for 'custom_id': expected a string.", "custom_id",
            line_no);
        continue;
      }
      const std::string custom_id = r["custom_id"];
      if (!seen.insert(custom_id).second)
        add("duplicate_custom_id",
            "The custom_id for this request is a duplicate of another request. The custom_id "
            "parameter must be unique for each request in a batch.",
            "custom_id", line_no);
      if (r["method"] != "POST")
        add("invalid_value", "Invalid value for 'method': only POST is supported.", "method",
            line_no);
      if (!r["url"].is_string() || r["url"] != b.endpoint)
        add("url_mismatch",
            "The provided URL '" + (r["url"].is_string() ? r["url"].get<std::string>() : "") +
                "' does not match the batch endpoint '" + b.endpoint + "'.",
            "url", line_no);
      if (!r["body"].is_object()) {
        add("invalid_type", "Invalid type for 'body': expected an object.", "body", line_no);
        continue;
      }
      const json model = r["body"].value("model", json());
      if (b.model.is_null() && model.is_string()) b.model = model;
      if (!model.is_string() || model != b.model)
        add("model_mismatch",
            "The provided model does not match the model of the other requests in the batch: "
            "one model per file.",
            "body.model", line_no);
      b.requests.push_back(
          {custom_id, r["url"].is_string() ? r["url"].get<std::string>() : "", r["body"]});
    }
    return data;
  }

  // One request of a batch through the flavour's own route: the output or the error file.
  void answer_openai(OpenAiBatch& b, std::size_t index) {
    const LineRequest& req = b.requests[index];
    Reply reply;
    if (options.batch_fail_request == index + 1)
      reply = reply_json(500, openai_error("The server had an error while processing your "
                                           "request. Sorry about that!",
                                           nullptr, nullptr, "server_error"));
    else
      reply = answer("POST", req.url, req.body.dump(), line_headers());
    ojson body = ojson::parse(reply.body, nullptr, false);
    if (body.is_discarded()) body = reply.body;
    if (reply.status == 200 && body.is_object() && body.contains("usage")) {
      const ojson& u = body["usage"];
      b.input_tokens += u.value("prompt_tokens", std::int64_t{0});
      b.output_tokens += u.value("completion_tokens", std::int64_t{0});
      if (u.contains("prompt_tokens_details") && u["prompt_tokens_details"].is_object())
        b.cached_tokens += u["prompt_tokens_details"].value("cached_tokens", std::int64_t{0});
      if (u.contains("completion_tokens_details") && u["completion_tokens_details"].is_object())
        b.reasoning_tokens +=
            u["completion_tokens_details"].value("reasoning_tokens", std::int64_t{0});
    }
    const ojson line{
        {"id", "batch_req_" + alnum(32)},
        {"custom_id", req.custom_id},
        {"response",
         {{"status_code", reply.status}, {"request_id", "req_" + hex(32)}, {"body", body}}},
        {"error", nullptr}};
    if (reply.status == 200) {
      b.output.push_back(line.dump());
      ++b.completed;
    } else {
      b.error.push_back(line.dump());
      ++b.failed;
    }
  }

  void answer_openai_until(OpenAiBatch& b, std::size_t n) {
    for (; b.answered < std::min(n, b.requests.size()); ++b.answered) answer_openai(b, b.answered);
  }

  // The requests never answered go to the error file with `code`; the files are stored.
  void close_openai(OpenAiBatch& b, const char* code, const char* message) {
    for (std::size_t i = b.answered; i < b.requests.size(); ++i)
      b.error.push_back(ojson{{"id", "batch_req_" + alnum(32)},
                              {"custom_id", b.requests[i].custom_id},
                              {"response", nullptr},
                              {"error", {{"code", code}, {"message", message}}}}
                            .dump());
    b.answered = b.requests.size();
    if (!b.output.empty())
      b.output_file_id =
          store_file("batch_" + b.id + "_output.jsonl", "batch_output", join_lines(b.output));
    if (!b.error.empty())
      b.error_file_id =
          store_file("batch_" + b.id + "_error.jsonl", "batch_output", join_lines(b.error));
  }

  // A GET moves the batch on: each status lasts steps() GETs.
  void advance(OpenAiBatch& b) {
    const int n = steps();
    if (b.status == "validating") {
      if (++b.polls < n) return;
      b.polls = 0;
      if (!b.errors.is_null()) {
        b.status = "failed";
        b.failed_at = now_s();
      } else {
        b.status = "in_progress";
        b.in_progress_at = now_s();
      }
    } else if (b.status == "in_progress") {
      ++b.polls;
      answer_openai_until(
          b, std::min(due(b.requests.size(), b.polls, n), answer_limit(b.requests.size())));
      if (b.polls < n) return;
      b.polls = 0;
      if (b.answered < b.requests.size()) {  // batch_expire_after
        close_openai(b, "batch_expired", kExpiredMessage);
        b.status = "expired";
        b.expired_at = now_s();
      } else {
        b.status = "finalizing";
        b.finalizing_at = now_s();
      }
    } else if (b.status == "finalizing") {
      if (++b.polls < n) return;
      close_openai(b, "batch_expired", kExpiredMessage);  // nothing is left unanswered here
      b.status = "completed";
      b.completed_at = now_s();
    } else if (b.status == "cancelling") {
      close_openai(b, "batch_cancelled",
                   "This request was not executed because the batch was cancelled.");
      b.status = "cancelled";
      b.cancelled_at = now_s();
    }
  }

  Reply openai(const std::string& method, const std::string& path, const std::string& body,
               const Headers& headers) {
    if (auto denied = openai_auth_failure(options, headers)) return *denied;
    const bool post = method == "POST";
    auto not_found = [&] {
      return reply_json(404, openai_error("Invalid URL (" + method + " " + path + ")"));
    };
    if (path == "/v1/files") {
      if (!post) {
        ojson data = ojson::array();
        for (const auto& [id, f] : files) data.push_back(file_object(f));
        return reply_json(200, ojson{{"object", "list"}, {"data", data}, {"has_more", false}});
      }
      const std::string ct = header_value(headers, "Content-Type");
      if (text::ascii_lower(ct).rfind("multipart/form-data", 0) != 0)
        return reply_json(415, openai_error("Invalid Content-Type header (" + ct +
                                            "), expected multipart/form-data."));
      const auto parts = multipart(body, ct);
      if (!parts) return reply_json(400, openai_error("Could not parse multipart form"));
      if (!parts->count("purpose"))
        return reply_json(400, openai_error("Missing required parameter: 'purpose'.", "purpose",
                                            "missing_required_parameter"));
      if (!parts->count("file"))
        return reply_json(400, openai_error("Missing required parameter: 'file'.", "file",
                                            "missing_required_parameter"));
      const std::string purpose = parts->at("purpose").content;
      // The fake stores batch input only (the API knows other purposes: assistants, vision, …).
      if (purpose != "batch")
        return reply_json(400, openai_error("Invalid value for 'purpose': the fake accepts "
                                            "'batch' only.",
                                            "purpose", "invalid_value"));
      const Part& file = parts->at("file");
      std::string name = file.filename.empty() ? "file" : file.filename;
      if (!name.ends_with(".jsonl"))
        return reply_json(400, openai_error("Invalid file format for Batch API. Must be .jsonl",
                                            nullptr, "invalid_file_format"));
      const std::string id = store_file(name, purpose, file.content);
      return reply_json(200, file_object(files.at(id)));
    }
    if (path.rfind("/v1/files/", 0) == 0 && !post) {
      std::string id = path.substr(10);
      const bool content = id.ends_with("/content");
      if (content) id = id.substr(0, id.size() - 8);
      const auto it = files.find(id);
      if (it == files.end())
        return reply_json(404, openai_error("No such File object: " + id, "id"));
      if (!content) return reply_json(200, file_object(it->second));
      return {200, it->second.content, "application/octet-stream", {}};
    }
    if (path == "/v1/batches" && !post) {
      ojson data = ojson::array();
      for (auto it = batch_order.rbegin(); it != batch_order.rend(); ++it)
        data.push_back(batch_object(batches.at(*it)));
      return reply_json(200, ojson{{"object", "list"},
                                   {"data", data},
                                   {"first_id", data.empty() ? ojson() : data.front()["id"]},
                                   {"last_id", data.empty() ? ojson() : data.back()["id"]},
                                   {"has_more", false}});
    }
    if (path == "/v1/batches" && post) {
      const json r = json::parse(body, nullptr, false);
      if (r.is_discarded() || !r.is_object())
        return reply_json(400, openai_error("We could not parse the JSON body of your request."));
      for (const char* key : {"input_file_id", "endpoint", "completion_window"})
        if (!r.contains(key))
          return reply_json(
              400, openai_error(std::string("Missing required parameter: '") + key + "'.", key,
                                "missing_required_parameter"));
      const std::string endpoint =
          r["endpoint"].is_string() ? r["endpoint"].get<std::string>() : "";
      if (!kOpenAiEndpoints.count(endpoint))
        return reply_json(400, openai_error("Invalid value: '" + endpoint +
                                                "'. Supported values are: '/v1/chat/completions', "
                                                "'/v1/completions', '/v1/embeddings', "
                                                "'/v1/responses' and '/v1/moderations'.",
                                            "endpoint", "invalid_value"));
      if (r["completion_window"] != "24h")
        return reply_json(400, openai_error("Invalid value: '" + r["completion_window"].dump() +
                                                "'. Supported values are: '24h'.",
                                            "completion_window", "invalid_value"));
      const std::string file_id =
          r["input_file_id"].is_string() ? r["input_file_id"].get<std::string>() : "";
      const auto f = files.find(file_id);
      if (f == files.end())
        return reply_json(404, openai_error("No such File object: " + file_id, "input_file_id"));
      if (f->second.purpose != "batch")
        return reply_json(400, openai_error("The input file must be uploaded with purpose "
                                            "'batch'.",
                                            "input_file_id"));
      OpenAiBatch b;
      b.id = "batch_" + hex(32);
      b.endpoint = endpoint;
      b.input_file_id = file_id;
      b.completion_window = "24h";
      b.metadata = r.value("metadata", json());
      b.created_at = now_s();
      const ojson errors = validate(b, f->second);
      if (!errors.empty()) {
        b.errors = ojson{{"object", "list"}, {"data", errors}};
        b.requests.clear();
      }
      batches[b.id] = b;
      batch_order.push_back(b.id);
      return reply_json(200, batch_object(batches.at(b.id)));
    }
    if (path.rfind("/v1/batches/", 0) == 0) {
      std::string id = path.substr(12);
      const bool cancel = id.ends_with("/cancel");
      if (cancel) id = id.substr(0, id.size() - 7);
      if (cancel != post || id.find('/') != std::string::npos) return not_found();
      const auto it = batches.find(id);
      if (it == batches.end())
        return reply_json(404, openai_error("No batch found with id '" + id + "'.", "batch_id"));
      OpenAiBatch& b = it->second;
      if (!cancel) {
        advance(b);
        return reply_json(200, batch_object(b));
      }
      static const std::set<std::string> running = {"validating", "in_progress", "finalizing"};
      if (b.status == "cancelling" || b.status == "cancelled")
        return reply_json(200, batch_object(b));
      if (!running.count(b.status))
        return reply_json(409,
                          openai_error("Cannot cancel a batch with status '" + b.status + "'."));
      b.status = "cancelling";
      b.cancelling_at = now_s();
      b.polls = 0;
      return reply_json(200, batch_object(b));
    }
    return not_found();
  }

  // -------------------------------------------------------------------------------------------
  // Anthropic

  ojson message_batch_object(const AnthropicBatch& b) const {
    std::size_t succeeded = 0, errored = 0, canceled = 0, expired = 0;
    const bool ended = b.status == "ended";
    if (ended)
      for (const auto& r : b.requests) {
        const std::string t = r.result ? (*r.result)["type"].get<std::string>() : "";
        succeeded += t == "succeeded";
        errored += t == "errored";
        canceled += t == "canceled";
        expired += t == "expired";
      }
    return ojson{{"id", b.id},
                 {"type", "message_batch"},
                 {"processing_status", b.status},
                 {"request_counts",
                  {{"processing", ended ? 0 : b.requests.size()},
                   {"succeeded", succeeded},
                   {"errored", errored},
                   {"canceled", canceled},
                   {"expired", expired}}},
                 {"ended_at", b.ended_at},
                 {"created_at", b.created_at},
                 {"expires_at", b.expires_at},
                 {"archived_at", nullptr},
                 {"cancel_initiated_at", b.cancel_initiated_at},
                 {"results_url",
                  ended ? json(root_url + "/v1/messages/batches/" + b.id + "/results") : json()}};
  }

  static ojson errored(const std::string& type, const std::string& message) {
    return ojson{{"type", "errored"}, {"error", anthropic_error(type, message)}};
  }

  // The OpenAI chat request equivalent to a Messages API request (what the flavour answers).
  json chat_request(const json& params) const {
    json messages = json::array();
    if (params.contains("system")) {
      std::string system;
      if (params["system"].is_string()) system = params["system"];
      if (params["system"].is_array())
        for (const auto& block : params["system"])
          if (block.is_object() && block.value("type", "") == "text")
            system += block.value("text", "");
      messages.push_back({{"role", "system"}, {"content", system}});
    }
    for (const auto& m : params["messages"]) messages.push_back(m);
    json r{{"model", params["model"]}, {"messages", messages}};
    const bool hosted = options.flavour == Flavour::kOpenAiChat ||
                        options.flavour == Flavour::kOpenAiReasoning ||
                        options.flavour == Flavour::kOpenAiLegacyCompletions;
    // The hosted reasoning models refuse max_tokens; every hosted chat model takes this name.
    r[hosted ? "max_completion_tokens" : "max_tokens"] = params["max_tokens"];
    if (params.contains("temperature")) r["temperature"] = params["temperature"];
    if (params.contains("top_p")) r["top_p"] = params["top_p"];
    if (params.contains("stop_sequences")) r["stop"] = params["stop_sequences"];
    if (params.contains("output_config") && params["output_config"].is_object() &&
        params["output_config"].contains("format")) {
      const json& format = params["output_config"]["format"];
      if (format.is_object() && format.value("type", "") == "json_schema")
        r["response_format"] = {{"type", "json_schema"},
                                {"json_schema",
                                 {{"name", "answer"},
                                  {"schema", format.value("schema", json::object())},
                                  {"strict", true}}}};
    }
    return r;
  }

  ojson answer_anthropic(const AnthropicBatch& b, std::size_t index) const {
    const json& params = b.requests[index].params;
    if (options.batch_fail_request == index + 1)
      return errored("api_error", "Internal server error");
    // Params are validated asynchronously: a bad request ends as an errored result.
    if (!params.is_object())
      return errored("invalid_request_error", "params: Input should be an object");
    for (const char* key : {"model", "max_tokens", "messages"})
      if (!params.contains(key))
        return errored("invalid_request_error", std::string(key) + ": Field required");
    if (!params["max_tokens"].is_number_integer())
      return errored("invalid_request_error", "max_tokens: Input should be a valid integer");
    if (!params["messages"].is_array())
      return errored("invalid_request_error", "messages: Input should be a valid list");
    for (std::size_t i = 0; i < params["messages"].size(); ++i) {
      const json& m = params["messages"][i];
      const std::string role = m.is_object() ? m.value("role", "") : "";
      if (role != "user" && role != "assistant")
        return errored("invalid_request_error", "messages." + std::to_string(i) +
                                                    ".role: Input should be 'user' or 'assistant'");
    }
    const Reply reply =
        answer("POST", "/v1/chat/completions", chat_request(params).dump(), line_headers());
    const json body = json::parse(reply.body, nullptr, false);
    if (reply.status != 200) {
      std::string message = reply.body;
      if (body.is_object() && body.contains("error") && body["error"].is_object() &&
          body["error"].contains("message") && body["error"]["message"].is_string())
        message = body["error"]["message"];
      else if (body.is_object() && body.contains("error") && body["error"].is_string())
        message = body["error"];
      return errored(reply.status >= 500 ? "api_error" : "invalid_request_error", message);
    }
    const json& choice = body["choices"][0];
    const json content = choice["message"].value("content", json());
    const std::string text = content.is_string() ? content.get<std::string>() : "";
    const json usage = body.value("usage", json::object());
    const std::string finish =
        choice.contains("finish_reason") && choice["finish_reason"].is_string()
            ? choice["finish_reason"].get<std::string>()
            : "stop";
    ojson message{{"id", "msg_" + alnum(24)},
                  {"type", "message"},
                  {"role", "assistant"},
                  {"model", params["model"]},
                  {"content", ojson::array({{{"type", "text"}, {"text", text}}})},
                  {"stop_reason", finish == "length" ? "max_tokens" : "end_turn"},
                  {"stop_sequence", nullptr},
                  {"usage",
                   {{"input_tokens", usage.value("prompt_tokens", 0)},
                    {"cache_creation_input_tokens", 0},
                    {"cache_read_input_tokens", 0},
                    {"output_tokens", usage.value("completion_tokens", 0)},
                    {"service_tier", "batch"}}}};
    return ojson{{"type", "succeeded"}, {"message", message}};
  }

  void answer_anthropic_until(AnthropicBatch& b, std::size_t n) {
    for (; b.answered < std::min(n, b.requests.size()); ++b.answered)
      b.requests[b.answered].result = answer_anthropic(b, b.answered);
  }

  void end_anthropic(AnthropicBatch& b, const char* unanswered) {
    for (auto& r : b.requests)
      if (!r.result) r.result = ojson{{"type", unanswered}};
    b.answered = b.requests.size();
    b.status = "ended";
    b.ended_at = rfc3339(std::chrono::system_clock::now());
  }

  void advance(AnthropicBatch& b) {
    if (b.status == "ended") return;
    if (b.status == "canceling") return end_anthropic(b, "canceled");
    const int n = steps();
    ++b.polls;
    answer_anthropic_until(
        b, std::min(due(b.requests.size(), b.polls, n), answer_limit(b.requests.size())));
    if (b.polls >= n) end_anthropic(b, "expired");  // unanswered only under batch_expire_after
  }

  Reply anthropic(const std::string& method, const std::string& path, const std::string& body,
                  const Headers& headers) {
    const std::string key = header_value(headers, "x-api-key");
    if (!options.api_key.empty() && key.empty())
      return anthropic_reply(401, "authentication_error", "x-api-key header is required");
    if (!options.api_key.empty() && key != options.api_key)
      return anthropic_reply(401, "authentication_error", "invalid x-api-key");
    if (header_value(headers, "anthropic-version").empty())
      return anthropic_reply(400, "invalid_request_error", "anthropic-version: header is required");
    const bool post = method == "POST";
    auto not_found = [&] { return anthropic_reply(404, "not_found_error", "Not Found"); };
    if (path == "/v1/messages/batches" && !post) {
      ojson data = ojson::array();
      for (auto it = message_batch_order.rbegin(); it != message_batch_order.rend(); ++it)
        data.push_back(message_batch_object(message_batches.at(*it)));
      return reply_json(200, ojson{{"data", data},
                                   {"has_more", false},
                                   {"first_id", data.empty() ? ojson() : data.front()["id"]},
                                   {"last_id", data.empty() ? ojson() : data.back()["id"]}});
    }
    if (path == "/v1/messages/batches") {
      if (body.size() > options.anthropic_batch_max_bytes)
        return anthropic_reply(413, "request_too_large",
                               "Request exceeds the maximum allowed number of bytes.");
      const json r = json::parse(body, nullptr, false);
      if (r.is_discarded() || !r.is_object())
        return anthropic_reply(400, "invalid_request_error",
                               "There was an issue with your request body: invalid JSON");
      if (!r.contains("requests") || !r["requests"].is_array())
        return anthropic_reply(400, "invalid_request_error", "requests: Field required");
      const json& requests = r["requests"];
      if (requests.empty())
        return anthropic_reply(
            400, "invalid_request_error",
            "requests: List should have at least 1 item after validation, not 0");
      if (requests.size() > options.anthropic_batch_max_requests)
        return anthropic_reply(400, "invalid_request_error",
                               "requests: List should have at most " +
                                   std::to_string(options.anthropic_batch_max_requests) +
                                   " items after validation, not " +
                                   std::to_string(requests.size()));
      static const std::regex custom_id_pattern("^[a-zA-Z0-9_-]{1,64}$");
      AnthropicBatch b;
      std::set<std::string> seen;
      for (std::size_t i = 0; i < requests.size(); ++i) {
        const json& q = requests[i];
        const std::string at = "requests." + std::to_string(i);
        if (!q.is_object() || !q.contains("custom_id"))
          return anthropic_reply(400, "invalid_request_error", at + ".custom_id: Field required");
        if (!q.contains("params"))
          return anthropic_reply(400, "invalid_request_error", at + ".params: Field required");
        const std::string id = q["custom_id"].is_string() ? q["custom_id"].get<std::string>() : "";
        if (!std::regex_match(id, custom_id_pattern))
          return anthropic_reply(400, "invalid_request_error",
                                 at + ".custom_id: String should match pattern "
                                      "'^[a-zA-Z0-9_-]{1,64}$'");
        if (!seen.insert(id).second)
          return anthropic_reply(400, "invalid_request_error",
                                 "Duplicate custom_id: '" + id +
                                     "'. custom_id must be unique within a Message Batch.");
        b.requests.push_back({id, q["params"], std::nullopt});
      }
      const auto now = std::chrono::system_clock::now();
      b.id = "msgbatch_" + alnum(24);
      b.created_at = rfc3339(now);
      b.expires_at = rfc3339(now + std::chrono::hours(24));
      message_batches[b.id] = b;
      message_batch_order.push_back(b.id);
      return reply_json(200, message_batch_object(message_batches.at(b.id)));
    }
    const std::string prefix = "/v1/messages/batches/";
    std::string id = path.substr(prefix.size());
    std::string action;
    if (const auto slash = id.find('/'); slash != std::string::npos) {
      action = id.substr(slash + 1);
      id = id.substr(0, slash);
    }
    const auto it = message_batches.find(id);
    if (!((action.empty() && !post) || (action == "results" && !post) ||
          (action == "cancel" && post)))
      return not_found();
    if (it == message_batches.end())
      return anthropic_reply(404, "not_found_error", "Message Batch " + id + " not found");
    AnthropicBatch& b = it->second;
    if (action.empty()) {
      advance(b);
      return reply_json(200, message_batch_object(b));
    }
    if (action == "cancel") {
      if (b.status == "in_progress") {
        b.status = "canceling";
        b.cancel_initiated_at = rfc3339(std::chrono::system_clock::now());
      }
      return reply_json(200, message_batch_object(b));
    }
    if (b.status != "ended")
      return anthropic_reply(400, "invalid_request_error",
                             "Message Batch " + id +
                                 " has not ended yet; results are available "
                                 "once processing_status is 'ended'.");
    std::string out;
    for (const auto& r : b.requests)
      out += ojson{{"custom_id", r.custom_id}, {"result", *r.result}}.dump() + "\n";
    return {200, out, "application/binary", {}};
  }
};

// ---------------------------------------------------------------------------------------------

BatchApi::BatchApi(const FakeOptions& options, Answer answer, std::string root_url)
    : state_(std::make_unique<State>()) {
  state_->options = options;
  state_->answer = std::move(answer);
  state_->root_url = std::move(root_url);
}

BatchApi::~BatchApi() = default;

std::optional<Reply> BatchApi::handle(const std::string& method, const std::string& path,
                                      const std::string& body, const Headers& headers) {
  const bool anthropic =
      path == "/v1/messages/batches" || path.rfind("/v1/messages/batches/", 0) == 0;
  const bool openai = path == "/v1/files" || path.rfind("/v1/files/", 0) == 0 ||
                      path == "/v1/batches" || path.rfind("/v1/batches/", 0) == 0;
  if (!anthropic && !openai) return std::nullopt;
  // One batch request at a time: a poll may answer many requests through the flavour, which
  // never comes back here (a batch line's url is a generation route).
  std::lock_guard lock(state_->mutex);
  try {
    if (anthropic) return state_->anthropic(method, path, body, headers);
    return state_->openai(method, path, body, headers);
  } catch (const std::exception& e) {
    if (anthropic) return anthropic_reply(500, "api_error", std::string("fake: ") + e.what());
    return reply_json(
        500, openai_error(std::string("fake: ") + e.what(), nullptr, nullptr, "server_error"));
  }
}

}  // namespace probity::test
