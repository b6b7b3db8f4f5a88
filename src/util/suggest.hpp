#pragma once
// "Did you mean ...?" for mistyped command, option and metric names: the candidates nearest to a
// word by Damerau-Levenshtein distance (adjacent transpositions count one edit).
#include <cstddef>
#include <string>
#include <string_view>
#include <vector>

namespace probity::util {

// Edits (insert, delete, substitute, swap two adjacent characters) turning `a` into `b`.
std::size_t edit_distance(std::string_view a, std::string_view b);

// The candidates at the smallest distance from `word`, in their given order, when that distance
// is small enough to be a typo: at most 2, and at most a third of the longer word (rounded up);
// a candidate that starts with `word` (a prefix of 3+ characters) counts as near too. Empty when
// nothing is near.
std::vector<std::string> nearest(std::string_view word, const std::vector<std::string>& candidates);

// " (did you mean 'a' or 'b'?)" for nearest(word, candidates); empty when nothing is near.
std::string did_you_mean(std::string_view word, const std::vector<std::string>& candidates);

}  // namespace probity::util
