#pragma once
// Autoregression from an LLM's prompt log-probabilities (mechanism `ar` with llm=lm):
//   log r̂(x, y) = log p(y | prefix(x)) − log p(y | prefix()),
// each the sum of the log-probabilities of y's tokens in one completion request that echoes the
// prompt (echo + logprobs ≥ 1, max_tokens 1) or, with prompt_logprobs=true, vLLM's
// prompt_logprobs.
//
// y's tokens are found from token ids, not from a token count of the prefix: BPE and
// SentencePiece tokenizers merge the prefix's trailing space into y's first token, and the token
// that holds y's first character belongs to y. With the server's /tokenize (vLLM, SGLang) the
// prompt is sent as the ids of prefix + y (BOS included) and y starts at the first position where
// they differ from the prefix's ids. Without it (hosted legacy completions) the echoed tokens'
// texts are aligned with the prompt (BOS text, byte-fallback pieces, "bytes:" escapes and
// SentencePiece's dropped spaces handled). Servers that return no prompt log-probabilities
// (llama.cpp server refuses echo or answers it for the generated tokens only, Ollama ignores it,
// OpenAI chat models) are rejected with an error naming the limitation, found by one probe
// completion before any other request (no /tokenize, no batch is sent to such a server).
#include <cstdint>
#include <memory>
#include <mutex>
#include <optional>
#include <string>
#include <unordered_map>
#include <vector>

#include "llm/prompts.hpp"
#include "llm/session.hpp"
#include "probity/mi.hpp"

namespace probity::predict {

struct LlmLmOptions {
  std::string role = "lm";
  bool prompt_logprobs = false;  // vLLM prompt_logprobs instead of echo + logprobs
  std::string prompts_dir;
};

class LlmLm final : public mi::Predictor {
 public:
  LlmLm(LlmLmOptions options, std::shared_ptr<llm::Session> session);

  std::string signature() const override;
  void fit(std::span<const Task>, bool) override {}  // the model is pretrained
  double log_ratio(std::string_view x, std::string_view y) const override;
  // Autoregression has no yes/no answer: PMI > 0 counts as support.
  int critic(std::string_view x, std::string_view y) const override {
    return log_ratio(x, y) > 0 ? 1 : -1;
  }
  void prefetch(std::span<const mi::TargetGroup> groups, bool critic) const override;
  bool fallible() const override { return true; }

  // log p(y | prefix): the sum over y's tokens, memoized. Throws mi::PredictionError.
  double log_prob(const std::string& prefix, std::string_view y) const;

 private:
  struct Result {
    bool ok = false;
    double value = 0;
    std::string error;
  };
  std::string conditional_prefix(std::string_view x) const;
  // Scores every (prefix, y) not yet known in one batch.
  void score(const std::vector<std::pair<std::string, std::string>>& pairs) const;
  // Token ids (BOS included) of every text not yet known, through /tokenize in one batch.
  // Returns false when the server has no usable /tokenize (then texts are aligned instead).
  bool tokenize(const std::vector<std::string>& texts) const;
  [[noreturn]] void no_prompt_logprobs(const std::string& detail) const;
  // One completion of `text` asked as the batch will be: throws (UsageError) when the answer
  // shows that the server does not score prompts. Once per run; a transient failure leaves it
  // unknown (the next batch probes again).
  void check_prompt_scoring(const std::string& text) const;
  llm::Request completion(const std::string& text, bool by_ids) const;

  LlmLmOptions options_;
  std::shared_ptr<llm::Session> session_;
  llm::Client* client_;
  llm::PromptTemplate conditional_, unconditional_;
  mutable std::mutex mutex_;
  mutable std::unordered_map<std::string, Result> memo_;  // prefix \x1f y → log p
  mutable std::unordered_map<std::string, std::vector<std::int64_t>> ids_;  // text → its ids
  mutable std::optional<bool> tokenize_works_;  // unknown until the first /tokenize answer
  // Whether the server scores prompts: unknown until the probe; then "" (it does) or what it did
  // instead. Its own mutex: concurrent batches wait for one probe.
  mutable std::mutex probe_mutex_;
  mutable std::optional<std::string> prompt_scoring_;
};

namespace detail {

// The index of y's first token given the ids of the prefix and of prefix + y (both with BOS): the
// first position where they differ, since the token holding y's first character belongs to y.
std::size_t target_start_by_ids(const std::vector<std::int64_t>& prefix_ids,
                                const std::vector<std::int64_t>& full_ids);

// The index of y's first token among a prompt's echoed tokens, from their texts: each token is
// placed in `prompt` (a leading special token such as "<|begin_of_text|>" or "<s>" takes no
// room; tokens that are "" or hold U+FFFD stand for pieces of a character split across tokens,
// or for SentencePiece's "▁"; OpenAI's "bytes:\xNN" tokens are decoded; whitespace a token's text
// lacks, as SentencePiece decodes it, belongs to that token). y starts at the first token that
// covers a byte at or after `prefix_bytes`; `exact` is false when the prefix ends among pieces
// whose widths the texts do not give (then `index` is a guess). nullopt with `error` when the
// texts do not spell the prompt.
struct TextStart {
  std::size_t index = 0;
  bool exact = true;
};
std::optional<TextStart> target_start_by_text(const std::vector<std::string>& token_texts,
                                              std::string_view prompt, std::size_t prefix_bytes,
                                              std::string& error);

}  // namespace detail

}  // namespace probity::predict
