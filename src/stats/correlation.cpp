// Pearson, Spearman and Kendall correlations with SciPy 1.10's p-values, and the weighted kernels
// the resampling loops use. The unweighted functions follow SciPy's order of floating-point
// operations where it decides exact results (r = +-1, an exactly zero mean).
#include <algorithm>
#include <array>
#include <boost/math/distributions/beta.hpp>
#include <cmath>
#include <limits>
#include <numeric>
#include <stdexcept>
#include <string>

#include "probity/stats.hpp"
#include "stats/kernels.hpp"
#include "util/enum_names.hpp"

namespace probity::stats {

namespace {

constexpr double kNaN = std::numeric_limits<double>::quiet_NaN();

void check_pair(std::span<const double> x, std::span<const double> y) {
  if (x.size() != y.size()) {
    throw std::invalid_argument("correlation: x and y differ in length (" +
                                std::to_string(x.size()) + " vs " + std::to_string(y.size()) + ")");
  }
  if (x.size() >= std::numeric_limits<std::uint32_t>::max()) {
    throw std::invalid_argument("correlation: too many items");
  }
}

bool is_constant(std::span<const double> v) {
  return std::all_of(v.begin(), v.end(), [&](double a) { return a == v[0]; });
}

double clip_unit(double r) {
  return std::max(-1.0, std::min(1.0, r));
}

double sign(double v) {
  return static_cast<double>((v > 0) - (v < 0));
}

// Two-sided p of the beta distribution of r under the null (SciPy pearsonr).
double pearson_p(double r, std::size_t n) {
  using namespace boost::math::policies;
  using Policy = policy<domain_error<ignore_error>, overflow_error<ignore_error>,
                        evaluation_error<ignore_error>>;
  const double ab = static_cast<double>(n) / 2.0 - 1.0;
  const double x = (std::abs(r) - (-1.0)) / 2.0;  // SciPy's loc = -1, scale = 2
  if (x >= 1.0) return 0.0;
  const boost::math::beta_distribution<double, Policy> dist(ab, ab);
  return 2.0 * boost::math::cdf(boost::math::complement(dist, x));
}

double pearson_r(std::span<const double> x, std::span<const double> y) {
  const std::size_t n = x.size();
  if (n == 2) return sign(x[1] - x[0]) * sign(y[1] - y[0]);
  const double xmean = detail::numpy_mean(x);
  const double ymean = detail::numpy_mean(y);
  std::vector<double> xm(n), ym(n);
  for (std::size_t i = 0; i < n; ++i) {
    xm[i] = x[i] - xmean;
    ym[i] = y[i] - ymean;
  }
  double sxx = 0.0, syy = 0.0;
  for (std::size_t i = 0; i < n; ++i) {
    sxx += xm[i] * xm[i];
    syy += ym[i] * ym[i];
  }
  const double nx = std::sqrt(sxx), ny = std::sqrt(syy);
  // SciPy normalizes each vector before the dot product; this keeps r = +-1 exact.
  double r = 0.0;
  for (std::size_t i = 0; i < n; ++i) r += (xm[i] / nx) * (ym[i] / ny);
  return clip_unit(r);
}

bool degenerate(std::span<const double> x, std::span<const double> y) {
  return x.size() < 2 || detail::any_nan(x) || detail::any_nan(y) || is_constant(x) ||
         is_constant(y);
}

// np.corrcoef of the average ranks (rows centered, X X^T / (n - 1), then divided by each
// standard deviation in turn). Centered ranks are multiples of 1/2, so the sums are exact.
double spearman_rho(std::span<const double> x, std::span<const double> y) {
  const std::size_t n = x.size();
  std::vector<double> rx = rankdata_average(x), ry = rankdata_average(y);
  const double mx = detail::numpy_mean(rx), my = detail::numpy_mean(ry);
  double sxx = 0.0, syy = 0.0, sxy = 0.0;
  for (std::size_t i = 0; i < n; ++i) {
    const double a = rx[i] - mx, b = ry[i] - my;
    sxx += a * a;
    syy += b * b;
    sxy += a * b;
  }
  const double scale = 1.0 / static_cast<double>(n - 1);
  const double cxx = sxx * scale, cyy = syy * scale, cxy = sxy * scale;
  return clip_unit(cxy / std::sqrt(cyy) / std::sqrt(cxx));
}

// Dense ranks (0-based tie-group index) per item.
struct KendallInput {
  detail::SortedView x, y;
};

detail::KendallCounts kendall_counts_of(const KendallInput& in) {
  detail::KendallScratch scratch;
  return detail::kendall_counts(in.x, in.y.dense, static_cast<std::uint32_t>(in.y.group_end.size()),
                                {}, scratch);
}

// SciPy mstats_basic._kendall_p_exact, two-sided. c = number of concordant pairs (no ties).
double kendall_p_exact(std::int64_t n, std::int64_t c) {
  const std::int64_t pairs = n * (n - 1) / 2;
  c = std::min(c, pairs - c);
  auto factorial = [](std::int64_t k) {
    double f = 1.0;
    for (std::int64_t i = 2; i <= k; ++i) f *= static_cast<double>(i);
    return f;
  };
  double prob;
  if (n <= 2) {
    prob = 1.0;
  } else if (c == 0) {
    prob = n < 171 ? 2.0 / factorial(n) : 0.0;
  } else if (c == 1) {
    prob = n < 172 ? 2.0 / factorial(n - 1) : 0.0;
  } else if (4 * c == n * (n - 1)) {
    prob = 1.0;
  } else {
    // Number of permutations of n items with k inversions, k <= c (Kendall 1970).
    const auto len = static_cast<std::size_t>(c + 1);
    std::vector<double> counts(len, 0.0);
    counts[0] = counts[1] = 1.0;
    for (std::int64_t j = 3; j <= n; ++j) {
      std::partial_sum(counts.begin(), counts.end(), counts.begin());
      if (n >= 171) {
        for (auto& v : counts) v /= static_cast<double>(j);
      }
      if (j <= c) {
        // new[j:] -= new[:c+1-j] with the old values: walk downwards.
        for (auto k = static_cast<std::size_t>(c); k >= static_cast<std::size_t>(j); --k) {
          counts[k] -= counts[k - static_cast<std::size_t>(j)];
        }
      }
    }
    prob = n < 171 ? 2.0 * detail::numpy_sum(counts) / factorial(n) : detail::numpy_sum(counts);
  }
  return std::clamp(prob, 0.0, 1.0);
}

// Tie statistics of one variable: sum over tie groups of t(t-1)(t-2) and t(t-1)(2t+5).
std::pair<double, double> tie_sums(const detail::SortedView& v) {
  double t0 = 0.0, t1 = 0.0;
  std::uint32_t start = 0;
  for (std::uint32_t end : v.group_end) {
    const double t = static_cast<double>(end - start);
    if (end - start > 1) {
      t0 += t * (t - 1.0) * (t - 2.0);
      t1 += t * (t - 1.0) * (2.0 * t + 5.0);
    }
    start = end;
  }
  return {t0, t1};
}

CorrelationResult kendall(std::span<const double> x, std::span<const double> y, bool variant_c) {
  check_pair(x, y);
  if (degenerate(x, y)) return {kNaN, kNaN};
  const KendallInput in{detail::make_sorted_view(x), detail::make_sorted_view(y)};
  const detail::KendallCounts c = kendall_counts_of(in);
  if (c.u_tie == c.tot || c.v_tie == c.tot) return {kNaN, kNaN};
  const double tau = detail::tau_from_counts(c, variant_c);

  const std::int64_t size = c.size;
  const bool exact = c.u_tie == 0 && c.v_tie == 0 &&
                     (size <= 33 || std::min(c.discordant, c.tot - c.discordant) <= 1);
  double p;
  if (exact) {
    p = kendall_p_exact(size, c.tot - c.discordant);
  } else {
    const auto [x0, x1] = tie_sums(in.x);
    const auto [y0, y1] = tie_sums(in.y);
    const double s = static_cast<double>(size);
    const double m = s * (s - 1.0);
    const double var = (m * (2.0 * s + 5.0) - x1 - y1) / 18.0 +
                       (2.0 * static_cast<double>(c.u_tie) * static_cast<double>(c.v_tie)) / m +
                       x0 * y0 / (9.0 * m * (s - 2.0));
    const std::int64_t con_minus_dis = c.tot - c.u_tie - c.v_tie + c.joint_tie - 2 * c.discordant;
    const double z = static_cast<double>(con_minus_dis) / std::sqrt(var);
    p = 2.0 * normal_cdf(-std::abs(z));
  }
  return {tau, p};
}

}  // namespace

namespace detail {

double numpy_sum(std::span<const double> v) {
  const std::size_t n = v.size();
  if (n < 8) {
    double res = 0.0;
    for (double a : v) res += a;
    return res;
  }
  if (n <= 128) {
    double r[8];
    for (std::size_t j = 0; j < 8; ++j) r[j] = v[j];
    std::size_t i = 8;
    for (; i < n - (n % 8); i += 8) {
      for (std::size_t j = 0; j < 8; ++j) r[j] += v[i + j];
    }
    double res = ((r[0] + r[1]) + (r[2] + r[3])) + ((r[4] + r[5]) + (r[6] + r[7]));
    for (; i < n; ++i) res += v[i];
    return res;
  }
  std::size_t n2 = n / 2;
  n2 -= n2 % 8;
  return numpy_sum(v.first(n2)) + numpy_sum(v.subspan(n2));
}

bool any_nan(std::span<const double> v) {
  return std::any_of(v.begin(), v.end(), [](double a) { return std::isnan(a); });
}

SortedView make_sorted_view(std::span<const double> v) {
  SortedView s;
  const auto n = static_cast<std::uint32_t>(v.size());
  s.order.resize(n);
  std::iota(s.order.begin(), s.order.end(), 0u);
  std::stable_sort(s.order.begin(), s.order.end(),
                   [&](std::uint32_t a, std::uint32_t b) { return v[a] < v[b]; });
  s.dense.resize(n);
  for (std::uint32_t k = 0; k < n; ++k) {
    if (k > 0 && v[s.order[k]] != v[s.order[k - 1]]) s.group_end.push_back(k);
    s.dense[s.order[k]] = static_cast<std::uint32_t>(s.group_end.size());
  }
  if (n > 0) s.group_end.push_back(n);
  return s;
}

std::uint64_t weighted_average_ranks(const SortedView& view, std::span<const std::uint32_t> w,
                                     std::span<double> rank) {
  // Branch-free: a group of weight 0 gets a (finite, unused) rank, which is cheaper than a
  // mispredicted test when a third of the items are missing from a resample.
  std::uint64_t before = 0;
  std::uint32_t start = 0;
  for (std::uint32_t end : view.group_end) {
    std::uint64_t group = 0;
    for (std::uint32_t k = start; k < end; ++k) group += w[view.order[k]];
    // Mean of positions before+1 .. before+group.
    const double r = static_cast<double>(before) + static_cast<double>(group + 1) / 2.0;
    for (std::uint32_t k = start; k < end; ++k) rank[view.order[k]] = r;
    before += group;
    start = end;
  }
  return before;
}

RankSums centered_rank_sums(std::span<const double> x, std::span<const double> y, double mean,
                            std::span<const std::uint32_t> w) {
  double xx[4] = {0.0, 0.0, 0.0, 0.0}, yy[4] = {0.0, 0.0, 0.0, 0.0}, xy[4] = {0.0, 0.0, 0.0, 0.0};
  auto weight = [&](std::size_t i) { return w.empty() ? 1.0 : static_cast<double>(w[i]); };
  auto add = [&](std::size_t lane, std::size_t i) {
    const double a = x[i] - mean, b = y[i] - mean, wa = weight(i) * a;
    xx[lane] += wa * a;
    yy[lane] += weight(i) * b * b;
    xy[lane] += wa * b;
  };
  const std::size_t n = x.size(), n4 = n - n % 4;
  for (std::size_t i = 0; i < n4; i += 4) {
    for (std::size_t lane = 0; lane < 4; ++lane) add(lane, i + lane);
  }
  for (std::size_t i = n4; i < n; ++i) add(0, i);
  return {(xx[0] + xx[1]) + (xx[2] + xx[3]), (yy[0] + yy[1]) + (yy[2] + yy[3]),
          (xy[0] + xy[1]) + (xy[2] + xy[3])};
}

double weighted_pearson(std::span<const double> x, std::span<const double> y,
                        std::span<const std::uint32_t> w) {
  // Items with weight 0 contribute 0 to every sum, so the loops need no branch (x, y finite).
  std::size_t first = 0;
  while (first < x.size() && w[first] == 0) ++first;
  if (first == x.size()) return kNaN;
  double total = 0.0, sx = 0.0, sy = 0.0;
  bool x_varies = false, y_varies = false;
  for (std::size_t i = first; i < x.size(); ++i) {
    const double wi = w[i];
    total += wi;
    sx += wi * x[i];
    sy += wi * y[i];
    x_varies |= (w[i] != 0 && x[i] != x[first]);
    y_varies |= (w[i] != 0 && y[i] != y[first]);
  }
  // Exact test: the rounding of a constant variable's mean must not make a tiny variance.
  if (!x_varies || !y_varies) return kNaN;
  const double mx = sx / total, my = sy / total;
  double sxx = 0.0, syy = 0.0, sxy = 0.0;
  for (std::size_t i = first; i < x.size(); ++i) {
    const double wi = w[i], a = x[i] - mx, b = y[i] - my;
    sxx += wi * a * a;
    syy += wi * b * b;
    sxy += wi * a * b;
  }
  return clip_unit(sxy / std::sqrt(sxx * syy));
}

KendallCounts kendall_counts(const SortedView& u, std::span<const std::uint32_t> v_dense,
                             std::uint32_t v_levels, std::span<const std::uint32_t> w,
                             KendallScratch& scratch) {
  auto& tree = scratch.fenwick;
  auto& level = scratch.level_weight;
  auto& in_group = scratch.group_weight;
  tree.assign(v_levels + 1, 0);
  level.assign(v_levels, 0);
  in_group.assign(v_levels, 0);
  const bool unit = w.empty();
  auto weight = [&](std::uint32_t i) -> std::int64_t { return unit ? 1 : w[i]; };
  // Weight already inserted with dense v rank <= r.
  auto prefix = [&](std::uint32_t r) {
    std::int64_t s = 0;
    for (std::uint32_t k = r + 1; k > 0; k &= k - 1) s += tree[k];
    return s;
  };
  auto add = [&](std::uint32_t r, std::int64_t value) {
    for (std::uint32_t k = r + 1; k <= v_levels; k += k & (~k + 1)) tree[k] += value;
  };

  KendallCounts c;
  std::int64_t inserted = 0;
  std::uint32_t start = 0;
  for (std::uint32_t end : u.group_end) {
    std::int64_t group = 0;
    // Pairs with a smaller u already inserted; discordant when their v is larger. Pairs inside
    // the group are u-ties; those with equal v are joint ties.
    for (std::uint32_t k = start; k < end; ++k) {
      const std::uint32_t i = u.order[k];
      const std::int64_t wi = weight(i);
      if (wi == 0) continue;
      const std::uint32_t r = v_dense[i];
      c.discordant += wi * (inserted - prefix(r));
      c.joint_tie += in_group[r] * wi + wi * (wi - 1) / 2;
      in_group[r] += wi;
      group += wi;
    }
    for (std::uint32_t k = start; k < end; ++k) {
      const std::uint32_t i = u.order[k];
      const std::int64_t wi = weight(i);
      if (wi == 0) continue;
      const std::uint32_t r = v_dense[i];
      add(r, wi);
      in_group[r] = 0;
      level[r] += wi;
    }
    inserted += group;
    c.u_tie += group * (group - 1) / 2;
    c.u_classes += group > 0;
    start = end;
  }
  for (std::int64_t t : level) {
    c.v_tie += t * (t - 1) / 2;
    c.v_classes += t > 0;
  }
  c.size = inserted;
  c.tot = inserted * (inserted - 1) / 2;
  return c;
}

double tau_from_counts(const KendallCounts& c, bool variant_c) {
  if (c.u_tie == c.tot || c.v_tie == c.tot) return kNaN;
  const std::int64_t con_minus_dis = c.tot - c.u_tie - c.v_tie + c.joint_tie - 2 * c.discordant;
  double tau;
  if (!variant_c) {
    tau = static_cast<double>(con_minus_dis) / std::sqrt(static_cast<double>(c.tot - c.u_tie)) /
          std::sqrt(static_cast<double>(c.tot - c.v_tie));
  } else {
    const double classes = static_cast<double>(std::min(c.u_classes, c.v_classes));
    const double size = static_cast<double>(c.size);
    tau = 2.0 * static_cast<double>(con_minus_dis) / (size * size * (classes - 1.0) / classes);
  }
  return clip_unit(tau);
}

double coefficient(CorrelationType type, std::span<const double> x, std::span<const double> y) {
  check_pair(x, y);
  if (degenerate(x, y)) return kNaN;
  switch (type) {
    case CorrelationType::kPearson:
      return pearson_r(x, y);
    case CorrelationType::kSpearman:
      return spearman_rho(x, y);
    case CorrelationType::kKendallB:
    case CorrelationType::kKendallC: {
      const KendallInput in{make_sorted_view(x), make_sorted_view(y)};
      return tau_from_counts(kendall_counts_of(in), type == CorrelationType::kKendallC);
    }
  }
  return kNaN;
}

}  // namespace detail

std::vector<double> rankdata_average(std::span<const double> x) {
  std::vector<double> ranks(x.size(), kNaN);
  if (detail::any_nan(x)) return ranks;  // SciPy's nan_policy="propagate"
  const detail::SortedView view = detail::make_sorted_view(x);
  std::uint32_t start = 0;
  for (std::uint32_t end : view.group_end) {
    const double r = 0.5 * (static_cast<double>(end) + static_cast<double>(start) + 1.0);
    for (std::uint32_t k = start; k < end; ++k) ranks[view.order[k]] = r;
    start = end;
  }
  return ranks;
}

CorrelationResult pearson(std::span<const double> x, std::span<const double> y) {
  check_pair(x, y);
  if (degenerate(x, y)) return {kNaN, kNaN};
  const double r = pearson_r(x, y);
  if (x.size() == 2) return {r, 1.0};
  return {r, pearson_p(r, x.size())};
}

CorrelationResult spearman(std::span<const double> x, std::span<const double> y) {
  check_pair(x, y);
  if (degenerate(x, y)) return {kNaN, kNaN};
  const double rs = spearman_rho(x, y);
  const double dof = static_cast<double>(x.size()) - 2.0;
  // SciPy clips the ratio at 0 before the square root; r = +-1 gives t = +-inf, p = 0.
  double ratio = dof / ((rs + 1.0) * (1.0 - rs));
  if (ratio < 0.0) ratio = 0.0;
  const double t = rs * std::sqrt(ratio);
  return {rs, student_t_cdf(-std::abs(t), dof) * 2.0};
}

CorrelationResult kendall_tau_b(std::span<const double> x, std::span<const double> y) {
  return kendall(x, y, false);
}

CorrelationResult kendall_tau_c(std::span<const double> x, std::span<const double> y) {
  return kendall(x, y, true);
}

namespace {
// "kendall" is τ-b; "kendall-c" is how the level statistics spell τ-c (accepted here too).
constexpr auto kCorrelationNames = std::to_array<util::EnumName<CorrelationType>>({
    {CorrelationType::kPearson, "pearson"},
    {CorrelationType::kSpearman, "spearman"},
    {.value = CorrelationType::kKendallB, .name = "kendall", .printed = false},
    {CorrelationType::kKendallB, "kendall_b"},
    {CorrelationType::kKendallC, "kendall_c"},
    {.value = CorrelationType::kKendallC, .name = "kendall-c", .printed = false, .listed = false},
});
}  // namespace

CorrelationType parse_correlation_type(std::string_view name) {
  if (const auto type = util::parse_enum(kCorrelationNames, name)) return *type;
  throw std::invalid_argument("unknown correlation '" + std::string(name) + "' (" +
                              util::listed_names(kCorrelationNames) + ")");
}

std::string_view correlation_name(CorrelationType type) {
  return util::name_of(kCorrelationNames, type);
}

CorrelationResult correlation(CorrelationType type, std::span<const double> x,
                              std::span<const double> y) {
  switch (type) {
    case CorrelationType::kPearson:
      return pearson(x, y);
    case CorrelationType::kSpearman:
      return spearman(x, y);
    case CorrelationType::kKendallB:
      return kendall_tau_b(x, y);
    case CorrelationType::kKendallC:
      return kendall_tau_c(x, y);
  }
  return {kNaN, kNaN};
}

}  // namespace probity::stats
