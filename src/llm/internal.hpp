#pragma once
// Pieces of the LLM client that are tested on their own: request building and cache keys, answer
// parsing, Retry-After parsing, the token bucket and retry delays.
#include <cstdint>
#include <ctime>
#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "probity/llm.hpp"

namespace probity::llm::detail {

// A request as it goes on the wire.
struct WireRequest {
  std::string url;
  std::string body;       // JSON
  std::string key;        // cache key
  double est_tokens = 0;  // for the tokens-per-period limit, before `usage` is known
  // The body without its structured-output fields (empty when it has none): what is sent once
  // the server has rejected them. The cache key stays that of `body`.
  std::string unstructured_body;
};

// The body fields of structured output through which a server could be asked for a shape
// (probity's own or a user's extra_body).
std::vector<std::string_view> structured_output_fields();
// The fields that ask `config`'s server for an answer following `schema`, per its mode and
// server kind (none when the mode is off).
nlohmann::json structured_output_body(const EndpointConfig& config, const nlohmann::json& schema);
// An HTTP error that names a structured-output field or the schema: the server does not take
// them, and the request is sent again without.
bool rejects_structured_output(int status, std::string_view message);

// Throws std::invalid_argument for an `extra`/`extra_body` that is not a JSON object.
WireRequest build_request(const EndpointConfig& config, const Request& request);

// "http://h:8000/v1/" -> "http://h:8000/v1"; the tokenize root drops a trailing "/v1".
std::string normalize_base(std::string_view base_url);
std::string tokenize_url(std::string_view base_url);

// Fills `out` from a 2xx body. Returns false with out.error set when the body is not the JSON
// the endpoint should return (the caller decides whether to retry).
bool parse_success(const Request& request, const std::string& body, Response& out);

// The message of an OpenAI / vLLM / llama.cpp / Ollama error body, or a prefix of the raw body.
std::string error_message(const std::string& body);

// What to change in the configuration when a server rejects a parameter (HTTP 400 naming it in
// `param` or the message), e.g. max_tokens on an OpenAI reasoning model; "" when the body names
// none.
std::string config_hint(const std::string& body, const EndpointConfig& config);

// True for refusals of a kind of request, which no retry or other item can change: llama.cpp
// server answers echo with HTTP 500 "Only no echo is supported"; OpenAI's instruct models reject
// echo with logprobs (400).
bool is_deterministic_refusal(int status, const std::string& message);
// A 429 that says the account is out of credit (OpenAI's "insufficient_quota"): waiting does not
// help, unlike a rate limit.
bool is_quota_exhausted(const std::string& body);

// The kind named by error_kind_name (kBatchFailed for a name it does not know: a cache written
// by a newer probity).
ErrorKind parse_error_kind(std::string_view name);

// What a failed HTTP answer (`status` >= 300, its body) is, as the client classifies it.
ErrorKind error_kind_of_status(int status, const std::string& body);

// Seconds to wait from a Retry-After value: delta-seconds or an HTTP date relative to `now`.
std::optional<double> parse_retry_after(std::string_view value, std::time_t now);

// Full-jitter exponential backoff: U(0, min(max, base * 2^(retry-1))), reproducible from
// (seed, key, retry).
double backoff_delay(const EndpointConfig& config, std::string_view key, int retry);

// Token bucket: `limit` units per `period_s`, holding at most one second's worth (one period's
// when shorter) so that a per-minute limit is not spent in a burst. A cost larger than the
// capacity is admitted from a full bucket and drives the level negative.
class TokenBucket {
 public:
  TokenBucket() = default;
  TokenBucket(double limit, double period_s);
  bool enabled() const { return rate_ > 0; }
  // Seconds until `cost` may be spent (0: now). `now` is a monotonic time in seconds.
  double wait(double cost, double now);
  void spend(double cost, double now);
  // Returns units (or takes more) once the real cost is known.
  void adjust(double delta, double now);

 private:
  void refill(double now);
  double rate_ = 0;  // units per second
  double capacity_ = 0;
  double level_ = 0;
  double last_ = 0;
};

}  // namespace probity::llm::detail
