// NLTK 3.8 PorterStemmer() in its default NLTK_EXTENSIONS mode, written from the algorithm's
// description in nltk/stem/porter.py. rouge-score stems with exactly this stemmer, so every
// deviation NLTK makes from Porter's paper (irregular-forms pool, short words left alone, the
// 'ied'/'ies' special cases, the 'alli' and 'logi' rules of step 2, the two-letter *o test) is
// reproduced here, including the order in which suffix rules are tried.
//
// The algorithm works on characters. ASCII words (the only ones rouge-score produces) are
// stemmed in place in the result string; other words are decoded to code points first so that
// lengths, double letters and the consonant test count characters as Python does.
#include <utf8proc.h>

#include <array>
#include <cstdint>
#include <string>
#include <string_view>

#include "probity/text.hpp"
#include "text/utf8.hpp"

namespace probity::text {
namespace {

constexpr bool is_vowel(char32_t c) {
  return c == U'a' || c == U'e' || c == U'i' || c == U'o' || c == U'u';
}

// Porter's consonant: not a vowel, and 'y' only at the start or after a vowel.
template <class C>
bool is_consonant(std::basic_string_view<C> s, std::size_t i) {
  const char32_t c = static_cast<char32_t>(s[i]);
  if (is_vowel(c)) return false;
  if (c != U'y') return true;
  return i == 0 || !is_consonant(s, i - 1);
}

// m in [C](VC){m}[V]: the number of vowel→consonant transitions.
template <class C>
int measure(std::basic_string_view<C> s) {
  int m = 0;
  bool prev_consonant = true;
  for (std::size_t i = 0; i < s.size(); ++i) {
    const char32_t c = static_cast<char32_t>(s[i]);
    const bool consonant = !is_vowel(c) && (c != U'y' || i == 0 || !prev_consonant);
    if (consonant && i > 0 && !prev_consonant) ++m;
    prev_consonant = consonant;
  }
  return m;
}

template <class C>
bool contains_vowel(std::basic_string_view<C> s) {
  bool prev_consonant = true;
  for (std::size_t i = 0; i < s.size(); ++i) {
    const char32_t c = static_cast<char32_t>(s[i]);
    const bool consonant = !is_vowel(c) && (c != U'y' || i == 0 || !prev_consonant);
    if (!consonant) return true;
    prev_consonant = consonant;
  }
  return false;
}

// Condition *d.
template <class C>
bool ends_double_consonant(std::basic_string_view<C> w) {
  const std::size_t n = w.size();
  return n >= 2 && w[n - 1] == w[n - 2] && is_consonant(w, n - 1);
}

// Condition *o, with NLTK's extension that a two-letter vowel-consonant word also qualifies.
template <class C>
bool ends_cvc(std::basic_string_view<C> w) {
  const std::size_t n = w.size();
  if (n >= 3) {
    const char32_t last = static_cast<char32_t>(w[n - 1]);
    return is_consonant(w, n - 3) && !is_consonant(w, n - 2) && is_consonant(w, n - 1) &&
           last != U'w' && last != U'x' && last != U'y';
  }
  return n == 2 && !is_consonant(w, 0) && is_consonant(w, 1);
}

template <class C>
bool ends_with(const std::basic_string<C>& w, std::string_view suffix) {
  if (w.size() < suffix.size()) return false;
  const std::size_t off = w.size() - suffix.size();
  for (std::size_t i = 0; i < suffix.size(); ++i) {
    if (w[off + i] != static_cast<C>(static_cast<unsigned char>(suffix[i]))) return false;
  }
  return true;
}

// Shrinks by erasing: resize() would also instantiate its growing path, on which g++ 12 warns.
template <class C>
void drop(std::basic_string<C>& w, std::size_t n) {
  w.erase(w.size() - n);
}

template <class C>
void replace_suffix(std::basic_string<C>& w, std::size_t suffix_len, std::string_view repl) {
  drop(w, suffix_len);
  for (char c : repl) w.push_back(static_cast<C>(static_cast<unsigned char>(c)));
}

template <class C>
std::basic_string_view<C> prefix(const std::basic_string<C>& w, std::size_t drop) {
  return std::basic_string_view<C>(w.data(), w.size() - drop);
}

enum class Cond : std::uint8_t {
  kMeasureGt0,  // m(stem) > 0
  kMeasureGt1,  // m(stem) > 1
  kIon,         // m(stem) > 1 and stem ends in s or t
  kLogi,        // m(word minus "ogi") > 0: the 'l' stays with the stem (NLTK)
};

struct Rule {
  std::string_view suffix;
  std::string_view replacement;
  Cond cond;
};

template <class C>
bool holds(Cond cond, const std::basic_string<C>& w, std::size_t suffix_len) {
  const auto stem = prefix(w, suffix_len);
  switch (cond) {
    case Cond::kMeasureGt0:
      return measure(stem) > 0;
    case Cond::kMeasureGt1:
      return measure(stem) > 1;
    case Cond::kIon:
      return measure(stem) > 1 && (stem.back() == C('s') || stem.back() == C('t'));
    case Cond::kLogi:
      return measure(prefix(w, 3)) > 0;
  }
  return false;
}

// NLTK's _apply_rule_list: the first rule whose suffix matches decides, whether or not its
// condition holds.
template <class C, std::size_t N>
void apply_rules(std::basic_string<C>& w, const std::array<Rule, N>& rules) {
  for (const Rule& rule : rules) {
    if (!ends_with(w, rule.suffix)) continue;
    if (holds(rule.cond, w, rule.suffix.size()))
      replace_suffix(w, rule.suffix.size(), rule.replacement);
    return;
  }
}

template <class C>
void step1a(std::basic_string<C>& w) {
  // NLTK: 'dies' -> 'die' while 'flies' -> 'fli'.
  if (w.size() == 4 && ends_with(w, "ies")) {
    w.pop_back();
    return;
  }
  static constexpr std::array<Rule, 4> kRules{{
      {"sses", "ss", Cond::kMeasureGt0},
      {"ies", "i", Cond::kMeasureGt0},
      {"ss", "ss", Cond::kMeasureGt0},
      {"s", "", Cond::kMeasureGt0},
  }};
  // Step 1a's rules are unconditional, so the condition field is not consulted.
  for (const Rule& rule : kRules) {
    if (!ends_with(w, rule.suffix)) continue;
    replace_suffix(w, rule.suffix.size(), rule.replacement);
    return;
  }
}

template <class C>
void step1b(std::basic_string<C>& w) {
  // NLTK: 'died' -> 'die' while 'spied' -> 'spi'.
  if (ends_with(w, "ied")) {
    replace_suffix(w, 3, w.size() == 4 ? "ie" : "i");
    return;
  }
  if (ends_with(w, "eed")) {
    if (measure(prefix(w, 3)) > 0) w.pop_back();
    return;
  }
  if (ends_with(w, "ed") && contains_vowel(prefix(w, 2))) {
    drop(w, 2);
  } else if (ends_with(w, "ing") && contains_vowel(prefix(w, 3))) {
    drop(w, 3);
  } else {
    return;
  }
  if (ends_with(w, "at") || ends_with(w, "bl") || ends_with(w, "iz")) {
    w.push_back(C('e'));
    return;
  }
  const std::basic_string_view<C> view(w);
  if (ends_double_consonant(view)) {
    const C last = w.back();
    if (last != C('l') && last != C('s') && last != C('z')) w.pop_back();
    return;
  }
  // NLTK tests its "*d" pseudo-suffix with endswith() too, so a literal "*d" ending matches
  // and loses its '*'. Unreachable from rouge tokens; kept for fidelity.
  if (ends_with(w, "*d")) {
    w.erase(w.size() - 2, 1);
    return;
  }
  if (measure(view) == 1 && ends_cvc(view)) w.push_back(C('e'));
}

template <class C>
void step1c(std::basic_string<C>& w) {
  // NLTK: y -> i only after a consonant that is not the first letter ('happy' -> 'happi',
  // 'enjoy' and 'by' unchanged).
  const std::size_t n = w.size();
  if (n > 2 && w[n - 1] == C('y') && is_consonant(prefix(w, 1), n - 2)) w[n - 1] = C('i');
}

template <class C>
void step2(std::basic_string<C>& w) {
  // NLTK applies 'alli' -> 'al' first and, when it fires, runs step 2 again.
  if (ends_with(w, "alli") && measure(prefix(w, 4)) > 0) {
    drop(w, 2);
    step2(w);
    return;
  }
  static constexpr std::array<Rule, 22> kRules{{
      {"ational", "ate", Cond::kMeasureGt0}, {"tional", "tion", Cond::kMeasureGt0},
      {"enci", "ence", Cond::kMeasureGt0},   {"anci", "ance", Cond::kMeasureGt0},
      {"izer", "ize", Cond::kMeasureGt0},    {"bli", "ble", Cond::kMeasureGt0},
      {"alli", "al", Cond::kMeasureGt0},     {"entli", "ent", Cond::kMeasureGt0},
      {"eli", "e", Cond::kMeasureGt0},       {"ousli", "ous", Cond::kMeasureGt0},
      {"ization", "ize", Cond::kMeasureGt0}, {"ation", "ate", Cond::kMeasureGt0},
      {"ator", "ate", Cond::kMeasureGt0},    {"alism", "al", Cond::kMeasureGt0},
      {"iveness", "ive", Cond::kMeasureGt0}, {"fulness", "ful", Cond::kMeasureGt0},
      {"ousness", "ous", Cond::kMeasureGt0}, {"aliti", "al", Cond::kMeasureGt0},
      {"iviti", "ive", Cond::kMeasureGt0},   {"biliti", "ble", Cond::kMeasureGt0},
      {"fulli", "ful", Cond::kMeasureGt0},   {"logi", "log", Cond::kLogi},
  }};
  apply_rules(w, kRules);
}

template <class C>
void step3(std::basic_string<C>& w) {
  static constexpr std::array<Rule, 7> kRules{{
      {"icate", "ic", Cond::kMeasureGt0},
      {"ative", "", Cond::kMeasureGt0},
      {"alize", "al", Cond::kMeasureGt0},
      {"iciti", "ic", Cond::kMeasureGt0},
      {"ical", "ic", Cond::kMeasureGt0},
      {"ful", "", Cond::kMeasureGt0},
      {"ness", "", Cond::kMeasureGt0},
  }};
  apply_rules(w, kRules);
}

template <class C>
void step4(std::basic_string<C>& w) {
  static constexpr std::array<Rule, 19> kRules{{
      {"al", "", Cond::kMeasureGt1},    {"ance", "", Cond::kMeasureGt1},
      {"ence", "", Cond::kMeasureGt1},  {"er", "", Cond::kMeasureGt1},
      {"ic", "", Cond::kMeasureGt1},    {"able", "", Cond::kMeasureGt1},
      {"ible", "", Cond::kMeasureGt1},  {"ant", "", Cond::kMeasureGt1},
      {"ement", "", Cond::kMeasureGt1}, {"ment", "", Cond::kMeasureGt1},
      {"ent", "", Cond::kMeasureGt1},   {"ion", "", Cond::kIon},
      {"ou", "", Cond::kMeasureGt1},    {"ism", "", Cond::kMeasureGt1},
      {"ate", "", Cond::kMeasureGt1},   {"iti", "", Cond::kMeasureGt1},
      {"ous", "", Cond::kMeasureGt1},   {"ive", "", Cond::kMeasureGt1},
      {"ize", "", Cond::kMeasureGt1},
  }};
  apply_rules(w, kRules);
}

template <class C>
void step5(std::basic_string<C>& w) {
  // 5a: both e-rules are tried (unlike a rule list, the second may fire when the first fails).
  if (!w.empty() && w.back() == C('e')) {
    const auto stem = prefix(w, 1);
    const int m = measure(stem);
    if (m > 1 || (m == 1 && !ends_cvc(stem))) w.pop_back();
  }
  // 5b: -ll -> -l when m(word minus one 'l') > 1.
  if (ends_with(w, "ll") && measure(prefix(w, 1)) > 1) w.pop_back();
}

template <class C>
void run_steps(std::basic_string<C>& w) {
  step1a(w);
  step1b(w);
  step1c(w);
  step2(w);
  step3(w);
  step4(w);
  step5(w);
}

// NLTK's irregular forms, checked against the word as given (before lower-casing).
std::string_view irregular_stem(std::string_view word) {
  struct Entry {
    std::string_view word, stem;
  };
  static constexpr std::array<Entry, 16> kPool{{
      {"sky", "sky"},
      {"skies", "sky"},
      {"dying", "die"},
      {"lying", "lie"},
      {"tying", "tie"},
      {"news", "news"},
      {"innings", "inning"},
      {"inning", "inning"},
      {"outings", "outing"},
      {"outing", "outing"},
      {"cannings", "canning"},
      {"canning", "canning"},
      {"howe", "howe"},
      {"proceed", "proceed"},
      {"exceed", "exceed"},
      {"succeed", "succeed"},
  }};
  if (word.size() < 3 || word.size() > 8) return {};
  for (const Entry& e : kPool) {
    if (e.word == word) return e.stem;
  }
  return {};
}

std::string stem_non_ascii(std::string_view word) {
  std::u32string w;
  w.reserve(word.size());
  const auto* p = reinterpret_cast<const utf8proc_uint8_t*>(word.data());
  auto remaining = static_cast<utf8proc_ssize_t>(word.size());
  while (remaining > 0) {
    utf8proc_int32_t cp = 0;
    const utf8proc_ssize_t len = utf8proc_iterate(p, remaining, &cp);
    if (len <= 0) return std::string(word);  // not UTF-8: leave it alone
    w.push_back(static_cast<char32_t>(utf8proc_tolower(cp)));
    p += len;
    remaining -= len;
  }
  // Python's len() counts characters.
  if (w.size() > 2) run_steps(w);
  std::string out;
  out.reserve(word.size());
  for (char32_t c : w) append_utf8(out, c);
  return out;
}

}  // namespace

std::string porter_stem(std::string_view word) {
  if (auto irregular = irregular_stem(word); !irregular.empty()) return std::string(irregular);
  for (char c : word) {
    if (static_cast<unsigned char>(c) >= 0x80) return stem_non_ascii(word);
  }
  // NLTK lower-cases by default (stem(word, to_lowercase=True)).
  std::string w(word);
  for (char& c : w) {
    if (c >= 'A' && c <= 'Z') c = static_cast<char>(c - 'A' + 'a');
  }
  if (w.size() <= 2) return w;
  run_steps(w);
  return w;
}

}  // namespace probity::text
