#include <unicode/brkiter.h>
#include <unicode/locid.h>
#include <unicode/unistr.h>
#include <unicode/ustring.h>

#include <algorithm>
#include <array>
#include <cctype>
#include <memory>
#include <stdexcept>

#include "probity/text.hpp"
#include "text/ascii.hpp"

namespace probity::text {
namespace {

// Tokens after which ICU may break but a sentence does not end. ICU's `ss=standard` suppression
// covers some of these but not "Dr.", so we keep our own list.
constexpr std::array<std::string_view, 42> kAbbreviations = {
    "mr.",  "mrs.",    "ms.",   "dr.",  "prof.", "sr.",  "jr.",  "st.",   "mt.",   "gen.", "col.",
    "lt.",  "sgt.",    "capt.", "gov.", "sen.",  "rep.", "rev.", "hon.",  "e.g.",  "i.e.", "vs.",
    "cf.",  "approx.", "no.",   "fig.", "al.",   "jan.", "feb.", "aug.",  "sept.", "oct.", "nov.",
    "dec.", "u.s.",    "u.k.",  "u.n.", "a.m.",  "p.m.", "inc.", "corp.", "ltd."};

std::string_view trim(std::string_view s) {
  return trim_ascii_space(s);
}

// True when the segment ends with a token that does not end a sentence.
bool ends_with_abbreviation(std::string_view segment) {
  segment = trim(segment);
  auto space = segment.find_last_of(" \t\n(\"'");
  const std::string_view raw_last =
      space == std::string_view::npos ? segment : segment.substr(space + 1);
  if (raw_last.empty() || raw_last.back() != '.') return false;  // before lower-casing a copy
  const std::string last = ascii_lower(raw_last);
  if (std::find(kAbbreviations.begin(), kAbbreviations.end(), last) != kAbbreviations.end())
    return true;
  // A single capital initial ("J. K. Rowling").
  std::string_view raw = space == std::string_view::npos ? segment : segment.substr(space + 1);
  return raw.size() == 2 && std::isupper(static_cast<unsigned char>(raw[0]));
}

std::unique_ptr<icu::BreakIterator> make_iterator() {
  UErrorCode status = U_ZERO_ERROR;
  std::unique_ptr<icu::BreakIterator> it(
      icu::BreakIterator::createSentenceInstance(icu::Locale("en_US@ss=standard"), status));
  if (U_FAILURE(status) || !it) throw std::runtime_error("ICU sentence break iterator unavailable");
  return it;
}

// Tokenized text ("he left . she stayed") has terminal punctuation as a separate token; ICU does
// not break before a lower-case word (UAX #29 rule SB8), so split after such tokens ourselves.
void split_tokenized(std::string_view segment, std::vector<std::string>& out) {
  std::size_t start = 0;
  for (std::size_t i = 1; i + 2 < segment.size(); ++i) {
    char c = segment[i];
    if ((c == '.' || c == '!' || c == '?') && segment[i - 1] == ' ' && segment[i + 1] == ' ') {
      if (auto t = trim(segment.substr(start, i + 1 - start)); !t.empty()) out.emplace_back(t);
      start = i + 1;
    }
  }
  if (auto t = trim(segment.substr(start)); !t.empty()) out.emplace_back(t);
}

}  // namespace

std::vector<std::string> split_sentences(std::string_view text) {
  thread_local std::unique_ptr<icu::BreakIterator> iterator = make_iterator();
  // ICU iterates UTF-16 (faster than its UTF-8 UText); the copy's buffer is reused per thread.
  thread_local icu::UnicodeString u;
  const auto size = static_cast<int32_t>(text.size());
  UErrorCode status = U_ZERO_ERROR;
  int32_t length = 0, substitutions = 0;
  // UTF-16 never takes more code units than UTF-8 takes bytes. U+FFFD replaces ill-formed
  // bytes, as UnicodeString::fromUTF8 does.
  UChar* buffer = u.getBuffer(size + 1);
  u_strFromUTF8WithSub(buffer, u.getCapacity(), &length, text.data(), size, 0xFFFD, &substitutions,
                       &status);
  u.releaseBuffer(U_SUCCESS(status) ? length : 0);
  if (U_FAILURE(status)) throw std::runtime_error("ICU could not convert the text to UTF-16");
  iterator->setText(u);
  std::vector<std::string> sentences;
  if (substitutions > 0) {
    // The pieces are the converted text, substitutions included, as they have always been.
    std::string pending;
    int32_t start = iterator->first();
    for (int32_t end = iterator->next(); end != icu::BreakIterator::DONE;
         start = end, end = iterator->next()) {
      std::string piece;
      u.tempSubStringBetween(start, end).toUTF8String(piece);
      pending += piece;
      if (ends_with_abbreviation(pending)) continue;
      split_tokenized(pending, sentences);
      pending.clear();
    }
    split_tokenized(pending, sentences);
    return sentences;
  }
  // Well-formed text: each boundary (a UTF-16 index) is mapped back to its byte offset as it
  // comes, and the text pending since the last sentence end is a view: nothing is converted back
  // or copied. In ASCII text the two indices agree.
  const bool ascii = length == size;
  std::size_t from = 0, byte = 0;
  int32_t unit = 0;
  iterator->first();
  for (int32_t end = iterator->next(); end != icu::BreakIterator::DONE; end = iterator->next()) {
    if (ascii) {
      byte = static_cast<std::size_t>(end);
    } else {
      while (unit < end) {
        const auto lead = static_cast<unsigned char>(text[byte]);
        const std::size_t n = lead < 0x80 ? 1 : lead < 0xE0 ? 2 : lead < 0xF0 ? 3 : 4;
        byte += n;
        unit += n == 4 ? 2 : 1;  // past U+FFFF: a surrogate pair
      }
    }
    const std::string_view pending = text.substr(from, byte - from);
    if (ends_with_abbreviation(pending)) continue;
    split_tokenized(pending, sentences);
    from = byte;
  }
  split_tokenized(text.substr(from), sentences);
  return sentences;
}

}  // namespace probity::text
