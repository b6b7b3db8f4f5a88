// `probity perturb`: writes a dataset with the originals and every applied perturbation, for a
// metric that runs outside probity (score the file, then audit with `scores:FILE,data=...`).
#include <fmt/format.h>

#include <map>
#include <nlohmann/json.hpp>

#include "cli/command.hpp"
#include "cli/flags.hpp"
#include "cli/llm_context.hpp"
#include "cli/output.hpp"
#include "perturb/llm_strategies.hpp"
#include "probity/engine.hpp"
#include "probity/error.hpp"
#include "probity/perturb.hpp"
#include "probity/requests.hpp"
#include "util/output_file.hpp"
#include "util/parallel.hpp"

namespace probity::cli {
namespace {

int run_perturb(const PerturbRequest& args, Engine& engine) {
  const util::PlannedOutput output_file{args.out, "--out", {}};
  util::refuse_overwriting_inputs(command_inputs({args.data}, {}, &engine),
                                  std::span(&output_file, 1));
  Dataset ds = args.data.load({args.skip_invalid});
  set_default_language(ds, args.lang);
  print_skipped(ds.skipped);
  if (ds.num_candidates() == 0) throw InputError(args.data.name(), 0, "", "no valid items");
  auto all = perturb::create_strategies(StrategyKind::kDegradation, args.degradations,
                                        engine.strategies());
  for (auto& s : perturb::create_strategies(StrategyKind::kManipulation, args.manipulations,
                                            engine.strategies()))
    all.push_back(std::move(s));
  util::OutputFile output(args.out);
  std::ostream& out = output.stream();
  // Every strategy's results first: a model-backed strategy gets all items as one batch.
  std::vector<std::vector<std::vector<PerturbResult>>> by_strategy(all.size());
  for (std::size_t k = 0; k < all.size(); ++k) {
    auto& per_task = by_strategy[k];
    per_task.resize(ds.tasks.size());
    if (all[k]->batched()) {
      std::vector<PerturbContext> contexts;
      for (std::size_t t = 0; t < ds.tasks.size(); ++t)
        for (std::size_t c = 0; c < ds.tasks[t].candidates.size(); ++c)
          contexts.push_back({&ds, t, c, args.seed});
      auto results = all[k]->apply_many(contexts);
      for (std::size_t i = 0; i < contexts.size(); ++i)
        per_task[contexts[i].task].push_back(std::move(results[i]));
      continue;
    }
    for (std::size_t t = 0; t < ds.tasks.size(); ++t) {
      per_task[t].resize(ds.tasks[t].candidates.size());
      util::parallel_for(ds.tasks[t].candidates.size(), args.threads, [&](std::size_t c) {
        per_task[t][c] = all[k]->apply(PerturbContext{&ds, t, c, args.seed});
      });
    }
  }
  std::size_t applied = 0, not_applicable = 0, unchanged = 0, failed = 0;
  std::map<std::string, std::size_t> failures;  // by strategy and first line of the note
  for (std::size_t t = 0; t < ds.tasks.size(); ++t) {
    const Task& task = ds.tasks[t];
    nlohmann::ordered_json j = {{"task_id", task.task_id}, {"group", task.group}};
    if (!task.source.empty()) j["source"] = task.source;
    if (!task.lang.empty()) j["lang"] = task.lang;
    j["references"] = nlohmann::ordered_json::array();
    for (const auto& r : task.references)
      j["references"].push_back({{"id", r.id}, {"text", r.text}});
    auto& cands = j["candidates"] = nlohmann::ordered_json::array();
    for (const auto& c : task.candidates) {
      nlohmann::ordered_json h = nlohmann::ordered_json::object();
      for (const auto& [dim, ratings] : c.human) h[dim] = ratings;
      cands.push_back({{"id", c.id}, {"system", c.system}, {"text", c.text}, {"human", h}});
    }
    for (std::size_t k = 0; k < all.size(); ++k) {
      const auto& s = all[k];
      const auto& results = by_strategy[k][t];
      for (std::size_t c = 0; c < results.size(); ++c) {
        switch (results[c].status) {
          case PerturbResult::Status::kApplied:
            break;
          case PerturbResult::Status::kNotApplicable:
            ++not_applicable;
            continue;
          case PerturbResult::Status::kUnchanged:
            ++unchanged;
            continue;
          case PerturbResult::Status::kFailed:
            ++failed;
            ++failures[fmt::format("{}: {}", s->name(),
                                   results[c].note.substr(0, results[c].note.find('\n')))];
            continue;
        }
        ++applied;
        cands.push_back({{"id", fmt::format("{}~{}-{}", task.candidates[c].id, kind_name(s->kind()),
                                            s->code())},
                         {"system", task.candidates[c].system},
                         {"text", results[c].text}});
      }
    }
    out << j.dump() << '\n';
  }
  output.commit();
  fmt::print(
      "wrote {}: {} task(s), {} perturbed candidate(s) added; not applicable {}, unchanged {}, "
      "failed {}; seed {}\n",
      args.out, ds.tasks.size(), applied, not_applicable, unchanged, failed, args.seed);
  // Failed perturbations (e.g. LLM answers unusable after re-asking) are not in the file; say
  // which and why rather than letting them pass for "not applicable".
  for (const auto& [why, n] : failures) fmt::print("  failed {}x {}\n", n, why);
  return kExitOk;
}

}  // namespace

void add_perturb_command(CLI::App& app, Commands& commands) {
  struct State {
    PerturbRequest request;
    LlmFlags llm;
  };
  auto state = std::make_shared<State>();
  PerturbRequest& pert = state->request;
  LlmFlags& perturb_llm = state->llm;
  auto* pc = app.add_subcommand(
      "perturb",
      "Write the dataset with every applied perturbation added as candidates, for "
      "scoring with your own metric (then audit with --metric scores:FILE,data=...)");
  pc->add_option("--data", pert.data, "Dataset")->required()->check(CLI::ExistingFile);
  add_input_options(pc, pert.data);
  pc->add_option("--lang", pert.lang, kLangHelp)->check(known_language());
  pc->add_option("--degrade", pert.degradations, "Degradations: 'all', 'none' or letter codes")
      ->delimiter(',')
      ->capture_default_str();
  pc->add_option("--manipulate", pert.manipulations, "Manipulations: 'all', 'none' or letter codes")
      ->delimiter(',')
      ->capture_default_str();
  pc->add_option("--seed", pert.seed, "Seed (use the audit's)")
      ->check(whole(0))
      ->capture_default_str();
  pc->add_option("--out", pert.out, "Output dataset (JSONL)")->required();
  pc->add_flag("--skip-invalid", pert.skip_invalid, "Skip invalid items and report them");
  add_threads(pc, pert.threads);
  add_llm_flags(pc, perturb_llm);
  pc->add_option("--perturber", perturb_llm.perturber,
                 "Realisation of the strategies: rules (offline) or llm (the perturber role)")
      ->check(CLI::IsMember({"rules", "llm"}))
      ->capture_default_str();

  commands.push_back({pc, [state](RunContext& context) {
                        State& s = *state;
                        for (auto* list : {&s.request.degradations, &s.request.manipulations})
                          if (list->size() == 1 && list->front() == "none") list->clear();
                        return run_with_llm(s.llm, context, "", [&s](Engine& engine) {
                          if (s.llm.perturber == "llm")
                            use_llm_perturber(engine, s.request.degradations,
                                              s.request.manipulations);
                          return run_perturb(s.request, engine);
                        });
                      }});
}

}  // namespace probity::cli
