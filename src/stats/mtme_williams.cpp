// Williams' test for two dependent correlations (MTME's WilliamsTest and WilliamsSigDiff).
#include <boost/math/distributions/students_t.hpp>
#include <cmath>
#include <stdexcept>

#include "probity/stats.hpp"
#include "stats/boost_policy.hpp"
#include "stats/mtme.hpp"

namespace probity::stats {
namespace {

// AverageCorrelation(scipy.stats.pearsonr, average_by='none'): missing gold dropped; NaN (a
// constant input) or fewer than 2 scores give 0.
double average_pearson(std::span<const double> gold, std::span<const double> metric) {
  std::vector<double> g, m;
  for (std::size_t i = 0; i < gold.size(); ++i) {
    if (std::isnan(gold[i])) continue;
    g.push_back(gold[i]);
    m.push_back(metric[i]);
  }
  if (g.size() < 2) return 0.0;
  auto constant = [](const std::vector<double>& v) {
    for (double x : v)
      if (x != v[0]) return false;
    return true;
  };
  if (constant(g) || constant(m)) return 0.0;
  const double r = pearson(g, m).statistic;
  return std::isnan(r) ? 0.0 : r;
}

}  // namespace

double williams_test(double r12, double r13, double r23, double n, bool one_sided) {
  // The operations in MTME's order; pow as Python's ** calls it.
  const double k =
      1 - std::pow(r12, 2.0) - std::pow(r13, 2.0) - std::pow(r23, 2.0) + 2 * r12 * r23 * r13;
  const double rbar = (r12 + r13) / 2;
  const double tnum = (r12 - r13) * std::sqrt((n - 1) * (1 + r23));
  const double tden =
      std::sqrt(2 * (n - 1) / (n - 3) * k + std::pow(rbar, 2.0) * std::pow(1 - r23, 3.0));
  const double t = std::fabs(tnum / tden);
  if (std::isnan(t) || !(n > 3)) return std::nan("");
  const boost::math::students_t_distribution<double, detail::IgnoreErrors> dist(n - 3);
  const double p = boost::math::cdf(boost::math::complement(dist, t));
  return one_sided ? p : 2 * p;
}

WilliamsResult mtme_williams_sig_diff(std::span<const double> gold, std::span<const double> metric1,
                                      std::span<const double> metric2, bool one_sided) {
  if (gold.size() != metric1.size() || gold.size() != metric2.size())
    throw std::invalid_argument("mtme_williams_sig_diff: inputs differ in size");
  WilliamsResult r;
  r.r1 = average_pearson(gold, metric1);
  r.r2 = average_pearson(gold, metric2);
  const double r12 = average_pearson(metric1, metric2);
  r.p_value = williams_test(r.r1, r.r2, r12, static_cast<double>(gold.size()), one_sided);
  return r;
}

}  // namespace probity::stats
