// Global perspective (arXiv:2502.12052, ACL 2025): consensus levels, score-to-level mapping, CEM
// with a bootstrap CI.
#include <algorithm>
#include <cmath>
#include <limits>
#include <numeric>

#include "probity/meta.hpp"
#include "util/random.hpp"

namespace probity::meta {
namespace {

constexpr double kNaN = std::numeric_limits<double>::quiet_NaN();

std::vector<double> distinct_sorted(std::vector<double> v) {
  std::sort(v.begin(), v.end());
  v.erase(std::unique(v.begin(), v.end()), v.end());
  return v;
}

// CEM of one sample (scores and gold of the same items) under the chosen mapping.
double sample_cem(std::span<const double> scores, std::span<const double> gold, bool direct) {
  if (gold.empty()) return kNaN;
  std::vector<double> pred = direct ? map_direct(scores) : map_by_rank(scores, gold);
  std::vector<double> levels(gold.begin(), gold.end());
  if (direct) levels.insert(levels.end(), pred.begin(), pred.end());
  levels = distinct_sorted(std::move(levels));
  return stats::cem_ord(pred, gold, levels);
}

}  // namespace

std::optional<double> consensus_level(std::span<const double> ratings, double max_spread) {
  std::vector<double> r;
  for (double v : ratings)
    if (std::isfinite(v)) r.push_back(v);
  if (r.empty()) return std::nullopt;
  std::sort(r.begin(), r.end());
  if (r.back() - r.front() > max_spread + 1e-12) return std::nullopt;
  // The lower median: an observed rating, so integer scales stay integer.
  return r[(r.size() - 1) / 2];
}

std::vector<double> map_by_rank(std::span<const double> scores, std::span<const double> gold) {
  const std::size_t n = scores.size();
  std::vector<std::size_t> order(n);
  std::iota(order.begin(), order.end(), std::size_t{0});
  std::stable_sort(order.begin(), order.end(),
                   [&](std::size_t a, std::size_t b) { return scores[a] < scores[b]; });
  std::vector<double> sorted_gold(gold.begin(), gold.end());
  std::sort(sorted_gold.begin(), sorted_gold.end());
  // Items with equal scores form one group and all get the level at the group's middle rank
  // (the lower middle): breaking ties by item order would let the file order, which often
  // follows the systems and so the quality, leak into the prediction.
  std::vector<double> pred(n);
  for (std::size_t begin = 0; begin < n;) {
    std::size_t end = begin + 1;
    while (end < n && scores[order[end]] == scores[order[begin]]) ++end;
    const double level = sorted_gold[begin + (end - begin - 1) / 2];
    for (std::size_t r = begin; r < end; ++r) pred[order[r]] = level;
    begin = end;
  }
  return pred;
}

std::vector<double> map_direct(std::span<const double> scores) {
  std::vector<double> pred(scores.size());
  for (std::size_t i = 0; i < scores.size(); ++i) pred[i] = std::round(scores[i]);
  return pred;
}

GlobalResult global_cem(std::span<const double> scores, std::span<const double> gold,
                        const GlobalOptions& options) {
  std::vector<double> s, g;
  for (std::size_t i = 0; i < scores.size() && i < gold.size(); ++i) {
    if (std::isfinite(scores[i]) && std::isfinite(gold[i])) {
      s.push_back(scores[i]);
      g.push_back(gold[i]);
    }
  }
  GlobalResult r;
  r.n = s.size();
  r.levels = distinct_sorted(g);
  if (options.direct) {
    auto pred = map_direct(s);
    std::vector<double> all = g;
    all.insert(all.end(), pred.begin(), pred.end());
    r.levels = distinct_sorted(std::move(all));
  }
  r.counts.assign(r.levels.size(), 0);
  for (double v : g)
    ++r.counts[static_cast<std::size_t>(std::lower_bound(r.levels.begin(), r.levels.end(), v) -
                                        r.levels.begin())];
  r.cem = sample_cem(s, g, options.direct);
  r.ci = {kNaN, kNaN};
  r.chance = kNaN;
  if (r.n < 2) return r;
  if (options.bootstrap > 0) {
    stats::BootstrapOptions bo;
    bo.resamples = options.bootstrap;
    bo.confidence = options.confidence;
    bo.seed = options.seed;
    bo.threads = options.threads;
    // The mapping is redone inside each resample: it depends on the resample's gold proportions.
    auto boot = stats::bootstrap(
        r.n,
        [&](std::span<const std::size_t> idx) {
          std::vector<double> bs(idx.size()), bg(idx.size());
          for (std::size_t k = 0; k < idx.size(); ++k) {
            bs[k] = s[idx[k]];
            bg[k] = g[idx[k]];
          }
          return sample_cem(bs, bg, options.direct);
        },
        bo);
    r.ci = boot.ci;
  }
  if (!options.direct && options.chance_permutations > 0) {
    // Random orderings: each permutation b draws from its own stream (seed, b).
    double sum = 0.0;
    std::vector<double> perm(r.n);
    for (std::size_t b = 0; b < options.chance_permutations; ++b) {
      util::Rng rng(options.seed ^ 0xC3A5C85C97CB3127ULL, b);
      for (std::size_t i = 0; i < r.n; ++i) perm[i] = static_cast<double>(i);
      for (std::size_t i = r.n; i > 1; --i)
        std::swap(perm[i - 1], perm[rng.below(static_cast<std::uint32_t>(i))]);
      sum += sample_cem(perm, g, false);
    }
    r.chance = sum / static_cast<double>(options.chance_permutations);
  }
  return r;
}

}  // namespace probity::meta
