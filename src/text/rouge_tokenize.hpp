#pragma once
// rouge-score's tokenizer as a scanner (text/rouge_tokenize.cpp), shared by text::rouge_tokenize
// and the ROUGE metric, which counts tokens without building strings. Not part of the public
// interface.
#include <string>
#include <string_view>

namespace probity::text {

// Receives the tokens of rouge_scan.
class RougeTokenSink {
 public:
  virtual ~RougeTokenSink() = default;
  virtual void operator()(std::string_view token) = 0;
};

// rouge-score's tokenizer before stemming: Python's str.lower(), then every character outside
// [a-z0-9] separates tokens. Non-ASCII characters separate tokens too, except the two whose
// Python lower case is ASCII (U+0130 -> "i" + U+0307, U+212A KELVIN SIGN -> "k").
// With `unicode_aware`, letters, combining marks and numbers of every script are kept
// (lower-cased with utf8proc); this is probity's option, not rouge-score behaviour.
// `scratch` is reused between calls to avoid allocations; tokens are views into it.
void rouge_scan(std::string_view text, bool unicode_aware, std::string& scratch,
                RougeTokenSink& sink);

// True when rouge-score would stem this token: longer than 3 characters. In unicode mode only
// ASCII tokens are stemmed, Porter being an English stemmer.
bool rouge_should_stem(std::string_view token);

}  // namespace probity::text
