// Wilcoxon signed-rank test, as scipy.stats.wilcoxon of SciPy 1.10.1. Definition:
// include/probity/stats.hpp; reference: tests/golden/gen/wilcoxon.py.
#include <algorithm>
#include <cmath>
#include <cstdint>
#include <map>
#include <vector>

#include "probity/stats.hpp"
#include "stats/kernels.hpp"

namespace probity::stats {
namespace {

// The null distribution of r_plus for n untied ranks: P(r_plus = r), r = 0 .. n(n+1)/2, built
// rank by rank with the same halvings and additions as SciPy's _get_wilcoxon_distr, so that
// beyond n = 50 (where the probabilities are no longer exact dyadic numbers) the bits agree too.
std::vector<double> signed_rank_distribution(std::size_t n) {
  std::vector<double> c{1.0}, prev;
  for (std::size_t k = 1; k <= n; ++k) {
    prev.swap(c);
    c.assign(k * (k + 1) / 2 + 1, 0.0);
    const std::size_t m = prev.size(), shift = c.size() - m;
    for (std::size_t i = 0; i < m; ++i) c[i] = prev[i] * 0.5;
    for (std::size_t i = 0; i < m; ++i) c[shift + i] += prev[i] * 0.5;
  }
  return c;
}

double exact_p(std::size_t n, double r_plus, Alternative alternative) {
  const std::vector<double> pmf = signed_rank_distribution(n);
  // SciPy reads the untied distribution at int(r_plus): a rank sum of .5 (ties) is truncated.
  const auto r = static_cast<std::size_t>(r_plus);
  const std::span<const double> all(pmf);
  const auto at_most = [&] { return detail::numpy_sum(all.first(std::min(r + 1, pmf.size()))); };
  const auto at_least = [&] { return detail::numpy_sum(all.subspan(std::min(r, pmf.size()))); };
  double p = 0;
  switch (alternative) {
    case Alternative::kTwoSided:
      // The centre of the distribution (SciPy's shortcut) has p = 1.
      p = r == (pmf.size() - 1) / 2 ? 1.0 : 2 * std::min(at_least(), at_most());
      break;
    case Alternative::kGreater:
      p = at_least();
      break;
    case Alternative::kLess:
      p = at_most();
      break;
  }
  return std::clamp(p, 0.0, 1.0);
}

}  // namespace

WilcoxonResult wilcoxon(std::span<const double> differences, WilcoxonZeroMethod zero_method,
                        bool correction, Alternative alternative, WilcoxonMethod method) {
  WilcoxonResult result;
  if (differences.empty() || detail::any_nan(differences)) return result;
  // 'auto' decides on the number of differences before zeros are dropped.
  bool exact = method == WilcoxonMethod::kExact ||
               (method == WilcoxonMethod::kAuto && differences.size() <= 50);
  const auto n_zero =
      static_cast<std::size_t>(std::count(differences.begin(), differences.end(), 0.0));
  if (n_zero > 0) exact = false;  // SciPy switches to the approximation (with a warning)
  result.method = exact ? WilcoxonMethod::kExact : WilcoxonMethod::kApprox;
  if (!exact && zero_method != WilcoxonZeroMethod::kZsplit && n_zero == differences.size())
    return result;  // SciPy raises: nothing left to rank

  const bool drop_zeros = !exact && zero_method == WilcoxonZeroMethod::kWilcox;
  std::vector<double> d;
  for (double v : differences)
    if (!(drop_zeros && v == 0)) d.push_back(v);
  const std::size_t count = d.size();
  result.n = count;
  std::vector<double> magnitude(count);
  std::transform(d.begin(), d.end(), magnitude.begin(), [](double v) { return std::abs(v); });
  const std::vector<double> rank = rankdata_average(magnitude);

  // Rank sums are multiples of 1/4 far below 2^52: exact whatever the order of summation.
  double r_plus = 0, r_minus = 0, r_zero = 0;
  for (std::size_t i = 0; i < count; ++i)
    (d[i] > 0 ? r_plus : d[i] < 0 ? r_minus : r_zero) += rank[i];
  if (zero_method == WilcoxonZeroMethod::kZsplit) {
    r_plus += r_zero / 2;
    r_minus += r_zero / 2;
  }
  const double t = alternative == Alternative::kTwoSided ? std::min(r_plus, r_minus) : r_plus;
  result.statistic = t;

  if (exact) {
    result.p = exact_p(count, r_plus, alternative);
    return result;
  }
  const double n = static_cast<double>(count);
  double mean = n * (n + 1.0) * 0.25;
  double var = n * (n + 1.0) * (2.0 * n + 1.0);  // times 24
  // Pratt ranks the zeros with the rest, then leaves them out: mean and variance lose the ranks
  // 1 .. n_zero (Cureton 1967), and the tie correction sees the nonzero ranks only.
  std::map<double, std::uint64_t> ties;
  const bool pratt = zero_method == WilcoxonZeroMethod::kPratt;
  if (pratt) {
    const double z = static_cast<double>(n_zero);
    mean -= z * (z + 1.0) * 0.25;
    var -= z * (z + 1.0) * (2.0 * z + 1.0);
  }
  for (std::size_t i = 0; i < count; ++i)
    if (!(pratt && d[i] == 0)) ++ties[rank[i]];
  std::uint64_t tie_sum = 0;
  for (const auto& [r, m] : ties)
    if (m > 1) tie_sum += m * (m * m - 1);
  var -= 0.5 * static_cast<double>(tie_sum);
  const double se = std::sqrt(var / 24);
  double shift = 0;
  if (correction) {
    switch (alternative) {
      case Alternative::kTwoSided:
        shift = t > mean ? 0.5 : t < mean ? -0.5 : 0.0;
        break;
      case Alternative::kGreater:
        shift = 0.5;
        break;
      case Alternative::kLess:
        shift = -0.5;
        break;
    }
  }
  const double z = (t - mean - shift) / se;
  result.z = z;
  switch (alternative) {
    case Alternative::kTwoSided:
      result.p = 2.0 * normal_cdf(-std::abs(z));
      break;
    case Alternative::kGreater:
      result.p = normal_cdf(-z);
      break;
    case Alternative::kLess:
      result.p = normal_cdf(z);
      break;
  }
  return result;
}

}  // namespace probity::stats
