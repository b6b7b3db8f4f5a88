// `probity significance`: sacreBLEU's multi-system paired significance tests (--paired-bs,
// --paired-ar; probity/significance.hpp) on systems given as plain-text files (--hyp, the first
// is the baseline) or as the candidates of a dataset's tasks, one per system.
#include <fmt/format.h>

#include <algorithm>
#include <map>
#include <nlohmann/json.hpp>

#include "cli/command.hpp"
#include "cli/flags.hpp"
#include "cli/llm_context.hpp"
#include "cli/output.hpp"
#include "probity/dataset.hpp"
#include "probity/engine.hpp"
#include "probity/error.hpp"
#include "probity/requests.hpp"
#include "probity/scoring.hpp"
#include "probity/significance.hpp"

namespace probity::cli {
namespace {
namespace {

std::string system_of(const Candidate& c) {
  return c.system.empty() ? c.id : c.system;
}

// sacreBLEU's utils._format_score_lines with multiline=False (no colours): "score",
// "score (mean ± ci)", then " (p = 0.0123)" and "*" when p <= 0.05.
std::string cell(const PairedSystemResult& r, int width) {
  std::string s = fmt::format("{:.{}f}", r.score, width);
  if (r.mean) s += fmt::format(" ({:.{}f} ± {:.{}f})", *r.mean, width, *r.ci, width);
  if (r.p_value) s += fmt::format(" (p = {:.4f}){}", *r.p_value, *r.p_value > 0.05 ? "" : "*");
  return s;
}

json optional_number(const std::optional<double>& v) {
  return v ? number(*v) : json(nullptr);
}

}  // namespace

int run_significance(const SignificanceRequest& args, Engine& engine) {
  const Dataset ds = args.data.load(ReadOptions{args.skip_invalid});
  print_skipped(ds.skipped);

  // The systems in order of first appearance; the baseline first.
  std::vector<std::string> systems;
  for (const auto& t : ds.tasks)
    for (const auto& c : t.candidates)
      if (std::find(systems.begin(), systems.end(), system_of(c)) == systems.end())
        systems.push_back(system_of(c));
  if (!args.baseline.empty()) {
    auto it = std::find(systems.begin(), systems.end(), args.baseline);
    if (it == systems.end())
      throw UsageError(fmt::format("--baseline {}: no such system (systems: {})", args.baseline,
                                   fmt::join(systems, ", ")));
    std::rotate(systems.begin(), it, it + 1);
  }
  if (systems.size() < 2)
    throw UsageError(fmt::format(
        "significance: paired tests need at least two systems ({} found in {}); give one --hyp "
        "file per system",
        systems.size(), args.data.name()));

  // Item i of every system is the candidate of that system in task i.
  std::vector<ItemRef> items(systems.size() * ds.tasks.size());
  for (std::size_t t = 0; t < ds.tasks.size(); ++t) {
    const Task& task = ds.tasks[t];
    std::vector<int> found(systems.size(), -1);
    for (std::size_t c = 0; c < task.candidates.size(); ++c) {
      const auto s = static_cast<std::size_t>(
          std::find(systems.begin(), systems.end(), system_of(task.candidates[c])) -
          systems.begin());
      if (found[s] >= 0)
        throw InputError(
            ds.path, task.line, "candidates",
            fmt::format("task '{}' has two candidates of system '{}'", task.task_id, systems[s]));
      found[s] = static_cast<int>(c);
    }
    for (std::size_t s = 0; s < systems.size(); ++s) {
      if (found[s] < 0)
        throw InputError(ds.path, task.line, "candidates",
                         fmt::format("task '{}' has no candidate of system '{}': paired tests "
                                     "need every system on every task",
                                     task.task_id, systems[s]));
      items[s * ds.tasks.size() + t] = {t, static_cast<std::size_t>(found[s])};
    }
  }

  std::vector<MetricSelection> metrics;
  for (const auto& m : args.metrics) metrics.push_back(select_metric(m, engine));
  for (const auto& m : metrics) require_references(ds, items, m);
  ScoreOptions so;
  so.threads = args.options.threads;
  const auto stats = compute_stats(ds, items, metrics, so);

  const PairedTestOptions& po = args.options;
  const bool paired_bs = po.kind == PairedTestKind::kBootstrap;
  const std::size_t n_items = ds.tasks.size();
  std::vector<PairedTestResult> results;
  for (std::size_t m = 0; m < metrics.size(); ++m) {
    const std::size_t k = stats[m].num_stats;
    std::vector<std::vector<double>> per_system(systems.size());
    for (std::size_t s = 0; s < systems.size(); ++s) {
      const auto first = stats[m].stats.begin() + static_cast<std::ptrdiff_t>(s * n_items * k);
      per_system[s].assign(first, first + static_cast<std::ptrdiff_t>(n_items * k));
    }
    results.push_back(paired_test(*metrics[m].metric, per_system, po, metrics[m].primary));
  }

  const std::string test = paired_bs ? "bs" : "ar";
  const std::size_t samples = results.front().samples;
  if (args.json) {
    json out = json::array();
    for (std::size_t m = 0; m < metrics.size(); ++m) {
      json rows = json::array();
      for (std::size_t s = 0; s < systems.size(); ++s) {
        const auto& r = results[m].systems[s];
        rows.push_back({{"system", systems[s]},
                        {"baseline", s == 0},
                        {"score", number(r.score)},
                        {"p_value", optional_number(r.p_value)},
                        {"mean", optional_number(r.mean)},
                        {"ci", optional_number(r.ci)}});
      }
      out.push_back(
          {{"metric", metrics[m].spec}, {"signature", results[m].signature}, {"systems", rows}});
    }
    json doc = {{"data", args.data.name()},
                {"test", test},
                {"samples", samples},
                {"seed", po.seed},
                {"items", n_items},
                {"baseline", systems[0]},
                {"metrics", out}};
    fmt::print("{}\n", doc.dump(2));
    return kExitOk;
  }

  std::vector<std::vector<std::string>> table(systems.size() + 1);
  table[0].push_back("System");
  for (std::size_t s = 0; s < systems.size(); ++s)
    table[s + 1].push_back(s == 0 ? "Baseline: " + systems[s] : systems[s]);
  for (std::size_t m = 0; m < metrics.size(); ++m) {
    table[0].push_back(metrics[m].spec + (paired_bs ? " (μ ± 95% CI)" : ""));
    for (std::size_t s = 0; s < systems.size(); ++s)
      table[s + 1].push_back(cell(results[m].systems[s], args.width));
  }
  print_table(table, 1);
  fmt::print("\nPaired {} test with {} {} (seed {}), each system against the baseline {}.\n",
             paired_bs ? "bootstrap resampling" : "approximate randomization", samples,
             paired_bs ? "resampling trials" : "trials", po.seed, systems[0]);
  if (paired_bs)
    fmt::print("Actual system score / bootstrap estimated true mean / 95% CI per metric.\n");
  fmt::print(
      "p: the chance of the absolute score difference or a larger one if the system and the "
      "baseline came from the same process; \"*\" marks p <= 0.05 (a difference, not which is "
      "better).\n\nMetric signatures\n");
  for (std::size_t m = 0; m < metrics.size(); ++m)
    fmt::print(" - {}  {}\n", metrics[m].spec, results[m].signature);
  return kExitOk;
}

}  // namespace

void add_significance_command(CLI::App& app, Commands& commands) {
  struct State {
    SignificanceRequest request;
    // sacreBLEU's flags: the test, and the samples of each (one of them is used).
    bool paired_bs = false, paired_ar = false;
    std::size_t paired_bs_n = default_paired_samples(PairedTestKind::kBootstrap);
    std::size_t paired_ar_n = default_paired_samples(PairedTestKind::kRandomization);
  };
  auto state = std::make_shared<State>();
  SignificanceRequest& sig = state->request;
  auto* sigc = app.add_subcommand(
      "significance",
      "Paired significance tests between systems as sacreBLEU computes them (--paired-bs, "
      "--paired-ar): the first system is the baseline");
  sigc->add_option("--data", sig.data,
                   "Dataset whose tasks each have one candidate per system (or --hyp FILE per "
                   "system, --ref FILE)")
      ->required()
      ->check(CLI::ExistingFile);
  add_input_options(sigc, sig.data);
  sigc->add_option("--metric,-m", sig.metrics,
                   "bleu, chrf, chrf++ or ter, with options; repeatable")
      ->capture_default_str();
  auto* bs_flag = sigc->add_flag("--paired-bs", state->paired_bs,
                                 "Paired bootstrap resampling: p-values and each system's mean "
                                 "and 95% CI (sacreBLEU --paired-bs)");
  sigc->add_flag("--paired-ar", state->paired_ar,
                 "Paired approximate randomization: p-values (sacreBLEU --paired-ar)")
      ->excludes(bs_flag);
  sigc->add_option("--paired-bs-n", state->paired_bs_n, "Bootstrap resamples")
      ->check(whole(1, limits::kResamples))
      ->capture_default_str();
  sigc->add_option("--paired-ar-n", state->paired_ar_n, "Approximate randomization trials")
      ->check(whole(1, limits::kResamples))
      ->capture_default_str();
  sigc->add_option("--seed", sig.options.seed,
                   "Seed of NumPy's default_rng as sacreBLEU seeds it (SACREBLEU_SEED)")
      ->check(whole(0))
      ->capture_default_str();
  sigc->add_option("--baseline", sig.baseline, "The baseline system (default: the first)");
  sigc->add_option("--width,-w", sig.width, "Decimals of the scores in the table")
      ->check(whole(0, 10))
      ->capture_default_str();
  sigc->add_flag("--json", sig.json, "Print JSON instead of a table");
  sigc->add_flag("--skip-invalid", sig.skip_invalid, "Skip invalid items and report them");
  add_threads(sigc, sig.options.threads);

  commands.push_back(
      {sigc, [state](RunContext& context) {
         State& s = *state;
         if (s.paired_bs == s.paired_ar)
           throw UsageError("significance: give one test, --paired-bs or --paired-ar");
         s.request.options.kind =
             s.paired_bs ? PairedTestKind::kBootstrap : PairedTestKind::kRandomization;
         s.request.options.samples = s.paired_bs ? s.paired_bs_n : s.paired_ar_n;
         return run_with_llm(LlmFlags{}, context, "",
                             [&s](Engine& engine) { return run_significance(s.request, engine); });
       }});
}

}  // namespace probity::cli
