#pragma once
// The LLM backend: an asynchronous client for any OpenAI-compatible server (vLLM, SGLang,
// llama.cpp server, Ollama, hosted APIs) with bounded concurrency, rate limits, retries, a
// resumable SQLite response cache, usage/cost accounting and probity.toml configuration.
//
// The API key is read from an environment variable whose NAME is configured; its value lives only
// in the client's memory and the Authorization header. It is never logged, cached, hashed into a
// cache key or written to any report; should a server echo it back, it is replaced by
// "[redacted]" in answers, errors and log lines (keys of 8 characters or more).
#include <cstddef>
#include <cstdint>
#include <functional>
#include <map>
#include <memory>
#include <mutex>
#include <optional>
#include <string>
#include <string_view>
#include <tuple>
#include <utility>
#include <vector>

#include "probity/error.hpp"

struct sqlite3;
struct sqlite3_stmt;

namespace probity::llm {

// ---- Endpoint settings -----------------------------------------------------------------------

// How a role asks the server to structure its answers (each structured question carries the
// JSON Schema of its answer). The strict parser checks every answer whatever the mode.
enum class StructuredMode {
  kSchema,  // the answer's JSON Schema (constrained decoding where the server has it)
  kJson,    // any JSON object (response_format json_object)
  kOff,     // nothing: the prompt alone asks for JSON
};
StructuredMode parse_structured_mode(std::string_view name);  // "schema", "json", "off"
std::string_view structured_mode_name(StructuredMode mode);

// The server software behind an endpoint, where it changes what is sent. kAuto sends what all of
// them accept (OpenAI's response_format, which vLLM, SGLang, llama.cpp and Ollama's /v1 read).
enum class ServerKind { kAuto, kOpenAi, kVllm, kSglang, kLlamaCpp, kOllama };
ServerKind parse_server_kind(std::string_view name);  // "auto", "openai", "vllm", ...
std::string_view server_kind_name(ServerKind kind);

// How a role's cache misses are sent. Batch modes send each round's misses as one or more
// batches (half the online price on OpenAI and Anthropic), wait for them and import the answers
// into the cache; `file` writes OpenAI batch JSONL for `vllm run-batch` or any other runner and
// stops (BatchPending). Requests a batch API does not take (tokenize, kJson) go online.
enum class BatchMode { kOff, kOpenAi, kAnthropic, kFile };
BatchMode parse_batch_mode(std::string_view name);  // "off", "openai", "anthropic", "file"
std::string_view batch_mode_name(BatchMode mode);

struct EndpointConfig {
  std::string name = "default";  // role ("judge", "oracle", ...), used in accounting and messages
  std::string base_url;          // e.g. "http://127.0.0.1:8000/v1" (the path up to /chat/...)
  std::string model;             // omitted from request bodies when empty
  std::string api_key_env;       // NAME of the environment variable holding the key; "" = none
  // Further request headers (Azure's api-key, OpenAI-Project, ...): values are secrets to the
  // client (never logged, cached, hashed or signed; redacted from answers like the key). A value
  // "${NAME}" is read from the environment variable NAME when the client is created.
  std::vector<std::pair<std::string, std::string>> headers;
  std::size_t concurrency = 16;  // requests in flight, 1..512 (halved on rate-limit episodes)
  double rpm = 0;                // requests per rate period; 0 = unlimited
  double tpm = 0;                // tokens (prompt + completion) per rate period; 0 = unlimited
  double rate_period_s = 60;     // the "minute" of rpm/tpm; tests use short periods
  // Per attempt, connection included. Long: a loaded vLLM aborts a request whose client gives
  // up, so a retry starts the generation again (openai-python waits 600 s too).
  double timeout_s = 600;
  int max_attempts = 4;              // attempts for 5xx, timeouts and broken connections
  double rate_limit_budget_s = 600;  // 429s are retried until this long after the first send
  // After this many failed attempts in a row for connection, TLS, auth or timeout reasons (no
  // success between them) the endpoint is given up: every request fails as circuit_open and
  // Client::run throws EndpointDown. 0: never.
  int circuit_breaker = 8;
  std::size_t max_response_bytes = 8u << 20;  // a larger answer is a too_large failure
  double backoff_base_s = 0.5;  // retry k waits U(0, min(max, base * 2^(k-1))) ("full jitter")
  double backoff_max_s = 30;
  std::uint64_t jitter_seed = 0;  // retry delays are reproducible
  // Default generation parameters; a Request may override each.
  std::optional<double> temperature = 0.0;  // nullopt: not sent (the server's default)
  std::optional<int> max_tokens;            // unset: not sent (server default)
  // Sent instead of max_tokens where set (OpenAI reasoning models reject max_tokens).
  std::optional<int> max_completion_tokens;
  std::optional<std::int64_t> seed;       // sample k of a request is sent seed + k
  int n = 1;                              // choices per request
  double price_in = 0, price_out = 0;     // USD per 1M input / output tokens
  std::optional<double> price_cached_in;  // USD per 1M cached input tokens (unset: price_in)
  std::string extra_body;  // a JSON object whose fields are added to generation request bodies
  StructuredMode structured = StructuredMode::kSchema;
  ServerKind server = ServerKind::kAuto;
  BatchMode batch = BatchMode::kOff;
  std::string batch_dir;  // file mode: where requests-<n>.jsonl are written
  // Polls of a submitted batch: the first after batch_poll_s, then doubling to batch_poll_max_s.
  double batch_poll_s = 10, batch_poll_max_s = 300;
  // Requests and JSONL bytes per batch; 0 = the provider's limit (OpenAI 50,000 and 200 MB,
  // Anthropic 100,000 and 256 MB; file mode 50,000 and 200 MB, OpenAI's format).
  std::size_t batch_max_requests = 0, batch_max_bytes = 0;
  // USD per 1M tokens answered through a batch; unset: half price_in / price_out.
  std::optional<double> price_batch_in, price_batch_out;
};

// ---- Requests and responses ------------------------------------------------------------------

enum class Endpoint {
  kChat,        // POST {base}/chat/completions
  kCompletion,  // POST {base}/completions
  kTokenize,    // POST {base without /v1}/tokenize (vLLM, SGLang)
  // POST {base}{Request::path} with Request::body as it is (no model, generation parameters or
  // extra_body added); any JSON answer is a success and is left in Response::body for the
  // caller to read (embedding servers: TEI's /embed_all and /tokenize, vLLM's /pooling).
  kJson,
};

struct Message {
  std::string role;  // "system", "user", "assistant"
  std::string content;
};

struct Request {
  Endpoint endpoint = Endpoint::kChat;
  std::vector<Message> messages;            // chat; tokenize through the chat template
  std::string prompt;                       // completion; tokenize
  std::vector<std::int64_t> prompt_tokens;  // completion by token ids (used when non-empty)
  // Overrides of the endpoint's defaults.
  std::optional<double> temperature;
  std::optional<int> max_tokens;  // 0 with echo: vLLM scores the prompt without generating
  std::optional<int> n;
  std::optional<std::int64_t> seed;
  bool echo = false;                   // completion: return the prompt's tokens too
  std::optional<int> logprobs;         // top-k per position (chat: logprobs + top_logprobs)
  std::optional<int> prompt_logprobs;  // vLLM: top-k per prompt position (-1: whole vocabulary)
  std::string extra;                   // JSON object of further body fields (after extra_body)
  // Chat: the JSON Schema (JSON text) of the answer, sent as the endpoint's `structured` mode
  // says; empty: a free-text answer.
  std::string schema;
  std::string path;  // kJson: appended to the base URL ("/embed_all")
  std::string body;  // kJson: the JSON body (sent in canonical form)
  // Repeated-sampling index: samples 0..N-1 of the same request are distinct requests with
  // distinct cache entries, even at temperature 0.
  std::uint32_t sample = 0;
  // A capability check (does the server have /tokenize?): an answer saying the server does not
  // serve this kind of request (capability_absent) is information, not one of the endpoint's
  // failures; any other failure (5xx, timeout, connection) is counted as every request's is.
  bool probe = false;
};

struct Usage {
  bool present = false;  // the server reported `usage`
  std::int64_t prompt_tokens = 0;
  std::int64_t completion_tokens = 0;
  std::int64_t cached_prompt_tokens = 0;  // prompt_tokens_details.cached_tokens (OpenAI)
};

struct TokenLogprob {
  std::string token;              // decoded text ("" when the server gave only an id)
  std::int64_t id = -1;           // token id when known
  std::optional<double> logprob;  // absent for the first prompt position (no context)
  std::vector<std::pair<std::string, double>> top;  // alternatives when requested
};

enum class ErrorKind {
  kNone,
  kInvalidRequest,  // non-retryable 4xx (bad request, unknown model) or an error object
  kAuth,            // 401/403: the key is wrong, missing or lacks access; never retried
  kUnsupported,     // the server refuses this kind of request (llama.cpp's echo); never retried
  kRateLimited,     // 429 on every attempt
  kQuota,           // 429 insufficient_quota: the account is out of credit; never retried
  kServer,          // 5xx on the last attempt
  kTimeout,         // the per-attempt timeout on the last attempt
  kConnection,      // connection refused, reset or closed mid-response
  kTls,             // TLS handshake or certificate verification failed; never retried
  kTooLarge,        // the answer exceeded max_response_bytes; never retried
  kCircuitOpen,     // not sent: the endpoint failed circuit_breaker times in a row
  kMalformed,       // a success status with a body that is not the expected JSON
  kCacheMiss,       // read-only cache without the entry (no request was sent)
  kBatchExpired,    // the batch ended (expired, cancelled) before this request was answered
  kBatchFailed,     // the provider refused the whole batch (validation), or its line was unusable
};
std::string_view error_kind_name(ErrorKind kind);  // "invalid_request", "rate_limited", ...

struct Response {
  bool ok = false;
  int status = 0;  // HTTP status of the last attempt; 0 when there was no HTTP answer
  std::vector<std::string> texts;           // one per choice, in choice-index order
  std::vector<std::string> finish_reasons;  // one per choice ("stop", "length", ...)
  Usage usage;
  // Log-probabilities of the prompt's tokens: vLLM `prompt_logprobs` (per choice or top-level)
  // or legacy `logprobs.token_logprobs` with echo, cut at the prompt's length.
  bool has_prompt_logprobs = false;
  std::vector<TokenLogprob> prompt_logprobs;
  std::vector<TokenLogprob> logprobs;   // generated tokens of choice 0, when requested
  std::vector<std::int64_t> tokens;     // tokenize: token ids
  std::vector<std::string> token_strs;  // tokenize: token texts when the server returned them
  int attempts = 0;                     // HTTP requests made for this item (0 for a cache hit)
  double latency_s = 0;                 // first send to final answer, backoff waits included
  bool from_cache = false;
  ErrorKind error_kind = ErrorKind::kNone;
  std::string error;  // why ok is false: the server's message, curl's, or the parser's
  std::string body;   // the raw JSON body of a successful answer

  // First choice's text ("" when there is none).
  const std::string& text() const;
  // An HTTP answer with an error status (`error` then reads "HTTP <status>: <message>").
  bool http_error() const { return status != 0 && (status < 200 || status >= 300); }
};

// Whether a failed answer says that the server does not serve this kind of request: it refused
// it (an invalid or unsupported request) or answered with a body not of the expected shape
// (a server that ignores the route). Not a server error, a timeout or a lost connection.
bool capability_absent(const Response& response);

// ---- Cache -----------------------------------------------------------------------------------

enum class CacheMode {
  kReadWrite,  // hits are served, misses are requested and stored
  kReadOnly,   // hits are served, misses fail without a request
  kRefresh,    // every request is sent; answers overwrite stored ones
  kOff,        // no lookups, no writes
};
CacheMode parse_cache_mode(std::string_view name);  // "read-write", "read-only", "refresh", "off"
std::string_view cache_mode_name(CacheMode mode);

// Successful answers in SQLite (WAL), keyed by the SHA-256 of a canonical JSON of everything that
// determines them. Thread-safe. Several processes may share one file.
class Cache {
 public:
  explicit Cache(const std::string& path, CacheMode mode = CacheMode::kReadWrite);
  ~Cache();
  Cache(const Cache&) = delete;
  Cache& operator=(const Cache&) = delete;

  CacheMode mode() const { return mode_; }
  const std::string& path() const { return path_; }

  std::optional<std::string> get(const std::string& key);
  // One read transaction for many keys; out[i] is the body of keys[i] when stored.
  std::vector<std::optional<std::string>> get_many(const std::vector<std::string>& keys);
  // One write transaction for many (key, body) pairs; replaces existing entries.
  void put_many(const std::vector<std::pair<std::string, std::string>>& entries);
  void put(const std::string& key, const std::string& body);
  // Removes entries (one write transaction); a read-only or off cache is left as it is.
  void erase_many(const std::vector<std::string>& keys);
  std::size_t size();

  // ---- Batches (--batch): their ids and request keys, so that a rerun polls what an earlier
  // process submitted instead of paying twice. Kept in the same database.
  struct BatchRecord {
    std::string id;        // the provider's batch id; file mode: the requests file's path
    std::string provider;  // batch_mode_name
    std::string endpoint, model, base_url;
    std::string status;  // the provider's last status ("in_progress", "ended", "written", ...)
    bool open = true;    // its answers are not imported yet
    std::vector<std::string> keys;  // request keys (the lines' custom_id)
    std::uint64_t completed = 0, failed = 0;
    double created = 0, updated = 0;  // Unix seconds
    double cost_usd = 0;              // of the answers imported
    double estimated_cost_usd = 0;    // at submission
  };
  void put_batch(const BatchRecord& record);  // inserts or replaces by id
  std::vector<BatchRecord> batches();         // by creation time
  // Failures a batch reported for single requests (the line's status and message): kept until
  // the run that asked for them takes them (they are then counted there, and a later run asks
  // again: a failure is never served like an answer).
  struct BatchFailure {
    std::string key;
    ErrorKind kind = ErrorKind::kNone;
    std::string message;
  };
  void put_batch_failures(const std::vector<BatchFailure>& failures);
  std::vector<BatchFailure> take_batch_failures(const std::vector<std::string>& keys);

  // Every stored answer, in key order, with its creation time (export, merge, stats).
  void for_each(const std::function<void(const std::string& key, const std::string& body,
                                         double created)>& visit);
  // Stores answers keeping their creation times; an existing key is kept unless `replace`.
  // Returns how many were written.
  std::size_t put_entries(const std::vector<std::tuple<std::string, std::string, double>>& entries,
                          bool replace);

 private:
  void exec(const char* sql);
  void ensure_batch_tables();
  std::string path_;
  CacheMode mode_;
  std::mutex mutex_;
  sqlite3* db_ = nullptr;
  sqlite3_stmt* get_ = nullptr;
  sqlite3_stmt* put_ = nullptr;
};

// ---- Accounting ------------------------------------------------------------------------------

struct EndpointUsage {
  std::string endpoint;  // EndpointConfig::name
  std::string model;
  // Responses returned by run(): requests answered, cache hits, and the copies of a request
  // repeated within one batch (sent once).
  std::uint64_t answers = 0;
  std::uint64_t requests = 0;  // HTTP requests sent, retries included
  std::uint64_t cache_hits = 0;
  std::uint64_t retries = 0;
  std::map<std::string, std::uint64_t> failures;  // failed items by error kind name
  // The first few distinct messages of each kind (HTTP status and the server's error text, or
  // libcurl's message), so that a failure can be diagnosed from the summary or the report.
  std::map<std::string, std::vector<std::string>> failure_examples;
  // Structured (JSON) questions: asked, re-asks of an unusable answer, and answers still
  // unusable after the last re-ask (recorded as failed by the component that asked).
  std::uint64_t questions = 0, reasks = 0, unparsed = 0;
  // Of `unparsed`: well-formed answers that failed a content check, by the check's name.
  std::map<std::string, std::uint64_t> rejected_by_check;
  // Requests whose structured-output field the server rejected (HTTP 400 naming it): each was
  // sent once more without it, as was every later request of the run, and the first rejection's
  // message is kept.
  std::uint64_t unstructured = 0;
  std::string structured_rejection;
  std::string structured;  // the mode asked of the server ("schema", "json", "off")
  std::uint64_t tokens_in = 0, tokens_out = 0;  // from `usage` of live answers
  std::uint64_t tokens_cached_in = 0;           // of tokens_in, served from the server's cache
  double wall_s = 0;                            // summed over run() calls
  // Batches (--batch): requests answered through one, batches submitted, status polls, and the
  // tokens and cost of those answers (also in tokens_in/out and cost_usd); `online_cost_usd` is
  // what the same tokens cost at the online prices.
  std::uint64_t batch_requests = 0, batches = 0, batch_polls = 0;
  std::uint64_t batch_tokens_in = 0, batch_tokens_out = 0;
  double batch_cost_usd = 0, batch_online_cost_usd = 0;
  double price_in = 0, price_out = 0;                     // USD per 1M tokens (0 in a total)
  std::optional<double> price_batch_in, price_batch_out;  // unset: half the online prices
  std::optional<double> price_cached_in;  // USD per 1M cached input tokens (price_in)
  double cost_usd = 0;                    // tokens priced when they were counted
};

// Per-endpoint counters shared by any number of clients. Thread-safe.
class Accounting {
 public:
  // Spending limit of the run in USD (0: none): a batch whose estimated cost would take the
  // run's cost past it is not submitted (BudgetExceeded).
  void set_budget_usd(double budget) { budget_usd_ = budget; }
  double budget_usd() const { return budget_usd_; }
  void register_endpoint(const EndpointConfig& config);
  // Adds `delta`'s counters to (endpoint, model) and prices its tokens; prices in `delta` are
  // ignored.
  void add(const std::string& endpoint, const std::string& model, const EndpointUsage& delta);
  std::vector<EndpointUsage> endpoints() const;  // sorted by endpoint, then model
  EndpointUsage total() const;
  std::string summary() const;  // a text table, one row per endpoint and a total
  std::string to_json() const;  // {"endpoints": [...], "total": {...}}

 private:
  mutable std::mutex mutex_;
  std::map<std::pair<std::string, std::string>, EndpointUsage> by_endpoint_;
  double budget_usd_ = 0;
};

// ---- Client ----------------------------------------------------------------------------------

// An endpoint given up by its circuit breaker: the message names it, the number of failed
// attempts in a row and the last error. The CLI exits with kExitLlmFailures.
class EndpointDown : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

using Progress = std::function<void(std::size_t done, std::size_t total)>;

// --batch file wrote the round's requests to files and the run stops (CLI exit 6): the message
// names the files and the commands that answer them and import the answers; the rerun of the
// same command then continues from the cache.
class BatchPending : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

// A batch was not submitted because its estimated cost would take the run past --budget-usd.
class BudgetExceeded : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

// Interrupted while waiting for answers (Ctrl-C in Python): the batch's requests in flight were
// cancelled; the answers that had arrived are cached.
class Interrupted : public std::runtime_error {
 public:
  Interrupted() : std::runtime_error("interrupted") {}
};

struct ClientOptions {
  Cache* cache = nullptr;            // nullptr: no caching
  Accounting* accounting = nullptr;  // nullptr: the client keeps its own
  // Polled about every 100 ms while run() waits: true cancels the batch and throws Interrupted.
  std::function<bool()> interrupted;
  // Retry and failure messages (never the key); called from the client's I/O thread.
  std::function<void(std::string_view)> log;
};

// One endpoint. Requests run on one I/O thread (libcurl multi interface); run() may be called
// from several threads at once, sharing the concurrency and rate limits.
class Client {
 public:
  // Reads the API key from the environment now; throws UsageError when the variable is unset
  // or the settings are invalid.
  explicit Client(EndpointConfig config, ClientOptions options = {});
  ~Client();
  Client(const Client&) = delete;
  Client& operator=(const Client&) = delete;

  // Answers in input order. Failed items come back with ok = false and the reason; nothing is
  // dropped. Identical requests (same key) in one call are sent once and share the answer.
  // Progress is called on the calling thread after finished answers are cached; an exception
  // it throws is rethrown once the batch is over. Throws std::invalid_argument for a request
  // whose `extra` is not a JSON object (before anything is sent).
  std::vector<Response> run(const std::vector<Request>& requests, const Progress& progress = {});
  Response call(const Request& request);
  // Drops the cached answers of these requests: the caller found them unusable (free text where
  // JSON was asked, a rating off the scale), so the next run asks again instead of replaying them.
  void forget(const std::vector<Request>& requests);

  Response chat(std::vector<Message> messages);
  Response completion(std::string prompt);
  // Token ids of `text`; throws std::runtime_error with the server's message on failure
  // (e.g. a server without /tokenize).
  std::vector<std::int64_t> tokenize(std::string_view text);

  // The cache key of a request: SHA-256 hex of (format version, URL, sample index, the body as
  // canonical JSON with sorted keys). The body holds every parameter sent; the key is not in it.
  std::string key(const Request& request) const;
  // The settings that affect output, for metric signatures: "model:M|temp:0|max_tokens:16|...".
  std::string signature() const;

  const EndpointConfig& config() const { return config_; }
  Accounting& accounting() { return *accounting_; }

 private:
  struct Impl;
  EndpointConfig config_;
  std::unique_ptr<Accounting> own_accounting_;
  Accounting* accounting_;
  std::unique_ptr<Impl> impl_;
};

// Why a request header cannot be sent as given (a name that is not an HTTP token, one probity
// sets itself, control characters such as CR/LF in the value), or nullopt when it can. The
// message never repeats the value.
std::optional<std::string> header_problem(std::string_view name, std::string_view value);

// SHA-256 of bytes as 64 lowercase hex digits (prompt-template hashes in signatures).
std::string sha256_hex(std::string_view data);

// ---- Configuration (probity.toml) ------------------------------------------------------------

// Settings of one [llm.<role>] table as written; absent fields inherit from [llm.default].
struct EndpointSettings {
  std::optional<std::string> base_url, model, api_key_env;
  std::optional<std::vector<std::pair<std::string, std::string>>> headers;
  std::optional<std::size_t> concurrency;
  std::optional<double> rpm, tpm, timeout_s, rate_limit_budget_s;
  std::optional<int> max_attempts, circuit_breaker;
  std::optional<std::size_t> max_response_bytes;
  // temperature = "default" is stored as an engaged optional holding nullopt.
  std::optional<std::optional<double>> temperature;
  std::optional<int> max_tokens, max_completion_tokens;
  std::optional<std::int64_t> seed;
  std::optional<double> price_in, price_out, price_cached_in;
  std::optional<std::string> extra_body;  // JSON text of an [llm.<role>.extra_body] table
  std::optional<StructuredMode> structured;
  std::optional<ServerKind> server;
  std::optional<BatchMode> batch;
  std::optional<std::string> batch_dir;
  std::optional<double> batch_poll_s, batch_poll_max_s;
  std::optional<std::size_t> batch_max_requests, batch_max_bytes;
  std::optional<double> price_batch_in, price_batch_out;
  void apply_to(EndpointConfig& config) const;
};

// The roles a configuration may name, in order: default, judge, oracle, perturber, lm,
// decomposer, attacker, guard, embedder. `embedder` holds the client settings of BERTScore's
// embedding server (embed=tei:/vllm:); it does not inherit [llm.default], which describes
// another server (its key and headers must not be sent to the embedding server).
const std::vector<std::string>& role_names();

// What a role gets before any configuration: a bounded answer length (max_tokens) sized to what
// its prompts ask for, and seed 0 so that sampled answers are reproducible; nothing for `lm` and
// `embedder`, whose requests set their own.
EndpointSettings role_defaults(std::string_view role);

struct LlmConfig {
  std::string path;        // the file it was read from ("" when none)
  std::string cache_path;  // "" = no cache
  CacheMode cache_mode = CacheMode::kReadWrite;
  double budget_usd = 0;  // [llm] budget_usd / --budget-usd: 0 = none
  std::map<std::string, EndpointSettings, std::less<>> roles;

  bool has_role(std::string_view role) const;
  // Built-in defaults (role_defaults), then [llm.default], then [llm.<role>]; name = role.
  EndpointConfig endpoint(std::string_view role) const;
  // The cache the configuration asks for; nullptr when off or no path is set.
  std::unique_ptr<Cache> open_cache() const;
};

// A configuration mistake: names the file, the line when known, and the key.
class ConfigError : public UsageError {
 public:
  ConfigError(std::string file, std::size_t line, std::string key, const std::string& message);
  const std::string& file() const { return file_; }
  std::size_t line() const { return line_; }  // 0 when unknown
  const std::string& key() const { return key_; }

 private:
  std::string file_;
  std::size_t line_;
  std::string key_;
};

LlmConfig load_config(const std::string& path);  // throws ConfigError
LlmConfig parse_config(std::string_view toml, const std::string& path);

// Command-line options that override [llm.default] (roles that set a field keep their own).
struct CliOverrides {
  std::optional<std::string> base_url;       // --llm-base-url
  std::optional<std::string> model;          // --llm-model
  std::optional<std::string> api_key_env;    // --llm-api-key-env
  std::optional<std::size_t> concurrency;    // --llm-concurrency
  std::optional<std::string> cache;          // --cache FILE
  std::optional<std::string> cache_mode;     // --cache-mode
  std::optional<StructuredMode> structured;  // --llm-structured
  std::optional<ServerKind> server;          // --llm-server
  std::optional<int> max_tokens;             // --llm-max-tokens
  std::optional<BatchMode> batch;            // --batch (every role that does not set its own)
  std::optional<std::string> batch_dir;      // --batch-dir
  std::optional<double> budget_usd;          // --budget-usd
};
void apply_cli_overrides(LlmConfig& config, const CliOverrides& overrides);

// The OpenAI client conventions, used for what neither a flag nor the configuration set (flags
// win, then the configuration, then the environment): OPENAI_BASE_URL, OPENAI_MODEL, and
// OPENAI_API_KEY (by name: api_key_env = "OPENAI_API_KEY"). `getenv` is injectable for tests.
void apply_environment(LlmConfig& config,
                       const std::function<const char*(const char*)>& getenv = nullptr);
// True when the environment names an endpoint (OPENAI_BASE_URL is set and not empty).
bool environment_names_endpoint(const std::function<const char*(const char*)>& getenv = nullptr);

}  // namespace probity::llm
