#pragma once
// Sending a round's cache misses through a batch API (OpenAI Files + Batches, Anthropic Message
// Batches) or a batch file, and reading the answers back. The client calls run_batches() with
// the requests it would otherwise send online; everything submitted is recorded in the cache
// database first, so that a killed run, rerun, polls the batches it already paid for.
#include <cstddef>
#include <functional>
#include <memory>
#include <nlohmann/json.hpp>
#include <string>
#include <string_view>
#include <vector>

#include "llm/http_post.hpp"
#include "probity/llm.hpp"

namespace probity::llm::detail {

struct BatchItem {
  std::string key;   // the cache key, sent as custom_id
  std::string path;  // "/v1/chat/completions" or "/v1/completions"
  std::string body;  // the online request body (JSON)
  double est_tokens = 0;
};

struct BatchOutcome {
  bool ok = false;
  std::string body;  // an OpenAI-shaped answer (Anthropic's are converted)
  ErrorKind kind = ErrorKind::kNone;
  std::string error;
};

// One provider's protocol.
class BatchApi {
 public:
  virtual ~BatchApi() = default;
  virtual std::size_t max_requests() const = 0;
  virtual std::size_t max_bytes() const = 0;
  // The item as this provider's request line (JSONL without the newline).
  virtual std::string line(const BatchItem& item) const = 0;
  // Submits the lines; returns the provider's batch id. Throws BatchSubmitError.
  virtual std::string submit(const std::string& jsonl, std::size_t count) = 0;
  struct Status {
    std::string status;  // the provider's word
    bool ended = false;  // no request will change any more
    std::uint64_t total = 0, completed = 0, failed = 0;
    std::string problem;  // why the whole batch failed (validation errors), "" otherwise
  };
  virtual Status poll(const std::string& id) = 0;
  // The answers and failures of an ended batch, by custom_id.
  virtual std::vector<std::pair<std::string, BatchOutcome>> results(const std::string& id) = 0;
};

// Why a submission, poll or download failed (HTTP status and the provider's message).
class BatchTransportError : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

struct BatchContext;

// The endpoint's timeout, retries, backoff and credentials, for the batch APIs' HTTP exchanges.
PostOptions batch_post_options(const BatchContext& context);

// A failed exchange with a batch API as one message (HTTP status and the provider's words, or
// the transport's), secrets removed.
std::string describe_http(const BatchContext& context, const PostResult& result);
// The JSON object of a 2xx answer; BatchTransportError naming what was being done otherwise.
nlohmann::json expect_json(const BatchContext& context, const PostResult& result,
                           const std::string& doing);

struct BatchContext {
  const EndpointConfig* config = nullptr;
  Cache* cache = nullptr;
  Accounting* accounting = nullptr;
  std::vector<std::string> auth_headers;  // "Name: value" (secrets: never in a message)
  std::function<std::string(std::string)> redact;
  std::function<void(std::string_view)> log;
  std::function<bool()> interrupted;
  // Tests: the clock between polls (waits `seconds`, returns false when interrupted).
  std::function<bool(double seconds)> sleep;
};

std::unique_ptr<BatchApi> make_openai_batch_api(const BatchContext& context);
std::unique_ptr<BatchApi> make_anthropic_batch_api(const BatchContext& context);

// Answers for `items`, in their order. Throws BatchPending (file mode, after writing the
// files), BudgetExceeded, Interrupted (submitted batches stay recorded for the rerun) and
// EndpointDown when the provider cannot be reached to submit or poll.
std::vector<BatchOutcome> run_batches(const BatchContext& context,
                                      const std::vector<BatchItem>& items, EndpointUsage& delta);

// An OpenAI / vLLM batch output line: {custom_id, response: {status_code, body}, error}.
// Returns false when the line is not one (the caller names file and line).
bool parse_openai_result_line(std::string_view line, std::string& custom_id, BatchOutcome& outcome,
                              std::string& problem);

// An OpenAI chat request body as Anthropic Messages params, and an Anthropic Message as an
// OpenAI chat completion body (what the cache keeps and the parser reads).
std::string anthropic_params(const std::string& openai_body, const EndpointConfig& config);
std::string openai_body_of_message(const std::string& message_json);

}  // namespace probity::llm::detail
