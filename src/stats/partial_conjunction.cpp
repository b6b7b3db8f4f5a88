// Replicability across datasets: the Bonferroni partial-conjunction test and its estimate of the
// number of datasets with an effect, as SacreROUGE's partial_conjunction_pvalue_test computes
// them. Definitions: include/probity/stats.hpp; reference: tests/golden/gen/partial_conjunction.py.
#include <algorithm>
#include <numeric>
#include <stdexcept>
#include <string>
#include <vector>

#include "probity/stats.hpp"

namespace probity::stats {
namespace {

void check_p_values(std::span<const double> p) {
  for (double v : p)
    if (!(v >= 0 && v <= 1))
      throw std::invalid_argument("partial conjunction: p-value " + std::to_string(v) +
                                  " outside [0, 1]");
}

// Dataset indices by increasing p-value, equal ones by index (SacreROUGE sorts (p, i) pairs).
std::vector<std::size_t> ascending(std::span<const double> p) {
  std::vector<std::size_t> order(p.size());
  std::iota(order.begin(), order.end(), std::size_t{0});
  std::stable_sort(order.begin(), order.end(),
                   [&](std::size_t a, std::size_t b) { return p[a] < p[b]; });
  return order;
}

}  // namespace

PartialConjunctionResult partial_conjunction_test(std::span<const double> p_values, double alpha) {
  check_p_values(p_values);
  const std::vector<std::size_t> order = ascending(p_values);
  const std::size_t m = p_values.size();
  PartialConjunctionResult r;
  r.p_values.reserve(m);
  double running = 0;
  for (std::size_t u = 0; u < m; ++u) {
    // "At least u + 1 of m": Bonferroni over the m - u largest p-values, the smallest of which is
    // the (u + 1)-th.
    const double bonferroni = static_cast<double>(m - u) * p_values[order[u]];
    running = u == 0 ? bonferroni : std::max(running, bonferroni);
    if (running <= alpha) ++r.k;
    r.p_values.push_back(std::min(1.0, running));
  }
  r.significant.assign(order.begin(), order.begin() + static_cast<std::ptrdiff_t>(r.k));
  return r;
}

double partial_conjunction_pvalue(std::span<const double> p_values, std::size_t u) {
  check_p_values(p_values);
  const std::size_t m = p_values.size();
  if (u < 1 || u > m)
    throw std::invalid_argument("partial_conjunction_pvalue: u = " + std::to_string(u) +
                                " outside 1 .. " + std::to_string(m));
  std::vector<double> sorted(p_values.begin(), p_values.end());
  std::nth_element(sorted.begin(), sorted.begin() + static_cast<std::ptrdiff_t>(u - 1),
                   sorted.end());
  return std::min(1.0, static_cast<double>(m - u + 1) * sorted[u - 1]);
}

}  // namespace probity::stats
