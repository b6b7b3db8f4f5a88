// The exact binomial test (scipy.stats.binomtest of SciPy 1.10.1) and the sign test built on it.
// Definitions: include/probity/stats.hpp; reference: tests/golden/gen/sign_test.py.
#include <algorithm>
#include <boost/math/distributions/binomial.hpp>
#include <cmath>
#include <cstdint>
#include <limits>
#include <stdexcept>
#include <string>

#include "probity/stats.hpp"
#include "stats/boost_policy.hpp"

namespace probity::stats {
namespace {

using Policy = detail::IgnoreErrors;

// Binomial(n, p) with SciPy's conventions outside the support: the pmf is 0 there, the cdf 0
// below and 1 from n on, the survival function the reverse (rv_discrete's masking).
class Binomial {
 public:
  Binomial(std::size_t n, double p) : n_(static_cast<double>(n)), dist_(n_, p) {}
  double pmf(double x) const { return x < 0 || x > n_ ? 0.0 : boost::math::pdf(dist_, x); }
  double cdf(double x) const {
    x = std::floor(x);
    if (x < 0) return 0.0;
    return x >= n_ ? 1.0 : boost::math::cdf(dist_, x);
  }
  double sf(double x) const {
    x = std::floor(x);
    if (x < 0) return 1.0;
    return x >= n_ ? 0.0 : boost::math::cdf(boost::math::complement(dist_, x));
  }

 private:
  double n_;
  boost::math::binomial_distribution<double, Policy> dist_;
};

// SciPy's _binary_search_for_binom_tst: for a(x) monotone on [lo, hi], the x with a(x) <= d <
// a(x + 1) (an exact hit returns at once); lo - 1 when even a(lo) > d.
template <class F>
std::int64_t search(F a, double d, std::int64_t lo, std::int64_t hi) {
  while (lo < hi) {
    const std::int64_t mid = lo + (hi - lo) / 2;
    const double v = a(static_cast<double>(mid));
    if (v < d)
      lo = mid + 1;
    else if (v > d)
      hi = mid - 1;
    else
      return mid;
  }
  return a(static_cast<double>(lo)) <= d ? lo : lo - 1;
}

}  // namespace

double binom_test(std::size_t k, std::size_t n, double p, Alternative alternative) {
  if (k > n)
    throw std::invalid_argument("binom_test: k = " + std::to_string(k) +
                                " exceeds n = " + std::to_string(n));
  if (!(p >= 0 && p <= 1)) throw std::invalid_argument("binom_test: p outside [0, 1]");
  if (n == 0) return std::numeric_limits<double>::quiet_NaN();
  const Binomial b(n, p);
  const double kd = static_cast<double>(k), nd = static_cast<double>(n);
  if (alternative == Alternative::kLess) return b.cdf(kd);
  if (alternative == Alternative::kGreater) return b.sf(kd - 1);
  // Two-sided: add the other tail's outcomes at most as likely as k, with SciPy's slack for the
  // rounding of equal probabilities.
  const double mode = p * nd;
  if (kd == mode) return 1.0;
  const double d = b.pmf(kd) * (1 + 1e-7);
  double pval;
  if (kd < mode) {
    const std::int64_t ix =
        search([&](double x) { return -b.pmf(x); }, -d, static_cast<std::int64_t>(std::ceil(mode)),
               static_cast<std::int64_t>(n));
    const double ixd = static_cast<double>(ix);
    const double y = nd - ixd + (d == b.pmf(ixd) ? 1.0 : 0.0);
    pval = b.cdf(kd) + b.sf(nd - y);
  } else {
    const std::int64_t ix = search([&](double x) { return b.pmf(x); }, d, 0,
                                   static_cast<std::int64_t>(std::floor(mode)));
    const double y = static_cast<double>(ix) + 1;
    pval = b.cdf(y - 1) + b.sf(kd - 1);
  }
  return std::min(1.0, pval);
}

SignTestResult sign_test(std::span<const double> differences, Alternative alternative) {
  SignTestResult r;
  bool missing = false;
  for (double v : differences) {
    if (std::isnan(v))
      missing = true;
    else if (v > 0)
      ++r.positive;
    else if (v < 0)
      ++r.negative;
    else
      ++r.zeros;
  }
  // A missing difference has a sign nobody knows: no p-value rather than one without it.
  if (!missing) r.p = binom_test(r.positive, r.positive + r.negative, 0.5, alternative);
  return r;
}

}  // namespace probity::stats
