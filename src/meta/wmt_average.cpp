// mt-metrics-eval's TaskSetResults.AverageCorrs / AverageRanks / AverageCorrMatrix (tasks.py,
// commit 68a481a), with its summation orders: Python's sum over tasks left to right, NumPy's
// axis-0 sum of the tiled draws row by row. Both WMT24/25 statistics range over [0, 1], so the
// range map (value - b) / (e - b) is kept only for its rounding.
#include "meta/wmt_average.hpp"

#include <algorithm>
#include <cmath>
#include <map>
#include <stdexcept>

#include "probity/error.hpp"
#include "probity/stats.hpp"

namespace probity::detail {
namespace {

constexpr double kRangeLow = 0, kRangeHigh = 1;

// The metrics of every task in first-seen order (tasks in order, each task's metrics in its
// sorted order), as the Python dicts keep them.
std::vector<std::string> first_seen(const std::vector<WmtTaskResult>& tasks) {
  std::vector<std::string> order;
  std::map<std::string, bool> seen;
  for (const auto& t : tasks)
    for (const auto& m : t.metrics)
      if (!seen[m]) {
        seen[m] = true;
        order.push_back(m);
      }
  return order;
}

std::size_t index_of(const WmtTaskResult& t, const std::string& metric) {
  return static_cast<std::size_t>(std::find(t.metrics.begin(), t.metrics.end(), metric) -
                                  t.metrics.begin());
}

double python_sum(const std::vector<double>& parts) {
  double s = 0;
  for (double v : parts) s += v;
  return s;
}

// The draws of a task for (a, b) as (value of a, value of b), whichever order the task has.
std::vector<std::array<double, 2>> draws_of(const WmtTaskResult& t, std::size_t a, std::size_t b) {
  if (a < b) return t.draws[a][b];
  std::vector<std::array<double, 2>> out = t.draws[b][a];
  for (auto& d : out) std::swap(d[0], d[1]);
  return out;
}

}  // namespace

void average_wmt_tasks(WmtRankResult& result, double alpha) {
  const auto& tasks = result.tasks;
  if (tasks.empty()) return;
  const std::vector<std::string> metrics = first_seen(tasks);
  std::vector<WmtAverageRow> rows;
  for (const auto& m : metrics) {
    std::vector<double> values, ranks;
    for (const auto& t : tasks) {
      const std::size_t i = index_of(t, m);
      if (i == t.metrics.size()) break;
      values.push_back((t.values[i] - kRangeLow) / (kRangeHigh - kRangeLow) * t.weight);
      ranks.push_back(static_cast<double>(t.ranks[i]) * t.weight);
    }
    if (values.size() != tasks.size()) continue;
    WmtAverageRow row;
    row.metric = m;
    row.value = python_sum(values);
    row.average_rank = python_sum(ranks);
    rows.push_back(std::move(row));
  }
  std::stable_sort(rows.begin(), rows.end(), [](const WmtAverageRow& a, const WmtAverageRow& b) {
    return a.value > b.value;
  });

  const std::size_t n = rows.size();
  std::vector<std::vector<double>> sig(n, std::vector<double>(n, 1.0));
  const bool tested = std::all_of(tasks.begin(), tasks.end(),
                                  [](const WmtTaskResult& t) { return !t.draws.empty(); });
  if (tested) {
    for (std::size_t i = 0; i < n; ++i)
      for (std::size_t j = i + 1; j < n; ++j) {
        const double diff = rows[i].value - rows[j].value;
        std::vector<std::vector<double>> per_task;
        std::size_t max_draws = 0;
        for (const auto& t : tasks) {
          const auto d = draws_of(t, index_of(t, rows[i].metric), index_of(t, rows[j].metric));
          std::vector<double> deltas;
          for (const auto& pair : d)
            deltas.push_back(t.weight * (pair[0] - kRangeLow) / (kRangeHigh - kRangeLow) -
                             t.weight * (pair[1] - kRangeLow) / (kRangeHigh - kRangeLow));
          max_draws = std::max(max_draws, deltas.size());
          per_task.push_back(std::move(deltas));
        }
        if (max_draws == 0)
          throw std::logic_error("the average's test needs permutation draws from every task");
        std::size_t count = 0;
        for (std::size_t k = 0; k < max_draws; ++k) {
          // A task stopped early repeats its draws to fill the space (np.tile).
          double null_diff = 0;
          for (std::size_t t = 0; t < per_task.size(); ++t) {
            const auto& d = per_task[t];
            const double v = d.empty() ? 0.0 : d[k % d.size()];
            null_diff = t == 0 ? v : null_diff + v;
          }
          if (null_diff >= diff) ++count;
        }
        sig[i][j] = static_cast<double>(count) / static_cast<double>(max_draws);
      }
  }
  // Without draws there is no test, so no clusters: rank 0 says untested.
  if (tested) {
    std::vector<double> values;
    for (const auto& r : rows) values.push_back(r.value);
    const auto ranks = stats::significance_ranks(values, sig, alpha);
    for (std::size_t i = 0; i < n; ++i) rows[i].rank = ranks[i];
    result.average_sig = std::move(sig);
  }
  result.average = std::move(rows);
}

}  // namespace probity::detail
