#pragma once
// sacreBLEU's tokenizers writing into the caller's buffer (text/tokenize_sacrebleu.cpp), for BLEU,
// which reuses its buffers so that steady-state scoring does not allocate. The public forms are
// text::tokenize_13a and text::tokenize_intl. Not part of the public interface.
#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

namespace probity::text {

// A tokenized line in buffers reused between calls: the tokens separated by single spaces, where
// each starts, and at least 16 readable bytes after the text (a token can be read a word at a
// time).
struct TokenizedLine {
  std::string_view text;
  std::size_t count = 0;              // number of tokens
  std::vector<std::uint32_t> starts;  // starts[k]: offset of token k; starts[count]: size + 1
  std::string buffer;                 // holds text

  std::string_view token(std::size_t k) const {
    return text.substr(starts[k], starts[k + 1] - 1 - starts[k]);
  }
};
// `out` becomes tokenize_13a(line).
void tokenize_13a_into(std::string_view line, TokenizedLine& out);
// `out` becomes tokenize_intl(line).
void tokenize_intl_into(std::string_view line, std::string& out);

}  // namespace probity::text
