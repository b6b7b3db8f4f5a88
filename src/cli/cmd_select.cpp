// `probity select`: choose a metric variant on a seeded half of the tasks and report it on the
// other half (the critique of ExPerT, arXiv:2501.14956, for choosing ExPerT's aggregation on test
// data).
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
#include "probity/meta.hpp"
#include "probity/requests.hpp"
#include "probity/scores.hpp"
#include "probity/scoring.hpp"

namespace probity::cli {
namespace {
namespace {}  // namespace

int run_select(const SelectRequest& args, Engine& engine) {
  if (args.inputs.metrics.size() < 2)
    throw UsageError("select needs two or more --metric variants");
  if (!(args.options.split > 0.0 && args.options.split < 1.0))
    throw UsageError("--split must be strictly between 0 and 1");
  // The pooled protocol takes the three correlations; --level any level statistic.
  const std::string correlation(stats::level_statistic_name(args.correlation));
  const auto pooled = stats::pooled_correlation(args.correlation);
  if (!args.level && !pooled)
    throw UsageError(fmt::format("--correlation {} needs --level", correlation));
  Dataset ds = args.inputs.data.load({args.inputs.skip_invalid});
  print_skipped(ds.skipped);
  const auto items = all_items(ds);
  if (items.empty()) throw InputError(args.inputs.data.name(), 0, "", "no valid items");

  // One column of item scores per variant, in the order given.
  std::vector<std::vector<double>> scores;
  std::vector<std::string> names, signatures;
  if (!args.inputs.scores.empty()) {
    auto columns = read_score_files(args.inputs.scores, ds, items, args.inputs.metrics,
                                    args.inputs.allow_missing);
    for (const auto& m : args.inputs.metrics) {
      auto it = std::find_if(columns.begin(), columns.end(),
                             [&](const ScoreColumn& c) { return c.metric == m; });
      if (it == columns.end() || it->missing == it->values.size())
        throw UsageError(
            fmt::format("metric '{}' has no scores in {}", m, describe_files(args.inputs.scores)));
      scores.push_back(it->values);
      names.push_back(m);
      signatures.push_back(it->signature);
    }
  } else {
    std::vector<MetricSelection> metrics;
    for (const auto& m : args.inputs.metrics) metrics.push_back(select_metric(m, engine));
    check_distinct_names(metrics);
    ScoreOptions so;
    so.threads = args.options.threads;
    // Fitting sees texts only (IDF, language models, calibration), never the human ratings, so
    // fitting on every task leaks nothing from the test half into the choice.
    auto stats = compute_stats(ds, items, metrics, so);
    for (std::size_t m = 0; m < metrics.size(); ++m) {
      const Metric& metric = *metrics[m].metric;
      std::vector<double> col(items.size()), parts(metric.parts().size());
      for (std::size_t i = 0; i < items.size(); ++i) {
        metric.sentence_score(stats[m].row(i), parts);
        col[i] = metrics[m].orientation() * parts[metrics[m].primary];
      }
      scores.push_back(std::move(col));
      names.push_back(metrics[m].oriented_name());
      signatures.push_back(metric.signature());
    }
  }

  auto available = ds.dimensions();
  std::vector<std::string> dims =
      args.inputs.dimensions.empty() ? available : args.inputs.dimensions;
  for (const auto& d : dims)
    if (std::find(available.begin(), available.end(), d) == available.end())
      throw UsageError(fmt::format("dimension '{}' is not in '{}' (dimensions: {})", d,
                                   args.inputs.data.name(), fmt::join(available, ", ")));
  if (dims.empty())
    throw UsageError(fmt::format("'{}' has no human ratings", args.inputs.data.name()));
  const auto human = human_matrix(ds, items, dims);

  std::vector<std::string> task_ids;
  for (const auto& t : ds.tasks) task_ids.push_back(t.task_id);
  std::vector<std::size_t> task_of_item;
  for (const auto& it : items) task_of_item.push_back(it.task);

  // --level: items' systems for the system level (level_data numbers them as correlate does).
  std::vector<std::size_t> system_of_item;
  std::size_t num_systems = 0;
  if (args.level) {
    const stats::LevelData d = level_data(ds, items, scores[0], human[0]);
    require_systems(*args.level, d);
    system_of_item = d.system;
    num_systems = d.num_systems;
  }
  meta::SelectionOptions so = args.options;
  so.level = args.level;
  if (args.level)
    so.statistic = args.correlation;
  else
    so.correlation = *pooled;

  json results = json::array();
  for (std::size_t d = 0; d < dims.size(); ++d) {
    const auto r = meta::select_variant(scores, names, human[d], task_of_item, task_ids, so,
                                        system_of_item, num_systems);
    const auto& w = r.variants[r.winner];
    json variants = json::array();
    for (const auto& v : r.variants)
      variants.push_back({{"metric", v.name},
                          {"selection", number(v.selection)},
                          {"test", number(v.test)},
                          {"delta_winner_minus_this", number(v.delta_vs_winner)},
                          {"p_vs_winner", number(v.p_vs_winner)},
                          {"p_vs_winner_holm", number(v.p_vs_winner_holm)}});
    results.push_back({{"dimension", dims[d]},
                       {"selection_tasks", r.selection_tasks},
                       {"test_tasks", r.test_tasks},
                       {"selection_items", r.selection_items},
                       {"test_items", r.test_items},
                       {"winner", w.name},
                       {"winner_test", number(r.winner_test)},
                       {"winner_test_lo", number(r.winner_test_ci.low)},
                       {"winner_test_hi", number(r.winner_test_ci.high)},
                       {"p_test", number(r.p_test)},
                       {"p_max_selection", number(r.p_max_selection)},
                       {"variants", variants}});
    if (args.json) continue;
    fmt::print("dimension {}: {} selection tasks ({} items), {} test tasks ({} items)\n", dims[d],
               r.selection_tasks, r.selection_items, r.test_tasks, r.test_items);
    std::size_t width = 6;
    for (const auto& v : r.variants) width = std::max(width, v.name.size());
    fmt::print("  {:<{}}  {:>9}  {:>9}  {:>9}  {:>8}  {:>8}\n", "metric", width, "selection",
               "test", "delta", "p", "p_holm");
    for (std::size_t v = 0; v < r.variants.size(); ++v) {
      const auto& x = r.variants[v];
      fmt::print("  {:<{}}  {:>9}  {:>9}  {:>9}  {:>8}  {:>8}{}\n", x.name, width,
                 fixed(x.selection), fixed(x.test), v == r.winner ? "-" : fixed(x.delta_vs_winner),
                 v == r.winner ? "-" : fixed(x.p_vs_winner, 3),
                 v == r.winner ? "-" : fixed(x.p_vs_winner_holm, 3),
                 v == r.winner ? "  <- chosen" : "");
    }
    fmt::print(
        "  reported: {} = {} on the test half, {:.0f}% CI [{}, {}]; p(test, no association) = "
        "{}; max-statistic p of the choice on the selection half = {}\n\n",
        w.name, fixed(r.winner_test), args.options.confidence * 100, fixed(r.winner_test_ci.low),
        fixed(r.winner_test_ci.high), fixed(r.p_test, 3), fixed(r.p_max_selection, 3));
  }
  if (args.json) {
    json doc = {{"data", args.inputs.data.name()},
                {"scores", files_json(args.inputs.scores)},
                {"split", args.options.split},
                {"seed", args.options.seed},
                {"correlation", correlation},
                {"level", args.level ? json(stats::level_name(*args.level)) : json(nullptr)},
                {"bootstrap", args.options.bootstrap},
                {"permutations", args.options.permutations},
                {"confidence", args.options.confidence},
                {"results", results}};
    fmt::print("{}\n", doc.dump(2));
    return kExitOk;
  }
  fmt::print(
      "Tasks split with seed {} ({:.0f}% to selection); the variant with the best {} on the "
      "selection half is chosen and only its test-half value is reported (the selection column "
      "is shown for transparency, never as a result). CI: {} bootstrap resamples of test {}. "
      "p: paired permutation test of corr(winner) - corr(variant) on the test half ({} "
      "permutations, two-sided), Holm-adjusted over the comparisons. Max-statistic p: human "
      "ratings permuted within each selection task, every variant's correlation recomputed and "
      "the maximum compared with the winner's: the chance that the best of {} unrelated variants "
      "looks as good. p(test): the same permutation on the test half for the winner alone.\n",
      args.options.seed, args.options.split * 100, correlation, args.options.bootstrap,
      args.level == stats::Level::kSystem ? "systems" : "tasks", args.options.permutations,
      scores.size());
  for (std::size_t m = 0; m < names.size(); ++m)
    if (!signatures[m].empty()) fmt::print("{}: {}\n", names[m], signatures[m]);
  return kExitOk;
}

}  // namespace

void add_select_command(CLI::App& app, Commands& commands) {
  struct State {
    SelectRequest request;
    LlmFlags llm;
    stats::Level level = stats::Level::kItem;  // --level, when given
  };
  auto state = std::make_shared<State>();
  SelectRequest& sel = state->request;
  LlmFlags& select_llm = state->llm;
  auto* selc = app.add_subcommand(
      "select",
      "Choose the metric variant with the best human correlation on a seeded half of the tasks "
      "and report it on the other half (bootstrap CI, paired permutation tests against every "
      "other variant, max-statistic correction of the choice)");
  selc->add_option("--data", sel.inputs.data, "Dataset with human ratings")
      ->required()
      ->check(CLI::ExistingFile);
  add_input_options(selc, sel.inputs.data);
  selc->add_option("--metric", sel.inputs.metrics, "A variant (metric name); give two or more")
      ->required();
  selc->add_option(
          "--scores", sel.inputs.scores,
          "Scores JSONL from `probity score` (default: compute the metrics); repeatable; '-' "
          "reads standard input")
      ->check(file_or_stdin());
  selc->add_option("--split", sel.options.split, "Fraction of tasks in the selection half")
      ->check(real(kOpenUnit))
      ->capture_default_str();
  selc->add_option("--seed", sel.options.seed, "Seed of the split, bootstrap and permutations")
      ->check(whole(0))
      ->capture_default_str();
  selc->add_option("--dimension", sel.inputs.dimensions,
                   "Only these human dimensions (default: all)");
  level_statistics(selc->add_option("--correlation", sel.correlation,
                                    "pearson, spearman or kendall; with --level also kendall-c, "
                                    "pairwise-acc, acc-eq, spa (system level), pdp or "
                                    "kendall-like"))
      ->default_str(std::string(stats::level_statistic_name(sel.correlation)));
  auto* level = levels(selc->add_option("--level", state->level,
                                        "item, task or system: choose and report the variants at "
                                        "that level (docs/meta-eval.md); default: the pooled "
                                        "correlation"));
  selc->add_option("--bootstrap", sel.options.bootstrap, "Bootstrap resamples (test tasks)")
      ->check(whole(0, limits::kResamples))
      ->capture_default_str();
  selc->add_option("--permutations", sel.options.permutations, "Permutations of each test")
      ->check(whole(1, limits::kResamples))
      ->capture_default_str();
  selc->add_option("--confidence", sel.options.confidence, "Confidence level")
      ->check(real(kOpenUnit))
      ->capture_default_str();
  add_llm_flags(selc, select_llm);
  selc->add_flag("--json", sel.json, "Print JSON instead of a table");
  selc->add_flag("--skip-invalid", sel.inputs.skip_invalid, "Skip invalid items and report them");
  selc->add_flag("--allow-missing", sel.inputs.allow_missing,
                 "Use a scores file that leaves items without a score (their number is reported)");
  add_threads(selc, sel.options.threads);

  commands.push_back({selc, [state, level](RunContext& context) {
                        if (level->count() > 0) state->request.level = state->level;
                        return run_with_llm(state->llm, context, "", [&](Engine& engine) {
                          return run_select(state->request, engine);
                        });
                      }});
}

}  // namespace probity::cli
