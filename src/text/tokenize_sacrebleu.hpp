#pragma once
// sacreBLEU's tokenizers writing into the caller's buffer (text/tokenize_sacrebleu.cpp), for BLEU,
// which reuses its buffers so that steady-state scoring does not allocate. The public forms are
// text::tokenize_13a and text::tokenize_intl. Not part of the public interface.
#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

namespace probity::text {

// tokenize_13a's output with the offset of each token, in buffers reused between calls.
struct Tokens13a {
  std::string_view text;              // tokenize_13a(line): tokens separated by single spaces
  std::size_t count = 0;              // starts[0, count) are the offsets of the tokens in text
  std::vector<std::uint32_t> starts;  // (longer than count)
  std::string buffer;                 // holds text
};
void tokenize_13a_into(std::string_view line, Tokens13a& out);
// `out` becomes tokenize_intl(line).
void tokenize_intl_into(std::string_view line, std::string& out);

}  // namespace probity::text
