#pragma once
// The LLM attacker of `probity attack --strategy llm` and the information
// guards that every proposed rewrite must pass before it is scored.
//
// The attacker (LLM role `attacker`, prompts/attack_rewrite.v1.txt) sees the candidate, its
// score and the best earlier tries with their scores (never the reference or the source), and is
// told to add no information. A guard then judges each rewrite against the original:
// - "support" (offline): the rewrite passes when each of its sentences is supported by the
//   original (SupportJudge::support at least the judge's calibrated critic threshold, the judge
//   fitted on the dataset), or is content-free: it adds no word outside the original (by Porter
//   stem), the function words and the generic phrases of the edit operators, and no negator or
//   number the original lacks. Conservative: an unfamiliar generic remark is rejected too.
// - "llm" (role `guard`, prompts/attack_guard.v1.txt): the model answers whether the rewrite
//   states a fact or claim the original does not.
// A rejected rewrite is counted and discarded, never scored; a guard answer that failed is
// counted and the rewrite discarded too.
#include <cstddef>
#include <cstdint>
#include <memory>
#include <span>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "probity/dataset.hpp"

namespace probity::llm {
class Session;
}

namespace probity::attack {

struct GuardVerdict {
  bool passed = false;
  bool failed = false;  // no verdict (the guard's answer failed); the rewrite is discarded
  std::string reason;   // why it was rejected or failed
};

class InformationGuard {
 public:
  virtual ~InformationGuard() = default;
  virtual std::string name() const = 0;  // "support" or "llm"
  virtual std::string signature() const = 0;
  // One verdict per (original, rewrite) pair, in order; an LLM guard asks them in one batch.
  virtual std::vector<GuardVerdict> check(
      std::span<const std::pair<std::string, std::string>> pairs) const = 0;
};

// "support" (fitted on `tasks` with `seed`) or "llm" (needs `session`). UsageError otherwise.
std::unique_ptr<InformationGuard> make_guard(std::string_view name, std::span<const Task> tasks,
                                             std::uint64_t seed,
                                             std::shared_ptr<llm::Session> session);

// One request to the attacker: the candidate, its score and earlier tries (best first).
struct AttackerQuery {
  std::string original;
  double original_score = 0;
  std::vector<std::pair<std::string, double>> tried;
  std::size_t count = 4;  // rewrites asked for
  std::int64_t seed = 0;  // generation seed (reproducible, distinct per item and round)
};

struct AttackerAnswer {
  bool ok = false;
  bool unparseable = false;  // failed: the answers, not the request (still unusable after re-asks)
  std::vector<std::string> rewrites;
  std::string error;
};

class LlmAttacker {
 public:
  explicit LlmAttacker(std::shared_ptr<llm::Session> session);
  std::string signature() const;
  // Every query in one structured batch (re-asked when the answer does not parse).
  std::vector<AttackerAnswer> propose(const std::vector<AttackerQuery>& queries) const;

 private:
  struct Impl;
  std::shared_ptr<Impl> impl_;
};

}  // namespace probity::attack
