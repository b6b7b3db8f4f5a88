#include "text/stopwords.hpp"

#include <unordered_set>

namespace probity::text {
namespace {

const std::unordered_set<std::string_view>& stopwords() {
  // NLTK's English stopwords without the negations (they drive polarity) and without "won"
  // (listed there for "won't", a content word here), plus clitic and ordinal fragments.
  static const std::unordered_set<std::string_view> set = {
      "i",       "me",      "my",      "myself",   "we",         "our",    "ours",    "ourselves",
      "you",     "your",    "yours",   "yourself", "yourselves", "he",     "him",     "his",
      "himself", "she",     "her",     "hers",     "herself",    "it",     "its",     "itself",
      "they",    "them",    "their",   "theirs",   "themselves", "what",   "which",   "who",
      "whom",    "this",    "that",    "these",    "those",      "am",     "is",      "are",
      "was",     "were",    "be",      "been",     "being",      "have",   "has",     "had",
      "having",  "do",      "does",    "did",      "doing",      "a",      "an",      "the",
      "and",     "but",     "if",      "or",       "because",    "as",     "until",   "while",
      "of",      "at",      "by",      "for",      "with",       "about",  "against", "between",
      "into",    "through", "during",  "before",   "after",      "above",  "below",   "to",
      "from",    "up",      "down",    "in",       "out",        "on",     "off",     "over",
      "under",   "again",   "further", "then",     "once",       "here",   "there",   "when",
      "where",   "why",     "how",     "all",      "any",        "both",   "each",    "few",
      "more",    "most",    "other",   "some",     "such",       "only",   "own",     "same",
      "so",      "than",    "too",     "very",     "s",          "t",      "can",     "will",
      "just",    "don",     "should",  "now",      "d",          "ll",     "m",       "o",
      "re",      "ve",      "y",       "ain",      "aren",       "couldn", "didn",    "doesn",
      "hadn",    "hasn",    "haven",   "isn",      "ma",         "mightn", "mustn",   "needn",
      "shan",    "shouldn", "wasn",    "weren",    "wouldn",     "ca",     "wo",      "would",
      "could",   "might",   "must",    "shall",    "may",        "also",   "th",      "st",
      "nd",      "rd"};
  return set;
}

}  // namespace

bool is_stopword(std::string_view word) {
  return stopwords().count(word) > 0;
}

}  // namespace probity::text
