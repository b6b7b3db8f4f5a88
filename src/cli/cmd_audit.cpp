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

int run_audit(const AuditOptions& request, const AuditView& view, Engine& engine) {
  AuditOptions opts = request;
  // One line for the whole audit: items over all stages, so that its ETA does not restart.
  Progress bar("audit");
  const auto started = std::chrono::steady_clock::now();
  const auto elapsed = [&] {
    return std::chrono::duration<double>(std::chrono::steady_clock::now() - started).count();
  };
  std::string current;
  opts.overall_progress = [&](const AuditOptions::Overall& o) {
    if (view.console.quiet()) return;
    if (view.console.verbose() && o.stage != current) {
      current = o.stage;
      fmt::print(stderr, "[{:7.1f} s] {}\n", elapsed(), current);
    }
    std::string detail = fmt::format("stage {}/{} {}", o.stage_index, o.stages, o.stage);
    if (o.datasets > 1) detail = fmt::format("dataset {}/{}, {}", o.dataset, o.datasets, detail);
    bar.update(o.done, o.total, detail);
  };
  opts.note = [&](std::string_view message) {
    if (!view.console.quiet()) fmt::print(stderr, "note: {}\n", message);
  };
  AuditReport report = run_audit(opts, engine);
  bar.finish();
  for (const auto& d : report.datasets) print_skipped(d.skipped);
  if (request.shard_count > 1) {
    // A shard's statistics cover a fraction of the items: only its cached work is the product.
    std::size_t audited = 0;
    for (const auto& d : report.datasets) audited += d.audited;
    fmt::print(
        "shard {}/{}: {} candidate(s) perturbed and scored into {}/cache.sqlite ({:.1f} s)\n"
        "finish with the same command without --shard, adding --import {} (and the other "
        "shards' directories)\n",
        request.shard_index, request.shard_count, audited, request.out_dir, report.seconds,
        request.out_dir);
    return kExitOk;
  }
  if (view.console.verbose()) fmt::print(stderr, "[{:7.1f} s] done\n", elapsed());
  // The details first, then the files written and the time, and the scorecard last, where the
  // terminal leaves it in view.
  const report::TextOptions text{!view.ascii, view.console.width, view.console.color_stdout};
  if (std::string details = report::to_text_details(report, text); !details.empty())
    fmt::print("{}\n", details);
  report::write_all(report, request.out_dir);
  auto dir = std::filesystem::path(request.out_dir);
  fmt::print("report: report.json, report.md and report.html in {}\n", request.out_dir);
  auto wants = [&](std::string_view what) {
    return std::find(view.exports.begin(), view.exports.end(), what) != view.exports.end();
  };
  if (!view.exports.empty()) {
    auto files = report::write_exports(report, request.out_dir, wants("latex"), wants("svg"));
    fmt::print("export: {} file(s) in {}\n", files.size(), request.out_dir);
  }
  fmt::print("{:.1f} s; cache {} hits, {} misses ({})\n\n", report.seconds, report.cache_hits,
             report.cache_misses, (dir / "cache.sqlite").string());
  fmt::print("{}", report::to_text_verdict(report, text));
  return kExitOk;
}

}  // namespace probity::cli
