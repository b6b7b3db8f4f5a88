// Intervals for a binomial proportion (stats.hpp).
#include <cmath>
#include <limits>

#include "probity/stats.hpp"

namespace probity::stats {

ConfidenceInterval wilson_interval(std::size_t successes, std::size_t n, double confidence) {
  if (n == 0) {
    const double nan = std::numeric_limits<double>::quiet_NaN();
    return {nan, nan};
  }
  // SciPy 1.10 _binom_wilson_conf_int (Newcombe 1998), two-sided, without correction, term for
  // term: the bound at 0 or n successes is exactly 0 or 1.
  const double nd = static_cast<double>(n);
  const double p = static_cast<double>(successes) / nd, q = 1 - p;
  const double z = normal_ppf(0.5 + 0.5 * confidence);
  const double denom = 2 * (nd + z * z);
  const double center = (2 * nd * p + z * z) / denom;
  const double delta = z / denom * std::sqrt(4 * nd * p * q + z * z);
  return {successes == 0 ? 0.0 : center - delta, successes == n ? 1.0 : center + delta};
}

}  // namespace probity::stats
