// rouge-score's BootstrapAggregator (probity/stats.hpp).
#include <algorithm>
#include <cmath>
#include <stdexcept>
#include <vector>

#include "probity/stats.hpp"
#include "util/numpy_random.hpp"

namespace probity::stats {

double numpy_percentile(std::span<const double> values, double q) {
  std::vector<double> sorted(values.begin(), values.end());
  std::sort(sorted.begin(), sorted.end());
  const auto n = static_cast<double>(sorted.size());
  const double quantile = q / 100;
  // The "linear" method's get_virtual_index: (n - 1) * quantiles.
  const double virtual_index = (n - 1) * quantile;
  // _get_indexes: clipped to the first and last values.
  double previous = std::floor(virtual_index);
  double next = previous + 1;
  if (virtual_index >= n - 1) previous = next = n - 1;
  if (virtual_index < 0) previous = next = 0;
  const double gamma = virtual_index - previous;
  const double a = sorted[static_cast<std::size_t>(previous)];
  const double b = sorted[static_cast<std::size_t>(next)];
  // _lerp
  const double diff_b_a = b - a;
  return gamma >= 0.5 ? b - diff_b_a * (1 - gamma) : a + diff_b_a * gamma;
}

std::vector<AggregateBounds> rouge_bootstrap_aggregate(std::span<const std::vector<double>> types,
                                                       std::size_t measures, std::size_t n_samples,
                                                       double confidence_interval,
                                                       std::uint32_t seed) {
  if (confidence_interval < 0 || confidence_interval > 1)
    throw std::invalid_argument("confidence_interval must be in range [0, 1]");
  if (n_samples == 0) throw std::invalid_argument("n_samples must be positive");
  if (measures == 0) throw std::invalid_argument("no measures");
  const double delta = (1 - confidence_interval) / 2;
  const double q[3] = {100 * delta, 100 * 0.5, 100 * (1 - delta)};
  util::Mt19937 rng(seed);
  std::vector<AggregateBounds> out;
  std::vector<std::int64_t> idx;
  for (const auto& matrix : types) {
    const std::size_t n = matrix.size() / measures;
    if (n == 0 || matrix.size() != n * measures)
      throw std::invalid_argument("rouge bootstrap: no items, or a partial row of scores");
    idx.resize(n);
    // sample_mean[i, :] = np.mean(matrix[choice], axis=0): a sum row after row, then / n.
    std::vector<std::vector<double>> means(measures, std::vector<double>(n_samples));
    std::vector<double> sum(measures);
    for (std::size_t i = 0; i < n_samples; ++i) {
      rng.randint(n, idx);
      std::fill(sum.begin(), sum.end(), 0.0);
      for (std::int64_t r : idx)
        for (std::size_t m = 0; m < measures; ++m)
          sum[m] += matrix[static_cast<std::size_t>(r) * measures + m];
      for (std::size_t m = 0; m < measures; ++m) means[m][i] = sum[m] / static_cast<double>(n);
    }
    AggregateBounds bounds;
    for (std::size_t m = 0; m < measures; ++m) {
      bounds.low.push_back(numpy_percentile(means[m], q[0]));
      bounds.mid.push_back(numpy_percentile(means[m], q[1]));
      bounds.high.push_back(numpy_percentile(means[m], q[2]));
    }
    out.push_back(std::move(bounds));
  }
  return out;
}

}  // namespace probity::stats
