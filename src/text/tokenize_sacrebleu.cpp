// sacreBLEU's `13a` and `intl` tokenizers without a regex engine, byte-identical to sacreBLEU's
// output: the substitutions keep the semantics of Python's re.sub (matches do not overlap;
// scanning resumes after the end of the previous match) and of str.split() (Unicode whitespace).
// 13a's four substitutions are derived into one pass; intl's are one pass each.
#include <utf8proc.h>

#if defined(__SSE2__)
#include <emmintrin.h>
#endif

#include <array>
#include <bit>
#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "probity/text.hpp"
#include "text/python_space.hpp"
#include "text/tokenize_sacrebleu.hpp"
#include "text/utf8.hpp"

namespace probity::text {
namespace {

// Lead bytes that may start a Python whitespace character (str.isspace): 1 = ASCII whitespace,
// 2 = a multi-byte sequence that has to be checked (U+0085, U+00A0, U+1680, U+2000..U+200A,
// U+2028, U+2029, U+202F, U+205F, U+3000).
constexpr std::array<std::uint8_t, 256> kSpaceLead = [] {
  std::array<std::uint8_t, 256> t{};
  for (int c = 0x09; c <= 0x0D; ++c) t[c] = 1;
  for (int c = 0x1C; c <= 0x1F; ++c) t[c] = 1;
  t[' '] = 1;
  t[0xC2] = t[0xE1] = t[0xE2] = t[0xE3] = 2;
  return t;
}();

// Byte length of the Python whitespace character starting at p, or 0.
inline std::size_t space_len(const unsigned char* p, const unsigned char* end) {
  const std::uint8_t kind = kSpaceLead[p[0]];
  if (kind != 2) return kind;
  const auto left = end - p;
  switch (p[0]) {
    case 0xC2:
      return left >= 2 && (p[1] == 0x85 || p[1] == 0xA0) ? 2 : 0;
    case 0xE1:
      return left >= 3 && p[1] == 0x9A && p[2] == 0x80 ? 3 : 0;
    case 0xE2:
      if (left < 3) return 0;
      if (p[1] == 0x80)
        return (p[2] >= 0x80 && p[2] <= 0x8A) || p[2] == 0xA8 || p[2] == 0xA9 || p[2] == 0xAF ? 3
                                                                                              : 0;
      return p[1] == 0x81 && p[2] == 0x9F ? 3 : 0;
    default:  // 0xE3
      return left >= 3 && p[1] == 0x80 && p[2] == 0x80 ? 3 : 0;
  }
}

// Python's str.replace(from, to): non-overlapping occurrences, left to right, no rescanning.
void replace_all(std::string_view in, std::string_view from, std::string_view to,
                 std::string& out) {
  out.clear();
  std::size_t pos = 0;
  for (;;) {
    const std::size_t hit = in.find(from, pos);
    if (hit == std::string_view::npos) break;
    out.append(in.substr(pos, hit - pos));
    out.append(to);
    pos = hit + from.size();
  }
  out.append(in.substr(pos));
}

inline bool is_digit(char c) {
  return c >= '0' && c <= '9';
}
inline bool is_period_comma(char c) {
  return c == '.' || c == ',';
}

// The first TokenizerRegexp rule: ([\{-\~\[-\` -\&\(-\+\:-\@\/]) -> ' \1 '.
constexpr std::array<bool, 256> kPadded = [] {
  std::array<bool, 256> t{};
  auto range = [&](char a, char b) {
    for (int c = static_cast<unsigned char>(a); c <= static_cast<unsigned char>(b); ++c)
      t[c] = true;
  };
  range('{', '~');
  range('[', '`');
  range(' ', '&');
  range('(', '+');
  range(':', '@');
  range('/', '/');
  return t;
}();

// Writes token bytes into a preallocated buffer, with the single space owed before a token, and
// the offset of each token.
struct TokenWriter {
  char* begin;
  char* p;
  std::uint32_t* starts;
  std::size_t n_starts = 0;
  bool fresh = true;  // the next byte starts a token
  void put(char c) {
    if (fresh) {
      if (p != begin) *p++ = ' ';
      starts[n_starts++] = static_cast<std::uint32_t>(p - begin);
      fresh = false;
    }
    *p++ = c;
  }
  void gap() { fresh = true; }
};

// Byte classes for the 13a scan.
enum : std::uint8_t { kPlain = 0, kMaybeSpace, kPad, kDash, kPeriodComma };
constexpr std::array<std::uint8_t, 256> k13aClass = [] {
  std::array<std::uint8_t, 256> t{};
  for (int c = 0; c < 256; ++c) {
    if (kSpaceLead[c]) t[c] = kMaybeSpace;
    if (kPadded[c]) t[c] = kPad;  // ' ' is in both; its padding is moot
  }
  t[' '] = kMaybeSpace;
  t['-'] = kDash;
  t['.'] = t[','] = kPeriodComma;
  return t;
}();

#if defined(__SSE2__)
// Letters, digits and apostrophes, the ordinary bytes of most text, among the 16 bytes of v.
inline unsigned common_ordinary(__m128i v) {
  // x - lo <= hi - lo as unsigned bytes: max(x - lo, hi - lo) == hi - lo.
  const auto in_range = [](__m128i d, __m128i limit) {
    return _mm_cmpeq_epi8(_mm_max_epu8(d, limit), limit);
  };
  const __m128i letter =
      in_range(_mm_sub_epi8(_mm_or_si128(v, _mm_set1_epi8(0x20)), _mm_set1_epi8('a')),
               _mm_set1_epi8('z' - 'a'));
  const __m128i digit = in_range(_mm_sub_epi8(v, _mm_set1_epi8('0')), _mm_set1_epi8(9));
  const __m128i apostrophe = _mm_cmpeq_epi8(v, _mm_set1_epi8('\''));
  return static_cast<unsigned>(
      _mm_movemask_epi8(_mm_or_si128(_mm_or_si128(letter, digit), apostrophe)));
}

// The common case 16 bytes at a time: a stretch of letters, digits, apostrophes and single ASCII
// spaces needs no rule, only the whitespace collapsing, so it is copied as it is (a space ending
// the stretch becomes the owed gap). Handles the longest such stretch at s[i, i + 16), if any,
// and returns its length (0: nothing done). Needs 16 readable bytes at s + i, 16 writable at w.p,
// and some output already written (no space is owed at the start).
inline std::size_t common_stretch(const char* s, std::size_t i, TokenWriter& w) {
  const __m128i v = _mm_loadu_si128(reinterpret_cast<const __m128i*>(s + i));
  const unsigned ordinary = common_ordinary(v);
  unsigned space = static_cast<unsigned>(_mm_movemask_epi8(_mm_cmpeq_epi8(v, _mm_set1_epi8(' '))));
  const auto len = static_cast<unsigned>(std::countr_zero(~(ordinary | space)));  // <= 16
  if (len == 0) return 0;
  const unsigned in_stretch = (1u << len) - 1;
  space &= in_stretch;
  if ((space & (space >> 1)) != 0) return 0;  // a run of spaces: left to the byte loop
  if ((space & 1) == 0 && w.fresh) {          // a token starts at once, after the owed space
    *w.p++ = ' ';
    w.starts[w.n_starts++] = static_cast<std::uint32_t>(w.p - w.begin);
  }
  _mm_storeu_si128(reinterpret_cast<__m128i*>(w.p), v);
  // A token starts after each space that is not the stretch's last byte.
  const auto base = static_cast<std::uint32_t>(w.p - w.begin) + 1;
  for (unsigned inner = space & (in_stretch >> 1); inner != 0; inner &= inner - 1)
    w.starts[w.n_starts++] = base + static_cast<std::uint32_t>(std::countr_zero(inner));
  const unsigned ends_with_space = (space >> (len - 1)) & 1;
  w.p += len - ends_with_space;
  w.fresh = ends_with_space != 0;
  return len;
}
#endif

// The TokenizerRegexp rules on f' {line} ', followed by ' '.join(line.split()), in one pass.
// All four rules only insert spaces, so the output is the input with whitespace runs collapsed
// and a space in some gaps between adjacent characters; the pass decides each gap directly:
//   rule 1 ([\{-\~\[-\` -\&\(-\+\:-\@\/] -> ' \1 '): both sides of those characters;
//   rule 4 (([0-9])(-) -> '\1 \2 '): both sides of a '-' after a digit (rules 1-3 never insert
//     anything between a digit and a '-', so the pairs it sees are those of the input);
//   rules 2 and 3 (([^0-9])([\.,]) -> '\1 \2 ' then ([\.,])([^0-9]) -> ' \1 \2'): worked out
//     per maximal run of k periods/commas between a character P and a character F (the padding
//     guarantees both; after rule 1 a padded character reads as a space, a non-digit as before).
//     Rule 2 pairs (P, c1), (c2, c3), ... when P is a non-digit and (c1, c2), (c3, c4), ... when P
//     is a digit, spacing every gap inside the run; rule 3 then spaces both sides of every c that
//     is followed by a space or a non-digit. Hence: gaps inside the run are spaced; P|c1 is spaced
//     unless P and F are digits and k == 1 ("3.5"); ck|F is spaced unless F is a digit and k is
//     even after a non-digit P or odd after a digit P ("3..4" -> "3 . . 4", "a..4" -> "a . .4").
void regexp_rules(std::string_view s, TokenizedLine& out) {
  const std::size_t n = s.size();
  // Buffers only grow (no refill per call): every gap gets at most one space, a token has at
  // least one byte, and common_stretch stores 16 bytes at a time.
  if (out.buffer.size() < 2 * n + 16) out.buffer.resize(2 * n + 16);
  if (out.starts.size() < n + 2) out.starts.resize(n + 2);
  TokenWriter w{out.buffer.data(), out.buffer.data(), out.starts.data()};
  const auto* b = reinterpret_cast<const unsigned char*>(s.data());
  const auto* end = b + n;
  std::size_t i = 0;
  while (i < n) {
#if defined(__SSE2__)
    if (i + 16 <= n && w.p != w.begin) {
      if (const std::size_t done = common_stretch(s.data(), i, w)) {
        i += done;
        continue;
      }
    }
#endif
    const char c = s[i];
    switch (k13aClass[static_cast<unsigned char>(c)]) {
      case kMaybeSpace:
        if (const std::size_t ws = space_len(b + i, end)) {
          w.gap();
          i += ws;
          continue;
        }
        break;
      case kPad:
        w.gap();
        w.put(c);
        w.gap();
        ++i;
        continue;
      case kDash:
        if (i > 0 && is_digit(s[i - 1])) {
          w.gap();
          w.put(c);
          w.gap();
          ++i;
          continue;
        }
        break;
      case kPeriodComma: {
        std::size_t j = i + 1;
        while (j < n && is_period_comma(s[j])) ++j;
        const std::size_t k = j - i;
        const bool p_digit = i > 0 && is_digit(s[i - 1]);
        const bool f_digit = j < n && is_digit(s[j]);
        if (!(p_digit && f_digit && k == 1)) w.gap();
        for (std::size_t m = i; m < j; ++m) {
          if (m > i) w.gap();
          w.put(s[m]);
        }
        if (!(f_digit && (k % 2 == (p_digit ? 1u : 0u)))) w.gap();
        i = j;
        continue;
      }
      default:
        break;
    }
    // A run of ordinary bytes.
    w.put(c);
    for (++i; i < n && k13aClass[static_cast<unsigned char>(s[i])] == kPlain; ++i) *w.p++ = s[i];
  }
  out.text = std::string_view(w.begin, static_cast<std::size_t>(w.p - w.begin));
  out.count = w.n_starts;
  out.starts[out.count] = static_cast<std::uint32_t>(out.text.size() + 1);
}

}  // namespace

void tokenize_13a_into(std::string_view line, TokenizedLine& out) {
  // Language-independent part (Tokenizer13a.__call__), each replacement only when it can match.
  thread_local std::string cur, next;
  const bool has_lt = line.find('<') != std::string_view::npos;
  const bool has_nl = line.find('\n') != std::string_view::npos;
  const bool has_amp = line.find('&') != std::string_view::npos;
  if (!has_lt && !has_nl && !has_amp) {
    regexp_rules(line, out);
    return;
  }
  cur.assign(line);
  if (has_lt) {
    replace_all(cur, "<skipped>", "", next);
    cur.swap(next);
  }
  if (cur.find('\n') != std::string::npos) {
    // replace('-\n', '') then replace('\n', ' '): one pass gives the same result because the
    // second replacement acts on single characters of the first one's output.
    next.clear();
    for (std::size_t i = 0; i < cur.size(); ++i) {
      if (cur[i] == '-' && i + 1 < cur.size() && cur[i + 1] == '\n') {
        ++i;
      } else {
        next.push_back(cur[i] == '\n' ? ' ' : cur[i]);
      }
    }
    cur.swap(next);
  }
  if (has_amp) {
    // Sequential, as in sacreBLEU: "&amp;lt;" becomes "<" but "&amp;quot;" stays "&quot;".
    static constexpr std::string_view kEntities[][2] = {
        {"&quot;", "\""}, {"&amp;", "&"}, {"&lt;", "<"}, {"&gt;", ">"}};
    for (const auto& e : kEntities) {
      replace_all(cur, e[0], e[1], next);
      cur.swap(next);
    }
  }
  regexp_rules(cur, out);
}

namespace {

// --- intl -------------------------------------------------------------------------------------

enum : std::uint8_t { kNone = 0, kNumber = 1, kPunct = 2, kSymbol = 4, kSpace = 8 };

struct Char {
  char32_t cp;
  std::uint8_t cls;
};

std::uint8_t classify(char32_t cp) {
  std::uint8_t cls = is_python_space(cp) ? kSpace : kNone;
  // Undecodable bytes are kept as lone surrogates U+DC80..U+DCFF (Python's surrogateescape):
  // category Cs, which none of the rules match.
  switch (utf8proc_category(static_cast<utf8proc_int32_t>(cp))) {
    case UTF8PROC_CATEGORY_ND:
    case UTF8PROC_CATEGORY_NL:
    case UTF8PROC_CATEGORY_NO:
      cls |= kNumber;
      break;
    case UTF8PROC_CATEGORY_PC:
    case UTF8PROC_CATEGORY_PD:
    case UTF8PROC_CATEGORY_PS:
    case UTF8PROC_CATEGORY_PE:
    case UTF8PROC_CATEGORY_PI:
    case UTF8PROC_CATEGORY_PF:
    case UTF8PROC_CATEGORY_PO:
      cls |= kPunct;
      break;
    case UTF8PROC_CATEGORY_SM:
    case UTF8PROC_CATEGORY_SC:
    case UTF8PROC_CATEGORY_SK:
    case UTF8PROC_CATEGORY_SO:
      cls |= kSymbol;
      break;
    default:
      break;
  }
  return cls;
}

// Decodes UTF-8 into classified code points; invalid bytes become U+DC80..U+DCFF.
void decode(std::string_view s, std::vector<Char>& out) {
  static const std::array<std::uint8_t, 128> kAscii = [] {
    std::array<std::uint8_t, 128> t{};
    for (char32_t c = 0; c < 128; ++c) t[c] = classify(c);
    return t;
  }();
  out.clear();
  const auto* p = reinterpret_cast<const utf8proc_uint8_t*>(s.data());
  const auto* end = p + s.size();
  while (p < end) {
    if (*p < 0x80) {
      out.push_back({*p, kAscii[*p]});
      ++p;
      continue;
    }
    utf8proc_int32_t cp = 0;
    const utf8proc_ssize_t n = utf8proc_iterate(p, end - p, &cp);
    if (n <= 0) {
      const char32_t esc = escaped_byte(*p);
      out.push_back({esc, kNone});
      ++p;
    } else {
      const auto c = static_cast<char32_t>(cp);
      out.push_back({c, classify(c)});
      p += n;
    }
  }
}

}  // namespace

std::string tokenize_13a(std::string_view line) {
  TokenizedLine out;
  tokenize_13a_into(line, out);
  return std::string(out.text);
}

std::string tokenize_intl(std::string_view line) {
  std::string out;
  tokenize_intl_into(line, out);
  return out;
}

void tokenize_intl_into(std::string_view line, std::string& out) {
  thread_local std::vector<Char> a, b;
  constexpr Char kBlank{U' ', kSpace};
  decode(line, a);

  // (\P{N})(\p{P}) -> '\1 \2 '
  b.clear();
  for (std::size_t i = 0; i < a.size();) {
    if (i + 1 < a.size() && !(a[i].cls & kNumber) && (a[i + 1].cls & kPunct)) {
      b.insert(b.end(), {a[i], kBlank, a[i + 1], kBlank});
      i += 2;
    } else {
      b.push_back(a[i++]);
    }
  }
  // (\p{P})(\P{N}) -> ' \1 \2'
  a.clear();
  for (std::size_t i = 0; i < b.size();) {
    if (i + 1 < b.size() && (b[i].cls & kPunct) && !(b[i + 1].cls & kNumber)) {
      a.insert(a.end(), {kBlank, b[i], kBlank, b[i + 1]});
      i += 2;
    } else {
      a.push_back(b[i++]);
    }
  }
  // (\p{S}) -> ' \1 ', then ' '.join(line.split()), fused.
  out.clear();
  out.reserve(line.size() + line.size() / 2);
  bool in_token = false;
  auto separate = [&] {
    if (in_token) {
      out.push_back(' ');
      in_token = false;
    }
  };
  for (const Char& c : a) {
    if (c.cls & kSpace) {
      separate();
    } else if (c.cls & kSymbol) {
      separate();
      append_utf8_escaped(out, c.cp);
      in_token = true;
      separate();
    } else {
      append_utf8_escaped(out, c.cp);
      in_token = true;
    }
  }
  if (!out.empty() && out.back() == ' ') out.pop_back();
}

// --- zh and char ------------------------------------------------------------------------------

namespace {

// A code point of a UTF-8 text and its bytes; an invalid byte is one unit of its own (Python's
// surrogateescape), never whitespace nor a Han character.
struct Unit {
  char32_t cp;
  std::size_t pos, len;
};

void units_of(std::string_view s, std::vector<Unit>& out) {
  out.clear();
  const auto* b = reinterpret_cast<const utf8proc_uint8_t*>(s.data());
  std::size_t i = 0;
  while (i < s.size()) {
    if (b[i] < 0x80) {
      out.push_back({b[i], i, 1});
      ++i;
      continue;
    }
    utf8proc_int32_t cp = 0;
    const utf8proc_ssize_t n =
        utf8proc_iterate(b + i, static_cast<utf8proc_ssize_t>(s.size() - i), &cp);
    if (n <= 0) {
      out.push_back({0xDC00u + b[i], i, 1});
      ++i;
    } else {
      out.push_back({static_cast<char32_t>(cp), i, static_cast<std::size_t>(n)});
      i += static_cast<std::size_t>(n);
    }
  }
}

// TokenizerZh._is_chinese_char: sacreBLEU's _UCODE_RANGES compared as Python strings. Two of its
// bounds are two-character strings ('\u20000' is U+2000 then '0', meant as U+20000), so those
// ranges hold U+2001..U+2A6D and U+2F81..U+2FA1, and no character beyond the BMP is Chinese.
bool is_zh_char(char32_t c) {
  static constexpr char32_t kRanges[][2] = {
      {0x3400, 0x4DB5}, {0x4E00, 0x9FA5}, {0x9FA6, 0x9FBB}, {0xF900, 0xFA2D}, {0xFA30, 0xFA6A},
      {0xFA70, 0xFAD9}, {0x2001, 0x2A6D}, {0x2F81, 0x2FA1}, {0xFF00, 0xFFEF}, {0x2E80, 0x2EFF},
      {0x3000, 0x303F}, {0x31C0, 0x31EF}, {0x2F00, 0x2FDF}, {0x2FF0, 0x2FFF}, {0x3100, 0x312F},
      {0x31A0, 0x31BF}, {0xFE10, 0xFE1F}, {0xFE30, 0xFE4F}, {0x2600, 0x26FF}, {0x2700, 0x27BF},
      {0x3200, 0x32FF}, {0x3300, 0x33FF}};
  for (const auto& r : kRanges)
    if (c >= r[0] && c <= r[1]) return true;
  return false;
}

// Python's re.sub with a two-character pattern (a)(b) whose replacement only adds spaces around
// the two: leftmost matches, scanning resumes after a match. Bytes stand for characters here:
// every class below is ASCII or "not a digit", which all bytes of a multi-byte character are.
template <class A, class B>
void sub_pair(const std::string& in, A a, B b, std::string_view before, std::string_view between,
              std::string_view after, std::string& out) {
  out.clear();
  std::size_t i = 0;
  while (i < in.size()) {
    if (i + 1 < in.size() && a(in[i]) && b(in[i + 1])) {
      out.append(before);
      out.push_back(in[i]);
      out.append(between);
      out.push_back(in[i + 1]);
      out.append(after);
      i += 2;
    } else {
      out.push_back(in[i++]);
    }
  }
}

// TokenizerRegexp.__call__ on `in` as it is (no padding, unlike 13a), written to `out`.
void regexp_rules_unpadded(std::string& in, std::string& tmp, std::string& out) {
  // ([\{-\~\[-\` -\&\(-\+\:-\@\/]) -> ' \1 '
  tmp.clear();
  for (const char c : in) {
    if (kPadded[static_cast<unsigned char>(c)]) {
      tmp.push_back(' ');
      tmp.push_back(c);
      tmp.push_back(' ');
    } else {
      tmp.push_back(c);
    }
  }
  const auto non_digit = [](char c) { return !is_digit(c); };
  const auto pc = [](char c) { return is_period_comma(c); };
  sub_pair(tmp, non_digit, pc, "", " ", " ", in);  // ([^0-9])([\.,]) -> '\1 \2 '
  sub_pair(in, pc, non_digit, " ", " ", "", tmp);  // ([\.,])([^0-9]) -> ' \1 \2'
  sub_pair(
      tmp, [](char c) { return is_digit(c); }, [](char c) { return c == '-'; }, "", " ", " ",
      in);  // ([0-9])(-) -> '\1 \2 '
  // ' '.join(line.split())
  out.clear();
  const auto* b = reinterpret_cast<const unsigned char*>(in.data());
  const auto* end = b + in.size();
  bool owed = false;
  for (std::size_t i = 0; i < in.size();) {
    if (const std::size_t ws = space_len(b + i, end)) {
      owed = !out.empty();
      i += ws;
      continue;
    }
    if (owed) out.push_back(' ');
    owed = false;
    out.push_back(in[i++]);
  }
}

}  // namespace

void tokenize_zh_into(std::string_view line, std::string& out) {
  thread_local std::vector<Unit> units;
  thread_local std::string spaced, tmp;
  units_of(line, units);
  // line.strip()
  std::size_t first = 0, last = units.size();
  while (first < last && is_python_space(units[first].cp)) ++first;
  while (last > first && is_python_space(units[last - 1].cp)) --last;
  spaced.clear();
  for (std::size_t k = first; k < last; ++k) {
    const Unit& u = units[k];
    const bool han = is_zh_char(u.cp);
    if (han) spaced.push_back(' ');
    spaced.append(line.substr(u.pos, u.len));
    if (han) spaced.push_back(' ');
  }
  regexp_rules_unpadded(spaced, tmp, out);
}

std::string tokenize_zh(std::string_view line) {
  std::string out;
  tokenize_zh_into(line, out);
  return out;
}

std::string tokenize_char(std::string_view line) {
  std::vector<Unit> units;
  units_of(line, units);
  std::string out;
  out.reserve(2 * line.size());
  for (std::size_t k = 0; k < units.size(); ++k) {
    if (k > 0) out.push_back(' ');
    out.append(line.substr(units[k].pos, units[k].len));
  }
  return out;
}

std::vector<std::string_view> split_whitespace(std::string_view s) {
  std::vector<std::string_view> out;
  std::size_t i = 0;
  while (i < s.size()) {
    while (i < s.size() && s[i] == ' ') ++i;
    const std::size_t start = i;
    while (i < s.size() && s[i] != ' ') ++i;
    if (i > start) out.push_back(s.substr(start, i - start));
  }
  return out;
}

}  // namespace probity::text
