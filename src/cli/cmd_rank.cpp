// `probity rank`: significance clusters of metrics at a meta-evaluation level, as WMT reports
// them (mt-metrics-eval ComputeSigMatrix + AssignRanks; docs/meta-eval.md). The ranking itself is
// rank_metrics (src/audit/correlation.cpp), which the audit's --rank uses too.
#include <fmt/format.h>

#include <cmath>
#include <nlohmann/json.hpp>

#include "cli/command.hpp"
#include "cli/flags.hpp"
#include "cli/llm_context.hpp"
#include "cli/output.hpp"
#include "probity/audit.hpp"
#include "probity/error.hpp"
#include "probity/requests.hpp"
#include "probity/stats.hpp"

namespace probity::cli {
namespace {

int run_rank(const RankRequest& args) {
  ScoredData l = load_scored(args.inputs);
  if (l.columns.size() < 2) throw UsageError("rank needs at least two metrics");
  const RankOptions& ro = args.options;
  const std::string level(stats::level_name(ro.level));
  const std::string statistic(stats::level_statistic_name(ro.statistic));
  const auto human = human_matrix(l.ds, l.items, l.dims);
  std::vector<NamedScores> columns;
  for (const auto& c : l.columns) columns.push_back({c.metric, c.values});
  const auto rankings = rank_metrics(l.ds, l.items, columns, human, l.dims, ro);
  json out = json::array();
  for (std::size_t d = 0; d < rankings.size(); ++d) {
    const MetricRanking& r = rankings[d];
    json rows = json::array(), tests = json::array();
    std::vector<std::vector<std::string>> table{{"rank", "metric", statistic}};
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
      fmt::print("{}{} ({} level, {})\n", d ? "\n" : "", r.dimension, level, statistic);
      print_table(table, 2);
    }
  }
  if (args.json) {
    json doc = {{"data", args.inputs.data.name()},
                {"scores", files_json(args.inputs.scores)},
                {"level", level},
                {"statistic", statistic},
                {"permutations", ro.permutations},
                {"correction", std::string(stats::rank_correction_name(ro.correction))},
                {"alpha", ro.alpha},
                {"seed", ro.seed},
                {"results", out}};
    fmt::print("{}\n", doc.dump(2));
    return kExitOk;
  }
  const std::size_t m = l.columns.size();
  fmt::print(
      "\nA metric starts a new cluster when a metric of the cluster above beats it: one-sided "
      "paired permutation test ({} permutations, each metric z-scored, scores swapped per {}), "
      "{} over all {} pairs, alpha {}.\n",
      ro.permutations, ro.level == stats::Level::kSystem ? "system" : "candidate",
      ro.correction == stats::RankCorrection::kNone   ? "no correction"
      : ro.correction == stats::RankCorrection::kHolm ? "Holm"
                                                      : "Benjamini-Hochberg",
      m * (m - 1) / 2, ro.alpha);
  return kExitOk;
}

}  // namespace

void add_rank_command(CLI::App& app, Commands& commands) {
  auto request = std::make_shared<RankRequest>();
  RankRequest& rank = *request;
  auto* rc = app.add_subcommand(
      "rank", "Rank metrics into significance clusters (paired permutation tests at a level)");
  rc->add_option("--data", rank.inputs.data, "Dataset with human ratings")
      ->required()
      ->check(CLI::ExistingFile);
  add_input_options(rc, rank.inputs.data);
  rc->add_option(
        "--scores", rank.inputs.scores,
        "Scores JSONL from `probity score`; repeatable (each metric in one file); '-' reads "
        "standard input")
      ->required()
      ->check(file_or_stdin());
  rc->add_option("--metric", rank.inputs.metrics, "Only these metrics (default: all in the file)");
  rc->add_option("--dimension", rank.inputs.dimensions,
                 "Only these human dimensions (default: all)");
  levels(rc->add_option("--level", rank.options.level, "item, task or system (docs/meta-eval.md)"))
      ->default_str(std::string(stats::level_name(rank.options.level)));
  level_statistics(rc->add_option("--statistic", rank.options.statistic,
                                  "pearson, spearman, kendall, kendall-c, pairwise-acc or acc-eq"))
      ->default_str(std::string(stats::level_statistic_name(rank.options.statistic)));
  rc->add_option("--permutations", rank.options.permutations, "Permutations per pair of metrics")
      ->check(whole(1, limits::kResamples))
      ->capture_default_str();
  rank_corrections(rc->add_option("--correction", rank.options.correction,
                                  "Multiple-comparison control over all pairs: holm, bh "
                                  "(Benjamini-Hochberg) or none"))
      ->default_str(std::string(stats::rank_correction_name(rank.options.correction)));
  rc->add_option("--alpha", rank.options.alpha, "Significance level")
      ->check(real(kOpenUnit))
      ->capture_default_str();
  rc->add_option("--seed", rank.options.seed, "Seed of the permutations")
      ->check(whole(0))
      ->capture_default_str();
  rc->add_flag("--json", rank.json, "Print JSON instead of a table");
  rc->add_flag("--skip-invalid", rank.inputs.skip_invalid, "Skip invalid items and report them");
  rc->add_flag("--allow-missing", rank.inputs.allow_missing,
               "Use a scores file that leaves items without a score (their number is reported)");
  add_threads(rc, rank.options.threads);

  commands.push_back({rc, [request](RunContext&) { return run_rank(*request); }});
}

}  // namespace probity::cli
