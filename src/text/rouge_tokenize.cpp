// rouge-score's tokenizer (rouge_score/tokenize.py, used by tokenizers.DefaultTokenizer):
//   text.lower(); re.sub(r"[^a-z0-9]+", " "); split; stem tokens longer than 3 characters;
//   keep tokens matching ^[a-z0-9]+$ (which only drops the empty strings of the split).
#include "text/rouge_tokenize.hpp"

#include <utf8proc.h>

#include <array>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "probity/text.hpp"
#include "text/rouge_letters.hpp"

namespace probity::text {
namespace {

// ASCII byte -> its lower-case form when it belongs to a token ([A-Za-z0-9]), else 0.
constexpr std::array<char, 128> kAsciiTokenChar = [] {
  std::array<char, 128> t{};
  for (int c = 0; c < 128; ++c) {
    if ((c >= 'a' && c <= 'z') || (c >= '0' && c <= '9')) t[c] = static_cast<char>(c);
    if (c >= 'A' && c <= 'Z') t[c] = static_cast<char>(c - 'A' + 'a');
  }
  return t;
}();

// Unicode categories kept by the unicode-aware tokenizer: letters, marks (vowel signs of
// Indic scripts are marks and belong inside words) and numbers.
bool is_word_category(utf8proc_category_t cat) {
  switch (cat) {
    case UTF8PROC_CATEGORY_LU:
    case UTF8PROC_CATEGORY_LL:
    case UTF8PROC_CATEGORY_LT:
    case UTF8PROC_CATEGORY_LM:
    case UTF8PROC_CATEGORY_LO:
    case UTF8PROC_CATEGORY_MN:
    case UTF8PROC_CATEGORY_MC:
    case UTF8PROC_CATEGORY_ME:
    case UTF8PROC_CATEGORY_ND:
    case UTF8PROC_CATEGORY_NL:
    case UTF8PROC_CATEGORY_NO:
      return true;
    default:
      return false;
  }
}

}  // namespace

void rouge_scan(std::string_view text, bool unicode_aware, std::string& scratch,
                RougeTokenSink& sink) {
  // Tokens are written one after another into scratch, sized once for the whole text (a lower-
  // cased character takes at most 3 bytes per input byte in the unicode mode, 1 otherwise).
  const std::size_t need = (unicode_aware ? 3 : 1) * text.size() + 8;
  if (scratch.size() < need) scratch.resize(need);
  char* const begin = scratch.data();
  char* out = begin;
  char* token = begin;  // start of the current token
  auto flush = [&] {
    if (out != token) sink(std::string_view(token, static_cast<std::size_t>(out - token)));
    token = out;
  };
  const auto* bytes = reinterpret_cast<const utf8proc_uint8_t*>(text.data());
  const std::size_t n = text.size();
  std::size_t i = 0;
  while (i < n) {
    const unsigned char c = bytes[i];
    if (c < 0x80) {
      if (const char t = kAsciiTokenChar[c]) {
        *out++ = t;
      } else {
        flush();
      }
      ++i;
      continue;
    }
    utf8proc_int32_t cp = -1;
    utf8proc_ssize_t len = utf8proc_iterate(bytes + i, static_cast<utf8proc_ssize_t>(n - i), &cp);
    if (len <= 0) {  // invalid UTF-8: the byte separates tokens
      flush();
      ++i;
      continue;
    }
    i += static_cast<std::size_t>(len);
    if (unicode_aware) {
      if (is_word_category(utf8proc_category(cp))) {
        std::array<utf8proc_uint8_t, 4> buf{};
        const utf8proc_ssize_t k = utf8proc_encode_char(utf8proc_tolower(cp), buf.data());
        for (utf8proc_ssize_t b = 0; b < k; ++b) *out++ = static_cast<char>(buf[b]);
      } else {
        flush();
      }
    } else if (cp == 0x212A) {  // KELVIN SIGN lower-cases to ASCII 'k'
      *out++ = 'k';
    } else if (cp == 0x130) {  // 'İ' lower-cases to 'i' + U+0307, and U+0307 separates
      *out++ = 'i';
      flush();
    } else {
      flush();
    }
  }
  flush();
}

bool rouge_should_stem(std::string_view token) {
  if (token.size() <= 3) return false;
  for (char c : token) {
    if (static_cast<unsigned char>(c) >= 0x80) return false;
  }
  return true;
}

}  // namespace probity::text

namespace probity::text {

std::vector<std::string> rouge_tokenize(std::string_view text, bool stem, bool unicode_aware) {
  struct Collect final : RougeTokenSink {
    bool stem = false;
    std::vector<std::string> out;
    void operator()(std::string_view token) override {
      if (stem && rouge_should_stem(token)) {
        out.push_back(porter_stem(token));
      } else {
        out.emplace_back(token);
      }
      // rouge-score drops tokens that are not ^[a-z0-9]+$ after stemming: only empty ones can
      // arise here.
      if (out.back().empty()) out.pop_back();
    }
  } collect;
  collect.stem = stem;
  std::string scratch;
  rouge_scan(text, unicode_aware, scratch, collect);
  return std::move(collect.out);
}

}  // namespace probity::text

namespace probity::text {

LetterLoss rouge_default_letter_loss(std::string_view text) {
  LetterLoss loss;
  const auto* bytes = reinterpret_cast<const utf8proc_uint8_t*>(text.data());
  const std::size_t n = text.size();
  for (std::size_t i = 0; i < n;) {
    const unsigned char c = bytes[i];
    if (c < 0x80) {
      loss.letters += (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') ? 1 : 0;
      ++i;
      continue;
    }
    utf8proc_int32_t cp = -1;
    const utf8proc_ssize_t len =
        utf8proc_iterate(bytes + i, static_cast<utf8proc_ssize_t>(n - i), &cp);
    if (len <= 0) {
      ++i;
      continue;
    }
    i += static_cast<std::size_t>(len);
    switch (utf8proc_category(cp)) {
      case UTF8PROC_CATEGORY_LU:
      case UTF8PROC_CATEGORY_LL:
      case UTF8PROC_CATEGORY_LT:
      case UTF8PROC_CATEGORY_LM:
      case UTF8PROC_CATEGORY_LO:
        ++loss.letters;
        // The two that lower-case to an ASCII letter are kept (rouge_scan).
        if (cp != 0x212A && cp != 0x130) ++loss.dropped;
        break;
      default:
        break;
    }
  }
  return loss;
}

}  // namespace probity::text
