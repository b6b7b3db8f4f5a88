#pragma once
// Text plumbing shared by the rule-based perturbations: the PRNG, detection and rendering
// of the input's surface style (case, tokenization), a whitespace-preserving chunk model, and a
// layout model (headers, list items, sentences) that lets edits keep the line structure.
#include <cstddef>
#include <cstdint>
#include <memory>
#include <string>
#include <string_view>
#include <unordered_set>
#include <vector>

#include "util/random.hpp"

namespace probity::perturb {

// The strategies' generator: SplitMix64, one sequential stream per item (seeded by item_seed).
// Every pinned perturbation output depends on its exact sequence of draws.
using Rng = util::SplitMix64;

// ---- surface style ---------------------------------------------------------------------------

enum class CaseStyle {
  kNatural,   // ordinary mixed case
  kSentence,  // lower-cased except the first letter of each sentence (some SummEval systems)
  kLower,     // everything lower-cased
};

struct Style {
  CaseStyle casing = CaseStyle::kNatural;
  bool tokenized = false;  // punctuation and clitics are separate tokens ("team 's coach .")
};

Style detect_style(std::string_view text);
struct Doc;
// The same for a text whose parse_doc() the caller already has (spares parsing it again).
Style detect_style(std::string_view text, const Doc& doc);
// Renders natural English text (our own phrases, source sentences) in `style`.
std::string render(std::string_view natural, const Style& style);
// render() of one of our fixed phrases (the filler, framings), computed once per thread and
// style: every distinct phrase is kept, so not for text taken from the input.
const std::string& render_phrase(std::string_view natural, const Style& style);
// PTB-like tokenization: splits punctuation, quotes (as `` and ''), and clitics ('s, n't, ...).
std::string ptb_tokenize(std::string_view natural);

// ---- words -----------------------------------------------------------------------------------

bool has_alnum(std::string_view s);
bool has_upper(std::string_view s);
bool is_capitalized(std::string_view s);  // first byte is an ASCII capital
std::string capitalize(std::string_view s);
// Applies the case pattern of `model` (ALL CAPS, Capitalized, lower) to `word`.
std::string match_case(std::string_view word, std::string_view model);
// Number of words: whitespace-separated chunks that contain a letter or digit.
std::size_t count_words(std::string_view text);

// A whitespace-delimited chunk of text with the whitespace that follows it.
struct Chunk {
  std::string text;
  std::string space;
  bool changed = false;  // edited or inserted (used to fix articles next to edits)
};

std::vector<Chunk> to_chunks(std::string_view s);

// The chunks of to_chunks(s) as views into `s`, for readers that need no copies.
class ChunkCursor {
 public:
  explicit ChunkCursor(std::string_view s) : s_(s) {}
  // The next chunk's text and following whitespace; false after the last one.
  bool next(std::string_view& text, std::string_view& space);

 private:
  std::string_view s_;
  std::size_t i_ = 0;
};
std::string join_chunks(const std::vector<Chunk>& chunks);

// ASCII case-insensitive equality with a lower-case `low`.
bool equals_lower(std::string_view s, std::string_view low);

// A chunk split into leading punctuation, the word, and trailing punctuation.
struct WordParts {
  std::string_view lead;
  std::string_view core;
  std::string_view trail;
};
WordParts split_word(std::string_view chunk);
// True when the chunk is only punctuation (a token of tokenized text such as "," or "``").
bool is_punct_chunk(std::string_view chunk);
// True when the chunk ends a clause: trailing , ; : . ! ? or a punctuation-only chunk of those.
bool ends_clause(std::string_view chunk);
bool is_terminal_punct(std::string_view token);  // ".", "!", "?", "..."
// True when the chunk ends a sentence ("left ." / "left." but not "v." or "Dr.").
bool ends_sentence(std::string_view chunk);

// Re-chooses "a"/"an" in front of edited words.
void fix_articles(std::vector<Chunk>& chunks);

// ---- layout ----------------------------------------------------------------------------------

struct Line {
  enum class Kind { kBlank, kHeader, kItem, kText };
  Kind kind = Kind::kBlank;
  std::string prefix;   // indentation and list marker ("  - ", "1. ") for items
  std::string content;  // the text after the prefix, trailing whitespace removed
  std::string suffix;   // trailing whitespace (e.g. "\r")
  // Sentences of item/text lines; gaps[i] is the whitespace before sentence i, gaps.back() the
  // tail. Headers are not split.
  std::vector<std::string> sentences;
  std::vector<std::string> gaps;
  std::size_t section = 0;  // 0 before the first header; each header starts a new one
};

struct Doc {
  std::vector<Line> lines;
  std::size_t num_sentences() const;
};

Doc parse_doc(std::string_view text);

// parse_doc(), detect_style() and midsentence_capitals() of a text, for the strategies, which
// start from them. Worked out once per text and remembered (exactly, keyed by the whole text;
// capped): every strategy analyses every candidate.
struct Analysis {
  Doc doc;
  Style style;
  std::shared_ptr<const std::unordered_set<std::string>> names;
};
Analysis analyze(std::string_view text);
// analyze(text).style, without building the document when the text was analysed before.
Style analyze_style(std::string_view text);
// Reassembles the text. Empty sentences are dropped together with the gap in front of them.
std::string render_doc(const Doc& doc);

// Sentence addresses in document order.
struct SentenceRef {
  std::size_t line;
  std::size_t index;
};
std::vector<SentenceRef> sentence_refs(const Doc& doc);

// Lower-cased words written with a capital in mid-sentence: probably names, so a word that loses
// its sentence-initial position is only lower-cased when it is not one of these.
std::unordered_set<std::string> midsentence_capitals(const Doc& doc);
// The sentence-initial word `word` as it should read once it is no longer first.
std::string decapitalize_initial(std::string_view word, const Style& style,
                                 const std::unordered_set<std::string>& names);

}  // namespace probity::perturb
