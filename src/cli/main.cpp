// The `probity` command-line tool: flag parsing and dispatch. Each subcommand lives in its own
// cmd_*.cpp; CLI11 is included here only (it is slow to compile).
#include <fmt/format.h>

#include <CLI/CLI.hpp>
#include <exception>

#include "cli/commands.hpp"
#include "probity/dataset.hpp"
#include "probity/error.hpp"
#include "probity/metric.hpp"

namespace {

using namespace probity;

void add_threads(CLI::App* cmd, unsigned& threads) {
  cmd->add_option("--threads", threads, "Worker threads (0: all cores)")->capture_default_str();
}

}  // namespace

int main(int argc, char** argv) {
  CLI::App app{"probity: reference-based text evaluation metrics and their audit"};
  app.set_version_flag("--version", "probity " + version());
  app.require_subcommand(1);

  cli::ScoreArgs score;
  auto* sc =
      app.add_subcommand("score", "Score every candidate with the given metrics (JSONL out)");
  sc->add_option("--data", score.data, "Dataset (JSONL task format or CSV); repeatable")
      ->required()
      ->check(CLI::ExistingFile);
  sc->add_option("--metric", score.metrics, "Metric name, e.g. bleu, chrf, rougeL.f,stem=true")
      ->required();
  sc->add_option("--out", score.out, "Output JSONL file (default: stdout)");
  sc->add_flag("--skip-invalid", score.skip_invalid, "Skip invalid items and report them");
  add_threads(sc, score.threads);

  cli::CorrelateArgs corr;
  auto* cc = app.add_subcommand("correlate", "Correlate metric scores with human ratings");
  cc->add_option("--data", corr.data, "Dataset with human ratings")
      ->required()
      ->check(CLI::ExistingFile);
  cc->add_option("--scores", corr.scores, "Scores JSONL from `probity score`")
      ->required()
      ->check(CLI::ExistingFile);
  cc->add_option("--metric", corr.metrics, "Only these metrics (default: all in the file)");
  cc->add_option("--dimension", corr.dimensions, "Only these human dimensions (default: all)");
  cc->add_option("--bootstrap", corr.bootstrap,
                 "Bootstrap resamples for the CI of Spearman (0: none)")
      ->capture_default_str();
  cc->add_option("--confidence", corr.confidence, "Confidence level")->capture_default_str();
  cc->add_option("--seed", corr.seed, "Seed of the bootstrap")->capture_default_str();
  cc->add_flag("--json", corr.json, "Print JSON instead of a table");
  cc->add_flag("--skip-invalid", corr.skip_invalid, "Skip invalid items and report them");
  add_threads(cc, corr.threads);

  cli::CompareArgs cmp;
  auto* mc = app.add_subcommand(
      "compare", "Paired permutation test between two metrics' correlations with humans");
  mc->add_option("--data", cmp.data, "Dataset with human ratings")
      ->required()
      ->check(CLI::ExistingFile);
  mc->add_option("--scores", cmp.scores, "Scores JSONL holding both metrics")
      ->required()
      ->check(CLI::ExistingFile);
  mc->add_option("--metric", cmp.metrics, "The two metrics to compare (give twice)")
      ->required()
      ->expected(1, 2);
  mc->add_option("--dimension", cmp.dimensions, "Only these human dimensions (default: all)");
  mc->add_option("--correlation", cmp.correlation, "pearson, spearman or kendall")
      ->check(CLI::IsMember({"pearson", "spearman", "kendall"}))
      ->capture_default_str();
  mc->add_option("--permutations", cmp.permutations, "Number of permutations")
      ->capture_default_str();
  mc->add_option("--seed", cmp.seed, "Seed of the permutations")->capture_default_str();
  mc->add_flag("--json", cmp.json, "Print JSON instead of a table");
  mc->add_flag("--skip-invalid", cmp.skip_invalid, "Skip invalid items and report them");
  add_threads(mc, cmp.threads);

  cli::AuditArgs audit;
  auto* ac = app.add_subcommand(
      "audit", "Audit metrics: human correlation, degradation and manipulation tests, report");
  ac->add_option("--data", audit.data, "Dataset(s) with human ratings; repeatable")
      ->required()
      ->check(CLI::ExistingFile);
  ac->add_option("--metric", audit.metrics, "Metric(s) to audit; repeatable")->required();
  ac->add_option("--degrade", audit.degradations,
                 "Degradations: 'all', 'none' or letter codes R,S,D,P,U,O")
      ->delimiter(',')
      ->capture_default_str();
  ac->add_option("--manipulate", audit.manipulations,
                 "Manipulations: 'all', 'none' or letter codes R,M,P,N,H,S")
      ->delimiter(',')
      ->capture_default_str();
  ac->add_option("--sample", audit.sample, "Candidates per dataset, sampled with the seed (0: all)")
      ->capture_default_str();
  ac->add_option("--seed", audit.seed, "Seed of every random step")->capture_default_str();
  ac->add_option("--bootstrap", audit.bootstrap, "Bootstrap resamples for CIs")
      ->capture_default_str();
  ac->add_option("--alpha", audit.alpha, "Significance level of the one-sided tests")
      ->capture_default_str();
  ac->add_option("--out", audit.out, "Output directory (report files and resume cache)")
      ->required();
  ac->add_flag("--ascii", audit.ascii, "ASCII tables instead of Unicode");
  ac->add_flag("--skip-invalid", audit.skip_invalid, "Skip invalid items and report them");
  add_threads(ac, audit.threads);

  bool metrics_json = false;
  auto* lc = app.add_subcommand("metrics", "List the available metrics and their options");
  lc->add_flag("--json", metrics_json, "Print JSON");

  try {
    app.parse(argc, argv);
  } catch (const CLI::ParseError& e) {
    int code = app.exit(e);
    return code == 0 ? kExitOk : kExitUsage;
  }

  try {
    if (sc->parsed()) return cli::run_score(score);
    if (cc->parsed()) return cli::run_correlate(corr);
    if (mc->parsed()) {
      if (cmp.metrics.size() != 2) throw UsageError("compare needs exactly two --metric options");
      return cli::run_compare(cmp);
    }
    if (lc->parsed()) return cli::run_metrics(metrics_json);
    if (ac->parsed()) {
      for (auto* list : {&audit.degradations, &audit.manipulations})
        if (list->size() == 1 && list->front() == "none") list->clear();
      return cli::run_audit(audit);
    }
  } catch (const InputError& e) {
    fmt::print(stderr, "probity: invalid input: {}\n", e.what());
    return kExitInvalidInput;
  } catch (const UsageError& e) {
    fmt::print(stderr, "probity: {}\n", e.what());
    return kExitUsage;
  } catch (const std::exception& e) {
    fmt::print(stderr, "probity: error: {}\n", e.what());
    return kExitFailure;
  }
  return kExitUsage;
}
