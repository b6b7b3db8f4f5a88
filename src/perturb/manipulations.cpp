// Manipulations (Xu et al. 2025, §5): changes that add no task information, which a good metric
// must not reward.
#include <fmt/format.h>

#include <algorithm>
#include <array>
#include <iterator>
#include <optional>
#include <unordered_map>
#include <unordered_set>

#include "perturb/lexicon.hpp"
#include "perturb/strategies.hpp"
#include "text/ascii.hpp"

namespace probity::perturb {
namespace {

using Names = std::unordered_set<std::string>;
using lex::Tone;

std::string core_lower(const Chunk& chunk) {
  return text::ascii_lower(split_word(chunk.text).core);
}

Chunk new_chunk(std::string text) {
  return Chunk{std::move(text), " ", true};
}

bool plain_word(std::string_view core) {
  return !core.empty() && std::all_of(core.begin(), core.end(), [](char c) {
    return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || c == '-';
  });
}

// A sentence as chunks with lower-cased words, plus what the edits need to know about it.
struct Sentence {
  std::vector<Chunk> chunks;
  std::vector<std::string> low;
  bool question = false;

  explicit Sentence(const std::string& text) : chunks(to_chunks(text)) {
    refresh();
    question = text.ends_with('?') || text.ends_with("? ''") || text.ends_with("?\"");
  }
  void refresh() {
    low.clear();
    low.reserve(chunks.size());
    for (const auto& c : chunks) {
      std::string& word = low.emplace_back(split_word(c.text).core);  // core_lower, in place
      for (char& ch : word) ch = text::ascii_lower(ch);
    }
  }
  std::size_t first() const { return first_word_index(chunks); }
  bool starts_capitalized() const {
    const std::size_t f = first();
    return f < chunks.size() && is_capitalized(split_word(chunks[f].text).core);
  }
  std::size_t word_count() const {
    return static_cast<std::size_t>(std::count_if(
        chunks.begin(), chunks.end(), [](const Chunk& c) { return has_alnum(c.text); }));
  }
  // The nearest word before / after chunk i ("" when none); valid until the next edit.
  const std::string& prev(std::size_t i) const {
    for (std::size_t k = i; k-- > 0;)
      if (!low[k].empty()) return low[k];
    return kNoWord;
  }
  const std::string& next(std::size_t i) const {
    for (std::size_t k = i + 1; k < low.size(); ++k)
      if (!low[k].empty()) return low[k];
    return kNoWord;
  }
  static inline const std::string kNoWord;
  // The chunk at i is a bare word (no punctuation around it).
  bool bare(std::size_t i) const {
    if (i >= chunks.size()) return false;
    const WordParts p = split_word(chunks[i].text);
    return p.lead.empty() && p.trail.empty() && plain_word(p.core);
  }
  // A word that may end its clause ("good." / "good,") but has nothing in front of it.
  bool word(std::size_t i) const {
    if (i >= chunks.size()) return false;
    const WordParts p = split_word(chunks[i].text);
    return p.lead.empty() && plain_word(p.core);
  }
  void insert(std::size_t at, std::string text) {
    chunks.insert(chunks.begin() + static_cast<std::ptrdiff_t>(at), new_chunk(std::move(text)));
    if (at + 1 == chunks.size()) {
      // Inserted at the very end: it takes over the (empty) trailing space.
      chunks[at].space.swap(chunks[at - 1].space);
    }
    // Only the new chunk's word is new (spaces are not in `low`).
    low.insert(low.begin() + static_cast<std::ptrdiff_t>(at), core_lower(chunks[at]));
  }
  void replace_word(std::size_t i, const std::string& word) {
    const WordParts p = split_word(chunks[i].text);
    chunks[i].text = std::string(p.lead) + match_case(word, p.core) + std::string(p.trail);
    chunks[i].changed = true;
    low[i] = core_lower(chunks[i]);
  }
  std::string text() {
    fix_articles(chunks);
    return join_chunks(chunks);
  }
};

// Adjective-like for an insertion in front of it: an evaluative or scalar word from our lists,
// or a word that WordNet knows only as an adjective.
bool adjective_like(const std::string& w) {
  if (w.empty() || lex::is_function_word(w)) return false;
  if (!lex::intensify(w).empty() || !lex::flip_antonym(w).empty() || lex::is_gradable(w))
    return true;
  // Otherwise only unambiguous adjectives: not "third" (also a noun) or "set" (also a verb).
  const lex::WordClasses wc = lex::word_classes(w);
  return wc.adj && !wc.verb && !wc.noun;
}

bool noun_like(const std::string& w) {
  if (w.empty() || lex::is_function_word(w)) return false;
  const lex::WordClasses wc = lex::word_classes(w);
  return wc.noun || wc.adj;
}

// (A string_view: comparing a std::string with a literal calls strlen at run time.)
bool is_main_copula(std::string_view w) {
  return w == "is" || w == "are" || w == "was" || w == "were" || w == "seems" || w == "seemed" ||
         w == "remains" || w == "remained" || w == "looks" || w == "looked" || w == "became" ||
         w == "becomes";
}

bool is_participle(const std::string& w) {
  static const std::unordered_set<std::string> irregular = {
      "been",   "done",  "made",  "left",  "lost",    "kept",    "found",  "told",    "said",
      "won",    "got",   "had",   "met",   "seen",    "taken",   "given",  "become",  "come",
      "gone",   "known", "shown", "run",   "begun",   "brought", "bought", "thought", "caught",
      "taught", "sent",  "spent", "built", "held",    "led",     "paid",   "put",     "set",
      "cut",    "hit",   "let",   "sold",  "written", "spoken",  "chosen", "grown"};
  return (w.size() > 4 && w.ends_with("ed")) || irregular.count(w) > 0;
}

// ---- shared edits ------------------------------------------------------------------------------

// An opener not used yet in this text, when there is one left.
std::string_view fresh_opener(Tone tone, std::unordered_set<std::string_view>& used, Rng& rng) {
  std::vector<std::string_view> left;
  for (auto o : lex::openers(tone))
    if (used.count(o) == 0) left.push_back(o);
  const std::string_view chosen = left.empty() ? rng.pick(lex::openers(tone)) : rng.pick(left);
  used.insert(chosen);
  return chosen;
}

// Puts an opener ("arguably,", "it seems that") in front of the sentence.
bool add_opener(Sentence& s, std::string_view opener, const Style& style, const Names& names) {
  const std::size_t f = s.first();
  if (f != 0 || s.question || s.word_count() < 3) return false;
  const std::string& w = s.low[f];
  const WordParts first = split_word(s.chunks[f].text);
  // Not before a connective, a speaker label ("Elena:") or a symbol ("<3").
  const bool letter_start =
      !first.core.empty() && ((first.core[0] >= 'a' && first.core[0] <= 'z') ||
                              (first.core[0] >= 'A' && first.core[0] <= 'Z'));
  const bool punct_next = f + 1 < s.chunks.size() && is_punct_chunk(s.chunks[f + 1].text) &&
                          s.chunks[f + 1].text.find_first_of(",:") == 0;
  // Nor before a participle ("Missing related work."), which often starts a verbless fragment.
  const bool participle = w.size() > 4 && (w.ends_with("ing") || w.ends_with("ed"));
  if (w == "and" || w == "but" || w == "or" || w == "so" || w == "yet" || !first.lead.empty() ||
      !letter_start || punct_next || participle ||
      first.trail.find_first_of(",:") != std::string_view::npos)
    return false;
  const bool cap = s.starts_capitalized() && style.casing != CaseStyle::kLower;
  s.chunks[f].text = decapitalize_initial(s.chunks[f].text, style, names);
  std::string text = cap ? capitalize(opener) : std::string(opener);
  if (style.tokenized) text = ptb_tokenize(text);
  auto pieces = to_chunks(text);
  for (auto& p : pieces) {
    p.space = " ";
    p.changed = true;
  }
  // Only the new chunks' words are new: the first word changed case, not its lower-case form.
  std::vector<std::string> lows;
  lows.reserve(pieces.size());
  for (const auto& p : pieces) lows.push_back(core_lower(p));
  s.chunks.insert(s.chunks.begin(), std::make_move_iterator(pieces.begin()),
                  std::make_move_iterator(pieces.end()));
  s.low.insert(s.low.begin(), std::make_move_iterator(lows.begin()),
               std::make_move_iterator(lows.end()));
  return true;
}

// The candidate as the sentence edits of R, P, N, H and S see it: its surface style, its layout,
// the capitalised words that are probably names, and the openers used so far (each at most once
// per text).
struct EditFrame {
  explicit EditFrame(const std::string& text) : EditFrame(analyze(text)) {}
  explicit EditFrame(Analysis analysis)
      : doc(std::move(analysis.doc)),
        style(analysis.style),
        names_owner(std::move(analysis.names)),
        names(*names_owner) {}
  // Puts an opener of `tone` not used yet in front of the sentence.
  bool add_opener(Sentence& s, Tone tone, Rng& rng) {
    return perturb::add_opener(s, fresh_opener(tone, used, rng), style, names);
  }

  Doc doc;
  Style style;
  std::shared_ptr<const Names> names_owner;
  const Names& names;
  std::unordered_set<std::string_view> used;
};

// Inserts an adjective after a determiner ("the team" -> "the impressive team").
bool add_adjective(Sentence& s, Tone tone, Rng& rng) {
  std::vector<std::size_t> spots;
  for (std::size_t i = 0; i + 1 < s.chunks.size(); ++i) {
    const std::string& w = s.low[i];
    if ((w != "a" && w != "an" && w != "the") || !split_word(s.chunks[i].text).trail.empty())
      continue;
    const std::string& next = s.low[i + 1];
    // A noun (or a noun's modifier) but not an evaluative or ordering word ("the best",
    // "the first"), where a second adjective would clash.
    if (s.bare(i + 1) && noun_like(next) && lex::word_classes(next).noun &&
        !lex::is_split_word(next) && lex::flip_antonym(next).empty() &&
        lex::intensify(next).empty() && !next.ends_with("est") && next != "first" &&
        next != "last" && next != "next" && next != "same" && next != "other" && next != "only")
      spots.push_back(i + 1);
  }
  if (spots.empty()) return false;
  // Two draws in a fixed order (the order of evaluating arguments is unspecified; this is the
  // order GCC used, so earlier GCC results stay as they were and clang builds now agree).
  const std::string word(rng.pick(lex::adjectives(tone)));
  s.insert(rng.pick(spots), word);
  return true;
}

// Inserts an adverb between a copula and an adjective ("was shocking" -> "was deeply
// shocking"). With `any_complement` the complement need not be an adjective ("is arguably the").
bool add_copula_adverb(Sentence& s, Tone tone, bool any_complement, Rng& rng) {
  std::vector<std::size_t> spots;
  for (std::size_t i = 0; i + 1 < s.chunks.size(); ++i) {
    if (!is_main_copula(s.low[i]) || !split_word(s.chunks[i].text).trail.empty()) continue;
    const std::string& next = s.low[i + 1];
    if (next.empty() || lex::is_negator(next) || next == "not") continue;
    if (any_complement ? !s.question : (s.word(i + 1) && adjective_like(next)))
      spots.push_back(i + 1);
  }
  if (spots.empty()) return false;
  // Two draws in a fixed order (the order of evaluating arguments is unspecified; this is the
  // order GCC used, so earlier GCC results stay as they were and clang builds now agree).
  const std::string word(rng.pick(lex::adverbs(tone)));
  s.insert(rng.pick(spots), word);
  return true;
}

// Ends a text with a period when it has no terminal punctuation, so that appended sentences do
// not run into it.
void terminate(std::string& text, const Style& style) {
  while (!text.empty() && (text.back() == ' ' || text.back() == '\t')) text.pop_back();
  if (text.empty()) return;
  // The text of the last chunk (empty when the text is all whitespace).
  std::string_view last, chunk, space;
  for (ChunkCursor cursor(text); cursor.next(chunk, space);) last = chunk;
  if (is_terminal_punct(last) || ends_sentence(last) || last.ends_with('"') ||
      last.ends_with("''") || last.ends_with(')'))
    return;
  text += style.tokenized ? " ." : ".";
}

void append_sentence(Line& line, std::string sentence) {
  std::string tail = line.gaps.back();
  line.gaps.back() = line.sentences.empty() ? "" : " ";
  line.gaps.push_back(std::move(tail));
  line.sentences.push_back(std::move(sentence));
}

// Runs `edit` on each sentence of item/text lines; the edit returns whether it changed anything.
// Every sentence is edited with probability `rate`; when none was picked the first editable one
// is, so that the manipulation always shows.
template <class Edit>
std::size_t edit_sentences(Doc& doc, double rate, Rng& rng, Edit&& edit) {
  std::size_t edited = 0;
  auto try_edit = [&](const SentenceRef& ref) {
    std::string& text = doc.lines[ref.line].sentences[ref.index];
    Sentence s(text);
    if (edit(s)) {
      text = s.text();
      ++edited;
    }
  };
  std::vector<SentenceRef> skipped;
  for (const auto& ref : sentence_refs(doc)) {
    if (rng.chance(rate)) {
      try_edit(ref);
    } else {
      skipped.push_back(ref);
    }
  }
  for (const auto& ref : skipped) {
    if (edited > 0) break;
    try_edit(ref);
  }
  return edited;
}

// Tries the edits in a random order and stops at the first that applies. (The order is a
// Fisher-Yates shuffle of their positions, drawn as when the edits themselves were shuffled in a
// vector of std::function, which allocated for every sentence.)
template <class... Edits>
bool one_of(Rng& rng, Edits&&... edits) {
  constexpr std::size_t n = sizeof...(Edits);
  std::array<std::size_t, n> order{};
  for (std::size_t i = 0; i < n; ++i) order[i] = i;
  for (std::size_t i = n; i > 1; --i) std::swap(order[i - 1], order[rng.below(i)]);
  for (std::size_t k : order) {
    std::size_t position = 0;
    bool applied = false;
    // Runs the edit at position k.
    (void)((position++ == k ? (applied = edits(), true) : false) || ...);
    if (applied) return true;
  }
  return false;
}

// ---- R: rephrase
// ---------------------------------------------------------------------------------

std::optional<lex::Pos> guess_pos(const std::string& prev, const std::string& w,
                                  const std::string& next) {
  const lex::WordClasses wc = lex::word_classes(w);
  if (wc.count() == 0) return std::nullopt;
  const bool next_is_noun =
      !next.empty() && !lex::is_function_word(next) && lex::word_classes(next).noun;
  if (wc.adv && w.ends_with("ly")) return lex::Pos::kAdv;
  if (wc.adj && next_is_noun && prev != "to" && !lex::is_modal(prev)) return lex::Pos::kAdj;
  if (wc.verb && (prev == "to" || lex::is_modal(prev) || lex::is_subject_pronoun(prev) ||
                  ((lex::is_copula(prev) || prev == "has" || prev == "have" || prev == "had") &&
                   (w.ends_with("ed") || w.ends_with("ing")))))
    return lex::Pos::kVerb;
  if (wc.noun && (lex::is_determiner(prev) || lex::is_preposition(prev) || prev == "'s"))
    return wc.adj && next_is_noun ? lex::Pos::kAdj : lex::Pos::kNoun;
  if (wc.count() == 1) {
    if (wc.noun) return lex::Pos::kNoun;
    if (wc.verb) return lex::Pos::kVerb;
    if (wc.adj) return lex::Pos::kAdj;
    return lex::Pos::kAdv;
  }
  return std::nullopt;
}

// Whether the neighbours allow the word to be read in `pos`: a noun not used as a modifier
// ("range rover") or after "to"; an adjective before a noun or after a copula (not "lost big");
// a verb not after a determiner ("the purchase").
bool fits(lex::Pos pos, const std::string& prev, const std::string& next) {
  const bool next_noun = noun_like(next) && !lex::is_split_word(next);
  switch (pos) {
    case lex::Pos::kNoun:
      return !next_noun && prev != "to" && !lex::is_modal(prev) && !lex::is_subject_pronoun(prev);
    case lex::Pos::kAdj:
      return (next_noun && lex::word_classes(next).noun) || is_main_copula(prev) ||
             prev == "very" || prev == "so" || prev == "too" || prev == "more" || prev == "most";
    case lex::Pos::kVerb:
      return !lex::is_determiner(prev);
    case lex::Pos::kAdv:
      return true;
  }
  return false;
}

bool has_quote_or_bracket(const Sentence& s) {
  for (const auto& c : s.chunks) {
    if (c.text.find_first_of("\"()[]`") != std::string::npos) return true;
    if (c.text.find("''") != std::string::npos || c.text.find("\u201c") != std::string::npos ||
        c.text.find("\u201d") != std::string::npos)
      return true;
  }
  return false;
}

// Moves a subordinate clause to the front ("A because B." -> "Because B, A.") or swaps two
// coordinated main clauses ("A, and the B." -> "The B, and A.").
bool reorder_clauses(Sentence& s, const Style& style, const Names& names, Rng& rng) {
  if (s.question || s.first() != 0 || has_quote_or_bracket(s)) return false;
  auto chunks = s.chunks;
  // Detach the terminal punctuation.
  std::string terminal;
  if (!chunks.empty() && is_terminal_punct(chunks.back().text)) {
    terminal = chunks.back().text;
    chunks.pop_back();
  } else if (!chunks.empty()) {
    const WordParts p = split_word(chunks.back().text);
    if (p.trail == "." || p.trail == "!" || p.trail == "?") {
      terminal = std::string(p.trail);
      chunks.back().text = std::string(p.lead) + std::string(p.core);
    }
  }
  if (terminal.empty() || chunks.size() < 7) return false;
  auto words = [&](std::size_t b, std::size_t e) {
    std::size_t n = 0;
    for (std::size_t i = b; i < e; ++i) n += has_alnum(chunks[i].text) ? 1 : 0;
    return n;
  };
  auto clean_clause = [&](std::size_t b, std::size_t e) {
    for (std::size_t i = b; i < e; ++i)
      if (ends_clause(chunks[i].text) && i + 1 < e) return false;
    return true;
  };
  auto comma_before = [&](std::size_t k) {
    return k > 0 && (chunks[k - 1].text == "," || split_word(chunks[k - 1].text).trail == ",");
  };
  struct Option {
    std::size_t k;
    bool fronting;  // subordinator fronting, else coordination swap
  };
  std::vector<Option> options;
  for (std::size_t k = 1; k + 1 < chunks.size(); ++k) {
    const std::string low = core_lower(chunks[k]);
    if (!split_word(chunks[k].text).lead.empty() || !split_word(chunks[k].text).trail.empty())
      continue;
    const std::size_t a_end = comma_before(k) ? k - 1 : k;
    // The moved clause must be comma-free so that it is exactly the subordinate clause; the
    // main clause may contain commas.
    if (lex::is_subordinator(low) && words(0, a_end) >= 3 && words(k + 1, chunks.size()) >= 3 &&
        clean_clause(k + 1, chunks.size()))
      options.push_back({k, true});
    if (low == "and" && comma_before(k) && words(0, a_end) >= 4 &&
        words(k + 1, chunks.size()) >= 4 && clean_clause(k + 1, chunks.size()) &&
        clean_clause(0, a_end)) {
      const std::string b_first = core_lower(chunks[k + 1]);
      const bool name = style.casing == CaseStyle::kNatural &&
                        is_capitalized(split_word(chunks[k + 1].text).core);
      if ((lex::is_determiner(b_first) && b_first != "this" && b_first != "that") || name)
        options.push_back({k, false});
    }
  }
  if (options.empty()) return false;
  const Option opt = rng.pick(options);
  const std::size_t a_end = comma_before(opt.k) ? opt.k - 1 : opt.k;
  const bool cap = s.starts_capitalized() && style.casing != CaseStyle::kLower;

  std::vector<Chunk> a(chunks.begin(), chunks.begin() + static_cast<std::ptrdiff_t>(a_end));
  std::vector<Chunk> b(chunks.begin() + static_cast<std::ptrdiff_t>(opt.k + 1), chunks.end());
  if (!a.empty()) {
    const WordParts p = split_word(a.back().text);
    if (p.trail == ",") a.back().text = std::string(p.lead) + std::string(p.core);
  }
  a.front().text = decapitalize_initial(a.front().text, style, names);
  std::vector<Chunk> out;
  auto push_comma = [&] {
    if (style.tokenized)
      out.push_back(new_chunk(","));
    else
      out.back().text += ",";
  };
  if (opt.fronting) {
    out.push_back(new_chunk(cap ? capitalize(chunks[opt.k].text) : chunks[opt.k].text));
    out.insert(out.end(), b.begin(), b.end());
    push_comma();
    out.insert(out.end(), a.begin(), a.end());
  } else {
    if (cap) b.front().text = capitalize(b.front().text);
    out.insert(out.end(), b.begin(), b.end());
    push_comma();
    out.push_back(new_chunk(chunks[opt.k].text));
    out.insert(out.end(), a.begin(), a.end());
  }
  // Spacing is rebuilt; only the inserted comma and the moved connective count as edits, so
  // articles elsewhere are left alone.
  for (auto& c : out) c.space.assign(1, ' ');
  if (style.tokenized) {
    out.push_back(new_chunk(terminal));
  } else {
    out.back().text += terminal;
  }
  out.back().space.clear();
  s.chunks = std::move(out);
  s.refresh();
  return true;
}

// Replaces some content words by a safe synonym (curated list, else WordNet first sense).
std::size_t substitute_synonyms(Sentence& s, const Style& style, const Names& names, double rate,
                                Rng& rng) {
  std::size_t done = 0;
  const std::size_t first = s.first();
  for (std::size_t i = 0; i < s.chunks.size(); ++i) {
    const std::string& w = s.low[i];
    if (w.size() < 3 || lex::is_function_word(w) || names.count(w) > 0) continue;
    const std::string_view core = split_word(s.chunks[i].text).core;
    if (!plain_word(core)) continue;
    // A capital mid-sentence marks a name in natural text.
    if (style.casing == CaseStyle::kNatural && is_capitalized(core) && i != first) continue;
    if (has_upper(core.substr(1))) continue;
    if (!rng.chance(rate)) continue;
    const std::string& prev = s.prev(i);
    const std::string& next = s.next(i);
    const lex::Synonym curated = lex::curated_synonym(w);
    std::string synonym;
    if (!curated.word.empty()) {
      if (fits(curated.pos, prev, next)) synonym = curated.word;
    } else if (auto pos = guess_pos(prev, w, next);
               pos && *pos != lex::Pos::kVerb && fits(*pos, prev, next)) {
      // Verbs come only from the curated list: WordNet's verb synsets are too fine-grained
      // ("focus" -> "rivet") and their inflection too irregular to substitute blindly.
      synonym = lex::wordnet_synonym(w, *pos);
    }
    if (synonym.empty() || synonym == w) continue;
    s.replace_word(i, synonym);
    ++done;
  }
  return done;
}

class Rephrase final : public RuleStrategy {
 public:
  Rephrase()
      : RuleStrategy(StrategyKind::kManipulation, "R", "rephrase",
                     "same meaning and structure: safe synonyms (curated list, WordNet first "
                     "sense) for some content words, and clause reordering around subordinators "
                     "and coordinators",
                     "synonym rate 0.35 per content word; reorder rate 0.5 per sentence") {
    set_languages({"en"});  // WordNet and English clause syntax
  }

 protected:
  PerturbResult run(const PerturbContext& context, std::string_view, Rng& rng) const override {
    EditFrame f(context.candidate_ref().text);
    std::size_t reordered = 0, substituted = 0;
    auto edit = [&](Sentence& s, double rate) {
      bool changed = false;
      if (rng.chance(0.5) && reorder_clauses(s, f.style, f.names, rng)) {
        ++reordered;
        changed = true;
      }
      const std::size_t n = substitute_synonyms(s, f.style, f.names, rate, rng);
      substituted += n;
      return changed || n > 0;
    };
    std::size_t edited =
        edit_sentences(f.doc, 1.0, rng, [&](Sentence& s) { return edit(s, 0.35); });
    if (edited == 0) {
      // Nothing was drawn: take every available synonym once rather than report no change.
      edited = edit_sentences(f.doc, 1.0, rng, [&](Sentence& s) { return edit(s, 1.0); });
    }
    if (edited == 0) return unchanged("no word with a safe synonym and no clause to reorder");
    return applied(render_doc(f.doc),
                   fmt::format("{} synonyms, {} clauses reordered", substituted, reordered));
  }
};

// ---- German sentence edits (P, N, H, S) --------------------------------------------------------

bool is_de_pronoun(std::string_view w) {
  return w == "ich" || w == "du" || w == "er" || w == "sie" || w == "es" || w == "wir" ||
         w == "ihr" || w == "ihn" || w == "ihm" || w == "ihnen" || w == "uns" || w == "euch" ||
         w == "mich" || w == "dich" || w == "sich" || w == "mir" || w == "dir" || w == "man";
}

// Where a German sentence adverb goes: right after the finite verb of the main clause and the
// personal pronouns after it ("Heute ist es | kalt"), within the first eight words and before any
// comma (a verb after a comma or a subordinator ends its clause); npos when there is no such
// place (questions, verb-first sentences, verbs outside the lexicon).
std::size_t de_adverb_slot(const Sentence& s) {
  constexpr std::size_t npos = std::string::npos;
  if (s.question) return npos;
  const std::size_t f = s.first();
  std::size_t words = 0;
  for (std::size_t i = f; i < s.chunks.size(); ++i) {
    const std::string& w = s.low[i];
    const WordParts p = split_word(s.chunks[i].text);
    if (w.empty()) {
      if (s.chunks[i].text.find_first_of(",;:()") != std::string::npos) return npos;
      continue;
    }
    if (lex::de::is_subordinator(w) || ++words > 8) return npos;
    if (i > f && p.lead.empty() && lex::de::is_finite_verb(w)) {
      if (!p.trail.empty()) return npos;
      std::size_t j = i + 1;
      while (j < s.chunks.size() && is_de_pronoun(s.low[j]) &&
             split_word(s.chunks[j].text).trail.empty())
        ++j;
      if (j >= s.chunks.size() || s.low[j].empty() || !split_word(s.chunks[j].text).lead.empty())
        return npos;
      return j;
    }
    if (p.trail.find_first_of(",;:)") != std::string_view::npos) return npos;
  }
  return npos;
}

// "Der Bericht ist vollständig" -> "Der Bericht ist leider vollständig".
bool de_add_adverb(Sentence& s, Tone tone, const Style& style, Rng& rng) {
  const std::size_t at = de_adverb_slot(s);
  if (at == std::string::npos) return false;
  std::string adverb(rng.pick(lex::de::adverbs(tone)));
  if (style.casing == CaseStyle::kLower) adverb = text::ascii_lower(adverb);
  s.insert(at, std::move(adverb));
  return true;
}

// "immer" -> "oft", "sehr" -> "recht", "alle Studien" -> "die meisten Studien".
bool de_soften_words(Sentence& s) {
  bool changed = false;
  for (std::size_t i = 0; i < s.chunks.size(); ++i) {
    if (s.low[i].empty()) continue;
    const std::string softer = lex::de::soften(s.low[i]);
    if (softer.empty()) continue;
    const WordParts p = split_word(s.chunks[i].text);
    if (p.core.empty() || !p.lead.empty() || !p.trail.empty() || i + 1 >= s.chunks.size() ||
        s.low[i + 1].empty())
      continue;
    // Under a negation the softer word says something else ("nicht alle" is not "nicht die
    // meisten", "nicht immer" not "nicht oft").
    if (s.prev(i) == "nicht") continue;
    // "alle"/"allen"/"aller" only as a determiner before a (capitalised) noun: not "wir alle".
    if (s.low[i].starts_with("all")) {
      const WordParts next = split_word(s.chunks[i + 1].text);
      if (next.core.empty() || !(next.core[0] >= 'A' && next.core[0] <= 'Z')) continue;
    }
    s.replace_word(i, softer);
    changed = true;
  }
  return changed;
}

// "gute" -> "hervorragende", "sehr" -> "äußerst", "viele" -> "unzählige".
bool de_intensify_words(Sentence& s) {
  bool changed = false;
  for (std::size_t i = 0; i < s.chunks.size(); ++i) {
    if (s.low[i].empty()) continue;
    const WordParts p = split_word(s.chunks[i].text);
    // Lower case in the text: an adjective or adverb, not a noun ("das Gute"); not after a degree
    // adverb, which may just have been strengthened ("sehr hoch" -> "äußerst hoch", not
    // "äußerst extrem hoch").
    if (p.core.empty() || !p.lead.empty() || p.core != s.low[i]) continue;
    const std::string& prev = s.prev(i);
    if (prev == "sehr" || prev == "äußerst" || prev == "ziemlich" || prev == "extrem" ||
        prev == "besonders" || prev == "so" || prev == "zu" || prev == "recht" ||
        prev == "überaus" || prev == "ganz" || prev == "wirklich")
      continue;
    const std::string stronger = lex::de::intensify(s.low[i]);
    if (stronger.empty()) continue;
    s.replace_word(i, stronger);
    changed = true;
  }
  return changed;
}

// ---- M: meaningless elongation ---------------------------------------------------------------

class MeaninglessElongation final : public RuleStrategy {
 public:
  MeaninglessElongation()
      : RuleStrategy(StrategyKind::kManipulation, "M", "meaningless-elongation",
                     "append one fixed, content-free filler paragraph (identical for all items)",
                     "filler v1, rendered in the candidate's case/tokenization style") {
    set_languages({"en", "de"});
  }

 protected:
  PerturbResult run(const PerturbContext& context, std::string_view lang, Rng&) const override {
    std::string text = context.candidate_ref().text;
    const Style style = analyze_style(text);
    const std::string& filler =
        render_phrase(lang == "de" ? lex::de::filler_paragraph() : lex::filler_paragraph(), style);
    while (!text.empty() && (text.back() == ' ' || text.back() == '\n' || text.back() == '\t' ||
                             text.back() == '\r'))
      text.pop_back();
    if (text.empty()) return applied(filler);
    terminate(text, style);
    // A multi-line answer gets the filler as its own paragraph; a one-line answer stays one line.
    const char* sep = text.find('\n') != std::string::npos ? "\n\n" : " ";
    return applied(text + sep + filler);
  }
};

// ---- P / N: positive and negative shift ------------------------------------------------------

class SentimentShift : public RuleStrategy {
 public:
  explicit SentimentShift(Tone tone)
      : RuleStrategy(StrategyKind::kManipulation, tone == Tone::kPositive ? "P" : "N",
                     tone == Tone::kPositive ? "positive-shift" : "negative-shift",
                     tone == Tone::kPositive
                         ? "inject positive sentiment: evaluative openers, adjectives and "
                           "adverbs, and a positive framing sentence (no task facts)"
                         : "inject negative sentiment: evaluative openers, adjectives and "
                           "adverbs, and a negative framing sentence (no task facts)",
                     "rate 0.6 per sentence, one edit each; one framing sentence at the end"),
        tone_(tone) {
    set_languages({"en", "de"});
  }

 protected:
  PerturbResult run(const PerturbContext& context, std::string_view lang, Rng& rng) const override {
    const std::string& text = context.candidate_ref().text;
    EditFrame f(text);
    const bool german = lang == "de";
    // German: a sentence adverb after the finite verb ("ist leider"); its word order leaves no
    // room for English-style openers.
    const std::size_t edited =
        german ? edit_sentences(f.doc, 0.6, rng,
                                [&](Sentence& s) { return de_add_adverb(s, tone_, f.style, rng); })
               : edit_sentences(f.doc, 0.6, rng, [&](Sentence& s) {
                   return one_of(
                       rng, [&] { return f.add_opener(s, tone_, rng); },
                       [&] { return add_adjective(s, tone_, rng); },
                       [&] { return add_copula_adverb(s, tone_, false, rng); });
                 });
    // The framing sentence closes the last paragraph or list item.
    const std::string& framing =
        render_phrase(rng.pick(german ? lex::de::framings(tone_) : lex::framings(tone_)), f.style);
    Line* last = nullptr;
    for (auto& line : f.doc.lines)
      if (line.kind == Line::Kind::kText || line.kind == Line::Kind::kItem) last = &line;
    if (last == nullptr) return applied(text.empty() ? framing : text + "\n" + framing);
    if (!last->sentences.empty()) terminate(last->sentences.back(), f.style);
    append_sentence(*last, framing);
    return applied(render_doc(f.doc), fmt::format("{} sentences edited + framing", edited));
  }

 private:
  Tone tone_;
};

class PositiveShift final : public SentimentShift {
 public:
  PositiveShift() : SentimentShift(Tone::kPositive) {}
};
class NegativeShift final : public SentimentShift {
 public:
  NegativeShift() : SentimentShift(Tone::kNegative) {}
};

// ---- H: hedged shift -------------------------------------------------------------------------

// "is" -> "may be", "has shown" -> "may have shown", "shows that" -> "seems to show that".
bool hedge_first_verb(Sentence& s) {
  if (s.question) return false;
  for (std::size_t i = 0; i < s.chunks.size(); ++i) {
    const std::string& w = s.low[i];
    if (w.empty() || !s.bare(i)) continue;
    const std::string& prev = s.prev(i);
    const std::string& next = s.next(i);
    if (lex::is_modal(prev) || prev == "to" || lex::is_negator(prev) || lex::is_determiner(prev))
      continue;
    // Hedge the main clause, not a subordinate one ("when he was 12").
    bool subordinate = false;
    for (std::size_t k = i, seen = 0; k-- > 0 && seen < 3;) {
      if (s.low[k].empty()) continue;
      ++seen;
      subordinate |= lex::is_subordinator(s.low[k]) || s.low[k] == "as" || s.low[k] == "since";
    }
    if (subordinate) continue;
    if (lex::is_negator(next) || next == "not") continue;
    std::string hedged;
    if ((w == "has" || w == "have") && is_participle(next)) {
      hedged = "may have";
    } else {
      hedged = lex::hedge_verb(w);
      if (hedged.empty()) continue;
      // Content verbs need an object clause or phrase to be verbs at all ("tv shows are").
      if (!lex::is_copula(w) && w != "will" && w != "can" &&
          !(next == "that" || next == "how" || lex::is_determiner(next)))
        continue;
    }
    s.replace_word(i, hedged);
    return true;
  }
  return false;
}

bool soften_words(Sentence& s) {
  bool changed = false;
  for (std::size_t i = 0; i < s.chunks.size(); ++i) {
    const std::string softer = lex::soften(s.low[i]);
    if (softer.empty()) continue;
    const std::string& next = s.next(i);
    if (s.low[i] == "very" &&
        (next == "much" || next == "many" || next == "few" || next == "little" || next == "own"))
      continue;
    s.replace_word(i, softer);
    changed = true;
  }
  return changed;
}

// The frame of H and S: 70% of the sentences get one edit, the first that applies of the
// shift's edits tried in random order.
class ClaimShift : public RuleStrategy {
 public:
  // `edited` completes the notes: "3 sentences <edited>", "no sentence could be <edited>".
  ClaimShift(std::string code, std::string name, std::string description, std::string edited)
      : RuleStrategy(StrategyKind::kManipulation, std::move(code), std::move(name),
                     std::move(description), "rate 0.7 per sentence, one edit each"),
        edited_(std::move(edited)) {
    set_languages({"en", "de"});
  }

 protected:
  // One sentence's edit; false when none of the shift's edits applies.
  virtual bool edit(Sentence& s, EditFrame& f, Rng& rng) const = 0;
  // The same for a German sentence.
  virtual bool edit_de(Sentence& s, EditFrame& f, Rng& rng) const = 0;

  PerturbResult run(const PerturbContext& context, std::string_view lang, Rng& rng) const final {
    EditFrame f(context.candidate_ref().text);
    const bool german = lang == "de";
    const std::size_t edited = edit_sentences(f.doc, 0.7, rng, [&](Sentence& s) {
      return german ? edit_de(s, f, rng) : edit(s, f, rng);
    });
    if (edited == 0) return unchanged("no sentence could be " + edited_);
    return applied(render_doc(f.doc), fmt::format("{} sentences {}", edited, edited_));
  }

 private:
  std::string edited_;
};

class HedgedShift final : public ClaimShift {
 public:
  HedgedShift()
      : ClaimShift("H", "hedged-shift",
                   "hedge the claims: openers (\"it seems that\", \"arguably\"), modal "
                   "softening (\"is\" -> \"may be\"), softened adverbs and quantifiers",
                   "hedged") {}

 protected:
  bool edit(Sentence& s, EditFrame& f, Rng& rng) const override {
    return one_of(
        rng, [&] { return f.add_opener(s, Tone::kHedged, rng); },
        [&] { return hedge_first_verb(s); },
        [&] { return add_copula_adverb(s, Tone::kHedged, true, rng); },
        [&] { return soften_words(s); });
  }
  bool edit_de(Sentence& s, EditFrame& f, Rng& rng) const override {
    return one_of(
        rng, [&] { return de_add_adverb(s, Tone::kHedged, f.style, rng); },
        [&] { return de_soften_words(s); });
  }
};

// ---- S: strong / extreme shift ---------------------------------------------------------------

bool intensify_words(Sentence& s) {
  bool changed = false;
  for (std::size_t i = 0; i < s.chunks.size(); ++i) {
    const std::string& w = s.low[i];
    const std::string stronger = lex::intensify(w);
    if (stronger.empty() || !s.word(i)) continue;
    const std::string& prev = s.prev(i);
    const std::string& next = s.next(i);
    if (lex::is_fixed_collocation(w, next) || lex::is_fixed_collocation(prev, w)) continue;
    if ((w == "many" || w == "very") &&
        (next == "of" || next == "than" || next == "much" || next == "more" || prev == "how" ||
         prev == "so" || prev == "too" || prev == "as"))
      continue;
    // Scalar adjectives only where they are adjectives: before a noun or after a copula (not
    // "lost big").
    const bool adverb = w == "very" || w == "really" || w == "fairly" || w == "many";
    if (!adverb && !(noun_like(next) && lex::word_classes(next).noun) && !is_main_copula(prev) &&
        prev != "so" && prev != "too" && prev != "'s" && prev != "'re")
      continue;
    s.replace_word(i, stronger);
    changed = true;
  }
  return changed;
}

// "a dramatic video" -> "the most dramatic video", "a good result" -> "the best result".
bool superlative(Sentence& s) {
  static const std::unordered_map<std::string, std::string> irregular = {
      {"good", "best"},     {"great", "greatest"}, {"bad", "worst"},       {"big", "biggest"},
      {"large", "largest"}, {"small", "smallest"}, {"strong", "strongest"}};
  for (std::size_t i = 0; i + 2 < s.chunks.size(); ++i) {
    if ((s.low[i] != "a" && s.low[i] != "an") || !s.bare(i) || !s.bare(i + 1)) continue;
    const std::string& adj = s.low[i + 1];
    if (!noun_like(s.low[i + 2]) || !split_word(s.chunks[i + 2].text).lead.empty()) continue;
    if (auto it = irregular.find(adj); it != irregular.end()) {
      s.replace_word(i, "the");
      s.replace_word(i + 1, it->second);
      return true;
    }
    if (lex::is_gradable(adj)) {
      s.replace_word(i, "the most");
      return true;
    }
  }
  return false;
}

// "was shocking" / "a dramatic video" -> "was extremely shocking" / "a truly dramatic video".
bool add_intensifier(Sentence& s, Rng& rng) {
  std::vector<std::size_t> spots;
  for (std::size_t i = 0; i + 1 < s.chunks.size(); ++i) {
    const std::string& w = s.low[i];
    const std::string& next = s.low[i + 1];
    if (!split_word(s.chunks[i].text).trail.empty() || !s.word(i + 1)) continue;
    if (is_main_copula(w) && adjective_like(next)) spots.push_back(i + 1);
    if (lex::is_determiner(w) && lex::is_gradable(next)) spots.push_back(i + 1);
  }
  if (spots.empty()) return false;
  // Two draws sequenced explicitly: as arguments of one call their order was the compiler's
  // choice (GCC drew the adverb first, clang the spot), so outputs differed between compilers.
  std::string adverb(rng.pick(lex::adverbs(Tone::kStrong)));
  const std::size_t spot = rng.pick(spots);
  s.insert(spot, std::move(adverb));
  return true;
}

class StrongShift final : public ClaimShift {
 public:
  StrongShift()
      : ClaimShift("S", "strong-shift",
                   "make the claims extreme: intensifiers (\"extremely\", \"absolutely\"), "
                   "stronger scalar words, superlatives (\"the best\"), emphatic openers",
                   "intensified") {}

 protected:
  bool edit(Sentence& s, EditFrame& f, Rng& rng) const override {
    return one_of(
        rng, [&] { return intensify_words(s); }, [&] { return superlative(s); },
        [&] { return add_intensifier(s, rng); },
        [&] { return f.add_opener(s, Tone::kStrong, rng); });
  }
  bool edit_de(Sentence& s, EditFrame& f, Rng& rng) const override {
    return one_of(
        rng, [&] { return de_intensify_words(s); },
        [&] { return de_add_adverb(s, Tone::kStrong, f.style, rng); });
  }
};

}  // namespace

std::optional<std::string> substitute_synonyms_once(std::string_view text, Rng& rng) {
  EditFrame f{std::string(text)};
  std::size_t substituted = 0;
  // Most sentences keep their words; where nothing was drawn, every safe synonym of one pass.
  for (double rate : {0.35, 1.0}) {
    edit_sentences(f.doc, 0.5, rng, [&](Sentence& s) {
      const std::size_t n = substitute_synonyms(s, f.style, f.names, rate, rng);
      substituted += n;
      return n > 0;
    });
    if (substituted > 0) break;
  }
  if (substituted == 0) return std::nullopt;
  return render_doc(f.doc);
}

std::vector<PerturbationInfo> manipulation_infos() {
  return infos_of<Rephrase, MeaninglessElongation, PositiveShift, NegativeShift, HedgedShift,
                  StrongShift>();
}

}  // namespace probity::perturb
