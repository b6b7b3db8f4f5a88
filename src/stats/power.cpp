// Power analysis of the paired t-test (statsmodels TTestPower) and of the difference of two
// independent correlations (Fisher z, statsmodels NormalIndPower). Definitions:
// include/probity/stats.hpp; reference: tests/golden/gen/power.py.
#include <algorithm>
#include <boost/math/distributions/non_central_t.hpp>
#include <boost/math/distributions/normal.hpp>
#include <boost/math/distributions/students_t.hpp>
#include <boost/math/tools/roots.hpp>
#include <cmath>
#include <cstdint>
#include <exception>
#include <functional>
#include <limits>

#include "probity/stats.hpp"
#include "stats/boost_policy.hpp"

namespace probity::stats {
namespace {

constexpr double kNaN = std::numeric_limits<double>::quiet_NaN();

// Failures come back as values (NaN, 0, inf), never as exceptions; callers check NaN.
using Policy = detail::IgnoreErrors;

bool valid_alpha(double alpha) {
  return alpha > 0 && alpha < 1;
}

double clamp01(double p) {
  return std::isnan(p) ? p : std::min(1.0, std::max(0.0, p));
}

// The one-sided level of each tail tested (statsmodels halves alpha for two-sided).
double tail_alpha(double alpha, Alternative alternative) {
  return alternative == Alternative::kTwoSided ? alpha / 2 : alpha;
}

bool upper_tail(Alternative a) {
  return a != Alternative::kLess;
}
bool lower_tail(Alternative a) {
  return a != Alternative::kGreater;
}

double normal_power(double shift, double alpha, Alternative alternative) {
  const boost::math::normal_distribution<double, Policy> z;
  const double a = tail_alpha(alpha, alternative);
  double power = 0;
  if (upper_tail(alternative)) {
    const double crit = boost::math::quantile(boost::math::complement(z, a));
    power += boost::math::cdf(boost::math::complement(z, crit - shift));
  }
  if (lower_tail(alternative)) {
    const double crit = boost::math::quantile(z, a);
    power += boost::math::cdf(z, crit - shift);
  }
  return power;
}

// The root of the increasing-in-x function f on [lo, hi] with f(lo) < 0 <= f(hi), to a few ulp.
double solve_increasing(const std::function<double(double)>& f, double lo, double hi, double f_lo,
                        double f_hi) {
  if (f_hi == 0) return hi;
  std::uintmax_t iterations = 500;
  const auto [a, b] = boost::math::tools::toms748_solve(
      f, lo, hi, f_lo, f_hi,
      boost::math::tools::eps_tolerance<double>(std::numeric_limits<double>::digits - 2),
      iterations, Policy());
  return a + (b - a) / 2;
}

// Where the increasing g reaches 0 in [lo, inf): hi doubles from `start` until g(hi) >= 0. NaN
// when g(lo) >= 0 (reached already at lo), or g stays negative (or NaN) up to `limit`.
double solve_upward(const std::function<double(double)>& g, double lo, double start, double limit) {
  const double g_lo = g(lo);
  if (!(g_lo < 0)) return kNaN;
  double a = lo, g_a = g_lo, b = start, g_b = g(b);
  while (!(g_b >= 0)) {
    if (std::isnan(g_b) || b >= limit) return kNaN;
    a = b;
    g_a = g_b;
    b *= 2;
    g_b = g(b);
  }
  return solve_increasing(g, a, b, g_a, g_b);
}

}  // namespace

double ttest_power(double effect_size, double nobs, double alpha, Alternative alternative) {
  if (!(nobs > 1) || !valid_alpha(alpha) || std::isnan(effect_size)) return kNaN;
  const double df = nobs - 1;
  const double a = tail_alpha(alpha, alternative);
  const boost::math::students_t_distribution<double, Policy> t(df);
  const boost::math::non_central_t_distribution<double, Policy> nct(df,
                                                                    effect_size * std::sqrt(nobs));
  // SciPy clips each tail of the noncentral t to [0, 1]; statsmodels adds the clipped tails.
  double power = 0;
  try {
    if (upper_tail(alternative)) {
      const double crit = boost::math::quantile(boost::math::complement(t, a));
      power += clamp01(boost::math::cdf(boost::math::complement(nct, crit)));
    }
    if (lower_tail(alternative)) {
      const double crit = boost::math::quantile(t, a);
      power += clamp01(boost::math::cdf(nct, crit));
    }
  } catch (const std::exception&) {
    // Boost's series counts terms in an int: ncp^2 / 2 >= 2^31 (ncp >= 65,536) is beyond it,
    // and beyond SciPy, which aborts there.
    return kNaN;
  }
  return power;
}

double ttest_nobs(double effect_size, double power, double alpha, Alternative alternative) {
  if (!(effect_size != 0) || std::isnan(effect_size) || !(power > 0 && power < 1) ||
      !valid_alpha(alpha))
    return kNaN;
  if ((alternative == Alternative::kGreater && effect_size < 0) ||
      (alternative == Alternative::kLess && effect_size > 0))
    return kNaN;  // the power falls towards 0 as n grows
  const auto gap = [&](double n) {
    return ttest_power(effect_size, n, alpha, alternative) - power;
  };
  // statsmodels searches n >= 2 (df >= 1); beyond 1e15 items no study is planned.
  return solve_upward(gap, 2.0, 4.0, 1e15);
}

double ttest_mde(double nobs, double power, double alpha, Alternative alternative) {
  if (!(nobs > 1) || !valid_alpha(alpha) || !(power > alpha && power < 1)) return kNaN;
  // Power rises with |d| in the tested direction; kLess is solved on -d. The search starts at a
  // noncentrality of 1, far below where Boost gives up (65,536).
  const double sign = alternative == Alternative::kLess ? -1.0 : 1.0;
  const auto gap = [&](double d) {
    return ttest_power(sign * d, nobs, alpha, alternative) - power;
  };
  return sign * solve_upward(gap, 0.0, 1.0 / std::sqrt(nobs), 1e12);
}

double correlation_difference_power(double r1, double r2, double nobs, double alpha,
                                    Alternative alternative) {
  if (!(std::abs(r1) < 1 && std::abs(r2) < 1) || !(nobs > 3) || !valid_alpha(alpha)) return kNaN;
  // NormalIndPower with nobs1 = n - 3, ratio 1: effective n = 1 / (1 / (n - 3) + 1 / (n - 3)),
  // the inverse of the variance 2 / (n - 3) of the difference of two Fisher z.
  const double m = nobs - 3;
  const double effective = 1.0 / (1.0 / m + 1.0 / m);
  return normal_power((std::atanh(r1) - std::atanh(r2)) * std::sqrt(effective), alpha, alternative);
}

double correlation_difference_nobs(double r1, double r2, double power, double alpha,
                                   Alternative alternative) {
  if (!(std::abs(r1) < 1 && std::abs(r2) < 1) || !(power > alpha && power < 1) ||
      !valid_alpha(alpha))
    return kNaN;
  const double q = std::atanh(r1) - std::atanh(r2);
  if (q == 0 || (alternative == Alternative::kGreater && q < 0) ||
      (alternative == Alternative::kLess && q > 0))
    return kNaN;
  // At n = 3 the test has no information: power alpha (< power by the check above).
  const auto gap = [&](double n) {
    return n <= 3 ? alpha - power
                  : correlation_difference_power(r1, r2, n, alpha, alternative) - power;
  };
  return solve_upward(gap, 3.0, 8.0, 1e18);
}

}  // namespace probity::stats
