// The human ceiling: how well one rater agrees with the others, at the statistics and levels of
// the metric rows, and Krippendorff's α of the raters. A metric is compared with the mean of all
// raters, so a correlation near this row is as good as another human would do.
#include <cmath>
#include <numeric>
#include <optional>
#include <vector>

#include "probity/audit.hpp"
#include "probity/stats.hpp"
#include "stats/mtme.hpp"

namespace probity {

namespace {

constexpr double kNaN = std::numeric_limits<double>::quiet_NaN();

// Rater position k of each item against the mean of the item's other ratings, NaN where the item
// has no rating k or no other rating.
struct LeaveOneOut {
  std::vector<std::vector<double>> rater, others;  // [k][item]
};

LeaveOneOut leave_one_out(const Dataset& ds, std::span<const ItemRef> items,
                          const std::string& dimension) {
  std::size_t raters = 0;
  std::vector<const std::vector<double>*> ratings(items.size(), nullptr);
  for (std::size_t i = 0; i < items.size(); ++i) {
    const auto& human = ds.tasks[items[i].task].candidates[items[i].candidate].human;
    if (auto it = human.find(dimension); it != human.end()) {
      ratings[i] = &it->second;
      raters = std::max(raters, it->second.size());
    }
  }
  LeaveOneOut out;
  out.rater.assign(raters, std::vector<double>(items.size(), kNaN));
  out.others.assign(raters, std::vector<double>(items.size(), kNaN));
  for (std::size_t i = 0; i < items.size(); ++i) {
    if (!ratings[i]) continue;
    const auto& r = *ratings[i];
    for (std::size_t k = 0; k < r.size(); ++k) {
      if (!std::isfinite(r[k])) continue;
      double sum = 0;
      std::size_t n = 0;
      for (std::size_t j = 0; j < r.size(); ++j)
        if (j != k && std::isfinite(r[j])) {
          sum += r[j];
          ++n;
        }
      if (n == 0) continue;
      out.rater[k][i] = r[k];
      out.others[k][i] = sum / static_cast<double>(n);
    }
  }
  return out;
}

// The mean over rater positions of `coefficient` on the items `idx` where both are defined.
template <class F>
double mean_over_raters(const LeaveOneOut& loo, std::span<const std::size_t> idx, F coefficient) {
  double sum = 0;
  std::size_t n = 0;
  std::vector<double> x, y;
  for (std::size_t k = 0; k < loo.rater.size(); ++k) {
    x.clear();
    y.clear();
    for (std::size_t i : idx)
      if (std::isfinite(loo.rater[k][i]) && std::isfinite(loo.others[k][i])) {
        x.push_back(loo.rater[k][i]);
        y.push_back(loo.others[k][i]);
      }
    if (x.size() < 3) continue;
    const double v = coefficient(x, y);
    if (!std::isfinite(v)) continue;
    sum += v;
    ++n;
  }
  return n == 0 ? kNaN : sum / static_cast<double>(n);
}

double spearman_of(std::span<const double> x, std::span<const double> y) {
  return stats::spearman(x, y).statistic;
}

}  // namespace

std::optional<MetricCorrelations> human_ceiling(const Dataset& ds, std::span<const ItemRef> items,
                                                const std::vector<std::string>& dimensions,
                                                std::span<const stats::Level> levels,
                                                std::span<const stats::LevelStatistic> statistics,
                                                const CorrelationOptions& options) {
  std::vector<LeaveOneOut> loo;
  MetricCorrelations c;
  c.metric = "humans";
  c.humans = true;
  bool several = false;
  for (const auto& dim : dimensions) {
    loo.push_back(leave_one_out(ds, items, dim));
    RaterAgreement a;
    a.dimension = dim;
    a.raters = loo.back().rater.size();
    std::vector<std::vector<double>> units;
    for (const auto& item : items) {
      const auto& human = ds.tasks[item.task].candidates[item.candidate].human;
      auto it = human.find(dim);
      if (it == human.end()) continue;
      std::vector<double> defined;
      for (double v : it->second)
        if (std::isfinite(v)) defined.push_back(v);
      a.units += defined.size() >= 2;
      units.push_back(std::move(defined));
    }
    several = several || a.units > 0;
    a.alpha_interval = stats::krippendorff_alpha(units, stats::AlphaMetric::kInterval);
    a.alpha_ordinal = stats::krippendorff_alpha(units, stats::AlphaMetric::kOrdinal);
    c.agreement.push_back(std::move(a));
  }
  if (!several) return std::nullopt;

  stats::BootstrapOptions bo;
  bo.resamples = options.bootstrap;
  bo.confidence = options.confidence;
  bo.seed = options.seed;
  bo.threads = options.threads;
  std::vector<std::size_t> all(items.size());
  std::iota(all.begin(), all.end(), 0);
  auto pairs = [&](const LeaveOneOut& l) {
    std::size_t n = 0;
    for (std::size_t i = 0; i < items.size(); ++i)
      n += !l.rater.empty() && std::isfinite(l.rater[0][i]) && std::isfinite(l.others[0][i]);
    return n;
  };
  auto row = [&](const std::string& name, std::span<const LeaveOneOut> dims) {
    CorrelationResult r;
    r.dimension = name;
    for (const auto& l : dims) r.n = std::max(r.n, pairs(l));
    auto mean_of = [&](std::span<const std::size_t> idx, auto coefficient) {
      double sum = 0;
      for (const auto& l : dims) sum += mean_over_raters(l, idx, coefficient);
      return sum / static_cast<double>(dims.size());
    };
    r.spearman = mean_of(all, spearman_of);
    r.kendall = mean_of(all, [](std::span<const double> x, std::span<const double> y) {
      return stats::kendall_tau_b(x, y).statistic;
    });
    r.pearson = mean_of(all, [](std::span<const double> x, std::span<const double> y) {
      return stats::pearson(x, y).statistic;
    });
    r.spearman_p = kNaN;  // a mean of correlations has no single test
    r.spearman_lo = r.spearman_hi = kNaN;
    if (options.bootstrap > 0 && items.size() > 2) {
      const auto b = stats::bootstrap(
          items.size(), [&](std::span<const std::size_t> idx) { return mean_of(idx, spearman_of); },
          bo);
      r.spearman_lo = b.ci.low;
      r.spearman_hi = b.ci.high;
    }
    return r;
  };
  for (std::size_t d = 0; d < dimensions.size(); ++d)
    c.rows.push_back(row(dimensions[d], std::span(loo).subspan(d, 1)));
  if (dimensions.size() >= 2) c.rows.push_back(row("mean", loo));

  for (std::size_t d = 0; d < dimensions.size(); ++d)
    for (stats::Level level : levels)
      for (stats::LevelStatistic statistic : statistics) {
        if (!stats::detail::level_defines(statistic, level)) continue;
        LevelCorrelation lc;
        lc.dimension = dimensions[d];
        lc.level = level;
        lc.statistic = statistic;
        lc.unit = "none";
        double sum = 0;
        std::size_t n = 0;
        for (std::size_t k = 0; k < loo[d].rater.size(); ++k) {
          const auto data = level_data(ds, items, loo[d].rater[k], loo[d].others[k]);
          const auto result = stats::level_statistic(statistic, level, data);
          if (!std::isfinite(result.value)) continue;
          if (n == 0) lc.result = result;
          sum += result.value;
          ++n;
        }
        lc.result.value = n == 0 ? kNaN : sum / static_cast<double>(n);
        c.levels.push_back(std::move(lc));
      }
  return c;
}

}  // namespace probity
