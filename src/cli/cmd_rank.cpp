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
#include "probity/wmt.hpp"
#include "report/wmt_report.hpp"

namespace probity::cli {
namespace {

// --protocol: the WMT task set over the language pairs of an mt-metrics-eval test set.
int run_protocol(const RankRequest& args, WmtRankRequest request) {
  const DataInput& data = args.inputs.data;
  if (data.kind != DataInput::Kind::kMtme)
    throw UsageError(
        "--protocol ranks the metric scores stored in an mt-metrics-eval test set: give --mtme "
        "DIR (e.g. mt-metrics-eval-v2/wmt24), and --lp PAIR[,PAIR...] for other pairs than the "
        "protocol's");
  if (!args.inputs.scores.empty())
    throw UsageError(
        "--protocol reads the metrics from DIR/metric-scores/<lp>/NAME-REF.seg.score; put "
        "your metric's scores there (mt-metrics-eval's layout) instead of --scores");
  request.test_set_dir = data.path;
  request.lps.clear();
  for (std::size_t b = 0; b < data.lp.size();) {
    std::size_t e = data.lp.find(',', b);
    if (e == std::string::npos) e = data.lp.size();
    if (e > b) request.lps.push_back(data.lp.substr(b, e - b));
    b = e + 1;
  }
  const RankOptions& ro = args.options;
  request.permutations = ro.permutations;
  request.seed = ro.seed;
  request.alpha = ro.alpha;
  request.threads = ro.threads;
  const WmtRankResult result =
      run_wmt_protocol(request, [&](const std::string& s) { fmt::print(stderr, "{}\n", s); });
  if (args.json) {
    fmt::print("{}\n", report::wmt_rank_document(result, request).dump(2));
    return kExitOk;
  }
  fmt::print("{} protocol: {} language pairs, {} tasks, equal weights\n",
             wmt_protocol_name(result.protocol), result.lps.size(), result.tasks.size());
  print_table(report::wmt_rank_table(result), 1);
  fmt::print(
      "\nTask columns: cluster rank and value. spa: soft pairwise accuracy (1 - PCE; 1000 "
      "permutations of segment scores, seed 4); acc-eq: tie-calibrated pairwise accuracy grouped "
      "by segment. A metric starts a new cluster when a metric of the cluster above beats it at "
      "p <= {} without correction ({} permutations per pair: the `scores` test for spa, the "
      "`pairs` test for acc-eq; the average reuses each task's draws). '*' contrastive, '_' "
      "baseline, [noref] reference-free.\n",
      request.alpha, request.permutations);
  for (const auto& c : result.conventions) fmt::print("{}\n", c);
  return kExitOk;
}

int run_rank(const RankRequest& args) {
  if (args.inputs.scores.empty()) throw UsageError("rank needs --scores (or --protocol)");
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
                {"perm_test", std::string(stats::perm_test_name(ro.perm_test))},
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
  auto wmt = std::make_shared<WmtRankRequest>();
  rc->add_option("--data", rank.inputs.data, "Dataset with human ratings")
      ->required()
      ->check(CLI::ExistingFile);
  add_input_options(rc, rank.inputs.data);
  rc->add_option(
        "--scores", rank.inputs.scores,
        "Scores JSONL from `probity score`; repeatable (each metric in one file); '-' reads "
        "standard input")
      ->check(file_or_stdin());
  auto* protocol =
      one_of(rc->add_option("--protocol", wmt->protocol,
                            "A WMT meta-evaluation protocol over the metric scores stored in "
                            "--mtme DIR (mt-metrics-eval tasks.py; docs/meta-eval.md)"),
             {WmtProtocol::kWmt24, WmtProtocol::kWmt25}, wmt_protocol_name);
  rc->add_option("--primary", wmt->extra,
                 "With --protocol: count this metric basename as a primary submission "
                 "(repeatable; your metric, which the test set does not list)");
  rc->add_option("--mqm-weights", wmt->mqm_weights,
                 "With --protocol: the gold from the MQM error spans of the rating files, "
                 "weighted as score_mqm.py --weights, e.g. \"major:5 minor:1 "
                 "minor/punctuation:0.1\", or \"default\" for its defaults");
  rc->add_option("--mqm-ratings", wmt->mqm_ratings,
                 "With --mqm-weights: the rating set (human-scores/<lp>.NAME.seg.rating; "
                 "default: the one named like the gold)");
  rc->add_flag(
      "--probity-coins", [wmt](std::int64_t) { wmt->mtme_stream = false; },
      "With --protocol: draw the tests' coins from probity's generator (the same tests, other "
      "draws, much faster) instead of NumPy's legacy stream, which equals mt-metrics-eval bit "
      "for bit");
  rc->add_flag(
      "--all-metrics", [wmt](std::int64_t) { wmt->primary_only = false; },
      "With --protocol: rank contrastive (non-primary) submissions too");
  rc->add_option("--metric", rank.inputs.metrics, "Only these metrics (default: all in the file)");
  rc->add_option("--dimension", rank.inputs.dimensions,
                 "Only these human dimensions (default: all)");
  levels(rc->add_option("--level", rank.options.level, "item, task or system (docs/meta-eval.md)"))
      ->default_str(std::string(stats::level_name(rank.options.level)));
  level_statistics(rc->add_option("--statistic", rank.options.statistic,
                                  "pearson, spearman, kendall, kendall-c, pairwise-acc, acc-eq, "
                                  "spa (system level), pdp or kendall-like"))
      ->default_str(std::string(stats::level_statistic_name(rank.options.statistic)));
  perm_tests(rc->add_option("--perm-test", rank.options.perm_test,
                            "scores (swap the metrics' scores per cell) or pairs (swap their "
                            "pairwise comparisons, each with its own tie threshold: WMT23-25's "
                            "test for acc-eq)"))
      ->default_str(std::string(stats::perm_test_name(rank.options.perm_test)));
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

  commands.push_back({rc, [request, wmt, protocol](RunContext&) {
                        return protocol->count() ? run_protocol(*request, *wmt)
                                                 : run_rank(*request);
                      }});
}

}  // namespace probity::cli
