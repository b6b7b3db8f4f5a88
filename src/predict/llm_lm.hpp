#pragma once
// Autoregression from an LLM's prompt log-probabilities (mechanism `ar` with llm=lm):
//   log r̂(x, y) = log p(y | prefix(x)) − log p(y | prefix()),
// each the sum of the log-probabilities of y's tokens in one completion request that echoes the
// prompt (echo + logprobs, max_tokens 1) or, with prompt_logprobs=true, vLLM's prompt_logprobs.
// y's token span starts after the prefix: its token count comes from the server's /tokenize
// when available, else from the echoed tokens' texts (non-space characters of the prefix).
// Servers that return no prompt log-probabilities (llama.cpp server, OpenAI chat models) are
// rejected with an error naming the limitation.
#include <memory>
#include <mutex>
#include <string>
#include <unordered_map>

#include "llm/prompts.hpp"
#include "llm/session.hpp"
#include "llm/structured.hpp"
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

  LlmLmOptions options_;
  std::shared_ptr<llm::Session> session_;
  llm::Client* client_;
  llm::PromptTemplate conditional_, unconditional_;
  mutable std::mutex mutex_;
  mutable std::unordered_map<std::string, Result> memo_;          // prefix \x1f y → log p
  mutable std::unordered_map<std::string, std::size_t> lengths_;  // prefix → its token count
  mutable bool tokenize_works_ = true;
};

}  // namespace probity::predict
