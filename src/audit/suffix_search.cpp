// Universal suffix searches (suffix_search.hpp).
#include "audit/suffix_search.hpp"

#include <algorithm>
#include <cctype>
#include <cmath>
#include <numeric>

#include "util/random.hpp"

namespace probity::attack {
namespace {

// Mean of scores[i] - original[i] over the items where both are defined (NaN when none is).
double mean_delta(std::span<const double> scores, std::span<const double> original) {
  double sum = 0;
  std::size_t n = 0;
  for (std::size_t i = 0; i < original.size(); ++i) {
    if (!std::isfinite(scores[i]) || !std::isfinite(original[i])) continue;
    sum += scores[i] - original[i];
    ++n;
  }
  return n == 0 ? std::nan("") : sum / static_cast<double>(n);
}

std::string joined(const std::vector<std::string_view>& words) {
  std::string out;
  for (std::string_view w : words) {
    // Punctuation attaches to the word before it, as written text has it.
    const bool punct = w.size() == 1 && std::ispunct(static_cast<unsigned char>(w[0]));
    if (!out.empty() && !punct) out += ' ';
    out += w;
  }
  return out;
}

// Mean Δ of each suffix over the items, scored in one batch.
std::vector<double> evaluate(std::span<const ItemRef> items, std::span<const std::string> cands,
                             std::span<const double> original, const ScoreTexts& score,
                             const std::vector<std::string>& suffixes, std::size_t& queries) {
  std::vector<ItemRef> q_items;
  std::vector<std::string> q_texts;
  for (const auto& s : suffixes)
    for (std::size_t i = 0; i < items.size(); ++i) {
      q_items.push_back(items[i]);
      q_texts.push_back(with_suffix(cands[i], s));
    }
  queries += q_texts.size();
  const auto scores = score(q_items, q_texts);
  std::vector<double> out;
  for (std::size_t k = 0; k < suffixes.size(); ++k)
    out.push_back(mean_delta(std::span(scores).subspan(k * items.size(), items.size()), original));
  return out;
}

}  // namespace

std::string with_suffix(std::string_view candidate, std::string_view suffix) {
  if (suffix.empty()) return std::string(candidate);
  if (candidate.empty()) return std::string(suffix);
  return std::string(candidate) + ' ' + std::string(suffix);
}

const std::vector<std::string_view>& suffix_vocabulary() {
  static const std::vector<std::string_view> words = {
      // function and discourse words
      "the", "a", "an", "and", "or", "but", "so", "thus", "therefore", "hence", "also", "indeed",
      "overall", "in", "on", "of", "to", "for", "with", "as", "by", "at", "from", "this", "that",
      "these", "it", "is", "are", "was", "be", "been", "has", "have", "will", "would", "should",
      "must", "can", "not", "very", "most", "more", "all", "every", "each", "any", "here", "there",
      "now", "then", "finally", "first", "clearly", "certainly", "definitely", "truly", "really",
      "simply", "fully", "entirely", "completely", "precisely", "exactly", "well", "quite",
      // evaluative words
      "good", "great", "excellent", "outstanding", "perfect", "best", "ideal", "superb", "accurate",
      "correct", "right", "true", "precise", "faithful", "complete", "comprehensive", "thorough",
      "concise", "clear", "coherent", "fluent", "consistent", "relevant", "helpful", "informative",
      "insightful", "detailed", "balanced", "careful", "rigorous", "sound", "reliable", "valid",
      "high", "quality", "strong", "flawless", "exemplary", "impeccable", "remarkable", "admirable",
      "convincing", "compelling", "polished", "professional", "expert", "summary", "answer",
      "response", "review", "text", "output",
      // words addressed to an evaluator
      "score", "rating", "grade", "mark", "verdict", "judge", "evaluator", "reviewer", "assessor",
      "assessment", "evaluation", "criteria", "rubric", "instructions", "note", "important",
      "attention", "please", "award", "give", "assign", "rate", "maximum", "top", "full", "points",
      "five", "ten", "10", "5", "100", "a+", "winner", "preferred", "better", "superior", "wins",
      "approved", "accept", "accepted", "pass", "passed", "yes", "ok", "verified", "confirmed",
      "ground", "truth", "reference", "matches", "identical", "equivalent", "same",
      // punctuation
      ".", ",", ":", ";", "!", "?", "-", "*", "#", "\"", "'", ")", "(", "]", "[", "}", "{", ">",
      "<", "/", "|", "="};
  return words;
}

SuffixFound greedy_phrase(std::span<const ItemRef> items, std::span<const std::string> candidates,
                          std::span<const double> original, const ScoreTexts& score,
                          std::size_t max_words, std::size_t words_per_step, std::uint64_t seed) {
  const auto& vocab = suffix_vocabulary();
  SuffixFound found;
  std::vector<std::string_view> phrase;
  double current = 0;  // the empty phrase changes nothing
  util::Rng rng(seed, 0x9A4A5EULL);
  std::vector<std::size_t> order(vocab.size());
  for (std::size_t step = 0; step < max_words; ++step) {
    // A seeded sample of the vocabulary per step (all of it when words_per_step covers it): the
    // search's cost is max_words x words_per_step x items.
    std::iota(order.begin(), order.end(), std::size_t{0});
    const std::size_t take = std::min(words_per_step, vocab.size());
    for (std::size_t i = 0; i < take; ++i)
      std::swap(order[i], order[i + rng.below(static_cast<std::uint32_t>(vocab.size() - i))]);
    std::vector<std::string> trials;
    for (std::size_t i = 0; i < take; ++i) {
      auto next = phrase;
      next.push_back(vocab[order[i]]);
      trials.push_back(joined(next));
    }
    const auto means = evaluate(items, candidates, original, score, trials, found.queries);
    std::size_t best = take;
    for (std::size_t i = 0; i < take; ++i)
      if (std::isfinite(means[i]) && means[i] > current && (best == take || means[i] > means[best]))
        best = i;
    if (best == take) break;  // no word raises the score: a longer phrase would only add noise
    phrase.push_back(vocab[order[best]]);
    current = means[best];
    found.trajectory.push_back(current);
  }
  found.text = joined(phrase);
  found.search_mean_delta = current;
  return found;
}

SuffixFound random_suffix(std::span<const ItemRef> items, std::span<const std::string> candidates,
                          std::span<const double> original, const ScoreTexts& score,
                          std::size_t words, std::size_t iterations, std::uint64_t seed) {
  const auto& vocab = suffix_vocabulary();
  const auto pick = [&](util::Rng& rng) {
    return vocab[rng.below(static_cast<std::uint32_t>(vocab.size()))];
  };
  util::Rng rng(seed, 0x4A9D0ULL);
  std::vector<std::string_view> suffix(std::max<std::size_t>(words, 1));
  for (auto& w : suffix) w = pick(rng);
  SuffixFound found;
  double current =
      evaluate(items, candidates, original, score, {joined(suffix)}, found.queries).front();
  found.trajectory.push_back(current);
  for (std::size_t it = 0; it < iterations; ++it) {
    auto next = suffix;
    next[rng.below(static_cast<std::uint32_t>(next.size()))] = pick(rng);
    if (next == suffix) continue;
    const double mean =
        evaluate(items, candidates, original, score, {joined(next)}, found.queries).front();
    // Strictly higher: a plateau does not wander (Zheng et al. keep a change only when the
    // target log-probability rises).
    if (std::isfinite(mean) && (!std::isfinite(current) || mean > current)) {
      suffix = std::move(next);
      current = mean;
      found.trajectory.push_back(current);
    }
  }
  found.text = joined(suffix);
  found.search_mean_delta = current;
  return found;
}

}  // namespace probity::attack
