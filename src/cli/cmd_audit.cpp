// `probity audit`: correlation, degradation and manipulation tests; tables on stdout and the
// report files (JSON, Markdown, HTML) in the output directory.
#include <fmt/format.h>

#include <algorithm>
#include <chrono>
#include <filesystem>

#include "cli/commands.hpp"
#include "cli/output.hpp"
#include "cli/progress.hpp"
#include "probity/audit.hpp"
#include "probity/engine.hpp"
#include "probity/error.hpp"
#include "probity/report.hpp"

namespace probity::cli {

int run_audit(const AuditArgs& args, Engine& engine) {
  AuditOptions opts;
  opts.data = args.data;
  opts.lang = args.lang;
  opts.metrics = args.metrics;
  opts.degradations = args.degradations;
  opts.manipulations = args.manipulations;
  opts.suite = args.suite;
  opts.sample = args.sample;
  opts.min_applied = args.min_applied;
  opts.seed = args.seed;
  opts.bootstrap = args.bootstrap;
  opts.alpha = args.alpha;
  opts.out_dir = args.out;
  opts.threads = args.threads;
  opts.skip_invalid = args.skip_invalid;
  opts.shard_index = args.shard_index;
  opts.shard_count = args.shard_count;
  opts.import_caches = args.import;
  for (const auto& l : args.levels) opts.levels.push_back(stats::parse_level(l));
  for (const auto& st : args.statistics)
    opts.level_statistics.push_back(stats::parse_level_statistic(st));
  opts.baselines = args.baselines;
  opts.rank = args.rank;
  opts.rank_permutations = args.permutations;
  opts.rank_correction = parse_rank_correction(args.correction);
  opts.attack = args.attack;
  opts.attack_options.strategy = args.attack_strategy;
  opts.attack_options.budget = args.attack_budget;
  opts.attack_options.programs = args.attack_programs;
  opts.attack_options.seed = args.seed;
  opts.attack_options.alpha = args.alpha;
  opts.attack_options.bootstrap = args.bootstrap;
  opts.attack_options.min_applied = args.min_applied;
  if (args.shard_count > 1) opts.bootstrap = 0;  // a shard reports no statistics
  // One line for the whole audit: items over all stages, so that its ETA does not restart.
  Progress bar("audit");
  const auto started = std::chrono::steady_clock::now();
  const auto elapsed = [&] {
    return std::chrono::duration<double>(std::chrono::steady_clock::now() - started).count();
  };
  std::string current;
  opts.overall_progress = [&](const AuditOptions::Overall& o) {
    if (args.console.quiet()) return;
    if (args.console.verbose() && o.stage != current) {
      current = o.stage;
      fmt::print(stderr, "[{:7.1f} s] {}\n", elapsed(), current);
    }
    std::string detail = fmt::format("stage {}/{} {}", o.stage_index, o.stages, o.stage);
    if (o.datasets > 1) detail = fmt::format("dataset {}/{}, {}", o.dataset, o.datasets, detail);
    bar.update(o.done, o.total, detail);
  };
  opts.note = [&](std::string_view message) {
    if (!args.console.quiet()) fmt::print(stderr, "note: {}\n", message);
  };
  AuditReport report = run_audit(opts, engine);
  bar.finish();
  for (const auto& d : report.datasets) print_skipped(d.skipped);
  if (args.shard_count > 1) {
    // A shard's statistics cover a fraction of the items: only its cached work is the product.
    std::size_t audited = 0;
    for (const auto& d : report.datasets) audited += d.audited;
    fmt::print(
        "shard {}/{}: {} candidate(s) perturbed and scored into {}/cache.sqlite ({:.1f} s)\n"
        "finish with the same command without --shard, adding --import {} (and the other "
        "shards' directories)\n",
        args.shard_index, args.shard_count, audited, args.out, report.seconds, args.out);
    return kExitOk;
  }
  if (args.console.verbose()) fmt::print(stderr, "[{:7.1f} s] done\n", elapsed());
  // The details first, then the files written and the time, and the scorecard last, where the
  // terminal leaves it in view.
  const report::TextOptions text{!args.ascii, args.console.width, args.console.color_stdout};
  if (std::string details = report::to_text_details(report, text); !details.empty())
    fmt::print("{}\n", details);
  report::write_all(report, args.out);
  auto dir = std::filesystem::path(args.out);
  fmt::print("report: report.json, report.md and report.html in {}\n", args.out);
  auto wants = [&](std::string_view what) {
    return std::find(args.exports.begin(), args.exports.end(), what) != args.exports.end();
  };
  if (!args.exports.empty()) {
    auto files = report::write_exports(report, args.out, wants("latex"), wants("svg"));
    fmt::print("export: {} file(s) in {}\n", files.size(), args.out);
  }
  fmt::print("{:.1f} s; cache {} hits, {} misses ({})\n\n", report.seconds, report.cache_hits,
             report.cache_misses, (dir / "cache.sqlite").string());
  fmt::print("{}", report::to_text_verdict(report, text));
  return kExitOk;
}

}  // namespace probity::cli
