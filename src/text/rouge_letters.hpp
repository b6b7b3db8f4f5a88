#pragma once
// What the default ROUGE tokenizer (rouge-score's, text::rouge_tokenize) loses of a text, for the
// CLI's warning (text/rouge_tokenize.cpp). Not part of the public interface.
#include <cstddef>
#include <string_view>

namespace probity::text {

// Its letters (Unicode category L) and how many of them the tokenizer drops (all but A-Z, a-z and
// the two that lower-case to ASCII). "Die Größe ist schön" keeps 13 of its 16 letters and then
// matches "Die Gr e ist sch n".
struct LetterLoss {
  std::size_t letters = 0, dropped = 0;
};
LetterLoss rouge_default_letter_loss(std::string_view text);

}  // namespace probity::text
