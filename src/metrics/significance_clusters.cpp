// WMT's significance clusters of the systems of an all-pairs paired test
// (probity/significance.hpp).
#include <cmath>
#include <vector>

#include "probity/error.hpp"
#include "probity/significance.hpp"

namespace probity {

SignificanceClusters significance_clusters(const PairedTestResult& test, bool higher_is_better,
                                           stats::RankCorrection correction, double alpha) {
  const std::size_t n = test.systems.size();
  if (test.pairwise.size() != n)
    throw UsageError("significance clusters need the p-values of every pair of systems");
  // The family: each unordered pair once (the tests are two-sided, p[i][j] == p[j][i]). Equal
  // scores count as p = 1: sacreBLEU's p of a zero difference is 1 / (samples + 1) (no resample
  // exceeds it), which would separate two identical systems.
  std::vector<double> raw;
  for (std::size_t i = 0; i < n; ++i)
    for (std::size_t j = i + 1; j < n; ++j)
      raw.push_back(test.systems[i].score == test.systems[j].score ? 1.0 : test.pairwise[i][j]);
  const std::vector<double> adjusted = stats::adjust_p_values(raw, correction, alpha);

  SignificanceClusters out;
  out.correction = correction;
  out.alpha = alpha;
  out.adjusted.assign(n, std::vector<double>(n, std::nan("")));
  std::size_t k = 0;
  for (std::size_t i = 0; i < n; ++i)
    for (std::size_t j = i + 1; j < n; ++j, ++k)
      out.adjusted[i][j] = out.adjusted[j][i] = adjusted[k];
  // significance_ranks orders by decreasing value: a lower-is-better score is negated.
  std::vector<double> values(n);
  for (std::size_t s = 0; s < n; ++s)
    values[s] = higher_is_better ? test.systems[s].score : -test.systems[s].score;
  out.rank = stats::significance_ranks(values, out.adjusted, alpha, &out.order);
  return out;
}

}  // namespace probity
