#pragma once
// The replacement families of `probity attack` (master-key, null-model; ReplacementAttack in
// audit.hpp): every candidate replaced by one fixed answer, scored on every item; the answer with
// the highest rate on the search half is measured on the held-out half.
#include <span>
#include <string_view>
#include <vector>

#include "audit/score_texts.hpp"
#include "probity/audit.hpp"

namespace probity::attack {

// The family's answers, in a fixed order.
const std::vector<std::string_view>& replacement_answers(ReplacementFamily family);

// `original[i]` is the real candidate's score of `items[i]`; `in_search[i]` its half.
ReplacementAttack replacement_attack(ReplacementFamily family, std::span<const ItemRef> items,
                                     std::span<const double> original,
                                     const std::vector<bool>& in_search, const ScoreTexts& score,
                                     double confidence, double tolerance);

}  // namespace probity::attack
