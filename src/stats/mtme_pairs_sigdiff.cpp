// MTME's PairwisePermutationSigDiff (variant acc23): a permutation test that swaps the two
// metrics' pairwise comparisons instead of their scores.
#include <bit>
#include <cmath>
#include <stdexcept>

#include "stats/kernels.hpp"
#include "stats/mtme.hpp"
#include "stats/mtme_detail.hpp"

namespace probity::stats {
namespace {

// One group after _ReshapeAndFilter. A pair counts for acc23 when both the (epsilon-tied) metric
// and the gold tie, or neither does and they order it the same way. Only pairs where the metrics
// disagree on that depend on the coins.
struct PairsGroup {
  std::size_t n = 0;
  double pairs = 0.0;
  std::int64_t both = 0, only1 = 0, only2 = 0;  // correct under both, metric1 only, metric2 only
  std::vector<std::uint32_t> split;             // i * n + j of the pairs correct under one metric
  std::vector<std::uint8_t> correct1;           // per split pair: correct under metric1
  std::vector<std::uint64_t> correct1_bits;     // the same, 64 a word (fast coins)
};

bool correct(double dg, double dm, double eps) {
  const bool gold_tie = dg == 0.0, metric_tie = std::fabs(dm) <= eps;
  if (gold_tie || metric_tie) return gold_tie && metric_tie;
  return (dm > 0 && dg > 0) || (dm < 0 && dg < 0);
}

double epsilon_of(std::span<const double> gold, std::span<const double> metric,
                  const std::vector<std::vector<std::size_t>>& groups) {
  // KendallWithTiesOpt(..., sample_rate=1.0) on the unfiltered rows, with MTME's float search:
  // where two thresholds reach the same exact accuracy, its running sum decides which is kept.
  return mtme_tau_optimization(gold, metric, groups).epsilon;
}

}  // namespace

MtmeSigDiffResult mtme_pairs_permutation_test(
    std::span<const double> gold, std::span<const double> metric1, std::span<const double> metric2,
    std::size_t systems, MtmeAverageBy average_by, const MtmeSigDiffOptions& options,
    std::optional<double> epsilon1, std::optional<double> epsilon2) {
  if (gold.size() != metric1.size() || gold.size() != metric2.size())
    throw std::invalid_argument("mtme_pairs_permutation_test: inputs differ in size");
  const auto groups = detail::mtme_groups(gold.size(), systems, average_by);
  const double eps1 = epsilon1 ? *epsilon1 : epsilon_of(gold, metric1, groups);
  const double eps2 = epsilon2 ? *epsilon2 : epsilon_of(gold, metric2, groups);
  if (!(eps1 >= 0) || !(eps2 >= 0))
    throw std::invalid_argument("mtme_pairs_permutation_test: epsilon must be non-negative");

  std::vector<PairsGroup> prepared;
  for (const auto& members : groups) {
    std::vector<std::size_t> ok;
    for (std::size_t idx : members)
      if (!std::isnan(gold[idx])) ok.push_back(idx);
    if (ok.empty()) continue;  // _ReshapeAndFilter drops empty groups
    PairsGroup pg;
    pg.n = ok.size();
    pg.pairs = static_cast<double>(pg.n) * static_cast<double>(pg.n - 1) / 2;
    for (std::size_t i = 0; i < pg.n; ++i) {
      for (std::size_t j = i + 1; j < pg.n; ++j) {
        const double dg = gold[ok[j]] - gold[ok[i]];
        const bool c1 = correct(dg, metric1[ok[j]] - metric1[ok[i]], eps1);
        const bool c2 = correct(dg, metric2[ok[j]] - metric2[ok[i]], eps2);
        if (c1 && c2) {
          ++pg.both;
        } else if (c1 != c2) {
          (c1 ? pg.only1 : pg.only2) += 1;
          pg.split.push_back(static_cast<std::uint32_t>(i * pg.n + j));
          pg.correct1.push_back(c1);
        }
      }
    }
    pg.correct1_bits.assign((pg.correct1.size() + 63) / 64, 0);
    for (std::size_t s = 0; s < pg.correct1.size(); ++s)
      if (pg.correct1[s]) pg.correct1_bits[s / 64] |= std::uint64_t{1} << (s % 64);
    prepared.push_back(std::move(pg));
  }

  // acc23 of a group from its correct count; a one-item group has no pairs (MTME: 0 / 0).
  auto group_value = [](const PairsGroup& pg, std::int64_t count) {
    return pg.n < 2 ? std::nan("") : static_cast<double>(count) / pg.pairs;
  };
  const std::size_t num_groups = prepared.size();
  std::vector<double> v1(num_groups), v2(num_groups);
  for (std::size_t t = 0; t < num_groups; ++t) {
    v1[t] = group_value(prepared[t], prepared[t].both + prepared[t].only1);
    v2[t] = group_value(prepared[t], prepared[t].both + prepared[t].only2);
  }
  MtmeSigDiffResult r;
  r.delta = detail::mtme_average(v2, options.replace_nans_with_zeros) -
            detail::mtme_average(v1, options.replace_nans_with_zeros);

  detail::MtmeCoins coins(options.seed, options.mtme_stream);
  std::vector<std::uint8_t> w;
  std::size_t i = 1, large = 0;
  for (i = 1; i <= options.k; ++i) {
    for (std::size_t t = 0; t < num_groups; ++t) {
      const PairsGroup& pg = prepared[t];
      // Hybrid 1 takes metric1's comparison where the coin (upper triangle) is 1.
      std::int64_t h1 = pg.both;
      if (coins.mtme_stream()) {
        // np.random.binomial(1, 0.5, (n, n)): all n^2 coins are drawn.
        w.resize(pg.n * pg.n);
        for (auto& c : w) c = coins.next_mtme();
        for (std::size_t s = 0; s < pg.split.size(); ++s)
          h1 += w[pg.split[s]] ? pg.correct1[s] : !pg.correct1[s];
      } else {
        // A split pair is correct in hybrid 1 exactly when its coin equals correct1: 64 pairs
        // per popcount.
        const std::size_t words = pg.correct1_bits.size();
        for (std::size_t wi = 0; wi < words; ++wi) {
          const std::size_t left = pg.split.size() - 64 * wi;
          const std::uint64_t mask =
              left >= 64 ? ~std::uint64_t{0} : (std::uint64_t{1} << left) - 1;
          h1 += std::popcount(~(coins.next_fast64() ^ pg.correct1_bits[wi]) & mask);
        }
      }
      const std::int64_t h2 = 2 * pg.both + pg.only1 + pg.only2 - h1;
      v1[t] = group_value(pg, h1);
      v2[t] = group_value(pg, h2);
    }
    const double c1 = detail::mtme_average(v1, options.replace_nans_with_zeros);
    const double c2 = detail::mtme_average(v2, options.replace_nans_with_zeros);
    r.resampled.emplace_back(c2, c1);
    // MTME checks for early stopping only after a large delta, inside that branch.
    if (c2 - c1 >= r.delta) {
      ++large;
      if (options.block_size != 0 && i % options.block_size == 0) {
        const double p = static_cast<double>(large) / static_cast<double>(i);
        if (p < options.early_min || p > options.early_max) break;
      }
    }
  }
  detail::finish_sig_diff(r, i, large, options.k);
  return r;
}

}  // namespace probity::stats
