#pragma once
// The stopwords of the support judge and the statement decomposition.
#include <string_view>

namespace probity::text {

// NLTK's English list without its negations (they drive polarity) and without "won", plus clitic
// and ordinal fragments; `word` is lower-case.
bool is_stopword(std::string_view word);

}  // namespace probity::text
