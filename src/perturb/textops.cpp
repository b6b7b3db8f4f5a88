#include "perturb/textops.hpp"

#include <algorithm>
#include <array>
#include <cstdint>
#include <memory>
#include <mutex>
#include <unordered_map>

#include "perturb/lexicon.hpp"
#include "probity/text.hpp"
#include "text/ascii.hpp"
#include "util/hash.hpp"

namespace probity::perturb {

// ---- words -----------------------------------------------------------------------------------

namespace {

// Byte classes, looked up in one table (these tests run for every byte of every chunk).
enum : std::uint8_t { kSpace = 1, kLeadPunct = 2, kTrailPunct = 4, kAlnum = 8 };
constexpr std::array<std::uint8_t, 256> kByteClass = [] {
  std::array<std::uint8_t, 256> t{};
  auto mark = [&t](std::string_view bytes, std::uint8_t cls) {
    for (char c : bytes) t[static_cast<unsigned char>(c)] |= cls;
  };
  mark(" \t\n\r\f", kSpace);
  mark("\"'([{<`*_", kLeadPunct);
  mark("\"')]}>.,;:!?*_`", kTrailPunct);
  mark("0123456789abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ", kAlnum);
  return t;
}();

bool byte_is(char c, std::uint8_t cls) {
  return (kByteClass[static_cast<unsigned char>(c)] & cls) != 0;
}
bool is_space(char c) {
  return byte_is(c, kSpace);
}
bool is_ascii_alpha(char c) {
  return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z');
}
bool is_ascii_upper(char c) {
  return c >= 'A' && c <= 'Z';
}
bool is_digit(char c) {
  return c >= '0' && c <= '9';
}

std::string_view trim_view(std::string_view s) {
  while (!s.empty() && is_space(s.front())) s.remove_prefix(1);
  while (!s.empty() && is_space(s.back())) s.remove_suffix(1);
  return s;
}

// Multi-byte punctuation treated like its ASCII counterpart.
constexpr std::array<std::string_view, 9> kUtf8Punct = {
    "\u201c", "\u201d", "\u2018", "\u2019", "\u00ab", "\u00bb", "\u2026", "\u2014", "\u2013"};

bool lead_punct_char(char c) {
  return byte_is(c, kLeadPunct);
}
bool trail_punct_char(char c) {
  return byte_is(c, kTrailPunct);
}

// Every mark of kUtf8Punct starts with a lead byte and ends with a continuation byte: an ASCII
// byte there rules them all out.
std::size_t utf8_punct_prefix(std::string_view s) {
  if (s.empty() || static_cast<unsigned char>(s.front()) < 0x80) return 0;
  for (auto p : kUtf8Punct)
    if (s.starts_with(p)) return p.size();
  return 0;
}
std::size_t utf8_punct_suffix(std::string_view s) {
  if (s.empty() || static_cast<unsigned char>(s.back()) < 0x80) return 0;
  for (auto p : kUtf8Punct)
    if (s.ends_with(p)) return p.size();
  return 0;
}

constexpr std::array<std::string_view, 7> kClitics = {"'s", "'re", "'ve", "'ll", "'d", "'m", "n't"};

// text::ascii_lower(chunk) is one of kClitics.
bool is_clitic(std::string_view chunk) {
  // Every clitic has two or three bytes and starts with ' or n.
  if (chunk.size() < 2 || chunk.size() > 3 ||
      (chunk.front() != '\'' && text::ascii_lower(chunk.front()) != 'n'))
    return false;
  return std::any_of(kClitics.begin(), kClitics.end(),
                     [chunk](std::string_view c) { return equals_lower(chunk, c); });
}

// Whether text::ascii_lower(s) contains the lower-case `needle`, which has an apostrophe at
// `quote`, without lower-casing a copy.
bool contains_lower(std::string_view s, std::string_view needle, std::size_t quote) {
  for (std::size_t q = s.find('\''); q != std::string_view::npos; q = s.find('\'', q + 1)) {
    if (q >= quote && q - quote + needle.size() <= s.size() &&
        equals_lower(s.substr(q - quote, needle.size()), needle))
      return true;
  }
  return false;
}

}  // namespace

bool equals_lower(std::string_view s, std::string_view low) {
  if (s.size() != low.size()) return false;
  for (std::size_t i = 0; i < s.size(); ++i)
    if (text::ascii_lower(s[i]) != low[i]) return false;
  return true;
}

bool has_alnum(std::string_view s) {
  while (!s.empty()) {
    const char c = s.front();
    if (byte_is(c, kAlnum)) return true;
    if (static_cast<unsigned char>(c) >= 0x80) {
      // Non-ASCII: a letter unless it spells one of the punctuation marks we know.
      std::size_t n = utf8_punct_prefix(s);
      if (n == 0) return true;
      s.remove_prefix(n);
      continue;
    }
    s.remove_prefix(1);
  }
  return false;
}

bool has_upper(std::string_view s) {
  return std::any_of(s.begin(), s.end(), is_ascii_upper);
}

bool is_capitalized(std::string_view s) {
  return !s.empty() && is_ascii_upper(s.front());
}

std::string capitalize(std::string_view s) {
  std::string out(s);
  for (char& c : out) {
    if (is_ascii_alpha(c)) {
      if (!is_ascii_upper(c)) c = static_cast<char>(c - 'a' + 'A');
      break;
    }
    if (is_digit(c)) break;
  }
  return out;
}

std::string match_case(std::string_view word, std::string_view model) {
  std::size_t letters = 0, upper = 0;
  for (char c : model) {
    if (is_ascii_alpha(c)) {
      ++letters;
      if (is_ascii_upper(c)) ++upper;
    }
  }
  if (letters > 1 && upper == letters) {
    std::string out(word);
    for (char& c : out)
      if (c >= 'a' && c <= 'z') c = static_cast<char>(c - 'a' + 'A');
    return out;
  }
  if (is_capitalized(model)) return capitalize(word);
  return std::string(word);
}

std::size_t count_words(std::string_view text) {
  std::size_t n = 0;
  std::size_t i = 0;
  while (i < text.size()) {
    while (i < text.size() && is_space(text[i])) ++i;
    std::size_t start = i;
    while (i < text.size() && !is_space(text[i])) ++i;
    if (i > start && has_alnum(text.substr(start, i - start))) ++n;
  }
  return n;
}

bool ChunkCursor::next(std::string_view& text, std::string_view& space) {
  // Leading whitespace makes a first chunk with empty text.
  if (i_ >= s_.size()) return false;
  const std::size_t start = i_;
  while (i_ < s_.size() && !is_space(s_[i_])) ++i_;
  const std::size_t word_end = i_;
  while (i_ < s_.size() && is_space(s_[i_])) ++i_;
  text = s_.substr(start, word_end - start);
  space = s_.substr(word_end, i_ - word_end);
  return true;
}

std::vector<Chunk> to_chunks(std::string_view s) {
  // Counted first: one allocation instead of the vector's growth (Chunk moves are not free).
  std::size_t n = 0;
  for (std::size_t i = 0; i < s.size(); ++i)
    if (is_space(s[i]) ? i == 0 : (i == 0 || is_space(s[i - 1]))) ++n;
  std::vector<Chunk> out;
  out.reserve(n);
  ChunkCursor cursor(s);
  std::string_view text, space;
  while (cursor.next(text, space)) {
    Chunk& chunk = out.emplace_back();  // filled in place: no temporaries to move
    chunk.text.assign(text.data(), text.size());
    chunk.space.assign(space.data(), space.size());
  }
  return out;
}

std::string join_chunks(const std::vector<Chunk>& chunks) {
  std::string out;
  for (const auto& c : chunks) {
    out += c.text;
    out += c.space;
  }
  return out;
}

WordParts split_word(std::string_view chunk) {
  WordParts parts;
  if (is_clitic(chunk)) {
    parts.core = chunk;
    return parts;
  }
  if (!has_alnum(chunk)) {
    parts.lead = chunk;
    return parts;
  }
  std::size_t begin = 0;
  for (;;) {
    if (begin < chunk.size() && lead_punct_char(chunk[begin])) {
      ++begin;
    } else if (std::size_t n = utf8_punct_prefix(chunk.substr(begin))) {
      begin += n;
    } else {
      break;
    }
  }
  std::size_t end = chunk.size();
  for (;;) {
    if (end > begin && trail_punct_char(chunk[end - 1])) {
      --end;
    } else if (std::size_t n = utf8_punct_suffix(chunk.substr(begin, end - begin))) {
      end -= n;
    } else {
      break;
    }
  }
  // Keep a possessive/contraction apostrophe: "dogs'" loses it, but "isn't" never reaches here.
  parts.lead = chunk.substr(0, begin);
  parts.core = chunk.substr(begin, end - begin);
  parts.trail = chunk.substr(end);
  return parts;
}

bool is_punct_chunk(std::string_view chunk) {
  return !chunk.empty() && !has_alnum(chunk);
}

bool ends_clause(std::string_view chunk) {
  std::string_view tail = is_punct_chunk(chunk) ? chunk : split_word(chunk).trail;
  if (tail.find_first_of(",;:!?") != std::string_view::npos) return true;
  if (tail.find('.') != std::string_view::npos) return ends_sentence(chunk);
  return is_punct_chunk(chunk) && (chunk == "--" || chunk == "-" || chunk == "\u2014");
}

bool ends_sentence(std::string_view chunk) {
  // Full-width terminal marks (CJK text) end a sentence wherever they are.
  for (std::string_view mark : {"\u3002", "\uff01", "\uff1f"})
    if (chunk.ends_with(mark)) return true;
  if (is_punct_chunk(chunk)) return chunk.find_first_of(".!?") != std::string_view::npos;
  const WordParts parts = split_word(chunk);
  if (parts.trail.find_first_of("!?") != std::string_view::npos) return true;
  if (parts.trail.find('.') == std::string_view::npos) return false;
  // "v." and "Dr." end no sentence.
  const bool initial = parts.core.size() == 1 && has_alnum(parts.core);
  return !initial && !lex::is_abbreviation(text::ascii_lower(parts.core) + ".") &&
         parts.core.find('.') == std::string_view::npos;
}

bool is_terminal_punct(std::string_view token) {
  return token == "." || token == "!" || token == "?" || token == "..." || token == "\u2026";
}

void fix_articles(std::vector<Chunk>& chunks) {
  for (std::size_t i = 0; i + 1 < chunks.size(); ++i) {
    // An article ends its chunk (no trailing punctuation) with a or n: most chunks stop here.
    const std::string& text = chunks[i].text;
    if (text.empty() ||
        (text.back() != 'a' && text.back() != 'A' && text.back() != 'n' && text.back() != 'N'))
      continue;
    const WordParts art = split_word(text);
    const std::string low = text::ascii_lower(art.core);
    if ((low != "a" && low != "an") || !art.trail.empty()) continue;
    std::size_t j = i + 1;
    while (j < chunks.size() && chunks[j].text.empty()) ++j;
    if (j >= chunks.size()) break;
    if (!chunks[i].changed && !chunks[j].changed) continue;
    const std::string next = text::ascii_lower(split_word(chunks[j].text).core);
    if (next.empty() || !is_ascii_alpha(next.front())) continue;
    const bool vowel_sound = lex::starts_with_vowel_sound(next);
    std::string want = vowel_sound ? "an" : "a";
    if (want != low) {
      chunks[i].text = std::string(art.lead) + match_case(want, art.core);
      chunks[i].changed = true;
    }
  }
}

// ---- style -----------------------------------------------------------------------------------

namespace {

// `doc` is parse_doc(text), or null to parse it when needed.
Style detect_style(std::string_view text, const Doc* doc) {
  Style style;
  std::size_t detached = 0, attached = 0;
  ChunkCursor cursor(text);
  std::string_view chunk, space;
  while (cursor.next(chunk, space)) {
    if (chunk.empty()) continue;
    if (is_clitic(chunk)) {
      ++detached;
      continue;
    }
    if (is_punct_chunk(chunk)) {
      if (chunk.find_first_of(".,;:!?") != std::string_view::npos) ++detached;
      continue;
    }
    const WordParts parts = split_word(chunk);
    if (parts.trail.find_first_of(",;:!?") != std::string_view::npos ||
        (parts.trail.find('.') != std::string_view::npos && ends_sentence(chunk)))
      ++attached;
    if (contains_lower(chunk, "'s", 0) || contains_lower(chunk, "n't", 1)) ++attached;
  }
  style.tokenized = detached > attached;

  if (!has_upper(text)) {
    // Lower-cased Latin text; scripts without case stay natural.
    const bool latin =
        std::any_of(text.begin(), text.end(), [](char c) { return c >= 'a' && c <= 'z'; });
    style.casing = latin ? CaseStyle::kLower : CaseStyle::kNatural;
    return style;
  }
  if (!style.tokenized) return style;
  Doc parsed;
  if (doc == nullptr) {
    parsed = parse_doc(text);
    doc = &parsed;
  }
  // Sentence case: every capital is the first letter of a sentence's first word.
  std::size_t capital_starts = 0;
  for (const auto& line : doc->lines) {
    if (line.kind == Line::Kind::kHeader) return style;
    for (const auto& sentence : line.sentences) {
      bool first_word = true;
      ChunkCursor words(sentence);
      while (words.next(chunk, space)) {
        const WordParts parts = split_word(chunk);
        if (parts.core.empty() || !has_alnum(parts.core)) continue;
        if (first_word) {
          if (has_upper(parts.core.substr(1))) return style;
          if (is_capitalized(parts.core)) ++capital_starts;
          first_word = false;
        } else if (has_upper(parts.core)) {
          return style;
        }
      }
    }
  }
  if (capital_starts >= 2) style.casing = CaseStyle::kSentence;
  return style;
}

}  // namespace

Style detect_style(std::string_view text) {
  return detect_style(text, nullptr);
}

Style detect_style(std::string_view text, const Doc& doc) {
  return detect_style(text, &doc);
}

std::string ptb_tokenize(std::string_view natural) {
  std::string out;
  out.reserve(natural.size() + natural.size() / 4);
  std::size_t line_start = 0;
  std::vector<std::string_view> pieces, tail;  // reused from line to line
  while (line_start <= natural.size()) {
    std::size_t nl = natural.find('\n', line_start);
    std::string_view line = natural.substr(
        line_start, nl == std::string_view::npos ? std::string_view::npos : nl - line_start);
    // Tokens are written as they come, separated by single spaces.
    bool first_token = true;
    auto emit = [&](std::string_view token) {
      if (!first_token) out += ' ';
      out += token;
      first_token = false;
    };
    // Pieces: whitespace chunks, further cut after a closing bracket glued to a word
    // ("(CNN)Donald") and after a currency sign ("$2.6").
    pieces.clear();
    ChunkCursor cursor(line);
    std::string_view text, space;
    while (cursor.next(text, space)) {
      std::string_view rest = text;
      while (!rest.empty()) {
        std::size_t cut = rest.find(')');
        if (cut == std::string_view::npos || cut + 1 >= rest.size()) cut = std::string_view::npos;
        if (rest.size() > 1 && rest.front() == '$' && is_digit(rest[1])) cut = 0;
        if (cut == std::string_view::npos) {
          pieces.push_back(rest);
          break;
        }
        pieces.push_back(rest.substr(0, cut + 1));
        rest.remove_prefix(cut + 1);
      }
    }
    for (std::size_t ci = 0; ci < pieces.size(); ++ci) {
      std::string chunk(pieces[ci]);
      if (chunk.empty()) continue;
      // Curly apostrophes and quotes become their ASCII forms, as PTB tokenizers do (all four
      // start with the byte E2).
      if (chunk.find('\xE2') != std::string::npos) {
        for (auto [from, to] : std::array<std::pair<std::string_view, std::string_view>, 4>{
                 {{"\u2019", "'"}, {"\u2018", "'"}, {"\u201c", "\""}, {"\u201d", "\""}}}) {
          for (std::size_t p = chunk.find(from); p != std::string::npos; p = chunk.find(from, p))
            chunk.replace(p, from.size(), to);
        }
      }
      const bool last = ci + 1 == pieces.size();
      if (is_clitic(chunk)) {
        emit(chunk);  // already tokenized ("i 've")
        continue;
      }
      std::string_view rest = chunk;
      tail.clear();  // views into `chunk` or literals
      while (!rest.empty() &&
             (rest.front() == '"' || rest.front() == '(' || rest.front() == '[' ||
              rest.front() == '{' || rest.front() == '\'' || rest.front() == '`')) {
        if (rest.size() == 1) break;
        emit(rest.front() == '"' ? std::string_view("``") : rest.substr(0, 1));
        rest.remove_prefix(1);
      }
      while (!rest.empty()) {
        const char c = rest.back();
        if (c == '.' && rest.size() > 1 && !last) {
          // "U.S." and "Dr." keep their period unless they end the text.
          std::string_view body = rest.substr(0, rest.size() - 1);
          const bool initial = body.size() == 1 && is_ascii_upper(body.front());
          if (initial || body.find('.') != std::string_view::npos ||
              lex::is_abbreviation(text::ascii_lower(rest)))
            break;
        }
        if (c == '"' || c == ')' || c == ']' || c == '}' || c == '.' || c == ',' || c == ';' ||
            c == ':' || c == '!' || c == '?') {
          tail.push_back(c == '"' ? std::string_view("''") : rest.substr(rest.size() - 1));
          rest.remove_suffix(1);
        } else if (rest.ends_with("\u2026")) {
          tail.push_back("...");
          rest.remove_suffix(3);
        } else {
          break;
        }
      }
      // Clitics: "can't" -> "ca n't", "team's" -> "team 's".
      if (!rest.empty()) {
        auto ends_with_lower = [&rest](std::string_view suffix) {
          return equals_lower(rest.substr(rest.size() - suffix.size()), suffix);
        };
        std::size_t cut = std::string_view::npos;
        if (rest.size() > 3 && ends_with_lower("n't")) {
          cut = rest.size() - 3;
        } else {
          for (auto clitic : kClitics) {
            if (clitic != "n't" && rest.size() > clitic.size() && ends_with_lower(clitic)) {
              cut = rest.size() - clitic.size();
              break;
            }
          }
        }
        if (cut != std::string_view::npos) {
          emit(rest.substr(0, cut));
          emit(rest.substr(cut));
        } else {
          emit(rest);
        }
      }
      for (auto it = tail.rbegin(); it != tail.rend(); ++it) emit(*it);
    }
    if (nl == std::string_view::npos) break;
    out += '\n';
    line_start = nl + 1;
  }
  return out;
}

std::string render(std::string_view natural, const Style& style) {
  std::string out = style.tokenized ? ptb_tokenize(natural) : std::string(natural);
  if (style.casing == CaseStyle::kNatural) return out;
  out = text::to_lower(out);
  if (style.casing == CaseStyle::kLower) return out;
  auto chunks = to_chunks(out);
  bool at_start = true;
  int depth = 0;  // "( cnn ) a whale ..." keeps the bracketed dateline lower-case
  for (auto& chunk : chunks) {
    if (chunk.text.empty()) continue;
    if (chunk.text.starts_with('(')) {
      ++depth;
      at_start = false;
    }
    if (at_start && depth == 0 && has_alnum(chunk.text)) {
      chunk.text = capitalize(chunk.text);
      at_start = false;
    }
    if (chunk.text.ends_with(')') && depth > 0) --depth;
    if (ends_sentence(chunk.text)) at_start = true;
    if (chunk.space.find('\n') != std::string::npos) at_start = true;
  }
  return join_chunks(chunks);
}

const std::string& render_phrase(std::string_view natural, const Style& style) {
  // Keyed by the style and the phrase; node-based, so references stay valid as it grows.
  thread_local std::unordered_map<std::string, std::string> rendered;
  std::string key;
  key.reserve(natural.size() + 2);
  key += static_cast<char>('0' + static_cast<int>(style.casing));
  key += style.tokenized ? 't' : 'n';
  key += natural;
  auto it = rendered.find(key);
  if (it == rendered.end()) it = rendered.emplace(std::move(key), render(natural, style)).first;
  return it->second;
}

// ---- layout ----------------------------------------------------------------------------------

namespace {

// Length of a list marker ("- ", "* ", "1. ", "2) ", "(a) ", "b) ") at the start of `s`,
// including the spaces after it; 0 when there is none.
std::size_t list_marker_length(std::string_view s) {
  std::size_t n = 0;
  if (s.starts_with("\u2022") || s.starts_with("\u2013") || s.starts_with("\u00b7")) {
    n = s.starts_with("\u00b7") ? 2 : 3;
  } else if (!s.empty() && (s[0] == '-' || s[0] == '*' || s[0] == '+')) {
    n = 1;
  } else if (!s.empty() && is_digit(s[0])) {
    while (n < s.size() && n < 3 && is_digit(s[n])) ++n;
    if (n >= s.size() || (s[n] != '.' && s[n] != ')')) return 0;
    ++n;
  } else if (s.size() > 2 && s[0] == '(' && (is_ascii_alpha(s[1]) || is_digit(s[1]))) {
    n = 2;
    while (n < s.size() && n < 4 && (is_ascii_alpha(s[n]) || is_digit(s[n]))) ++n;
    if (n >= s.size() || s[n] != ')') return 0;
    ++n;
  } else if (s.size() > 2 && is_ascii_alpha(s[0]) && s[1] == ')') {
    n = 2;
  } else {
    return 0;
  }
  if (n >= s.size() || (s[n] != ' ' && s[n] != '\t')) return 0;
  while (n < s.size() && (s[n] == ' ' || s[n] == '\t')) ++n;
  return n;
}

bool looks_like_header(std::string_view t, bool next_line_has_text) {
  if (t.starts_with('#')) return true;
  if ((t.starts_with("**") && (t.ends_with("**") || t.ends_with("**:"))) ||
      (t.starts_with("__") && (t.ends_with("__") || t.ends_with("__:"))))
    return t.size() > 4;
  const std::size_t words = count_words(t);
  if (t.ends_with(':') && words >= 1 && words <= 6 &&
      t.substr(0, t.size() - 1).find_first_of(".!?") == std::string_view::npos)
    return true;
  const char last = t.back();
  return next_line_has_text && words >= 1 && words <= 4 && is_ascii_upper(t.front()) &&
         last != '.' && last != '!' && last != '?' && last != ',' && last != ';';
}

// Where the sentences of a line's content are: what is worth remembering of a parse.
struct Span {
  std::uint32_t at, size;
};
using LineSpans = std::vector<Span>;

// Splits the line into sentences and the gaps around them. With `known`, the spans a former
// split of the same content found; otherwise the splitter's, recorded in `found` (nullptr: not
// wanted; cleared when the splitter changed bytes, as no span describes that).
void segment(Line& line, const LineSpans* known, LineSpans* found) {
  if (known != nullptr) {
    line.sentences.clear();
    line.sentences.reserve(known->size());
    line.gaps.assign(known->size() + 1, "");
    std::size_t cursor = 0;
    for (std::size_t i = 0; i < known->size(); ++i) {
      const Span span = (*known)[i];
      line.sentences.push_back(line.content.substr(span.at, span.size));
      line.gaps[i] = line.content.substr(cursor, span.at - cursor);
      cursor = span.at + span.size;
    }
    line.gaps.back() = line.content.substr(std::min(cursor, line.content.size()));
    return;
  }
  line.sentences = text::split_sentences(line.content);
  line.gaps.assign(line.sentences.size() + 1, "");
  std::size_t cursor = 0;
  for (std::size_t i = 0; i < line.sentences.size(); ++i) {
    std::size_t at = line.content.find(line.sentences[i], cursor);
    if (at == std::string::npos) {
      // The splitter changed bytes (invalid UTF-8): fall back to single spaces.
      for (std::size_t g = 1; g < line.sentences.size(); ++g) line.gaps[g].assign(1, ' ');
      line.gaps.front().clear();
      line.gaps.back().clear();
      if (found != nullptr) found->clear();
      return;
    }
    line.gaps[i] = line.content.substr(cursor, at - cursor);
    if (found != nullptr)
      found->push_back(
          {static_cast<std::uint32_t>(at), static_cast<std::uint32_t>(line.sentences[i].size())});
    cursor = at + line.sentences[i].size();
  }
  line.gaps.back() = line.content.substr(std::min(cursor, line.content.size()));
}

}  // namespace

std::size_t Doc::num_sentences() const {
  std::size_t n = 0;
  for (const auto& line : lines) n += line.sentences.size();
  return n;
}

namespace {

// How parse_doc() read a line: its kind, the lengths of its prefix and content (the suffix is
// the rest) and where its sentences are. What is worth remembering of a parse.
struct LineLayout {
  Line::Kind kind = Line::Kind::kBlank;
  std::uint32_t prefix = 0, content = 0;
  LineSpans spans;
};

// parse_doc() with each line read as `known` says (one layout per line), or read afresh and
// recorded in `found`; `representable` turns false when a line's sentences are not slices of it.
Doc parse_doc(std::string_view text, const std::vector<LineLayout>* known,
              std::vector<LineLayout>* found, bool* representable) {
  Doc doc;
  std::vector<std::string_view> raw;
  for (std::size_t start = 0;;) {
    std::size_t nl = text.find('\n', start);
    raw.push_back(
        text.substr(start, nl == std::string_view::npos ? std::string_view::npos : nl - start));
    if (nl == std::string_view::npos) break;
    start = nl + 1;
  }
  if (known != nullptr && known->size() != raw.size()) known = nullptr;  // not this text's
  if (found != nullptr) found->assign(raw.size(), {});
  doc.lines.reserve(raw.size());
  std::size_t section = 0;
  for (std::size_t i = 0; i < raw.size(); ++i) {
    Line line;
    std::string_view r = raw[i];
    if (known != nullptr) {
      const LineLayout& layout = (*known)[i];
      line.kind = layout.kind;
      if (line.kind == Line::Kind::kBlank) {
        line.suffix = std::string(r);
      } else {
        line.prefix = std::string(r.substr(0, layout.prefix));
        line.content = std::string(r.substr(layout.prefix, layout.content));
        line.suffix = std::string(r.substr(layout.prefix + layout.content));
        if (line.kind == Line::Kind::kHeader) ++section;
      }
      line.section = section;
      if (line.kind == Line::Kind::kItem || line.kind == Line::Kind::kText)
        segment(line, &layout.spans, nullptr);
      doc.lines.push_back(std::move(line));
      continue;
    }
    std::size_t end = r.size();
    while (end > 0 && is_space(r[end - 1])) --end;
    std::size_t begin = 0;
    while (begin < end && (r[begin] == ' ' || r[begin] == '\t')) ++begin;
    if (begin >= end) {
      line.kind = Line::Kind::kBlank;
      line.suffix = std::string(r);
      line.section = section;
      doc.lines.push_back(std::move(line));
      continue;
    }
    line.suffix = std::string(r.substr(end));
    std::string_view body = r.substr(begin, end - begin);
    const bool next_has_text = i + 1 < raw.size() && !trim_view(raw[i + 1]).empty();
    if (std::size_t m = list_marker_length(body); m > 0 && m < body.size()) {
      line.kind = Line::Kind::kItem;
      line.prefix = std::string(r.substr(0, begin + m));
      line.content = std::string(body.substr(m));
    } else if (raw.size() > 1 && looks_like_header(body, next_has_text)) {
      line.kind = Line::Kind::kHeader;
      line.prefix = std::string(r.substr(0, begin));
      line.content = std::string(body);
      ++section;
    } else {
      line.kind = Line::Kind::kText;
      line.prefix = std::string(r.substr(0, begin));
      line.content = std::string(body);
    }
    line.section = section;
    LineLayout* layout = found != nullptr ? &(*found)[i] : nullptr;
    if (layout != nullptr) {
      layout->kind = line.kind;
      layout->prefix = static_cast<std::uint32_t>(line.prefix.size());
      layout->content = static_cast<std::uint32_t>(line.content.size());
    }
    if (line.kind != Line::Kind::kHeader) {
      segment(line, nullptr, layout != nullptr ? &layout->spans : nullptr);
      if (layout != nullptr && layout->spans.size() != line.sentences.size())
        *representable = false;
    }
    doc.lines.push_back(std::move(line));
  }
  return doc;
}

}  // namespace

Doc parse_doc(std::string_view text) {
  return parse_doc(text, nullptr, nullptr, nullptr);
}

namespace {

// What analyze() remembers of a text: its style, how its lines read and its names.
struct Parsed {
  Style style;
  std::vector<LineLayout> lines;
  std::shared_ptr<const std::unordered_set<std::string>> names;
};

// Parsed texts, keyed by the whole text (so a hit is exact), in shards that lock separately.
// Every strategy parses each candidate, one strategy after another over the whole dataset, so
// only a cache of every candidate helps: it holds at most kCapacity bytes of texts (plus a few
// bytes per sentence and name) and a full shard starts over.
class ParseCache {
 public:
  std::shared_ptr<const Parsed> find(std::string_view text) {
    const Probe probe{text, Hash{}(text)};  // the text is hashed once, for shard and map
    Shard& shard = shard_of(probe.hash);
    std::lock_guard lock(shard.mutex);
    const auto it = shard.map.find(probe);
    return it == shard.map.end() ? nullptr : it->second;
  }
  void insert(std::string_view text, std::shared_ptr<const Parsed> parsed) {
    Shard& shard = shard_of(Hash{}(text));
    std::lock_guard lock(shard.mutex);
    if (shard.bytes + text.size() > kCapacity / kShards) {
      shard.map.clear();
      shard.bytes = 0;
    }
    if (shard.map.try_emplace(std::string(text), std::move(parsed)).second)
      shard.bytes += text.size();
  }

 private:
  static constexpr std::size_t kShards = 16;
  static constexpr std::size_t kCapacity = std::size_t{128} << 20;
  // A text with its hash.
  struct Probe {
    std::string_view text;
    std::size_t hash;
  };
  struct Hash : util::StringHash {
    using util::StringHash::operator();
    std::size_t operator()(const Probe& p) const { return p.hash; }
  };
  struct Equal {
    using is_transparent = void;
    bool operator()(std::string_view a, std::string_view b) const { return a == b; }
    bool operator()(const Probe& a, std::string_view b) const { return a.text == b; }
    bool operator()(std::string_view a, const Probe& b) const { return a == b.text; }
  };
  struct Shard {
    std::mutex mutex;
    std::unordered_map<std::string, std::shared_ptr<const Parsed>, Hash, Equal> map;
    std::size_t bytes = 0;
  };
  Shard& shard_of(std::size_t hash) {
    // The top bits, which the maps' bucket indices (the low ones, modulo) do not follow.
    return shards_[(hash >> 32) % kShards];
  }
  std::array<Shard, kShards> shards_;
};

ParseCache& parse_cache() {
  static ParseCache cache;
  return cache;
}

}  // namespace

Analysis analyze(std::string_view text) {
  if (const auto parsed = parse_cache().find(text))
    return {parse_doc(text, &parsed->lines, nullptr, nullptr), parsed->style, parsed->names};
  auto parsed = std::make_shared<Parsed>();
  bool representable = true;
  Analysis out;
  out.doc = parse_doc(text, nullptr, &parsed->lines, &representable);
  out.style = detect_style(text, out.doc);
  out.names =
      std::make_shared<const std::unordered_set<std::string>>(midsentence_capitals(out.doc));
  parsed->style = out.style;
  parsed->names = out.names;
  // Text past 4 GiB or that the splitter changed (invalid UTF-8) is parsed every time.
  if (representable && text.size() <= UINT32_MAX) parse_cache().insert(text, std::move(parsed));
  return out;
}

Style analyze_style(std::string_view text) {
  if (const auto parsed = parse_cache().find(text)) return parsed->style;
  return analyze(text).style;
}

std::string render_doc(const Doc& doc) {
  std::string out;
  for (std::size_t li = 0; li < doc.lines.size(); ++li) {
    const Line& line = doc.lines[li];
    if (li > 0) out += '\n';
    switch (line.kind) {
      case Line::Kind::kBlank:
        out += line.suffix;
        break;
      case Line::Kind::kHeader:
        out += line.prefix + line.content + line.suffix;
        break;
      case Line::Kind::kItem:
      case Line::Kind::kText: {
        std::string body;
        std::size_t previous = std::string::npos;
        for (std::size_t i = 0; i < line.sentences.size(); ++i) {
          if (line.sentences[i].empty()) continue;
          if (previous != std::string::npos) {
            // The original separator, or a space when two sentences had none between them.
            body += line.gaps[i].empty() && previous + 1 != i ? " " : line.gaps[i];
          }
          body += line.sentences[i];
          previous = i;
        }
        if (body.empty()) {
          // Every sentence went: keep the list marker (and the line) but no dangling spaces.
          std::string_view prefix = line.prefix;
          while (!prefix.empty() && (prefix.back() == ' ' || prefix.back() == '\t'))
            prefix.remove_suffix(1);
          out += prefix;
          out += line.suffix;
        } else {
          out += line.prefix + line.gaps.front() + body + line.gaps.back() + line.suffix;
        }
        break;
      }
    }
  }
  return out;
}

std::vector<SentenceRef> sentence_refs(const Doc& doc) {
  std::vector<SentenceRef> refs;
  for (std::size_t li = 0; li < doc.lines.size(); ++li)
    for (std::size_t si = 0; si < doc.lines[li].sentences.size(); ++si) refs.push_back({li, si});
  return refs;
}

std::unordered_set<std::string> midsentence_capitals(const Doc& doc) {
  std::unordered_set<std::string> names;
  for (const auto& line : doc.lines) {
    for (const auto& sentence : line.sentences) {
      bool first = true;
      ChunkCursor cursor(sentence);
      std::string_view chunk, space;
      while (cursor.next(chunk, space)) {
        const WordParts parts = split_word(chunk);
        if (parts.core.empty() || !has_alnum(parts.core)) continue;
        if (!first && is_capitalized(parts.core) && parts.core != "I")
          names.insert(text::ascii_lower(parts.core));
        first = false;
      }
    }
  }
  return names;
}

std::string decapitalize_initial(std::string_view word, const Style& style,
                                 const std::unordered_set<std::string>& names) {
  const WordParts parts = split_word(word);
  if (parts.core.empty() || !is_capitalized(parts.core)) return std::string(word);
  const std::string low = text::ascii_lower(parts.core);
  auto lowered = [&] { return std::string(parts.lead) + low + std::string(parts.trail); };
  if (style.casing == CaseStyle::kLower) return std::string(word);
  if (parts.core == "I" || parts.core.starts_with("I'")) return std::string(word);
  if (style.casing == CaseStyle::kSentence) return lowered();
  if (has_upper(parts.core.substr(1))) return std::string(word);  // "NBA", "McCain"
  if (names.count(low) > 0) return std::string(word);
  // "It's" is judged by "it".
  const std::string stem = low.substr(0, std::min(low.find('\''), low.find("\u2019")));
  if (lex::is_function_word(stem) || lex::is_common_word(stem)) return lowered();
  return std::string(word);
}

}  // namespace probity::perturb
