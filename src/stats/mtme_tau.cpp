// mt-metrics-eval's tau_optimization (tau_optimization.py, acc23, sample_rate 1.0) with its own
// float arithmetic: the mean accuracy is a running float sum updated pair by pair in the order
// of a stable sort by metric difference, and the first maximum of those floats wins. The exact
// search (detail::acc_eq) can keep another epsilon when two thresholds reach the same exact
// accuracy, and its value can differ in the last bits; the WMT protocols rank by these floats.
#include <algorithm>
#include <cmath>
#include <numeric>

#include "stats/mtme.hpp"

namespace probity::stats {
namespace {

struct Counts {
  std::int64_t correct = 0, pairs = 0;  // con + ties_both, num_pairs
  double acc() const { return static_cast<double>(correct) / static_cast<double>(pairs); }
};

struct RankedPair {
  std::size_t row;
  double diff;
  bool correct, tie_correct;  // counted as correct as it is / once the metric ties it
};

}  // namespace

MtmeTauResult mtme_tau_optimization(std::span<const double> gold, std::span<const double> metric,
                                    const std::vector<std::vector<std::size_t>>& rows) {
  std::vector<RankedPair> pairs;
  std::vector<std::size_t> used;  // rows with a pair, ascending (MTME's set of small ints)
  for (std::size_t r = 0; r < rows.size(); ++r) {
    std::vector<std::size_t> kept;
    for (std::size_t i : rows[r])
      if (!std::isnan(gold[i]) && !std::isnan(metric[i])) kept.push_back(i);
    for (std::size_t a = 0; a < kept.size(); ++a)
      for (std::size_t b = a + 1; b < kept.size(); ++b) {
        const double h1 = gold[kept[a]], h2 = gold[kept[b]];
        const double m1 = metric[kept[a]], m2 = metric[kept[b]];
        RankedPair p{used.size(), std::fabs(m1 - m2), false, h1 == h2};
        if (h1 == h2)
          p.correct = m1 == m2;
        else
          p.correct = m1 != m2 && ((h1 > h2 && m1 > m2) || (h1 < h2 && m1 < m2));
        pairs.push_back(p);
      }
    if (kept.size() >= 2) used.push_back(r);
  }
  MtmeTauResult result;
  if (used.empty()) return result;
  std::vector<Counts> counts(used.size());
  for (const auto& p : pairs) {
    counts[p.row].pairs += 1;
    counts[p.row].correct += p.correct;
  }
  const double num_rows = static_cast<double>(used.size());
  double total = 0;
  for (const auto& c : counts) total += c.acc();
  std::vector<double> thresholds{0.0}, taus{total / num_rows};
  std::stable_sort(pairs.begin(), pairs.end(),
                   [](const RankedPair& a, const RankedPair& b) { return a.diff < b.diff; });
  for (const auto& p : pairs) {
    Counts& c = counts[p.row];
    total -= c.acc();
    c.correct += static_cast<std::int64_t>(p.tie_correct) - static_cast<std::int64_t>(p.correct);
    total += c.acc();
    const double overall = total / num_rows;
    if (thresholds.back() == p.diff) {
      taus.back() = overall;
    } else {
      thresholds.push_back(p.diff);
      taus.push_back(overall);
    }
  }
  // np.nanargmax: the first maximum.
  std::size_t best = 0;
  for (std::size_t k = 1; k < taus.size(); ++k)
    if (taus[k] > taus[best]) best = k;
  result.value = taus[best];
  result.epsilon = thresholds[best];
  result.rows = used.size();
  return result;
}

}  // namespace probity::stats
