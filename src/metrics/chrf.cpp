// chrF and chrF++ exactly as sacreBLEU 2.x (CHRF with eps_smoothing=False). Statistics per order,
// character orders first then word orders: [hyp count, ref count, match count]. With several
// references each item keeps the statistics of the reference with the best sentence f-score.
//
// Speed: each reference set is prepared once (ReferenceCache): its characters and words become
// small integer ids, and the n-grams of every order of all references one index with each
// reference's count of each n-gram. The hypothesis is only looked up, once for all references:
// each of its n-grams found in the index adds min(hypothesis count, reference count) to the
// match count of each reference that has it.
#include <fmt/format.h>

#include <algorithm>
#include <array>
#include <cstdint>
#include <memory>
#include <span>
#include <stdexcept>
#include <string>
#include <string_view>
#include <vector>

#include "metrics/builtin.hpp"
#include "metrics/lexical_common.hpp"
#include "metrics/numpy_resampled.hpp"
#include "probity/error.hpp"
#include "probity/signature.hpp"
#include "probity/text.hpp"
#include "text/utf8.hpp"

namespace probity::metrics {
namespace {

using detail::KeyTable;
using detail::NgramIndex;
using detail::NgramNumbering;
using detail::space_len;
using detail::split_py;
using detail::StrInterner;

// ---- Python string helpers ---------------------------------------------------------------------

// Byte length of the UTF-8 character starting at p; an ill-formed byte counts as one character.
std::size_t char_len(const unsigned char* p, const unsigned char* end) {
  char32_t cp = 0;
  const std::size_t n = text::decode_utf8(
      std::string_view(reinterpret_cast<const char*>(p), static_cast<std::size_t>(end - p)), cp);
  return n == 0 ? 1 : n;
}

// string.punctuation, which sacreBLEU's chrF++ word splitting peels off words.
constexpr std::array<bool, 256> kPunct = [] {
  std::array<bool, 256> t{};
  for (char c : std::string_view("!\"#$%&'()*+,-./:;<=>?@[\\]^_`{|}~"))
    t[static_cast<unsigned char>(c)] = true;
  return t;
}();

// The characters of s, as sacreBLEU's extract_all_char_ngrams sees them: char(key) for each, in
// order, without whitespace (Python's ''.join(s.split())) unless keep_whitespace. A character's
// key is its ASCII byte, or its UTF-8 bytes tagged with their count (above 0xFF).
template <class Char>
void for_each_char(std::string_view s, bool keep_whitespace, Char&& on_char) {
  const auto* p = reinterpret_cast<const unsigned char*>(s.data());
  const auto* end = p + s.size();
  while (p < end) {
    const unsigned char c = *p;
    if (c < 0x80) {
      ++p;
      if (!keep_whitespace && ((c >= 0x09 && c <= 0x0D) || (c >= 0x1C && c <= 0x20))) continue;
      on_char(std::uint64_t{c});
      continue;
    }
    if (!keep_whitespace) {
      if (const std::size_t w = space_len(p, end)) {
        p += w;
        continue;
      }
    }
    const std::size_t n = char_len(p, end);
    std::uint64_t key = n;  // the UTF-8 bytes, tagged with their count
    for (std::size_t i = 0; i < n; ++i) key = (key << 8) | p[i];
    on_char(key);
    p += n;
  }
}

// The words of s as sacreBLEU's CHRF._remove_punctuation splits them: whitespace-separated
// words, with one leading or trailing ASCII punctuation character split off words longer than
// one character (the trailing one wins). Byte tests suffice: a multi-byte character never
// starts or ends with an ASCII byte.
template <class Word>
void for_each_word(std::string_view s, Word&& on_word) {
  split_py(s, [&on_word](std::string_view w) {
    if (w.size() > 1 && kPunct[static_cast<unsigned char>(w.back())]) {
      on_word(w.substr(0, w.size() - 1));
      on_word(w.substr(w.size() - 1));
    } else if (w.size() > 1 && kPunct[static_cast<unsigned char>(w.front())]) {
      on_word(w.substr(0, 1));
      on_word(w.substr(1));
    } else {
      on_word(w);
    }
  });
}

// ---- prepared references -----------------------------------------------------------------------

// What chrF needs of an item's references, prepared once per reference set: their characters
// and words as ids, with the n-grams of all references in one index each (character, word), and
// each reference's length in characters and words. sacreBLEU keeps an empty reference (it drops
// only None): it has no n-gram.
struct PreparedRefs {
  std::size_t n_refs = 0;
  std::array<std::uint32_t, 128> ascii_ids{};  // ASCII character -> id (0: in no reference)
  KeyTable<std::uint32_t> char_ids;            // other characters by key
  std::vector<std::uint32_t> char_lengths, word_lengths;
  NgramIndex chars, words;
  std::string word_text;  // the references' words, padded (word_vocab points into it)
  StrInterner word_vocab;
};

// Working memory of pair_stats.
struct PairScratch {
  std::vector<std::uint32_t> hyp_ids, ref_ids, left;
  std::vector<std::uint8_t> hyp_live, ref_live, flags;
  NgramNumbering ngrams;
};

// Per-thread working memory.
struct Scratch {
  std::vector<std::string> lowered;
  std::string text;                   // a text's words, padded
  std::vector<std::uint32_t> starts;  // of the words in `text`, then its size + 1
  std::vector<std::uint32_t> ids;     // n-gram ids of the current order by position
  std::vector<std::uint32_t> count;   // hypothesis count by n-gram id, all zero between uses
  std::vector<std::uint32_t> distinct;
  std::vector<std::uint64_t> match;  // by reference
  std::vector<double> cur;
  // One reference scored directly (Chrf::direct_stats).
  PairScratch pair;
  std::vector<std::uint32_t> hyp_symbols, ref_symbols;
  std::array<std::uint32_t, 128> ascii_ids{};
  KeyTable<std::uint32_t> char_ids;
  std::string ref_text;
  std::vector<std::uint32_t> ref_starts;
  StrInterner vocab;
  // Preparing references.
  std::vector<std::uint32_t> symbols;
  std::vector<std::size_t> bounds;
};

// The words of `text` one after another in out (each followed by one space, then padding), their
// starts in `starts` and the total size + 1 after the last.
void gather_words(std::string_view text, std::string& out, std::vector<std::uint32_t>& starts) {
  for_each_word(text, [&](std::string_view w) {
    starts.push_back(static_cast<std::uint32_t>(out.size()));
    out += w;
    out += ' ';
  });
}

// [hyp count, ref count, match count] for orders 1..max_order of one hypothesis/reference pair,
// as sacreBLEU's _get_match_statistics (hyp count is 0 when the reference has no n-gram).
//
// Hypothesis n-grams are numbered densely order by order (NgramNumbering); reference n-grams are
// only looked up. Each reference occurrence matches while the hypothesis count lasts, min(hyp,
// ref) per n-gram. live[i] says the n-gram at i occurs on both sides, which removes most
// higher-order work.
void pair_stats(std::span<const std::uint32_t> hyp, std::span<const std::uint32_t> ref,
                std::size_t max_order, std::uint32_t vocab, PairScratch& sc, double* out) {
  for (std::size_t n = 1; n <= max_order; ++n) {
    const std::size_t n_hyp = hyp.size() >= n ? hyp.size() - n + 1 : 0;
    const std::size_t n_ref = ref.size() >= n ? ref.size() - n + 1 : 0;
    out[3 * (n - 1)] = n_ref != 0 ? static_cast<double>(n_hyp) : 0.0;
    out[3 * (n - 1) + 1] = static_cast<double>(n_ref);
    out[3 * (n - 1) + 2] = 0.0;
  }
  if (hyp.empty() || ref.empty() || max_order == 0) return;

  constexpr std::uint8_t kInHyp = 1, kInRef = 2;
  const std::size_t width = std::size_t{vocab} + 1;
  // Raw pointers in locals: byte stores would otherwise force reloading the vectors' data.
  sc.hyp_ids.assign(hyp.begin(), hyp.end());
  sc.ref_ids.assign(ref.begin(), ref.end());
  sc.hyp_live.resize(hyp.size() + 1);
  sc.ref_live.resize(ref.size() + 1);
  std::uint32_t* hid = sc.hyp_ids.data();
  std::uint32_t* rid = sc.ref_ids.data();
  std::uint8_t* hyp_live = sc.hyp_live.data();
  std::uint8_t* ref_live = sc.ref_live.data();

  // Order 1: the symbol ids themselves.
  sc.left.assign(width, 0);
  sc.flags.assign(width, 0);
  std::uint32_t* left = sc.left.data();
  std::uint8_t* flags = sc.flags.data();
  for (std::uint32_t c : hyp) {
    ++left[c];
    flags[c] = kInHyp;
  }
  std::size_t match = 0;
  for (std::size_t i = 0; i < ref.size(); ++i) {
    const std::uint32_t c = ref[i];
    ref_live[i] = (flags[c] & kInHyp) != 0;
    flags[c] |= kInRef;
    if (left[c] > 0) {
      --left[c];
      ++match;
    }
  }
  for (std::size_t i = 0; i < hyp.size(); ++i) hyp_live[i] = (flags[hyp[i]] & kInRef) != 0;
  out[2] = static_cast<double>(match);
  std::size_t n_ids = vocab;

  // Orders 2+. Id 0 (dead positions) has dummy count and flag slots, reset after each pass.
  for (std::size_t n = 2; n <= max_order && match > 0; ++n) {
    const std::size_t n_hyp = hyp.size() >= n ? hyp.size() - n + 1 : 0;
    const std::size_t n_ref = ref.size() >= n ? ref.size() - n + 1 : 0;
    if (n_hyp == 0 || n_ref == 0) return;
    sc.ngrams.start(n_ids, width, n_hyp);
    sc.left.assign(n_hyp + 1, 0);
    left = sc.left.data();

    // Hypothesis: number the live n-grams and count them.
    sc.ngrams.number(n_hyp, hid, hyp.data() + n - 1, hyp_live,
                     [left](std::uint32_t id) { ++left[id]; });
    left[0] = 0;
    n_ids = sc.ngrams.count();

    // Reference: look up, match, and mark what both sides have.
    sc.flags.assign(n_ids + 1, 0);
    flags = sc.flags.data();
    match = 0;
    sc.ngrams.look_up(n_ref, rid, ref.data() + n - 1, ref_live,
                      [left, flags, &match](std::uint32_t id) {
                        flags[id] = 1;
                        const std::uint32_t has = left[id] != 0;
                        left[id] -= has;
                        match += has;
                      });
    flags[0] = 0;
    for (std::size_t i = 0; i < n_hyp; ++i) hyp_live[i] = flags[hid[i]];
    sc.ngrams.finish();
    out[3 * (n - 1) + 2] = static_cast<double>(match);
  }
}

// [hyp count, ref count, match count] of one order for every reference into stats (3 * orders
// apart per reference): the hypothesis's n-grams, found once in the index, are matched against
// each reference that has them, min(hypothesis count, reference count) per n-gram.
void order_stats(const NgramIndex& index, std::size_t n, std::uint32_t* ids, std::size_t hyp_len,
                 std::span<const std::uint32_t> ref_lengths, Scratch& sc, double* stats,
                 std::size_t stride) {
  const std::size_t n_refs = ref_lengths.size();
  const std::size_t positions = hyp_len >= n ? hyp_len - n + 1 : 0;
  sc.match.assign(n_refs, 0);
  if (positions > 0 && n <= index.max_order()) {
    if (n > 1) index.advance(n, ids, positions);
    std::uint32_t* count = sc.count.data();
    std::uint32_t* distinct = sc.distinct.data();
    std::size_t n_distinct = 0;
    std::uint64_t* match = sc.match.data();
    if (index.single()) {
      // Each occurrence matches while its running count is within the reference's count; id 0
      // (in no reference) has count 0. Branch-free: presence is unpredictable.
      // Only ids != 0 (in the reference) are counted: dead positions would chain increments of
      // one counter through memory.
      const std::uint32_t* ref_count = index.max_counts();
      const std::size_t m = detail::compact_nonzero(ids, positions, distinct);
      std::uint64_t matched = 0;
      for (std::size_t j = 0; j < m; ++j) matched += ++count[distinct[j]] <= ref_count[distinct[j]];
      for (std::size_t j = 0; j < m; ++j) count[distinct[j]] = 0;
      match[0] = matched;
    } else {
      const std::size_t m = detail::compact_nonzero(ids, positions, distinct);
      for (std::size_t j = 0; j < m; ++j) {
        const std::uint32_t id = distinct[j];
        distinct[n_distinct] = id;  // first occurrences, in place
        n_distinct += count[id]++ == 0;
      }
      for (std::size_t d = 0; d < n_distinct; ++d) {
        const std::uint32_t id = distinct[d];
        const std::uint32_t c = count[id];
        count[id] = 0;
        for (const NgramIndex::Entry& e : index.entries(id)) match[e.ref] += std::min(c, e.count);
      }
    }
  }
  for (std::size_t r = 0; r < n_refs; ++r) {
    const std::size_t n_ref = ref_lengths[r] >= n ? ref_lengths[r] - n + 1 : 0;
    double* out = stats + r * stride;
    out[0] = n_ref != 0 ? static_cast<double>(positions) : 0.0;
    out[1] = static_cast<double>(n_ref);
    out[2] = static_cast<double>(sc.match[r]);
  }
}

// n / d, or as numpy divides two float32 statistics (a paired-bootstrap resample,
// numpy_resampled.hpp): rounded to float32, then widened by the next operation.
double quotient(double n, double d, bool float32) {
  return float32 ? static_cast<double>(static_cast<float>(n) / static_cast<float>(d)) : n / d;
}

// sacreBLEU's CHRF._compute_f_score with eps_smoothing=True: the mean over all orders of each
// order's F score, an order without n-grams counting as 1e-16 (chrF++.py, Moses, NLTK).
double f_score_eps(std::span<const double> stats, int beta, bool float32) {
  constexpr double kEps = 1e-16;
  const double factor = static_cast<double>(beta) * static_cast<double>(beta);
  double score = 0.0;
  std::size_t order = 0;
  for (std::size_t i = 0; i + 2 < stats.size(); i += 3, ++order) {
    const double n_hyp = stats[i], n_ref = stats[i + 1], n_match = stats[i + 2];
    const double prec = n_hyp > 0 ? quotient(n_match, n_hyp, float32) : kEps;
    const double rec = n_ref > 0 ? quotient(n_match, n_ref, float32) : kEps;
    const double denom = factor * prec + rec;
    score += denom > 0 ? (1 + factor) * prec * rec / denom : kEps;
  }
  return 100 * score / static_cast<double>(order);
}

// sacreBLEU's CHRF._compute_f_score with eps_smoothing=False (effective-order averaging).
// float32: the quotients of a paired-bootstrap resample (quotient()).
double f_score(std::span<const double> stats, int beta, bool eps_smoothing = false,
               bool float32 = false) {
  if (eps_smoothing) return f_score_eps(stats, beta, float32);
  const double factor = static_cast<double>(beta) * static_cast<double>(beta);
  double avg_prec = 0.0, avg_rec = 0.0;
  int effective_order = 0;
  for (std::size_t i = 0; i + 2 < stats.size(); i += 3) {
    const double n_hyp = stats[i], n_ref = stats[i + 1], n_match = stats[i + 2];
    if (n_hyp > 0 && n_ref > 0) {
      avg_prec += quotient(n_match, n_hyp, float32);
      avg_rec += quotient(n_match, n_ref, float32);
      ++effective_order;
    }
  }
  if (effective_order == 0) return 0.0;
  avg_prec /= effective_order;
  avg_rec /= effective_order;
  if (avg_prec + avg_rec == 0) return 0.0;
  double score = (1 + factor) * avg_prec * avg_rec;
  score /= (factor * avg_prec) + avg_rec;
  return 100 * score;
}

class Chrf final : public Metric, public NumpyResampled {
 public:
  Chrf(const MetricSpec& spec, int default_word_order) : name_(spec.text()), base_(spec.base()) {
    char_order_ = spec.get_int("char_order");
    word_order_ = spec.get_int("word_order", default_word_order);
    beta_ = spec.get_int("beta");
    lowercase_ = spec.get_bool("lowercase");
    whitespace_ = spec.get_bool("whitespace");
    first_ref_only_ = spec.get("refs") == "first";
    eps_smoothing_ = spec.get_bool("eps_smoothing");
    if (char_order_ + word_order_ == 0)
      throw UsageError(fmt::format("{}: char_order and word_order must not both be 0", name_));
    // What shapes the prepared references (ReferenceCache).
    cache_tag_ = fmt::format("chrf|{}|{}|{}|{}", char_order_, word_order_, lowercase_, whitespace_);
  }

  std::string name() const override { return name_; }
  std::string signature() const override {
    return Signature(base_)
        .field("nrefs", first_ref_only_ ? "first" : "all")
        .field("case", lowercase_ ? "lc" : "mixed")
        .field("eff", eps_smoothing_ ? "no" : "yes")
        .field("nc", char_order_)
        .field("nw", word_order_)
        .field("space", whitespace_ ? "yes" : "no")
        .field("beta", beta_)
        .versioned();
  }
  std::size_t num_stats() const override {
    return 3 * static_cast<std::size_t>(char_order_ + word_order_);
  }
  void item_stats(const MetricInput& input, std::span<double> stats) const override;
  void sentence_score(std::span<const double> stats, std::span<double> parts) const override {
    parts[0] = f_score(stats, beta_, eps_smoothing_);
  }
  double resample_score(std::span<const float> summed) const override {
    const std::vector<double> stats(summed.begin(), summed.end());
    return f_score(stats, beta_, eps_smoothing_, true);
  }

 private:
  void prepare(std::span<const std::string_view> refs, PreparedRefs& p, Scratch& sc) const;
  void direct_stats(std::string_view hyp, std::string_view ref, Scratch& sc,
                    std::span<double> stats) const;

  std::string name_, base_;
  int char_order_ = 6, word_order_ = 0, beta_ = 2;
  bool lowercase_ = false, whitespace_ = false, first_ref_only_ = false, eps_smoothing_ = false;
  std::string cache_tag_;
};

// One reference seen for the first time (ReferenceCache defers it): both texts as ids of one
// vocabulary per kind, then pair_stats.
void Chrf::direct_stats(std::string_view hyp, std::string_view ref, Scratch& sc,
                        std::span<double> stats) const {
  if (lowercase_) {
    if (sc.lowered.size() < 2) sc.lowered.resize(2);
    sc.lowered[0] = text::to_lower(hyp);
    sc.lowered[1] = text::to_lower(ref);
    hyp = sc.lowered[0];
    ref = sc.lowered[1];
  }
  const auto n_char = static_cast<std::size_t>(char_order_);
  const auto n_word = static_cast<std::size_t>(word_order_);
  if (n_char > 0) {
    sc.char_ids.clear();
    sc.char_ids.prepare(hyp.size() + ref.size());
    std::uint32_t vocab = 0;
    auto symbols = [&](std::string_view text, std::vector<std::uint32_t>& out) {
      out.clear();
      for_each_char(text, whitespace_, [&](std::uint64_t key) {
        std::uint32_t& id = key < 0x80 ? sc.ascii_ids[key] : sc.char_ids.insert(key);
        if (id == 0) id = ++vocab;
        out.push_back(id);
      });
    };
    symbols(hyp, sc.hyp_symbols);
    symbols(ref, sc.ref_symbols);
    sc.ascii_ids.fill(0);
    pair_stats(sc.hyp_symbols, sc.ref_symbols, n_char, vocab, sc.pair, stats.data());
  }
  if (n_word > 0) {
    // Words copied into padded buffers, interned.
    sc.text.clear();
    sc.starts.clear();
    gather_words(hyp, sc.text, sc.starts);
    sc.starts.push_back(static_cast<std::uint32_t>(sc.text.size()));
    sc.text.append(detail::kPadding, '\0');
    sc.ref_text.clear();
    sc.ref_starts.clear();
    gather_words(ref, sc.ref_text, sc.ref_starts);
    sc.ref_starts.push_back(static_cast<std::uint32_t>(sc.ref_text.size()));
    sc.ref_text.append(detail::kPadding, '\0');
    const std::size_t nh = sc.starts.size() - 1, nr = sc.ref_starts.size() - 1;
    sc.vocab.reset(nh + nr);
    auto words = [&](std::string_view text, const std::vector<std::uint32_t>& starts,
                     std::size_t count, std::vector<std::uint32_t>& out) {
      out.resize(count);
      for (std::size_t k = 0; k < count; ++k)
        out[k] = sc.vocab.intern(text.substr(starts[k], starts[k + 1] - 1 - starts[k]));
    };
    words(sc.text, sc.starts, nh, sc.hyp_symbols);
    words(sc.ref_text, sc.ref_starts, nr, sc.ref_symbols);
    pair_stats(sc.hyp_symbols, sc.ref_symbols, n_word, sc.vocab.size(), sc.pair,
               stats.data() + 3 * n_char);
  }
}

void Chrf::prepare(std::span<const std::string_view> given, PreparedRefs& p, Scratch& sc) const {
  const std::size_t n_refs = given.size();
  p.n_refs = n_refs;
  std::vector<std::string_view> refs(given.begin(), given.end());
  if (lowercase_) {
    if (sc.lowered.size() < n_refs) sc.lowered.resize(n_refs);
    for (std::size_t r = 0; r < n_refs; ++r) {
      sc.lowered[r] = text::to_lower(refs[r]);
      refs[r] = sc.lowered[r];
    }
  }
  const auto n_char = static_cast<std::size_t>(char_order_);
  const auto n_word = static_cast<std::size_t>(word_order_);

  // Characters: ids in order of first sight.
  p.ascii_ids.fill(0);
  p.char_lengths.clear();
  if (n_char > 0) {
    std::size_t bytes = 0;
    for (std::string_view r : refs) bytes += r.size();
    p.char_ids.clear();
    p.char_ids.prepare(bytes);
    std::uint32_t vocab = 0;
    sc.symbols.clear();
    sc.bounds.assign(1, 0);
    for (std::string_view r : refs) {
      for_each_char(r, whitespace_, [&](std::uint64_t key) {
        std::uint32_t& id = key < 0x80 ? p.ascii_ids[key] : p.char_ids.insert(key);
        if (id == 0) id = ++vocab;
        sc.symbols.push_back(id);
      });
      sc.bounds.push_back(sc.symbols.size());
      p.char_lengths.push_back(
          static_cast<std::uint32_t>(sc.bounds.back() - sc.bounds[sc.bounds.size() - 2]));
    }
    p.chars.build(sc.symbols, sc.bounds, vocab, n_char, NgramIndex::Counts::kPerReference);
  }

  // Words: copied into p.word_text (padded), interned.
  p.word_lengths.clear();
  if (n_word > 0) {
    p.word_text.clear();
    sc.starts.clear();
    sc.bounds.assign(1, 0);
    for (std::string_view r : refs) {
      gather_words(r, p.word_text, sc.starts);
      sc.bounds.push_back(sc.starts.size());
      p.word_lengths.push_back(
          static_cast<std::uint32_t>(sc.bounds.back() - sc.bounds[sc.bounds.size() - 2]));
    }
    sc.starts.push_back(static_cast<std::uint32_t>(p.word_text.size()));
    p.word_text.append(detail::kPadding, '\0');
    const std::string_view text = p.word_text;
    const std::size_t n_words = sc.starts.size() - 1;
    p.word_vocab.reset(n_words);
    sc.symbols.resize(n_words);
    for (std::size_t k = 0; k < n_words; ++k)
      sc.symbols[k] =
          p.word_vocab.intern(text.substr(sc.starts[k], sc.starts[k + 1] - 1 - sc.starts[k]));
    p.words.build(sc.symbols, sc.bounds, p.word_vocab.size(), n_word,
                  NgramIndex::Counts::kPerReference);
  }
}

void Chrf::item_stats(const MetricInput& input, std::span<double> stats) const {
  if (input.references.empty()) throw std::invalid_argument(name_ + ": item has no reference");
  thread_local detail::ReferenceCache<PreparedRefs> cache;
  thread_local Scratch sc;

  const std::span<const std::string_view> given(input.references.data(),
                                                first_ref_only_ ? 1 : input.references.size());
  const PreparedRefs* prepared = cache.get(cache_tag_, given, given.size() == 1,
                                           [&](PreparedRefs& p) { prepare(given, p, sc); });
  if (!prepared) {
    direct_stats(input.candidate, given[0], sc, stats);
    return;
  }
  const PreparedRefs& refs = *prepared;
  const std::size_t n_refs = refs.n_refs;

  std::string_view hyp = input.candidate;
  if (lowercase_) {
    if (sc.lowered.empty()) sc.lowered.resize(1);
    sc.lowered[0] = text::to_lower(hyp);
    hyp = sc.lowered[0];
  }
  const auto n_char = static_cast<std::size_t>(char_order_);
  const auto n_word = static_cast<std::size_t>(word_order_);
  const std::size_t k = num_stats();
  sc.cur.resize(n_refs * k);  // each reference's statistics, k apart

  // Characters as the references' ids (0: in no reference).
  if (n_char > 0) {
    sc.ids.clear();
    for_each_char(hyp, whitespace_, [&](std::uint64_t key) {
      std::uint32_t id = 0;
      if (key < 0x80) {
        id = refs.ascii_ids[key];
      } else if (const std::uint32_t* found = refs.char_ids.find(key)) {
        id = *found;
      }
      sc.ids.push_back(id);
    });
    const std::size_t len = sc.ids.size();
    sc.ids.push_back(0);
    if (sc.distinct.size() < len + 1) sc.distinct.resize(len + 1);
    if (sc.count.size() < std::size_t{refs.chars.size()} + 1)
      sc.count.resize(refs.chars.size() + 1, 0);
    for (std::size_t n = 1; n <= n_char; ++n)
      order_stats(refs.chars, n, sc.ids.data(), len, refs.char_lengths, sc,
                  sc.cur.data() + 3 * (n - 1), k);
  }
  // Words, looked up in a padded copy.
  if (n_word > 0) {
    sc.text.clear();
    sc.starts.clear();
    gather_words(hyp, sc.text, sc.starts);
    sc.starts.push_back(static_cast<std::uint32_t>(sc.text.size()));
    sc.text.append(detail::kPadding, '\0');
    const std::string_view text = sc.text;
    const std::size_t len = sc.starts.size() - 1;
    sc.ids.resize(len + 1);
    for (std::size_t w = 0; w < len; ++w)
      sc.ids[w] =
          refs.word_vocab.find(text.substr(sc.starts[w], sc.starts[w + 1] - 1 - sc.starts[w]));
    sc.ids[len] = 0;
    if (sc.distinct.size() < len + 1) sc.distinct.resize(len + 1);
    if (sc.count.size() < std::size_t{refs.words.size()} + 1)
      sc.count.resize(refs.words.size() + 1, 0);
    for (std::size_t n = 1; n <= n_word; ++n)
      order_stats(refs.words, n, sc.ids.data(), len, refs.word_lengths, sc,
                  sc.cur.data() + 3 * (n_char + n - 1), k);
  }

  // The first reference with the strictly best f-score, as sacreBLEU.
  std::size_t best = 0;
  double best_f = -1.0;
  for (std::size_t r = 0; r < n_refs && n_refs > 1; ++r) {
    const double f =
        f_score(std::span<const double>(sc.cur).subspan(r * k, k), beta_, eps_smoothing_);
    if (f > best_f) {
      best_f = f;
      best = r;
    }
  }
  std::copy_n(sc.cur.begin() + static_cast<std::ptrdiff_t>(best * k), k, stats.begin());
}

}  // namespace

void register_chrf(MetricRegistry& registry) {
  const auto options = [](int word_order) {
    return std::vector<OptionSpec>{
        option_int("char_order", 6, 0, 64, "character n-gram order"),
        option_int("word_order", word_order, 0, 64, "word n-gram order (2 for chrF++)"),
        option_int("beta", 2, 0, 100, "recall weight of the F score"),
        option_bool("lowercase", false, "lower-case candidate and references"),
        option_bool("whitespace", false, "keep spaces in character n-grams"),
        option_bool("eps_smoothing", false,
                    "sacreBLEU's eps_smoothing: mean of every order's F (1e-16 for an order "
                    "without n-grams) instead of effective-order averaging"),
        option_choice("refs", "all", {"all", "first"},
                      "the references of each item to use; with several, the best per item")};
  };
  registry.add(
      MetricInfo{"chrf", "chrF2 as sacreBLEU 2.x (character 6-grams, 0-100)", options(0),
                 [](const MetricSpec& spec, const MetricContext&) -> std::unique_ptr<Metric> {
                   return std::make_unique<Chrf>(spec, 0);
                 }});
  registry.add(MetricInfo{
      "chrf++", "chrF2++ as sacreBLEU 2.x (character 6-grams + word 2-grams, 0-100)", options(2),
      [](const MetricSpec& spec, const MetricContext&) -> std::unique_ptr<Metric> {
        return std::make_unique<Chrf>(spec, 2);
      }});
}

}  // namespace probity::metrics
