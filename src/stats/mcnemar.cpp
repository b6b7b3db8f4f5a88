// McNemar's test of a paired 2x2 table, as statsmodels' contingency_tables.mcnemar. Definition:
// include/probity/stats.hpp; reference: tests/golden/gen/mcnemar.py.
#include <algorithm>
#include <boost/math/distributions/binomial.hpp>
#include <boost/math/distributions/chi_squared.hpp>
#include <cmath>

#include "probity/stats.hpp"
#include "stats/boost_policy.hpp"

namespace probity::stats {
namespace {

using Policy = detail::IgnoreErrors;

}  // namespace

McNemarResult mcnemar(std::size_t b, std::size_t c, bool exact, bool correction) {
  const double bd = static_cast<double>(b), cd = static_cast<double>(c), n = bd + cd;
  McNemarResult r;
  if (exact) {
    // Under the null each discordant pair falls either way with probability 1/2.
    r.statistic = std::min(bd, cd);
    r.p = b + c == 0
              ? 1.0
              : std::min(1.0, 2 * boost::math::cdf(
                                      boost::math::binomial_distribution<double, Policy>(n, 0.5),
                                      r.statistic));
    return r;
  }
  // No discordant pair is no evidence either way (statsmodels divides by zero there).
  if (b + c == 0) return r;
  const double excess = std::abs(bd - cd) - (correction ? 1.0 : 0.0);
  r.statistic = excess * excess / n;
  r.p = boost::math::cdf(boost::math::complement(
      boost::math::chi_squared_distribution<double, Policy>(1), r.statistic));
  return r;
}

}  // namespace probity::stats
