#pragma once
// Universal suffixes for `probity attack`: one text appended to every candidate, found on the
// search half of the tasks and tested by the caller on the held-out half.
//
// - universal-phrase (Raina et al., EMNLP 2024, "Is LLM-as-a-Judge robust?"): a phrase grown word
//   by word; each step appends the vocabulary word that raises the mean score of the search items
//   most, and the search stops at the phrase length or when no word raises it;
// - logprob-search (the random search Zheng et al., ICLR 2025, run on the judge's verdict
//   log-probability): a suffix of a fixed number of words, one random word replaced per
//   iteration, the change kept when the mean score rises. It is meant for a judge scored from
//   its verdict token's top log-probabilities (llm-judge,mode=geval), whose score moves with
//   every small change of that probability; a rating that moves in whole steps gives the search
//   nothing to climb.
//
// Both are black-box: they see scores only, through `ScoreTexts`, in batches.
#include <cstdint>
#include <functional>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "audit/score_texts.hpp"
#include "probity/audit.hpp"

namespace probity::attack {

struct SuffixFound {
  std::string text;                // the suffix ("" when no step raised the score)
  std::vector<double> trajectory;  // search-half mean Δ after each accepted step
  std::size_t queries = 0;         // texts scored
  double search_mean_delta = 0;    // of the final suffix, on the search half
};

// The candidate with `suffix` after it, separated by one space (nothing added to an empty one).
std::string with_suffix(std::string_view candidate, std::string_view suffix);

// The built-in vocabulary both searches draw from: common English words with no task content
// (function words, evaluative and discourse words, words addressed to an evaluator) and
// punctuation, lower case, in a fixed order.
const std::vector<std::string_view>& suffix_vocabulary();

// `candidates[i]` is the text of `items[i]`; `original[i]` its score (NaN: left out).
SuffixFound greedy_phrase(std::span<const ItemRef> items, std::span<const std::string> candidates,
                          std::span<const double> original, const ScoreTexts& score,
                          std::size_t max_words, std::size_t words_per_step, std::uint64_t seed);
SuffixFound random_suffix(std::span<const ItemRef> items, std::span<const std::string> candidates,
                          std::span<const double> original, const ScoreTexts& score,
                          std::size_t words, std::size_t iterations, std::uint64_t seed);

}  // namespace probity::attack
