#pragma once
// sacreBLEU's tokenizers writing into the caller's buffer (text/tokenize_sacrebleu.cpp), for BLEU,
// which reuses its buffers so that steady-state scoring does not allocate. The public forms are
// text::tokenize_13a and text::tokenize_intl; zh, char and ja-mecab are declared here only. Not
// part of the public interface.
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
// sacreBLEU's `zh` tokenizer (TokenizerZh: strip, spaces around the characters of its CJK ranges,
// then 13a's regular expressions without 13a's padding and replacements).
std::string tokenize_zh(std::string_view line);
// `out` becomes tokenize_zh(line).
void tokenize_zh_into(std::string_view line, std::string& out);
// sacreBLEU's `char` tokenizer: every character (whitespace included) joined by single spaces.
std::string tokenize_char(std::string_view line);
// sacreBLEU's `ja-mecab` tokenizer (text/tokenize_mecab.cpp): MeCab 0.996 in wakati mode with the
// IPA dictionary (Debian's mecab-ipadic-utf8) on the stripped line, the output stripped. Throws
// UsageError when the dictionary cannot be loaded or is not IPADIC.
std::string tokenize_ja_mecab(std::string_view line);
// "ja-mecab-<MeCab version>-IPA", as sacreBLEU's signature names the tokenizer.
std::string ja_mecab_signature();

}  // namespace probity::text
