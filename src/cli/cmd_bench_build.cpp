// `probity bench-build`: automatic meta-evaluation benchmarks (arXiv:2502.12052, ACL 2025) from a
// dataset's references, written in the task format for `probity meta local` / `probity meta
// global`.
#include <fmt/format.h>

#include <fstream>
#include <memory>
#include <stdexcept>

#include "cli/command.hpp"
#include "cli/flags.hpp"
#include "cli/llm_context.hpp"
#include "cli/output.hpp"
#include "llm/prompts.hpp"
#include "llm/session.hpp"
#include "llm/structured.hpp"
#include "probity/engine.hpp"
#include "probity/error.hpp"
#include "probity/meta.hpp"
#include "probity/requests.hpp"
#include "util/output_file.hpp"

namespace probity::cli {
namespace {

int run_bench_build(const BenchBuildRequest& args, Engine& engine) {
  const util::PlannedOutput output{args.out, "--out", {}};
  util::refuse_overwriting_inputs(command_inputs({args.data}, {args.anchor_metric}, &engine),
                                  std::span(&output, 1));
  const meta::BenchOptions& o = args.options;
  const bool global = args.kind == BenchKind::kGlobal;
  const bool llm_injector = args.injector == BenchRealisation::kLlm;

  // The LLM realisations use the session main() installed from the LLM flags.
  const bool llm_judge = global && args.anchor_judge == BenchRealisation::kLlm;
  if ((llm_injector || llm_judge) && !engine.llm_or_null())
    throw UsageError(fmt::format("--{} llm needs --config or --llm-base-url",
                                 llm_injector ? "injector" : "anchor-judge"));
  std::unique_ptr<meta::Injector> injector;
  if (llm_injector) {
    injector = meta::make_llm_injector(engine.llm(), args.llm_injector);
  } else {
    injector = meta::make_rule_injector();
  }

  Dataset ds = args.data.load({args.skip_invalid});
  meta::Benchmark b;
  std::string judge_signature;
  if (global) {
    std::unique_ptr<meta::AnchorJudge> judge;
    if (llm_judge) {
      meta::LlmAnchorOptions jo = args.llm_anchor_judge;
      jo.dimension = o.dimension;
      judge = meta::make_llm_anchor_judge(engine.llm(), jo);
    } else {
      judge = meta::make_metric_anchor_judge(args.anchor_metric, engine, args.threads);
    }
    judge_signature = judge->signature();
    b = meta::build_global_benchmark(ds, o, *judge, *injector);
  } else {
    b = meta::build_local_benchmark(ds, o, *injector);
  }
  // Sources that had the references but got no edit: the injector's answer (no error type
  // applied, or failed steps), not the data's fault; the empty benchmark is written and said so.
  const bool injector_declined =
      b.stats.inapplicable_stops > 0 || b.stats.failed_steps > 0 || b.stats.rejected_answers > 0;
  if (b.dataset.tasks.empty() && !injector_declined)
    throw InputError(args.data.name(), 0, "references",
                     fmt::format("no source could be used: a task needs at least two references "
                                 "(reference {} is edited, the others stay references)",
                                 o.base_reference));

  if (b.dataset.tasks.empty())
    fmt::print(stderr,
               "probity: no source gave a benchmark item: the injector applied no edit ({} "
               "sequence(s) stopped because no error type applied, {} step(s) failed, {} "
               "answer(s) rejected); the benchmark written is empty\n",
               b.stats.inapplicable_stops, b.stats.failed_steps, b.stats.rejected_answers);
  util::OutputFile out(args.out);
  meta::write_dataset(out.stream(), b.dataset, b.meta);
  out.commit();

  const auto& s = b.stats;
  fmt::print("{} benchmark '{}' ({}): {} sources, {} items", bench_kind_name(args.kind),
             meta::dimension_name(o.dimension), args.out, s.sources, s.items);
  if (!global)
    fmt::print(", {} of {} sequences with all {} steps", s.full_length, s.sources, o.steps);
  fmt::print(", {} source(s) skipped; seed {}\n", s.skipped_sources, o.seed);
  fmt::print("edits:");
  for (const auto& [type, n] : s.injector_counts) fmt::print(" {}={}", type, n);
  fmt::print("\n");
  if (llm_injector) {
    // Failed steps end their sequence early; they are reported, never silently skipped.
    fmt::print("injector: {}\n", s.injector);
    fmt::print("failed steps: {}", s.failed_steps);
    for (const auto& [reason, n] : s.step_failures) fmt::print(" {}={}", reason, n);
    fmt::print("; stopped (no error type applies): {}; rejected answers re-asked: {}\n",
               s.inapplicable_stops, s.rejected_answers);
  }
  if (global) {
    fmt::print("anchors per level:");
    for (const auto& [level, n] : s.anchors) fmt::print(" {}:{}", level, n);
    fmt::print("\nanchor judge: {}\n", judge_signature);
    if (!s.judge_counters.empty()) {
      // Failed comparisons count as ties (0) in the anchoring; their number is printed here.
      fmt::print("anchor comparisons:");
      for (const auto& [name, n] : s.judge_counters) fmt::print(" {}={}", name, n);
      fmt::print("\n");
    }
  }
  return kExitOk;
}

}  // namespace

void add_bench_build_command(CLI::App& app, Commands& commands) {
  struct State {
    BenchBuildRequest request;
    LlmFlags llm;
  };
  auto state = std::make_shared<State>();
  BenchBuildRequest& bench = state->request;
  LlmFlags& bench_llm = state->llm;
  auto* bc = app.add_subcommand(
      "bench-build",
      "Build a meta-evaluation benchmark from a dataset's references: local sequences (one "
      "error injected per step, cumulatively) or global items levelled by anchoring");
  bc->add_option("--data", bench.data, "Dataset whose references are edited")
      ->required()
      ->check(CLI::ExistingFile);
  add_input_options(bc, bench.data);
  one_of(bc->add_option("--dimension", bench.options.dimension,
                        "consistency, fluency, coherence or relevance (selects the error types)"),
         {meta::QualityDimension::kConsistency, meta::QualityDimension::kFluency,
          meta::QualityDimension::kCoherence, meta::QualityDimension::kRelevance},
         meta::dimension_name)
      ->required();
  one_of(bc->add_option("--kind", bench.kind, "local (sequences) or global (anchored levels)"),
         {BenchKind::kLocal, BenchKind::kGlobal}, bench_kind_name)
      ->default_str(std::string(bench_kind_name(bench.kind)));
  bc->add_option("--steps", bench.options.steps,
                 "Errors per sequence (global: most errors per item)")
      ->check(whole(1, 100))
      ->capture_default_str();
  bc->add_option("--sources", bench.options.sources,
                 "Sources (tasks) used, in a seeded order (0: all)")
      ->check(whole(0, limits::kItems))
      ->capture_default_str();
  bc->add_option("--seed", bench.options.seed, "Seed of every choice")
      ->check(whole(0))
      ->capture_default_str();
  bc->add_option("--base-ref", bench.options.base_reference,
                 "Index of the reference that is edited; the others remain references")
      ->check(whole(0, 1000))
      ->capture_default_str();
  bc->add_option("--per-source", bench.options.per_source, "Global: items per source")
      ->check(whole(1, 100))
      ->capture_default_str();
  bc->add_option("--anchors", bench.options.anchors_per_level,
                 "Global: anchors sampled per level (0: all)")
      ->check(whole(0, limits::kItems))
      ->capture_default_str();
  bc->add_option("--anchor-metric", bench.anchor_metric,
                 "Global: metric whose scores compare an item with the anchors (offline judge)")
      ->capture_default_str();
  bc->add_option("--max-spread", bench.options.max_spread, "Global: consensus rule of the anchors")
      ->check(real(kNonNegative))
      ->capture_default_str();
  bc->add_option("--out", bench.out, "Output dataset (task-format JSONL)")->required();
  bc->add_flag("--skip-invalid", bench.skip_invalid, "Skip invalid items and report them");
  add_threads(bc, bench.threads);
  one_of(bc->add_option("--injector", bench.injector,
                        "Error injection: rules (offline) or llm (one model call per step, role "
                        "--llm-role; failed steps end the sequence and are counted)"),
         {BenchRealisation::kOffline, BenchRealisation::kLlm}, injector_name)
      ->default_str(std::string(injector_name(bench.injector)));
  bc->add_option("--llm-role", bench.llm_injector.role, "LLM role of the llm injector")
      ->capture_default_str();
  bc->add_option("--max-edit-share", bench.llm_injector.max_edit_share,
                 "llm injector: an answer changing more than this share of the words is "
                 "rejected and re-asked")
      ->check(real({0.01, 1.0}))
      ->capture_default_str();
  one_of(bc->add_option("--anchor-judge", bench.anchor_judge,
                        "Global: metric (--anchor-metric) or llm (pairwise model judge, role "
                        "--llm-role-judge, both orders; failures count as ties and are "
                        "reported)"),
         {BenchRealisation::kOffline, BenchRealisation::kLlm}, anchor_judge_name)
      ->default_str(std::string(anchor_judge_name(bench.anchor_judge)));
  bc->add_option("--llm-role-judge", bench.llm_anchor_judge.role,
                 "LLM role of the llm anchor judge")
      ->capture_default_str();
  add_llm_flags(bc, bench_llm);

  commands.push_back({bc, [state](RunContext& context) {
                        return run_with_llm(state->llm, context, "", [&](Engine& engine) {
                          return run_bench_build(state->request, engine);
                        });
                      }});
}

}  // namespace probity::cli
