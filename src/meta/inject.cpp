// Rule-based error injectors for the automatic meta-evaluation benchmarks (arXiv:2502.12052, ACL
// 2025 §"benchmark construction"). Each injector makes exactly one edit to a text under cumulative
// editing and never touches tokens an earlier step produced, so errors accumulate and quality
// decreases monotonically. Choices come from a SplitMix64 stream of the given seed.
#include <fmt/format.h>

#include <algorithm>
#include <array>
#include <cctype>
#include <stdexcept>
#include <unordered_set>

#include "perturb/lexicon.hpp"
#include "perturb/textops.hpp"
#include "probity/meta.hpp"
#include "probity/text.hpp"
#include "text/ascii.hpp"
#include "util/enum_names.hpp"
#include "util/hash.hpp"
#include "util/random.hpp"

namespace probity::meta {
namespace {

using Rng = util::SplitMix64;
using Sentence = EditableText::Sentence;
using Token = EditableText::Token;

// ---- word helpers -------------------------------------------------------------------------------

struct Parts {
  std::string lead, core, trail;
};

// Leading punctuation, the word, trailing punctuation; a possessive "'s" stays in the trail so
// that "Sterling's" can become "Stiviano's".
Parts parts_of(std::string_view token) {
  const auto wp = perturb::split_word(token);
  Parts p{std::string(wp.lead), std::string(wp.core), std::string(wp.trail)};
  for (std::string_view pos : {"'s", "\u2019s"}) {
    if (p.core.size() > pos.size() + 1 && std::string_view(p.core).ends_with(pos)) {
      p.trail = p.core.substr(p.core.size() - pos.size()) + p.trail;
      p.core.resize(p.core.size() - pos.size());
      break;
    }
  }
  return p;
}

bool is_alpha_word(std::string_view s) {
  if (s.empty()) return false;
  for (char c : s)
    if (!std::isalpha(static_cast<unsigned char>(c)) && c != '-') return false;
  return std::isalpha(static_cast<unsigned char>(s.front())) != 0;
}

bool has_digit(std::string_view s) {
  return std::any_of(s.begin(), s.end(), [](char c) { return c >= '0' && c <= '9'; });
}

bool plain(const Parts& p) {
  return p.lead.empty() && p.trail.empty();
}

// Function words duplicated or dropped by the fluency injectors: frequent, and their loss or
// repetition is a grammatical slip rather than a change of meaning.
const std::unordered_set<std::string>& slip_words() {
  static const std::unordered_set<std::string> set = {
      "the", "a",    "an",   "of",   "to",   "in", "on",   "for", "with",
      "at",  "by",   "from", "that", "and",  "is", "was",  "are", "were",
      "has", "have", "had",  "be",   "been", "as", "into", "its", "their"};
  return set;
}

const std::array<std::pair<std::string_view, std::string_view>, 8> kAgreement = {{
    {"is", "are"},
    {"are", "is"},
    {"was", "were"},
    {"were", "was"},
    {"has", "have"},
    {"have", "has"},
    {"does", "do"},
    {"do", "does"},
}};

// Auxiliaries and copulas a "not" can follow.
const std::unordered_set<std::string>& negatable() {
  static const std::unordered_set<std::string> set = {
      "is",    "was",   "are",    "were", "has", "have", "had",  "will",  "can",
      "could", "would", "should", "does", "did", "do",   "must", "might", "may"};
  return set;
}

// Sentence-initial connectives that assert a discourse relation (cause, contrast, result) the
// text does not have.
constexpr std::array<std::string_view, 8> kConnectives = {
    "However,",      "Therefore,",    "In contrast,",     "As a result,",
    "Consequently,", "Nevertheless,", "For this reason,", "On the other hand,"};

// In-sentence connectives and a replacement asserting a different relation.
const std::array<std::pair<std::string_view, std::string_view>, 11> kConnectiveSwaps = {{
    {"because", "although"},
    {"although", "because"},
    {"though", "because"},
    {"but", "so"},
    {"so", "but"},
    {"however", "therefore"},
    {"therefore", "however"},
    {"while", "because"},
    {"since", "although"},
    {"thus", "however"},
    {"and", "but"},  // only after a comma: clause coordination, not "Smith and Jones"
}};

// Claims with no support in any source: plausible news-summary sentences about an entity of
// the text ({} is replaced) or about nobody in particular.
constexpr std::array<std::string_view, 8> kEntityClaims = {
    "{} has since denied all of the allegations.",
    "{} was previously fined for a similar offence in 2009.",
    "Officials said {} would face further questioning next month.",
    "{} later apologised in a written statement.",
    "The case against {} is expected to cost more than $4 million.",
    "{} declined to comment when contacted by reporters.",
    "Police said {} had been under investigation for two years.",
    "{} is set to appeal the decision at a higher court."};
constexpr std::array<std::string_view, 4> kPlainClaims = {
    "Officials said the decision would be reviewed next month.",
    "The report was later withdrawn after complaints from several experts.",
    "Similar incidents have been recorded in three other countries this year.",
    "A full inquiry is expected to publish its findings in the spring."};

constexpr std::array<std::string_view, 10> kNumberWords = {
    "two", "three", "four", "five", "six", "seven", "eight", "nine", "ten", "twelve"};

// ---- positions ----------------------------------------------------------------------------------

struct Pos {
  std::size_t s = 0, t = 0;
};

// Positions of the tokens t of every sentence, first <= t < size - last, for which
// want(tokens, t) holds, in text order (a seeded pick among them depends on that order).
template <class Want>
std::vector<Pos> token_spots(const EditableText& text, std::size_t first, std::size_t last,
                             Want want) {
  std::vector<Pos> spots;
  for (std::size_t s = 0; s < text.sentences.size(); ++s) {
    const auto& toks = text.sentences[s].tokens;
    for (std::size_t t = first; t + last < toks.size(); ++t)
      if (want(toks, t)) spots.push_back({s, t});
  }
  return spots;
}

std::size_t flat(const EditableText& text, std::size_t s, std::size_t t) {
  std::size_t n = 0;
  for (std::size_t i = 0; i < s; ++i) n += text.sentences[i].tokens.size();
  return n + t;
}

std::vector<Token> make_tokens(std::string_view sentence, bool touched) {
  std::vector<Token> out;
  for (auto w : text::split_whitespace(sentence)) out.push_back({std::string(w), touched});
  return out;
}

// Whitespace splitting on any space character (split_whitespace splits on ASCII spaces only).
std::string normalize_space(std::string_view s) {
  std::string out;
  bool space = false;
  for (char c : s) {
    if (c == ' ' || c == '\t' || c == '\n' || c == '\r' || c == '\f' || c == '\v') {
      space = true;
      continue;
    }
    if (space && !out.empty()) out += ' ';
    space = false;
    out += c;
  }
  return out;
}

template <class T>
const T& pick(Rng& rng, const std::vector<T>& v) {
  return v[rng.below(v.size())];
}

// Token-level edit helpers: each returns the Edit record of exactly the region it changed.
Edit replace_token(EditableText& text, Pos p, std::string replacement, std::string type,
                   std::string description) {
  auto& tok = text.sentences[p.s].tokens[p.t];
  tok.text = std::move(replacement);
  tok.touched = true;
  return {std::move(type), std::move(description), flat(text, p.s, p.t), 1, 1};
}

Edit insert_tokens(EditableText& text, Pos p, const std::vector<Token>& tokens, std::string type,
                   std::string description) {
  auto& toks = text.sentences[p.s].tokens;
  toks.insert(toks.begin() + static_cast<std::ptrdiff_t>(p.t), tokens.begin(), tokens.end());
  return {std::move(type), std::move(description), flat(text, p.s, p.t), 0, tokens.size()};
}

Edit insert_sentence(EditableText& text, std::size_t at, std::vector<Token> tokens,
                     std::string type, std::string description) {
  Sentence s;
  s.tokens = std::move(tokens);
  s.origin = text.next_origin++;
  s.inserted = true;
  const std::size_t n = s.tokens.size();
  const std::size_t begin = flat(text, at, 0);
  text.sentences.insert(text.sentences.begin() + static_cast<std::ptrdiff_t>(at), std::move(s));
  return {std::move(type), std::move(description), begin, 0, n};
}

// A boundary between sentences (0 = before the first) drawn uniformly, the first excluded when
// there is another choice: a new first sentence reads as a new lead, a different error.
std::size_t boundary(const EditableText& text, Rng& rng) {
  const std::size_t n = text.sentences.size();
  if (n == 0) return 0;
  return 1 + rng.below(n);
}

std::string quote(std::string_view s) {
  return fmt::format("'{}'", s);
}

// ---- consistency --------------------------------------------------------------------------------

// A name-like word: capitalised (or an acronym), alphabetic, not a function word.
bool is_name_word(const Parts& p) {
  return p.core.size() >= 2 && is_alpha_word(p.core) && perturb::is_capitalized(p.core) &&
         !perturb::lex::is_function_word(text::ascii_lower(p.core));
}

// Entity mentions of a sentence: maximal runs of name-like words not broken by punctuation
// ("Salt Lake City", "FBI"). A one-word run at the start of the sentence is left out: its
// capital says nothing ("Police believe ...").
std::vector<std::pair<std::size_t, std::size_t>> entity_runs(
    const std::vector<std::string_view>& words) {
  std::vector<std::pair<std::size_t, std::size_t>> runs;
  std::size_t t = 0;
  while (t < words.size()) {
    if (!is_name_word(parts_of(words[t]))) {
      ++t;
      continue;
    }
    std::size_t end = t + 1;
    // A run continues while the previous word has no closing punctuation (a possessive "'s"
    // ends it too: "Sterling's wife").
    while (end < words.size() && parts_of(words[end - 1]).trail.empty() &&
           parts_of(words[end]).lead.empty() && is_name_word(parts_of(words[end])))
      ++end;
    if (!(t == 0 && end == 1)) runs.emplace_back(t, end);
    t = end;
  }
  return runs;
}

// The words of a run without the punctuation around it ("(Salt Lake City," → "Salt Lake City").
std::string run_text(const std::vector<std::string_view>& words, std::size_t begin,
                     std::size_t end) {
  std::string out;
  for (std::size_t i = begin; i < end; ++i) {
    if (!out.empty()) out += ' ';
    out += parts_of(words[i]).core;
  }
  return out;
}

std::vector<std::string> names_in(std::string_view text) {
  std::vector<std::string> out;
  std::unordered_set<std::string> seen;
  for (const auto& sentence : text::split_sentences(text)) {
    const std::string norm = normalize_space(sentence);
    const auto words = text::split_whitespace(norm);
    for (const auto& [b, e] : entity_runs(words)) {
      std::string name = run_text(words, b, e);
      if (seen.insert(text::ascii_lower(name)).second) out.push_back(std::move(name));
    }
  }
  return out;
}

std::vector<std::string_view> views(const std::vector<Token>& tokens) {
  std::vector<std::string_view> out;
  for (const auto& t : tokens) out.push_back(t.text);
  return out;
}

std::optional<Edit> swap_entity(EditableText& text, const InjectionContext& ctx, Rng& rng) {
  struct Spot {
    std::size_t s, begin, end;
  };
  std::unordered_set<std::string> present;
  std::vector<Spot> spots;
  for (std::size_t s = 0; s < text.sentences.size(); ++s) {
    const auto& toks = text.sentences[s].tokens;
    const auto words = views(toks);
    for (const auto& [b, e] : entity_runs(words)) {
      present.insert(text::ascii_lower(run_text(words, b, e)));
      bool touched = false;
      for (std::size_t i = b; i < e; ++i) touched = touched || toks[i].touched;
      if (!touched) spots.push_back({s, b, e});
    }
  }
  if (spots.empty()) return std::nullopt;
  // Replacement names: from the source first (a wrong but on-topic entity), else other texts.
  std::vector<std::string> pool;
  for (const auto& n : names_in(ctx.source))
    if (!present.count(text::ascii_lower(n))) pool.push_back(n);
  if (pool.empty()) {
    for (auto sentence : ctx.off_topic)
      for (const auto& n : names_in(sentence))
        if (!present.count(text::ascii_lower(n))) pool.push_back(n);
  }
  if (pool.empty()) return std::nullopt;
  const Spot spot = pick(rng, spots);
  const std::string& name = pick(rng, pool);
  auto& toks = text.sentences[spot.s].tokens;
  const auto words = views(toks);
  const std::string old = run_text(words, spot.begin, spot.end);
  const std::string lead = parts_of(toks[spot.begin].text).lead;
  const std::string trail = parts_of(toks[spot.end - 1].text).trail;
  std::vector<Token> repl = make_tokens(name, true);
  repl.front().text = lead + repl.front().text;
  repl.back().text += trail;
  const std::size_t begin = flat(text, spot.s, spot.begin);
  toks.erase(toks.begin() + static_cast<std::ptrdiff_t>(spot.begin),
             toks.begin() + static_cast<std::ptrdiff_t>(spot.end));
  toks.insert(toks.begin() + static_cast<std::ptrdiff_t>(spot.begin), repl.begin(), repl.end());
  return Edit{"swap-entity", fmt::format("entity {} -> {}", quote(old), quote(name)), begin,
              spot.end - spot.begin, repl.size()};
}

// Changes the last non-zero digit of a number to another non-zero digit ("14,000" → "17,000",
// "2015" → "2018"), so the format and magnitude stay plausible.
std::optional<Edit> swap_number(EditableText& text, const InjectionContext&, Rng& rng) {
  const auto spots = token_spots(text, 0, 0, [](const auto& toks, std::size_t t) {
    if (toks[t].touched) return false;
    const Parts p = parts_of(toks[t].text);
    const std::string low = text::ascii_lower(p.core);
    const bool word =
        std::find(kNumberWords.begin(), kNumberWords.end(), low) != kNumberWords.end();
    bool nonzero = false;
    for (char c : p.core) nonzero = nonzero || (c >= '1' && c <= '9');
    return word || (has_digit(p.core) && nonzero);
  });
  if (spots.empty()) return std::nullopt;
  const Pos p = pick(rng, spots);
  const std::string old = text.sentences[p.s].tokens[p.t].text;
  Parts parts = parts_of(old);
  std::string core = parts.core;
  const std::string low = text::ascii_lower(core);
  if (auto it = std::find(kNumberWords.begin(), kNumberWords.end(), low);
      it != kNumberWords.end()) {
    std::size_t j = rng.below(kNumberWords.size() - 1);
    if (kNumberWords[j] == low) j = kNumberWords.size() - 1;
    core = perturb::match_case(kNumberWords[j], parts.core);
  } else {
    std::size_t at = core.size();
    for (std::size_t i = core.size(); i-- > 0;) {
      if (core[i] >= '1' && core[i] <= '9') {
        at = i;
        break;
      }
    }
    const char old_digit = core[at];
    char d = static_cast<char>('1' + rng.below(8));
    if (d >= old_digit) ++d;  // uniform over the 8 other non-zero digits
    core[at] = d;
  }
  return replace_token(text, p, parts.lead + core + parts.trail, "swap-number",
                       fmt::format("number {} -> {}", quote(parts.core), quote(core)));
}

std::optional<Edit> negate_claim(EditableText& text, const InjectionContext&, Rng& rng) {
  struct Spot {
    Pos p;
    bool insert;  // insert "not" after an auxiliary, else remove an existing negation
  };
  std::vector<Spot> spots;
  for (std::size_t s = 0; s < text.sentences.size(); ++s) {
    const auto& toks = text.sentences[s].tokens;
    for (std::size_t t = 1; t < toks.size(); ++t) {
      if (toks[t].touched) continue;
      const Parts p = parts_of(toks[t].text);
      const std::string low = text::ascii_lower(p.core);
      if (low == "not" && plain(p)) {
        spots.push_back({{s, t}, false});
        continue;
      }
      if (!negatable().count(low) || !p.trail.empty() || t + 1 >= toks.size()) continue;
      const std::string next = text::ascii_lower(parts_of(toks[t + 1].text).core);
      if (next == "not" || next == "never" || next == "n't") continue;
      // "has a house" is a main verb: "has not a house" is not English.
      if ((low == "has" || low == "have" || low == "had" || low == "do" || low == "does" ||
           low == "did") &&
          perturb::lex::is_determiner(next))
        continue;
      spots.push_back({{s, t}, true});
    }
  }
  if (spots.empty()) return std::nullopt;
  const Spot spot = pick(rng, spots);
  if (spot.insert) {
    const std::string aux = text.sentences[spot.p.s].tokens[spot.p.t].text;
    text.sentences[spot.p.s].tokens[spot.p.t].touched = true;
    return insert_tokens(text, {spot.p.s, spot.p.t + 1}, {{"not", true}}, "negate",
                         fmt::format("negated {} -> {}", quote(aux), quote(aux + " not")));
  }
  auto& toks = text.sentences[spot.p.s].tokens;
  const std::size_t begin = flat(text, spot.p.s, spot.p.t);
  toks.erase(toks.begin() + static_cast<std::ptrdiff_t>(spot.p.t));
  // The neighbours now meet: mark them so no later edit reads the gap as untouched text.
  if (spot.p.t > 0) toks[spot.p.t - 1].touched = true;
  if (spot.p.t < toks.size()) toks[spot.p.t].touched = true;
  return Edit{"negate", "removed the negation 'not'", begin, 1, 0};
}

std::optional<Edit> unsupported_claim(EditableText& text, const InjectionContext&, Rng& rng) {
  std::vector<std::string> entities;
  std::unordered_set<std::string> existing, seen;
  for (const auto& s : text.sentences) {
    std::string joined;
    for (const auto& t : s.tokens) joined += t.text + " ";
    existing.insert(joined);
    if (s.inserted) continue;
    const auto words = views(s.tokens);
    for (const auto& [b, e] : entity_runs(words)) {
      std::string name = run_text(words, b, e);
      if (seen.insert(text::ascii_lower(name)).second) entities.push_back(std::move(name));
    }
  }
  std::vector<std::string> claims;
  for (const auto& e : entities)
    for (auto tpl : kEntityClaims) claims.push_back(fmt::format(fmt::runtime(tpl), e));
  for (auto c : kPlainClaims) claims.emplace_back(c);
  // Never the same claim twice.
  std::vector<std::string> fresh;
  for (auto& c : claims) {
    std::string joined;
    for (auto w : text::split_whitespace(c)) joined += std::string(w) + " ";
    if (!existing.count(joined)) fresh.push_back(c);
  }
  if (fresh.empty()) return std::nullopt;
  const std::string claim = pick(rng, fresh);
  const std::size_t at = boundary(text, rng);
  return insert_sentence(text, at, make_tokens(claim, true), "unsupported-claim",
                         fmt::format("added unsupported claim {}", quote(claim)));
}

// ---- fluency ------------------------------------------------------------------------------------

std::optional<Edit> agreement_error(EditableText& text, const InjectionContext&, Rng& rng) {
  const auto spots = token_spots(text, 0, 0, [](const auto& toks, std::size_t t) {
    if (toks[t].touched) return false;
    const std::string low = text::ascii_lower(parts_of(toks[t].text).core);
    bool agree = false;
    for (const auto& [from, to] : kAgreement) agree = agree || low == from;
    // An article that no longer agrees with the next word's sound ("an report").
    const bool article = (low == "a" || low == "an") && t + 1 < toks.size();
    return agree || article;
  });
  if (spots.empty()) return std::nullopt;
  const Pos p = pick(rng, spots);
  const std::string old = text.sentences[p.s].tokens[p.t].text;
  const Parts parts = parts_of(old);
  const std::string low = text::ascii_lower(parts.core);
  std::string to;
  if (low == "a") {
    to = "an";
  } else if (low == "an") {
    to = "a";
  } else {
    for (const auto& [f, t] : kAgreement)
      if (low == f) to = std::string(t);
  }
  const std::string word = parts.lead + perturb::match_case(to, parts.core) + parts.trail;
  return replace_token(text, p, word, "agreement",
                       fmt::format("agreement {} -> {}", quote(parts.core), quote(word)));
}

std::optional<Edit> word_order(EditableText& text, const InjectionContext&, Rng& rng) {
  const auto spots = token_spots(text, 1, 1, [](const auto& toks, std::size_t t) {
    if (toks[t].touched || toks[t + 1].touched) return false;
    const Parts a = parts_of(toks[t].text), b = parts_of(toks[t + 1].text);
    if (!plain(a) || !plain(b) || !is_alpha_word(a.core) || !is_alpha_word(b.core)) return false;
    return text::ascii_lower(a.core) != text::ascii_lower(b.core);
  });
  if (spots.empty()) return std::nullopt;
  const Pos p = pick(rng, spots);
  auto& toks = text.sentences[p.s].tokens;
  std::swap(toks[p.t].text, toks[p.t + 1].text);
  toks[p.t].touched = toks[p.t + 1].touched = true;
  return Edit{"word-order",
              fmt::format("swapped {} and {}", quote(toks[p.t + 1].text), quote(toks[p.t].text)),
              flat(text, p.s, p.t), 2, 2};
}

std::vector<Pos> slip_spots(const EditableText& text) {
  return token_spots(text, 1, 1, [](const auto& toks, std::size_t t) {
    if (toks[t].touched || toks[t - 1].touched || toks[t + 1].touched) return false;
    const Parts p = parts_of(toks[t].text);
    return plain(p) && slip_words().count(p.core) > 0;
  });
}

std::optional<Edit> duplicate_function_word(EditableText& text, const InjectionContext&, Rng& rng) {
  const auto spots = slip_spots(text);
  if (spots.empty()) return std::nullopt;
  const Pos p = pick(rng, spots);
  auto& tok = text.sentences[p.s].tokens[p.t];
  tok.touched = true;
  const std::string word = tok.text;
  return insert_tokens(text, {p.s, p.t + 1}, {{word, true}}, "duplicate-word",
                       fmt::format("duplicated {}", quote(word)));
}

std::optional<Edit> drop_function_word(EditableText& text, const InjectionContext&, Rng& rng) {
  const auto spots = slip_spots(text);
  if (spots.empty()) return std::nullopt;
  const Pos p = pick(rng, spots);
  auto& toks = text.sentences[p.s].tokens;
  const std::string word = toks[p.t].text;
  const std::size_t begin = flat(text, p.s, p.t);
  toks.erase(toks.begin() + static_cast<std::ptrdiff_t>(p.t));
  toks[p.t - 1].touched = toks[p.t].touched = true;
  return Edit{"drop-word", fmt::format("dropped {}", quote(word)), begin, 1, 0};
}

// ---- coherence ----------------------------------------------------------------------------------

// Swaps two adjacent original sentences that are still in their original relative order: each
// swap adds exactly one inversion of the original order, so the disorder only grows.
std::optional<Edit> swap_sentences(EditableText& text, const InjectionContext&, Rng& rng) {
  std::vector<std::size_t> spots;
  for (std::size_t s = 0; s + 1 < text.sentences.size(); ++s) {
    const auto& a = text.sentences[s];
    const auto& b = text.sentences[s + 1];
    if (!a.inserted && !b.inserted && a.origin < b.origin) spots.push_back(s);
  }
  if (spots.empty()) return std::nullopt;
  const std::size_t s = pick(rng, spots);
  const std::size_t begin = flat(text, s, 0);
  const std::size_t n = text.sentences[s].tokens.size() + text.sentences[s + 1].tokens.size();
  std::swap(text.sentences[s], text.sentences[s + 1]);
  return Edit{"sentence-swap", fmt::format("swapped sentences {} and {}", s + 1, s + 2), begin, n,
              n};
}

bool starts_with_connective(const Sentence& s) {
  if (s.tokens.empty()) return true;
  const std::string first = text::ascii_lower(parts_of(s.tokens.front().text).core);
  for (auto c : kConnectives) {
    const auto words = text::split_whitespace(c);
    if (text::ascii_lower(parts_of(words.front()).core) == first) return true;
  }
  for (const auto& [from, to] : kConnectiveSwaps)
    if (first == from) return true;
  return false;
}

std::optional<Edit> insert_connective(EditableText& text, const InjectionContext&, Rng& rng) {
  std::vector<std::size_t> spots;
  for (std::size_t s = 1; s < text.sentences.size(); ++s) {
    const auto& sen = text.sentences[s];
    if (sen.tokens.empty() || sen.tokens.front().touched || starts_with_connective(sen)) continue;
    spots.push_back(s);
  }
  if (spots.empty()) return std::nullopt;
  const std::size_t s = pick(rng, spots);
  const std::string_view connective = kConnectives[rng.below(kConnectives.size())];
  auto& first = text.sentences[s].tokens.front();
  const Parts p = parts_of(first.text);
  // The old first word is no longer first: lower-case it unless it is a name or "I".
  std::string word = first.text;
  const std::string low = text::ascii_lower(p.core);
  if (perturb::is_capitalized(p.core) && !perturb::has_upper(p.core.substr(1)) && low != "i" &&
      (perturb::lex::is_function_word(low) || perturb::lex::is_common_word(low)))
    word = p.lead + low + p.trail;
  std::vector<Token> tokens = make_tokens(connective, true);
  tokens.push_back({word, true});
  const std::size_t begin = flat(text, s, 0);
  auto& toks = text.sentences[s].tokens;
  toks.erase(toks.begin());
  toks.insert(toks.begin(), tokens.begin(), tokens.end());
  return Edit{"wrong-connective",
              fmt::format("inserted {} before sentence {}", quote(connective), s + 1), begin, 1,
              tokens.size()};
}

std::optional<Edit> swap_connective(EditableText& text, const InjectionContext&, Rng& rng) {
  std::vector<Pos> spots;
  for (std::size_t s = 0; s < text.sentences.size(); ++s) {
    const auto& toks = text.sentences[s].tokens;
    for (std::size_t t = 0; t < toks.size(); ++t) {
      if (toks[t].touched) continue;
      const Parts p = parts_of(toks[t].text);
      const std::string low = text::ascii_lower(p.core);
      for (const auto& [from, to] : kConnectiveSwaps) {
        if (low != from) continue;
        if (low == "and" && (t == 0 || !std::string_view(toks[t - 1].text).ends_with(",")))
          continue;
        spots.push_back({s, t});
      }
    }
  }
  if (spots.empty()) return std::nullopt;
  const Pos p = pick(rng, spots);
  const std::string old = text.sentences[p.s].tokens[p.t].text;
  const Parts parts = parts_of(old);
  std::string to;
  for (const auto& [from, repl] : kConnectiveSwaps)
    if (text::ascii_lower(parts.core) == from) to = std::string(repl);
  const std::string word = parts.lead + perturb::match_case(to, parts.core) + parts.trail;
  return replace_token(text, p, word, "swap-connective",
                       fmt::format("connective {} -> {}", quote(parts.core), quote(to)));
}

std::optional<Edit> repeat_sentence(EditableText& text, const InjectionContext&, Rng& rng) {
  std::unordered_set<std::size_t> repeated;
  for (const auto& s : text.sentences)
    if (s.inserted) repeated.insert(s.origin);
  std::vector<std::size_t> spots;
  for (std::size_t s = 0; s < text.sentences.size(); ++s)
    if (!text.sentences[s].inserted && !repeated.count(text.sentences[s].origin))
      spots.push_back(s);
  if (spots.empty() || text.sentences.size() < 2) return std::nullopt;
  const std::size_t s = pick(rng, spots);
  std::vector<Token> copy = text.sentences[s].tokens;
  for (auto& t : copy) t.touched = true;
  // Placed after the next sentence (or at the end), where the repetition reads as redundancy.
  const std::size_t at = std::min(s + 2, text.sentences.size());
  Edit e = insert_sentence(text, at, std::move(copy), "repeat-sentence",
                           fmt::format("repeated sentence {}", s + 1));
  // Record which sentence it repeats, so it is never repeated again.
  text.sentences[at].origin = text.sentences[s].origin;
  --text.next_origin;
  return e;
}

// ---- relevance ----------------------------------------------------------------------------------

std::unordered_set<std::string> content_words(std::string_view s) {
  std::unordered_set<std::string> out;
  const std::string norm = normalize_space(s);  // outlives the views split_whitespace returns
  for (auto w : text::split_whitespace(norm)) {
    const std::string low = text::ascii_lower(parts_of(w).core);
    if (low.size() >= 3 && !perturb::lex::is_function_word(low)) out.insert(low);
  }
  return out;
}

// Removes the original sentence whose content words the source repeats most (the key point).
std::optional<Edit> remove_key_sentence(EditableText& text, const InjectionContext& ctx, Rng& rng) {
  std::size_t originals = 0;
  for (const auto& s : text.sentences) originals += s.inserted ? 0 : 1;
  if (originals < 2) return std::nullopt;
  const auto source = content_words(ctx.source);
  double best = -1.0;
  std::vector<std::size_t> ties;
  for (std::size_t s = 0; s < text.sentences.size(); ++s) {
    const auto& sen = text.sentences[s];
    if (sen.inserted) continue;
    std::string joined;
    for (const auto& t : sen.tokens) joined += t.text + " ";
    double score = 0.0;
    for (const auto& w : content_words(joined)) score += source.count(w) ? 1.0 : 0.0;
    if (source.empty()) score = static_cast<double>(sen.tokens.size());
    if (score > best) {
      best = score;
      ties.assign(1, s);
    } else if (score == best) {
      ties.push_back(s);
    }
  }
  const std::size_t s = pick(rng, ties);
  const std::size_t begin = flat(text, s, 0);
  const std::size_t n = text.sentences[s].tokens.size();
  text.sentences.erase(text.sentences.begin() + static_cast<std::ptrdiff_t>(s));
  return Edit{"remove-key-sentence", fmt::format("removed key sentence {}", s + 1), begin, n, 0};
}

std::optional<Edit> add_off_topic(EditableText& text, const InjectionContext& ctx, Rng& rng) {
  std::unordered_set<std::string> existing;
  for (const auto& s : text.sentences) {
    std::string joined;
    for (const auto& t : s.tokens) joined += t.text + " ";
    existing.insert(joined);
  }
  std::vector<std::string> fresh;
  for (auto sentence : ctx.off_topic) {
    const std::string norm = normalize_space(sentence);
    std::string joined;
    for (auto w : text::split_whitespace(norm)) joined += std::string(w) + " ";
    if (text::split_whitespace(norm).size() >= 4 && !existing.count(joined)) fresh.push_back(norm);
  }
  if (fresh.empty()) return std::nullopt;
  const std::string sentence = pick(rng, fresh);
  const std::size_t at = boundary(text, rng);
  return insert_sentence(text, at, make_tokens(sentence, true), "off-topic",
                         fmt::format("added off-topic sentence {}", quote(sentence)));
}

// ---- registry -----------------------------------------------------------------------------------

using InjectorFn = std::optional<Edit> (*)(EditableText&, const InjectionContext&, Rng&);

struct InjectorInfo {
  std::string_view name;
  QualityDimension dimension;
  InjectorFn fn;
};

const std::array<InjectorInfo, 14>& injectors() {
  static const std::array<InjectorInfo, 14> list = {{
      {"swap-entity", QualityDimension::kConsistency, swap_entity},
      {"swap-number", QualityDimension::kConsistency, swap_number},
      {"negate", QualityDimension::kConsistency, negate_claim},
      {"unsupported-claim", QualityDimension::kConsistency, unsupported_claim},
      {"agreement", QualityDimension::kFluency, agreement_error},
      {"word-order", QualityDimension::kFluency, word_order},
      {"duplicate-word", QualityDimension::kFluency, duplicate_function_word},
      {"drop-word", QualityDimension::kFluency, drop_function_word},
      {"sentence-swap", QualityDimension::kCoherence, swap_sentences},
      {"wrong-connective", QualityDimension::kCoherence, insert_connective},
      {"swap-connective", QualityDimension::kCoherence, swap_connective},
      {"repeat-sentence", QualityDimension::kCoherence, repeat_sentence},
      {"remove-key-sentence", QualityDimension::kRelevance, remove_key_sentence},
      {"off-topic", QualityDimension::kRelevance, add_off_topic},
  }};
  return list;
}

}  // namespace

// ---- EditableText -------------------------------------------------------------------------------

EditableText::EditableText(std::string_view text) {
  for (const auto& s : text::split_sentences(text)) {
    Sentence sen;
    sen.tokens = make_tokens(normalize_space(s), false);
    if (sen.tokens.empty()) continue;
    sen.origin = next_origin++;
    sentences.push_back(std::move(sen));
  }
}

std::string EditableText::render() const {
  std::string out;
  for (const auto& s : sentences) {
    for (const auto& t : s.tokens) {
      if (!out.empty()) out += ' ';
      out += t.text;
    }
  }
  return out;
}

std::vector<std::string> EditableText::tokens() const {
  std::vector<std::string> out;
  for (const auto& s : sentences)
    for (const auto& t : s.tokens) out.push_back(t.text);
  return out;
}

// ---- public API ---------------------------------------------------------------------------------

namespace {
constexpr auto kDimensions = std::to_array<util::EnumName<QualityDimension>>({
    {QualityDimension::kConsistency, "consistency"},
    {QualityDimension::kFluency, "fluency"},
    {QualityDimension::kCoherence, "coherence"},
    {QualityDimension::kRelevance, "relevance"},
});
}  // namespace

QualityDimension parse_quality_dimension(std::string_view name) {
  if (const auto d = util::parse_enum(kDimensions, name)) return *d;
  throw std::invalid_argument(
      fmt::format("unknown dimension '{}' ({})", name, util::listed_names(kDimensions, " or ")));
}

std::string_view dimension_name(QualityDimension d) {
  return util::name_of(kDimensions, d, "");
}

std::uint64_t derive_seed(std::uint64_t seed, std::initializer_list<std::string_view> ids) {
  std::uint64_t h = util::mix64(seed + 0x9E3779B97F4A7C15ULL);
  for (auto id : ids) h = util::mix64(h ^ util::fnv1a64(id));
  return h;
}

std::vector<std::string> injector_names(QualityDimension d) {
  std::vector<std::string> out;
  for (const auto& i : injectors())
    if (i.dimension == d) out.emplace_back(i.name);
  return out;
}

std::optional<Edit> inject(std::string_view injector, EditableText& text,
                           const InjectionContext& context, std::uint64_t seed) {
  for (const auto& i : injectors()) {
    if (i.name != injector) continue;
    Rng rng(seed);
    return i.fn(text, context, rng);
  }
  throw std::invalid_argument(fmt::format("unknown error injector '{}'", injector));
}

std::optional<Edit> inject_step(QualityDimension d, EditableText& text,
                                const InjectionContext& context, std::uint64_t seed) {
  std::vector<const InjectorInfo*> order;
  for (const auto& i : injectors())
    if (i.dimension == d) order.push_back(&i);
  Rng rng(seed);
  for (std::size_t i = order.size(); i > 1; --i) std::swap(order[i - 1], order[rng.below(i)]);
  for (const auto* info : order) {
    Rng sub(derive_seed(seed, {info->name}));
    if (auto e = info->fn(text, context, sub)) return e;
  }
  return std::nullopt;
}

BuiltSequence build_sequence(std::string_view base, QualityDimension d, std::size_t steps,
                             const InjectionContext& context, std::uint64_t seed) {
  BuiltSequence out;
  EditableText text(base);
  out.texts.push_back(text.render());
  if (text.sentences.empty()) return out;
  for (std::size_t j = 0; j < steps; ++j) {
    auto e = inject_step(d, text, context, derive_seed(seed, {"step", std::to_string(j)}));
    if (!e) {
      out.stop_reason = "not-applicable";
      break;
    }
    out.edits.push_back(std::move(*e));
    out.texts.push_back(text.render());
  }
  return out;
}

Edit token_diff(std::span<const std::string> before, std::span<const std::string> after) {
  std::size_t prefix = 0;
  while (prefix < before.size() && prefix < after.size() && before[prefix] == after[prefix])
    ++prefix;
  std::size_t suffix = 0;
  while (suffix < before.size() - prefix && suffix < after.size() - prefix &&
         before[before.size() - 1 - suffix] == after[after.size() - 1 - suffix])
    ++suffix;
  Edit e;
  e.begin = prefix;
  e.removed = before.size() - prefix - suffix;
  e.inserted = after.size() - prefix - suffix;
  return e;
}

namespace {

class RuleInjector final : public Injector {
 public:
  std::string signature() const override { return "rules"; }
  std::vector<BuiltSequence> build(QualityDimension d,
                                   std::span<const SequenceSpec> specs) override {
    std::vector<BuiltSequence> out;
    out.reserve(specs.size());
    const InjectionContext none;
    for (const auto& s : specs)
      out.push_back(build_sequence(s.base, d, s.steps, s.context ? *s.context : none, s.seed));
    return out;
  }
};

}  // namespace

std::unique_ptr<Injector> make_rule_injector() {
  return std::make_unique<RuleInjector>();
}

}  // namespace probity::meta
