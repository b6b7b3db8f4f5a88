// MTME's Pairwise Difference Pearson (AverageCorrelation with pdp=True).
#include <algorithm>
#include <cmath>
#include <stdexcept>

#include "probity/stats.hpp"
#include "stats/mtme.hpp"
#include "stats/mtme_detail.hpp"

namespace probity::stats {

double mtme_pdp_pearson(std::span<const double> gold, std::span<const double> metric,
                        std::size_t systems, MtmeAverageBy average_by) {
  if (gold.size() != metric.size())
    throw std::invalid_argument("mtme_pdp_pearson: gold and metric differ in size");
  // _enumerate_pairwise_diffs on each reshaped row: element (a, b) is x[b] - x[a], every ordered
  // pair; the rows are then concatenated into one vector (_Reshape(..., 'none')), so a single
  // Pearson follows, not an average over groups.
  std::vector<double> dg, dm;
  for (const auto& row : detail::mtme_groups(gold.size(), systems, average_by)) {
    if (row.size() < 2)
      throw std::invalid_argument("mtme_pdp_pearson: pairwise diffs need at least 2 scores a row");
    for (std::size_t a : row) {
      for (std::size_t b : row) {
        const double d = gold[b] - gold[a];
        if (std::isnan(d)) continue;  // a missing gold score, dropped by filter_gold_nones
        dg.push_back(d);
        dm.push_back(metric[b] - metric[a]);
      }
    }
  }
  if (dg.size() < 2) return 0.0;
  // scipy's pearsonr gives NaN for a constant input, which MTME's average turns into 0.
  auto constant = [](const std::vector<double>& v) {
    return std::all_of(v.begin(), v.end(), [&](double x) { return x == v[0]; });
  };
  if (constant(dg) || constant(dm)) return 0.0;
  const double r = pearson(dg, dm).statistic;
  return std::isnan(r) ? 0.0 : r;
}

}  // namespace probity::stats
