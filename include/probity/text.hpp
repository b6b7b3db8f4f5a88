#pragma once
// Text processing shared by the metrics: tokenizers that reproduce the reference tools,
// stemming, Unicode normalisation, sentence segmentation and statement decomposition.
#include <string>
#include <string_view>
#include <vector>

namespace probity::text {

// sacreBLEU's `13a` tokenizer (mteval-v13a): returns the tokenized string, tokens separated by
// single spaces, exactly as sacreBLEU's Tokenizer13a.__call__ does.
std::string tokenize_13a(std::string_view line);
// sacreBLEU's `intl` tokenizer (mteval-v14 international, Unicode punctuation/symbols).
std::string tokenize_intl(std::string_view line);
// Splits a string on runs of ASCII spaces (Python's str.split() on tokenized output).
std::vector<std::string_view> split_whitespace(std::string_view s);

// Google rouge-score's default tokenizer: lowercase, replace non [a-z0-9] with spaces, split,
// optionally stem tokens longer than 3 characters with NLTK's Porter stemmer.
// With `unicode_aware` letters and digits of every script are kept (an option; the default
// reproduces rouge-score, which scores non-Latin text 0).
std::vector<std::string> rouge_tokenize(std::string_view text, bool stem,
                                        bool unicode_aware = false);

// NLTK 3.8 PorterStemmer() in its default NLTK_EXTENSIONS mode (as rouge-score uses it).
// Input is expected lower-case.
std::string porter_stem(std::string_view word);

// Unicode NFKC normalisation (NFC with `compat = false`). Invalid UTF-8 throws.
std::string normalize_unicode(std::string_view s, bool compat = true);
// True when `s` is well-formed UTF-8.
bool is_valid_utf8(std::string_view s);
// True when `s` holds only ASCII whitespace: an empty text (a legitimate, bad output).
bool is_blank(std::string_view s);
// Lower-casing with full Unicode case folding rules of ICU.
std::string to_lower(std::string_view s);

// Sentence segmentation: ICU's sentence BreakIterator, then re-joins breaks that follow a known
// abbreviation ("Dr.", "U.S.", "e.g.", ...). Returned sentences are trimmed and non-empty.
std::vector<std::string> split_sentences(std::string_view text);

// Rule-based statement decomposition Ψ(y) (text/statements.cpp): atomic claims, at least one
// for non-empty text.
std::vector<std::string> decompose_statements(std::string_view text);

}  // namespace probity::text
