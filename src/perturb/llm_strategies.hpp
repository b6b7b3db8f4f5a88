#pragma once
// LLM realisations of the twelve SPEC §5 strategies, asked of the `perturber` role of the LLM
// session. Two prompt versions:
// - v2 (default) follows the papers (seed 000 Tables 1-2): deletion & completion fills gaps left
//   by a rule-based deletion; the surface report sees only the task's weak context, never the
//   full source or the original answer; ultra-concise compression is capped at a tenth of the
//   words; rephrase may reorganise; opinion shifts move the stance, "strong" amplifies the
//   claims; meaningless elongation appends ONE filler written once per run. Random replacement
//   and sentence deletion have no v2 LLM realisation: the papers do them by rule.
// - v1 (prompts/perturb_<kind>_<code>.v1.txt), every strategy, to reproduce earlier runs.
// Registered as code "llm-<code>" (v2) and "llm-<code>@v1", names likewise; on the command line
// "llm:<code>" and "llm:<code>@v1". An answer that fails or stays unparseable after re-asking is
// kFailed, never a no-op.
#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "probity/perturb.hpp"

namespace probity::perturb {

// Adds the LLM strategies (both versions) for each rule-based one of the global registry to
// `registry`, once: later calls do nothing. Creating one throws UsageError when no LLM session is
// installed.
void register_llm_strategies(PerturbationRegistry& registry);

// "llm-D" (v2) or "llm-D@v1" for a rule-based code or name.
std::string llm_strategy_code(std::string_view rules_code, std::string_view version);
// False for the strategies the papers realise by rule (degradations R and S).
bool has_llm_realisation_v2(StrategyKind kind, std::string_view code);

// --perturber llm: each named strategy's LLM realisation (v2) where the papers' protocol has
// one, the rule-based strategy otherwise; "all" → every strategy of the kind.
std::vector<std::string> llm_strategy_names(StrategyKind kind,
                                            const std::vector<std::string>& names);

// A command-line name to the registry's: "llm:D" → "llm-D", "llm:D@v1" → "llm-D@v1", others
// unchanged. Throws UsageError for an unknown version or a strategy without a v2 realisation.
std::string canonical_strategy_name(StrategyKind kind, std::string_view name);

// The strategies named on a command line, in order: letter codes and names (rules), "all",
// llm:<code>[@v1] (LLM; registers the LLM strategies on first use). Throws UsageError for an
// unknown name.
std::vector<std::unique_ptr<Perturbation>> create_strategies(StrategyKind kind,
                                                             const std::vector<std::string>& names);

}  // namespace probity::perturb
