// BLEU exactly as sacreBLEU 2.x computes it: `sentence_bleu` (effective order) for item scores and
// `corpus_bleu` for corpus scores, both from the per-item statistics
// [sys_len, ref_len, correct_1..N, total_1..N].
//
// Speed: tokens are interned to small integer ids and n-grams become 64-bit keys (ids packed into
// one word, or numbered level by level when they do not fit), counted in flat open-addressing
// tables kept in thread_local scratch, so no n-gram string is ever built; n-grams that cannot
// occur on the other side (a sub-n-gram does not) are skipped.
#include <fmt/format.h>

#include <algorithm>
#include <cmath>
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
#include "probity/text.hpp"

namespace probity::metrics {

namespace detail {
std::vector<double> bleu_breakdown(std::span<const double> stats, std::size_t max_order,
                                   std::string_view smooth, double smooth_value,
                                   bool effective_order);
}  // namespace detail

namespace {

using detail::lower;
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

struct Scratch {
  std::vector<std::string> texts;  // preprocessed references, then the hypothesis
  std::vector<std::string_view> tokens;
  std::vector<std::size_t> bounds;  // sequence s spans tokens [bounds[s], bounds[s + 1])
  std::vector<std::uint32_t> ids;   // token ids, 1..vocab
  std::vector<std::uint32_t> nid;   // id of the current-order n-gram at each position
  // live[i]: the n-gram at i occurs on the other side (hypothesis vs. some reference). An n-gram
  // can only do so if both its (n-1)-grams do, so the others are skipped.
  std::vector<std::uint8_t> live;
  // Counts by n-gram id: hypothesis count, maximum over references, count in the reference
  // being read and that reference's tag, occurs-in-some-reference flag.
  std::vector<std::uint32_t> hyp_count, ref_max, ref_cur, ref_tag;
  std::vector<std::uint8_t> in_ref;
  NgramNumbering ngrams;
  StrInterner vocab;
};

// Splits the output of a sacreBLEU tokenizer: tokens separated by single spaces.
void split_spaces(std::string_view s, std::vector<std::string_view>& out) {
  std::size_t start = 0;
  for (std::size_t i = 0; i < s.size(); ++i) {
    if (s[i] != ' ') continue;
    if (i > start) out.push_back(s.substr(start, i - start));
    start = i + 1;
  }
  if (s.size() > start) out.push_back(s.substr(start));
}

// ---- the metric --------------------------------------------------------------------------------

enum class Tokenizer { k13a, kIntl, kNone };
enum class Smooth { kExp, kFloor, kAddK, kNone };

constexpr double kLogZero = -9999999999.0;  // sacreBLEU's my_log(0)

Smooth parse_smooth(std::string_view s) {
  if (s == "exp") return Smooth::kExp;
  if (s == "floor") return Smooth::kFloor;
  if (s == "add-k") return Smooth::kAddK;
  if (s == "none") return Smooth::kNone;
  throw UsageError(fmt::format("bleu: smooth={} is not one of exp, floor, add-k, none", s));
}

// sacreBLEU's BLEU.compute_bleu; fills bp and precisions when given.
double compute_bleu(std::span<const double> stats, std::size_t max_order, Smooth smooth,
                    double smooth_value, bool effective_order, double* bp_out,
                    std::span<double> precisions_out) {
  const double sys_len = stats[0];
  const double ref_len = stats[1];
  std::vector<double> correct(stats.begin() + 2, stats.begin() + 2 + max_order);
  std::vector<double> total(stats.begin() + 2 + max_order, stats.begin() + 2 + 2 * max_order);
  std::vector<double> precisions(max_order, 0.0);

  double bp = 1.0;
  if (sys_len < ref_len) bp = sys_len > 0 ? std::exp(1 - ref_len / sys_len) : 0.0;
  if (bp_out) *bp_out = bp;
  auto finish = [&](double score) {
    std::copy(precisions.begin(), precisions.end(), precisions_out.begin());
    return score;
  };
  // No match at all: 0 whatever the smoothing (sacreBLEU #141).
  if (std::all_of(correct.begin(), correct.end(), [](double c) { return c == 0; }))
    return finish(0.0);

  double smooth_mteval = 1.0;
  std::size_t eff_order = max_order;
  for (std::size_t n = 1; n <= max_order; ++n) {
    if (smooth == Smooth::kAddK && n > 1) {
      correct[n - 1] += smooth_value;
      total[n - 1] += smooth_value;
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

class Bleu final : public Metric {
 public:
  explicit Bleu(const MetricSpec& spec) : name_(spec.text()) {
    const std::string tok = spec.get("tokenize");  // a choice of the option table
    tokenizer_ = tok == "intl"   ? Tokenizer::kIntl
                 : tok == "none" ? Tokenizer::kNone
                                 : Tokenizer::k13a;
    tok_name_ = tok;
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
  }

  std::string name() const override { return name_; }
  std::string signature() const override {
    std::string smooth = smooth_name_;
    if (smooth_ == Smooth::kFloor || smooth_ == Smooth::kAddK)
      smooth += fmt::format("[{:.2f}]", smooth_value_);
    Signature s("bleu");
    s.field("nrefs", first_ref_only_ ? "first" : "all")
        .field("case", lowercase_ ? "lc" : "mixed")
        .field("eff", "yes")
        .field("tok", tok_name_)
        .field("smooth", smooth);
    if (max_order_ != 4) s.field("ngram", max_order_);
    return s.versioned();
  }
  std::size_t num_stats() const override { return 2 + 2 * max_order_; }

  void item_stats(const MetricInput& input, std::span<double> stats) const override;

  void sentence_score(std::span<const double> stats, std::span<double> parts) const override {
    std::vector<double> precisions(max_order_);
    parts[0] = compute_bleu(stats, max_order_, smooth_, smooth_value_, true, nullptr, precisions);
  }
  void corpus_score(std::span<const double> stats, std::span<double> parts) const override {
    std::vector<double> precisions(max_order_);
    parts[0] = compute_bleu(stats, max_order_, smooth_, smooth_value_, false, nullptr, precisions);
  }

 private:
  // sacreBLEU's BLEU._preprocess_segment: lowercase, rstrip, tokenize.
  std::string preprocess(std::string_view line) const {
    std::string lowered;
    if (lowercase_) {
      lowered = lower(line);
      line = lowered;
    }
    line = rstrip(line);
    switch (tokenizer_) {
      case Tokenizer::k13a:
        return text::tokenize_13a(line);
      case Tokenizer::kIntl:
        return text::tokenize_intl(line);
      case Tokenizer::kNone:
        break;
    }
    return std::string(line);
  }

  std::string name_;
  Tokenizer tokenizer_ = Tokenizer::k13a;
  std::string tok_name_;
  bool lowercase_ = false;
  std::string smooth_name_;
  Smooth smooth_ = Smooth::kExp;
  double smooth_value_ = 1.0;
  std::size_t max_order_ = 4;
  bool first_ref_only_ = false;
};

void Bleu::item_stats(const MetricInput& input, std::span<double> stats) const {
  if (input.references.empty()) throw std::invalid_argument(name_ + ": item has no reference");
  thread_local Scratch sc;

  // References as sacreBLEU keeps them: empty ones are dropped, unless all are empty, in which
  // case one empty reference remains (sacreBLEU would refuse the item).
  const std::size_t n_given = first_ref_only_ ? 1 : input.references.size();
  std::size_t n_refs = 0;
  if (sc.texts.size() < n_given + 1) sc.texts.resize(n_given + 1);
  for (std::size_t r = 0; r < n_given; ++r)
    if (!input.references[r].empty()) sc.texts[n_refs++] = preprocess(input.references[r]);
  if (n_refs == 0) sc.texts[n_refs++].clear();
  sc.texts[n_refs] = preprocess(input.candidate);
  const std::size_t n_seqs = n_refs + 1;

  sc.tokens.clear();
  sc.bounds.assign(1, 0);
  for (std::size_t s = 0; s < n_seqs; ++s) {
    if (tokenizer_ == Tokenizer::kNone) {
      detail::split_py(sc.texts[s], [&](std::string_view w) { sc.tokens.push_back(w); });
    } else {
      split_spaces(sc.texts[s], sc.tokens);
    }
    sc.bounds.push_back(sc.tokens.size());
  }
  const std::size_t n_tokens = sc.tokens.size();
  sc.vocab.prepare(n_tokens);
  sc.ids.resize(n_tokens);
  for (std::size_t i = 0; i < n_tokens; ++i) sc.ids[i] = sc.vocab.intern(sc.tokens[i]);
  const std::uint32_t vocab = sc.vocab.size();
  sc.vocab.clear();

  const std::size_t hyp_begin = sc.bounds[n_refs];
  const std::size_t hyp_len = n_tokens - hyp_begin;
  stats[0] = static_cast<double>(hyp_len);

  // Closest reference length, ties to the shorter one.
  std::size_t closest_diff = 0, closest_len = 0;
  for (std::size_t r = 0; r < n_refs; ++r) {
    const std::size_t len = sc.bounds[r + 1] - sc.bounds[r];
    const std::size_t diff = len > hyp_len ? len - hyp_len : hyp_len - len;
    if (r == 0 || diff < closest_diff) {
      closest_diff = diff;
      closest_len = len;
    } else if (diff == closest_diff && len < closest_len) {
      closest_len = len;
    }
  }
  stats[1] = static_cast<double>(closest_len);
  for (std::size_t n = 1; n <= max_order_; ++n) {
    stats[1 + n] = 0.0;
    stats[1 + max_order_ + n] = static_cast<double>(hyp_len >= n ? hyp_len - n + 1 : 0);
  }

  // Order 1 is the token ids themselves; higher orders number the hypothesis n-grams densely
  // (NgramNumbering) and references only look theirs up.
  // correct = sum over n-grams of min(hypothesis count, maximum count over references).
  const std::size_t width = std::size_t{vocab} + 1;
  sc.nid.assign(sc.ids.begin(), sc.ids.end());
  sc.live.resize(n_tokens + 1);
  // Raw pointers in locals: byte stores would otherwise force reloading the vectors' data.
  const std::uint32_t* ids = sc.ids.data();
  const std::size_t* bounds = sc.bounds.data();
  std::uint32_t* nid = sc.nid.data();
  std::uint8_t* live = sc.live.data();
  std::size_t n_ids = vocab;

  // Per-reference counting into the maximum over references, and which n-grams references have.
  auto count_refs = [&](std::size_t n) {
    sc.ref_max.assign(n_ids + 1, 0);
    sc.ref_cur.assign(n_ids + 1, 0);
    sc.ref_tag.assign(n_ids + 1, 0);
    sc.in_ref.assign(n_ids + 1, 0);
    std::uint32_t* ref_max = sc.ref_max.data();
    std::uint32_t* ref_cur = sc.ref_cur.data();
    std::uint32_t* ref_tag = sc.ref_tag.data();
    std::uint8_t* in_ref = sc.in_ref.data();
    for (std::size_t r = 0; r < n_refs; ++r) {
      const auto tag = static_cast<std::uint32_t>(r + 1);
      for (std::size_t i = bounds[r]; i + n <= bounds[r + 1]; ++i) {
        const std::uint32_t id = nid[i];
        const std::uint32_t cur = ref_tag[id] == tag ? ref_cur[id] + 1 : 1;
        ref_cur[id] = cur;
        ref_tag[id] = tag;
        ref_max[id] = std::max(ref_max[id], cur);
        in_ref[id] = 1;
      }
    }
    in_ref[0] = 0;
    ref_max[0] = 0;
  };

  // Order 1.
  sc.hyp_count.assign(width, 0);
  for (std::size_t i = hyp_begin; i < n_tokens; ++i) ++sc.hyp_count[ids[i]];
  count_refs(1);
  std::size_t correct = 0;
  for (std::size_t id = 1; id < width; ++id) correct += std::min(sc.hyp_count[id], sc.ref_max[id]);
  for (std::size_t i = 0; i < hyp_begin; ++i) live[i] = sc.hyp_count[ids[i]] != 0;
  for (std::size_t i = hyp_begin; i < n_tokens; ++i) live[i] = sc.in_ref[ids[i]];
  stats[2] = static_cast<double>(correct);

  for (std::size_t n = 2; n <= max_order_ && correct > 0; ++n) {
    if (hyp_len < n) break;
    const std::size_t n_hyp = hyp_len - n + 1;
    sc.ngrams.start(n_ids, width, n_hyp);
    // Hypothesis: number the live n-grams. References: look up.
    sc.ngrams.number(n_hyp, nid + hyp_begin, ids + hyp_begin + n - 1, live + hyp_begin,
                     [](std::uint32_t) {});
    n_ids = sc.ngrams.count();
    for (std::size_t r = 0; r < n_refs; ++r) {
      const std::size_t len = bounds[r + 1] - bounds[r];
      if (len < n) continue;
      sc.ngrams.look_up(len - n + 1, nid + bounds[r], ids + bounds[r] + n - 1, live + bounds[r],
                        [](std::uint32_t) {});
    }
    sc.ngrams.finish();

    sc.hyp_count.assign(n_ids + 1, 0);
    for (std::size_t i = hyp_begin; i + n <= n_tokens; ++i) ++sc.hyp_count[nid[i]];
    count_refs(n);
    correct = 0;
    for (std::size_t id = 1; id <= n_ids; ++id)
      correct += std::min(sc.hyp_count[id], sc.ref_max[id]);
    for (std::size_t i = hyp_begin; i + n <= n_tokens; ++i) live[i] = sc.in_ref[nid[i]];
    stats[1 + n] = static_cast<double>(correct);
  }
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
      {option_choice("tokenize", "13a", {"13a", "intl", "none"}, "sacreBLEU's tokenizer"),
       option_bool("lowercase", false, "lower-case candidate and references"),
       option_choice("smooth", "exp", {"exp", "floor", "add-k", "none"},
                     "sacreBLEU's smoothing method"),
       option_number("smooth_value", "", 0.0, 1e6,
                     "floor and add-k: the smoothing value, positive (0.1 for floor, 1 for add-k)"),
       option_int("max_ngram_order", 4, 1, 64, "largest n-gram order"),
       option_choice("refs", "all", {"all", "first"}, "the references of each item to use")},
      [](const MetricSpec& spec, Engine&) -> std::unique_ptr<Metric> {
        return std::make_unique<Bleu>(spec);
      }});
}

}  // namespace probity::metrics
