// `probity attack`: the search for content-free edits a metric misses (run_attack in
// src/audit/attack.cpp), written to DIR/attack.json with a summary table.
#include <fmt/format.h>

#include <algorithm>
#include <filesystem>
#include <nlohmann/json.hpp>

#include "cli/command.hpp"
#include "cli/flags.hpp"
#include "cli/llm_context.hpp"
#include "cli/output.hpp"
#include "llm/session.hpp"
#include "perturb/edit_ops.hpp"
#include "probity/attack.hpp"
#include "probity/audit.hpp"
#include "probity/engine.hpp"
#include "probity/error.hpp"
#include "probity/report.hpp"
#include "probity/requests.hpp"
#include "probity/scoring.hpp"
#include "report/json_value.hpp"
#include "util/output_file.hpp"

namespace probity::cli {
namespace {
namespace {

using ojson = nlohmann::ordered_json;

}  // namespace

int attack_command(const AttackRequest& args, const Console& console, Engine& engine) {
  if (args.metrics.empty()) throw UsageError("attack: at least one --metric is required");
  const util::PlannedOutput output{args.out, "--out", {"attack.json"}};
  util::refuse_overwriting_inputs(command_inputs({args.data}, args.metrics, &engine),
                                  std::span(&output, 1));
  // Before the search, so that an output that cannot be written stops the run at once.
  std::error_code ec;
  std::filesystem::create_directories(args.out, ec);
  if (ec) throw OutputError(args.out, "cannot create the output directory: " + ec.message());
  const AttackRun run = probity::run_attack(args, engine);
  print_skipped(run.skipped);
  ojson doc = report::attack_document(run);
  const std::string path = (std::filesystem::path(args.out) / "attack.json").string();
  util::write_file_atomically(path,
                              doc.dump(2, ' ', false, ojson::error_handler_t::replace) + "\n");
  fmt::print("{}report: {}\n",
             report::attack_to_text(run, {true, console.width, console.color_stdout}), path);
  return kExitOk;
}

}  // namespace

void add_attack_command(CLI::App& app, Commands& commands) {
  struct State {
    AttackRequest request;
    LlmFlags llm;
  };
  auto state = std::make_shared<State>();
  AttackRequest& atk = state->request;
  LlmFlags& attack_llm = state->llm;
  auto* atc = app.add_subcommand(
      "attack",
      "Search for content-free edits that raise a metric's score: per item under a query "
      "budget, and universal edit programs chosen on half the tasks and tested on the other");
  atc->add_option("--data", atk.data, "Dataset")->required()->check(CLI::ExistingFile);
  add_input_options(atc, atk.data);
  atc->add_option("--lang", atk.lang, kLangHelp)->check(known_language());
  atc->add_option("--metric", atk.metrics, "Metric(s) to attack; repeatable")->required();
  atc->add_option("--out", atk.out, "Output directory (attack.json)")->required();
  atc->add_option("--strategy", atk.options.strategy,
                  "Per-item search: greedy, beam, random, evolution (seeded, over edit programs) "
                  "or llm (rewrites proposed by the LLM role attacker from the metric's feedback, "
                  "each checked by --guard before it is scored)")
      ->check(CLI::IsMember({"greedy", "beam", "random", "evolution", "llm"}))
      ->capture_default_str();
  atc->add_option("--guard", atk.options.guard,
                  "--strategy llm: the information guard every rewrite must pass: support (the "
                  "offline support judge fitted on the data) or llm (the LLM role guard)")
      ->check(CLI::IsMember({"support", "llm"}))
      ->capture_default_str();
  atc->add_option("--proposals", atk.options.proposals,
                  "--strategy llm: rewrites asked for per attacker request (one per round)")
      ->check(whole(1, limits::kAttackProposals))
      ->capture_default_str();
  atc->add_option("--budget", atk.options.budget, "Metric queries per item")
      ->check(whole(1, limits::kAttackBudget))
      ->capture_default_str();
  atc->add_option("--steps", atk.options.steps,
                  "Edits per item (random, evolution: the longest program; llm: attacker rounds)")
      ->check(whole(1, limits::kAttackSteps))
      ->capture_default_str();
  atc->add_option("--beam", atk.options.beam, "Beam width (beam), population (evolution)")
      ->check(whole(1, limits::kAttackBeam))
      ->capture_default_str();
  atc->add_option("--family", atk.options.families,
                  "Only these edit families (filler, hedge, intensifier, sentiment, reorder, "
                  "repetition, synonym, casing, tokenisation, formatting, padding, injection; "
                  "copy-source adds task content), the replacement families master-key and "
                  "null-model (the whole answer replaced), and the universal suffix searches "
                  "universal-phrase and logprob-search; repeatable")
      ->delimiter(',');
  atc->add_option("--tolerance", atk.options.tolerance,
                  "master-key, null-model: a finding when the held-out rate's Wilson lower "
                  "bound exceeds this")
      ->check(real({0, 1}))
      ->capture_default_str();
  atc->add_option("--phrase-words", atk.options.phrase_words,
                  "universal-phrase: the longest phrase, in words")
      ->check(whole(1, limits::kSuffixWords))
      ->capture_default_str();
  atc->add_option("--phrase-candidates", atk.options.phrase_candidates,
                  "universal-phrase: vocabulary words tried at each step")
      ->check(whole(1, limits::kPrograms))
      ->capture_default_str();
  atc->add_option("--suffix-words", atk.options.suffix_words,
                  "logprob-search: the suffix's length in words")
      ->check(whole(1, limits::kSuffixWords))
      ->capture_default_str();
  atc->add_option("--suffix-iterations", atk.options.suffix_iterations,
                  "logprob-search: random word replacements tried")
      ->check(whole(0, limits::kAttackBudget))
      ->capture_default_str();
  atc->add_option("--transfer-endpoint", atk.options.transfer_endpoint,
                  "Also test each universal suffix on the same judge at the endpoint of this "
                  "configuration role (learned on one judge, tested on another)");
  atc->add_flag("--copy-source", atk.options.include_content,
                "Also the copy-source family (sentences of the task's source: CAN ADD CONTENT)");
  atc->add_option("--delta", atk.options.delta,
                  "An item counts as attacked above this score increase")
      ->check(real(kFinite))
      ->capture_default_str();
  atc->add_option("--program-length", atk.options.program_length,
                  "Universal programs: up to this many operators")
      ->check(whole(1, limits::kProgramLength))
      ->capture_default_str();
  atc->add_option("--programs", atk.options.programs,
                  "Universal programs (best on the search half) tested on the held-out half")
      ->check(whole(0, limits::kPrograms))
      ->capture_default_str();
  atc->add_option("--split", atk.options.split, "Share of tasks in the search half")
      ->check(real({0.01, 0.99}))
      ->capture_default_str();
  atc->add_option("--alpha", atk.options.alpha, "Significance level of the held-out tests")
      ->check(real(kOpenUnit))
      ->capture_default_str();
  atc->add_option("--margin", atk.options.margin,
                  "Equivalence margin of the held-out tests in d units: a program is resisted "
                  "only when a rise of this size is ruled out")
      ->check(real({0.0, 10.0}))
      ->capture_default_str();
  atc->add_option("--bootstrap", atk.options.bootstrap, "Bootstrap resamples for the CIs of d")
      ->check(whole(0, limits::kResamples))
      ->capture_default_str();
  atc->add_option("--min-applied", atk.options.min_applied,
                  "Applied items a program needs to be tested")
      ->check(whole(0, limits::kItems))
      ->capture_default_str();
  atc->add_option("--sample", atk.sample, "Candidates, sampled with the seed (0: all)")
      ->check(whole(0, limits::kItems))
      ->capture_default_str();
  atc->add_option("--seed", atk.options.seed, "Seed of every random step")
      ->check(whole(0))
      ->capture_default_str();
  atc->add_flag("--skip-invalid", atk.skip_invalid, "Skip invalid items and report them");
  add_threads(atc, atk.options.threads);
  add_llm_flags(atc, attack_llm);

  commands.push_back({atc, [state](RunContext& context) {
                        return run_with_llm(state->llm, context, "", [&](Engine& engine) {
                          return attack_command(state->request, context.console, engine);
                        });
                      }});
}

}  // namespace probity::cli
