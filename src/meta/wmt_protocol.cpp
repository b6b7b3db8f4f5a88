// `probity rank --protocol wmt24|wmt25`: mt-metrics-eval's WMT24/WMT25 task sets (tasks.py,
// commit 68a481a) on a test set in mt-metrics-eval's layout. Per language pair two tasks: soft
// pairwise accuracy at the system level from segment scores (significance: the `scores`
// permutation test with the PCE statistic) and acc23 grouped by segment (significance: the
// `pairs` test); each ranks the metrics into clusters on raw p-values; then the averages
// (wmt_average.cpp). Which systems and metrics enter follows data.GetCorrelations.
#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <map>
#include <optional>
#include <set>
#include <stdexcept>

#include "data/mtme_eval_set.hpp"
#include "meta/wmt_average.hpp"
#include "probity/dataset.hpp"
#include "probity/error.hpp"
#include "probity/stats.hpp"
#include "probity/wmt.hpp"
#include "stats/mtme.hpp"
#include "stats/mtme_detail.hpp"
#include "util/enum_names.hpp"
#include "util/parallel.hpp"

namespace probity {

namespace {

constexpr auto kProtocols = std::to_array<util::EnumName<WmtProtocol>>(
    {{WmtProtocol::kWmt24, "wmt24"}, {WmtProtocol::kWmt25, "wmt25"}});
constexpr auto kStatistics = std::to_array<util::EnumName<WmtStatistic>>(
    {{WmtStatistic::kSpa, "spa"}, {WmtStatistic::kAccEq, "acc-eq"}});

// tasks.py's PermutationSigDiffParams for the WMT tasks (Task defaults).
constexpr std::size_t kBlockSize = 100;
constexpr double kEarlyMin = 0.02, kEarlyMax = 0.5;
// The numpy.random.seed of each test: seed + kTaskStride * task + pair (see the golden script).
constexpr std::uint64_t kTaskStride = 100000;

// One metric's scores on the task's systems (sorted) × segments, NaN where missing.
struct MetricColumn {
  std::string name;  // display name
  WmtMetricStatus status = WmtMetricStatus::kPrimary;
  std::vector<double> scores;
};

struct TaskData {
  std::vector<std::string> systems;
  std::size_t segments = 0;
  std::vector<double> gold;  // systems × segments, NaN = no human score
  std::vector<MetricColumn> metrics;
};

std::string display_name(const std::string& base, bool primary, bool noref) {
  return (primary ? "" : "*") + base + (noref ? "[noref]" : "");
}

std::map<std::string, double> mqm_weight_table(const WmtRankRequest& request) {
  return parse_mqm_weights(request.mqm_weights == "default" ? default_mqm_weights()
                                                            : request.mqm_weights);
}

// The rating set --mqm-ratings names, or the one named as the gold, or the only one whose name
// starts with it (mt-metrics-eval ships e.g. en-de.mqm.merged.seg.rating beside en-de.mqm).
const MtmeRatings& mqm_ratings_of(const MtmeEvalSet& evs, const std::string& gold,
                                  const WmtRankRequest& request) {
  std::vector<std::string> names, candidates;
  for (const auto& [name, r] : evs.ratings) {
    names.push_back(name);
    if (request.mqm_ratings.empty() ? name == gold || name.rfind(gold + ".", 0) == 0
                                    : name == request.mqm_ratings)
      candidates.push_back(name);
  }
  if (candidates.size() != 1)
    throw InputError(
        request.test_set_dir + "/human-scores", 0, evs.lp,
        fmt::format("--mqm-weights needs one rating set {} (rating sets of {}: {}); name it "
                    "with --mqm-ratings",
                    request.mqm_ratings.empty() ? "named like the gold '" + gold + "'"
                                                : "'" + request.mqm_ratings + "'",
                    evs.lp, names.empty() ? "none" : fmt::format("{}", fmt::join(names, ", "))));
  return evs.ratings.at(candidates.front());
}

// data.GetCorrelations(evs, 'seg', {std_ref}, close_refs = {}, human, use_outliers = false,
// gold, primary): systems are the outputs minus the standard reference, minus human outputs
// unless `human`, minus outliers, among those with any human score; metrics use only the
// standard reference (or none), primary ones only when the test set names primaries.
TaskData task_data(const MtmeEvalSet& evs, const MtmeProtocol& info,
                   const WmtRankRequest& request) {
  const std::string& gold_name = info.std_gold.at("seg");
  const MtmeScores* gold_scores = evs.scores("seg", gold_name);
  MtmeScores reweighted;
  if (!request.mqm_weights.empty()) {
    reweighted = mqm_scores(mqm_ratings_of(evs, gold_name, request), mqm_weight_table(request));
    gold_scores = &reweighted;
  }
  if (!gold_scores)
    throw InputError(
        request.test_set_dir, 0, "human-scores",
        fmt::format("no {}.{}.seg.score: the protocol's gold for {}", evs.lp, gold_name, evs.lp));
  std::set<std::string> primaries = info.primary_metrics;
  primaries.insert(request.extra.begin(), request.extra.end());
  TaskData d;
  for (const auto& sys : evs.sys_names) {
    if (sys == info.std_ref) continue;
    if (!info.human && evs.human_systems.count(sys)) continue;
    if (info.outlier_systems.count(sys)) continue;
    const auto g = gold_scores->find(sys);
    if (g == gold_scores->end()) continue;
    if (std::all_of(g->second.begin(), g->second.end(), [](double v) { return std::isnan(v); }))
      continue;
    d.systems.push_back(sys);  // a std::set: sorted, as the golden orders them
  }
  d.segments = evs.units("seg");
  for (const auto& sys : d.systems) {
    const auto& g = gold_scores->at(sys);
    d.gold.insert(d.gold.end(), g.begin(), g.end());
  }
  for (const auto& metric : evs.metric_names) {
    const MtmeScores* scores = evs.scores("seg", metric);
    if (!scores) continue;  // not at the segment level
    const auto [base, refs] = parse_mtme_metric_name(metric, evs.ref_names, request.test_set_dir);
    const bool primary = primaries.count(base) > 0;
    if (request.primary_only && !primaries.empty() && !primary) continue;
    if (!std::all_of(refs.begin(), refs.end(),
                     [&](const std::string& r) { return r == info.std_ref; }))
      continue;
    MetricColumn c;
    c.name = display_name(base, primary, refs.empty());
    c.status = !primary                            ? WmtMetricStatus::kContrastive
               : info.baseline_metrics.count(base) ? WmtMetricStatus::kBaseline
                                                   : WmtMetricStatus::kPrimary;
    for (const auto& sys : d.systems) {
      const auto s = scores->find(sys);
      if (s == scores->end())
        throw InputError(
            request.test_set_dir + "/metric-scores/" + evs.lp + "/" + metric + ".seg.score", 0, sys,
            "no scores for this system, which the protocol ranks");
      c.scores.insert(c.scores.end(), s->second.begin(), s->second.end());
    }
    d.metrics.push_back(std::move(c));
  }
  return d;
}

// The cells with a human score, as filter_gold_nones leaves them: the same segments must remain
// for every system, since PCE reshapes them into systems × segments.
struct Cells {
  std::vector<std::size_t> index;  // into the systems × segments arrays
  std::size_t per_system = 0;
};

Cells rated_cells(const TaskData& d, const std::string& lp) {
  Cells c;
  const std::size_t n = d.systems.size();
  for (std::size_t s = 0; s < n; ++s) {
    std::size_t count = 0;
    for (std::size_t j = 0; j < d.segments; ++j)
      if (!std::isnan(d.gold[s * d.segments + j])) {
        c.index.push_back(s * d.segments + j);
        ++count;
      }
    if (s == 0) c.per_system = count;
    if (count != c.per_system)
      throw InputError(lp, 0, "human scores",
                       fmt::format("system '{}' has {} rated segments and '{}' {}: soft pairwise "
                                   "accuracy needs the same segments rated for every system",
                                   d.systems[s], count, d.systems[0], c.per_system));
  }
  return c;
}

std::vector<double> take(const std::vector<double>& values, const std::vector<std::size_t>& at) {
  std::vector<double> out;
  out.reserve(at.size());
  for (std::size_t i : at) out.push_back(values[i]);
  return out;
}

WmtTaskResult run_task(const TaskData& d, WmtStatistic statistic, std::size_t task_index,
                       const std::string& lp, const WmtRankRequest& request) {
  WmtTaskResult r;
  r.lp = lp;
  r.statistic = statistic;
  r.systems = d.systems.size();
  r.segments = d.segments;
  const std::size_t m = d.metrics.size();
  std::vector<double> value(m);
  std::optional<stats::PceDraws> draws;
  std::vector<double> gold_p;
  if (statistic == WmtStatistic::kSpa) {
    const Cells cells = rated_cells(d, lp);
    draws.emplace(cells.per_system);
    gold_p = stats::pce_pairwise_p_values(*draws, take(d.gold, cells.index), r.systems);
  }
  const auto item_rows =
      stats::detail::mtme_groups(d.gold.size(), r.systems, stats::MtmeAverageBy::kItem);
  util::parallel_for(m, request.threads, [&](std::size_t k) {
    if (statistic == WmtStatistic::kSpa) {
      value[k] = stats::mtme_soft_pairwise_accuracy(*draws, d.gold, d.metrics[k].scores, r.systems);
    } else {
      // KendallWithTiesOpt(avg_by='item') with MTME's float search, whose last bits order
      // metrics of equal exact accuracy as the WMT tables do.
      value[k] = stats::mtme_tau_optimization(d.gold, d.metrics[k].scores, item_rows).value;
    }
  });
  // Decreasing value, ties by display name (CompareMetrics' sort key).
  std::vector<std::size_t> order(m);
  for (std::size_t i = 0; i < m; ++i) order[i] = i;
  std::sort(order.begin(), order.end(), [&](std::size_t a, std::size_t b) {
    if (value[a] != value[b]) return value[a] > value[b];
    return d.metrics[a].name < d.metrics[b].name;
  });
  for (std::size_t i : order) {
    r.metrics.push_back(d.metrics[i].name);
    r.values.push_back(value[i]);
  }
  if (request.permutations == 0) {
    r.ranks.assign(m, 0);
    return r;
  }
  r.sig.assign(m, std::vector<double>(m, 1.0));
  r.draws.assign(m, std::vector<std::vector<std::array<double, 2>>>(m));
  std::vector<std::pair<std::size_t, std::size_t>> pairs;
  for (std::size_t i = 0; i < m; ++i)
    for (std::size_t j = i + 1; j < m; ++j) pairs.emplace_back(i, j);
  r.permutations_used.assign(pairs.size(), 0);
  util::parallel_for(
      pairs.size(), request.threads,
      [&](std::size_t p) {
        const auto [i, j] = pairs[p];
        // MTME's ComputeSigMatrix passes the lower-ranked metric first: p is for the better one.
        const auto& better = d.metrics[order[i]].scores;
        const auto& worse = d.metrics[order[j]].scores;
        stats::MtmeSigDiffOptions o;
        o.k = request.permutations;
        o.block_size = kBlockSize;
        o.early_min = kEarlyMin;
        o.early_max = kEarlyMax;
        o.seed = static_cast<std::uint32_t>(request.seed + kTaskStride * task_index + p);
        o.mtme_stream = request.mtme_stream;
        const stats::MtmeSigDiffResult t =
            statistic == WmtStatistic::kSpa
                ? stats::mtme_pce_permutation_test(*draws, d.gold, worse, better, r.systems, o)
                : stats::mtme_pairs_permutation_test(d.gold, worse, better, r.systems,
                                                     stats::MtmeAverageBy::kItem, o);
        r.sig[i][j] = t.p_value;
        r.permutations_used[p] = t.draws;
        auto& out = r.draws[i][j];
        out.reserve(t.resampled.size());
        for (const auto& [c2, c1] : t.resampled) out.push_back({c2, c1});
      },
      1);
  r.ranks = stats::significance_ranks(r.values, r.sig, request.alpha);
  return r;
}

}  // namespace

WmtProtocol parse_wmt_protocol(std::string_view name) {
  if (auto p = util::parse_enum(kProtocols, name)) return *p;
  throw std::invalid_argument(
      fmt::format("unknown protocol '{}' (protocols: {})", name, util::listed_names(kProtocols)));
}
std::string_view wmt_protocol_name(WmtProtocol protocol) {
  return util::name_of(kProtocols, protocol);
}
std::string_view wmt_statistic_name(WmtStatistic statistic) {
  return util::name_of(kStatistics, statistic);
}

WmtRankResult run_wmt_protocol(const WmtRankRequest& request,
                               const std::function<void(const std::string&)>& progress) {
  const std::string test_set(wmt_protocol_name(request.protocol));
  WmtRankResult result;
  result.protocol = request.protocol;
  result.lps = request.lps.empty() ? mtme_task_lps(test_set) : request.lps;
  std::sort(result.lps.begin(), result.lps.end());
  result.lps.erase(std::unique(result.lps.begin(), result.lps.end()), result.lps.end());
  const std::size_t tasks = 2 * result.lps.size();
  std::size_t task_index = 0;
  std::map<std::string, WmtMetricStatus> status;
  for (const auto& lp : result.lps) {
    const MtmeProtocol* info = find_mtme_protocol(test_set, lp);
    if (!info)
      throw UsageError(fmt::format("{} has no language pair '{}' (pairs: {})", test_set, lp,
                                   fmt::join(mtme_task_lps(test_set), ", ")));
    MtmeReadOptions read;
    read.read_ratings = !request.mqm_weights.empty();
    const MtmeEvalSet evs = read_mtme_eval_set(request.test_set_dir, lp, read);
    check_mtme_protocol(evs, *info, request.test_set_dir);
    const TaskData d = task_data(evs, *info, request);
    if (d.metrics.size() < 2)
      throw InputError(request.test_set_dir, 0, lp,
                       fmt::format("{} metric(s) at the segment level after the protocol's "
                                   "selection; a ranking needs two",
                                   d.metrics.size()));
    for (const auto& c : d.metrics) status[c.name] = c.status;
    for (WmtStatistic s : {WmtStatistic::kSpa, WmtStatistic::kAccEq}) {
      if (progress)
        progress(fmt::format("{} {}: {} metrics, {} systems, {} segments", lp,
                             wmt_statistic_name(s), d.metrics.size(), d.systems.size(),
                             d.segments));
      WmtTaskResult t = run_task(d, s, task_index++, lp, request);
      t.human = info->human;
      t.weight = 1.0 / static_cast<double>(tasks);
      result.tasks.push_back(std::move(t));
    }
    result.conventions.push_back(fmt::format(
        "{}: reference {}; human translations {}; outliers left out: {}; gold '{}'{}", lp,
        info->std_ref, info->human ? "ranked as systems" : "left out",
        info->outlier_systems.empty() ? std::string("none")
                                      : fmt::format("{}", fmt::join(info->outlier_systems, ", ")),
        info->std_gold.at("seg"),
        request.mqm_weights.empty()
            ? std::string()
            : fmt::format(" re-weighted from its MQM error spans ({})", request.mqm_weights)));
  }
  detail::average_wmt_tasks(result, request.alpha);
  for (auto& row : result.average) row.status = status.at(row.metric);
  return result;
}

}  // namespace probity
