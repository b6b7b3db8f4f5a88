#pragma once
// LLM realisations of the twelve SPEC §5 strategies: one versioned prompt each
// (prompts/perturb_<kind>_<code>.v1.txt), asked of the `perturber` role of the LLM session.
// Registered as code "llm-<code>" and name "llm-<name>" next to the rule-based strategies; an
// answer that fails or stays unparseable after re-asking is kFailed, never a no-op.
#include "probity/perturb.hpp"

namespace probity::perturb {

// Adds an LLM strategy for each rule-based one of the global registry to `registry` (the global
// one for the command line, a local one in tests), once: later calls do nothing. Creating one
// throws UsageError when no LLM session is installed.
void register_llm_strategies(PerturbationRegistry& registry);

// The registry names of the LLM strategies for command-line names: "all" → every LLM code of
// the kind, "R" or "sentence-deletion" → "llm-R" / "llm-sentence-deletion".
std::vector<std::string> llm_strategy_names(StrategyKind kind,
                                            const std::vector<std::string>& names);

}  // namespace probity::perturb
