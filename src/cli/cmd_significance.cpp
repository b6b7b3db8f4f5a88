// `probity significance`: sacreBLEU's multi-system paired significance tests (--paired-bs,
// --paired-ar) for any metric, on systems given as plain-text files (--hyp, the first is the
// baseline) or as the candidates of a dataset's tasks, one per system; with more than two
// systems, also every pair ranked into significance clusters. The work is run_significance
// (probity/significance.hpp); this file declares the flags and renders the tables.
#include <fmt/format.h>

#include <nlohmann/json.hpp>

#include "cli/command.hpp"
#include "cli/flags.hpp"
#include "cli/llm_context.hpp"
#include "cli/output.hpp"
#include "probity/engine.hpp"
#include "probity/error.hpp"
#include "probity/significance.hpp"
#include "report/json_value.hpp"

namespace probity::cli {
namespace {

// sacreBLEU's utils._format_score_lines with multiline=False (no colours): "score",
// "score (mean ± ci)", then " (p = 0.0123)" and "*" when p <= 0.05.
std::string cell(const PairedSystemResult& r, int width) {
  std::string s = fmt::format("{:.{}f}", r.score, width);
  if (r.mean) s += fmt::format(" ({:.{}f} ± {:.{}f})", *r.mean, width, *r.ci, width);
  if (r.p_value) s += fmt::format(" (p = {:.4f}){}", *r.p_value, *r.p_value > 0.05 ? "" : "*");
  return s;
}

// sacreBLEU's table: every system against the baseline.
void print_baseline_table(const SignificanceRun& run) {
  const bool bs = run.kind == PairedTestKind::kBootstrap;
  std::vector<std::vector<std::string>> table(run.systems.size() + 1);
  table[0].push_back("System");
  for (std::size_t s = 0; s < run.systems.size(); ++s)
    table[s + 1].push_back(s == 0 ? "Baseline: " + run.systems[s] : run.systems[s]);
  for (const auto& m : run.metrics) {
    table[0].push_back(m.name + (bs ? " (μ ± 95% CI)" : ""));
    for (std::size_t s = 0; s < run.systems.size(); ++s)
      table[s + 1].push_back(cell(m.test.systems[s], m.width));
  }
  print_table(table, 1);
  fmt::print("\nPaired {} test with {} {} (seed {}), each system against the baseline {}.\n",
             bs ? "bootstrap resampling" : "approximate randomization", run.samples,
             bs ? "resampling trials" : "trials", run.seed, run.systems[0]);
  if (bs) fmt::print("Actual system score / bootstrap estimated true mean / 95% CI per metric.\n");
  fmt::print(
      "p: the chance of the absolute score difference or a larger one if the system and the "
      "baseline came from the same process; \"*\" marks p <= 0.05 (a difference, not which is "
      "better).\n");
}

// The clusters: per metric its rank and score, the systems in the first metric's order.
void print_cluster_table(const SignificanceRun& run) {
  const std::size_t n = run.systems.size();
  const auto& first = *run.metrics.front().clusters;
  std::vector<std::vector<std::string>> table(n + 1);
  for (std::size_t m = 0; m < run.metrics.size(); ++m) {
    const SignificanceMetric& metric = run.metrics[m];
    table[0].push_back("Rank");
    if (m == 0) table[0].push_back("System");
    table[0].push_back(metric.name);
    for (std::size_t row = 0; row < n; ++row) {
      const std::size_t s = first.order[row];
      table[row + 1].push_back(std::to_string(metric.clusters->rank[s]));
      if (m == 0) table[row + 1].push_back(run.systems[s]);
      table[row + 1].push_back(fmt::format("{:.{}f}", metric.test.systems[s].score, metric.width));
    }
  }
  const std::size_t pairs = n * (n - 1) / 2;
  const char* correction = run.correction == stats::RankCorrection::kHolm ? "Holm-adjusted "
                           : run.correction == stats::RankCorrection::kBenjaminiHochberg
                               ? "Benjamini-Hochberg-adjusted "
                               : "";
  fmt::print(
      "\nSignificance clusters: every pair of the {} systems tested ({} pairs per metric).\n", n,
      pairs);
  print_table(table, 2);
  std::vector<std::string> lower;
  for (const auto& m : run.metrics)
    if (!m.higher_is_better) lower.push_back(m.name);
  fmt::print(
      "\nBest first; a system starts a new cluster (rank + 1) when a system of the cluster above "
      "differs from it with {}p <= {} (WMT's clusters){}.\n",
      correction, run.alpha,
      lower.empty() ? std::string()
                    : fmt::format("; lower is better for {}", fmt::join(lower, ", ")));
}

int run_significance_command(const SignificanceRequest& request, Engine& engine) {
  const SignificanceRun run = run_significance(request, engine);
  print_skipped(run.skipped);
  for (const auto& w : run.warnings) fmt::print(stderr, "warning: {}\n", w);
  if (request.json) {
    fmt::print("{}\n", report::significance_document(run).dump(2));
    return kExitOk;
  }
  print_baseline_table(run);
  if (run.clusters) print_cluster_table(run);
  fmt::print("\nMetric signatures\n");
  for (const auto& m : run.metrics) fmt::print(" - {}  {}\n", m.name, m.test.signature);
  return kExitOk;
}

}  // namespace

void add_significance_command(CLI::App& app, Commands& commands) {
  struct State {
    SignificanceRequest request;
    LlmFlags llm;
    // sacreBLEU's flags: the test, and the samples of each (one of them is used).
    bool paired_bs = false, paired_ar = false;
    std::size_t paired_bs_n = default_paired_samples(PairedTestKind::kBootstrap);
    std::size_t paired_ar_n = default_paired_samples(PairedTestKind::kRandomization);
    bool clusters = false, no_clusters = false;
    int width = 1;
    CLI::Option* width_option = nullptr;
  };
  auto state = std::make_shared<State>();
  SignificanceRequest& sig = state->request;
  auto* sigc = app.add_subcommand(
      "significance",
      "Paired significance tests between systems as sacreBLEU computes them (--paired-bs, "
      "--paired-ar), for any metric: the first system is the baseline; with more than two "
      "systems, significance clusters over every pair");
  sigc->add_option("--data", sig.data,
                   "Dataset whose tasks each have one candidate per system (or --hyp FILE per "
                   "system, --ref FILE)")
      ->required()
      ->check(CLI::ExistingFile);
  add_input_options(sigc, sig.data);
  sigc->add_option("--metric,-m", sig.metrics,
                   "Any metric with options (bleu, chrf, rougeL.f, bertscore, llm-judge, "
                   "scores:FILE,...); repeatable")
      ->capture_default_str();
  auto* bs_flag = sigc->add_flag("--paired-bs", state->paired_bs,
                                 "Paired bootstrap resampling: p-values and each system's mean "
                                 "and 95% CI (sacreBLEU --paired-bs)");
  sigc->add_flag("--paired-ar", state->paired_ar,
                 "Paired approximate randomization: p-values (sacreBLEU --paired-ar; the "
                 "default)")
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
  auto* clusters_flag = sigc->add_flag(
      "--clusters", state->clusters,
      "Test every pair of systems and rank them into significance clusters (default: with more "
      "than two systems)");
  sigc->add_flag("--no-clusters", state->no_clusters,
                 "Only each system against the baseline, as sacreBLEU")
      ->excludes(clusters_flag);
  rank_corrections(sigc->add_option("--correction", sig.correction,
                                    "Multiple-comparison control over the pairs of the "
                                    "clusters: holm, bh (Benjamini-Hochberg) or none"))
      ->default_str(std::string(stats::rank_correction_name(sig.correction)));
  sigc->add_option("--alpha", sig.alpha, "Significance level of the clusters")
      ->check(real(kOpenUnit))
      ->capture_default_str();
  state->width_option =
      sigc->add_option("--width,-w", state->width,
                       "Decimals of the scores in the tables (default: 1 for sacreBLEU's "
                       "metrics, as sacreBLEU; 4 for the others)")
          ->check(whole(0, 10));
  sigc->add_flag("--json", sig.json, "Print JSON instead of the tables");
  sigc->add_flag("--skip-invalid", sig.skip_invalid, "Skip invalid items and report them");
  add_threads(sigc, sig.options.threads);
  add_llm_flags(sigc, state->llm);

  commands.push_back({sigc, [state](RunContext& context) {
                        State& s = *state;
                        SignificanceRequest& r = s.request;
                        if (s.paired_bs) r.options.kind = PairedTestKind::kBootstrap;
                        if (s.paired_ar) r.options.kind = PairedTestKind::kRandomization;
                        r.options.samples = r.options.kind == PairedTestKind::kBootstrap
                                                ? s.paired_bs_n
                                                : s.paired_ar_n;
                        if (s.clusters || s.no_clusters) r.clusters = s.clusters;
                        if (s.width_option->count() > 0) r.width = s.width;
                        return run_with_llm(s.llm, context, "", [&r](Engine& engine) {
                          return run_significance_command(r, engine);
                        });
                      }});
}

}  // namespace probity::cli
