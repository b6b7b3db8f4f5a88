// Rule-based statement decomposition Ψ(y) (as Xu et al. 2025 decompose references): sentences,
// split into atomic clauses at semicolons, clause-joining coordination and non-restrictive relative
// clauses; non-claims (questions, greetings, headers, bullets, short fragments) dropped. Works on
// raw text and on lower-cased tokenized text ("the team 's coach left , and he was fired .") alike,
// because splitting happens on whitespace tokens with clause punctuation peeled off.
#include <algorithm>
#include <cctype>
#include <memory>
#include <string>
#include <string_view>
#include <unordered_set>
#include <vector>

#include "probity/text.hpp"
#include "text/ascii.hpp"
#include "text/stopwords.hpp"
#include "text/wordnet.hpp"

namespace probity::text {
namespace {

// A statement has at least this many words, and this many content words unless it is a clause
// with a verb ("he was fired" is a claim, "In the morning" a fragment).
constexpr std::size_t kMinWords = 3;
constexpr std::size_t kMinContentWords = 3;
// Longest antecedent noun phrase carried into a relative clause, and longest carried subject.
constexpr std::size_t kMaxCarried = 6;

struct Tok {
  std::size_t begin = 0, end = 0;  // bytes of the sentence; for synthetic tokens, unused
  std::string word;                // lower-case core without surrounding punctuation
  char punct = 0;                  // ',', ';' or ':' for a clause punctuation token
  bool opener = false;             // an opening bracket or quote ("(", "``"), kept at a start
  std::string_view synthetic;      // text of an inserted token ("'s")
};

using Set = std::unordered_set<std::string_view>;

bool in(const Set& set, std::string_view w) {
  return set.count(w) > 0;
}

const Set& auxiliaries() {
  static const Set set = {
      "is",       "are",      "was",       "were",   "be",      "been",   "being",  "am",
      "has",      "have",     "had",       "do",     "does",    "did",    "will",   "would",
      "can",      "could",    "shall",     "should", "may",     "might",  "must",   "'s",
      "'re",      "'ve",      "'ll",       "'d",     "isn't",   "aren't", "wasn't", "weren't",
      "hasn't",   "haven't",  "hadn't",    "don't",  "doesn't", "didn't", "won't",  "can't",
      "couldn't", "wouldn't", "shouldn't", "cannot", "n't"};
  return set;
}

const Set& subject_pronouns() {
  static const Set set = {"i", "you", "he", "she", "it", "we", "they", "who", "which", "that"};
  return set;
}

const Set& determiners() {
  static const Set set = {"a",     "an",   "the",  "this",  "that", "these",   "those",
                          "his",   "her",  "its",  "their", "our",  "my",      "your",
                          "every", "each", "some", "any",   "no",   "another", "'s"};
  return set;
}

// Words that end an antecedent noun phrase when walking back from a relative pronoun.
const Set& phrase_boundaries() {
  static const Set set = {"of",      "in",      "on",       "at",      "by",      "for",
                          "with",    "from",    "to",       "into",    "about",   "after",
                          "before",  "over",    "under",    "than",    "as",      "and",
                          "or",      "but",     "against",  "between", "through", "during",
                          "without", "toward",  "towards",  "like",    "among",   "including",
                          "if",      "because", "although", "while",   "whereas", "when",
                          "where",   "that",    "which",    "who",     "not",     "never"};
  return set;
}

const Set& connectives() {
  static const Set set = {"and",      "but",    "yet", "however",  "while", "whereas",
                          "although", "though", "so",  "moreover", "also",  "then"};
  return set;
}

const Set& greetings() {
  static const Set set = {"hi",       "hello",   "hey",       "thanks", "thank",   "greetings",
                          "dear",     "goodbye", "bye",       "cheers", "welcome", "you",
                          "everyone", "all",     "there",     "so",     "much",    "very",
                          "good",     "morning", "afternoon", "evening"};
  return set;
}

std::string lower_core(std::string_view chunk) {
  // Strip surrounding punctuation but keep inner apostrophes ("n't", "'s", "don't").
  auto is_core = [](char c) {
    return std::isalnum(static_cast<unsigned char>(c)) != 0 ||
           static_cast<unsigned char>(c) >= 0x80;
  };
  std::size_t b = 0, e = chunk.size();
  while (b < e && !is_core(chunk[b]) && chunk[b] != '\'') ++b;
  while (e > b && !is_core(chunk[e - 1])) --e;
  std::string out(chunk.substr(b, e - b));
  for (char& c : out) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  if (out == "'") out.clear();
  return out;
}

std::vector<Tok> tokenize_sentence(std::string_view s) {
  std::vector<Tok> out;
  std::size_t i = 0;
  while (i < s.size()) {
    while (i < s.size() && std::isspace(static_cast<unsigned char>(s[i]))) ++i;
    const std::size_t start = i;
    while (i < s.size() && !std::isspace(static_cast<unsigned char>(s[i]))) ++i;
    if (i == start) break;
    std::size_t end = i;
    // Peel trailing clause punctuation, looking through closing quotes ("said,").
    std::vector<Tok> trailing;
    std::size_t scan = end;
    while (scan > start) {
      const char c = s[scan - 1];
      if (c == ',' || c == ';' || c == ':') {
        Tok p;
        p.begin = scan - 1;
        p.end = scan;
        p.punct = c;
        trailing.push_back(p);
        end = scan - 1;
        --scan;
      } else if (c == '"' || c == '\'' || c == ')') {
        --scan;
      } else {
        break;
      }
    }
    if (end > start) {
      Tok t;
      t.begin = start;
      t.end = end;
      t.word = lower_core(s.substr(start, end - start));
      t.opener = t.word.empty() && (s[start] == '(' || s[start] == '[' || s[start] == '"' ||
                                    s.substr(start, 2) == "``");
      out.push_back(std::move(t));
    }
    std::reverse(trailing.begin(), trailing.end());
    for (auto& p : trailing) out.push_back(p);
  }
  return out;
}

bool is_word(const Tok& t) {
  return t.punct == 0 && !t.word.empty();
}

bool is_number(std::string_view w) {
  return std::any_of(w.begin(), w.end(), [](char c) { return c >= '0' && c <= '9'; });
}

bool is_content(std::string_view w) {
  if (w.empty()) return false;
  if (is_number(w)) return true;
  if (w == "not" || w == "n't" || w == "never" || w == "no") return true;  // claims' polarity
  std::string core;
  for (char c : w)
    if (std::isalnum(static_cast<unsigned char>(c)) || static_cast<unsigned char>(c) >= 0x80)
      core += c;
  return core.size() >= 2 && !text::is_stopword(core);
}

// Verb-like token: auxiliaries, irregular or -ed/-ing verb forms, a verb after a subject
// pronoun. Third-person -s forms count only after a pronoun: alone they are mostly plural nouns,
// which would make noun lists look like clauses.
bool is_verbish(const std::vector<Tok>& toks, const std::vector<std::size_t>& idx, std::size_t k) {
  const std::string& w = toks[idx[k]].word;
  if (w.empty()) return false;
  if (in(auxiliaries(), w) || w.ends_with("n't")) return true;
  const bool after_pronoun = k > 0 && in(subject_pronouns(), toks[idx[k - 1]].word);
  if (w.size() >= 4 && text::wordnet::is_inflected_verb(w)) {
    const bool s_form = w.back() == 's' && !w.ends_with("ss");
    if (!s_form || after_pronoun) return true;
  }
  return after_pronoun && text::wordnet::is_verb_lemma(w) && !in(determiners(), w);
}

std::size_t count_words(const std::vector<Tok>& toks, const std::vector<std::size_t>& idx) {
  return static_cast<std::size_t>(
      std::count_if(idx.begin(), idx.end(), [&](std::size_t i) { return is_word(toks[i]); }));
}

std::size_t count_content(const std::vector<Tok>& toks, const std::vector<std::size_t>& idx) {
  return static_cast<std::size_t>(std::count_if(idx.begin(), idx.end(), [&](std::size_t i) {
    return is_word(toks[i]) && is_content(toks[i].word);
  }));
}

bool has_verb(const std::vector<Tok>& toks, const std::vector<std::size_t>& idx) {
  for (std::size_t k = 0; k < idx.size(); ++k)
    if (is_verbish(toks, idx, k)) return true;
  return false;
}

// A side of a coordination that can stand as a claim: three words or more, one of them verbal
// (so "apples, pears, and fresh green oranges" stays together).
bool is_clause(const std::vector<Tok>& toks, const std::vector<std::size_t>& idx) {
  return count_words(toks, idx) >= 3 && has_verb(toks, idx);
}

// Not a fragment: enough words, some content, and a verb or enough content words.
bool is_claim(const std::vector<Tok>& toks, const std::vector<std::size_t>& idx) {
  if (count_words(toks, idx) < kMinWords) return false;
  const std::size_t content = count_content(toks, idx);
  return content >= kMinContentWords || (content >= 1 && has_verb(toks, idx));
}

std::vector<std::size_t> slice(const std::vector<std::size_t>& idx, std::size_t from,
                               std::size_t to) {
  return {idx.begin() + static_cast<std::ptrdiff_t>(from),
          idx.begin() + static_cast<std::ptrdiff_t>(to)};
}

// Drops leading connectives and punctuation, trailing punctuation and dangling conjunctions.
std::vector<std::size_t> trim(const std::vector<Tok>& toks, std::vector<std::size_t> idx) {
  std::size_t b = 0, e = idx.size();
  while (b < e && (toks[idx[b]].punct != 0 || (toks[idx[b]].word.empty() && !toks[idx[b]].opener) ||
                   in(connectives(), toks[idx[b]].word)))
    ++b;
  while (e > b && (toks[idx[e - 1]].punct != 0 || toks[idx[e - 1]].word == "and" ||
                   toks[idx[e - 1]].word == "but"))
    --e;
  return slice(idx, b, e);
}

// The subject of a clause: the tokens before its first verb-like token (at most kMaxCarried).
std::vector<std::size_t> subject_of(const std::vector<Tok>& toks,
                                    const std::vector<std::size_t>& idx) {
  for (std::size_t k = 0; k < idx.size() && k <= kMaxCarried; ++k) {
    if (toks[idx[k]].punct != 0) return {};
    if (is_verbish(toks, idx, k)) return slice(idx, 0, k);
  }
  return {};
}

// Coordination: ", and" / ", but" / ", yet" / "; however" between clauses, "while"/"whereas"
// inside a sentence, and a sentence-initial "While/Whereas/Although X, Y". A right-hand clause
// that starts with its verb ("..., and joined a rival club") borrows the left clause's subject.
void split_coordination(const std::vector<Tok>& toks, const std::vector<std::size_t>& idx,
                        std::vector<std::vector<std::size_t>>& out) {
  auto emit = [&](const std::vector<std::size_t>& piece) {
    if (auto t = trim(toks, piece); !t.empty()) out.push_back(std::move(t));
  };
  if (idx.empty()) return;
  // Sentence-initial subordinate clause.
  if (const auto& first = toks[idx[0]].word;
      first == "while" || first == "whereas" || first == "although" || first == "though") {
    for (std::size_t k = 1; k + 1 < idx.size(); ++k) {
      if (toks[idx[k]].punct != ',') continue;
      auto left = slice(idx, 1, k), right = slice(idx, k + 1, idx.size());
      if (is_clause(toks, left) && is_clause(toks, trim(toks, right))) {
        emit(left);
        split_coordination(toks, trim(toks, right), out);
        return;
      }
      break;
    }
  }
  for (std::size_t k = 1; k + 1 < idx.size(); ++k) {
    std::size_t right_from = 0;
    const Tok& t = toks[idx[k]];
    if (t.punct == ',' || t.punct == ';') {
      const std::string& next = toks[idx[k + 1]].word;
      if (next == "and" || next == "but" || next == "yet" || next == "however") right_from = k + 2;
    } else if (t.word == "while" || t.word == "whereas") {
      right_from = k + 1;
    }
    if (right_from == 0 || right_from >= idx.size()) continue;
    auto left = trim(toks, slice(idx, 0, k));
    auto right = trim(toks, slice(idx, right_from, idx.size()));
    if (!is_clause(toks, left) || !is_clause(toks, right)) continue;
    if (is_verbish(toks, right, 0)) {
      auto subject = subject_of(toks, left);
      if (!subject.empty()) right.insert(right.begin(), subject.begin(), subject.end());
    }
    emit(left);
    split_coordination(toks, right, out);
    return;
  }
  emit(idx);
}

// Non-restrictive relative clauses (", who ...", ", which ...", ", whose ..."): removed from the
// main clause and returned as statements about their antecedent noun phrase ("X, who won, ..."
// → "X won"). A clause whose antecedent is not a noun phrase (", which surprised everyone"
// after a verb) stays in place.
std::vector<std::size_t> extract_relatives(std::vector<Tok>& toks, std::vector<std::size_t> idx,
                                           std::vector<std::vector<std::size_t>>& relatives) {
  for (std::size_t k = 1; k + 2 < idx.size(); ++k) {
    if (toks[idx[k]].punct != ',') continue;
    const std::string pronoun = toks[idx[k + 1]].word;  // copied: toks may grow below
    if (pronoun != "who" && pronoun != "which" && pronoun != "whose") continue;
    std::size_t end = k + 2;
    while (end < idx.size() && toks[idx[end]].punct != ',' && toks[idx[end]].punct != ';') ++end;
    auto clause = slice(idx, k + 2, end);
    if (count_words(toks, clause) < 2) continue;
    // Antecedent: walk back over the noun phrase, stopping after a determiner.
    std::size_t from = k;
    while (from > 0 && k - from < kMaxCarried) {
      const Tok& t = toks[idx[from - 1]];
      if (!is_word(t) || in(phrase_boundaries(), t.word) || in(auxiliaries(), t.word)) break;
      if (is_verbish(toks, idx, from - 1) && !in(determiners(), t.word)) break;
      --from;
      if (in(determiners(), t.word) && t.word != "'s") break;
    }
    auto phrase = slice(idx, from, k);
    if (phrase.empty() || count_content(toks, phrase) == 0) continue;
    std::vector<std::size_t> statement = phrase;
    if (pronoun == "whose") {
      Tok s;
      s.synthetic = "'s";
      s.word = "'s";
      toks.push_back(std::move(s));
      statement.push_back(toks.size() - 1);
    }
    statement.insert(statement.end(), clause.begin(), clause.end());
    relatives.push_back(trim(toks, statement));
    // The main clause continues after the relative clause's closing comma.
    std::vector<std::size_t> rest = slice(idx, 0, k);
    const std::size_t resume = end < idx.size() && toks[idx[end]].punct == ',' ? end + 1 : end;
    rest.insert(rest.end(), idx.begin() + static_cast<std::ptrdiff_t>(resume), idx.end());
    return extract_relatives(toks, std::move(rest), relatives);
  }
  return idx;
}

// Text of a token sequence: original spacing between neighbours, one space across gaps.
std::string render(std::string_view sentence, const std::vector<Tok>& toks,
                   const std::vector<std::size_t>& idx) {
  std::string out;
  for (std::size_t k = 0; k < idx.size(); ++k) {
    const Tok& t = toks[idx[k]];
    if (k > 0) {
      const Tok& prev = toks[idx[k - 1]];
      if (!t.synthetic.empty()) {
        // "'s" attaches to the antecedent.
      } else if (idx[k] == idx[k - 1] + 1 && prev.synthetic.empty()) {
        out += sentence.substr(prev.end, t.begin - prev.end);
      } else {
        out += ' ';
      }
    }
    out += t.synthetic.empty() ? sentence.substr(t.begin, t.end - t.begin) : t.synthetic;
  }
  return out;
}

bool is_question(std::string_view sentence) {
  std::size_t e = sentence.size();
  while (e > 0 && (std::isspace(static_cast<unsigned char>(sentence[e - 1])) ||
                   sentence[e - 1] == '"' || sentence[e - 1] == '\'' || sentence[e - 1] == ')'))
    --e;
  return e > 0 && sentence[e - 1] == '?';
}

bool is_header(std::string_view sentence) {
  std::size_t e = sentence.size();
  while (e > 0 && std::isspace(static_cast<unsigned char>(sentence[e - 1]))) --e;
  const auto b = sentence.find_first_not_of(" \t");
  return (e > 0 && sentence[e - 1] == ':') || (b != std::string_view::npos && sentence[b] == '#');
}

// A greeting or thanks with little else ("Hi there!", "Thank you so much.").
bool is_greeting(const std::vector<Tok>& toks) {
  std::size_t first = 0;
  while (first < toks.size() && !is_word(toks[first])) ++first;
  if (first == toks.size() || !in(greetings(), toks[first].word) || toks[first].word == "you" ||
      toks[first].word == "all" || toks[first].word == "there")
    return false;
  std::size_t other = 0;
  for (const auto& t : toks)
    if (is_word(t) && is_content(t.word) && !in(greetings(), t.word)) ++other;
  return other < kMinContentWords;
}

// Leading bullet markers ("-", "*", "•", "1.", "2)", "(a)") are not part of the claim.
std::vector<std::size_t> strip_bullet(const std::vector<Tok>& toks, std::string_view sentence) {
  std::vector<std::size_t> idx;
  for (std::size_t i = 0; i < toks.size(); ++i) idx.push_back(i);
  if (!idx.empty() && toks.size() > 1) {
    const std::string_view first = sentence.substr(toks[0].begin, toks[0].end - toks[0].begin);
    const bool symbol = first == "-" || first == "*" || first == "\xE2\x80\xA2" ||
                        first == "\xE2\x80\x93" || first == "\xE2\x80\x94";
    // "1." "12)" "a)" "(b)"; not "V." (an initial) or "a" (an article).
    const std::string_view body = first.substr(first.front() == '(' ? 1 : 0);
    const bool digits =
        body.size() >= 2 && body.size() <= 4 && (body.back() == '.' || body.back() == ')') &&
        std::all_of(body.begin(), body.end() - 1, [](char c) { return c >= '0' && c <= '9'; });
    const bool letter = body.size() == 2 && body.back() == ')' && body[0] >= 'a' && body[0] <= 'z';
    const bool numbered = digits || letter;
    if (symbol || numbered) idx.erase(idx.begin());
  }
  return idx;
}

std::string trim_space(std::string_view s) {
  return std::string(trim_ascii_space(s));
}

}  // namespace

std::vector<std::string> decompose_statements(std::string_view text) {
  const std::string whole = trim_space(text);
  if (whole.empty()) return {};
  std::vector<std::string> statements;
  std::unordered_set<std::string> seen;
  auto add = [&](std::string s) {
    s = trim_space(s);
    if (!s.empty() && seen.insert(ascii_lower(s)).second) statements.push_back(std::move(s));
  };
  for (const auto& sentence : split_sentences(whole)) {
    if (is_question(sentence) || is_header(sentence)) continue;
    std::vector<Tok> toks = tokenize_sentence(sentence);
    if (is_greeting(toks)) continue;
    const std::vector<std::size_t> all = strip_bullet(toks, sentence);
    // Semicolons always separate clauses; a fragment re-joins its predecessor.
    std::vector<std::vector<std::size_t>> segments(1);
    for (std::size_t i : all) {
      if (toks[i].punct == ';')
        segments.emplace_back();
      else
        segments.back().push_back(i);
    }
    std::vector<std::vector<std::size_t>> pieces, relatives;
    for (auto& segment : segments) {
      auto main = extract_relatives(toks, trim(toks, segment), relatives);
      std::vector<std::vector<std::size_t>> parts;
      split_coordination(toks, main, parts);
      for (auto& part : parts) {
        if (!pieces.empty() && !is_claim(toks, part))
          pieces.back().insert(pieces.back().end(), part.begin(), part.end());
        else
          pieces.push_back(std::move(part));
      }
    }
    if (pieces.size() > 1 && !is_claim(toks, pieces.front())) {
      pieces[1].insert(pieces[1].begin(), pieces[0].begin(), pieces[0].end());
      pieces.erase(pieces.begin());
    }
    for (const auto& piece : pieces)
      if (is_claim(toks, piece)) add(render(sentence, toks, piece));
    for (const auto& relative : relatives)
      if (is_claim(toks, relative)) add(render(sentence, toks, relative));
  }
  // Short texts ("He resigned.") and texts of non-claims only: the whole text.
  if (statements.empty()) statements.push_back(whole);
  return statements;
}

}  // namespace probity::text
