#pragma once
// The LLM oracle (Xu et al. 2025, §4): an OpenAI-compatible model asked, through versioned prompt
// templates, the binary critic question ("does x support statement ψ?" / "do x and y describe
// the same item?") → ±1, or the 7-level ordinal support judgment k ∈ {−3..3} → log r̂ = k·ln 2.
//
// Answers are memoized per (question, x, y). prefetch() sends every pair of an item in one
// Client::run batch (the client runs them concurrently); with batch=true all statements of one
// reference go into a single prompt answered by a JSON list, cutting calls about K-fold. A pair
// whose answer failed or stayed unparseable after re-asking throws mi::PredictionError: the
// metric value is undefined for that item, never a default.
#include <cstddef>
#include <map>
#include <memory>
#include <mutex>
#include <string>
#include <unordered_map>

#include "llm/prompts.hpp"
#include "llm/session.hpp"
#include "llm/structured.hpp"
#include "probity/mi.hpp"

namespace probity::predict {

struct LlmOracleOptions {
  std::string role = "oracle";    // configuration role of the endpoint
  bool batch = true;              // statements of one reference in one prompt
  int reasks = 2;                 // re-asks of an unparseable answer
  std::string prompts_dir;        // "" = the compiled-in prompts/ directory
  bool statement_targets = true;  // targets are statements (else whole references)
};

class LlmOracle final : public mi::Predictor {
 public:
  // Takes the role's client from the session now (UsageError when the role has no endpoint).
  LlmOracle(LlmOracleOptions options, std::shared_ptr<llm::Session> session);

  std::string signature() const override;
  void fit(std::span<const Task> tasks, bool statement_targets) override;
  double log_ratio(std::string_view x, std::string_view y) const override;
  int critic(std::string_view x, std::string_view y) const override;
  void prefetch(std::span<const mi::TargetGroup> groups, bool critic) const override;
  bool fallible() const override { return true; }

  // Pairs whose answer failed, by reason (the first line of the error).
  std::map<std::string, std::size_t> failures() const { return failures_.by_reason(); }
  std::size_t failure_count() const { return failures_.total(); }

 private:
  struct Result {
    bool ok = false;
    int value = 0;  // critic ±1, or ordinal level
    std::string error;
  };
  const Result& lookup(bool critic, std::string_view x, std::string_view y) const;
  static std::string key(bool critic, std::string_view x, std::string_view y);

  LlmOracleOptions options_;
  std::shared_ptr<llm::Session> session_;
  llm::Client* client_;
  llm::PromptTemplate critic_statement_, critic_report_, ordinal_, batch_statements_,
      batch_ordinal_;
  mutable std::mutex mutex_;
  // Node-based: references handed out by lookup() stay valid while other threads insert.
  mutable std::unordered_map<std::string, Result> memo_;
  mutable llm::FailureTally failures_;
};

}  // namespace probity::predict
