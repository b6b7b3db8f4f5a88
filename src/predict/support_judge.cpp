#include "predict/support_judge.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <array>
#include <cmath>
#include <functional>
#include <limits>
#include <map>
#include <memory>
#include <mutex>
#include <numeric>
#include <stdexcept>
#include <unordered_set>
#include <utility>

#include "probity/signature.hpp"
#include "probity/text.hpp"
#include "text/stopwords.hpp"
#include "text/wordnet.hpp"
#include "util/hash.hpp"
#include "util/random.hpp"

namespace probity::predict {
namespace {

// ---- scoring constants (Xu et al. 2025)
// --------------------------------------------------------------

constexpr double kExactCredit = 1.0;
constexpr double kStemCredit = 0.9;
constexpr double kSynonymCredit = 0.75;
// A number the candidate contradicts (it states other numbers, not this one) earns no credit and
// halves the score: a wrong figure makes the statement false, not merely less supported.
constexpr double kWrongNumberFactor = 0.5;
constexpr double kWholeTextFactor = 0.8;
constexpr double kPolarityFactor = 0.3;
// A negator governs the next few tokens ("did not immediately win"), not the whole sentence
// ("did not travel by bus, but won the final" still says it won).
constexpr std::uint32_t kNegationReach = 3;
// Synonymy uses each word's most frequent senses per part of speech: rare senses ("make" has 49
// verb senses) make almost any two common words synonyms and blur matched vs mismatched.
constexpr int kSynonymSenses = 4;
constexpr int kMaxLevel = 3;

// ---- word lists ---------------------------------------------------------------------------------

bool is_negator(std::string_view w) {
  static const std::unordered_set<std::string_view> set = {
      "not", "no", "never", "without", "nor", "none", "nobody", "nothing", "neither", "nowhere"};
  return set.count(w) > 0;
}

// Spelled-out numbers that must agree with digits ("two Bentleys" = "2 Bentleys"). "one" is
// left out: it is mostly a pronoun ("one of the ...").
std::string_view number_word(std::string_view w) {
  static const std::array<std::pair<std::string_view, std::string_view>, 27> table = {{
      {"two", "2"},       {"three", "3"},     {"four", "4"},      {"five", "5"},
      {"six", "6"},       {"seven", "7"},     {"eight", "8"},     {"nine", "9"},
      {"ten", "10"},      {"eleven", "11"},   {"twelve", "12"},   {"thirteen", "13"},
      {"fourteen", "14"}, {"fifteen", "15"},  {"sixteen", "16"},  {"seventeen", "17"},
      {"eighteen", "18"}, {"nineteen", "19"}, {"twenty", "20"},   {"thirty", "30"},
      {"forty", "40"},    {"fifty", "50"},    {"sixty", "60"},    {"seventy", "70"},
      {"eighty", "80"},   {"ninety", "90"},   {"hundred", "100"},
  }};
  for (const auto& [word, digits] : table)
    if (w == word) return digits;
  return {};
}

// ---- tokenization -------------------------------------------------------------------------------

bool is_ascii_digit(char c) {
  return c >= '0' && c <= '9';
}
bool is_ascii_alpha(char c) {
  return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z');
}

// Length of the UTF-8 sequence at s[i] when it is punctuation or a space (U+2000–U+206F general
// punctuation, U+00A0–U+00BF Latin-1 symbols), else 0.
std::size_t utf8_separator(std::string_view s, std::size_t i) {
  const auto b0 = static_cast<unsigned char>(s[i]);
  if (b0 == 0xC2 && i + 1 < s.size()) {
    const auto b1 = static_cast<unsigned char>(s[i + 1]);
    if (b1 >= 0xA0 && b1 <= 0xBF) return 2;
  }
  if (b0 == 0xE2 && i + 2 < s.size()) {
    const auto b1 = static_cast<unsigned char>(s[i + 1]);
    if (b1 == 0x80 || b1 == 0x81) return 3;
  }
  return 0;
}

bool is_apostrophe_at(std::string_view s, std::size_t i, std::size_t* len) {
  if (s[i] == '\'') {
    *len = 1;
    return true;
  }
  if (s.compare(i, 3, "\xE2\x80\x99") == 0) {  // ’
    *len = 3;
    return true;
  }
  return false;
}

bool is_word_byte(std::string_view s, std::size_t i) {
  const char c = s[i];
  if (is_ascii_alpha(c) || is_ascii_digit(c)) return true;
  return static_cast<unsigned char>(c) >= 0x80 && utf8_separator(s, i) == 0;
}

// Lower-case word and number tokens. "n't" becomes "not" ("didn't" → "did not", tokenized
// "did n't" likewise), "cannot" → "can not"; digits keep decimal points and drop thousands
// separators ("14,000" → "14000"); spelled-out numbers become digits.
void tokenize(std::string_view s, std::vector<std::string>& out) {
  std::size_t i = 0;
  const std::size_t n = s.size();
  while (i < n) {
    const char c = s[i];
    if (is_ascii_digit(c)) {
      std::string num;
      std::size_t j = i;
      while (j < n) {
        if (is_ascii_digit(s[j])) {
          num += s[j++];
        } else if ((s[j] == ',' || s[j] == '.') && j + 1 < n && is_ascii_digit(s[j + 1])) {
          if (s[j] == '.') num += '.';
          ++j;
        } else {
          break;
        }
      }
      out.push_back(std::move(num));
      i = j;
      continue;
    }
    if (!is_word_byte(s, i)) {
      ++i;
      continue;
    }
    std::string word;
    std::size_t j = i;
    while (j < n && is_word_byte(s, j)) {
      const char ch = s[j++];
      word += (ch >= 'A' && ch <= 'Z') ? static_cast<char>(ch - 'A' + 'a') : ch;
    }
    i = j;
    std::size_t apostrophe = 0;
    if (!word.empty() && word.back() == 'n' && j < n && is_apostrophe_at(s, j, &apostrophe) &&
        j + apostrophe < n && (s[j + apostrophe] == 't' || s[j + apostrophe] == 'T') &&
        (j + apostrophe + 1 >= n || !is_word_byte(s, j + apostrophe + 1))) {
      word.pop_back();
      if (word == "ca") word = "can";
      if (word == "wo") word = "will";
      if (!word.empty()) out.push_back(std::move(word));
      out.emplace_back("not");
      i = j + apostrophe + 1;
      continue;
    }
    if (word == "cannot") {
      out.emplace_back("can");
      out.emplace_back("not");
      continue;
    }
    if (auto digits = number_word(word); !digits.empty()) {
      out.emplace_back(digits);
      continue;
    }
    out.push_back(std::move(word));
  }
}

bool is_number_token(std::string_view w) {
  return !w.empty() && is_ascii_digit(w.front());
}

std::uint64_t hash_of(std::string_view s) {
  return util::fnv1a64(s);
}

// Porter stem hash of a token, memoised per thread (stemming dominates analysis otherwise).
std::uint64_t stem_hash(const std::string& word) {
  thread_local std::unordered_map<std::string, std::uint64_t> memo;
  if (auto it = memo.find(word); it != memo.end()) return it->second;
  if (memo.size() > 500000) memo.clear();
  const std::uint64_t h =
      is_number_token(word) || word.size() <= 2 ? hash_of(word) : hash_of(text::porter_stem(word));
  memo.emplace(word, h);
  return h;
}

// ---- text analysis ------------------------------------------------------------------------------

struct Token {
  std::uint64_t word = 0;
  std::uint64_t stem = 0;
  bool content = false;
  bool number = false;
  bool negator = false;
};

struct Sentence {
  std::uint32_t begin = 0, end = 0;  // token range
  bool has_number = false;
  std::vector<std::pair<std::uint64_t, std::uint32_t>> synsets;  // (synset, token), sorted
};

struct TargetWord {
  std::uint64_t word = 0, stem = 0;
  bool number = false;
  const std::vector<std::uint64_t>* synsets = nullptr;  // WordNet cache entry (stable)
  // Synsets its antonym pointers lead to (so "lost" meets "won" through lose/win whatever the
  // inflection), minus those of the target's own words ("win or lose"). Sorted.
  std::vector<std::uint64_t> antonyms;
};

// A text in the role of a target: its distinct content words (by stem) and whether it is
// negated (statements are single clauses, so any negator negates it).
struct Unit {
  std::vector<TargetWord> words;
  bool negated = false;
};

// A text analysed in the role of candidate: its sentences and whole-text sets.
struct Analysis {
  std::string text;
  std::vector<Token> tokens;
  std::vector<Sentence> sentences;
  std::vector<std::uint64_t> words, stems, numbers, synsets;  // whole text, sorted unique

  // Heap bytes held, roughly (what the cache's budget counts).
  std::size_t bytes() const {
    std::size_t b =
        sizeof(Analysis) + text.capacity() + tokens.capacity() * sizeof(Token) +
        sentences.capacity() * sizeof(Sentence) +
        (words.capacity() + stems.capacity() + numbers.capacity() + synsets.capacity()) *
            sizeof(std::uint64_t);
    for (const auto& s : sentences) b += s.synsets.capacity() * sizeof(s.synsets[0]);
    return b;
  }
};

// The same text in the role of target: one unit for the whole text, one per sentence. Made only
// when the text is first judged as a target (a candidate judged against statements never is),
// and larger than the candidate role.
struct Units {
  Unit unit;
  std::vector<Unit> sentence_units;

  std::size_t bytes() const {
    auto unit_bytes = [](const Unit& u) {
      std::size_t b = u.words.capacity() * sizeof(TargetWord);
      for (const auto& w : u.words) b += w.antonyms.capacity() * sizeof(std::uint64_t);
      return b;
    };
    std::size_t b = sizeof(Units) + unit_bytes(unit) + sentence_units.capacity() * sizeof(Unit);
    for (const auto& u : sentence_units) b += unit_bytes(u);
    return b;
  }
};

template <class T>
void sort_unique(std::vector<T>& v) {
  std::sort(v.begin(), v.end());
  v.erase(std::unique(v.begin(), v.end()), v.end());
}

template <class T>
bool contains(const std::vector<T>& sorted, const T& value) {
  return std::binary_search(sorted.begin(), sorted.end(), value);
}

Unit make_unit(const std::vector<Token>& tokens, const std::vector<std::string>& strings,
               std::uint32_t begin, std::uint32_t end) {
  Unit u;
  std::vector<std::uint64_t> own_synsets;
  std::vector<std::uint32_t> source;  // token of each word
  for (std::uint32_t t = begin; t < end; ++t) {
    const Token& tok = tokens[t];
    if (tok.negator) u.negated = true;
    if (!tok.content) continue;
    const bool seen = std::any_of(u.words.begin(), u.words.end(),
                                  [&](const TargetWord& w) { return w.stem == tok.stem; });
    if (seen) continue;
    TargetWord w;
    w.word = tok.word;
    w.stem = tok.stem;
    w.number = tok.number;
    if (!tok.number) {
      w.synsets = &text::wordnet::synsets(strings[t], kSynonymSenses);
      own_synsets.insert(own_synsets.end(), w.synsets->begin(), w.synsets->end());
    }
    u.words.push_back(w);
    source.push_back(t);
  }
  sort_unique(own_synsets);
  for (std::size_t i = 0; i < u.words.size(); ++i) {
    if (u.words[i].number) continue;
    for (std::uint64_t a : text::wordnet::antonym_synsets(strings[source[i]]))
      if (!contains(own_synsets, a)) u.words[i].antonyms.push_back(a);
    u.words[i].antonyms.shrink_to_fit();
  }
  u.words.shrink_to_fit();
  return u;
}

// The tokens of a text and the token range of each sentence that has any.
void tokenize_sentences(std::string_view text, std::vector<std::string>& strings,
                        std::vector<std::pair<std::uint32_t, std::uint32_t>>& ranges) {
  for (const auto& sentence : text::split_sentences(text)) {
    const auto begin = static_cast<std::uint32_t>(strings.size());
    tokenize(sentence, strings);
    const auto end = static_cast<std::uint32_t>(strings.size());
    if (end > begin) ranges.emplace_back(begin, end);
  }
}

// The target role of an analysed text.
std::shared_ptr<const Units> make_units(const Analysis& a) {
  auto u = std::make_shared<Units>();
  std::vector<std::string> strings;
  std::vector<std::pair<std::uint32_t, std::uint32_t>> ranges;
  tokenize_sentences(a.text, strings, ranges);
  for (const auto& [begin, end] : ranges)
    u->sentence_units.push_back(make_unit(a.tokens, strings, begin, end));
  u->unit = make_unit(a.tokens, strings, 0, static_cast<std::uint32_t>(strings.size()));
  u->sentence_units.shrink_to_fit();
  return u;
}

std::shared_ptr<const Analysis> analyze(std::string_view text) {
  auto a = std::make_shared<Analysis>();
  a->text = std::string(text);
  std::vector<std::string> strings;
  std::vector<std::pair<std::uint32_t, std::uint32_t>> ranges;
  tokenize_sentences(text, strings, ranges);
  a->tokens.resize(strings.size());
  for (std::size_t t = 0; t < strings.size(); ++t) {
    const std::string& w = strings[t];
    Token& tok = a->tokens[t];
    tok.word = hash_of(w);
    tok.stem = stem_hash(w);
    tok.number = is_number_token(w);
    tok.negator = is_negator(w);
    tok.content = tok.number || (!tok.negator && w.size() >= 2 && !text::is_stopword(w));
    if (!tok.content) continue;
    a->words.push_back(tok.word);
    a->stems.push_back(tok.stem);
    if (tok.number) a->numbers.push_back(tok.word);
  }
  for (const auto& [begin, end] : ranges) {
    Sentence s;
    s.begin = begin;
    s.end = end;
    for (std::uint32_t t = begin; t < end; ++t) {
      const Token& tok = a->tokens[t];
      if (tok.number) s.has_number = true;
      if (!tok.content || tok.number) continue;
      for (std::uint64_t id : text::wordnet::synsets(strings[t], kSynonymSenses)) {
        s.synsets.emplace_back(id, t);
        a->synsets.push_back(id);
      }
    }
    std::sort(s.synsets.begin(), s.synsets.end());
    s.synsets.shrink_to_fit();
    a->sentences.push_back(std::move(s));
  }
  sort_unique(a->words);
  sort_unique(a->stems);
  sort_unique(a->numbers);
  sort_unique(a->synsets);
  // Cached for a while: no spare capacity.
  a->sentences.shrink_to_fit();
  for (auto* v : {&a->words, &a->stems, &a->numbers, &a->synsets}) v->shrink_to_fit();
  return a;
}

// Analyses memoised for every thread, keyed by a content hash and verified against the text.
// Two generations of at most kGenerationBytes each bound memory whatever the number of threads,
// while keeping the working set (a candidate and the references it is compared with) resident.
// Analyses are made outside the lock; two threads that miss the same text both make it (the same
// values) and the cache keeps one.
struct Analysed {
  std::shared_ptr<const Analysis> analysis;
  std::shared_ptr<const Units> units;  // when asked for as a target
};

class AnalysisCache {
 public:
  Analysed get(std::string_view text, bool as_target) {
    const std::uint64_t key = std::hash<std::string_view>{}(text);
    Analysed a;
    {
      std::lock_guard lock(mutex_);
      a = find(key, text);
    }
    const bool had_units = a.units != nullptr;
    if (a.analysis && (had_units || !as_target)) return a;
    if (!a.analysis) a.analysis = analyze(text);
    if (as_target) a.units = make_units(*a.analysis);
    std::lock_guard lock(mutex_);
    auto it = current_.find(key);
    if (it != current_.end() && it->second.analysis->text == text) {
      if (it->second.units == nullptr && a.units != nullptr) {
        it->second.units = a.units;
        current_bytes_ += a.units->bytes();
      }
      return a;
    }
    if (current_bytes_ >= kGenerationBytes) {
      previous_ = std::move(current_);
      current_.clear();
      current_bytes_ = 0;
    }
    current_[key] = a;
    current_bytes_ += a.analysis->bytes() + (a.units ? a.units->bytes() : 0);
    return a;
  }

 private:
  static constexpr std::size_t kGenerationBytes = std::size_t{8} << 20;
  using Map = std::unordered_map<std::uint64_t, Analysed>;
  // An entry of either generation (moved to the current one), or none.
  Analysed find(std::uint64_t key, std::string_view text) {
    if (auto it = current_.find(key); it != current_.end())
      return it->second.analysis->text == text ? it->second : Analysed{};
    auto it = previous_.find(key);
    if (it == previous_.end() || it->second.analysis->text != text) return {};
    Analysed a = it->second;
    current_[key] = a;
    current_bytes_ += a.analysis->bytes() + (a.units ? a.units->bytes() : 0);
    return a;
  }
  std::mutex mutex_;
  Map current_, previous_;
  std::size_t current_bytes_ = 0;
};

// The analysis of a text; `as_target`: with its target role.
Analysed cached_analysis(std::string_view text, bool as_target) {
  static AnalysisCache cache;
  return cache.get(text, as_target);
}

// ---- matching -----------------------------------------------------------------------------------

constexpr std::uint32_t kNoPos = std::numeric_limits<std::uint32_t>::max();

bool shares_synset(const std::vector<std::uint64_t>& word_synsets,
                   const std::vector<std::uint64_t>& sorted) {
  for (std::uint64_t id : word_synsets)
    if (contains(sorted, id)) return true;
  return false;
}

struct Match {
  double credit = 0.0;
  std::uint32_t pos = kNoPos;  // matched token (sentence matches only)
  bool wrong_number = false;
};

// The token of sentence s in one of the sorted synsets, or kNoPos.
std::uint32_t synset_token(const Sentence& s, const std::vector<std::uint64_t>& ids) {
  for (std::uint64_t id : ids) {
    auto it =
        std::lower_bound(s.synsets.begin(), s.synsets.end(), std::make_pair(id, std::uint32_t{0}));
    if (it != s.synsets.end() && it->first == id) return it->second;
  }
  return kNoPos;
}

Match match_in_sentence(const Analysis& x, const Sentence& s, const TargetWord& w) {
  std::uint32_t stem_pos = kNoPos;
  for (std::uint32_t t = s.begin; t < s.end; ++t) {
    const Token& tok = x.tokens[t];
    if (tok.word == w.word) return {kExactCredit, t, false};
    if (stem_pos == kNoPos && tok.content && tok.stem == w.stem) stem_pos = t;
  }
  if (w.number) return {0.0, kNoPos, s.has_number};
  if (stem_pos != kNoPos) return {kStemCredit, stem_pos, false};
  if (w.synsets != nullptr && !s.synsets.empty())
    if (const auto pos = synset_token(s, *w.synsets); pos != kNoPos)
      return {kSynonymCredit, pos, false};
  return {};
}

Match match_in_whole(const Analysis& x, const TargetWord& w) {
  if (contains(x.words, w.word)) return {kExactCredit, kNoPos, false};
  if (w.number) return {0.0, kNoPos, !x.numbers.empty()};
  if (contains(x.stems, w.stem)) return {kStemCredit, kNoPos, false};
  if (w.synsets != nullptr && shares_synset(*w.synsets, x.synsets))
    return {kSynonymCredit, kNoPos, false};
  return {};
}

double clamp01(double v) {
  return std::clamp(v, 0.0, 1.0);
}

// ---- calibration helpers ------------------------------------------------------------------------

// Uniform in [0, n) by modulo, with util::SplitMix64 as the calibration's only source of
// randomness. The bias is below n / 2^64, negligible for sample sizes here; SplitMix64::below's
// rejection sampling would draw another sample, and the calibration is pinned.
std::size_t below_mod(util::SplitMix64& rng, std::size_t n) {
  return static_cast<std::size_t>(rng.next() % n);
}

// Pooled-adjacent-violators: the non-decreasing sequence closest to `values` in weighted L2.
std::vector<double> isotonic(const std::vector<double>& values,
                             const std::vector<double>& weights) {
  struct Block {
    double sum, weight;
    std::size_t count;
  };
  std::vector<Block> blocks;
  for (std::size_t i = 0; i < values.size(); ++i) {
    blocks.push_back({values[i] * weights[i], weights[i], 1});
    while (blocks.size() > 1) {
      const Block& b = blocks.back();
      const Block& a = blocks[blocks.size() - 2];
      if (a.sum / a.weight <= b.sum / b.weight) break;
      const Block merged{a.sum + b.sum, a.weight + b.weight, a.count + b.count};
      blocks.pop_back();
      blocks.back() = merged;
    }
  }
  std::vector<double> out;
  for (const auto& b : blocks) out.insert(out.end(), b.count, b.sum / b.weight);
  return out;
}

struct Threshold {
  double value = 0.0;
  double balanced_accuracy = 0.5;
};

// The threshold maximising balanced accuracy (Youden's J) of "s ≥ threshold ⇒ matched". It is
// placed midway between adjacent observed scores; ties keep the lowest threshold.
Threshold youden(const std::vector<double>& matched, const std::vector<double>& mismatched) {
  std::vector<std::pair<double, int>> pooled;
  for (double s : matched) pooled.emplace_back(s, 1);
  for (double s : mismatched) pooled.emplace_back(s, 0);
  std::sort(pooled.begin(), pooled.end());
  const double m = static_cast<double>(matched.size());
  const double n = static_cast<double>(mismatched.size());
  // Sweep upward: below the threshold are the first i pooled scores (all distinct cut points).
  double m_below = 0, n_below = 0;
  Threshold best{pooled.empty() ? 0.0 : pooled.front().first, 0.5};
  for (std::size_t i = 0; i < pooled.size(); ++i) {
    if (pooled[i].second == 1)
      m_below += 1;
    else
      n_below += 1;
    if (i + 1 < pooled.size() && pooled[i + 1].first == pooled[i].first) continue;
    const double tpr = (m - m_below) / m, tnr = n_below / n;
    const double ba = 0.5 * (tpr + tnr);
    if (ba > best.balanced_accuracy + 1e-12) {
      best.balanced_accuracy = ba;
      best.value = i + 1 < pooled.size() ? 0.5 * (pooled[i].first + pooled[i + 1].first)
                                         : std::nextafter(pooled[i].first, 2.0);
    }
  }
  return best;
}

double mean(const std::vector<double>& v) {
  return v.empty() ? 0.0 : std::accumulate(v.begin(), v.end(), 0.0) / static_cast<double>(v.size());
}

}  // namespace

// ---- SupportJudge -------------------------------------------------------------------------------

namespace {

// The score of one target unit by candidate x (see the header for the rule).
template <class Weight>
double unit_support(const Analysis& x, const Unit& u, Weight&& weight) {
  if (u.words.empty() || x.sentences.empty()) return 0.0;
  thread_local std::vector<double> weights;
  thread_local std::vector<Match> in_whole;
  weights.resize(u.words.size());
  in_whole.resize(u.words.size());
  double total = 0.0, whole = 0.0, whole_factor = 1.0;
  for (std::size_t i = 0; i < u.words.size(); ++i) {
    weights[i] = weight(u.words[i].stem);
    total += weights[i];
    in_whole[i] = match_in_whole(x, u.words[i]);
    whole += weights[i] * in_whole[i].credit;
    if (in_whole[i].wrong_number) whole_factor *= kWrongNumberFactor;
  }
  if (total <= 0.0) return 0.0;
  // Per-word matches in the current and in the best sentence so far.
  thread_local std::vector<Match> current, best_matches;
  current.resize(u.words.size());
  double best = -1.0;
  std::size_t best_sentence = 0;
  for (std::size_t k = 0; k < x.sentences.size(); ++k) {
    const Sentence& s = x.sentences[k];
    double sum = 0.0, factor = 1.0;
    for (std::size_t i = 0; i < u.words.size(); ++i) {
      // A word absent from the whole text is absent from every sentence (the common case).
      if (in_whole[i].credit <= 0.0)
        current[i] = Match{0.0, kNoPos, u.words[i].number && s.has_number};
      else
        current[i] = match_in_sentence(x, s, u.words[i]);
      sum += weights[i] * current[i].credit;
      if (current[i].wrong_number) factor *= kWrongNumberFactor;
    }
    const double score = clamp01(factor * sum / total);
    if (score > best) {
      best = score;
      best_sentence = k;
      std::swap(current, best_matches);
      current.resize(u.words.size());
    }
  }
  const double raw = std::max(best, kWholeTextFactor * clamp01(whole_factor * whole / total));
  // Polarity against the best sentence: a matched word under a negator, or an antonym of an
  // unmatched word (where the word would have been: "lost" for "won").
  const Sentence& s = x.sentences[best_sentence];
  bool negated = false, antonym = false;
  for (std::size_t i = 0; i < u.words.size(); ++i) {
    const Match& m = best_matches[i];
    if (m.pos != kNoPos) {
      const std::uint32_t from = m.pos - std::min(m.pos - s.begin, kNegationReach);
      for (std::uint32_t t = from; t < m.pos && !negated; ++t) negated = x.tokens[t].negator;
    } else if (!antonym && !u.words[i].antonyms.empty() && !s.synsets.empty()) {
      antonym = synset_token(s, u.words[i].antonyms) != kNoPos;
    }
  }
  const bool clash = (negated != u.negated) != antonym;  // "not good" agrees with "bad"
  return clash ? raw * kPolarityFactor : raw;
}

// Report-level support of the whole text y by x: IDF-mass-weighted mean over y's sentences.
template <class Weight>
double report_support(const Analysis& x, const Units& y, Weight&& weight) {
  double sum = 0.0, mass = 0.0;
  for (const Unit& u : y.sentence_units) {
    double m = 0.0;
    for (const auto& w : u.words) m += weight(w.stem);
    if (m <= 0.0) continue;
    sum += m * unit_support(x, u, weight);
    mass += m;
  }
  return mass > 0.0 ? sum / mass : 0.0;
}

}  // namespace

SupportJudge::SupportJudge(SupportJudgeOptions options) : options_(options) {
  if (options_.bins < 2) options_.bins = 2;
  if (options_.max_pairs < 2) options_.max_pairs = 2;
}

double SupportJudge::weight(std::uint64_t stem) const {
  auto it = idf_.find(stem);
  return it == idf_.end() ? unseen_idf_ : it->second;
}

double SupportJudge::idf(std::string_view word) const {
  std::vector<std::string> tokens;
  tokenize(word, tokens);
  return tokens.empty() ? unseen_idf_ : weight(stem_hash(tokens.front()));
}

double SupportJudge::support(std::string_view x, std::string_view statement) const {
  const Analysed ax = cached_analysis(x, false);
  const Analysed ay = cached_analysis(statement, true);
  return unit_support(*ax.analysis, ay.units->unit, [this](std::uint64_t s) { return weight(s); });
}

double SupportJudge::same_item(std::string_view x, std::string_view y) const {
  const Analysed ax = cached_analysis(x, true);
  const Analysed ay = cached_analysis(y, true);
  auto w = [this](std::uint64_t s) { return weight(s); };
  return 0.5 *
         (report_support(*ax.analysis, *ay.units, w) + report_support(*ay.analysis, *ax.units, w));
}

double SupportJudge::score(std::string_view x, std::string_view y) const {
  return statement_targets_ ? support(x, y) : same_item(x, y);
}

void SupportJudge::require_fit() const {
  if (!calibration_.fitted)
    throw std::logic_error("SupportJudge: fit() must calibrate the judge before judgments");
}

int SupportJudge::level_of_score(double s) const {
  require_fit();
  const auto& lower = calibration_.bin_lower;
  // Bin b covers [lower[b], lower[b+1]); bin 0 also takes anything below lower[1].
  const auto it = std::upper_bound(lower.begin() + 1, lower.end(), s);
  return calibration_.bin_level[static_cast<std::size_t>(it - lower.begin() - 1)];
}

int SupportJudge::critic_of_score(double s) const {
  require_fit();
  return s >= calibration_.threshold ? 1 : -1;
}

int SupportJudge::level(std::string_view x, std::string_view y) const {
  return level_of_score(score(x, y));
}

double SupportJudge::log_ratio(std::string_view x, std::string_view y) const {
  return level(x, y) * std::log(2.0);
}

int SupportJudge::critic(std::string_view x, std::string_view y) const {
  return critic_of_score(score(x, y));
}

// What fitting keeps between chunks and passes: a few numbers per task, and in pass 1 the
// texts of the calibration sample.
struct SupportJudge::FitState {
  std::size_t tasks = 0;  // seen so far in the current pass
  std::size_t pass0_tasks = 0;
  // Pass 0: document frequencies by Porter stem.
  std::unordered_map<std::uint64_t, std::size_t> df;
  std::size_t documents = 0;
  // Pass 0: the eligible tasks (a first reference, not blank, that gives targets) in order:
  // task index, group, number of targets, number of candidates with text.
  std::vector<std::size_t> eligible;
  std::vector<std::uint32_t> group, targets, candidates;
  std::unordered_map<std::string, std::uint32_t> group_ids;
  // The sample. A matched pair is (eligible position, ordinal among that task's candidates
  // with text, target); its mismatched pair asks about the same candidate with the target of
  // another eligible task (position, target).
  struct Pair {
    std::size_t e, candidate, target;
  };
  std::vector<Pair> matched, mismatched;
  // Pass 1: the texts of the sample.
  std::unordered_map<std::size_t, std::vector<std::string>> target_texts;  // by position
  std::map<std::pair<std::size_t, std::size_t>, std::string> candidate_texts;
  std::size_t next_eligible = 0;
};

SupportJudge::~SupportJudge() = default;
SupportJudge::SupportJudge(SupportJudge&&) noexcept = default;
SupportJudge& SupportJudge::operator=(SupportJudge&&) noexcept = default;

void SupportJudge::fit(std::span<const Task> tasks, bool statement_targets) {
  mi::fit_by_passes(*this, tasks, statement_targets);
}

void SupportJudge::begin_fit(bool statement_targets) {
  statement_targets_ = statement_targets;
  calibration_ = JudgeCalibration{};
  fit_ = std::make_unique<FitState>();
}

void SupportJudge::fit_chunk(std::size_t pass, std::span<const Task> tasks) {
  if (!fit_) throw std::logic_error("SupportJudge::fit_chunk without begin_fit");
  try {
    if (pass == 0)
      count_documents(tasks);
    else
      collect_sample(tasks);
  } catch (...) {
    fit_.reset();
    throw;
  }
}

void SupportJudge::end_fit_pass(std::size_t pass) {
  if (!fit_) throw std::logic_error("SupportJudge::end_fit_pass without begin_fit");
  try {
    if (pass == 0) {
      draw_sample();
    } else {
      calibrate();
      fit_.reset();
    }
  } catch (...) {
    fit_.reset();
    throw;
  }
}

// Targets of a task: the statements of its first reference, or that reference whole.
namespace {
std::vector<std::string> first_reference_targets(const Task& task, bool statement_targets) {
  if (task.references.empty()) return {};
  const std::string& ref = task.references.front().text;
  if (ref.find_first_not_of(" \t\r\n") == std::string::npos) return {};
  return statement_targets ? mi::decompose_statements(ref) : std::vector<std::string>{ref};
}
}  // namespace

void SupportJudge::count_documents(std::span<const Task> tasks) {
  FitState& st = *fit_;
  // IDF over every text of the dataset, by Porter stem.
  std::vector<std::string> tokens;
  std::vector<std::uint64_t> stems;
  auto add_document = [&](std::string_view text) {
    tokens.clear();
    tokenize(text, tokens);
    if (tokens.empty()) return;
    stems.clear();
    for (const auto& t : tokens) stems.push_back(stem_hash(t));
    sort_unique(stems);
    for (auto s : stems) ++st.df[s];
    ++st.documents;
  };
  for (const auto& task : tasks) {
    add_document(task.source);
    for (const auto& r : task.references) add_document(r.text);
    for (const auto& c : task.candidates) add_document(c.text);
    const std::size_t t = st.tasks++;
    const std::size_t targets = first_reference_targets(task, statement_targets_).size();
    if (targets == 0) continue;
    st.eligible.push_back(t);
    st.group.push_back(
        st.group_ids.try_emplace(task.group, static_cast<std::uint32_t>(st.group_ids.size()))
            .first->second);
    st.targets.push_back(static_cast<std::uint32_t>(targets));
    st.candidates.push_back(static_cast<std::uint32_t>(
        std::count_if(task.candidates.begin(), task.candidates.end(),
                      [](const Candidate& c) { return !c.text.empty(); })));
  }
}

void SupportJudge::draw_sample() {
  FitState& st = *fit_;
  idf_.clear();
  const double n = static_cast<double>(st.documents);
  for (const auto& [stem, count] : st.df)
    idf_.emplace(stem, std::log((n + 1.0) / (static_cast<double>(count) + 1.0)) + 1.0);
  unseen_idf_ = std::log(n + 1.0) + 1.0;
  std::unordered_map<std::uint64_t, std::size_t>().swap(st.df);

  const std::size_t eligible = st.eligible.size();
  if (eligible < 2)
    throw std::invalid_argument(
        "SupportJudge calibration needs at least two tasks with a reference (mismatched pairs "
        "pair a candidate with another task's reference)");
  // Matched pairs, numbered in dataset order: each eligible task's candidates with text, each
  // with every target of the task.
  std::size_t total = 0;
  for (std::size_t e = 0; e < eligible; ++e)
    total += static_cast<std::size_t>(st.candidates[e]) * st.targets[e];
  if (total == 0)
    throw std::invalid_argument("SupportJudge calibration needs candidates with text");

  util::SplitMix64 rng(options_.seed ^ 0x6A75646765ULL);  // "judge"
  std::vector<std::size_t> chosen;
  if (total > options_.max_pairs) {
    // Seeded partial Fisher–Yates over the pair numbers, then back to dataset order; only the
    // entries moved from their place are stored.
    std::unordered_map<std::size_t, std::size_t> moved;
    auto at = [&](std::size_t i) {
      auto it = moved.find(i);
      return it == moved.end() ? i : it->second;
    };
    for (std::size_t i = 0; i < options_.max_pairs; ++i) {
      const std::size_t j = i + below_mod(rng, total - i);
      const std::size_t vi = at(i), vj = at(j);
      moved[i] = vj;
      moved[j] = vi;
    }
    for (std::size_t i = 0; i < options_.max_pairs; ++i) chosen.push_back(at(i));
    std::sort(chosen.begin(), chosen.end());
  } else {
    chosen.resize(total);
    std::iota(chosen.begin(), chosen.end(), std::size_t{0});
  }
  std::size_t e = 0, base = 0;
  for (std::size_t i : chosen) {
    while (i >= base + static_cast<std::size_t>(st.candidates[e]) * st.targets[e]) {
      base += static_cast<std::size_t>(st.candidates[e]) * st.targets[e];
      ++e;
    }
    const std::size_t r = i - base;
    st.matched.push_back({e, r / st.targets[e], r % st.targets[e]});
  }

  // Mismatched: the same candidates against another task's targets, same group when possible.
  std::vector<std::vector<std::size_t>> by_group(st.group_ids.size());
  for (std::size_t k = 0; k < eligible; ++k) by_group[st.group[k]].push_back(k);
  for (const auto& p : st.matched) {
    const auto& group = by_group[st.group[p.e]];
    const bool in_group = group.size() >= 2;  // else the pool is every eligible task
    const std::size_t size = in_group ? group.size() : eligible;
    auto pool = [&](std::size_t i) { return in_group ? group[i] : i; };
    std::size_t other = pool(below_mod(rng, size - 1));
    if (other == p.e) other = pool(size - 1);  // skip the own task without rejection sampling
    st.mismatched.push_back({other, p.candidate, below_mod(rng, st.targets[other])});
  }
  for (const auto& p : st.matched) {
    st.target_texts[p.e];
    st.candidate_texts[{p.e, p.candidate}];
  }
  for (const auto& p : st.mismatched) st.target_texts[p.e];
  st.pass0_tasks = st.tasks;
  st.tasks = 0;
}

void SupportJudge::collect_sample(std::span<const Task> tasks) {
  FitState& st = *fit_;
  for (const auto& task : tasks) {
    const std::size_t t = st.tasks++;
    if (st.next_eligible == st.eligible.size() || st.eligible[st.next_eligible] != t) continue;
    const std::size_t e = st.next_eligible++;
    if (auto it = st.target_texts.find(e); it != st.target_texts.end()) {
      it->second = first_reference_targets(task, statement_targets_);
      if (it->second.size() != st.targets[e])
        throw std::logic_error("SupportJudge: the data changed between fitting passes");
    }
    auto it = st.candidate_texts.lower_bound({e, 0});
    std::size_t ordinal = 0;
    for (const auto& c : task.candidates) {
      if (it == st.candidate_texts.end() || it->first.first != e) break;
      if (c.text.empty()) continue;
      if (it->first.second == ordinal) (it++)->second = c.text;
      ++ordinal;
    }
  }
}

void SupportJudge::calibrate() {
  FitState& st = *fit_;
  if (st.tasks != st.pass0_tasks)
    throw std::logic_error("SupportJudge: the data changed between fitting passes");
  auto judge = [&](const FitState::Pair& candidate, const FitState::Pair& target) {
    const std::string& x = st.candidate_texts.at({candidate.e, candidate.candidate});
    return score(x, st.target_texts.at(target.e).at(target.target));
  };
  std::vector<double> s_matched, s_mismatched;
  for (const auto& p : st.matched) s_matched.push_back(judge(p, p));
  for (std::size_t i = 0; i < st.mismatched.size(); ++i)
    s_mismatched.push_back(judge(st.matched[i], st.mismatched[i]));

  const Threshold threshold = youden(s_matched, s_mismatched);

  // Equal-mass bins over the pooled sample; ties can merge bins (many exact zeros).
  std::vector<double> pooled = s_matched;
  pooled.insert(pooled.end(), s_mismatched.begin(), s_mismatched.end());
  std::sort(pooled.begin(), pooled.end());
  std::vector<double> lower{0.0};  // scores are ≥ 0; the first bin takes everything below
  for (std::size_t b = 1; b < options_.bins; ++b) {
    const double edge = pooled[b * pooled.size() / options_.bins];
    if (edge > lower.back() && edge > pooled.front()) lower.push_back(edge);
  }
  const std::size_t bins = lower.size();
  auto bin_of = [&](double s) {
    return static_cast<std::size_t>(std::upper_bound(lower.begin() + 1, lower.end(), s) -
                                    lower.begin() - 1);
  };
  std::vector<double> count_m(bins, 0.0), count_n(bins, 0.0);
  for (double s : s_matched) count_m[bin_of(s)] += 1;
  for (double s : s_mismatched) count_n[bin_of(s)] += 1;
  const double total_m = static_cast<double>(s_matched.size()) + 0.5 * static_cast<double>(bins);
  const double total_n = static_cast<double>(s_mismatched.size()) + 0.5 * static_cast<double>(bins);
  std::vector<double> log2_ratio(bins), weights(bins);
  for (std::size_t b = 0; b < bins; ++b) {
    log2_ratio[b] = std::log2(((count_m[b] + 0.5) / total_m) / ((count_n[b] + 0.5) / total_n));
    weights[b] = count_m[b] + count_n[b] + 1.0;
  }
  log2_ratio = isotonic(log2_ratio, weights);

  calibration_.fitted = true;
  calibration_.statement_targets = statement_targets_;
  calibration_.seed = options_.seed;
  calibration_.documents = st.documents;
  calibration_.matched_pairs = s_matched.size();
  calibration_.mismatched_pairs = s_mismatched.size();
  calibration_.threshold = threshold.value;
  calibration_.balanced_accuracy = threshold.balanced_accuracy;
  calibration_.matched_mean_score = mean(s_matched);
  calibration_.mismatched_mean_score = mean(s_mismatched);
  calibration_.bin_lower = lower;
  calibration_.bin_log2_ratio = log2_ratio;
  for (double r : log2_ratio)
    calibration_.bin_level.push_back(
        static_cast<int>(std::clamp(std::lround(r), -long{kMaxLevel}, long{kMaxLevel})));
  auto mean_level = [&](const std::vector<double>& scores) {
    double sum = 0.0;
    for (double s : scores) sum += level_of_score(s);
    return scores.empty() ? 0.0 : sum / static_cast<double>(scores.size());
  };
  calibration_.matched_mean_level = mean_level(s_matched);
  calibration_.mismatched_mean_level = mean_level(s_mismatched);
}

std::string SupportJudge::signature() const {
  Signature sig("oracle:support-judge");
  sig.field("target", statement_targets_ ? "statement" : "report")
      .field("idf", calibration_.fitted ? "dataset" : "none")
      .field("wordnet", text::wordnet::version());
  if (!calibration_.fitted) return sig.field("calib", "none").format();
  // The fitted thresholds, as a short hash of their exact values.
  std::string numbers = fmt::format("{:.17g}", calibration_.threshold);
  for (std::size_t b = 0; b < calibration_.bin_lower.size(); ++b)
    numbers += fmt::format(";{:.17g}:{}", calibration_.bin_lower[b], calibration_.bin_level[b]);
  return sig.field("calib", fmt::format("seed{}", calibration_.seed))
      .part(util::hex64(util::fnv1a64(numbers)).substr(0, 8))
      .format();
}

}  // namespace probity::predict
