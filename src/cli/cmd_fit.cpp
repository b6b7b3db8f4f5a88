// `probity fit`: fits a metric once on a corpus and freezes the fit into a model file
// (probity/fit.hpp); `--metric M,fit=FILE` then scores with that fixed function.
#include <fmt/format.h>

#include <nlohmann/json.hpp>

#include "cli/command.hpp"
#include "cli/flags.hpp"
#include "cli/input_options.hpp"
#include "cli/llm_context.hpp"
#include "cli/output.hpp"
#include "probity/engine.hpp"
#include "probity/error.hpp"
#include "probity/fit.hpp"

namespace probity::cli {
namespace {

int run_fit(const FitRequest& request, bool json, const Console& console, Engine& engine) {
  const FitResult r = fit_model(request, engine.metrics(), engine.metric_context());
  print_skipped(r.skipped);
  if (json) {
    const nlohmann::json out = {{"out", r.out},
                                {"metric", r.metric},
                                {"method", r.method},
                                {"tasks", r.tasks},
                                {"references", r.references},
                                {"candidates", r.candidates},
                                {"corpus_sha256", r.corpus_sha256},
                                {"model_sha256", r.model_sha256},
                                {"bytes", r.bytes}};
    fmt::print("{}\n", out.dump(2));
    return kExitOk;
  }
  fmt::print("{}: {} fitted ({}) on {} tasks, {} references, {} candidates\n", r.out, r.metric,
             r.method, r.tasks, r.references, r.candidates);
  fmt::print("model sha256 {}\n", r.model_sha256);
  if (!console.quiet())
    fmt::print(stderr, "note: score with --metric '{},fit={}' for this fixed function\n", r.metric,
               r.out);
  return kExitOk;
}

}  // namespace

void add_fit_command(CLI::App& app, Commands& commands) {
  struct State {
    FitRequest request;
    bool json = false;
    LlmFlags llm;
  };
  auto state = std::make_shared<State>();
  FitRequest& fit = state->request;
  auto* fc = app.add_subcommand(
      "fit",
      "Fit a metric that fits on data (bertscore, gem) once on a corpus into a model file "
      "for M,fit=FILE");
  fc->add_option("--metric,-m", fit.metric,
                 "The metric as scored, e.g. gem or bertscore,idf=true (without fit=, style= or "
                 "refs=<ids>)")
      ->required();
  fc->add_option("--data", fit.data, "The corpus to fit on (JSONL task format or CSV)")
      ->required()
      ->check(CLI::ExistingFile);
  add_input_options(fc, fit.data);
  fc->add_option("--out", fit.out, "The model file to write (replaced only once complete)")
      ->required();
  fc->add_flag("--skip-invalid", fit.skip_invalid, "Skip invalid items and report them");
  fc->add_flag("--json", state->json, "Print what was written as JSON");
  add_llm_flags(fc, state->llm);
  commands.push_back({fc, [state](RunContext& context) {
                        State& s = *state;
                        return run_with_llm(s.llm, context, "", [&s, &context](Engine& engine) {
                          return run_fit(s.request, s.json, context.console, engine);
                        });
                      }});
}

}  // namespace probity::cli
