// `probity audit`: correlation, degradation and manipulation tests; tables on stdout and the
// report files (JSON, Markdown, HTML) in the output directory.
#include <fmt/format.h>

#include <algorithm>
#include <chrono>
#include <filesystem>

#include "cli/command.hpp"
#include "cli/flags.hpp"
#include "cli/llm_context.hpp"
#include "cli/output.hpp"
#include "cli/progress.hpp"
#include "probity/audit.hpp"
#include "probity/engine.hpp"
#include "probity/error.hpp"
#include "probity/report.hpp"
#include "probity/requests.hpp"

namespace probity::cli {
namespace {

// What `probity audit` adds to the library's request: how the report is shown and exported.
struct AuditView {
  bool ascii = false;
  std::vector<std::string> exports;  // --export latex,svg: figures and tables
  Console console;  // table width and colours; -q: no progress or notes; -v: stage timings
};

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

}  // namespace

void add_audit_command(CLI::App& app, Commands& commands) {
  struct State {
    AuditOptions request;
    AuditView view;
    std::string shard;
    LlmFlags llm;
  };
  auto state = std::make_shared<State>();
  AuditOptions& audit = state->request;
  AuditView& audit_view = state->view;
  std::string& audit_shard = state->shard;
  LlmFlags& audit_llm = state->llm;
  auto* ac = app.add_subcommand(
      "audit", "Audit metrics: human correlation, degradation and manipulation tests, report");
  ac->add_option("--data", audit.data, "Dataset(s) with human ratings; repeatable")
      ->required()
      ->check(CLI::ExistingFile);
  add_input_options(ac, audit.data);
  ac->add_option("--lang", audit.lang, kLangHelp)->check(known_language());
  ac->add_option("--metric", audit.metrics, "Metric(s) to audit; repeatable")->required();
  ac->add_option("--dimension", audit.dimensions,
                 "Human dimension(s) to correlate with, e.g. relevance; repeatable (default: "
                 "every rating column; the scorecard's correlation is their mean)");
  ac->add_option("--degrade", audit.degradations,
                 "Degradations: 'all', 'none' or letter codes R,S,D,P,U,O; llm:<code> for the "
                 "LLM realisation (llm:<code>@v1: the v1 prompt)")
      ->delimiter(',')
      ->capture_default_str();
  ac->add_option("--manipulate", audit.manipulations,
                 "Manipulations: 'all', 'none' or letter codes R,M,P,N,H,S; llm:<code> for the "
                 "LLM realisation (llm:<code>@v1: the v1 prompt)")
      ->delimiter(',')
      ->capture_default_str();
  ac->add_option("--suite", audit.suite,
                 "A protocol instead of --degrade/--manipulate: paper (the paper's "
                 "strategies for the dataset's task type, rules for R,S,M and an LLM for the "
                 "rest, one ground-truth reference, --sample 200) or "
                 "paper:summarization|peer-review|qa");
  ac->add_option("--sample", audit.sample,
                 "Candidates per dataset, sampled with the seed (0: all; default: all, or "
                 "200 with --suite)")
      ->check(whole(0, limits::kItems));
  ac->add_option("--seed", audit.seed, "Seed of every random step")
      ->check(whole(0))
      ->capture_default_str();
  ac->add_option("--min-applied", audit.min_applied,
                 "Applied items a strategy needs to be tested (all items of a smaller dataset); "
                 "fewer: n/a")
      ->check(whole(0, limits::kItems))
      ->capture_default_str();
  ac->add_option("--bootstrap", audit.bootstrap, "Bootstrap resamples for CIs")
      ->check(whole(0, limits::kResamples))
      ->capture_default_str();
  ac->add_option("--alpha", audit.alpha, "Significance level of the one-sided tests")
      ->check(real(kOpenUnit))
      ->capture_default_str();
  ac->add_option("--margin", audit.margin,
                 "Equivalence margin in d units: a manipulation resists (a degradation misses) "
                 "only when a change of this size is ruled out, else the test is inconclusive")
      ->check(real({0.0, 10.0}))
      ->capture_default_str();
  one_of(ac->add_option("--test", audit.test,
                        "Paired test: t (Student's, the default), wilcoxon (signed-rank) or sign, "
                        "for differences far from normal"),
         {PairedTest::kT, PairedTest::kWilcoxon, PairedTest::kSign}, paired_test_name)
      ->default_str(std::string(paired_test_name(audit.test)));
  levels(
      ac->add_option("--level", audit.levels,
                     "Also correlate at these levels: item (pooled over tasks' resamples), task, "
                     "system; repeatable (docs/meta-eval.md)"));
  level_statistics(ac->add_option(
      "--statistic", audit.level_statistics,
      "Statistics of the --level rows (default kendall): pearson, spearman, kendall, "
      "kendall-c, pairwise-acc, acc-eq, spa (system level), pdp, kendall-like; repeatable"));
  ac->add_flag("!--no-baselines", audit.baselines,
               "Leave out the length and random baseline rows of the correlation tables");
  ac->add_flag("--rank", audit.rank,
               "Significance clusters of the metrics and baselines at each --level (item when "
               "none) for the first --statistic");
  ac->add_option("--permutations", audit.rank_permutations, "--rank: permutations per pair")
      ->check(whole(1, limits::kResamples))
      ->capture_default_str();
  rank_corrections(
      ac->add_option("--correction", audit.rank_correction,
                     "--rank: multiple-comparison control over all pairs: holm, bh or none"))
      ->default_str("holm");
  ac->add_flag("--attack", audit.attack,
               "Add the attack section: search for content-free edits each metric rewards "
               "(docs/attack.md)");
  ac->add_option("--attack-strategy", audit.attack_options.strategy,
                 "--attack: greedy, beam, random, evolution or llm (the LLM attacker, role "
                 "attacker, with the offline support guard)")
      ->check(CLI::IsMember({"greedy", "beam", "random", "evolution", "llm"}))
      ->capture_default_str();
  ac->add_option("--attack-budget", audit.attack_options.budget,
                 "--attack: metric queries per item")
      ->check(whole(1, limits::kAttackBudget))
      ->capture_default_str();
  ac->add_option("--attack-programs", audit.attack_options.programs,
                 "--attack: universal programs tested on held-out tasks")
      ->check(whole(0, limits::kPrograms))
      ->capture_default_str();
  ac->add_option("--out", audit.out_dir, "Output directory (report files and resume cache)")
      ->required();
  ac->add_flag("--ascii", audit_view.ascii, "ASCII tables instead of Unicode");
  ac->add_option("--export", audit_view.exports,
                 "Also write every figure as standalone SVG (svg) and every table as LaTeX "
                 "booktabs (latex) into --out; comma-separated")
      ->delimiter(',')
      ->check(CLI::IsMember({"latex", "svg"}));
  ac->add_flag("--skip-invalid", audit.skip_invalid, "Skip invalid items and report them");
  add_threads(ac, audit.threads);
  ac->add_option("--shard", audit_shard,
                 "I/N: audit only shard I of N into the --out cache (no report); then run the "
                 "unsharded audit with --import of every shard's directory");
  ac->add_option("--import", audit.import_caches,
                 "Directory (or cache.sqlite) of a finished shard whose cached work to reuse");

  add_llm_flags(ac, audit_llm);
  ac->add_option("--perturber", audit_llm.perturber,
                 "Realisation of the strategies: rules (offline) or llm (the perturber role)")
      ->check(CLI::IsMember({"rules", "llm"}))
      ->capture_default_str();

  commands.push_back(
      {ac, [state](RunContext& context) {
         State& s = *state;
         if (!s.shard.empty()) parse_shard(s.shard, s.request.shard_index, s.request.shard_count);
         if (!s.request.suite.empty() && s.llm.perturber == "llm")
           throw UsageError("--suite chooses the realisations: give it without --perturber llm");
         s.view.console = context.console;
         return run_with_llm(
             s.llm, context, s.request.out_dir + "/llm_usage.json", [&s](Engine& engine) {
               if (s.llm.perturber == "llm")
                 use_llm_perturber(engine, s.request.degradations, s.request.manipulations);
               return run_audit(s.request, s.view, engine);
             });
       }});
}

}  // namespace probity::cli
