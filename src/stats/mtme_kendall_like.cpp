// WMT20's Kendall-like tau as MTME computes it (stats.KendallLike, averaged by AverageCorrelation
// with macro=False).
#include <cmath>
#include <cstdint>
#include <stdexcept>

#include "stats/mtme.hpp"
#include "stats/mtme_detail.hpp"

namespace probity::stats {

double mtme_kendall_like(std::span<const double> gold, std::span<const double> metric,
                         std::size_t systems, MtmeAverageBy average_by, double thresh) {
  if (gold.size() != metric.size())
    throw std::invalid_argument("mtme_kendall_like: gold and metric differ in size");
  double total = 0.0;  // summed in group order, as MTME's Python loop does
  std::int64_t weight = 0;
  for (const auto& row : detail::mtme_groups(gold.size(), systems, average_by)) {
    std::vector<std::size_t> ok;
    for (std::size_t idx : row)
      if (!std::isnan(gold[idx])) ok.push_back(idx);
    if (ok.size() < 2) continue;
    std::int64_t concordant = 0, discordant = 0;
    for (std::size_t i = 0; i < ok.size(); ++i) {
      for (std::size_t j = i + 1; j < ok.size(); ++j) {
        const double diff = gold[ok[i]] - gold[ok[j]];
        const double mi = metric[ok[i]], mj = metric[ok[j]];
        // WMT's deliberate inconsistency: |diff| >= thresh selects the pair, a metric tie is
        // discordant.
        if (std::fabs(diff) >= thresh) {
          if ((diff > 0 && mi > mj) || (diff < 0 && mi < mj))
            ++concordant;
          else
            ++discordant;
        }
      }
    }
    const std::int64_t pairs = concordant + discordant;
    if (pairs == 0) continue;  // corr 0 with weight 0
    const double corr = static_cast<double>(concordant - discordant) / static_cast<double>(pairs);
    total += static_cast<double>(pairs) * corr;
    weight += pairs;
  }
  return weight ? total / static_cast<double>(weight) : 0.0;
}

}  // namespace probity::stats
