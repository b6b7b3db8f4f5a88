#pragma once
// The subcommands of the `probity` tool: main.cpp binds the flags onto the library's requests
// (probity/requests.hpp, probity/audit.hpp) and these run and render them.
#include <cstdint>
#include <string>
#include <vector>

#include "cli/terminal.hpp"
#include "probity/audit.hpp"
#include "probity/inputs.hpp"
#include "probity/requests.hpp"
#include "probity/score_run.hpp"

namespace probity {
class Engine;
}

namespace probity::cli {

// Where `probity score` writes what the library's ScoreRequest computes.
struct ScoreView {
  std::string out;          // records; empty: stdout (none with score_only)
  std::string explain;      // JSONL of per-item explanations from metrics that support them
  bool score_only = false;  // -b: only the corpus scores, one per line, on stdout
  Console console;          // -q: no progress bar and no notes; -v: the time taken
};
int run_score(const ScoreRequest& request, const ScoreView& view, Engine& engine);

// Combines shard score files into exactly the file an unsharded `score` writes.
int run_merge(const MergeRequest& args);

// Parses "I/N" (0 <= I < N) of --shard; throws UsageError otherwise.
void parse_shard(const std::string& text, std::size_t& index, std::size_t& count);

int run_correlate(const CorrelateRequest& args);

int run_compare(const CompareRequest& args);

int run_rank(const RankRequest& args);

int run_significance(const SignificanceRequest& args, Engine& engine);

// What `probity audit` adds to the library's request: how the report is shown and exported.
struct AuditView {
  bool ascii = false;
  std::vector<std::string> exports;  // --export latex,svg: figures and tables
  Console console;  // table width and colours; -q: no progress or notes; -v: stage timings
};
int run_audit(const AuditOptions& request, const AuditView& view, Engine& engine);
// Writes the dataset plus every applied perturbation as extra candidates "<id>~<kind>-<code>".
int run_perturb(const PerturbRequest& args, Engine& engine);

int run_metrics(bool json);

int run_select(const SelectRequest& args, Engine& engine);

// Writes DIR/attack.json and prints the per-metric summary (docs/attack.md).
int run_attack(const AttackRequest& args, Engine& engine);

int run_meta_global(const MetaRequest& args);
int run_meta_local(const MetaRequest& args);

int run_bench_build(const BenchBuildRequest& args, Engine& engine);

}  // namespace probity::cli
