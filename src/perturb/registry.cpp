// The strategy registry: the rule-based strategies in paper order, looked up by kind and letter
// code or name.
#include <fmt/format.h>

#include "perturb/strategies.hpp"
#include "probity/error.hpp"
#include "text/ascii.hpp"

namespace probity {

PerturbationRegistry PerturbationRegistry::builtin() {
  PerturbationRegistry r;
  for (auto& info : perturb::degradation_infos()) r.add(std::move(info));
  for (auto& info : perturb::manipulation_infos()) r.add(std::move(info));
  return r;
}

void PerturbationRegistry::add(PerturbationInfo info) {
  for (const auto& existing : infos_) {
    if (existing.kind == info.kind && (existing.code == info.code || existing.name == info.name))
      throw UsageError(fmt::format("{} '{}' ({}) is already registered", kind_name(info.kind),
                                   info.name, info.code));
  }
  infos_.push_back(std::move(info));
}

std::unique_ptr<Perturbation> PerturbationRegistry::create(StrategyKind kind,
                                                           std::string_view code_or_name) const {
  const std::string wanted = text::ascii_lower(code_or_name);
  for (const auto& info : infos_) {
    if (info.kind == kind && (text::ascii_lower(info.code) == wanted || info.name == wanted))
      return info.factory();
  }
  std::string known;
  for (const auto& info : infos_) {
    if (info.kind != kind) continue;
    if (!known.empty()) known += ", ";
    known += fmt::format("{} ({})", info.code, info.name);
  }
  throw UsageError(fmt::format("unknown {} '{}'; known: {}", kind_name(kind), code_or_name, known));
}

std::vector<const PerturbationInfo*> PerturbationRegistry::list(StrategyKind kind) const {
  std::vector<const PerturbationInfo*> out;
  for (const auto& info : infos_)
    if (info.kind == kind) out.push_back(&info);
  return out;
}

std::vector<const PerturbationInfo*> PerturbationRegistry::resolve(
    StrategyKind kind, const std::vector<std::string>& names) const {
  std::vector<const PerturbationInfo*> out;
  for (const auto& n : names) {
    if (n == "all") {  // the rule-based strategies; --perturber llm names the LLM ones
      std::vector<const PerturbationInfo*> rules;
      for (const auto* info : list(kind))
        if (!info->code.starts_with("llm-")) rules.push_back(info);
      return rules;
    }
    std::size_t before = out.size();
    for (const auto* info : list(kind))
      if (info->code == n || info->name == n) out.push_back(info);
    if (out.size() == before) {
      std::string codes;
      for (const auto* i : list(kind)) codes += (codes.empty() ? "" : ", ") + i->code;
      throw UsageError(
          fmt::format("unknown {} strategy '{}' (codes: {})", kind_name(kind), n, codes));
    }
  }
  return out;
}

}  // namespace probity
