// `probity rank`: significance clusters of metrics at a meta-evaluation level, as WMT reports
// them (mt-metrics-eval ComputeSigMatrix + AssignRanks; docs/meta-eval.md).
#include <fmt/format.h>

#include <cmath>
#include <nlohmann/json.hpp>

#include "cli/commands.hpp"
#include "cli/output.hpp"
#include "probity/audit.hpp"
#include "probity/error.hpp"
#include "probity/stats.hpp"
#include "util/hash.hpp"

namespace probity::cli {

int run_rank(const RankArgs& args) {
  ScoredData l = load_scored(args.data, args.scores, args.metrics, args.dimensions,
                             args.skip_invalid, args.allow_missing);
  if (l.columns.size() < 2) throw UsageError("rank needs at least two metrics");
  const stats::Level level = stats::parse_level(args.level);
  const stats::LevelStatistic statistic = stats::parse_level_statistic(args.statistic);
  const auto human = human_matrix(l.ds, l.items, l.dims);
  const std::size_t m = l.columns.size();
  json out = json::array();
  for (std::size_t d = 0; d < l.dims.size(); ++d) {
    std::vector<stats::LevelData> data;
    std::vector<double> values;
    for (const auto& c : l.columns) {
      data.push_back(level_data(l.ds, l.items, c.values, human[d]));
      require_systems(level, data.back());
      values.push_back(stats::level_statistic(statistic, level, data.back()).value);
    }
    // p[i][j]: one-sided p that i beats j, for every i above j in the order of the values.
    std::vector<std::size_t> order;
    stats::significance_ranks(
        values, std::vector<std::vector<double>>(m, std::vector<double>(m, 1)), args.alpha, &order);
    std::vector<std::vector<double>> p(m, std::vector<double>(m, std::nan("")));
    std::vector<std::pair<std::size_t, std::size_t>> pairs;
    std::vector<double> raw;
    for (std::size_t a = 0; a < m; ++a) {
      for (std::size_t b = a + 1; b < m; ++b) {
        const std::size_t i = order[a], j = order[b];
        stats::PermutationOptions po;
        po.permutations = args.permutations;
        po.alternative = stats::Alternative::kGreater;
        po.threads = args.threads;
        po.seed = args.seed ^ util::fnv1a64(l.dims[d] + '\x1f' + l.columns[i].metric + '\x1f' +
                                            l.columns[j].metric);
        auto r = stats::level_permutation_test(statistic, level, data[i], data[j].metric, po);
        pairs.emplace_back(i, j);
        raw.push_back(r.p);
      }
    }
    std::vector<double> adjusted = raw;
    if (args.correction == "holm") adjusted = stats::holm(raw, args.alpha).adjusted;
    if (args.correction == "bh") adjusted = stats::benjamini_hochberg(raw, args.alpha).adjusted;
    for (std::size_t k = 0; k < pairs.size(); ++k) {
      // An undefined test separates nothing.
      p[pairs[k].first][pairs[k].second] = std::isnan(adjusted[k]) ? 1.0 : adjusted[k];
    }
    const auto ranks = stats::significance_ranks(values, p, args.alpha);
    json rows = json::array(), tests = json::array();
    std::vector<std::vector<std::string>> table{{"rank", "metric", args.statistic}};
    for (std::size_t i : order) {
      rows.push_back(
          {{"metric", l.columns[i].metric}, {"rank", ranks[i]}, {"value", number(values[i])}});
      table.push_back({std::to_string(ranks[i]), l.columns[i].metric, fixed(values[i])});
    }
    for (std::size_t k = 0; k < pairs.size(); ++k)
      tests.push_back({{"better", l.columns[pairs[k].first].metric},
                       {"worse", l.columns[pairs[k].second].metric},
                       {"p", number(raw[k])},
                       {"p_adjusted", number(adjusted[k])}});
    out.push_back({{"dimension", l.dims[d]}, {"ranking", rows}, {"tests", tests}});
    if (!args.json) {
      fmt::print("{}{} ({} level, {})\n", d ? "\n" : "", l.dims[d], args.level, args.statistic);
      print_table(table, 2);
    }
  }
  if (args.json) {
    json doc = {{"data", args.data},
                {"scores", args.scores},
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
  fmt::print(
      "\nA metric starts a new cluster when a metric of the cluster above beats it: one-sided "
      "paired permutation test ({} permutations, each metric z-scored, scores swapped per {}), "
      "{} over all {} pairs, alpha {}.\n",
      args.permutations, level == stats::Level::kSystem ? "system" : "candidate",
      args.correction == "none"   ? "no correction"
      : args.correction == "holm" ? "Holm"
                                  : "Benjamini-Hochberg",
      m * (m - 1) / 2, args.alpha);
  return kExitOk;
}

}  // namespace probity::cli
