// Paired permutation test (PERM-BOTH of Deutsch, Dabre & Freitag 2021, as mt-metrics-eval
// PermutationSigDiff): each permutation swaps a_i and b_i with probability 1/2 per item.
//
// Conventions (see stats.hpp): no early stopping; permutations with an undefined statistic are
// left out; "at least as extreme" allows a relative slack of 1e-14, as SciPy permutation_test
// does, and at least 1e-12, so that values equal up to rounding count as ties.
#include <algorithm>
#include <cmath>
#include <limits>
#include <numeric>
#include <stdexcept>
#include <string>

#include "probity/stats.hpp"
#include "stats/kernels.hpp"
#include "util/random.hpp"

namespace probity::stats {

namespace {

constexpr double kNaN = std::numeric_limits<double>::quiet_NaN();

void check_inputs(std::size_t n, std::size_t n_b, const PermutationOptions& o) {
  if (n != n_b) {
    throw std::invalid_argument("permutation test: score vectors differ in length (" +
                                std::to_string(n) + " vs " + std::to_string(n_b) + ")");
  }
  if (n == 0) throw std::invalid_argument("permutation test: no items");
  if (o.permutations == 0) {
    throw std::invalid_argument("permutation test: permutations must be positive");
  }
  if (n >= std::numeric_limits<std::uint32_t>::max() / 2) {
    throw std::invalid_argument("permutation test: too many items");
  }
}

// Swap decisions of permutation k: one bit per item from stream (seed, k).
void draw_swaps(std::uint64_t seed, std::size_t k, std::vector<std::uint8_t>& swap) {
  util::Rng rng(seed, k);
  std::uint64_t bits = 0;
  for (std::size_t i = 0; i < swap.size(); ++i) {
    if (i % 64 == 0) bits = rng.next();
    swap[i] = static_cast<std::uint8_t>(bits & 1u);
    bits >>= 1;
  }
}

// Runs every permutation (in parallel) and counts the extreme ones in permutation order.
template <class Factory>
PermutationResult run_permutations(std::size_t n, const PermutationOptions& o, Factory&& factory) {
  PermutationResult r;
  {
    auto eval = factory();
    const std::vector<std::uint8_t> none(n, 0);
    r.delta = eval(none);
  }
  if (std::isnan(r.delta)) {
    r.p = kNaN;
    return r;
  }
  std::vector<double> values(o.permutations, kNaN);
  detail::parallel_chunks(o.permutations, o.threads, [&](std::size_t begin, std::size_t end) {
    auto eval = factory();
    std::vector<std::uint8_t> swap(n);
    for (std::size_t k = begin; k < end; ++k) {
      draw_swaps(o.seed, k, swap);
      values[k] = eval(swap);
    }
  });
  // Relative slack as SciPy's, with an absolute floor: two formulas of the same rank statistic
  // (Spearman on 16 systems moves in steps of 1/340) differ in the last bits, and a tie in exact
  // arithmetic must count whichever evaluator computed it.
  const double slack = std::max(std::abs(r.delta) * 1e-14, 1e-12);
  for (double v : values) {
    if (std::isnan(v)) continue;
    ++r.permutations;
    bool extreme = false;
    switch (o.alternative) {
      case Alternative::kTwoSided:
        extreme = std::abs(v) >= std::abs(r.delta) - slack;
        break;
      case Alternative::kGreater:
        extreme = v >= r.delta - slack;
        break;
      case Alternative::kLess:
        extreme = v <= r.delta + slack;
        break;
    }
    r.extreme += extreme;
  }
  if (r.permutations == 0) {
    r.p = kNaN;
  } else if (o.add_one) {
    r.p = static_cast<double>(r.extreme + 1) / static_cast<double>(r.permutations + 1);
  } else {
    r.p = static_cast<double>(r.extreme) / static_cast<double>(r.permutations);
  }
  return r;
}

class GenericEval {
 public:
  GenericEval(std::span<const double> a, std::span<const double> b, const PairStatistic& stat)
      : a_(a), b_(b), stat_(stat), pa_(a.size()), pb_(a.size()) {}
  double operator()(const std::vector<std::uint8_t>& swap) {
    for (std::size_t i = 0; i < a_.size(); ++i) {
      pa_[i] = swap[i] ? b_[i] : a_[i];
      pb_[i] = swap[i] ? a_[i] : b_[i];
    }
    return stat_(pa_, pb_);
  }

 private:
  std::span<const double> a_, b_;
  const PairStatistic& stat_;
  std::vector<double> pa_, pb_;
};

// Everything about a, b and the human scores that does not change between permutations.
struct CorrelationData {
  std::size_t n = 0;
  CorrelationType type = CorrelationType::kPearson;
  std::vector<double> a, b;                              // possibly standardized
  std::vector<double> hc;                                // Pearson: centered human scores
  double hss = 0.0;                                      // Pearson: sum of squares of hc
  detail::SortedView pooled;                             // rank-based: a then b, sorted together
  std::vector<std::uint32_t> pooled_item;                // item of pooled entry k (in sorted order)
  std::vector<std::uint8_t> pooled_from_b;               // 1 if pooled entry k is a b score
  std::vector<std::uint32_t> pooled_first, pooled_last;  // tie group of pooled entry k
  std::vector<double> hrank;                             // Spearman: human ranks
  std::vector<double> hrank_centered;                    // and minus their mean, (n + 1) / 2
  double hrank_ss = 0.0;                                 // and their sum of squares (exact)
  detail::SortedView human;                              // Kendall
};

// Correlation of a' and of b' with the human scores; ranks come from one walk over the pooled
// sort, so no permutation sorts anything.
class CorrelationEval {
 public:
  explicit CorrelationEval(const CorrelationData& d) : d_(d), va_(d.n), vb_(d.n) {
    for (auto& v : view_) {
      v.order.reserve(d.n);
      v.group_end.reserve(d.n);
    }
  }

  double operator()(const std::vector<std::uint8_t>& swap) {
    switch (d_.type) {
      case CorrelationType::kPearson:
        for (std::size_t i = 0; i < d_.n; ++i) {
          va_[i] = swap[i] ? d_.b[i] : d_.a[i];
          vb_[i] = swap[i] ? d_.a[i] : d_.b[i];
        }
        return pearson(va_) - pearson(vb_);
      case CorrelationType::kSpearman:
        pooled_ranks(swap);
        if (d_.n > detail::kExactRankSums) return spearman(va_) - spearman(vb_);
        return spearman_difference();
      case CorrelationType::kKendallB:
      case CorrelationType::kKendallC: {
        pooled_views(swap);
        const bool c = d_.type == CorrelationType::kKendallC;
        const auto levels = static_cast<std::uint32_t>(d_.human.group_end.size());
        // The metric's order is fixed per permutation; the Fenwick tree runs over the human
        // levels, which are few for ratings.
        const double ta = detail::tau_from_counts(
            detail::kendall_counts(view_[0], d_.human.dense, levels, {}, ks_), c);
        const double tb = detail::tau_from_counts(
            detail::kendall_counts(view_[1], d_.human.dense, levels, {}, ks_), c);
        return ta - tb;
      }
    }
    return kNaN;
  }

 private:
  double pearson(const std::vector<double>& v) const {
    double sum = 0.0, lo = v[0], hi = v[0];
    for (double x : v) {
      sum += x;
      lo = std::min(lo, x);
      hi = std::max(hi, x);
    }
    if (lo == hi) return kNaN;
    const double mean = sum / static_cast<double>(d_.n);
    double svv = 0.0, svh = 0.0;
    for (std::size_t i = 0; i < d_.n; ++i) {
      const double c = v[i] - mean;
      svv += c * c;
      svh += c * d_.hc[i];
    }
    return std::clamp(svh / std::sqrt(svv * d_.hss), -1.0, 1.0);
  }

  // spearman(va_) - spearman(vb_) in one pass, the human's centered ranks and sum of squares
  // computed once: the sums are exact (kernels.hpp), so their order does not change the bits.
  double spearman_difference() const {
    const double mean = (static_cast<double>(d_.n) + 1.0) / 2.0;
    double xa[2] = {0.0, 0.0}, ya[2] = {0.0, 0.0}, xb[2] = {0.0, 0.0}, yb[2] = {0.0, 0.0};
    auto add = [&](std::size_t lane, std::size_t i) {
      const double a = va_[i] - mean, b = vb_[i] - mean, h = d_.hrank_centered[i];
      xa[lane] += a * a;
      ya[lane] += a * h;
      xb[lane] += b * b;
      yb[lane] += b * h;
    };
    const std::size_t n2 = d_.n - d_.n % 2;
    for (std::size_t i = 0; i < n2; i += 2) {
      add(0, i);
      add(1, i + 1);
    }
    if (n2 < d_.n) add(0, n2);
    const double xxa = xa[0] + xa[1], xxb = xb[0] + xb[1];
    if (xxa == 0.0 || xxb == 0.0) return kNaN;
    const double ra = std::clamp((ya[0] + ya[1]) / std::sqrt(xxa * d_.hrank_ss), -1.0, 1.0);
    const double rb = std::clamp((yb[0] + yb[1]) / std::sqrt(xxb * d_.hrank_ss), -1.0, 1.0);
    return ra - rb;
  }

  double spearman(const std::vector<double>& rank) const {
    const double mean = (static_cast<double>(d_.n) + 1.0) / 2.0;
    const detail::RankSums s = detail::centered_rank_sums(rank, d_.hrank, mean);
    if (s.xx == 0.0) return kNaN;
    return std::clamp(s.xy / std::sqrt(s.xx * s.yy), -1.0, 1.0);
  }

  // Side of pooled entry k in this permutation: 0 = a', 1 = b'. An entry from a stays in a'
  // unless its item is swapped; an entry from b moves to a' when swapped.
  unsigned side(std::uint32_t k, const std::vector<std::uint8_t>& swap) const {
    return static_cast<unsigned>(d_.pooled_from_b[k] ^ swap[d_.pooled_item[k]]);
  }

  // Average ranks within a' and b', branch-free on the side (random per permutation, so a
  // branch would mispredict half the time). in_b_[k] counts the b' entries before pooled entry k;
  // a tie group [g, h) of the pooled sort then ranks its b' entries at
  // (in_b_[g] + in_b_[h] + 1) / 2 and its a' entries likewise with the a' counts k - in_b_[k],
  // computed per entry: a metric's scores are rarely tied, and a walk group by group costs more.
  void pooled_ranks(const std::vector<std::uint8_t>& swap) {
    const std::size_t entries = d_.pooled_item.size();
    in_b_.resize(entries + 1);
    std::uint32_t count = 0;
    for (std::uint32_t k = 0; k < entries; ++k) {
      in_b_[k] = count;
      count += side(k, swap);
    }
    in_b_[entries] = count;
    double* out[2] = {va_.data(), vb_.data()};
    for (std::uint32_t k = 0; k < entries; ++k) {
      const std::uint32_t g = d_.pooled_first[k], h = d_.pooled_last[k] + 1;
      const std::uint32_t bg = in_b_[g], bh = in_b_[h];
      const double rank[2] = {static_cast<double>((g - bg) + (h - bh) + 1) / 2.0,
                              static_cast<double>(bg + bh + 1) / 2.0};
      const unsigned s = side(k, swap);
      out[s][d_.pooled_item[k]] = rank[s];
    }
  }

  // Sorted views of a' and b' (order and tie groups only), split off the pooled sort.
  void pooled_views(const std::vector<std::uint8_t>& swap) {
    for (auto& v : view_) {
      v.order.clear();
      v.group_end.clear();
    }
    std::uint32_t start = 0;
    for (std::uint32_t end : d_.pooled.group_end) {
      std::size_t before[2] = {view_[0].order.size(), view_[1].order.size()};
      for (std::uint32_t k = start; k < end; ++k) {
        view_[side(k, swap)].order.push_back(d_.pooled_item[k]);
      }
      for (unsigned s = 0; s < 2; ++s) {
        if (view_[s].order.size() > before[s]) {
          view_[s].group_end.push_back(static_cast<std::uint32_t>(view_[s].order.size()));
        }
      }
      start = end;
    }
  }

  const CorrelationData& d_;
  std::vector<double> va_, vb_;  // values (Pearson) or average ranks (Spearman)
  std::vector<std::uint32_t> in_b_;
  detail::SortedView view_[2];  // a' and b' (Kendall)
  detail::KendallScratch ks_;
};

}  // namespace

std::vector<double> detail::zscore(std::span<const double> v) {
  const double mean = detail::numpy_mean(v);
  std::vector<double> sq(v.size());
  for (std::size_t i = 0; i < v.size(); ++i) sq[i] = (v[i] - mean) * (v[i] - mean);
  const double sd = std::sqrt(detail::numpy_mean(sq));
  std::vector<double> z(v.size());
  for (std::size_t i = 0; i < v.size(); ++i) z[i] = (v[i] - mean) / sd;
  return z;
}

PermutationResult paired_permutation_test(std::span<const double> a, std::span<const double> b,
                                          const PairStatistic& statistic,
                                          const PermutationOptions& options) {
  check_inputs(a.size(), b.size(), options);
  return run_permutations(a.size(), options, [&] { return GenericEval(a, b, statistic); });
}

PermutationResult permutation_correlation_diff(std::span<const double> a, std::span<const double> b,
                                               std::span<const double> human, CorrelationType type,
                                               const PermutationOptions& options) {
  check_inputs(a.size(), b.size(), options);
  check_inputs(a.size(), human.size(), options);
  const std::size_t n = a.size();
  PermutationResult undefined;
  undefined.p = undefined.delta = kNaN;
  // A NaN or a constant score vector leaves a correlation undefined.
  if (n < 2 || std::isnan(detail::coefficient(type, a, human)) ||
      std::isnan(detail::coefficient(type, b, human))) {
    return undefined;
  }

  CorrelationData d;
  d.n = n;
  d.type = type;
  if (options.standardize) {
    d.a = detail::zscore(a);
    d.b = detail::zscore(b);
  } else {
    d.a.assign(a.begin(), a.end());
    d.b.assign(b.begin(), b.end());
  }
  switch (type) {
    case CorrelationType::kPearson: {
      const double mean = detail::numpy_mean(human);
      d.hc.resize(n);
      for (std::size_t i = 0; i < n; ++i) {
        d.hc[i] = human[i] - mean;
        d.hss += d.hc[i] * d.hc[i];
      }
      break;
    }
    case CorrelationType::kSpearman:
    case CorrelationType::kKendallB:
    case CorrelationType::kKendallC: {
      std::vector<double> both(d.a);
      both.insert(both.end(), d.b.begin(), d.b.end());
      d.pooled = detail::make_sorted_view(both);
      for (std::uint32_t id : d.pooled.order) {
        const bool from_b = id >= n;
        d.pooled_item.push_back(static_cast<std::uint32_t>(from_b ? id - n : id));
        d.pooled_from_b.push_back(from_b);
      }
      std::uint32_t first = 0;
      for (std::uint32_t end : d.pooled.group_end) {
        for (std::uint32_t k = first; k < end; ++k) {
          d.pooled_first.push_back(first);
          d.pooled_last.push_back(end - 1);
        }
        first = end;
      }
      if (type == CorrelationType::kSpearman) {
        d.hrank = rankdata_average(human);
        const double mean = (static_cast<double>(n) + 1.0) / 2.0;
        for (double r : d.hrank) {
          d.hrank_centered.push_back(r - mean);
          d.hrank_ss += (r - mean) * (r - mean);
        }
      } else {
        d.human = detail::make_sorted_view(human);
      }
      break;
    }
  }
  return run_permutations(n, options, [&] { return CorrelationEval(d); });
}

}  // namespace probity::stats
