#pragma once
// LLM realisations of the twelve strategies of Xu et al. 2025 (§5), asked of the `perturber` role
// of the LLM session. Two prompt versions:
// - v2 (default) follows the papers (Xu et al. 2025, Tables 1-2): deletion & completion fills gaps
// left
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

namespace probity::llm {
class Session;
}

namespace probity::perturb {

// Adds the LLM strategies (both versions, talking to `session`) for each rule-based one of
// `registry`, once: later calls do nothing.
void register_llm_strategies(PerturbationRegistry& registry, std::shared_ptr<llm::Session> session);

// "llm-D" (v2) or "llm-D@v1" for a rule-based code or name.
std::string llm_strategy_code(std::string_view rules_code, std::string_view version);
// False for the strategies the papers realise by rule (degradations R and S).
bool has_llm_realisation_v2(StrategyKind kind, std::string_view code);

// --perturber llm: each named strategy's LLM realisation (v2) where the papers' protocol has
// one, the rule-based strategy otherwise; "all" → every strategy of the kind.
std::vector<std::string> llm_strategy_names(StrategyKind kind,
                                            const std::vector<std::string>& names,
                                            const PerturbationRegistry& registry);

// A command-line name to the registry's: "llm:D" → "llm-D", "llm:D@v1" → "llm-D@v1", others
// unchanged. Throws UsageError for an unknown version or a strategy without a v2 realisation.
std::string canonical_strategy_name(StrategyKind kind, std::string_view name,
                                    const PerturbationRegistry& registry);

// One strategy by letter code or name (any case), llm:<code>[@v1] or llm-<code>[@v1]. Throws
// UsageError for an unknown name, and for an LLM strategy without a session.
std::unique_ptr<Perturbation> create_strategy(StrategyKind kind, std::string_view name,
                                              const PerturbationRegistry& registry);

// The strategies named on a command line, in order: letter codes and names (rules), "all",
// llm:<code>[@v1] (LLM: the registry has them when its engine has an LLM session). Throws
// UsageError for an unknown name, and for an LLM strategy without a session.
std::vector<std::unique_ptr<Perturbation>> create_strategies(StrategyKind kind,
                                                             const std::vector<std::string>& names,
                                                             const PerturbationRegistry& registry);

}  // namespace probity::perturb
