#pragma once
// Degradation and manipulation strategies (Xu et al. 2025, §5): one interface, a registry keyed by
// kind and letter code or name, offline rule-based realisations (LLM realisations plug in later).
#include <cstdint>
#include <functional>
#include <memory>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "probity/dataset.hpp"

namespace probity {

enum class StrategyKind { kDegradation, kManipulation };

std::string_view kind_name(StrategyKind kind);  // "degradation" / "manipulation"

// The item to perturb. The dataset gives access to other tasks (random replacement) and to the
// task's source (surface report).
struct PerturbContext {
  const Dataset* dataset = nullptr;
  std::size_t task = 0;
  std::size_t candidate = 0;
  std::uint64_t seed = 0;

  const Task& task_ref() const { return dataset->tasks[task]; }
  const Candidate& candidate_ref() const { return task_ref().candidates[candidate]; }
};

struct PerturbResult {
  enum class Status {
    kApplied,        // text is the perturbed candidate
    kNotApplicable,  // the strategy cannot apply (no source, no other task in the group, ...)
    kUnchanged,      // applied but the text came out identical (e.g. nothing to flip)
    kFailed,         // an error (e.g. an LLM call that failed after retries)
  };
  Status status = Status::kApplied;
  std::string text;  // perturbed text when kApplied
  std::string note;  // why, when not applied
};

std::string_view status_name(PerturbResult::Status status);

// How the note of a strategy that does not apply to a task's language starts.
inline constexpr std::string_view kLanguageNote = "n/a (language)";
bool is_language_note(std::string_view note);

// The language of a task's texts, as an ISO 639-1 code: the primary subtag of its `lang` field
// ("de-AT" -> "de"), else detected from its references and candidates (text/language.hpp:
// script, then function-word profiles). Latin-script text with too few function words to tell
// counts as English (the rules' language before they had others); text in a script without a
// profile gives "und".
std::string task_language(const Task& task);

class Perturbation {
 public:
  virtual ~Perturbation() = default;
  virtual StrategyKind kind() const = 0;
  virtual std::string code() const = 0;  // letter code: "R", "S", "D", ...
  virtual std::string name() const = 0;  // "sentence-deletion"
  virtual std::string description() const = 0;
  // Every choice that affects the output (strategy, parameters, realisation, version).
  virtual std::string signature() const = 0;
  // The languages (ISO 639-1 codes) the strategy has rules or a lexicon for; empty: any language
  // (truncation, deletion, replacement). On a task in another language apply() returns
  // kNotApplicable with a note starting with kLanguageNote, never an English edit.
  virtual std::vector<std::string> languages() const { return {}; }
  // Deterministic for a given context (including seed); safe to call concurrently.
  virtual PerturbResult apply(const PerturbContext& context) const = 0;
  // True when apply_many() does better than apply() per item (model-backed strategies send
  // all their requests as one batch, in flight up to the client's concurrency).
  virtual bool batched() const { return false; }
  // The results of apply() for each context, in order. Default: apply() one after another.
  virtual std::vector<PerturbResult> apply_many(std::span<const PerturbContext> contexts) const {
    std::vector<PerturbResult> out;
    out.reserve(contexts.size());
    for (const auto& c : contexts) out.push_back(apply(c));
    return out;
  }
};

struct PerturbationInfo {
  StrategyKind kind;
  std::string code;
  std::string name;
  std::string description;
  std::function<std::unique_ptr<Perturbation>()> factory;
};

class PerturbationRegistry {
 public:
  // A registry with the rule-based strategies (each Engine holds one, with the LLM ones added
  // when it has an LLM session).
  static PerturbationRegistry builtin();
  void add(PerturbationInfo info);
  // By letter code or name within a kind; throws UsageError when unknown.
  std::unique_ptr<Perturbation> create(StrategyKind kind, std::string_view code_or_name) const;
  // Every strategy of a kind, in registration (paper) order.
  std::vector<const PerturbationInfo*> list(StrategyKind kind) const;
  // Strategies named on a command line: letter codes or names, or "all" (every rule-based
  // strategy of the kind); throws UsageError
  // listing the codes for an unknown one.
  std::vector<const PerturbationInfo*> resolve(StrategyKind kind,
                                               const std::vector<std::string>& names) const;

 private:
  std::vector<PerturbationInfo> infos_;
};

// A per-item seed derived from the run seed, the strategy and the item ids, so that results do
// not depend on processing order, sharding or thread count.
std::uint64_t item_seed(std::uint64_t seed, std::string_view strategy, std::string_view task_id,
                        std::string_view candidate_id);

}  // namespace probity
