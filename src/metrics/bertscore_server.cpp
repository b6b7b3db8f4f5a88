// BERTScore's server provider: per-token hidden states from Hugging Face
// text-embeddings-inference (embed=tei:URL) or vLLM's pooling API (embed=vllm:URL), asked through
// the LLM client (concurrency, retries with backoff, 429 and Retry-After, the response cache,
// accounting and the circuit breaker), not an HTTP stack of its own.
//
// What each server is sent and answers (read in their source, 2026-12; see
// tests/metrics/fakes/SOURCES.md for the commits):
//
// TEI 1.9 (huggingface/text-embeddings-inference, router/src/http/types.rs, server.rs):
//   POST /tokenize  {"inputs": str, "add_special_tokens": true}
//     -> [[{"id": u32, "text", "special": bool, "start", "stop"}, ...]]   (one list per input)
//   POST /embed_all {"inputs": str, "truncate": false}
//     -> [[[f32, ...] per token of the model input, special tokens included] per input]
//   `truncate` is Option<bool> and defaults to the server's --auto-truncate (true since 1.6), so
//   it is always sent: a text longer than --max-input-length is then HTTP 422 ("`inputs` must
//   have less than N tokens"), counted as a failure, where bert_score would cut it at 510 tokens.
//   /tokenize never truncates, so with truncation the two answers would not align.
//   Errors: {"error": str, "error_type": "Validation"|"Tokenizer"|"Empty"|"Overloaded"|
//   "Backend"|"Unhealthy"} with 422, 422, 400, 429, 424, 503; an empty input is 400 (Empty), so
//   an empty text is never sent (below). Unknown request fields are ignored (serde without
//   deny_unknown_fields). One input per request: a batch fails as a whole when one input is
//   invalid, and a per-text request is a per-text cache entry; TEI batches concurrent requests
//   on the GPU itself, so nothing is lost.
//
// vLLM (vllm-project/vllm; vllm/entrypoints/pooling/pooling/protocol.py PoolingCompletionRequest
// and PoolingResponse, pooling/serving.py ServingPooling; vllm/tasks.py PoolingTask;
// entrypoints/serve/tokenize: TokenizeCompletionRequest / TokenizeResponse):
//   POST /tokenize {"model", "prompt": str, "add_special_tokens": true|false}
//     -> {"count", "max_model_len", "tokens": [int], "token_strs": null}
//   POST /pooling  {"model", "input": str, "task": "token_embed", "add_special_tokens": true}
//     -> {"id", "object": "list", "created", "model", "data": [{"index": 0, "object": "pooling",
//         "data": [[float, ...] per prompt token]}], "usage"}
//   `task: token_embed` exists since the pooling tasks were split (v0.10/0.11); a server whose
//   model does not support it answers 400 "Unsupported task". Unknown fields are ignored
//   (OpenAIBaseModel, extra="allow"); the model name is checked (404 for another one).
//   /tokenize returns no special flags: the text is tokenized with and without
//   add_special_tokens, and the ids the tokenizer added are the special ones — the positions
//   outside the first place where the ids without specials occur as a run inside the ids with
//   them (<s> ... </s> for RoBERTa, [CLS] ... [SEP] for BERT). A text whose two tokenizations do
//   not align that way is a malformed answer (counted as a failure).
//
// As bert_score's sent_encode: the text is stripped (Python str.strip); an empty text is its
// tokenizer's special tokens alone (build_inputs_with_special_tokens([])), taken from another
// text's tokenization (its leading and trailing special tokens), never sent; with prefix_space
// the stripped text is sent with a space before it (add_prefix_space=True for GPT-2/RoBERTa).
#include <fmt/format.h>

#include <algorithm>
#include <map>
#include <mutex>
#include <nlohmann/json.hpp>
#include <optional>
#include <unordered_map>

#include "llm/session.hpp"
#include "metrics/bertscore.hpp"
#include "probity/error.hpp"
#include "probity/signature.hpp"
#include "text/python_space.hpp"
#include "util/json_limits.hpp"

namespace probity::metrics::bertscore {
namespace {

using nlohmann::json;

std::string prefix(const std::string& s, std::size_t n = 160) {
  return s.size() <= n ? s : s.substr(0, n) + "...";
}

// A failure of one text.
struct Failure {
  llm::ErrorKind kind = llm::ErrorKind::kMalformed;
  std::string message;
};

// One text's answer: its embedding or why there is none.
struct Entry {
  std::optional<EmbeddedText> text;
  Failure failure;
};

struct Malformed : std::runtime_error {
  using std::runtime_error::runtime_error;
};

// Rows of numbers, all of one positive width: the vectors of one text.
void read_rows(const json& rows, EmbeddedText& out, const char* where) {
  if (!rows.is_array()) throw Malformed(fmt::format("{}: the vectors are not a list", where));
  out.dim = 0;
  out.vectors.clear();
  for (const auto& row : rows) {
    if (!row.is_array() || row.empty())
      throw Malformed(fmt::format("{}: a token's vector is not a non-empty list", where));
    if (out.dim == 0) out.dim = row.size();
    if (row.size() != out.dim)
      throw Malformed(
          fmt::format("{}: token vectors of {} and {} numbers", where, out.dim, row.size()));
    for (const auto& v : row) {
      if (!v.is_number()) throw Malformed(fmt::format("{}: a vector holds a non-number", where));
      out.vectors.push_back(v.get<double>());
    }
  }
}

class ServerEmbedder final : public Embedder {
 public:
  ServerEmbedder(ServerOptions o, std::shared_ptr<llm::Session> session,
                 std::unique_ptr<llm::Client> own, llm::Client* client)
      : o_(std::move(o)), session_(std::move(session)), own_(std::move(own)), client_(client) {}

  std::string signature() const override {
    Signature s("");
    s.field("embed", o_.provider);
    s.field("model", o_.model);
    s.field("layer", o_.layer >= 0 ? std::to_string(o_.layer) : std::string("unstated"));
    s.field("prefix-space", o_.prefix_space ? "yes" : "no");
    s.field("truncate", "no");
    // The published English BERTScore: roberta-large, layer 17, bert_score's RoBERTa encoding
    // (prefix space). Model and layer are the user's statement; the server cannot show them.
    if (!(o_.model == "roberta-large" && o_.layer == 17 && o_.prefix_space))
      s.field("not", "published-bertscore-model");
    return s.format();
  }

  std::size_t batch_items() const override { return o_.batch_items; }
  bool can_fail() const override { return true; }

  EmbeddedText embed(std::string_view text) const override {
    const std::string key = wire_text(text);
    std::shared_ptr<const Entry> entry;
    {
      std::lock_guard lock(mutex_);
      if (auto it = memo_.find(key); it != memo_.end()) entry = it->second;
    }
    if (!entry) entry = fetch({key}).at(key);
    if (!entry->text)
      throw EmbedError(static_cast<int>(entry->failure.kind), entry->failure.message);
    return *entry->text;
  }

  // The texts of one chunk in one batch of requests; embed() then takes them from the memo,
  // which holds one chunk at a time (a dataset's vectors would not fit in memory).
  void prefetch(std::span<const std::string_view> texts) const override {
    std::vector<std::string> keys;
    keys.reserve(texts.size());
    for (std::string_view t : texts) keys.push_back(wire_text(t));
    auto fetched = fetch(keys);
    std::lock_guard lock(mutex_);
    memo_ = std::move(fetched);
  }

 private:
  using Memo = std::unordered_map<std::string, std::shared_ptr<const Entry>>;

  // The text as it goes to the server; "" for an empty one.
  std::string wire_text(std::string_view text) const {
    const std::string_view stripped = text::python_strip(text);
    if (stripped.empty()) return "";
    return (o_.prefix_space ? " " : "") + std::string(stripped);
  }

  static llm::Request json_request(std::string path, const json& body) {
    llm::Request r;
    r.endpoint = llm::Endpoint::kJson;
    r.path = std::move(path);
    r.body = body.dump(-1, ' ', false, json::error_handler_t::replace);
    return r;
  }

  // The requests of one text, in the order read_answers() takes them.
  std::vector<llm::Request> requests_for(const std::string& text) const {
    if (o_.provider == "tei")
      return {json_request("/tokenize", {{"inputs", text}, {"add_special_tokens", true}}),
              json_request("/embed_all", {{"inputs", text}, {"truncate", false}})};
    return {json_request("/tokenize",
                         {{"model", o_.model}, {"prompt", text}, {"add_special_tokens", true}}),
            json_request("/tokenize",
                         {{"model", o_.model}, {"prompt", text}, {"add_special_tokens", false}}),
            json_request("/pooling", {{"model", o_.model},
                                      {"input", text},
                                      {"task", "token_embed"},
                                      {"add_special_tokens", true}})};
  }

  // Token ids and special flags from TEI's /tokenize answer.
  static void read_tei_tokens(const json& j, EmbeddedText& out) {
    if (!j.is_array() || j.size() != 1 || !j[0].is_array())
      throw Malformed("/tokenize: expected one list of tokens for the one input");
    for (const auto& t : j[0]) {
      if (!t.is_object() || !t.contains("id") || !t["id"].is_number_integer() ||
          !t.contains("special") || !t["special"].is_boolean())
        throw Malformed("/tokenize: a token without an integer 'id' and a boolean 'special'");
      out.tokens.push_back(std::to_string(t["id"].get<std::int64_t>()));
      out.special.push_back(t["special"].get<bool>() ? 1 : 0);
    }
  }

  static std::vector<std::int64_t> read_vllm_ids(const json& j) {
    if (!j.is_object() || !j.contains("tokens") || !j["tokens"].is_array())
      throw Malformed("/tokenize: no 'tokens' list");
    std::vector<std::int64_t> ids;
    for (const auto& v : j["tokens"]) {
      if (!v.is_number_integer()) throw Malformed("/tokenize: a token id is not an integer");
      ids.push_back(v.get<std::int64_t>());
    }
    return ids;
  }

  // The ids with special tokens, flagged where they are not the text's own (see the top).
  static void mark_specials(const std::vector<std::int64_t>& with,
                            const std::vector<std::int64_t>& without, EmbeddedText& out) {
    std::optional<std::size_t> at;
    if (without.size() <= with.size())
      for (std::size_t o = 0; o + without.size() <= with.size() && !at; ++o)
        if (std::equal(without.begin(), without.end(),
                       with.begin() + static_cast<std::ptrdiff_t>(o)))
          at = o;
    if (!at)
      throw Malformed(
          fmt::format("/tokenize: the {} ids without special tokens are not a run of the {} ids "
                      "with them, so the special tokens cannot be told apart",
                      without.size(), with.size()));
    for (std::size_t i = 0; i < with.size(); ++i) {
      out.tokens.push_back(std::to_string(with[i]));
      out.special.push_back(i < *at || i >= *at + without.size() ? 1 : 0);
    }
  }

  // One text from its answers (all ok).
  EmbeddedText read_answers(std::span<const llm::Response> r) const {
    EmbeddedText out;
    if (o_.provider == "tei") {
      read_tei_tokens(util::parse_json(r[0].body), out);
      const json e = util::parse_json(r[1].body);
      if (!e.is_array() || e.size() != 1)
        throw Malformed("/embed_all: expected one list of token vectors for the one input");
      read_rows(e[0], out, "/embed_all");
    } else {
      mark_specials(read_vllm_ids(util::parse_json(r[0].body)),
                    read_vllm_ids(util::parse_json(r[1].body)), out);
      const json p = util::parse_json(r[2].body);
      if (!p.is_object() || !p.contains("data") || !p["data"].is_array() || p["data"].size() != 1 ||
          !p["data"][0].is_object() || !p["data"][0].contains("data"))
        throw Malformed("/pooling: expected 'data' with one item for the one input");
      const json& rows = p["data"][0]["data"];
      if (rows.is_string())
        throw Malformed("/pooling: base64 data (encoding_format float was not honoured)");
      if (rows.is_array() && !rows.empty() && rows[0].is_number())
        throw Malformed(
            "/pooling: one pooled vector, not one per token (the server's pooling task is not "
            "token_embed)");
      read_rows(rows, out, "/pooling");
    }
    if (out.vectors.size() != out.tokens.size() * out.dim)
      throw Malformed(fmt::format("{} token vectors for {} tokens of /tokenize",
                                  out.dim == 0 ? 0 : out.vectors.size() / out.dim,
                                  out.tokens.size()));
    return out;
  }

  // The special tokens of an empty text, from a tokenized one: its leading and trailing
  // special tokens with their vectors (an empty text's P and R are 0 and its F is 0 whatever
  // they are: its weights sum to 0).
  static EmbeddedText specials_of(const EmbeddedText& t) {
    EmbeddedText out;
    out.dim = t.dim;
    std::size_t lead = 0;
    while (lead < t.size() && t.special[lead]) ++lead;
    std::size_t trail = t.size();
    while (trail > lead && t.special[trail - 1]) --trail;
    for (std::size_t i = 0; i < t.size(); ++i) {
      if (i >= lead && i < trail) continue;
      out.tokens.push_back(t.tokens[i]);
      out.special.push_back(1);
      out.vectors.insert(out.vectors.end(),
                         t.vectors.begin() + static_cast<std::ptrdiff_t>(i * t.dim),
                         t.vectors.begin() + static_cast<std::ptrdiff_t>((i + 1) * t.dim));
    }
    return out;
  }

  // Text used to learn the special tokens when a batch holds only empty texts.
  static constexpr const char* kProbe = "Hello world!";

  Memo fetch(const std::vector<std::string>& keys) const {
    Memo out;
    std::vector<std::string> todo;
    bool empty = false;
    for (const auto& k : keys) {
      if (k.empty()) {
        empty = true;
      } else if (!out.count(k)) {
        out.emplace(k, nullptr);
        todo.push_back(k);
      }
    }
    {
      std::lock_guard lock(mutex_);
      if (empty && !specials_ && todo.empty()) todo.push_back(wire_text(kProbe));
    }
    const std::size_t per = o_.provider == "tei" ? 2 : 3;
    std::vector<llm::Request> requests;
    requests.reserve(todo.size() * per);
    for (const auto& t : todo)
      for (auto& r : requests_for(t)) requests.push_back(std::move(r));
    const std::vector<llm::Response> answers =
        requests.empty() ? std::vector<llm::Response>() : client_->run(requests);
    for (std::size_t i = 0; i < todo.size(); ++i) {
      auto entry = std::make_shared<Entry>();
      const std::span<const llm::Response> r(answers.data() + i * per, per);
      const auto failed =
          std::find_if(r.begin(), r.end(), [](const llm::Response& a) { return !a.ok; });
      if (failed != r.end()) {
        entry->failure = {failed->error_kind, failed->error};
      } else {
        try {
          entry->text = read_answers(r);
        } catch (const Malformed& e) {
          entry->failure = {llm::ErrorKind::kMalformed,
                            fmt::format("{} (text: \"{}\")", e.what(), prefix(todo[i]))};
        } catch (const json::exception& e) {
          entry->failure = {
              llm::ErrorKind::kMalformed,
              fmt::format("unexpected answer: {} (text: \"{}\")", e.what(), prefix(todo[i]))};
        }
        if (entry->text) {
          std::lock_guard lock(mutex_);
          if (!specials_) specials_ = specials_of(*entry->text);
        }
      }
      if (!entry->text) count_malformed(entry->failure, !r.empty() && failed == r.end());
      out[todo[i]] = std::move(entry);
    }
    if (empty) {
      auto entry = std::make_shared<Entry>();
      std::lock_guard lock(mutex_);
      if (specials_) {
        entry->text = *specials_;
      } else {
        entry->failure = {llm::ErrorKind::kMalformed,
                          "an empty text is its tokenizer's special tokens, and no text could be "
                          "tokenized to learn them"};
      }
      out[""] = std::move(entry);
    }
    return out;
  }

  // Answers that were HTTP successes but not what the provider needs are counted with the
  // endpoint's failures (the client counted them as successes), so that the run's summary and
  // exit status show them.
  void count_malformed(const Failure& f, bool answered_ok) const {
    if (!answered_ok) return;
    llm::EndpointUsage delta;
    delta.failures["malformed"] = 1;
    delta.failure_examples["malformed"] = {f.message};
    client_->accounting().add(client_->config().name, client_->config().model, delta);
  }

  ServerOptions o_;
  std::shared_ptr<llm::Session> session_;  // keeps the client alive
  std::unique_ptr<llm::Client> own_;       // the client when there is no session
  llm::Client* client_;
  mutable std::mutex mutex_;
  mutable Memo memo_;
  mutable std::optional<EmbeddedText> specials_;
};

}  // namespace

std::unique_ptr<Embedder> make_server_embedder(const ServerOptions& options,
                                               std::shared_ptr<llm::Session> session,
                                               std::optional<llm::EndpointConfig> settings) {
  ServerOptions o = options;
  if (o.provider != "tei" && o.provider != "vllm")
    throw UsageError(fmt::format("embed={}: the server providers are tei and vllm", o.provider));
  while (!o.url.empty() && o.url.back() == '/') o.url.pop_back();
  if (o.provider == "vllm" && o.url.ends_with("/v1")) o.url.resize(o.url.size() - 3);
  if (!o.url.starts_with("http://") && !o.url.starts_with("https://"))
    throw UsageError(fmt::format("embed={}:{}: the server URL must start with http:// or https://",
                                 o.provider, o.url));
  if (o.model.empty())
    throw UsageError(fmt::format(
        "embed={}: model= must name the served model (e.g. model=roberta-large); it goes into "
        "the signature{}",
        o.provider, o.provider == "vllm" ? " and every request (vLLM checks it)" : ""));
  if (o.batch_items == 0) o.batch_items = 1;
  llm::EndpointConfig c;
  if (settings) {
    c = *settings;
  } else {
    // Larger answers than a chat's: 512 tokens x 1024 numbers as JSON are about 10 MB.
    c.max_response_bytes = 64u << 20;
    if (session && session->config().has_role("embedder"))
      session->config().roles.at("embedder").apply_to(c);
  }
  c.name = "embedder";
  c.base_url = o.url;
  c.model = o.model;
  if (session) {
    llm::Client& client = session->client(c);
    return std::make_unique<ServerEmbedder>(o, std::move(session), nullptr, &client);
  }
  auto own = std::make_unique<llm::Client>(c);
  llm::Client* client = own.get();
  return std::make_unique<ServerEmbedder>(o, nullptr, std::move(own), client);
}

}  // namespace probity::metrics::bertscore
