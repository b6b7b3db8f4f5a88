#pragma once
// BERTScore (Zhang et al. 2020) as Tiiiger/bert_score computes it (bert_score/utils.py
// greedy_cos_idf, get_idf_dict; bert_score/score.py: multi-reference max, baseline rescaling),
// over token embeddings from a pluggable provider (Embedder). bertscore.cpp holds the metric.
#include <cstddef>
#include <memory>
#include <optional>
#include <span>
#include <stdexcept>
#include <string>
#include <string_view>
#include <unordered_map>
#include <vector>

#include "probity/dataset.hpp"
#include "probity/llm.hpp"

namespace probity::llm {
class Session;
}

namespace probity::metrics::bertscore {

// One text as its tokens' embeddings, in order. `special` marks [CLS]/[SEP]-like tokens: they
// take part in the matching (bert_score masks only padding) but weigh 0.
struct EmbeddedText {
  std::size_t dim = 0;
  std::vector<std::string> tokens;  // keys of the IDF table
  std::vector<char> special;        // 1 for a special token
  std::vector<double> vectors;      // tokens.size() x dim, row-major

  std::size_t size() const { return tokens.size(); }
  // True when the text has no token but special ones (bert_score: "empty sentence").
  bool empty_text() const;
};

struct Prf {
  double p = 0, r = 0, f = 0;
};

// greedy_cos_idf for one (hypothesis, reference) pair: cosine similarities of the
// L2-normalised vectors, each token's best match on the other side, weighted by its weight
// divided by the side's weight sum; F = 2PR/(P+R). An empty hypothesis or reference (no
// non-special token): P = R = 0. F is 0 when NaN. A NaN (0/0 weights, zero vectors) propagates
// to P/R as in torch. The weights are per token, in the texts' order.
Prf greedy_match(const EmbeddedText& hyp, std::span<const double> hyp_weights,
                 const EmbeddedText& ref, std::span<const double> ref_weights);

// get_idf_dict: over M reference documents, idf(t) = log((M+1)/(df(t)+1)) where df counts the
// documents holding t (each document's tokens as a set, special tokens included: they occur in
// every document, so their weight is 0); a token of no document weighs log(M+1).
class IdfTable {
 public:
  // One document `times` times (bert_score pairs every candidate with its references, so a
  // reference shared by C candidates is C documents).
  void add_document(const EmbeddedText& doc, double times = 1);
  double weight(const std::string& token) const;
  double documents() const { return documents_; }
  std::size_t size() const { return df_.size(); }
  // The table as bytes (tokens sorted, so equal tables give equal bytes) and back
  // (std::invalid_argument for bytes that are not a table).
  std::string save() const;
  static IdfTable load(std::string_view bytes);

 private:
  double documents_ = 0;
  std::unordered_map<std::string, double> df_;
};

// Weights of a text's tokens: 1 (0 for special tokens) without IDF, as score(idf=False).
std::vector<double> token_weights(const EmbeddedText& text, const IdfTable* idf);

// A baseline row of bert_score's rescale_baseline CSV ("LAYER,P,R,F" header, one row per
// layer): the row at position `layer` (pandas iloc), as float32 values as bert_score reads them
// (`.float()`). Throws std::invalid_argument for a malformed file or a missing row.
Prf read_baseline(const std::string& path, int layer);
// (x - b) / (1 - b) per part, 1 - b in float32 as bert_score's float32 baseline tensor gives it.
Prf rescale(const Prf& score, const Prf& baseline);

// Where token embeddings come from (metric option embed=).
class Embedder {
 public:
  virtual ~Embedder() = default;
  // Every choice that affects a vector, as a signature part.
  virtual std::string signature() const = 0;
  // Dataset-level preparation (training on the dataset's text). Default: nothing.
  virtual bool needs_fit() const { return false; }
  virtual void fit(std::span<const Task> /*tasks*/) {}
  // Freezing the fit (Metric::fit_method): the method ("" when nothing is fitted), the fitted
  // model as bytes, and its restoration in place of fit().
  virtual std::string fit_method() const { return {}; }
  virtual std::string save_fit() const { return {}; }
  virtual void load_fit(std::string_view /*bytes*/) {}
  // Thread-safe after fit().
  virtual EmbeddedText embed(std::string_view text) const = 0;
  // Asks ahead for texts embed() will be given (a server batches them); no value changes.
  virtual void prefetch(std::span<const std::string_view> /*texts*/) const {}
  // Items the metric announces at once through prefetch (Metric::batch_size); 0: none.
  virtual std::size_t batch_items() const { return 0; }
  // True when embed() may throw EmbedError (a server that failed for a text).
  virtual bool can_fail() const { return false; }
};

// A text a server provider could not embed: `kind` is the llm::ErrorKind of the failure (as an
// int, >= 1), what() the server's or the parser's message.
class EmbedError : public std::runtime_error {
 public:
  EmbedError(int kind, const std::string& message) : std::runtime_error(message), kind_(kind) {}
  int kind() const { return kind_; }

 private:
  int kind_;
};

// The tokenizer of the local providers: whitespace separates tokens, every ASCII punctuation
// character is a token of its own, optionally lowercased (Unicode lowercase).
std::vector<std::string> word_tokens(std::string_view text, bool lowercase);

// A word-vector file, memory-mapped: word2vec text or binary (header "<words> <dim>"), GloVe
// text (no header), fastText .vec (word2vec text). format: "text" or "binary"; "auto" = binary
// for a name ending ".bin", text otherwise. Tokens without a vector are left out; when the file
// holds vectors for "[CLS]" and "[SEP]", every text is wrapped in them as BERT's tokenizer does.
std::unique_ptr<Embedder> make_vector_file_embedder(const std::string& path,
                                                    const std::string& format, bool lowercase);

struct FastTextOptions {
  int dim = 100;
  int epoch = 10;
  int min_count = 1;
  int minn = 3, maxn = 6;
  int bucket = 200000;
  int seed = 1;
  bool lowercase = true;
  std::string cache_dir;  // "" : no cache
};
// Skip-gram vectors trained with libfasttext on the dataset's own text (references and
// candidates) at fit(), one thread, seeded; the model is cached in cache_dir under a hash of the
// training text and the options. Not the published BERTScore model.
std::unique_ptr<Embedder> make_fasttext_embedder(const FastTextOptions& options);
// A server computing the model's per-token hidden states (embed=tei:URL, embed=vllm:URL),
// asked through the LLM client (concurrency, retries, 429/Retry-After, the response cache,
// accounting). Per text: its token ids and special flags from the server's /tokenize, its
// vectors from TEI's /embed_all or vLLM's /pooling (task token_embed); bertscore_server.cpp.
struct ServerOptions {
  std::string provider;  // "tei" or "vllm"
  std::string url;       // the server's root (a trailing "/" or, for vLLM, "/v1" is dropped)
  std::string model;     // the model identity, as stated by the user (required)
  int layer = -1;        // the hidden layer the server returns, as stated; -1: not stated
  // Text as bert_score's sent_encode gives it to the tokenizer: stripped (Python str.strip);
  // with prefix_space a space is put before it (GPT-2/RoBERTa tokenizers, add_prefix_space).
  bool prefix_space = false;
  std::size_t batch_items = 64;  // items per prefetch batch
};
// `session` gives the response cache, the accounting and the client settings of its
// [llm.embedder] table (not [llm.default]: another server's key must not go to this one);
// without a session the provider has a client of its own, without a cache. `settings`, when
// given, replaces the [llm.embedder] settings (tests: fast retries); its base_url, model and
// name are set here. Throws UsageError for bad options.
std::unique_ptr<Embedder> make_server_embedder(
    const ServerOptions& options, std::shared_ptr<llm::Session> session,
    std::optional<llm::EndpointConfig> settings = std::nullopt);

// The cache directory used when none is given: $PROBITY_CACHE_DIR, else $XDG_CACHE_HOME/probity,
// else $HOME/.cache/probity; "" when none is set.
std::string default_cache_dir();

}  // namespace probity::metrics::bertscore
