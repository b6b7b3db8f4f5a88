// G-Eval's rating position and probability-weighted rating (see geval.hpp).
#include "metrics/geval.hpp"

#include <fmt/format.h>

#include <cmath>
#include <map>

namespace probity::metrics::geval {
namespace {

bool is_digit(char c) {
  return c >= '0' && c <= '9';
}

bool is_wrapper(char c) {
  return c == ' ' || c == '\t' || c == '\n' || c == '\r' || c == '\f' || c == '\v' || c == '"' ||
         c == '\'' || c == '`' || c == '*';
}

// The number of a run of ASCII digits; nullopt beyond 9 digits (never a scale value).
std::optional<int> digits_value(std::string_view s) {
  if (s.empty() || s.size() > 9) return std::nullopt;
  int v = 0;
  for (char c : s) {
    if (!is_digit(c)) return std::nullopt;
    v = v * 10 + (c - '0');
  }
  return v;
}

}  // namespace

std::string_view strip_token(std::string_view token) {
  while (!token.empty() && is_wrapper(token.front())) token.remove_prefix(1);
  while (!token.empty() && is_wrapper(token.back())) token.remove_suffix(1);
  return token;
}

std::optional<int> scale_value(std::string_view token, int lo, int hi) {
  const auto v = digits_value(strip_token(token));
  if (!v || *v < lo || *v > hi) return std::nullopt;
  return v;
}

std::optional<RatingPosition> find_rating(std::span<const llm::TokenLogprob> tokens, int lo, int hi,
                                          std::string& error) {
  // A digit touching the token on either side makes it part of a longer number.
  auto ends_with_digit = [&](std::size_t i) {
    return !tokens[i].token.empty() && is_digit(tokens[i].token.back());
  };
  auto starts_with_digit = [&](std::size_t i) {
    return !tokens[i].token.empty() && is_digit(tokens[i].token.front());
  };
  for (std::size_t i = 0; i < tokens.size(); ++i) {
    const auto v = scale_value(tokens[i].token, lo, hi);
    if (!v) continue;
    const std::string_view t = tokens[i].token;
    if (i > 0 && is_digit(t.front()) && ends_with_digit(i - 1)) continue;
    if (i + 1 < tokens.size() && is_digit(t.back()) && starts_with_digit(i + 1)) continue;
    return RatingPosition{i, *v};
  }
  std::string text;
  for (const auto& t : tokens) text += t.token;
  error = tokens.empty()
              ? std::string("the answer has no generated tokens with log-probabilities")
              : fmt::format("no generated token is a rating from {} to {} (the answer was '{}')",
                            lo, hi, text.size() > 80 ? text.substr(0, 80) + "..." : text);
  return std::nullopt;
}

std::optional<int> rating_in_text(std::string_view text, int lo, int hi, std::string& error) {
  std::size_t start = 0;
  while (start < text.size() && !is_digit(text[start])) ++start;
  std::size_t end = start;
  while (end < text.size() && is_digit(text[end])) ++end;
  const auto v = digits_value(text.substr(start, end - start));
  if (v && *v >= lo && *v <= hi) return v;
  const std::string shown(text.size() > 80 ? std::string(text.substr(0, 80)) + "..." : text);
  error = start == text.size()
              ? fmt::format("no number in the answer '{}'", shown)
              : fmt::format("the answer's first number is not a rating from {} to {} ('{}')", lo,
                            hi, shown);
  return std::nullopt;
}

Weighted weighted_score(std::span<const std::pair<std::string, double>> top, int lo, int hi,
                        int rating) {
  const double min_logprob = std::log(kMinProbability);
  std::map<int, double> by_value;
  double mass = 0;
  for (const auto& [token, logprob] : top) {
    if (logprob < min_logprob) continue;
    const auto v = scale_value(token, lo, hi);
    if (!v) continue;
    const double p = std::exp(logprob);
    by_value[*v] += p;
    mass += p;
  }
  if (mass == 0) return {static_cast<double>(rating), 0.0};
  double weighted = 0;
  for (const auto& [v, p] : by_value) weighted += v * p;
  return {weighted / mass, mass};
}

}  // namespace probity::metrics::geval
