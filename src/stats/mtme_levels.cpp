// mt-metrics-eval's SPA, PDP and Kendall-like as level statistics (`--statistic spa|pdp|
// kendall-like`): a level's candidates laid out as MTME's systems x items matrix, missing cells
// as missing gold, then the matrix functions of mtme_*.cpp. Item level is MTME's
// average_by='none', task level 'item', system level the systems' means with 'none'.
#include <algorithm>
#include <cmath>
#include <map>
#include <stdexcept>
#include <string>

#include "probity/error.hpp"
#include "stats/kernels.hpp"
#include "stats/mtme.hpp"
#include "stats/mtme_detail.hpp"

namespace probity::stats::detail {
namespace {

constexpr double kNaN = std::numeric_limits<double>::quiet_NaN();
// PDP at the item level pairs every cell with every other: n^2 differences.
constexpr std::size_t kMaxPooledPdpCells = 20000;

// The candidates as rows x tasks (row = system, or the candidate's position in its task when no
// system is known), NaN where no candidate is.
struct Matrix {
  std::size_t rows = 0, columns = 0;
  std::vector<double> gold, metric;
};

Matrix by_task(const LevelData& d) {
  Matrix m;
  std::vector<std::size_t> row(d.gold.size());
  std::vector<std::size_t> seen(d.num_tasks, 0);
  // Rows are systems only when every candidate names one.
  const bool by_system =
      !d.system.empty() &&
      std::none_of(d.system.begin(), d.system.end(), [](std::size_t s) { return s == kNoSystem; });
  for (std::size_t i = 0; i < d.gold.size(); ++i) {
    row[i] = by_system ? d.system[i] : seen[d.task[i]]++;
    m.rows = std::max(m.rows, row[i] + 1);
  }
  m.columns = d.num_tasks;
  m.gold.assign(m.rows * m.columns, kNaN);
  m.metric.assign(m.rows * m.columns, kNaN);
  for (std::size_t i = 0; i < d.gold.size(); ++i) {
    const std::size_t cell = row[i] * m.columns + d.task[i];
    if (!std::isnan(m.gold[cell]))
      throw std::invalid_argument("two candidates of one task share a system");
    m.gold[cell] = d.gold[i];
    m.metric[cell] = d.metric[i];
  }
  return m;
}

// The systems' means (the system level's cells) as one row.
Matrix system_means_row(const LevelData& d) {
  LevelGroup g = level_system_means(d);
  Matrix m;
  m.rows = 1;
  m.columns = g.gold.size();
  m.gold = std::move(g.gold);
  m.metric = std::move(g.metric);
  return m;
}

// SPA needs every system on the same segments: the tasks every system answers.
LevelResult spa(const LevelData& d) {
  if (d.system.empty()) throw std::invalid_argument("spa: the candidates carry no system");
  // Candidates without a system take no part, as at the system level.
  LevelData named;
  named.num_tasks = d.num_tasks;
  named.num_systems = d.num_systems;
  for (std::size_t i = 0; i < d.gold.size(); ++i) {
    if (d.system[i] == kNoSystem) continue;
    named.gold.push_back(d.gold[i]);
    named.metric.push_back(d.metric[i]);
    named.task.push_back(d.task[i]);
    named.system.push_back(d.system[i]);
  }
  const Matrix full = by_task(named);
  std::vector<std::size_t> systems;
  for (std::size_t s = 0; s < full.rows; ++s)
    for (std::size_t t = 0; t < full.columns; ++t)
      if (!std::isnan(full.gold[s * full.columns + t])) {
        systems.push_back(s);
        break;
      }
  std::vector<std::size_t> tasks;
  for (std::size_t t = 0; t < full.columns; ++t) {
    bool all = true;
    for (std::size_t s : systems) all = all && !std::isnan(full.gold[s * full.columns + t]);
    if (all) tasks.push_back(t);
  }
  LevelResult r;
  r.n = systems.size();
  r.groups = tasks.size();
  r.skipped = full.columns - tasks.size();
  if (systems.size() < 2 || tasks.empty()) return r;
  std::vector<double> gold, metric;
  for (std::size_t s : systems)
    for (std::size_t t : tasks) {
      gold.push_back(full.gold[s * full.columns + t]);
      metric.push_back(full.metric[s * full.columns + t]);
    }
  const PceDraws draws(tasks.size());
  r.value = mtme_soft_pairwise_accuracy(draws, gold, metric, systems.size());
  return r;
}

struct RowCount {
  std::size_t used = 0, skipped = 0;
  bool kendall_like_pairs = false;  // a pair of gold scores at least kKendallLikeThreshold apart
};

constexpr double kKendallLikeThreshold = 25.0;

RowCount mtme_rows(const Matrix& m, MtmeAverageBy by) {
  RowCount c;
  for (const auto& row : mtme_groups(m.gold.size(), m.rows, by)) {
    std::vector<double> gold;
    for (std::size_t i : row)
      if (!std::isnan(m.gold[i])) gold.push_back(m.gold[i]);
    (gold.size() >= 2 ? c.used : c.skipped) += 1;
    if (gold.size() < 2 || c.kendall_like_pairs) continue;
    const auto [lo, hi] = std::minmax_element(gold.begin(), gold.end());
    c.kendall_like_pairs = *hi - *lo >= kKendallLikeThreshold;
  }
  return c;
}

}  // namespace

bool is_mtme_statistic(LevelStatistic s) {
  return s == LevelStatistic::kSpa || s == LevelStatistic::kPdp ||
         s == LevelStatistic::kKendallLike;
}

LevelResult mtme_level_statistic(LevelStatistic s, Level level, const LevelData& all) {
  // The usable candidates (finite gold and metric), as every level statistic takes them.
  LevelData d;
  d.num_tasks = all.num_tasks;
  d.num_systems = all.num_systems;
  for (std::size_t i = 0; i < all.gold.size(); ++i) {
    if (!std::isfinite(all.gold[i]) || !std::isfinite(all.metric[i])) continue;
    d.gold.push_back(all.gold[i]);
    d.metric.push_back(all.metric[i]);
    d.task.push_back(all.task[i]);
    if (!all.system.empty()) d.system.push_back(all.system[i]);
  }
  if (s == LevelStatistic::kSpa) {
    if (level != Level::kSystem)
      throw UsageError(
          "spa is a system-level statistic (soft pairwise accuracy of the system ranking): use "
          "--level system");
    return spa(d);
  }
  LevelResult r;
  r.n = d.gold.size();
  Matrix m;
  MtmeAverageBy by = MtmeAverageBy::kNone;
  if (level == Level::kTask) {
    m = by_task(d);
    by = MtmeAverageBy::kItem;
  } else if (level == Level::kSystem) {
    m = system_means_row(d);
    r.n = m.columns;
  } else {
    m.rows = 1;
    m.columns = d.gold.size();
    m.gold = d.gold;
    m.metric = d.metric;
  }
  if (m.gold.size() < 2) return r;
  // The rows MTME correlates: tasks at the task level, one row otherwise; a row with two cells
  // or more counts (groups), the others are skipped.
  const auto rows = mtme_rows(m, by);
  r.groups = rows.used;
  r.skipped = rows.skipped;
  if (s == LevelStatistic::kKendallLike && !rows.kendall_like_pairs) {
    // MTME returns 0 when no gold pair is 25 apart (its scale is DA's 0-100); that is no
    // evidence of anything, so the value is undefined here.
    r.groups = 0;
    return r;
  }
  if (s == LevelStatistic::kPdp) {
    if (by == MtmeAverageBy::kNone && m.gold.size() > kMaxPooledPdpCells)
      throw std::invalid_argument("pdp pools all " + std::to_string(m.gold.size()) +
                                  " candidates into n^2 differences; use --level task or system");
    r.value = mtme_pdp_pearson(m.gold, m.metric, m.rows, by);
  } else {
    r.value = mtme_kendall_like(m.gold, m.metric, m.rows, by, kKendallLikeThreshold);
  }
  if (std::isnan(r.value)) r.groups = 0;
  return r;
}

}  // namespace probity::stats::detail

namespace probity::stats {

PermutationResult level_pairs_permutation_test(Level level, const LevelData& data,
                                               std::span<const double> metric_b,
                                               const PermutationOptions& options) {
  // The cells: candidates with all three scores.
  LevelData a, b;
  detail::paired_cells(data, metric_b, a, b);
  detail::Matrix ma, mb;
  MtmeAverageBy by = MtmeAverageBy::kNone;
  if (level == Level::kTask) {
    ma = detail::by_task(a);
    mb = detail::by_task(b);
    by = MtmeAverageBy::kItem;
  } else if (level == Level::kSystem) {
    ma = detail::system_means_row(a);
    mb = detail::system_means_row(b);
  } else {
    ma.rows = mb.rows = 1;
    ma.gold = mb.gold = a.gold;
    ma.metric = a.metric;
    mb.metric = b.metric;
  }
  PermutationResult r;
  if (ma.gold.size() < 2) {
    r.delta = r.p = std::numeric_limits<double>::quiet_NaN();
    return r;
  }
  MtmeSigDiffOptions o;
  o.k = options.permutations;
  o.block_size = options.permutations;  // no early stopping
  o.seed = static_cast<std::uint32_t>(options.seed ^ (options.seed >> 32));
  o.mtme_stream = false;
  // MTME's p is for its second metric beating its first: B first, A second.
  const MtmeSigDiffResult t =
      mtme_pairs_permutation_test(ma.gold, mb.metric, ma.metric, ma.rows, by, o);
  r.delta = t.delta;
  r.permutations = t.draws;
  if (options.alternative == Alternative::kTwoSided) {
    for (const auto& [c2, c1] : t.resampled) r.extreme += std::fabs(c2 - c1) >= std::fabs(t.delta);
  } else {
    for (const auto& [c2, c1] : t.resampled)
      r.extreme +=
          options.alternative == Alternative::kGreater ? c2 - c1 >= t.delta : c2 - c1 <= t.delta;
  }
  r.p = options.add_one
            ? (static_cast<double>(r.extreme) + 1.0) / (static_cast<double>(r.permutations) + 1.0)
            : static_cast<double>(r.extreme) / static_cast<double>(r.permutations);
  return r;
}

}  // namespace probity::stats
