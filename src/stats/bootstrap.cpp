// Bootstrap confidence intervals: items (or whole clusters of items) resampled with replacement,
// percentile and BCa intervals computed as SciPy 1.10 `bootstrap` does.
#include <algorithm>
#include <cmath>
#include <concepts>
#include <limits>
#include <numeric>
#include <stdexcept>
#include <string>
#include <unordered_map>

#include "probity/stats.hpp"
#include "stats/kernels.hpp"
#include "util/random.hpp"

namespace probity::stats {

namespace {

constexpr double kNaN = std::numeric_limits<double>::quiet_NaN();

// Items grouped by cluster: members[start[c] .. start[c+1]) are the items of cluster c.
struct Clusters {
  std::vector<std::size_t> members;
  std::vector<std::size_t> start;
  std::size_t count() const { return start.size() - 1; }
};

Clusters make_clusters(std::size_t n, const std::vector<std::size_t>& labels) {
  Clusters c;
  if (labels.empty()) {
    c.members.resize(n);
    std::iota(c.members.begin(), c.members.end(), std::size_t{0});
    c.start.resize(n + 1);
    std::iota(c.start.begin(), c.start.end(), std::size_t{0});
    return c;
  }
  if (labels.size() != n) {
    throw std::invalid_argument("bootstrap: " + std::to_string(labels.size()) +
                                " cluster labels for " + std::to_string(n) + " items");
  }
  // Clusters numbered by first appearance, so the result does not depend on label values.
  std::unordered_map<std::size_t, std::size_t> id;
  std::vector<std::size_t> cluster_of(n), sizes;
  for (std::size_t i = 0; i < n; ++i) {
    const auto [it, fresh] = id.try_emplace(labels[i], sizes.size());
    if (fresh) sizes.push_back(0);
    cluster_of[i] = it->second;
    ++sizes[it->second];
  }
  c.start.assign(sizes.size() + 1, 0);
  for (std::size_t k = 0; k < sizes.size(); ++k) c.start[k + 1] = c.start[k] + sizes[k];
  c.members.resize(n);
  std::vector<std::size_t> fill(c.start.begin(), c.start.end() - 1);
  for (std::size_t i = 0; i < n; ++i) c.members[fill[cluster_of[i]]++] = i;
  return c;
}

void check_options(std::size_t n, const BootstrapOptions& o) {
  if (n < 2) throw std::invalid_argument("bootstrap: need at least 2 items");
  if (o.resamples == 0) throw std::invalid_argument("bootstrap: resamples must be positive");
  if (!(o.confidence > 0.0 && o.confidence < 1.0)) {
    throw std::invalid_argument("bootstrap: confidence must be in (0, 1)");
  }
  if (n >= std::numeric_limits<std::uint32_t>::max()) {
    throw std::invalid_argument("bootstrap: too many items");
  }
}

// Resample b: as many clusters as there are, drawn with replacement from stream (seed, b).
void draw(const Clusters& c, std::uint64_t seed, std::size_t b, std::vector<std::size_t>& out) {
  util::Rng rng(seed, b);
  out.clear();
  const auto k = static_cast<std::uint32_t>(c.count());
  if (c.members.size() == k) {  // singleton clusters, members in item order
    for (std::uint32_t j = 0; j < k; ++j) out.push_back(c.members[rng.below(k)]);
    return;
  }
  for (std::uint32_t j = 0; j < k; ++j) {
    const std::uint32_t pick = rng.below(k);
    out.insert(out.end(), c.members.begin() + static_cast<std::ptrdiff_t>(c.start[pick]),
               c.members.begin() + static_cast<std::ptrdiff_t>(c.start[pick + 1]));
  }
}

// Evaluators that can take a resample item by item, in drawn order (begin(), add(item)...,
// finish()), and say up to which resample size they can.
template <class Eval>
concept StreamingEval = requires(Eval e, std::size_t i) {
  e.begin();
  e.add(i);
  { e.finish() } -> std::convertible_to<double>;
  { Eval::streams(i) } -> std::convertible_to<bool>;
};

// Evaluates the statistic on every resample; `factory()` builds one evaluator per thread (its
// scratch buffers are reused across resamples).
template <class Factory>
std::vector<double> resample_values(const Clusters& c, const BootstrapOptions& o,
                                    Factory&& factory) {
  std::vector<double> values(o.resamples, kNaN);
  detail::parallel_chunks(o.resamples, o.threads, [&](std::size_t begin, std::size_t end) {
    auto eval = factory();
    using Eval = decltype(eval);
    if constexpr (StreamingEval<Eval>) {
      const auto k = static_cast<std::uint32_t>(c.count());
      if (c.members.size() == k && Eval::streams(k)) {
        // Singleton clusters (whose members are 0, 1, ... in order): draw() without the index
        // list.
        for (std::size_t b = begin; b < end; ++b) {
          util::Rng rng(o.seed, b);
          eval.begin();
          for (std::uint32_t j = 0; j < k; ++j) eval.add(rng.below(k));
          values[b] = eval.finish();
        }
        return;
      }
    }
    std::vector<std::size_t> indices;
    indices.reserve(c.members.size() * 2);
    for (std::size_t b = begin; b < end; ++b) {
      draw(c, o.seed, b, indices);
      values[b] = eval(std::span<const std::size_t>(indices));
    }
  });
  return values;
}

// Leave-one-cluster-out values for the BCa acceleration.
template <class Factory>
std::vector<double> jackknife_values(const Clusters& c, unsigned threads, Factory&& factory) {
  std::vector<double> values(c.count(), kNaN);
  detail::parallel_chunks(c.count(), threads, [&](std::size_t begin, std::size_t end) {
    auto eval = factory();
    std::vector<std::size_t> indices;
    indices.reserve(c.members.size());
    for (std::size_t j = begin; j < end; ++j) {
      // Members are stored cluster by cluster: skip one contiguous range.
      const auto first = c.members.begin();
      indices.assign(first, first + static_cast<std::ptrdiff_t>(c.start[j]));
      indices.insert(indices.end(), first + static_cast<std::ptrdiff_t>(c.start[j + 1]),
                     c.members.end());
      values[j] = eval(std::span<const std::size_t>(indices));
    }
  });
  return values;
}

std::vector<double> defined(std::span<const double> v) {
  std::vector<double> out;
  out.reserve(v.size());
  for (double a : v) {
    if (!std::isnan(a)) out.push_back(a);
  }
  return out;
}

std::vector<double> finite_sorted(std::span<const double> v) {
  std::vector<double> out = defined(v);
  std::sort(out.begin(), out.end());
  return out;
}

// np.percentile(a, level * 100) with the default linear method, a sorted. SciPy passes the level
// in percent and NumPy divides it by 100 again; the round trip is kept for identical indices.
double percentile_sorted(const std::vector<double>& a, double level) {
  if (a.empty() || std::isnan(level)) return kNaN;
  const double q = (level * 100.0) / 100.0;
  const double n = static_cast<double>(a.size());
  const double virtual_index = (n - 1.0) * q;
  if (virtual_index >= n - 1.0) return a.back();
  if (virtual_index < 0.0) return a.front();
  const double previous = std::floor(virtual_index);
  const auto i = static_cast<std::size_t>(previous);
  const double lo = a[i], hi = a[i + 1], t = virtual_index - previous;
  // NumPy's _lerp: interpolate from the nearer end.
  const double diff = hi - lo;
  return t >= 0.5 ? hi - diff * (1.0 - t) : lo + diff * t;
}

// np.std(ddof=1) of the defined values, in resample order.
double standard_error(const std::vector<double>& values) {
  if (values.size() < 2) return kNaN;
  const double mean = detail::numpy_mean(values);
  std::vector<double> sq(values.size());
  for (std::size_t i = 0; i < values.size(); ++i) sq[i] = (values[i] - mean) * (values[i] - mean);
  return std::sqrt(detail::numpy_sum(sq) / static_cast<double>(values.size() - 1));
}

template <class Factory>
BootstrapResult run_bootstrap(std::size_t n, double estimate, const BootstrapOptions& o,
                              Factory&& factory) {
  const Clusters clusters = make_clusters(n, o.clusters);
  BootstrapResult r;
  r.estimate = estimate;
  r.distribution = resample_values(clusters, o, factory);
  const std::vector<double> values = defined(r.distribution);
  r.undefined = r.distribution.size() - values.size();
  r.standard_error = standard_error(values);
  if (o.method == CiMethod::kBCa) {
    if (clusters.count() < 2) {
      r.ci = {kNaN, kNaN};
    } else {
      const std::vector<double> jack = jackknife_values(clusters, o.threads, factory);
      r.ci = bca_interval(estimate, r.distribution, jack, o.confidence);
    }
  } else {
    r.ci = percentile_interval(r.distribution, o.confidence);
  }
  return r;
}

// Correlation of a weighted sample for the fast resampling paths.
struct CorrelationData {
  std::span<const double> x, y;
  CorrelationType type;
  detail::SortedView sx, sy;  // rank-based types only
};

class CorrelationEval {
 public:
  explicit CorrelationEval(const CorrelationData& d)
      : d_(d), w_(d.x.size()), rx_(d.x.size()), ry_(d.x.size()) {}

  double operator()(std::span<const std::size_t> indices) {
    std::fill(w_.begin(), w_.end(), 0u);
    for (std::size_t i : indices) ++w_[i];
    switch (d_.type) {
      case CorrelationType::kPearson:
        return detail::weighted_pearson(d_.x, d_.y, w_);
      case CorrelationType::kSpearman:
        return spearman();
      case CorrelationType::kKendallB:
      case CorrelationType::kKendallC:
        return detail::tau_from_counts(
            detail::kendall_counts(d_.sx, d_.sy.dense,
                                   static_cast<std::uint32_t>(d_.sy.group_end.size()), w_,
                                   kendall_),
            d_.type == CorrelationType::kKendallC);
    }
    return kNaN;
  }

 private:
  // Pearson on weighted average ranks; their mean is (N + 1) / 2 exactly and every term is a
  // multiple of 1/4, so the sums are exact.
  double spearman() {
    const std::uint64_t total = detail::weighted_average_ranks(d_.sx, w_, rx_);
    detail::weighted_average_ranks(d_.sy, w_, ry_);
    const double mean = (static_cast<double>(total) + 1.0) / 2.0;
    const detail::RankSums s = detail::centered_rank_sums(rx_, ry_, mean, w_);  // w = 0 vanish
    if (s.xx == 0.0 || s.yy == 0.0) return kNaN;
    return std::max(-1.0, std::min(1.0, s.xy / std::sqrt(s.xx * s.yy)));
  }

  const CorrelationData& d_;
  std::vector<std::uint32_t> w_;
  std::vector<double> rx_, ry_;
  detail::KendallScratch kendall_;
};

// ---- Spearman from multiplicities ------------------------------------------------------------
//
// Spearman's rho between x and each y_d over the items where both are finite. Those items are
// numbered once by their place in x's order (their "slot"); a resample is then a multiplicity per
// slot, its ranks come from walking x's tie groups and y's, and every rank sum is exact
// (kernels.hpp), so any order of summation gives the bits of the materialised resample.
// Dimensions with the same defined items share the slots and x's ranks.
struct RankMask {
  std::vector<std::size_t> dims;
  std::uint32_t size = 0;           // defined items; slot `size` collects the others
  std::vector<std::uint32_t> slot;  // per item
  std::vector<std::uint32_t> x_group_first, x_group_last;  // per slot: its tie group in x
  std::vector<std::vector<std::uint32_t>> y_order;         // per dimension: the slots in y's order
  std::vector<std::vector<std::uint32_t>> y_group_end;     // y's tie groups along y_order
};

enum class RhoFormula {
  kCorrcoef,  // spearman_rho's: cxy / sqrt(cyy) / sqrt(cxx), each sum over n - 1 (the mean row)
  kRatio,     // sxy / sqrt(sxx * syy) (bootstrap_correlation's)
};

struct RankData {
  std::span<const double> x;
  std::span<const std::vector<double>> ys;
  RhoFormula formula = RhoFormula::kCorrcoef;
  std::vector<RankMask> masks;
};

RankData rank_data(std::span<const double> x, std::span<const std::vector<double>> ys,
                   RhoFormula formula) {
  RankData data{x, ys, formula, {}};
  std::vector<std::vector<std::uint8_t>> defined_sets;
  for (std::size_t d = 0; d < ys.size(); ++d) {
    std::vector<std::uint8_t> defined(x.size());
    for (std::size_t i = 0; i < x.size(); ++i)
      defined[i] = std::isfinite(x[i]) && std::isfinite(ys[d][i]);
    const auto same = std::find(defined_sets.begin(), defined_sets.end(), defined);
    if (same != defined_sets.end()) {
      data.masks[static_cast<std::size_t>(same - defined_sets.begin())].dims.push_back(d);
      continue;
    }
    defined_sets.push_back(std::move(defined));
    data.masks.emplace_back().dims.push_back(d);
  }
  for (std::size_t k = 0; k < data.masks.size(); ++k) {
    RankMask& m = data.masks[k];
    std::vector<std::uint32_t> items;
    std::vector<double> values;
    for (std::size_t i = 0; i < x.size(); ++i)
      if (defined_sets[k][i]) {
        items.push_back(static_cast<std::uint32_t>(i));
        values.push_back(x[i]);
      }
    m.size = static_cast<std::uint32_t>(items.size());
    const detail::SortedView sx = detail::make_sorted_view(values);
    m.slot.assign(x.size(), m.size);
    for (std::uint32_t s = 0; s < m.size; ++s) m.slot[items[sx.order[s]]] = s;
    m.x_group_first.resize(m.size);
    m.x_group_last.resize(m.size);
    std::uint32_t first = 0;
    for (std::uint32_t end : sx.group_end) {
      for (std::uint32_t s = first; s < end; ++s) {
        m.x_group_first[s] = first;
        m.x_group_last[s] = end - 1;
      }
      first = end;
    }
    for (std::size_t d : m.dims) {
      for (std::size_t j = 0; j < items.size(); ++j) values[j] = ys[d][items[j]];
      const detail::SortedView sy = detail::make_sorted_view(values);
      std::vector<std::uint32_t> order;
      order.reserve(items.size());
      for (std::uint32_t local : sy.order) order.push_back(m.slot[items[local]]);
      m.y_order.push_back(std::move(order));
      m.y_group_end.push_back(sy.group_end);
    }
  }
  return data;
}

// The values at the given items (with repetitions, in that order) where both are finite.
void defined_pairs(std::span<const double> a, std::span<const double> b,
                   std::span<const std::size_t> idx, std::vector<double>& x,
                   std::vector<double>& y) {
  x.clear();
  y.clear();
  for (std::size_t i : idx)
    if (std::isfinite(a[i]) && std::isfinite(b[i])) {
      x.push_back(a[i]);
      y.push_back(b[i]);
    }
}

// The mean of spearman() over the dimensions on the materialised resample: the definition.
double materialised_mean_spearman(std::span<const double> x,
                                  std::span<const std::vector<double>> ys,
                                  std::span<const std::size_t> indices) {
  std::vector<double> bx, by;
  double sum = 0;
  for (const auto& y : ys) {
    defined_pairs(x, y, indices, bx, by);
    sum += spearman(bx, by).statistic;
  }
  return sum / static_cast<double>(ys.size());
}

// Resamples are given either as indices or, faster, item by item: begin(), add(item)...,
// finish(). kCorrcoef: the mean over the dimensions (NaN when one is undefined); kRatio: one
// dimension, no NaN scores.
class RankEval {
 public:
  explicit RankEval(const RankData& d)
      : d_(d), w_(d.masks.size()), rho_(d.ys.size()), slot0_(d.masks[0].slot.data()) {}

  // Resamples of up to kExactRankSums items have exact sums; larger ones are materialised.
  static bool streams(std::size_t resample_size) { return resample_size <= detail::kExactRankSums; }

  void begin() {
    for (std::size_t k = 0; k < w_.size(); ++k) w_[k].assign(d_.masks[k].size + 1, 0);
    w0_ = w_[0].data();
  }
  void add(std::size_t item) {
    if (w_.size() == 1) {  // the usual case: every dimension rates the same items
      ++w0_[slot0_[item]];
      return;
    }
    for (std::size_t k = 0; k < w_.size(); ++k) ++w_[k][d_.masks[k].slot[item]];
  }
  double finish() {
    for (std::size_t k = 0; k < w_.size(); ++k)
      if (!mask(d_.masks[k], w_[k])) return kNaN;  // an undefined rho makes the mean undefined
    if (d_.formula == RhoFormula::kRatio) return rho_[0];
    double sum = 0;
    for (double r : rho_) sum += r;
    return sum / static_cast<double>(rho_.size());
  }

  double operator()(std::span<const std::size_t> indices) {
    if (!streams(indices.size())) return materialised_mean_spearman(d_.x, d_.ys, indices);
    begin();
    for (std::size_t i : indices) add(i);
    return finish();
  }

 private:
  // The rho of the mask's dimensions from the slots' multiplicities; false when one is undefined.
  bool mask(const RankMask& m, const std::vector<std::uint32_t>& w) {
    // before_[s]: the multiplicity of the slots before s; a tie group [b, e) of x has average rank
    // (before_[b] + before_[e] + 1) / 2, computed per slot (a metric's scores are rarely tied).
    before_.resize(m.size + 1);
    std::int64_t total = 0;  // signed: converts to double in one instruction
    for (std::uint32_t s = 0; s < m.size; ++s) {
      before_[s] = total;
      total += w[s];
    }
    before_[m.size] = total;
    if (total < 2) return false;
    const double mean = (static_cast<double>(total) + 1.0) / 2.0;
    // x's centered average ranks times the multiplicity, per slot; four partial sums of squares.
    weighted_.resize(m.size);
    double xx[4] = {0.0, 0.0, 0.0, 0.0};
    auto centered = [&](std::uint32_t s) {
      const double a =
          static_cast<double>(before_[m.x_group_first[s]] + before_[m.x_group_last[s] + 1] + 1) /
              2.0 -
          mean;
      const double wa = static_cast<double>(w[s]) * a;
      weighted_[s] = {wa, static_cast<std::int64_t>(w[s])};
      return wa * a;
    };
    const std::uint32_t n4 = m.size - m.size % 4;
    for (std::uint32_t s = 0; s < n4; s += 4)
      for (std::uint32_t lane = 0; lane < 4; ++lane) xx[lane] += centered(s + lane);
    for (std::uint32_t s = n4; s < m.size; ++s) xx[0] += centered(s);
    const double sxx = (xx[0] + xx[1]) + (xx[2] + xx[3]);
    std::int64_t before = 0;
    std::uint32_t start = 0;
    if (sxx == 0.0) return false;  // x constant in the resample
    for (std::size_t j = 0; j < m.dims.size(); ++j) {
      // Per tie group of y: its multiplicity and the sum of x's weighted centered ranks in it;
      // four partial sums, as the group can be long (a rating scale has few levels).
      const std::uint32_t* order = m.y_order[j].data();
      double syy = 0, sxy = 0;
      before = 0;
      start = 0;
      for (std::uint32_t end : m.y_group_end[j]) {
        std::int64_t group = 0;
        double p[4] = {0.0, 0.0, 0.0, 0.0};
        std::uint32_t s = start;
        for (; s + 4 <= end; s += 4)
          for (std::uint32_t lane = 0; lane < 4; ++lane) {
            const Weighted& v = weighted_[order[s + lane]];
            group += v.w;
            p[lane] += v.wa;
          }
        for (; s < end; ++s) {
          group += weighted_[order[s]].w;
          p[0] += weighted_[order[s]].wa;
        }
        const double b = static_cast<double>(before) + static_cast<double>(group + 1) / 2.0 - mean;
        syy += static_cast<double>(group) * b * b;
        sxy += b * ((p[0] + p[1]) + (p[2] + p[3]));
        before += group;
        start = end;
      }
      if (syy == 0.0) return false;  // y constant in the resample
      double rho;
      if (d_.formula == RhoFormula::kRatio) {
        rho = sxy / std::sqrt(sxx * syy);
      } else {
        const double scale = 1.0 / static_cast<double>(total - 1);
        const double cxx = sxx * scale, cyy = syy * scale, cxy = sxy * scale;
        rho = cxy / std::sqrt(cyy) / std::sqrt(cxx);
      }
      rho_[m.dims[j]] = std::max(-1.0, std::min(1.0, rho));
    }
    return true;
  }

  const RankData& d_;
  std::vector<std::vector<std::uint32_t>> w_;  // per mask: multiplicity per slot
  // Per slot: x's centered rank times the multiplicity, and the multiplicity, side by side so
  // that the walks along y's order (random access) read one cache line per slot.
  struct Weighted {
    double wa;
    std::int64_t w;
  };
  std::vector<Weighted> weighted_;
  std::vector<double> rho_;
  std::vector<std::int64_t> before_;
  const std::uint32_t* slot0_;   // the first mask's slots
  std::uint32_t* w0_ = nullptr;  // and multiplicities
};

// stats::smd of a resample, gathered in drawn order (its sums are NumPy's pairwise ones, so the
// order decides the bits) into buffers reused across resamples.
class SmdEval {
 public:
  SmdEval(std::span<const double> perturbed, std::span<const double> original)
      : perturbed_(perturbed), original_(original) {}

  static bool streams(std::size_t) { return true; }
  void begin() { size_ = 0; }
  void add(std::size_t i) {
    if (size_ == p_.size()) {  // only in the first resamples
      p_.push_back(0.0);
      o_.push_back(0.0);
    }
    p_[size_] = perturbed_[i];
    o_[size_++] = original_[i];
  }
  double finish() {
    return detail::smd(std::span<const double>(p_).first(size_),
                       std::span<const double>(o_).first(size_), squares_);
  }

  double operator()(std::span<const std::size_t> indices) {
    begin();
    for (std::size_t i : indices) add(i);
    return finish();
  }

 private:
  std::span<const double> perturbed_, original_;
  std::vector<double> p_, o_, squares_;
  std::size_t size_ = 0;
};

}  // namespace

ConfidenceInterval percentile_interval(std::span<const double> distribution, double confidence) {
  const std::vector<double> sorted = finite_sorted(distribution);
  const double alpha = (1.0 - confidence) / 2.0;
  return {percentile_sorted(sorted, alpha), percentile_sorted(sorted, 1.0 - alpha)};
}

ConfidenceInterval bca_interval(double estimate, std::span<const double> distribution,
                                std::span<const double> jackknife, double confidence) {
  const std::vector<double> sorted = finite_sorted(distribution);
  const std::vector<double> jack = defined(jackknife);  // SciPy sums in item order
  if (sorted.empty() || jack.size() < 2 || std::isnan(estimate)) return {kNaN, kNaN};

  // Bias correction: where the estimate falls in the bootstrap distribution ("mean" percentile).
  const auto below = std::lower_bound(sorted.begin(), sorted.end(), estimate) - sorted.begin();
  const auto at_most = std::upper_bound(sorted.begin(), sorted.end(), estimate) - sorted.begin();
  const double z0 =
      normal_ppf(static_cast<double>(below + at_most) / (2.0 * static_cast<double>(sorted.size())));

  // Acceleration from the jackknife (Efron & Tibshirani 1993, eq. 14.15).
  const double nj = static_cast<double>(jack.size());
  const double jmean = detail::numpy_mean(jack);
  std::vector<double> cube(jack.size()), square(jack.size());
  for (std::size_t i = 0; i < jack.size(); ++i) {
    const double u = (nj - 1.0) * (jmean - jack[i]);
    cube[i] = std::pow(u, 3.0);
    square[i] = u * u;
  }
  const double num = detail::numpy_sum(cube) / std::pow(nj, 3.0);
  const double den = detail::numpy_sum(square) / std::pow(nj, 2.0);
  const double a_hat = 1.0 / 6.0 * num / std::pow(den, 1.5);

  const double alpha = (1.0 - confidence) / 2.0;
  const double z_alpha = normal_ppf(alpha);
  const double num1 = z0 + z_alpha;
  const double alpha_1 = normal_cdf(z0 + num1 / (1.0 - a_hat * num1));
  const double num2 = z0 - z_alpha;
  const double alpha_2 = normal_cdf(z0 + num2 / (1.0 - a_hat * num2));
  return {percentile_sorted(sorted, alpha_1), percentile_sorted(sorted, alpha_2)};
}

BootstrapResult bootstrap(std::size_t n, const IndexStatistic& statistic,
                          const BootstrapOptions& options) {
  check_options(n, options);
  std::vector<std::size_t> all(n);
  std::iota(all.begin(), all.end(), std::size_t{0});
  const double estimate = statistic(all);
  return run_bootstrap(n, estimate, options, [&] { return std::cref(statistic); });
}

BootstrapResult bootstrap_correlation(std::span<const double> x, std::span<const double> y,
                                      CorrelationType type, const BootstrapOptions& options) {
  check_options(x.size(), options);
  const double estimate = detail::coefficient(type, x, y);  // checks lengths
  if (detail::any_nan(x) || detail::any_nan(y)) {
    throw std::invalid_argument("bootstrap_correlation: NaN in the scores");
  }
  auto finite = [](std::span<const double> v) {
    return std::all_of(v.begin(), v.end(), [](double a) { return std::isfinite(a); });
  };
  if (type == CorrelationType::kSpearman && options.clusters.empty() &&
      RankEval::streams(x.size()) && finite(x) && finite(y)) {
    // Every resample has n items: multiplicities per slot, exact sums.
    const std::vector<double> ys[] = {std::vector<double>(y.begin(), y.end())};
    const RankData data = rank_data(x, ys, RhoFormula::kRatio);
    return run_bootstrap(x.size(), estimate, options, [&] { return RankEval(data); });
  }
  CorrelationData data{x, y, type, {}, {}};
  if (type != CorrelationType::kPearson) {
    data.sx = detail::make_sorted_view(x);
    data.sy = detail::make_sorted_view(y);
  }
  return run_bootstrap(x.size(), estimate, options, [&] { return CorrelationEval(data); });
}

BootstrapResult bootstrap_mean_spearman(std::span<const double> x,
                                        std::span<const std::vector<double>> ys,
                                        const BootstrapOptions& options) {
  check_options(x.size(), options);
  if (ys.empty()) throw std::invalid_argument("bootstrap_mean_spearman: no dimension");
  for (const auto& y : ys)
    if (y.size() != x.size())
      throw std::invalid_argument("bootstrap_mean_spearman: x and y differ in length");
  std::vector<std::size_t> all(x.size());
  std::iota(all.begin(), all.end(), std::size_t{0});
  const double estimate = materialised_mean_spearman(x, ys, all);
  const RankData data = rank_data(x, ys, RhoFormula::kCorrcoef);
  return run_bootstrap(x.size(), estimate, options, [&] { return RankEval(data); });
}

BootstrapResult bootstrap_smd(std::span<const double> perturbed, std::span<const double> original,
                              const BootstrapOptions& options) {
  check_options(perturbed.size(), options);
  if (perturbed.size() != original.size())
    throw std::invalid_argument("bootstrap_smd: perturbed and original differ in length");
  return run_bootstrap(perturbed.size(), smd(perturbed, original), options,
                       [&] { return SmdEval(perturbed, original); });
}

}  // namespace probity::stats
