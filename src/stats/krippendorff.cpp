// Krippendorff's alpha for nominal, interval and ordinal ratings. Definition: include/probity/
// stats.hpp; reference: NLTK's AnnotationTask.alpha (tests/golden/gen/krippendorff.py).
#include <algorithm>
#include <cmath>
#include <limits>
#include <map>
#include <vector>

#include "probity/stats.hpp"

namespace probity::stats {

double krippendorff_alpha(std::span<const std::vector<double>> ratings, AlphaMetric metric) {
  constexpr double kNaN = std::numeric_limits<double>::quiet_NaN();
  // Value frequencies over the pairable units, in value order.
  std::map<double, double> frequency;
  std::vector<std::map<double, double>> units;
  for (const auto& unit : ratings) {
    if (unit.size() < 2) continue;
    std::map<double, double> counts;
    for (double v : unit) {
      if (!std::isfinite(v)) continue;
      counts[v] += 1;
    }
    double m = 0;
    for (const auto& [v, c] : counts) m += c;
    if (m < 2) continue;
    for (const auto& [v, c] : counts) frequency[v] += c;
    units.push_back(std::move(counts));
  }
  double n = 0;
  for (const auto& [v, c] : frequency) n += c;
  if (units.empty() || n < 2) return kNaN;

  // Cumulative frequencies for the ordinal metric: below[v] = sum of n_g for g < v.
  std::map<double, double> below;
  double running = 0;
  for (const auto& [v, c] : frequency) {
    below[v] = running;
    running += c;
  }
  auto delta = [&](double c, double k) {
    switch (metric) {
      case AlphaMetric::kNominal:
        return c == k ? 0.0 : 1.0;
      case AlphaMetric::kInterval:
        return (c - k) * (c - k);
      case AlphaMetric::kOrdinal: {
        const double lo = std::min(c, k), hi = std::max(c, k);
        const double span = below[hi] + frequency[hi] - below[lo];  // n_g for lo <= g <= hi
        const double d = span - (frequency[lo] + frequency[hi]) / 2;
        return d * d;
      }
    }
    return kNaN;
  };
  // NLTK's Disagreement: sum_{c,k} n_c n_k delta / (m (m - 1)) over one frequency table.
  auto disagreement = [&](const std::map<double, double>& counts) {
    double m = 0, pairs = 0;
    for (const auto& [c, nc] : counts) {
      m += nc;
      for (const auto& [k, nk] : counts) pairs += nc * nk * delta(k, c);
    }
    return pairs / (m * (m - 1));
  };
  double observed = 0;
  for (const auto& unit : units) {
    double m = 0;
    for (const auto& [v, c] : unit) m += c;
    observed += disagreement(unit) * m;
  }
  observed /= n;
  const double expected = disagreement(frequency);
  if (!(expected > 0)) return kNaN;
  return 1.0 - observed / expected;
}

}  // namespace probity::stats
