// The frame every rule-based strategy shares (RuleStrategy::apply: the context checked, the
// item's seed, the language, "no change" and exceptions reported) and the result builders.
#include <fmt/format.h>
#include <fmt/ranges.h>

#include <algorithm>
#include <exception>

#include "perturb/strategies.hpp"
#include "text/language.hpp"
#include "util/random.hpp"

namespace probity::perturb {

RuleStrategy::RuleStrategy(StrategyKind kind, std::string code, std::string name,
                           std::string description, std::string parameters)
    : kind_(kind),
      code_(std::move(code)),
      name_(std::move(name)),
      description_(std::move(description)),
      parameters_(std::move(parameters)) {}

std::string RuleStrategy::signature() const {
  return fmt::format("{}/{}:{}:{}:{}:lang={}", kind_name(kind_), code_, name_, kRulesVersion,
                     parameters_,
                     languages_.empty() ? "any" : fmt::format("{}", fmt::join(languages_, ",")));
}

bool RuleStrategy::supports(std::string_view lang) const {
  return languages_.empty() ||
         std::find(languages_.begin(), languages_.end(), lang) != languages_.end();
}

PerturbResult RuleStrategy::apply(const PerturbContext& context) const {
  if (context.dataset == nullptr || context.task >= context.dataset->tasks.size() ||
      context.candidate >= context.task_ref().candidates.size()) {
    PerturbResult failed;
    failed.status = PerturbResult::Status::kFailed;
    failed.note = "invalid perturbation context (no dataset, or task/candidate out of range)";
    return failed;
  }
  const Candidate& candidate = context.candidate_ref();
  const std::string lang = task_language(context.task_ref());
  if (!supports(lang))
    return not_applicable(fmt::format("{}: the {} rules cover {}, not {}", kLanguageNote, name_,
                                      fmt::join(languages_, ", "), text::language_name(lang)));
  Rng rng(item_seed(context.seed, name_, context.task_ref().task_id, candidate.id));
  try {
    PerturbResult result = run(context, lang, rng);
    if (result.status == PerturbResult::Status::kApplied && result.text == candidate.text) {
      result.status = PerturbResult::Status::kUnchanged;
      if (result.note.empty()) result.note = "the rules left the text unchanged";
    }
    if (result.status == PerturbResult::Status::kUnchanged) result.text = candidate.text;
    if (result.status == PerturbResult::Status::kNotApplicable) result.text.clear();
    return result;
  } catch (const std::exception& e) {
    PerturbResult failed;
    failed.status = PerturbResult::Status::kFailed;
    failed.note = e.what();
    return failed;
  }
}

PerturbResult not_applicable(std::string note) {
  PerturbResult r;
  r.status = PerturbResult::Status::kNotApplicable;
  r.note = std::move(note);
  return r;
}

PerturbResult unchanged(std::string note) {
  PerturbResult r;
  r.status = PerturbResult::Status::kUnchanged;
  r.note = std::move(note);
  return r;
}

PerturbResult applied(std::string text, std::string note) {
  PerturbResult r;
  r.status = PerturbResult::Status::kApplied;
  r.text = std::move(text);
  r.note = std::move(note);
  return r;
}

}  // namespace probity::perturb
