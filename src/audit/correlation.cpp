// Correlation of a metric with human ratings: the statistical-alignment test of SPEC §5.
#include <cmath>
#include <numeric>

#include "probity/audit.hpp"
#include "probity/stats.hpp"

namespace probity {

std::vector<std::vector<double>> human_matrix(const Dataset& ds, std::span<const ItemRef> items,
                                              const std::vector<std::string>& dimensions) {
  std::vector<std::vector<double>> human(dimensions.size(), std::vector<double>(items.size()));
  for (std::size_t d = 0; d < dimensions.size(); ++d)
    for (std::size_t i = 0; i < items.size(); ++i)
      human[d][i] =
          ds.tasks[items[i].task].candidates[items[i].candidate].human_mean(dimensions[d]);
  return human;
}

namespace {

// Values of both series at the given item indices where both are defined.
void defined_pairs(std::span<const double> a, std::span<const double> b,
                   std::span<const std::size_t> idx, std::vector<double>& x,
                   std::vector<double>& y) {
  x.clear();
  y.clear();
  for (std::size_t i : idx) {
    if (std::isfinite(a[i]) && std::isfinite(b[i])) {
      x.push_back(a[i]);
      y.push_back(b[i]);
    }
  }
}

}  // namespace

std::vector<CorrelationResult> human_correlations(std::span<const double> scores,
                                                  const std::vector<std::vector<double>>& human,
                                                  const std::vector<std::string>& dimensions,
                                                  const CorrelationOptions& options) {
  const double nan = std::nan("");
  stats::BootstrapOptions bo;
  bo.resamples = options.bootstrap;
  bo.confidence = options.confidence;
  bo.seed = options.seed;
  bo.threads = options.threads;

  std::vector<std::size_t> all(scores.size());
  std::iota(all.begin(), all.end(), 0);
  std::vector<CorrelationResult> rows;
  std::vector<double> x, y;
  for (std::size_t d = 0; d < dimensions.size(); ++d) {
    defined_pairs(scores, human[d], all, x, y);
    CorrelationResult r;
    r.dimension = dimensions[d];
    r.n = x.size();
    auto sp = stats::spearman(x, y);
    r.spearman = sp.statistic;
    r.spearman_p = sp.p_two_sided;
    r.kendall = stats::kendall_tau_b(x, y).statistic;
    r.pearson = stats::pearson(x, y).statistic;
    r.spearman_lo = r.spearman_hi = nan;
    if (options.bootstrap > 0 && x.size() > 2) {
      auto b = stats::bootstrap_correlation(x, y, stats::CorrelationType::kSpearman, bo);
      r.spearman_lo = b.ci.low;
      r.spearman_hi = b.ci.high;
    }
    rows.push_back(r);
  }
  if (dimensions.size() < 2) return rows;

  CorrelationResult m;
  m.dimension = "mean";
  m.n = 0;
  for (const auto& r : rows) m.n = std::max(m.n, r.n);
  for (const auto& r : rows) {
    m.spearman += r.spearman;
    m.kendall += r.kendall;
    m.pearson += r.pearson;
  }
  const double nd = static_cast<double>(rows.size());
  m.spearman /= nd;
  m.kendall /= nd;
  m.pearson /= nd;
  m.spearman_p = nan;  // a mean of correlations has no single test
  m.spearman_lo = m.spearman_hi = nan;
  if (options.bootstrap > 0 && scores.size() > 2) {
    // The same item resample for every dimension, so the CI reflects their dependence.
    auto b = stats::bootstrap(
        scores.size(),
        [&](std::span<const std::size_t> idx) {
          std::vector<double> bx, by;
          double sum = 0;
          for (std::size_t d = 0; d < dimensions.size(); ++d) {
            defined_pairs(scores, human[d], idx, bx, by);
            sum += stats::spearman(bx, by).statistic;
          }
          return sum / static_cast<double>(dimensions.size());
        },
        bo);
    m.spearman_lo = b.ci.low;
    m.spearman_hi = b.ci.high;
  }
  rows.push_back(m);
  return rows;
}

}  // namespace probity
