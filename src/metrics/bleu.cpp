// BLEU exactly as sacreBLEU 2.x computes it: `sentence_bleu` (effective order) for item scores and
// `corpus_bleu` for corpus scores, both from the per-item statistics
// [sys_len, ref_len, correct_1..N, total_1..N].
//
// Speed: tokens are interned to small integer ids and n-grams become 64-bit keys (ids packed into
// one word, or numbered level by level when they do not fit), counted in flat open-addressing
// tables kept in thread_local scratch, so no n-gram string is ever built; n-grams that cannot
// occur on the other side (a sub-n-gram does not) are skipped.
#include <fmt/format.h>
#include <fmt/ranges.h>

#include <algorithm>
#include <array>
#include <cmath>
#include <cstdint>
#include <cstring>
#include <memory>
#include <span>
#include <stdexcept>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "metrics/builtin.hpp"
#include "metrics/corpus_signature.hpp"
#include "metrics/lexical_common.hpp"
#include "metrics/numpy_resampled.hpp"
#include "probity/error.hpp"
#include "probity/signature.hpp"
#include "probity/text.hpp"
#include "text/tokenize_sacrebleu.hpp"

namespace probity::metrics {

namespace detail {
std::vector<double> bleu_breakdown(std::span<const double> stats, std::size_t max_order,
                                   std::string_view smooth, double smooth_value,
                                   bool effective_order);
}  // namespace detail

namespace {

using detail::compact_nonzero;
using detail::NgramIndex;
using detail::NgramNumbering;
using detail::space_len;
using detail::StrInterner;

// ---- Python string helpers ---------------------------------------------------------------------

// Python's str.rstrip().
std::string_view rstrip(std::string_view s) {
  for (;;) {
    const auto* b = reinterpret_cast<const unsigned char*>(s.data());
    const auto* e = b + s.size();
    std::size_t cut = 0;
    if (s.empty()) return s;
    if (e[-1] < 0x80) {
      cut = space_len(e - 1, e);
    } else if (s.size() >= 2 && e[-2] == 0xC2 && space_len(e - 2, e) == 2) {
      cut = 2;
    } else if (s.size() >= 3 && space_len(e - 3, e) == 3) {
      cut = 3;
    }
    if (cut == 0) return s;
    s.remove_suffix(cut);
  }
}

// Splits the output of a sacreBLEU tokenizer: tokens separated by single spaces.
template <class Word>
void split_spaces(std::string_view s, Word&& word) {
  std::size_t start = 0;
  for (std::size_t i = 0; i < s.size(); ++i) {
    if (s[i] != ' ') continue;
    if (i > start) word(s.substr(start, i - start));
    start = i + 1;
  }
  if (s.size() > start) word(s.substr(start));
}

// out holds the words that split(text, word) gives, joined by single spaces (as tokenize_13a_into
// writes its tokens). They are not longer than text: separators are at least one byte.
template <class Split>
void join_words(std::string_view text, Split&& split, text::TokenizedLine& out) {
  if (out.buffer.size() < text.size() + 16) out.buffer.resize(text.size() + 16);
  if (out.starts.size() < text.size() + 2) out.starts.resize(text.size() + 2);
  char* const begin = out.buffer.data();
  char* p = begin;
  std::size_t count = 0;
  split(text, [&](std::string_view w) {
    if (count > 0) *p++ = ' ';
    out.starts[count++] = static_cast<std::uint32_t>(p - begin);
    std::memcpy(p, w.data(), w.size());
    p += w.size();
  });
  out.text = std::string_view(begin, static_cast<std::size_t>(p - begin));
  out.count = count;
  out.starts[count] = static_cast<std::uint32_t>(out.text.size() + 1);
}

// What BLEU needs of an item's references, prepared once per reference set: their token counts
// and the maximum count of each of their n-grams over the references. An empty reference is a
// reference of length 0, as in sacreBLEU (which drops only None references): it can be the
// closest length.
struct PreparedRefs {
  std::string text;  // the references' tokens, padded (vocab points into it)
  StrInterner vocab;
  std::vector<std::uint32_t> lengths;
  NgramIndex ngrams;
};

// Per-thread working memory.
struct Scratch {
  std::string lowered, tokenized;    // tokenized: intl, zh, char, ja-mecab
  text::TokenizedLine line;          // the text tokenized last
  std::vector<std::uint32_t> ids;    // n-gram ids of the current order by position
  std::vector<std::uint32_t> count;  // hypothesis count by n-gram id, all zero between uses
  std::vector<std::uint32_t> touched;
  // One reference scored directly (Bleu::pair_stats).
  text::TokenizedLine ref_line;
  StrInterner vocab;
  std::vector<std::uint32_t> hyp_symbols, ref_symbols, hyp_ids, ref_ids, hyp_count, ref_count,
      live_ids, shared;
  std::vector<std::uint8_t> hyp_live, ref_live;
  NgramNumbering numbering;
  // Preparing references.
  std::vector<std::uint32_t> starts;    // of the tokens in PreparedRefs::text, and its size + 1
  std::vector<std::size_t> ref_bounds;  // reference r has tokens [bounds[r], bounds[r + 1])
  std::vector<std::uint32_t> symbols;
};

// ---- the metric --------------------------------------------------------------------------------

enum class Tokenizer { k13a, kIntl, kNone, kZh, kChar, kJaMecab };
enum class Smooth { kExp, kFloor, kAddK, kNone };

constexpr double kLogZero = -9999999999.0;  // sacreBLEU's my_log(0)
constexpr std::size_t kMaxOrder = 64;       // the largest max_ngram_order accepted

Smooth parse_smooth(std::string_view s) {
  if (s == "exp") return Smooth::kExp;
  if (s == "floor") return Smooth::kFloor;
  if (s == "add-k") return Smooth::kAddK;
  if (s == "none") return Smooth::kNone;
  throw UsageError(fmt::format("bleu: smooth={} is not one of exp, floor, add-k, none", s));
}

// sacreBLEU's BLEU.compute_bleu; fills bp and precisions when given. float32_counts: the
// statistics are a numpy float32 array (a paired-bootstrap resample, numpy_resampled.hpp), into
// which add-k smoothing writes its sums back (rounded to float32).
double compute_bleu(std::span<const double> stats, std::size_t max_order, Smooth smooth,
                    double smooth_value, bool effective_order, double* bp_out,
                    std::span<double> precisions_out, bool float32_counts = false) {
  const double sys_len = stats[0];
  const double ref_len = stats[1];
  // max_ngram_order is at most kMaxOrder: fixed arrays, no allocation per score.
  std::array<double, kMaxOrder> correct{}, total{}, precisions{};
  std::copy(stats.begin() + 2, stats.begin() + 2 + max_order, correct.begin());
  std::copy(stats.begin() + 2 + max_order, stats.begin() + 2 + 2 * max_order, total.begin());

  double bp = 1.0;
  if (sys_len < ref_len) bp = sys_len > 0 ? std::exp(1 - ref_len / sys_len) : 0.0;
  if (bp_out) *bp_out = bp;
  auto finish = [&](double score) {
    std::copy(precisions.begin(), precisions.begin() + max_order, precisions_out.begin());
    return score;
  };
  // No match at all: 0 whatever the smoothing (sacreBLEU #141).
  if (std::all_of(correct.begin(), correct.begin() + max_order, [](double c) { return c == 0; }))
    return finish(0.0);

  double smooth_mteval = 1.0;
  std::size_t eff_order = max_order;
  for (std::size_t n = 1; n <= max_order; ++n) {
    if (smooth == Smooth::kAddK && n > 1) {
      correct[n - 1] += smooth_value;
      total[n - 1] += smooth_value;
      if (float32_counts) {
        correct[n - 1] = static_cast<float>(correct[n - 1]);
        total[n - 1] = static_cast<float>(total[n - 1]);
      }
    }
    if (total[n - 1] == 0) break;
    if (effective_order) eff_order = n;
    if (correct[n - 1] == 0) {
      if (smooth == Smooth::kExp) {
        smooth_mteval *= 2;
        precisions[n - 1] = 100. / (smooth_mteval * total[n - 1]);
      } else if (smooth == Smooth::kFloor) {
        precisions[n - 1] = 100. * smooth_value / total[n - 1];
      }
    } else {
      precisions[n - 1] = 100. * correct[n - 1] / total[n - 1];
    }
  }
  double log_sum = 0.0;
  for (std::size_t n = 0; n < eff_order; ++n)
    log_sum += precisions[n] == 0.0 ? kLogZero : std::log(precisions[n]);
  return finish(bp * std::exp(log_sum / static_cast<double>(eff_order)));
}

class Bleu final : public Metric, public CorpusSigned, public NumpyResampled {
 public:
  explicit Bleu(const MetricSpec& spec) : name_(spec.text()) {
    const std::string tok = spec.get("tokenize");  // a choice of the option table
    tokenizer_ = tok == "intl"       ? Tokenizer::kIntl
                 : tok == "none"     ? Tokenizer::kNone
                 : tok == "zh"       ? Tokenizer::kZh
                 : tok == "char"     ? Tokenizer::kChar
                 : tok == "ja-mecab" ? Tokenizer::kJaMecab
                                     : Tokenizer::k13a;
    // sacreBLEU names ja-mecab with MeCab's version (and loading MeCab now reports a missing
    // dictionary when the metric is made, not in the middle of scoring).
    tok_name_ = tokenizer_ == Tokenizer::kJaMecab ? text::ja_mecab_signature() : tok;
    if (tokenizer_ == Tokenizer::kJaMecab) text::tokenize_ja_mecab("");
    lowercase_ = spec.get_bool("lowercase");
    smooth_name_ = spec.get("smooth");
    smooth_ = parse_smooth(smooth_name_);
    const double default_value = smooth_ == Smooth::kFloor ? 0.1 : 1.0;
    // sacreBLEU's floor and add-k smoothing need a positive value (a negative one makes every
    // n-gram precision negative and every score undefined).
    smooth_value_ = spec.get_double("smooth_value", default_value);
    if (!(smooth_value_ > 0))
      throw UsageError(fmt::format("{}: smooth_value={} must be positive", name_, smooth_value_));
    max_order_ = static_cast<std::size_t>(spec.get_int("max_ngram_order"));
    first_ref_only_ = spec.get("refs") == "first";
    effective_order_ = spec.get_bool("effective_order");
    // What shapes the prepared references (ReferenceCache).
    cache_tag_ = fmt::format("bleu|{}|{}|{}", tok_name_, lowercase_, max_order_);
  }

  std::string name() const override { return name_; }
  std::string signature() const override { return signature_with(true); }
  std::string corpus_signature() const override { return signature_with(effective_order_); }
  std::string signature_with(bool effective_order) const {
    std::string smooth = smooth_name_;
    if (smooth_ == Smooth::kFloor || smooth_ == Smooth::kAddK)
      smooth += fmt::format("[{:.2f}]", smooth_value_);
    Signature s("bleu");
    s.field("nrefs", first_ref_only_ ? "first" : "all")
        .field("case", lowercase_ ? "lc" : "mixed")
        .field("eff", effective_order ? "yes" : "no")
        .field("tok", tok_name_)
        .field("smooth", smooth);
    if (max_order_ != 4) s.field("ngram", max_order_);
    return s.versioned();
  }
  std::size_t num_stats() const override { return 2 + 2 * max_order_; }

  void item_stats(const MetricInput& input, std::span<double> stats) const override;

  void sentence_score(std::span<const double> stats, std::span<double> parts) const override {
    std::array<double, kMaxOrder> precisions;
    parts[0] = compute_bleu(stats, max_order_, smooth_, smooth_value_, true, nullptr,
                            std::span(precisions).first(max_order_));
  }
  void corpus_score(std::span<const double> stats, std::span<double> parts) const override {
    std::array<double, kMaxOrder> precisions;
    parts[0] = compute_bleu(stats, max_order_, smooth_, smooth_value_, effective_order_, nullptr,
                            std::span(precisions).first(max_order_));
  }
  std::string corpus_breakdown(std::span<const double> stats) const override {
    // sacreBLEU's BLEUScore: precisions to one decimal, BP and ratio to three, the lengths.
    double bp = 1.0;
    std::array<double, kMaxOrder> precisions{};
    compute_bleu(stats, max_order_, smooth_, smooth_value_, effective_order_, &bp,
                 std::span(precisions).first(max_order_));
    const double sys_len = stats[0], ref_len = stats[1];
    return fmt::format("{:.1f} (BP = {:.3f} ratio = {:.3f} hyp_len = {:.0f} ref_len = {:.0f})",
                       fmt::join(std::span(precisions).first(max_order_), "/"), bp,
                       ref_len > 0 ? sys_len / ref_len : 0.0, sys_len, ref_len);
  }
  double resample_score(std::span<const float> summed) const override {
    // sys_len and ref_len go through int(); the counts are whole numbers below 2^24.
    std::array<double, 2 + 2 * kMaxOrder> stats;
    std::copy(summed.begin(), summed.end(), stats.begin());
    std::array<double, kMaxOrder> precisions;
    return compute_bleu(std::span(stats).first(summed.size()), max_order_, smooth_, smooth_value_,
                        effective_order_, nullptr, std::span(precisions).first(max_order_), true);
  }

 private:
  // sacreBLEU's BLEU._preprocess_segment (lowercase, rstrip, tokenize), then the split of
  // extract_all_ngrams, into `out`.
  const text::TokenizedLine& tokens(std::string_view line, Scratch& sc,
                                    text::TokenizedLine& out) const {
    if (lowercase_) {
      sc.lowered = text::to_lower(line);
      line = sc.lowered;
    }
    line = rstrip(line);
    switch (tokenizer_) {
      case Tokenizer::k13a:
        text::tokenize_13a_into(line, out);
        break;
      case Tokenizer::kIntl:
        text::tokenize_intl_into(line, sc.tokenized);
        join_words(
            sc.tokenized, [](std::string_view t, auto&& word) { split_spaces(t, word); }, out);
        break;
      case Tokenizer::kNone:
        join_words(
            line, [](std::string_view t, auto&& word) { detail::split_py(t, word); }, out);
        break;
      case Tokenizer::kZh:
        text::tokenize_zh_into(line, sc.tokenized);
        join_words(
            sc.tokenized, [](std::string_view t, auto&& word) { split_spaces(t, word); }, out);
        break;
      case Tokenizer::kChar:
        sc.tokenized = text::tokenize_char(line);
        join_words(
            sc.tokenized, [](std::string_view t, auto&& word) { detail::split_py(t, word); }, out);
        break;
      case Tokenizer::kJaMecab:
        sc.tokenized = text::tokenize_ja_mecab(line);
        join_words(
            sc.tokenized, [](std::string_view t, auto&& word) { detail::split_py(t, word); }, out);
        break;
    }
    return out;
  }
  void prepare(std::span<const std::string_view> given, PreparedRefs& p, Scratch& sc) const;
  void pair_stats(std::string_view hyp, std::string_view ref, Scratch& sc,
                  std::span<double> stats) const;

  std::string name_;
  Tokenizer tokenizer_ = Tokenizer::k13a;
  std::string tok_name_;
  bool lowercase_ = false;
  std::string smooth_name_;
  Smooth smooth_ = Smooth::kExp;
  double smooth_value_ = 1.0;
  std::size_t max_order_ = 4;
  bool first_ref_only_ = false;
  bool effective_order_ = false;  // corpus_score's (sentence scores always use it)
  std::string cache_tag_;
};

void Bleu::item_stats(const MetricInput& input, std::span<double> stats) const {
  if (input.references.empty()) throw std::invalid_argument(name_ + ": item has no reference");
  thread_local detail::ReferenceCache<PreparedRefs> cache;
  thread_local Scratch sc;

  const std::span<const std::string_view> given(input.references.data(),
                                                first_ref_only_ ? 1 : input.references.size());
  const PreparedRefs* prepared = cache.get(cache_tag_, given, given.size() == 1,
                                           [&](PreparedRefs& p) { prepare(given, p, sc); });
  if (!prepared) {
    pair_stats(input.candidate, given[0], sc, stats);
    return;
  }
  const PreparedRefs& refs = *prepared;
  const std::size_t n_refs = refs.lengths.size();

  // The hypothesis as symbols of the references' vocabulary (0: in no reference).
  const text::TokenizedLine& hyp = tokens(input.candidate, sc, sc.line);
  const std::size_t hyp_len = hyp.count;
  sc.ids.resize(hyp_len + 1);
  std::uint32_t* ids = sc.ids.data();
  for (std::size_t k = 0; k < hyp_len; ++k) ids[k] = refs.vocab.find(hyp.token(k));
  stats[0] = static_cast<double>(hyp_len);

  // Closest reference length, ties to the shorter one.
  std::size_t closest_diff = 0, closest_len = 0;
  for (std::size_t r = 0; r < n_refs; ++r) {
    const std::size_t len = refs.lengths[r];
    const std::size_t diff = len > hyp_len ? len - hyp_len : hyp_len - len;
    if (r == 0 || diff < closest_diff) {
      closest_diff = diff;
      closest_len = len;
    } else if (diff == closest_diff && len < closest_len) {
      closest_len = len;
    }
  }
  stats[1] = static_cast<double>(closest_len);

  // correct = sum over n-grams of min(hypothesis count, maximum count over references): each
  // occurrence matches while its running count is within the references' maximum.
  if (sc.count.size() < std::size_t{refs.ngrams.size()} + 1)
    sc.count.resize(refs.ngrams.size() + 1, 0);
  std::uint32_t* count = sc.count.data();
  sc.touched.resize(hyp_len + 1);
  std::uint32_t* touched = sc.touched.data();  // the ids counted in this order
  const std::uint32_t* max_count = refs.ngrams.max_counts();
  for (std::size_t n = 1; n <= max_order_; ++n) {
    const std::size_t positions = hyp_len >= n ? hyp_len - n + 1 : 0;
    stats[1 + max_order_ + n] = static_cast<double>(positions);
    if (positions == 0 || n > refs.ngrams.max_order()) {
      stats[1 + n] = 0.0;
      continue;
    }
    if (n > 1) refs.ngrams.advance(n, ids, positions);
    // Only n-grams in some reference (id != 0) are counted, without a branch per position:
    // whether one is present is unpredictable.
    const std::size_t m = compact_nonzero(ids, positions, touched);
    std::size_t correct = 0;
    for (std::size_t j = 0; j < m; ++j) correct += ++count[touched[j]] <= max_count[touched[j]];
    for (std::size_t j = 0; j < m; ++j) count[touched[j]] = 0;
    stats[1 + n] = static_cast<double>(correct);
  }
}

void Bleu::pair_stats(std::string_view candidate, std::string_view reference, Scratch& sc,
                      std::span<double> stats) const {
  // Both sides' tokens in one vocabulary (the two lines are padded).
  const text::TokenizedLine& hyp = tokens(candidate, sc, sc.line);
  const text::TokenizedLine& ref = tokens(reference, sc, sc.ref_line);
  const std::size_t nh = hyp.count, nr = ref.count;
  sc.vocab.reset(nh + nr);
  sc.hyp_symbols.resize(nh + 1);
  sc.ref_symbols.resize(nr + 1);
  std::uint32_t* const hs = sc.hyp_symbols.data();
  std::uint32_t* const rs = sc.ref_symbols.data();
  for (std::size_t k = 0; k < nr; ++k) rs[k] = sc.vocab.intern(ref.token(k));
  for (std::size_t k = 0; k < nh; ++k) hs[k] = sc.vocab.intern(hyp.token(k));
  const std::uint32_t vocab = sc.vocab.size();

  stats[0] = static_cast<double>(nh);
  stats[1] = static_cast<double>(nr);
  for (std::size_t n = 1; n <= max_order_; ++n) {
    stats[1 + n] = 0.0;
    stats[1 + max_order_ + n] = static_cast<double>(nh >= n ? nh - n + 1 : 0);
  }
  if (nh == 0 || nr == 0) return;

  // Order 1. correct = sum over n-grams of min(hypothesis count, reference count): each
  // hypothesis occurrence matches while its running count is within the reference's count.
  detail::zero_fill(sc.ref_count, std::size_t{vocab} + 1);
  detail::zero_fill(sc.hyp_count, std::size_t{vocab} + 1);
  std::uint32_t* rc = sc.ref_count.data();
  std::uint32_t* hc = sc.hyp_count.data();
  for (std::size_t k = 0; k < nr; ++k) ++rc[rs[k]];
  std::size_t correct = 0;
  for (std::size_t k = 0; k < nh; ++k) correct += ++hc[hs[k]] <= rc[hs[k]];
  stats[2] = static_cast<double>(correct);

  // Higher orders count only n-grams both sides can have, made of tokens both sides have: those
  // are renumbered 1..shared (0: the others), which keeps the numbering grids small. live[i] says
  // the (n-1)-gram at i occurs on the other side.
  sc.shared.resize(std::size_t{vocab} + 1);
  std::uint32_t* shared = sc.shared.data();
  std::uint32_t n_shared = 0;
  for (std::size_t v = 1; v <= vocab; ++v) shared[v] = rc[v] != 0 && hc[v] != 0 ? ++n_shared : 0;
  for (std::size_t k = 0; k < nh; ++k) hs[k] = shared[hs[k]];
  for (std::size_t k = 0; k < nr; ++k) rs[k] = shared[rs[k]];
  sc.hyp_live.resize(nh + 1);
  sc.ref_live.resize(nr + 1);
  std::uint8_t* hl = sc.hyp_live.data();
  std::uint8_t* rl = sc.ref_live.data();
  for (std::size_t k = 0; k < nh; ++k) hl[k] = hs[k] != 0;
  for (std::size_t k = 0; k < nr; ++k) rl[k] = rs[k] != 0;
  if (sc.live_ids.size() < nh + nr + 1) sc.live_ids.resize(nh + nr + 1);
  sc.hyp_ids.assign(hs, hs + nh + 1);
  sc.ref_ids.assign(rs, rs + nr + 1);
  std::uint32_t* hid = sc.hyp_ids.data();
  std::uint32_t* rid = sc.ref_ids.data();
  std::size_t n_ids = n_shared;
  for (std::size_t n = 2; n <= max_order_ && correct > 0 && nh >= n && nr >= n; ++n) {
    const std::size_t mh = nh - n + 1, mr = nr - n + 1;
    sc.numbering.start(n_ids, std::size_t{n_shared} + 1, mh);
    sc.numbering.number(mh, hid, hs + n - 1, hl, [](std::uint32_t) {});
    n_ids = sc.numbering.count();
    sc.numbering.look_up(mr, rid, rs + n - 1, rl, [](std::uint32_t) {});
    sc.numbering.finish();
    detail::zero_fill(sc.ref_count, n_ids + 1);
    detail::zero_fill(sc.hyp_count, n_ids + 1);
    rc = sc.ref_count.data();
    hc = sc.hyp_count.data();
    // Only the live positions' ids are counted (dead ones, id 0, would chain increments of one
    // counter through memory).
    std::uint32_t* live_ids = sc.live_ids.data();
    std::size_t m = compact_nonzero(rid, mr, live_ids);
    for (std::size_t j = 0; j < m; ++j) ++rc[live_ids[j]];
    m = compact_nonzero(hid, mh, live_ids);
    correct = 0;
    for (std::size_t j = 0; j < m; ++j) correct += ++hc[live_ids[j]] <= rc[live_ids[j]];
    for (std::size_t i = 0; i < mh; ++i) hl[i] = rc[hid[i]] != 0;
    stats[1 + n] = static_cast<double>(correct);
  }
}

void Bleu::prepare(std::span<const std::string_view> given, PreparedRefs& p, Scratch& sc) const {
  // The tokenized references one after another in p.text, padded.
  p.text.clear();
  auto& starts = sc.starts;
  auto& bounds = sc.ref_bounds;
  starts.clear();
  bounds.assign(1, 0);
  p.lengths.clear();
  for (std::string_view r : given) {
    const text::TokenizedLine& t = tokens(r, sc, sc.line);
    if (!p.text.empty() && t.count > 0) p.text += ' ';  // exactly one byte between tokens
    const auto offset = static_cast<std::uint32_t>(p.text.size());
    p.text += t.text;
    for (std::size_t k = 0; k < t.count; ++k) starts.push_back(offset + t.starts[k]);
    bounds.push_back(starts.size());
  }
  starts.push_back(static_cast<std::uint32_t>(p.text.size() + 1));
  p.text.append(detail::kPadding, '\0');
  const std::size_t n_refs = bounds.size() - 1;
  for (std::size_t r = 0; r < n_refs; ++r)
    p.lengths.push_back(static_cast<std::uint32_t>(bounds[r + 1] - bounds[r]));

  // Token k ends a byte before token k + 1 starts.
  const std::string_view text = p.text;
  const std::size_t n_tokens = starts.size() - 1;
  p.vocab.reset(n_tokens);
  sc.symbols.resize(n_tokens);
  for (std::size_t k = 0; k < n_tokens; ++k)
    sc.symbols[k] = p.vocab.intern(text.substr(starts[k], starts[k + 1] - 1 - starts[k]));
  p.ngrams.build(sc.symbols, bounds, p.vocab.size(), max_order_, NgramIndex::Counts::kMax);
}

}  // namespace

namespace detail {
std::vector<double> bleu_breakdown(std::span<const double> stats, std::size_t max_order,
                                   std::string_view smooth, double smooth_value,
                                   bool effective_order) {
  std::vector<double> out(2 + max_order);
  out[0] = compute_bleu(stats, max_order, parse_smooth(smooth), smooth_value, effective_order,
                        &out[1], std::span<double>(out).subspan(2));
  return out;
}
}  // namespace detail

void register_bleu(MetricRegistry& registry) {
  registry.add(MetricInfo{
      "bleu",
      "BLEU as sacreBLEU 2.x: sentence_bleu per item, corpus_bleu over items (0-100)",
      {option_choice("tokenize", "13a", {"13a", "intl", "none", "zh", "char", "ja-mecab"},
                     "sacreBLEU's tokenizer"),
       option_bool("lowercase", false, "lower-case candidate and references"),
       option_choice("smooth", "exp", {"exp", "floor", "add-k", "none"},
                     "sacreBLEU's smoothing method"),
       option_number("smooth_value", "", 0.0, 1e6,
                     "floor and add-k: the smoothing value, positive (0.1 for floor, 1 for add-k)"),
       option_int("max_ngram_order", 4, 1, static_cast<int>(kMaxOrder), "largest n-gram order"),
       option_choice("refs", "all", {"all", "first"}, "the references of each item to use"),
       option_bool("effective_order", false,
                   "corpus BLEU over the orders that have n-grams (sentence scores always do, as "
                   "sacreBLEU's sentence_bleu); the corpus signature says eff:yes/no")},
      [](const MetricSpec& spec, const MetricContext&) -> std::unique_ptr<Metric> {
        return std::make_unique<Bleu>(spec);
      }});
}

}  // namespace probity::metrics
