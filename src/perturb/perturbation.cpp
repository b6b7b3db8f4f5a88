// probity/perturb.hpp's shared definitions: the names of its enums, a task's language and the
// per-item seeds.
#include <array>

#include "probity/perturb.hpp"
#include "text/language.hpp"
#include "util/enum_names.hpp"
#include "util/hash.hpp"
#include "util/random.hpp"

namespace probity {

namespace {
constexpr auto kKindNames = std::to_array<util::EnumName<StrategyKind>>({
    {StrategyKind::kDegradation, "degradation"},
    {StrategyKind::kManipulation, "manipulation"},
});
constexpr auto kStatusNames = std::to_array<util::EnumName<PerturbResult::Status>>({
    {PerturbResult::Status::kApplied, "applied"},
    {PerturbResult::Status::kNotApplicable, "not_applicable"},
    {PerturbResult::Status::kUnchanged, "unchanged"},
    {PerturbResult::Status::kFailed, "failed"},
});
}  // namespace

std::string_view kind_name(StrategyKind kind) {
  return util::name_of(kKindNames, kind);
}

std::string_view status_name(PerturbResult::Status status) {
  return util::name_of(kStatusNames, status);
}

bool is_language_note(std::string_view note) {
  return note.starts_with(kLanguageNote);
}

std::string task_language(const Task& task) {
  if (!task.lang.empty()) return text::primary_language(task.lang);
  // References first: they are the same for every candidate of the task.
  std::vector<std::string_view> texts;
  texts.reserve(task.references.size() + task.candidates.size());
  for (const auto& r : task.references) texts.emplace_back(r.text);
  for (const auto& c : task.candidates) texts.emplace_back(c.text);
  const text::LanguageGuess guess = text::detect_language(texts);
  if (!guess.code.empty()) return guess.code;
  return guess.latin ? "en" : "und";
}

std::uint64_t item_seed(std::uint64_t seed, std::string_view strategy, std::string_view task_id,
                        std::string_view candidate_id) {
  // FNV-1a from the standard offset basis: stable across platforms and library versions, unlike
  // std::hash.
  std::uint64_t h = util::fnv1a64_u64(seed, util::kFnvOffsetBasis);
  // Length prefixes keep ("ab", "c") and ("a", "bc") apart.
  for (std::string_view part : {strategy, task_id, candidate_id}) {
    h = util::fnv1a64_u64(part.size(), h);
    h = util::fnv1a64(part, h);
  }
  return util::mix64(h);
}

}  // namespace probity
