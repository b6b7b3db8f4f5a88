// `probity rank`: significance clusters of metrics at a meta-evaluation level, as WMT reports
// them (mt-metrics-eval ComputeSigMatrix + AssignRanks; docs/meta-eval.md). The ranking itself is
// rank_metrics (src/audit/correlation.cpp), which the audit's --rank uses too.
#include <fmt/format.h>

#include <cmath>
#include <nlohmann/json.hpp>

#include "cli/commands.hpp"
#include "cli/output.hpp"
#include "probity/audit.hpp"
#include "probity/error.hpp"
#include "probity/stats.hpp"

namespace probity::cli {

int run_rank(const RankRequest& args) {
  ScoredData l = load_scored(args.data, args.scores, args.metrics, args.dimensions,
                             args.skip_invalid, args.allow_missing);
  if (l.columns.size() < 2) throw UsageError("rank needs at least two metrics");
  RankOptions ro;
  ro.level = stats::parse_level(args.level);
  ro.statistic = stats::parse_level_statistic(args.statistic);
  ro.permutations = args.permutations;
  ro.correction = parse_rank_correction(args.correction);
  ro.alpha = args.alpha;
  ro.seed = args.seed;
  ro.threads = args.threads;
  const auto human = human_matrix(l.ds, l.items, l.dims);
  std::vector<NamedScores> columns;
  for (const auto& c : l.columns) columns.push_back({c.metric, c.values});
  const auto rankings = rank_metrics(l.ds, l.items, columns, human, l.dims, ro);
  json out = json::array();
  for (std::size_t d = 0; d < rankings.size(); ++d) {
    const MetricRanking& r = rankings[d];
    json rows = json::array(), tests = json::array();
    std::vector<std::vector<std::string>> table{{"rank", "metric", args.statistic}};
    for (const auto& e : r.ranking) {
      rows.push_back({{"metric", e.metric}, {"rank", e.rank}, {"value", number(e.value)}});
      table.push_back({std::to_string(e.rank), e.metric, fixed(e.value)});
    }
    for (const auto& t : r.tests)
      tests.push_back({{"better", t.better},
                       {"worse", t.worse},
                       {"p", number(t.p)},
                       {"p_adjusted", number(t.p_adjusted)}});
    out.push_back({{"dimension", r.dimension}, {"ranking", rows}, {"tests", tests}});
    if (!args.json) {
      fmt::print("{}{} ({} level, {})\n", d ? "\n" : "", r.dimension, args.level, args.statistic);
      print_table(table, 2);
    }
  }
  if (args.json) {
    json doc = {{"data", args.data.name()},
                {"scores", files_json(args.scores)},
                {"level", args.level},
                {"statistic", args.statistic},
                {"permutations", args.permutations},
                {"correction", args.correction},
                {"alpha", args.alpha},
                {"seed", args.seed},
                {"results", out}};
    fmt::print("{}\n", doc.dump(2));
    return kExitOk;
  }
  const std::size_t m = l.columns.size();
  fmt::print(
      "\nA metric starts a new cluster when a metric of the cluster above beats it: one-sided "
      "paired permutation test ({} permutations, each metric z-scored, scores swapped per {}), "
      "{} over all {} pairs, alpha {}.\n",
      args.permutations, ro.level == stats::Level::kSystem ? "system" : "candidate",
      ro.correction == RankCorrection::kNone   ? "no correction"
      : ro.correction == RankCorrection::kHolm ? "Holm"
                                               : "Benjamini-Hochberg",
      m * (m - 1) / 2, args.alpha);
  return kExitOk;
}

}  // namespace probity::cli
