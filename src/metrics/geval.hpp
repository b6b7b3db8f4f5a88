#pragma once
// G-Eval (Liu et al. 2023, "G-Eval: NLG Evaluation using GPT-4 with Better Human Alignment"):
// where a judge's rating sits among its generated tokens, and the probability-weighted rating
// from the top log-probabilities at that position. Pure functions; the judge that asks is
// metrics/llm_judge.cpp.
#include <cstddef>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "probity/llm.hpp"

namespace probity::metrics::geval {

// Alternatives below this probability are left out of the weighted rating, as deepeval's
// calculate_weighted_summed_score does (logprob < log(0.01)).
inline constexpr double kMinProbability = 0.01;

// A token without the characters a model puts around a rating: ASCII whitespace, quotes (" ' `)
// and markdown emphasis (*).
std::string_view strip_token(std::string_view token);

// The scale value a token stands for: its stripped text is ASCII digits only and their number
// lies in [lo, hi]; nullopt otherwise.
std::optional<int> scale_value(std::string_view token, int lo, int hi);

// The rating position among the generated tokens: the first token that parses as a scale value
// (scale_value) and is not part of a longer number (no digit right before or after it: "1" then
// "0" is ten, not one). Tokens before it (whitespace, quotes, words) are skipped. nullopt with
// `error` set when there is none.
struct RatingPosition {
  std::size_t index = 0;
  int value = 0;
};
std::optional<RatingPosition> find_rating(std::span<const llm::TokenLogprob> tokens, int lo, int hi,
                                          std::string& error);

// The rating in an answer's text (no token boundaries: the samples estimate): the first maximal
// run of ASCII digits, which must be a scale value. nullopt with `error` set otherwise.
std::optional<int> rating_in_text(std::string_view text, int lo, int hi, std::string& error);

// score = sum p(t) value(t) / sum p(t) over the alternatives t at the rating position that are
// scale values with p(t) >= kMinProbability (p = exp(logprob); alternatives with the same value
// pooled). `mass` is the sum of p(t) counted. When none counts, the score is `rating` (the value
// of the token the model generated) and mass is 0, as deepeval falls back to the raw score.
struct Weighted {
  double score = 0;
  double mass = 0;
};
Weighted weighted_score(std::span<const std::pair<std::string, double>> top, int lo, int hi,
                        int rating);

}  // namespace probity::metrics::geval
