// `probity bench-build`: automatic meta-evaluation benchmarks (SPEC §6) from a dataset's
// references, written in the task format for `probity meta local` / `probity meta global`.
#include <fmt/format.h>

#include <fstream>
#include <stdexcept>

#include "cli/commands.hpp"
#include "probity/error.hpp"
#include "probity/meta.hpp"

namespace probity::cli {

int run_bench_build(const BenchBuildArgs& args) {
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

  Dataset ds = load_dataset(args.data, {args.skip_invalid});
  meta::Benchmark b;
  std::string judge_signature;
  if (args.kind == "global") {
    auto judge = meta::make_metric_anchor_judge(args.anchor_metric, args.threads);
    judge_signature = judge->signature();
    b = meta::build_global_benchmark(ds, o, *judge);
  } else {
    b = meta::build_local_benchmark(ds, o);
  }
  if (b.dataset.tasks.empty())
    throw InputError(args.data, 0, "references",
                     fmt::format("no source could be used: a task needs at least two references "
                                 "(reference {} is edited, the others stay references)",
                                 args.base_reference));

  std::ofstream out(args.out, std::ios::binary);
  if (!out) throw UsageError(fmt::format("cannot write '{}'", args.out));
  meta::write_dataset(out, b.dataset, b.meta);
  out.close();
  if (!out) throw std::runtime_error(fmt::format("writing '{}' failed", args.out));

  const auto& s = b.stats;
  fmt::print("{} benchmark '{}' ({}): {} sources, {} items", args.kind, args.dimension, args.out,
             s.sources, s.items);
  if (args.kind == "local")
    fmt::print(", {} of {} sequences with all {} steps", s.full_length, s.sources, args.steps);
  fmt::print(", {} source(s) skipped; seed {}\n", s.skipped_sources, args.seed);
  fmt::print("edits:");
  for (const auto& [type, n] : s.injector_counts) fmt::print(" {}={}", type, n);
  fmt::print("\n");
  if (args.kind == "global") {
    fmt::print("anchors per level:");
    for (const auto& [level, n] : s.anchors) fmt::print(" {}:{}", level, n);
    fmt::print("\nanchor judge: {}\n", judge_signature);
  }
  return kExitOk;
}

}  // namespace probity::cli
