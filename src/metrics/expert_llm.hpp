#pragma once
// ExPerT's four steps as prompted LLM calls (`expert,llm=<role>`; arXiv:2501.14956),
// on versioned templates: prompts/expert_extract.v1 (text → {"aspects": [{"title", "evidence"}]}),
// expert_match.v1 (an aspect and the numbered aspects of the other text → {"match": k | null,
// "rationale"}), expert_content.v1 (two aspects with their evidence) and expert_style.v1 (the two
// pieces of evidence only, as in the paper) → {"aligned": bool, "rationale"}.
//
// Every answer is parsed strictly (llm::parse_json_answer and the field helpers), re-asked up to
// `reasks` times with the parse error, and otherwise the step throws StepFailure: the item's score
// is undefined, never a default. Failures are counted by reason.
//
// Calls: the extraction of one text is one call (memoized per text, so a reference shared by
// several candidates is asked once, concurrent askers included); each matching and each judgment
// is one call. Answers are cached by the session's cache, so a re-run sends no request. The
// client is safe for concurrent run() calls, so ExpertMetric analyses a chunk of items on as many
// threads as the endpoint's concurrency (Metric::prefetch): that many requests are in flight.
#include <cstddef>
#include <future>
#include <map>
#include <memory>
#include <mutex>
#include <string>
#include <unordered_map>

#include "llm/prompts.hpp"
#include "llm/session.hpp"
#include "llm/structured.hpp"
#include "metrics/expert.hpp"

namespace probity::metrics::expert {

class LlmAspectJudge final : public AspectJudge {
 public:
  // Takes the role's client from the session now (UsageError when the role has no endpoint).
  LlmAspectJudge(LlmJudgeOptions options, std::shared_ptr<llm::Session> session);

  // Role, the client's signature (model, temperature, ...), re-asks, truncation and the SHA-256
  // prefix of every template.
  std::string signature() const override;
  void fit(std::span<const Task> tasks) override;  // nothing to learn
  std::vector<Aspect> extract(std::string_view text) const override;
  MatchDecision match(const Aspect& aspect, std::span<const Aspect> others) const override;
  Judgment content(const Aspect& a, const Aspect& b) const override;
  Judgment style(const Aspect& a, const Aspect& b) const override;
  bool model_backed() const override { return true; }
  std::size_t parallelism() const override { return client_->config().concurrency; }

  // Questions whose answer failed, by reason (the first line of the error).
  std::map<std::string, std::size_t> failures() const { return failures_.by_reason(); }
  std::size_t failure_count() const { return failures_.total(); }

 private:
  struct Extraction {
    bool ok = false;
    std::vector<Aspect> aspects;
    std::string error;
  };
  Extraction ask_extraction(const std::string& text) const;
  // One structured question; throws StepFailure (after counting it) when it failed.
  nlohmann::json ask(const std::string& prompt, const nlohmann::json& schema,
                     const llm::AnswerParser& parser) const;
  Judgment judgment(const llm::PromptTemplate& prompt,
                    const std::map<std::string, std::string>& values) const;

  LlmJudgeOptions options_;
  std::shared_ptr<llm::Session> session_;
  llm::Client* client_;
  llm::PromptTemplate extract_, match_, content_, style_;
  mutable std::mutex mutex_;
  mutable std::unordered_map<std::string, std::shared_future<Extraction>> extractions_;
  mutable llm::FailureTally failures_;
};

}  // namespace probity::metrics::expert
