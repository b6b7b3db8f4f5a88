#include "text/language.hpp"

#include <fmt/format.h>
#include <fmt/ranges.h>
#include <utf8proc.h>

#include <algorithm>
#include <array>
#include <cstdint>
#include <initializer_list>
#include <string>
#include <unordered_map>

#include "text/ascii.hpp"
#include "text/utf8.hpp"
#include "util/suggest.hpp"

namespace probity::text {
namespace {

// The Latin-script languages with a profile, in tie-breaking order.
constexpr std::array<std::string_view, 7> kLatin = {"en", "de", "fr", "es", "it", "nl", "pt"};

// Frequent function words of each language (lower case, UTF-8). A word may be in several lists
// (it then counts for each); the words that tell the languages apart decide.
const std::array<std::initializer_list<std::string_view>, kLatin.size()>& profiles() {
  static const std::array<std::initializer_list<std::string_view>, kLatin.size()> lists = {{
      // en
      {"the",  "of",    "and",   "to",    "is",      "that",   "for",   "it",   "with", "was",
       "on",   "as",    "are",   "this",  "be",      "by",     "have",  "from", "at",   "not",
       "but",  "they",  "which", "you",   "he",      "she",    "we",    "his",  "has",  "had",
       "were", "been",  "their", "would", "there",   "what",   "will",  "can",  "an",   "or",
       "more", "about", "who",   "said",  "after",   "its",    "than",  "when", "i",    "my",
       "our",  "these", "those", "into",  "because", "should", "could", "also", "it's", "don't"},
      // de
      {"der",    "die",   "das",   "und",   "ist",  "nicht", "zu",    "den",    "von",    "mit",
       "sich",   "des",   "auf",   "für",   "dem",  "ein",   "eine",  "einer",  "eines",  "einem",
       "auch",   "als",   "nach",  "wird",  "bei",  "aus",   "im",    "sind",   "noch",   "wie",
       "werden", "über",  "hat",   "oder",  "aber", "sie",   "wir",   "ich",    "nur",    "kann",
       "dass",   "wurde", "durch", "zum",   "zur",  "vor",   "haben", "diese",  "dieser", "sein",
       "schon",  "sehr",  "keine", "gegen", "wenn", "seine", "ihre",  "wurden", "einen",  "vom",
       "unter",  "mehr",  "ihr",   "uns",   "man",  "jetzt", "immer", "damit",  "weil",   "denn"},
      // fr
      {"le",   "la",   "les",   "et",   "des",  "est",   "une",   "du",    "que",   "qui",
       "dans", "pour", "pas",   "sur",  "au",   "avec",  "ce",    "il",    "elle",  "sont",
       "par",  "plus", "ont",   "mais", "ou",   "été",   "cette", "aux",   "nous",  "vous",
       "leur", "se",   "ne",    "je",   "lui",  "ses",   "c'est", "très",  "sans",  "comme",
       "être", "fait", "aussi", "où",   "dont", "entre", "après", "avait", "était", "ils"},
      // es
      {"el",    "la",     "los", "las",  "del",   "por",     "con",   "una",  "para",  "es",
       "se",    "que",    "lo",  "como", "más",   "pero",    "sus",   "le",   "ya",    "este",
       "entre", "cuando", "muy", "sin",  "sobre", "también", "hasta", "hay",  "donde", "está",
       "son",   "fue",    "ha",  "han",  "y",     "en",      "al",    "su",   "esta",  "porque",
       "desde", "todo",   "nos", "ni",   "ese",   "eso",     "así",   "sido", "había", "otros"},
      // it
      {"il",     "di",    "che",    "è",     "della", "del", "per",  "non",   "una",    "sono",
       "con",    "gli",   "nel",    "alla",  "anche", "più", "ma",   "delle", "dei",    "nella",
       "questo", "ha",    "essere", "ho",    "le",    "al",  "lo",   "da",    "dal",    "degli",
       "tra",    "stato", "fra",    "e",     "un",    "si",  "come", "ci",    "suo",    "sua",
       "questa", "hanno", "perché", "molto", "io",    "mi",  "ne",   "dopo",  "quando", "ancora"},
      // nl
      {"de",    "het",    "een",    "en",    "van",  "is",  "dat",  "op",     "te",   "zijn",
       "niet",  "voor",   "met",    "ook",   "maar", "er",  "om",   "aan",    "bij",  "nog",
       "wordt", "heeft",  "worden", "als",   "dan",  "kan", "naar", "uit",    "hij",  "wij",
       "deze",  "dit",    "geen",   "veel",  "wel",  "zij", "hun",  "onder",  "door", "omdat",
       "tot",   "hebben", "werd",   "waren", "moet", "zou", "al",   "alleen", "toen", "ik"},
      // pt
      {"o",     "os",   "da",   "do",   "das",  "dos",  "em",     "um",     "uma",   "não",
       "que",   "para", "com",  "por",  "se",   "mais", "como",   "mas",    "foi",   "ao",
       "ele",   "ela",  "à",    "são",  "seu",  "sua",  "está",   "também", "já",    "quando",
       "muito", "nos",  "pelo", "pela", "e",    "no",   "na",     "ou",     "isso",  "ser",
       "tem",   "há",   "eles", "essa", "esse", "até",  "depois", "sem",    "mesmo", "aos"},
  }};
  return lists;
}

// Word -> bit mask of the languages whose profile has it. Built once, read-only after.
const std::unordered_map<std::string_view, std::uint8_t>& profile_index() {
  static const std::unordered_map<std::string_view, std::uint8_t> index = [] {
    std::unordered_map<std::string_view, std::uint8_t> out;
    for (std::size_t l = 0; l < kLatin.size(); ++l)
      for (std::string_view w : profiles()[l]) out[w] |= static_cast<std::uint8_t>(1u << l);
    return out;
  }();
  return index;
}

enum Script {
  kLatinScript,
  kHan,
  kKana,
  kHangul,
  kCyrillic,
  kGreek,
  kArabic,
  kHebrew,
  kDevanagari,
  kThai,
  kOther,
  kScripts
};

Script script_of(char32_t c) {
  if (c < 0x80) return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') ? kLatinScript : kOther;
  if ((c >= 0xC0 && c <= 0x24F && c != 0xD7 && c != 0xF7) || (c >= 0x1E00 && c <= 0x1EFF))
    return kLatinScript;
  if ((c >= 0x4E00 && c <= 0x9FFF) || (c >= 0x3400 && c <= 0x4DBF) || (c >= 0xF900 && c <= 0xFAFF))
    return kHan;
  if ((c >= 0x3040 && c <= 0x30FF) || (c >= 0x31F0 && c <= 0x31FF) || (c >= 0xFF66 && c <= 0xFF9F))
    return kKana;
  if ((c >= 0xAC00 && c <= 0xD7AF) || (c >= 0x1100 && c <= 0x11FF) || (c >= 0x3130 && c <= 0x318F))
    return kHangul;
  if (c >= 0x0400 && c <= 0x04FF) return kCyrillic;
  if (c >= 0x0370 && c <= 0x03FF) return kGreek;
  if (c >= 0x0600 && c <= 0x06FF) return kArabic;
  if (c >= 0x0590 && c <= 0x05FF) return kHebrew;
  if (c >= 0x0900 && c <= 0x097F) return kDevanagari;
  if (c >= 0x0E00 && c <= 0x0E7F) return kThai;
  return kOther;
}

struct Counts {
  std::array<std::size_t, kScripts> letters{};
  std::array<std::size_t, kLatin.size()> hits{};
  std::size_t ukrainian = 0;  // і ї є ґ: Cyrillic letters Russian does not have
};

void score_word(const std::string& word, Counts& counts) {
  if (word.empty()) return;
  const auto& index = profile_index();
  const auto it = index.find(word);
  if (it == index.end()) return;
  for (std::size_t l = 0; l < kLatin.size(); ++l)
    if (it->second & (1u << l)) ++counts.hits[l];
}

// Scans up to `limit` bytes of `text` (stopping at a character boundary).
void scan(std::string_view text, std::size_t limit, Counts& counts) {
  std::string word;
  std::size_t at = 0;
  while (at < text.size() && at < limit) {
    char32_t c = 0;
    std::size_t n = decode_utf8(text.substr(at), c);
    if (n == 0) {  // ill-formed byte: a word break
      score_word(word, counts);
      word.clear();
      ++at;
      continue;
    }
    at += n;
    const Script s = script_of(c);
    ++counts.letters[s];
    if (s == kCyrillic && (c == 0x456 || c == 0x457 || c == 0x454 || c == 0x491 || c == 0x406 ||
                           c == 0x407 || c == 0x404 || c == 0x490))
      ++counts.ukrainian;
    if (s == kLatinScript) {
      if (c < 0x80)
        word += ascii_lower(static_cast<char>(c));
      else
        append_utf8(word,
                    static_cast<char32_t>(utf8proc_tolower(static_cast<utf8proc_int32_t>(c))));
    } else if ((c == '\'' || c == 0x2019) && !word.empty()) {
      word += '\'';  // "it's", "c'est"
    } else {
      score_word(word, counts);
      word.clear();
    }
  }
  score_word(word, counts);
}

}  // namespace

LanguageGuess detect_language(std::span<const std::string_view> texts, std::size_t max_bytes,
                              std::size_t max_total) {
  Counts counts;
  std::size_t total = 0;
  for (std::string_view t : texts) {
    if (total >= max_total) break;
    const std::size_t limit = std::min(max_bytes, max_total - total);
    scan(t, limit, counts);
    total += std::min(t.size(), limit);
  }
  LanguageGuess guess;
  // The dominant script among the letters (Han and kana together: Japanese mixes them).
  std::size_t latin = counts.letters[kLatinScript];
  std::size_t best_other = 0;
  Script other = kOther;
  for (int s = kHan; s < kOther; ++s) {
    std::size_t n = counts.letters[s];
    if (s == kHan) n += counts.letters[kKana];
    if (s == kKana) continue;
    if (n > best_other) {
      best_other = n;
      other = static_cast<Script>(s);
    }
  }
  if (best_other > latin) {
    guess.latin = false;
    guess.evidence = best_other;
    switch (other) {
      case kHan:
        // Japanese writes its grammar in kana; Chinese has none.
        guess.code = counts.letters[kKana] * 10 >= best_other ? "ja" : "zh";
        break;
      case kHangul:
        guess.code = "ko";
        break;
      case kCyrillic:
        guess.code = counts.ukrainian * 100 >= best_other ? "uk" : "ru";
        break;
      case kGreek:
        guess.code = "el";
        break;
      case kArabic:
        guess.code = "ar";
        break;
      case kHebrew:
        guess.code = "he";
        break;
      case kDevanagari:
        guess.code = "hi";
        break;
      case kThai:
        guess.code = "th";
        break;
      default:
        break;
    }
    return guess;
  }
  std::size_t best = 0;
  for (std::size_t l = 1; l < kLatin.size(); ++l)
    if (counts.hits[l] > counts.hits[best]) best = l;
  std::size_t second = best == 0 ? 1 : 0;
  for (std::size_t l = 0; l < kLatin.size(); ++l)
    if (l != best && counts.hits[l] > counts.hits[second]) second = l;
  guess.evidence = counts.hits[best];
  guess.runner_up = counts.hits[second];
  // At least three function words, and clearly more than any other profile.
  if (guess.evidence >= 3 && 2 * guess.evidence >= 3 * guess.runner_up + 1)
    guess.code = std::string(kLatin[best]);
  return guess;
}

LanguageGuess detect_language(std::string_view text) {
  const std::string_view one[] = {text};
  return detect_language(one, text.size(), text.size());
}

std::string primary_language(std::string_view tag) {
  std::string out;
  for (char c : tag) {
    if (c == '-' || c == '_') break;
    out += ascii_lower(c);
  }
  return out;
}

namespace {
// The languages probity knows: the script detector's and the Latin profiles'.
constexpr std::array<std::pair<std::string_view, std::string_view>, 17> kNames = {
    {{"ar", "Arabic"},
     {"de", "German"},
     {"el", "Greek"},
     {"en", "English"},
     {"es", "Spanish"},
     {"fr", "French"},
     {"he", "Hebrew"},
     {"hi", "Hindi"},
     {"it", "Italian"},
     {"ja", "Japanese"},
     {"ko", "Korean"},
     {"nl", "Dutch"},
     {"pt", "Portuguese"},
     {"ru", "Russian"},
     {"th", "Thai"},
     {"uk", "Ukrainian"},
     {"zh", "Chinese"}}};
}  // namespace

std::string_view language_name(std::string_view code) {
  for (const auto& [c, name] : kNames)
    if (c == code) return name;
  return code;
}

std::vector<std::string> known_languages() {
  std::vector<std::string> codes;
  for (const auto& [code, name] : kNames) codes.emplace_back(code);
  return codes;
}

std::optional<std::string> unknown_language(std::string_view tag) {
  const std::string primary = primary_language(tag);
  for (const auto& [code, name] : kNames)
    if (code == primary) return std::nullopt;
  // "German" for "de": the name is the likeliest near miss, then a typo of a code.
  std::string hint;
  for (const auto& [code, name] : kNames) {
    std::string lower;
    for (char c : name) lower += ascii_lower(c);
    if (lower == primary) hint = fmt::format(" (did you mean '{}'?)", code);
  }
  const std::vector<std::string> codes = known_languages();
  if (hint.empty()) hint = util::did_you_mean(primary, codes);
  return fmt::format(
      "unknown language '{}'{}: probity knows {} (a tag such as de-AT counts by "
      "its first part)",
      tag, hint, fmt::join(codes, ", "));
}

}  // namespace probity::text
