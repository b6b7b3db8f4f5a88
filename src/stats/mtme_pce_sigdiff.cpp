// MTME's PermutationSigDiff with the soft pairwise accuracy (PairwiseConfidenceError) statistic.
#include <cmath>
#include <stdexcept>

#include "stats/mtme.hpp"
#include "stats/mtme_detail.hpp"

namespace probity::stats {

MtmeSigDiffResult mtme_pce_permutation_test(const PceDraws& draws, std::span<const double> gold,
                                            std::span<const double> metric1,
                                            std::span<const double> metric2, std::size_t systems,
                                            const MtmeSigDiffOptions& options) {
  if (gold.size() != metric1.size() || gold.size() != metric2.size())
    throw std::invalid_argument("mtme_pce_permutation_test: inputs differ in size");
  // _ReshapeAndFilter with average_by 'none': one group of the items with gold.
  std::vector<double> g, m1, m2;
  for (std::size_t i = 0; i < gold.size(); ++i) {
    if (std::isnan(gold[i])) continue;
    g.push_back(gold[i]);
    m1.push_back(metric1[i]);
    m2.push_back(metric2[i]);
  }
  if (systems == 0 || g.size() % systems != 0 || g.size() / systems != draws.segments())
    throw std::invalid_argument("mtme_pce_permutation_test: scored items do not fill the rows");
  const std::vector<double> z1 = detail::scipy_zscore(m1), z2 = detail::scipy_zscore(m2);
  // The gold's p-values are the same in every call MTME makes: computed once.
  const std::vector<double> gold_p =
      pce_pairwise_p_values(draws, g, systems, options.pce_arithmetic);
  auto statistic = [&](std::span<const double> m) {
    return detail::mtme_average(
        {soft_pairwise_accuracy(gold_p,
                                pce_pairwise_p_values(draws, m, systems, options.pce_arithmetic))},
        options.replace_nans_with_zeros);
  };
  MtmeSigDiffResult r;
  r.delta = statistic(z2) - statistic(z1);
  detail::MtmeCoins coins(options.seed, options.mtme_stream);
  const std::size_t n = g.size();
  std::vector<double> h1(n), h2(n);
  std::size_t i = 1, large = 0;
  for (i = 1; i <= options.k; ++i) {
    for (std::size_t l = 0; l < n; ++l) {
      // w1 * m1 + w2 * m2 as MTME writes it (0 * NaN stays NaN).
      const double w1 = coins.next() ? 1.0 : 0.0, w2 = 1.0 - w1;
      h1[l] = w1 * z1[l] + w2 * z2[l];
      h2[l] = w2 * z1[l] + w1 * z2[l];
    }
    const double c1 = statistic(h1), c2 = statistic(h2);
    r.resampled.emplace_back(c2, c1);
    if (c2 - c1 >= r.delta) ++large;
    if (options.block_size != 0 && i % options.block_size == 0) {
      const double p = static_cast<double>(large) / static_cast<double>(i);
      if (p < options.early_min || p > options.early_max) break;
    }
  }
  detail::finish_sig_diff(r, i, large, options.k);
  return r;
}

}  // namespace probity::stats
