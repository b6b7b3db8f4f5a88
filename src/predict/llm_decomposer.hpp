#pragma once
// Statement decomposition Ψ(y) by an LLM, as the papers do it (Xu et al. 2025, App. C: references
// are decomposed into atomic claims with a dataset-specific prompt before the oracle scores
// candidate-statement pairs). One call per distinct text, all texts of a batch at once, answers
// parsed strictly ({"statements": [...]}, a non-empty list of non-empty strings), re-asked a
// bounded number of times, memoized; a text whose decomposition still fails makes the items
// that need it undefined.
#include <memory>
#include <mutex>
#include <string>
#include <unordered_map>

#include "llm/prompts.hpp"
#include "llm/session.hpp"
#include "probity/mi.hpp"

namespace probity::predict {

struct LlmDecomposerOptions {
  std::string role = "decomposer";
  // The template stem: decompose_statements.v1 (any text), decompose_summary.v1,
  // decompose_review.v1, decompose_answer.v1, or a file of one's own under `prompts_dir`.
  std::string prompt = "decompose_statements.v1";
  int reasks = 2;
  std::string prompts_dir;
};

class LlmDecomposer final : public mi::Decomposer {
 public:
  LlmDecomposer(LlmDecomposerOptions options, std::shared_ptr<llm::Session> session);
  std::string signature() const override;
  bool fallible() const override { return true; }
  std::vector<mi::Decomposition> decompose(std::span<const std::string> texts) const override;

 private:
  LlmDecomposerOptions options_;
  std::shared_ptr<llm::Session> session_;
  llm::Client* client_;
  llm::PromptTemplate prompt_;
  mutable std::mutex mutex_;
  mutable std::unordered_map<std::string, mi::Decomposition> memo_;
};

}  // namespace probity::predict
