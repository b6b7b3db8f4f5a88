// Paired t-test (SciPy ttest_rel), the standardized mean difference with its normal CI, and the
// distribution functions behind every p-value (Boost.Math; Boost stays out of the public header).
#include <algorithm>
#include <boost/math/distributions/normal.hpp>
#include <boost/math/distributions/students_t.hpp>
#include <cmath>
#include <limits>
#include <stdexcept>
#include <string>
#include <vector>

#include "probity/stats.hpp"
#include "stats/boost_policy.hpp"
#include "stats/kernels.hpp"

namespace probity::stats {

namespace {

constexpr double kNaN = std::numeric_limits<double>::quiet_NaN();
constexpr double kInf = std::numeric_limits<double>::infinity();

// Report every failure as a value (NaN, 0, inf) instead of throwing; callers check NaN.
using Policy = detail::IgnoreErrors;

// Sample variance as SciPy's _var: mean of squared deviations times n / (n - 1).
double sample_variance(std::span<const double> v, double mean) {
  std::vector<double> sq(v.size());
  for (std::size_t i = 0; i < v.size(); ++i) {
    const double d = v[i] - mean;
    sq[i] = d * d;
  }
  const double n = static_cast<double>(v.size());
  return detail::numpy_mean(sq) * (n / (n - 1.0));
}

}  // namespace

double normal_cdf(double x) {
  if (std::isnan(x)) return kNaN;
  if (std::isinf(x)) return x > 0 ? 1.0 : 0.0;
  return boost::math::cdf(boost::math::normal_distribution<double, Policy>(), x);
}

double normal_ppf(double p) {
  if (std::isnan(p) || p < 0.0 || p > 1.0) return kNaN;
  if (p == 0.0) return -kInf;
  if (p == 1.0) return kInf;
  return boost::math::quantile(boost::math::normal_distribution<double, Policy>(), p);
}

double student_t_cdf(double t, double df) {
  if (std::isnan(t) || std::isnan(df) || df <= 0.0) return kNaN;
  if (std::isinf(df)) return normal_cdf(t);
  if (std::isinf(t)) return t > 0 ? 1.0 : 0.0;
  return boost::math::cdf(boost::math::students_t_distribution<double, Policy>(df), t);
}

// sqrt((var_pert + var_orig) / 2) with sample variances.
double pooled_sd(std::span<const double> perturbed, std::span<const double> original) {
  return std::sqrt((sample_variance(perturbed, detail::numpy_mean(perturbed)) +
                    sample_variance(original, detail::numpy_mean(original))) /
                   2.0);
}

PairedTResult paired_t(std::span<const double> perturbed, std::span<const double> original) {
  if (perturbed.size() != original.size()) {
    throw std::invalid_argument("paired_t: perturbed and original differ in length (" +
                                std::to_string(perturbed.size()) + " vs " +
                                std::to_string(original.size()) + ")");
  }
  PairedTResult r;
  r.n = perturbed.size();
  if (r.n < 2) {
    r.mean_delta = r.n == 1 ? perturbed[0] - original[0] : kNaN;
    r.sd_delta = r.t = r.df = r.p_two_sided = r.p_less = r.p_greater = kNaN;
    r.smd = r.smd_ci_half_width = r.pooled_sd = kNaN;
    return r;
  }
  const double n = static_cast<double>(r.n);
  std::vector<double> delta(r.n);
  for (std::size_t i = 0; i < r.n; ++i) delta[i] = perturbed[i] - original[i];

  r.df = n - 1.0;
  r.mean_delta = detail::numpy_mean(delta);
  const double var_delta = sample_variance(delta, r.mean_delta);
  r.sd_delta = std::sqrt(var_delta);
  // 0/0 (no variation at all) stays NaN: the test is undefined, as in SciPy.
  r.t = r.mean_delta / std::sqrt(var_delta / n);
  r.p_less = student_t_cdf(r.t, r.df);
  r.p_greater = student_t_cdf(-r.t, r.df);
  r.p_two_sided = student_t_cdf(-std::abs(r.t), r.df) * 2.0;

  r.smd = smd(perturbed, original);
  r.pooled_sd = pooled_sd(perturbed, original);
  r.smd_ci_half_width =
      std::isfinite(r.smd) ? normal_ppf(0.975) * (r.sd_delta / std::sqrt(n)) / r.pooled_sd : kNaN;
  return r;
}

PairedEquivalence paired_equivalence(const PairedTResult& test, double margin) {
  PairedEquivalence e{kNaN, kNaN};
  const double se = test.sd_delta / std::sqrt(static_cast<double>(test.n));
  if (test.n < 2 || !std::isfinite(test.mean_delta) || !(se >= 0.0) ||
      !std::isfinite(test.pooled_sd))
    return e;
  const double bound = margin * test.pooled_sd;
  // P(T <= x / se): with differences that do not vary the statistic is +-inf (p 0 or 1, as
  // SciPy gives), and undefined only at 0 / 0.
  auto cdf = [&](double x) {
    if (se > 0.0) return student_t_cdf(x / se, test.df);
    return x < 0.0 ? 0.0 : x > 0.0 ? 1.0 : kNaN;
  };
  e.p_above_lower = cdf(-(test.mean_delta + bound));
  e.p_below_upper = cdf(test.mean_delta - bound);
  return e;
}

double smd(std::span<const double> perturbed, std::span<const double> original,
           std::span<const std::size_t> idx) {
  std::vector<double> scratch;
  if (!idx.empty()) {
    std::vector<double> p, o;
    p.reserve(idx.size());
    o.reserve(idx.size());
    for (std::size_t i : idx) {
      p.push_back(perturbed[i]);
      o.push_back(original[i]);
    }
    return detail::smd(p, o, scratch);
  }
  return detail::smd(perturbed, original, scratch);
}

double detail::smd(std::span<const double> perturbed, std::span<const double> original,
                   std::vector<double>& squares) {
  if (perturbed.size() < 2 || perturbed.size() != original.size()) return kNaN;
  const double mean_p = numpy_mean(perturbed);
  const double mean_o = numpy_mean(original);
  // pooled_sd's arithmetic, each mean computed once.
  auto variance = [&](std::span<const double> v, double mean) {
    squares.resize(v.size());
    for (std::size_t i = 0; i < v.size(); ++i) {
      const double d = v[i] - mean;
      squares[i] = d * d;
    }
    const double n = static_cast<double>(v.size());
    return numpy_mean(squares) * (n / (n - 1.0));
  };
  const double var_p = variance(perturbed, mean_p);
  const double pooled = std::sqrt((var_p + variance(original, mean_o)) / 2.0);
  const double scale = std::max({1.0, std::abs(mean_p), std::abs(mean_o)});
  if (!(pooled > 1e-12 * scale)) return kNaN;  // zero up to rounding, or NaN input
  return (mean_p - mean_o) / pooled;
}

}  // namespace probity::stats
