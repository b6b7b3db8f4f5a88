// `probity bench-build`: automatic meta-evaluation benchmarks (arXiv:2502.12052, ACL 2025) from a
// dataset's references, written in the task format for `probity meta local` / `probity meta
// global`.
#include <fmt/format.h>

#include <fstream>
#include <memory>
#include <stdexcept>

#include "cli/commands.hpp"
#include "cli/output.hpp"
#include "llm/prompts.hpp"
#include "llm/session.hpp"
#include "llm/structured.hpp"
#include "probity/engine.hpp"
#include "probity/error.hpp"
#include "probity/meta.hpp"
#include "util/output_file.hpp"

namespace probity::cli {

int run_bench_build(const BenchBuildRequest& args, Engine& engine) {
  const util::PlannedOutput output{args.out, "--out", {}};
  util::refuse_overwriting_inputs(command_inputs({args.data}, {args.anchor_metric}, &engine),
                                  std::span(&output, 1));
  meta::BenchOptions o;
  try {
    o.dimension = meta::parse_quality_dimension(args.dimension);
  } catch (const std::invalid_argument& e) {
    throw UsageError(e.what());
  }
  o.steps = args.steps;
  o.sources = args.sources;
  o.seed = args.seed;
  o.base_reference = args.base_reference;
  o.per_source = args.per_source;
  o.anchors_per_level = args.anchors;
  o.max_spread = args.max_spread;

  // The LLM realisations use the session main() installed from the LLM flags.
  const bool llm_judge = args.kind == "global" && args.anchor_judge == "llm";
  if ((args.injector == "llm" || llm_judge) && !engine.llm_or_null())
    throw UsageError(fmt::format("--{} llm needs --config or --llm-base-url",
                                 args.injector == "llm" ? "injector" : "anchor-judge"));
  std::unique_ptr<meta::Injector> injector;
  if (args.injector == "llm") {
    meta::LlmInjectorOptions lo;
    lo.role = args.llm_role;
    lo.max_edit_share = args.max_edit_share;
    injector = meta::make_llm_injector(engine.llm(), lo);
  } else {
    injector = meta::make_rule_injector();
  }

  Dataset ds = args.data.load({args.skip_invalid});
  meta::Benchmark b;
  std::string judge_signature;
  if (args.kind == "global") {
    std::unique_ptr<meta::AnchorJudge> judge;
    if (llm_judge) {
      meta::LlmAnchorOptions jo;
      jo.dimension = o.dimension;
      jo.role = args.llm_role_judge;
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
                                 args.base_reference));

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
  fmt::print("{} benchmark '{}' ({}): {} sources, {} items", args.kind, args.dimension, args.out,
             s.sources, s.items);
  if (args.kind == "local")
    fmt::print(", {} of {} sequences with all {} steps", s.full_length, s.sources, args.steps);
  fmt::print(", {} source(s) skipped; seed {}\n", s.skipped_sources, args.seed);
  fmt::print("edits:");
  for (const auto& [type, n] : s.injector_counts) fmt::print(" {}={}", type, n);
  fmt::print("\n");
  if (args.injector == "llm") {
    // Failed steps end their sequence early; they are reported, never silently skipped.
    fmt::print("injector: {}\n", s.injector);
    fmt::print("failed steps: {}", s.failed_steps);
    for (const auto& [reason, n] : s.step_failures) fmt::print(" {}={}", reason, n);
    fmt::print("; stopped (no error type applies): {}; rejected answers re-asked: {}\n",
               s.inapplicable_stops, s.rejected_answers);
  }
  if (args.kind == "global") {
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

}  // namespace probity::cli
