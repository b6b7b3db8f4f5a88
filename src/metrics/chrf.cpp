// chrF and chrF++ exactly as sacreBLEU 2.x (CHRF with eps_smoothing=False). Statistics per order,
// character orders first then word orders: [hyp count, ref count, match count]. With several
// references each item keeps the statistics of the reference with the best sentence f-score.
//
// Speed: characters and words are interned to small integer ids and n-grams are numbered order by
// order from (id of the (n-1)-gram, next id), with counts in arrays indexed by those numbers, all
// in thread_local scratch; n-grams whose sub-n-grams do not occur on both sides are skipped.
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
#include "probity/error.hpp"
#include "probity/signature.hpp"
#include "text/utf8.hpp"

namespace probity::metrics {
namespace {

using detail::KeyTable;
using detail::lower;
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

// A text as id sequences: all texts of an item share one id space per kind (chars, words).
struct Sequences {
  std::vector<std::uint32_t> ids;
  std::vector<std::size_t> bounds{0};  // text t spans ids [bounds[t], bounds[t + 1])
  std::uint32_t vocab = 0;
  std::span<const std::uint32_t> text(std::size_t t) const {
    return std::span<const std::uint32_t>(ids).subspan(bounds[t], bounds[t + 1] - bounds[t]);
  }
  void reset() {
    ids.clear();
    bounds.assign(1, 0);
    vocab = 0;
  }
};

struct Scratch {
  std::vector<std::string> lowered;
  std::vector<std::string_view> texts;  // references, then the hypothesis
  Sequences chars, words;
  std::array<std::uint32_t, 128> ascii_ids{};
  KeyTable<std::uint32_t> char_ids;  // non-ASCII characters by their UTF-8 bytes
  StrInterner word_vocab;
  std::vector<std::string_view> word_tokens;
  // pair_stats: n-gram ids per position, liveness, counts and flags by id, and the numbering.
  std::vector<std::uint32_t> hyp_ids, ref_ids, left;
  std::vector<std::uint8_t> hyp_live, ref_live, flags;
  NgramNumbering ngrams;
  std::vector<double> cur;
};

// Characters of a text as ids; Python's ''.join(s.split()) first unless whitespace counts.
void add_chars(std::string_view s, bool keep_whitespace, Scratch& sc) {
  const auto* p = reinterpret_cast<const unsigned char*>(s.data());
  const auto* end = p + s.size();
  Sequences& seq = sc.chars;
  const std::size_t start = seq.ids.size();
  seq.ids.resize(start + s.size());  // at most one id per byte
  std::uint32_t* out = seq.ids.data() + start;
  std::uint32_t* ascii_ids = sc.ascii_ids.data();
  while (p < end) {
    const unsigned char c = *p;
    std::uint32_t* id;
    if (c < 0x80) {
      if (!keep_whitespace && ((c >= 0x09 && c <= 0x0D) || (c >= 0x1C && c <= 0x20))) {
        ++p;
        continue;
      }
      id = &ascii_ids[c];
      ++p;
    } else {
      if (!keep_whitespace) {
        if (const std::size_t w = space_len(p, end)) {
          p += w;
          continue;
        }
      }
      const std::size_t n = char_len(p, end);
      std::uint64_t key = n;  // the UTF-8 bytes, tagged with their count
      for (std::size_t i = 0; i < n; ++i) key = (key << 8) | p[i];
      id = &sc.char_ids.insert(key);
      p += n;
    }
    if (*id == 0) *id = ++seq.vocab;
    *out++ = *id;
  }
  seq.ids.resize(static_cast<std::size_t>(out - seq.ids.data()));
  seq.bounds.push_back(seq.ids.size());
}

// Words of a text as sacreBLEU's CHRF._remove_punctuation splits them: whitespace-separated
// words, with one leading or trailing ASCII punctuation character split off words longer than
// one character (the trailing one wins). Byte tests suffice: a multi-byte character never
// starts or ends with an ASCII byte.
void add_words(std::string_view s, Scratch& sc) {
  auto& toks = sc.word_tokens;
  toks.clear();
  split_py(s, [&toks](std::string_view w) {
    if (w.size() > 1 && kPunct[static_cast<unsigned char>(w.back())]) {
      toks.push_back(w.substr(0, w.size() - 1));
      toks.push_back(w.substr(w.size() - 1));
    } else if (w.size() > 1 && kPunct[static_cast<unsigned char>(w.front())]) {
      toks.push_back(w.substr(0, 1));
      toks.push_back(w.substr(1));
    } else {
      toks.push_back(w);
    }
  });
  Sequences& seq = sc.words;
  for (std::string_view t : toks) seq.ids.push_back(sc.word_vocab.intern(t));
  seq.bounds.push_back(seq.ids.size());
}

// [hyp count, ref count, match count] for orders 1..max_order of one hypothesis/reference pair,
// as sacreBLEU's _get_match_statistics (hyp count is 0 when the reference has no n-gram).
//
// Hypothesis n-grams are numbered densely order by order (NgramNumbering); reference n-grams are
// only looked up. Each reference occurrence matches while the hypothesis count lasts, min(hyp,
// ref) per n-gram. live[i] says the n-gram at i occurs on both sides, which removes most
// higher-order work.
void pair_stats(std::span<const std::uint32_t> hyp, std::span<const std::uint32_t> ref,
                std::size_t max_order, std::uint32_t vocab, Scratch& sc, double* out) {
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

// sacreBLEU's CHRF._compute_f_score with eps_smoothing=False (effective-order averaging).
double f_score(std::span<const double> stats, int beta) {
  const double factor = static_cast<double>(beta) * static_cast<double>(beta);
  double avg_prec = 0.0, avg_rec = 0.0;
  int effective_order = 0;
  for (std::size_t i = 0; i + 2 < stats.size(); i += 3) {
    const double n_hyp = stats[i], n_ref = stats[i + 1], n_match = stats[i + 2];
    if (n_hyp > 0 && n_ref > 0) {
      avg_prec += n_match / n_hyp;
      avg_rec += n_match / n_ref;
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

class Chrf final : public Metric {
 public:
  Chrf(const MetricSpec& spec, int default_word_order) : name_(spec.text()), base_(spec.base()) {
    char_order_ = spec.get_int("char_order");
    word_order_ = spec.get_int("word_order", default_word_order);
    beta_ = spec.get_int("beta");
    lowercase_ = spec.get_bool("lowercase");
    whitespace_ = spec.get_bool("whitespace");
    first_ref_only_ = spec.get("refs") == "first";
    if (char_order_ + word_order_ == 0)
      throw UsageError(fmt::format("{}: char_order and word_order must not both be 0", name_));
  }

  std::string name() const override { return name_; }
  std::string signature() const override {
    return Signature(base_)
        .field("nrefs", first_ref_only_ ? "first" : "all")
        .field("case", lowercase_ ? "lc" : "mixed")
        .field("eff", "yes")
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
    parts[0] = f_score(stats, beta_);
  }

 private:
  std::string name_, base_;
  int char_order_ = 6, word_order_ = 0, beta_ = 2;
  bool lowercase_ = false, whitespace_ = false, first_ref_only_ = false;
};

void Chrf::item_stats(const MetricInput& input, std::span<double> stats) const {
  if (input.references.empty()) throw std::invalid_argument(name_ + ": item has no reference");
  thread_local Scratch sc;

  // References as sacreBLEU keeps them: empty ones are dropped, unless all are empty, in which
  // case one empty reference remains (sacreBLEU would refuse the item).
  sc.texts.clear();
  const std::size_t n_given = first_ref_only_ ? 1 : input.references.size();
  for (std::size_t r = 0; r < n_given; ++r)
    if (!input.references[r].empty()) sc.texts.push_back(input.references[r]);
  if (sc.texts.empty()) sc.texts.emplace_back();
  sc.texts.push_back(input.candidate);
  const std::size_t n_refs = sc.texts.size() - 1;
  if (lowercase_) {
    if (sc.lowered.size() < sc.texts.size()) sc.lowered.resize(sc.texts.size());
    for (std::size_t t = 0; t < sc.texts.size(); ++t) {
      sc.lowered[t] = lower(sc.texts[t]);
      sc.texts[t] = sc.lowered[t];
    }
  }

  const auto n_char = static_cast<std::size_t>(char_order_);
  const auto n_word = static_cast<std::size_t>(word_order_);
  sc.chars.reset();
  sc.words.reset();
  if (n_char > 0) {
    std::size_t bytes = 0;
    for (std::string_view t : sc.texts) bytes += t.size();
    sc.char_ids.prepare(bytes);
    for (std::string_view t : sc.texts) add_chars(t, whitespace_, sc);
    sc.char_ids.clear();
    sc.ascii_ids.fill(0);
  }
  if (n_word > 0) {
    std::size_t bytes = 0;
    for (std::string_view t : sc.texts) bytes += t.size();
    sc.word_vocab.reset(bytes);
    for (std::string_view t : sc.texts) add_words(t, sc);
    sc.words.vocab = sc.word_vocab.size();
  }

  const std::size_t k = num_stats();
  sc.cur.resize(k);
  double best_f = -1.0;
  for (std::size_t r = 0; r < n_refs; ++r) {
    if (n_char > 0)
      pair_stats(sc.chars.text(n_refs), sc.chars.text(r), n_char, sc.chars.vocab, sc,
                 sc.cur.data());
    if (n_word > 0)
      pair_stats(sc.words.text(n_refs), sc.words.text(r), n_word, sc.words.vocab, sc,
                 sc.cur.data() + 3 * n_char);
    if (n_refs == 1) {
      std::copy(sc.cur.begin(), sc.cur.end(), stats.begin());
      return;
    }
    // The first reference with the strictly best f-score wins, as in sacreBLEU.
    const double f = f_score(sc.cur, beta_);
    if (f > best_f) {
      best_f = f;
      std::copy(sc.cur.begin(), sc.cur.end(), stats.begin());
    }
  }
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
        option_choice("refs", "all", {"all", "first"},
                      "the references of each item to use; with several, the best per item")};
  };
  registry.add(MetricInfo{"chrf", "chrF2 as sacreBLEU 2.x (character 6-grams, 0-100)", options(0),
                          [](const MetricSpec& spec, Engine&) -> std::unique_ptr<Metric> {
                            return std::make_unique<Chrf>(spec, 0);
                          }});
  registry.add(
      MetricInfo{"chrf++", "chrF2++ as sacreBLEU 2.x (character 6-grams + word 2-grams, 0-100)",
                 options(2), [](const MetricSpec& spec, Engine&) -> std::unique_ptr<Metric> {
                   return std::make_unique<Chrf>(spec, 2);
                 }});
}

}  // namespace probity::metrics
