#pragma once
// One JSON POST to any URL over libcurl, with the LLM client's handling of transient failures
// (connection errors, 429, 5xx retried with full-jitter exponential backoff, Retry-After
// honoured): the transport of the http: metric (metrics/external_scorer.cpp), which is not an
// OpenAI-compatible endpoint and so does not go through llm::Client.
#include <string>
#include <vector>

namespace probity::llm {

struct PostOptions {
  double timeout_s = 60;        // per attempt
  int retries = 3;              // further attempts after a transient failure
  double backoff_base_s = 0.5;  // full jitter: U(0, min(max, base * 2^(retry-1)))
  double backoff_max_s = 30;
  std::vector<std::string> headers;  // "Name: value" lines, beside Content-Type and Accept
};

struct PostResult {
  long status = 0;    // HTTP status; 0 when no answer came
  std::string body;   // the answer's body
  std::string error;  // curl's message when status is 0
  int attempts = 0;
};

// One HTTP exchange with the same retries: GET when `method` is "GET" (body ignored), else that
// method with `body` sent as `content_type` (the batch clients: file uploads, batch creation and
// polls, result downloads). `headers` may hold secrets; they are never part of a message.
PostResult http_request(const std::string& method, const std::string& url, const std::string& body,
                        const std::string& content_type, const PostOptions& options);

// POSTs `body` (JSON) to `url`; returns the last attempt's result (a transient failure retried
// `retries` times). Never throws for a network failure: the caller names what happened.
PostResult post_json(const std::string& url, const std::string& body, const PostOptions& options);

}  // namespace probity::llm
