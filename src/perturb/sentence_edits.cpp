// Chunk edits the strategies share: where a sentence's first word is, where to cut it within a
// word budget, and how to end a cut sentence.
#include <algorithm>

#include "perturb/lexicon.hpp"
#include "perturb/strategies.hpp"
#include "text/ascii.hpp"

namespace probity::perturb {

std::size_t first_word_index(const std::vector<Chunk>& chunks) {
  for (std::size_t i = 0; i < chunks.size(); ++i)
    if (!split_word(chunks[i].text).core.empty()) return i;
  return chunks.size();
}

std::size_t cut_at_boundary(const std::vector<Chunk>& chunks, std::size_t max_words) {
  std::size_t best = 0, boundary = 0, words = 0;
  for (std::size_t k = 1; k <= chunks.size(); ++k) {
    if (has_alnum(chunks[k - 1].text) && ++words > max_words) break;
    best = k;
    const bool before_boundary =
        k < chunks.size() &&
        (lex::is_split_word(text::ascii_lower(split_word(chunks[k].text).core)) ||
         is_punct_chunk(chunks[k].text) || ends_clause(chunks[k - 1].text));
    if (before_boundary && 5 * words >= 3 * max_words) boundary = k;
  }
  return std::max<std::size_t>(boundary > 0 ? boundary : best, 1);
}

void end_sentence(std::vector<Chunk>& chunks, bool tokenized) {
  auto drop_back = [&] {
    const std::string space = chunks.back().space;
    chunks.pop_back();
    if (!chunks.empty()) chunks.back().space = space;
  };
  for (;;) {
    while (!chunks.empty() && (chunks.back().text.empty() || is_punct_chunk(chunks.back().text)))
      drop_back();
    if (chunks.empty()) return;
    WordParts parts = split_word(chunks.back().text);
    // An initial ("v.") belongs to the name after it.
    const bool initial = parts.core.size() == 1 && parts.trail == "." &&
                         is_capitalized(parts.core) == has_upper(chunks.back().text);
    if (chunks.size() > 2 && initial && parts.core != "i" && parts.core != "I") {
      drop_back();
      continue;
    }
    // Trailing punctuation (", " ";") is replaced by the period below; closing brackets and
    // quotes stay only when their opener is in the sentence, which we do not track: drop them.
    // `parts` views the chunk's text: take what is needed before the text is replaced.
    const std::string low = text::ascii_lower(parts.core);
    chunks.back().text = std::string(parts.lead) + std::string(parts.core);
    // Words that cannot end a sentence: articles, prepositions, conjunctions, auxiliaries.
    const bool dangling = lex::is_determiner(low) || lex::is_split_word(low) ||
                          lex::is_preposition(low) || lex::is_modal(low) || lex::is_copula(low) ||
                          low == "of" || low == "to" || low == "has" || low == "have" ||
                          low == "had" || low == "and" || low == "or" || low == "but" ||
                          low == "'s" || low == "than" || low == "not";
    if (chunks.size() > 2 && dangling) {
      drop_back();
      continue;
    }
    break;
  }
  chunks.back().space.clear();
  if (tokenized) {
    chunks.back().space.assign(1, ' ');
    chunks.push_back({".", "", true});
  } else {
    chunks.back().text += ".";
  }
}

}  // namespace probity::perturb
