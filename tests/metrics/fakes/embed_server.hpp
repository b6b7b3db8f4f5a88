#pragma once
// Contract fakes of the embedding servers behind BERTScore's server provider: Hugging Face
// text-embeddings-inference (/tokenize, /embed_all, /info) and vLLM's pooling API (/tokenize,
// /pooling, /v1/models). Each answers as that server's source does (routes, fields read,
// ignored or rejected, error bodies and statuses, response shapes); the evidence, with files and
// commits, is tests/metrics/fakes/SOURCES.md. Nothing here is shaped to agree with probity.
//
// Tokenizers: "roberta" = real roberta-large ids of a few texts
// (tests/metrics/fixtures/roberta_tokens.json, with <s>=0 and </s>=2); "golden" = the whitespace
// tokenizer and 6-dimensional vector table of bert_score's goldens
// (tests/golden/bertscore/bertscore.jsonl: [CLS]=1 ... [SEP]=2). A text the tokenizer does not
// know is an HTTP 500 naming it. Vectors are per token id (fake_vector), so a test can compute
// the expected scores without the server.
#include <cstddef>
#include <cstdint>
#include <functional>
#include <map>
#include <memory>
#include <mutex>
#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <thread>
#include <vector>

namespace httplib {
class Server;
}

namespace probity::test {

enum class EmbedFlavour { kTei, kVllm };

struct EmbedReply {
  int status = 200;
  std::string body;
  std::string content_type = "application/json";
  std::map<std::string, std::string> headers;
};

struct EmbedFakeOptions {
  EmbedFlavour flavour = EmbedFlavour::kTei;
  std::string tokenizer = "roberta";       // "roberta" or "golden"
  std::string model = "roberta-large";     // vLLM answers 404 for another `model`
  std::size_t max_input_length = 512;      // TEI --max-input-length; vLLM max_model_len
  std::size_t max_client_batch_size = 32;  // TEI --max-client-batch-size
  std::size_t payload_limit = 2000000;     // TEI --payload-limit (bytes of a request body)
  bool auto_truncate = true;               // TEI --auto-truncate (the default since 1.6)
  // vLLM: the served model supports the token_embed pooling task.
  bool token_embed = true;
  // Injected failures: called before a request is handled with its path and the number of
  // earlier requests to that path; a reply replaces the server's answer.
  std::function<std::optional<EmbedReply>(const std::string& path, std::size_t nth)> fault;
};

struct EmbedCall {
  std::string path;
  std::string body;
  int status = 0;
};

class EmbedServer {
 public:
  explicit EmbedServer(EmbedFakeOptions options);
  ~EmbedServer();
  EmbedServer(const EmbedServer&) = delete;
  EmbedServer& operator=(const EmbedServer&) = delete;

  std::string url() const;  // http://127.0.0.1:<port>
  std::vector<EmbedCall> calls() const;
  std::size_t count(const std::string& path = "") const;

 private:
  EmbedReply handle(const std::string& method, const std::string& path, const std::string& body);
  EmbedReply tei(const std::string& path, const std::string& body);
  EmbedReply vllm(const std::string& path, const std::string& body);

  EmbedFakeOptions options_;
  std::unique_ptr<httplib::Server> server_;
  std::thread thread_;
  int port_ = 0;
  mutable std::mutex mutex_;
  std::vector<EmbedCall> calls_;
};

// TEI's error body: {"error": message, "error_type": type} (ErrorResponse, router/src/lib.rs).
EmbedReply tei_error(int status, const std::string& type, const std::string& message);
// vLLM's error body: {"error": {"message", "type", "param", "code"}}.
EmbedReply vllm_error(int status, const std::string& type, const std::string& message);

// A text's token ids with the tokenizer's special tokens, and which of them are special.
struct FakeTokens {
  std::vector<std::int64_t> ids;
  std::vector<bool> special;
  std::vector<std::string> texts;  // TEI's SimpleToken.text
  std::vector<std::optional<std::pair<std::size_t, std::size_t>>> offsets;  // byte start/stop
};
// Throws std::runtime_error naming a text the tokenizer does not know.
FakeTokens fake_tokenize(const std::string& tokenizer, const std::string& text,
                         bool add_special_tokens = true);
// The vector the fakes give token `id`: the golden table's row, or for "roberta" 8 numbers
// (float32 values) from FNV-1a of (id, k).
std::vector<double> fake_vector(const std::string& tokenizer, std::int64_t id);

}  // namespace probity::test
