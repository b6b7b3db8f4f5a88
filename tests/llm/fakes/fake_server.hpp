#pragma once
// Contract fakes of real OpenAI-compatible servers (vLLM, SGLang, llama.cpp server, Ollama's /v1
// layer, hosted OpenAI chat / reasoning / legacy completions). Each flavour answers as that
// server's source code does (routes, accepted and rejected fields, error bodies and statuses,
// response shapes, BOS handling, how token strings and text offsets are produced); the evidence,
// with file and function names, is tests/llm/fakes/SOURCES.md. Unlike tests/llm/mock_server.*,
// nothing here is shaped to agree with probity.
//
// Prompts are tokenised with the committed real-tokenizer fixtures
// (tests/llm/fixtures/tokens/<tokenizer>.json); a text missing from the fixture gets an error that
// names it (and is appended to $PROBITY_FIXTURE_RECORD when that is set). Log-probabilities come
// from fake_logprob(), a table tests recompute.
//
// A fake can also replay a transcript recorded from a real server (FakeOptions::transcript,
// tests/llm/fakes/transcript.hpp); the llama.cpp flavour is pinned against such a recording.
#include <cstddef>
#include <cstdint>
#include <functional>
#include <map>
#include <memory>
#include <mutex>
#include <nlohmann/json.hpp>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <thread>
#include <vector>

#include "llm/fakes/transcript.hpp"

namespace httplib {
class Server;
}

namespace probity::test {

enum class Flavour {
  kVllm,
  kSglang,
  kLlamaCpp,
  kOllama,
  kOpenAiChat,               // hosted chat model (gpt-4o-mini)
  kOpenAiReasoning,          // hosted reasoning model (gpt-5, o-series)
  kOpenAiLegacyCompletions,  // hosted /v1/completions (davinci-002, gpt-3.5-turbo-instruct)
};

const char* flavour_name(Flavour flavour);

struct FakeOptions {
  Flavour flavour = Flavour::kVllm;
  std::string tokenizer = "llama3";  // fixture: llama3, llama2, cl100k, o200k
  // The served model. Requests naming another model get that server's unknown-model error where
  // the server checks (vLLM, Ollama, OpenAI); SGLang and llama.cpp do not check. OpenAI legacy
  // completions allow echo together with logprobs only for davinci-002 and babbage-002.
  std::string model = "fake-model";
  std::string api_key;  // when set, wrong/missing auth gets that server's 401 (not Ollama)
  // Ollama: num_ctx for its silent prompt truncation (0 = none). llama.cpp: a slot's context
  // (0 = kLlamaCppContext); longer prompts get its exceed_context_size_error. vLLM and SGLang:
  // max_model_len (0 = kMaxModelLen), enforced on prompt plus requested output.
  std::size_t context_tokens = 0;
  // llama.cpp: parallel slots (-np), the bound of `n` and the number of KV caches whose prompt
  // prefixes later requests reuse (usage.prompt_tokens_details.cached_tokens).
  std::size_t slots = 4;
  int rate_limit_every = 0;  // OpenAI flavours: every k-th generation request gets OpenAI's 429
  // false: only /v1 is reachable, as behind a gateway that forwards the OpenAI routes alone
  // (the root /tokenize answers 404).
  bool tokenize_route = true;
  std::function<std::string(const nlohmann::json& request)> reply;  // generated text ("ok")
  // Without `reply`, a request whose structured-output fields the server constrains decoding
  // with (request_schema) is answered with schema_reply(request), as a real server would;
  // false: "ok" regardless.
  bool structured_replies = true;
  std::size_t threads = 16;
  // Replay: a request that matches a recorded exchange (Transcript::serve) gets the recorded
  // status, body and headers. Any other request gets this flavour's own answer when
  // transcript_fallback is set, else a 500 in the flavour's error shape naming the request and
  // the closest recording; it is then appended to $PROBITY_TRANSCRIPT_RECORD when that is set
  // (one {"method","path","request"} line, for record_transcript.py send).
  std::shared_ptr<Transcript> transcript;
  bool transcript_fallback = false;

  // Batch APIs (tests/llm/fakes/fake_batch.cpp): OpenAI's Files + Batches (/v1/files,
  // /v1/batches) and Anthropic's Message Batches (/v1/messages/batches), whatever the flavour.
  // Every request of a batch is answered by this flavour's own /v1/chat/completions (or
  // /v1/completions) handler, so a batch answer equals the online one.
  bool batch_api = false;
  // GETs of a batch it spends in each status (OpenAI: validating, in_progress, finalizing;
  // Anthropic: in_progress) before moving on; its requests are answered in that many equal parts
  // while in progress. A cancelled batch ends on the next GET.
  int batch_polls_per_step = 1;
  std::size_t batch_max_requests = 50000;                        // OpenAI: requests per batch
  std::size_t batch_max_file_bytes = 200ull * 1024 * 1024;       // OpenAI: input file size
  std::size_t anthropic_batch_max_requests = 100000;             // Anthropic: requests per batch
  std::size_t anthropic_batch_max_bytes = 256ull * 1024 * 1024;  // Anthropic: request body
  // 1-based: this request of every batch fails with a server error (OpenAI: a 500 line in the
  // error file; Anthropic: an errored api_error result). 0 = none.
  std::size_t batch_fail_request = 0;
  // The batch expires after answering this many of its requests: OpenAI "expired" with the rest
  // as batch_expired lines in the error file, Anthropic "expired" results. nullopt = never.
  std::optional<std::size_t> batch_expire_after;
};

struct FakeState;
class BatchApi;

struct FakeCall {
  std::string path;
  std::string body;
  std::map<std::string, std::string> headers;
  int status = 0;
};

class FakeServer {
 public:
  explicit FakeServer(FakeOptions options);
  ~FakeServer();
  FakeServer(const FakeServer&) = delete;
  FakeServer& operator=(const FakeServer&) = delete;

  int port() const { return port_; }
  std::string root_url() const;  // http://127.0.0.1:<port>
  std::string base_url() const;  // root_url() + "/v1"
  const FakeOptions& options() const { return options_; }

  std::vector<FakeCall> calls() const;
  std::size_t count(std::string_view path = "") const;  // requests received ("" = any path)

  // vLLM's and SGLang's default max_model_len in this fake: Meta-Llama-3-8B's context, the model
  // of the llama3 tokenizer fixture (reported by /tokenize and /v1/models, enforced by both).
  static constexpr int kMaxModelLen = 8192;
  // Reasoning tokens an OpenAI reasoning model spends before its visible answer.
  static constexpr int kReasoningTokens = 64;
  // llama.cpp's slot context in this fake (the recorded server's 8192-token slots).
  static constexpr int kLlamaCppContext = 8192;

  struct Reply {
    int status = 200;
    std::string body;
    std::string content_type = "application/json";
    std::map<std::string, std::string> headers;
  };

  // The answer to one request without HTTP (not recorded in calls()): how the batch APIs and
  // vllm_run_batch() answer each of their requests, exactly as the online route would.
  Reply answer(const std::string& method, const std::string& path, const std::string& body,
               const std::map<std::string, std::string>& headers = {}) {
    return handle(method, path, body, headers);
  }

 private:
  Reply handle(const std::string& method, const std::string& path, const std::string& body,
               const std::map<std::string, std::string>& headers);

  FakeOptions options_;
  std::unique_ptr<httplib::Server> server_;
  std::thread thread_;
  int port_ = 0;
  mutable std::mutex mutex_;
  std::vector<FakeCall> calls_;
  int generation_requests_ = 0;
  std::unique_ptr<FakeState> state_;  // per-server state of a flavour (llama.cpp slots)
  std::unique_ptr<BatchApi> batch_;   // FakeOptions::batch_api
};

// The log-probability every fake gives token `token` after `context` (all ids before it, BOS
// included): h = FNV-1a 64 over the 8 little-endian bytes of each context id, then of the token;
// value = -0.25 - (h % 1000) / 100.0. fake_rank is 1 + (h / 1000) % 3.
double fake_logprob(std::span<const std::int64_t> context, std::int64_t token);
int fake_rank(std::span<const std::int64_t> context, std::int64_t token);

// The fixture tokenizer: ids (WITHOUT BOS), HF pieces, hex bytes within the text, byte offsets.
struct FixtureTokens {
  std::vector<std::int64_t> ids;
  std::vector<std::string> pieces;
  std::vector<std::string> bytes;
  std::vector<std::size_t> offsets;
  bool dummy_prefix = false;
};
// Throws std::runtime_error naming the text when it is not in the fixture (and records it).
const FixtureTokens& fixture_tokens(const std::string& tokenizer, const std::string& text);
std::optional<std::int64_t> fixture_bos(const std::string& tokenizer);
std::optional<std::int64_t> fixture_eos(const std::string& tokenizer);

// How a tokenizer decodes ids (HF semantics, as the Python servers call it):
// decode([id]) of one token, and decode(ids) of a sequence. Byte-level BPE decodes the bytes
// lossily (U+FFFD per maximal invalid subpart); SentencePiece maps "▁" to a space, byte-fallback
// runs that are not valid UTF-8 to one U+FFFD per byte token, and strips one leading space.
std::string fixture_decode_one(const std::string& tokenizer, std::int64_t id);
std::string fixture_decode(const std::string& tokenizer, std::span<const std::int64_t> ids,
                           bool skip_special_tokens = false);
std::string fixture_piece(const std::string& tokenizer, std::int64_t id);
std::string fixture_token_bytes(const std::string& tokenizer, std::int64_t id);  // raw bytes

// Structured output. The JSON Schema a request asks the server to follow: response_format
// json_schema (its json_schema.schema), json_object ({"type": "object"}), and for llama.cpp its
// own top-level json_schema; nullopt when there is none.
std::optional<nlohmann::json> request_schema(const nlohmann::json& request,
                                             Flavour flavour = Flavour::kVllm);
// A small deterministic instance of a JSON Schema: every listed property, the first enum or
// const value, the first anyOf/oneOf branch, minimum or maximum for numbers, minItems items
// (at least one when allowed), $ref into #/$defs or #/definitions. Enough for the schemas
// probity's builders make (llm/schema.hpp), not a general JSON Schema generator.
nlohmann::json schema_instance(const nlohmann::json& schema);
// schema_instance(request_schema(request, flavour)) as compact JSON text, for FakeOptions::reply.
std::optional<std::string> schema_reply(const nlohmann::json& request,
                                        Flavour flavour = Flavour::kVllm);

// Python's len() of a UTF-8 string (code points).
std::size_t code_points(std::string_view utf8);

}  // namespace probity::test
