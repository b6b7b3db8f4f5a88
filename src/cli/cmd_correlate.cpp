// `probity correlate` and `probity compare`: meta-evaluation of scores against human ratings.
#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <nlohmann/json.hpp>

#include "cli/command.hpp"
#include "cli/flags.hpp"
#include "cli/llm_context.hpp"
#include "cli/output.hpp"
#include "probity/audit.hpp"
#include "probity/engine.hpp"
#include "probity/error.hpp"
#include "probity/metric.hpp"
#include "probity/requests.hpp"
#include "probity/scores.hpp"
#include "probity/scoring.hpp"
#include "probity/stats.hpp"
#include "stats/mtme.hpp"

namespace probity::cli {
namespace {
namespace {

void report_gaps(const ScoreColumn& c) {
  if (c.missing > 0 || c.null_scores > 0)
    fmt::print(stderr, "note: {}: {} item(s) without a score, {} null score(s) left out\n",
               c.metric, c.missing, c.null_scores);
}

// Krippendorff's α of the raters per dimension (the human ceiling's agreement).
json agreement_json(const std::optional<MetricCorrelations>& humans) {
  json out = json::array();
  if (humans)
    for (const auto& a : humans->agreement)
      out.push_back({{"dimension", a.dimension},
                     {"raters", a.raters},
                     {"units", a.units},
                     {"alpha_interval", number(a.alpha_interval)},
                     {"alpha_ordinal", number(a.alpha_ordinal)}});
  return out;
}

void print_agreement(const std::optional<MetricCorrelations>& humans) {
  if (!humans) return;
  fmt::print(
      "\nhumans: each rater against the mean of the item's other raters, averaged over rater "
      "positions (the ceiling a metric compared with the mean rating can be held to).\n"
      "Krippendorff's alpha (interval / ordinal):");
  for (const auto& a : humans->agreement)
    fmt::print(" {} {} / {} ({} raters, {} items);", a.dimension, fixed(a.alpha_interval),
               fixed(a.alpha_ordinal), a.raters, a.units);
  fmt::print("\n");
}

}  // namespace

namespace {

// correlate --level/--statistic: one row per metric, dimension, level and statistic.
int run_level_correlate(const CorrelateRequest& args, const ScoredData& l,
                        const std::vector<std::vector<double>>& human,
                        const CorrelationOptions& opts) {
  std::vector<stats::Level> levels = args.levels;
  if (levels.empty()) levels.push_back(stats::Level::kItem);
  std::vector<stats::LevelStatistic> statistics = args.statistics;
  // Agreement with pairwise preferences: per metric, not per dimension.
  const bool preference = args.preference_acc;
  if (statistics.empty() && !preference)
    statistics = {stats::LevelStatistic::kPearson, stats::LevelStatistic::kSpearman,
                  stats::LevelStatistic::kKendallB};
  json out = json::array();
  const std::string ci_head = fmt::format("{:.0f}% CI", opts.confidence * 100);
  std::vector<std::vector<std::string>> table;
  table.push_back({"metric", "dimension", "level", "statistic", "value", ci_head, "n", "groups"});
  // Reference-free baselines beside the user's metrics: a metric no better than the length of
  // the text, or than chance, shows at once.
  std::vector<ScoreColumn> columns = l.columns;
  const std::size_t user_columns = columns.size();
  if (args.baselines)
    for (auto& b : baseline_scores(l.ds, l.items))
      columns.push_back({b.metric, b.signature, std::move(b.values), 0, 0});
  // The human ceiling above the metrics (several ratings per item).
  const auto humans = statistics.empty()
                          ? std::nullopt
                          : human_ceiling(l.ds, l.items, l.dims, levels, statistics, opts);
  if (humans)
    for (const auto& r : humans->levels) {
      out.push_back({{"metric", "humans"},
                     {"baseline", false},
                     {"humans", true},
                     {"dimension", r.dimension},
                     {"level", stats::level_name(r.level)},
                     {"statistic", stats::level_statistic_name(r.statistic)},
                     {"value", number(r.result.value)},
                     {"ci_lo", nullptr},
                     {"ci_hi", nullptr},
                     {"resampled", "none"},
                     {"n", r.result.n},
                     {"groups", r.result.groups},
                     {"skipped_groups", r.result.skipped}});
      table.push_back({"humans", r.dimension, std::string(stats::level_name(r.level)),
                       std::string(stats::level_statistic_name(r.statistic)), fixed(r.result.value),
                       "-", std::to_string(r.result.n), "-"});
    }
  for (std::size_t col = 0; col < columns.size(); ++col) {
    const ScoreColumn& c = columns[col];
    const bool baseline = col >= user_columns;
    report_gaps(c);
    if (preference) {
      const PreferenceAgreement p = preference_agreement(l.ds, l.items, c.values, opts);
      const std::string pairs = args.pairs_from.empty() ? "human" : "derived:" + args.pairs_from;
      out.push_back({{"metric", c.metric},
                     {"baseline", baseline},
                     {"pairs", pairs},
                     {"dimension", "preference"},
                     {"level", "pair"},
                     {"statistic", "preference-acc"},
                     {"value", number(p.result.accuracy)},
                     {"ci_lo", number(p.ci_lo)},
                     {"ci_hi", number(p.ci_hi)},
                     {"resampled", "tasks"},
                     {"n", p.result.strict},
                     {"groups", p.tasks},
                     {"metric_ties", p.result.metric_ties},
                     {"human_ties", p.result.human_ties},
                     {"tie_agreement", number(p.result.tie_agreement)},
                     {"signature", c.signature}});
      table.push_back(
          {c.metric, args.pairs_from.empty() ? "preference" : "derived:" + args.pairs_from, "pair",
           "preference-acc", fixed(p.result.accuracy),
           std::isfinite(p.ci_lo) ? fmt::format("[{}, {}]", fixed(p.ci_lo), fixed(p.ci_hi)) : "-",
           std::to_string(p.result.strict), fmt::format("{} tasks", p.tasks)});
    }
    if (statistics.empty()) continue;
    for (const auto& r :
         level_correlations(l.ds, l.items, c.values, human, l.dims, levels, statistics, opts)) {
      json row = {{"metric", c.metric},
                  {"baseline", baseline},
                  {"dimension", r.dimension},
                  {"level", stats::level_name(r.level)},
                  {"statistic", stats::level_statistic_name(r.statistic)},
                  {"value", number(r.result.value)},
                  {"ci_lo", number(r.ci_lo)},
                  {"ci_hi", number(r.ci_hi)},
                  {"resampled", r.unit},
                  {"n", r.result.n},
                  {"groups", r.result.groups},
                  {"skipped_groups", r.result.skipped},
                  {"signature", c.signature}};
      if (r.statistic == stats::LevelStatistic::kAccEq) row["epsilon"] = number(r.result.epsilon);
      out.push_back(std::move(row));
      std::string groups = "-";
      if (r.level == stats::Level::kTask)
        groups = fmt::format("{}/{} tasks", r.result.groups, r.result.groups + r.result.skipped);
      else if (r.level == stats::Level::kSystem)
        groups = fmt::format("{} systems", r.result.n);
      table.push_back(
          {c.metric, r.dimension, std::string(stats::level_name(r.level)),
           std::string(stats::level_statistic_name(r.statistic)), fixed(r.result.value),
           std::isfinite(r.ci_lo) ? fmt::format("[{}, {}]", fixed(r.ci_lo), fixed(r.ci_hi)) : "-",
           std::to_string(r.result.n), groups});
    }
  }
  if (args.json) {
    json doc = {{"data", args.inputs.data.name()},       {"scores", files_json(args.inputs.scores)},
                {"bootstrap", args.options.bootstrap},   {"seed", args.options.seed},
                {"confidence", args.options.confidence}, {"results", out}};
    doc["agreement"] = agreement_json(humans);
    fmt::print("{}\n", doc.dump(2));
    return kExitOk;
  }
  print_table(table, 4);
  print_agreement(humans);
  if (preference)
    fmt::print(
        "\npreference-acc: over the pairs with a human preference, 1 when the metric prefers the "
        "same candidate, 1/2 when it ties them; human ties are counted apart (JSON).\n");
  if (args.options.bootstrap > 0)
    fmt::print("\nCI: {} bootstrap resamples of {}, percentile, seed {}.\n", args.options.bootstrap,
               args.options.resample == ResampleUnit::kByLevel
                   ? "whole tasks (item, task level) or systems (system "
                     "level)"
               : args.options.resample == ResampleUnit::kTasks ? "whole tasks"
               : args.options.resample == ResampleUnit::kSystems
                   ? "whole systems"
                   : "tasks and systems drawn independently (two-stage; "
                     "their crossed candidates)",
               args.options.seed);
  for (const auto& c : columns)
    if (!c.signature.empty()) fmt::print("{}: {}\n", c.metric, c.signature);
  return kExitOk;
}

// compare --level: the paired permutation test at a level (mt-metrics-eval PermutationSigDiff).
int run_level_compare(const CompareRequest& args, const ScoredData& l,
                      const std::vector<std::vector<double>>& human) {
  const stats::Level level = args.level.value_or(stats::Level::kItem);
  const stats::LevelStatistic statistic = args.correlation;
  if (args.perm_test == stats::PermTest::kPairs && statistic != stats::LevelStatistic::kAccEq)
    throw UsageError("--perm-test pairs swaps tie-calibrated comparisons: it goes with acc-eq");
  const auto& a = l.columns[0];
  const auto& b = l.columns[1];
  report_gaps(a);
  report_gaps(b);
  stats::PermutationOptions po;
  po.permutations = args.permutations;
  po.seed = args.seed;
  po.threads = args.threads;
  json out = json::array();
  std::vector<std::vector<std::string>> table{{"dimension", "n", a.metric, b.metric, "delta", "p"}};
  for (std::size_t d = 0; d < l.dims.size(); ++d) {
    const stats::LevelData da = level_data(l.ds, l.items, a.values, human[d]);
    require_systems(level, da);
    const stats::LevelData db = level_data(l.ds, l.items, b.values, human[d]);
    const auto va = stats::level_statistic(statistic, level, da);
    const auto vb = stats::level_statistic(statistic, level, db);
    const auto r = args.perm_test == stats::PermTest::kPairs
                       ? stats::level_pairs_permutation_test(level, da, b.values, po)
                       : stats::level_permutation_test(statistic, level, da, b.values, po);
    out.push_back({{"dimension", l.dims[d]},
                   {"level", stats::level_name(level)},
                   {"statistic", stats::level_statistic_name(statistic)},
                   {"n", va.n},
                   {a.metric, number(va.value)},
                   {b.metric, number(vb.value)},
                   {"delta", number(r.delta)},
                   {"p_two_sided", number(r.p)},
                   {"permutations", r.permutations}});
    table.push_back({l.dims[d], std::to_string(va.n), fixed(va.value), fixed(vb.value),
                     fixed(r.delta), fixed(r.p)});
  }
  if (args.json) {
    json doc = {{"data", args.inputs.data.name()},
                {"metric_a", a.metric},
                {"metric_b", b.metric},
                {"level", stats::level_name(level)},
                {"statistic", stats::level_statistic_name(statistic)},
                {"permutations", args.permutations},
                {"seed", args.seed},
                {"results", out}};
    fmt::print("{}\n", doc.dump(2));
    return kExitOk;
  }
  print_table(table, 1);
  if (args.perm_test == stats::PermTest::kPairs)
    fmt::print(
        "\nPaired permutation test of {0}({1}) - {0}({2}) at the {3} level: each of {4} "
        "permutations swaps the two metrics' pairwise comparisons (each with its own tie "
        "threshold) with probability 1/2, mt-metrics-eval's `pairs` test; two-sided p, seed "
        "{5}.\n",
        stats::level_statistic_name(statistic), a.metric, b.metric, stats::level_name(level),
        args.permutations, args.seed);
  else
    fmt::print(
        "\nPaired permutation test of {0}({1}) - {0}({2}) at the {3} level: each of {4} "
        "permutations swaps the two metrics' z-scored scores per {5} with probability 1/2; "
        "two-sided p, seed {6}.\n",
        stats::level_statistic_name(statistic), a.metric, b.metric, stats::level_name(level),
        args.permutations, level == stats::Level::kSystem ? "system" : "candidate", args.seed);
  return kExitOk;
}

// compare --test williams: Williams' test of r(A, h) vs r(B, h) given r(A, B) (Graham & Baldwin
// 2014; mt-metrics-eval WilliamsSigDiff), Pearson over the candidates scored by both metrics.
int run_williams(const CompareRequest& args, const ScoredData& l,
                 const std::vector<std::vector<double>>& human) {
  const auto& a = l.columns[0];
  const auto& b = l.columns[1];
  report_gaps(a);
  report_gaps(b);
  json out = json::array();
  std::vector<std::vector<std::string>> table{
      {"dimension", "n", a.metric, b.metric, "r(A,B)", "p one-sided", "p two-sided"}};
  for (std::size_t d = 0; d < l.dims.size(); ++d) {
    std::vector<double> g, x, y;
    for (std::size_t i = 0; i < human[d].size(); ++i)
      if (std::isfinite(human[d][i]) && std::isfinite(a.values[i]) && std::isfinite(b.values[i])) {
        g.push_back(human[d][i]);
        x.push_back(a.values[i]);
        y.push_back(b.values[i]);
      }
    if (g.size() < 4)
      throw UsageError(
          fmt::format("compare --test williams: {} items scored by both metrics in "
                      "'{}'; the test needs at least 4",
                      g.size(), l.dims[d]));
    const auto one = stats::mtme_williams_sig_diff(g, x, y, true);
    const auto two = stats::mtme_williams_sig_diff(g, x, y, false);
    const double rab = stats::pearson(x, y).statistic;
    out.push_back({{"dimension", l.dims[d]},
                   {"n", g.size()},
                   {a.metric, number(one.r1)},
                   {b.metric, number(one.r2)},
                   {"r_ab", number(rab)},
                   {"p_one_sided", number(one.p_value)},
                   {"p_two_sided", number(two.p_value)}});
    table.push_back({l.dims[d], std::to_string(g.size()), fixed(one.r1), fixed(one.r2), fixed(rab),
                     fixed(one.p_value), fixed(two.p_value)});
  }
  if (args.json) {
    json doc = {{"data", args.inputs.data.name()},
                {"metric_a", a.metric},
                {"metric_b", b.metric},
                {"test", "williams"},
                {"results", out}};
    fmt::print("{}\n", doc.dump(2));
    return kExitOk;
  }
  print_table(table, 1);
  fmt::print(
      "\nWilliams test of Pearson r({0}, human) vs r({1}, human), dependent correlations "
      "sharing the human scores (Graham & Baldwin 2014); one-sided p is for the larger r being "
      "larger.\n",
      a.metric, b.metric);
  return kExitOk;
}

}  // namespace

int run_correlate(const CorrelateRequest& args) {
  const bool preference = args.preference_acc;
  ScoredData l = load_scored(args.inputs, !preference);
  if (!args.pairs_from.empty()) {
    if (!preference) throw UsageError("--pairs-from goes with --statistic preference-acc");
    const auto dims = l.ds.dimensions();
    if (std::find(dims.begin(), dims.end(), args.pairs_from) == dims.end())
      throw UsageError(fmt::format("--pairs-from: dimension '{}' is not in '{}'", args.pairs_from,
                                   args.inputs.data.name()));
    const std::size_t n = derive_preferences(l.ds, args.pairs_from, args.pairs_margin);
    fmt::print(stderr,
               "note: preference-acc over {} pairs DERIVED from '{}' rating differences (tie "
               "within {}), not human pairwise judgements\n",
               n, args.pairs_from, args.pairs_margin);
  }
  const auto human = human_matrix(l.ds, l.items, l.dims);
  const CorrelationOptions& opts = args.options;
  const bool level_rows = !args.levels.empty() || !args.statistics.empty() || preference;
  if (opts.resample != ResampleUnit::kByLevel && !level_rows)
    throw UsageError("--resample applies to the --level/--statistic rows");
  if (level_rows) return run_level_correlate(args, l, human, opts);
  json out = json::array();
  std::vector<std::vector<std::string>> table;
  const std::string ci_head = fmt::format("{:.0f}% CI", args.options.confidence * 100);
  table.push_back({"metric", "dimension", "n", "spearman", ci_head, "kendall", "pearson"});
  // The human ceiling first (several ratings per item), then the metrics.
  const auto humans = human_ceiling(l.ds, l.items, l.dims, {}, {}, opts);
  std::vector<std::pair<const ScoreColumn*, std::vector<CorrelationResult>>> sections;
  if (humans) sections.emplace_back(nullptr, humans->rows);
  for (const auto& c : l.columns) {
    report_gaps(c);
    sections.emplace_back(&c, human_correlations(c.values, human, l.dims, opts));
  }
  for (const auto& [column, rows] : sections) {
    const std::string metric = column ? column->metric : "humans";
    for (const auto& r : rows) {
      json row = {{"metric", metric},
                  {"dimension", r.dimension},
                  {"n", r.n},
                  {"spearman", number(r.spearman)},
                  {"spearman_lo", number(r.spearman_lo)},
                  {"spearman_hi", number(r.spearman_hi)},
                  {"spearman_p", number(r.spearman_p)},
                  {"kendall", number(r.kendall)},
                  {"pearson", number(r.pearson)}};
      if (column)
        row["signature"] = column->signature;
      else
        row["humans"] = true;
      out.push_back(std::move(row));
      table.push_back({metric, r.dimension, std::to_string(r.n), fixed(r.spearman),
                       std::isfinite(r.spearman_lo)
                           ? fmt::format("[{}, {}]", fixed(r.spearman_lo), fixed(r.spearman_hi))
                           : "-",
                       fixed(r.kendall), fixed(r.pearson)});
    }
  }
  if (args.json) {
    json doc = {{"data", args.inputs.data.name()},       {"scores", files_json(args.inputs.scores)},
                {"bootstrap", args.options.bootstrap},   {"seed", args.options.seed},
                {"confidence", args.options.confidence}, {"results", out}};
    doc["agreement"] = agreement_json(humans);
    fmt::print("{}\n", doc.dump(2));
    return kExitOk;
  }
  print_table(table, 2);
  print_agreement(humans);
  fmt::print("\nSpearman CI: {} bootstrap resamples of items (percentile), seed {}.\n",
             args.options.bootstrap, args.options.seed);
  for (const auto& c : l.columns)
    if (!c.signature.empty()) fmt::print("{}: {}\n", c.metric, c.signature);
  return kExitOk;
}

int run_compare(const CompareRequest& args) {
  ScoredData l = load_scored(args.inputs);
  // After loading: a scores file that does not cover the data is reported first (exit 3).
  if (l.columns.size() != 2 && args.inputs.metrics.size() == 2 &&
      args.inputs.metrics[0] == args.inputs.metrics[1])
    throw UsageError(
        fmt::format("compare: --metric {} is given twice; compare two different metrics",
                    args.inputs.metrics[0]));
  if (l.columns.size() != 2)
    throw UsageError("compare needs two metrics present in the scores file");
  const auto human = human_matrix(l.ds, l.items, l.dims);
  if (args.williams) {
    if (args.level || args.correlation != stats::LevelStatistic::kPearson)
      throw UsageError(
          "--test williams compares Pearson correlations over items: give "
          "--correlation pearson and no --level");
    return run_williams(args, l, human);
  }
  const auto pooled = stats::pooled_correlation(args.correlation);
  if (args.level || !pooled) return run_level_compare(args, l, human);
  const stats::CorrelationType type = *pooled;
  const std::string correlation(stats::level_statistic_name(args.correlation));
  stats::PermutationOptions po;
  po.permutations = args.permutations;
  po.seed = args.seed;
  po.threads = args.threads;
  const auto& a = l.columns[0];
  const auto& b = l.columns[1];
  report_gaps(a);
  report_gaps(b);

  json out = json::array();
  if (!args.json)
    fmt::print("{:<16} {:>6} {:>10} {:>10} {:>10} {:>8}\n", "dimension", "n",
               fmt::format("{}", a.metric).substr(0, 10), b.metric.substr(0, 10), "delta", "p");
  for (std::size_t d = 0; d < l.dims.size(); ++d) {
    std::vector<double> x, y, h;
    for (std::size_t i = 0; i < l.items.size(); ++i) {
      if (std::isfinite(a.values[i]) && std::isfinite(b.values[i]) && std::isfinite(human[d][i])) {
        x.push_back(a.values[i]);
        y.push_back(b.values[i]);
        h.push_back(human[d][i]);
      }
    }
    auto ra = stats::correlation(type, x, h).statistic;
    auto rb = stats::correlation(type, y, h).statistic;
    auto r = stats::permutation_correlation_diff(x, y, h, type, po);
    out.push_back({{"dimension", l.dims[d]},
                   {"n", x.size()},
                   {"correlation", correlation},
                   {a.metric, number(ra)},
                   {b.metric, number(rb)},
                   {"delta", number(r.delta)},
                   {"p_two_sided", number(r.p)},
                   {"permutations", r.permutations}});
    if (!args.json)
      fmt::print("{:<16} {:>6} {:>10} {:>10} {:>10} {:>8}\n", l.dims[d], x.size(), fixed(ra),
                 fixed(rb), fixed(r.delta), fixed(r.p));
  }
  if (args.json) {
    json doc = {{"data", args.inputs.data.name()},
                {"metric_a", a.metric},
                {"metric_b", b.metric},
                {"correlation", correlation},
                {"permutations", args.permutations},
                {"seed", args.seed},
                {"results", out}};
    fmt::print("{}\n", doc.dump(2));
  } else {
    fmt::print(
        "\nPaired permutation test of corr({0}) - corr({1}) with the human ratings: each of {2} "
        "permutations swaps the two metrics' (standardised) scores per item with probability "
        "1/2; two-sided p, seed {3}.\n",
        a.metric, b.metric, args.permutations, args.seed);
  }
  return kExitOk;
}

}  // namespace

void add_correlate_command(CLI::App& app, Commands& commands) {
  auto request = std::make_shared<CorrelateRequest>();
  CorrelateRequest& corr = *request;
  auto* cc = app.add_subcommand("correlate", "Correlate metric scores with human ratings");
  cc->add_option("--data", corr.inputs.data, "Dataset with human ratings")
      ->required()
      ->check(CLI::ExistingFile);
  add_input_options(cc, corr.inputs.data);
  cc->add_option(
        "--scores", corr.inputs.scores,
        "Scores JSONL from `probity score`; repeatable (each metric in one file); '-' reads "
        "standard input")
      ->required()
      ->check(file_or_stdin());
  cc->add_option("--metric", corr.inputs.metrics, "Only these metrics (default: all in the file)");
  cc->add_option("--dimension", corr.inputs.dimensions,
                 "Only these human dimensions (default: all)");
  levels(cc->add_option(
      "--level", corr.levels,
      "item (pooled), task (within each task, averaged) or system (per-system means); "
      "repeatable (docs/meta-eval.md)"));
  // The level statistics, and preference-acc (a statistic of the tasks' human pairs).
  cc->add_option_function<std::vector<std::string>>(
        "--statistic",
        [&corr](const std::vector<std::string>& names) {
          for (const auto& name : names) {
            if (name == "preference-acc")
              corr.preference_acc = true;
            else
              corr.statistics.push_back(stats::parse_level_statistic(name));
          }
        },
        "pearson, spearman, kendall (tau-b), kendall-c, pairwise-acc, acc-eq "
        "(pairwise accuracy with tie calibration), spa (soft pairwise accuracy, system level), "
        "pdp (Pearson of pairwise differences), kendall-like (WMT20) or preference-acc "
        "(agreement with the tasks' human pairwise preferences); repeatable")
      ->check(CLI::IsMember([] {
        auto names = level_statistic_names();
        names.push_back("preference-acc");
        return names;
      }()));
  cc->add_flag("!--no-baselines", corr.baselines,
               "With --level/--statistic: leave out the length and random baseline rows");
  cc->add_option("--bootstrap", corr.options.bootstrap,
                 "Bootstrap resamples for the CI (of Spearman; with --level/--statistic of every "
                 "value, resampling tasks, or systems at the system level; 0: none)")
      ->check(whole(0, limits::kResamples))
      ->capture_default_str();
  cc->add_option("--pairs-from", corr.pairs_from,
                 "With --statistic preference-acc on data without human pairs: derive the pairs "
                 "from this dimension's rating differences within each task (labelled as derived)");
  cc->add_option("--pairs-margin", corr.pairs_margin,
                 "--pairs-from: rating means this close are a tie")
      ->check(real(kNonNegative))
      ->capture_default_str();
  one_of(
      cc->add_option(
          "--resample", corr.options.resample,
          "With --level: what the bootstrap draws: level (tasks at the item and task "
          "level, systems at the system level), tasks, systems, or both (two-stage: tasks "
          "and systems drawn independently)"),
      {ResampleUnit::kByLevel, ResampleUnit::kTasks, ResampleUnit::kSystems, ResampleUnit::kBoth},
      resample_unit_name)
      ->default_str(std::string(resample_unit_name(corr.options.resample)));
  cc->add_option("--confidence", corr.options.confidence, "Confidence level")
      ->check(real(kOpenUnit))
      ->capture_default_str();
  cc->add_option("--seed", corr.options.seed, "Seed of the bootstrap")
      ->check(whole(0))
      ->capture_default_str();
  cc->add_flag("--json", corr.json, "Print JSON instead of a table");
  cc->add_flag("--skip-invalid", corr.inputs.skip_invalid, "Skip invalid items and report them");
  cc->add_flag("--allow-missing", corr.inputs.allow_missing,
               "Use a scores file that leaves items without a score (their number is reported)");
  add_threads(cc, corr.options.threads);

  commands.push_back({cc, [request](RunContext&) { return run_correlate(*request); }});
}

void add_compare_command(CLI::App& app, Commands& commands) {
  struct State {
    CompareRequest request;
    stats::Level level = stats::Level::kItem;  // --level, when given
    std::string test = "permutation";          // --test
  };
  auto state = std::make_shared<State>();
  CompareRequest& cmp = state->request;
  auto* mc = app.add_subcommand(
      "compare", "Paired permutation test between two metrics' correlations with humans");
  mc->add_option("--data", cmp.inputs.data, "Dataset with human ratings")
      ->required()
      ->check(CLI::ExistingFile);
  add_input_options(mc, cmp.inputs.data);
  mc->add_option("--scores", cmp.inputs.scores,
                 "Scores JSONL holding both metrics; repeatable (each metric in one file); '-' "
                 "reads standard input")
      ->required()
      ->check(file_or_stdin());
  mc->add_option("--metric", cmp.inputs.metrics, "The two metrics to compare (give twice)")
      ->required()
      ->expected(1, 2);
  mc->add_option("--dimension", cmp.inputs.dimensions,
                 "Only these human dimensions (default: all)");
  level_statistics(mc->add_option("--correlation", cmp.correlation,
                                  "pearson, spearman or kendall; with --level also kendall-c, "
                                  "pairwise-acc, acc-eq, spa, pdp or kendall-like"))
      ->default_str(std::string(stats::level_statistic_name(cmp.correlation)));
  auto* level = levels(mc->add_option("--level", state->level,
                                      "item, task or system: the test at that level "
                                      "(docs/meta-eval.md); default: the pooled test"));
  perm_tests(mc->add_option("--perm-test", cmp.perm_test,
                            "With --level: scores (swap the metrics' scores per cell) or pairs "
                            "(swap their pairwise comparisons, each with its own tie threshold: "
                            "WMT23-25's test for acc-eq)"))
      ->default_str(std::string(stats::perm_test_name(cmp.perm_test)));
  mc->add_option("--test", state->test,
                 "permutation, or williams (Williams' test of two dependent Pearson "
                 "correlations over items)")
      ->check(CLI::IsMember({"permutation", "williams"}))
      ->capture_default_str();
  mc->add_option("--permutations", cmp.permutations, "Number of permutations")
      ->check(whole(1, limits::kResamples))
      ->capture_default_str();
  mc->add_option("--seed", cmp.seed, "Seed of the permutations")
      ->check(whole(0))
      ->capture_default_str();
  mc->add_flag("--json", cmp.json, "Print JSON instead of a table");
  mc->add_flag("--skip-invalid", cmp.inputs.skip_invalid, "Skip invalid items and report them");
  mc->add_flag("--allow-missing", cmp.inputs.allow_missing,
               "Use a scores file that leaves items without a score (their number is reported)");
  add_threads(mc, cmp.threads);

  commands.push_back({mc, [state, level](RunContext&) {
                        CompareRequest& request = state->request;
                        if (level->count() > 0) request.level = state->level;
                        request.williams = state->test == "williams";
                        if (request.inputs.metrics.size() != 2)
                          throw UsageError("compare needs exactly two --metric options");
                        return run_compare(request);
                      }});
}

}  // namespace probity::cli
