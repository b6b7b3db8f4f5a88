// `probity meta global` and `probity meta local`: dual-perspective meta-evaluation
// (arXiv:2502.12052, ACL 2025).
#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <nlohmann/json.hpp>

#include "cli/command.hpp"
#include "cli/flags.hpp"
#include "cli/llm_context.hpp"
#include "cli/output.hpp"
#include "probity/error.hpp"
#include "probity/meta.hpp"
#include "probity/requests.hpp"
#include "probity/scores.hpp"

namespace probity::cli {
namespace {
namespace {

std::string interval(const stats::ConfidenceInterval& ci) {
  return std::isfinite(ci.low) ? fmt::format("[{}, {}]", fixed(ci.low), fixed(ci.high)) : "-";
}

}  // namespace

int run_meta_global(const MetaRequest& args) {
  ScoredData l = load_scored(args.inputs);
  const meta::GlobalOptions& go = args.options;

  // Consensus gold level per item and dimension (NaN: no consensus or no rating).
  std::vector<std::vector<double>> gold(l.dims.size(), std::vector<double>(l.items.size()));
  std::vector<std::size_t> rated(l.dims.size(), 0), consensus(l.dims.size(), 0);
  for (std::size_t d = 0; d < l.dims.size(); ++d) {
    for (std::size_t i = 0; i < l.items.size(); ++i) {
      const auto& cand = l.ds.tasks[l.items[i].task].candidates[l.items[i].candidate];
      gold[d][i] = std::nan("");
      auto it = cand.human.find(l.dims[d]);
      if (it == cand.human.end() || it->second.empty()) continue;
      ++rated[d];
      if (auto level = meta::consensus_level(it->second, args.max_spread)) {
        gold[d][i] = *level;
        ++consensus[d];
      }
    }
  }

  json out = json::array();
  std::vector<std::vector<std::string>> table;
  const std::string ci_head = fmt::format("{:.0f}% CI", args.options.confidence * 100);
  table.push_back({"metric", "dimension", "consensus", "levels (gold counts)", "CEM", ci_head,
                   args.options.direct ? "" : "chance"});
  for (const auto& c : l.columns) {
    for (std::size_t d = 0; d < l.dims.size(); ++d) {
      const auto r = meta::global_cem(c.values, gold[d], go);
      std::vector<std::string> level_text;
      json levels = json::array();
      for (std::size_t k = 0; k < r.levels.size(); ++k) {
        level_text.push_back(fmt::format("{}:{}", r.levels[k], r.counts[k]));
        levels.push_back({{"level", r.levels[k]}, {"gold_count", r.counts[k]}});
      }
      out.push_back({{"metric", c.metric},
                     {"dimension", l.dims[d]},
                     {"rated_items", rated[d]},
                     {"consensus_items", consensus[d]},
                     {"n", r.n},
                     {"levels", levels},
                     {"cem", number(r.cem)},
                     {"cem_lo", number(r.ci.low)},
                     {"cem_hi", number(r.ci.high)},
                     {"chance_cem", number(r.chance)},
                     {"mapping", args.options.direct ? "direct" : "rank-proportions"},
                     {"signature", c.signature}});
      table.push_back({c.metric, l.dims[d], fmt::format("{}/{}", r.n, rated[d]),
                       fmt::format("{}", fmt::join(level_text, " ")), fixed(r.cem), interval(r.ci),
                       args.options.direct ? "" : fixed(r.chance)});
    }
  }
  if (args.json) {
    json doc = {{"data", args.inputs.data.name()},       {"scores", files_json(args.inputs.scores)},
                {"max_spread", args.max_spread},         {"direct", args.options.direct},
                {"bootstrap", args.options.bootstrap},   {"seed", args.options.seed},
                {"confidence", args.options.confidence}, {"results", out}};
    fmt::print("{}\n", doc.dump(2));
    return kExitOk;
  }
  print_table(table, 4);
  fmt::print(
      "\nConsensus: annotator ratings spread <= {} (gold = lower median). Mapping: {}. CEM-ORD "
      "(Amigo et al. 2020) with the class mass floored at 0.5 items as in the authors' "
      "eval.py. CI: {} item bootstrap resamples (percentile, mapping redone per resample), seed "
      "{}.{}\n",
      args.max_spread,
      args.options.direct
          ? "scores rounded to integer levels"
          : "gold level proportions matched by rank (tied scores share the level at their "
            "middle rank)",
      args.options.bootstrap, args.options.seed,
      args.options.direct
          ? ""
          : fmt::format(" Chance: mean CEM of {} random orderings mapped the same way.",
                        args.options.chance_permutations));
  for (const auto& c : l.columns)
    if (!c.signature.empty()) fmt::print("{}: {}\n", c.metric, c.signature);
  return kExitOk;
}

int run_meta_local(const MetaRequest& args) {
  ScoredData l = load_scored(args.inputs);
  std::size_t skipped_ties = 0;
  const auto sequences = meta::sequences_from_dataset(l.ds, l.items, l.dims, &skipped_ties);
  if (sequences.empty())
    throw UsageError(fmt::format(
        "'{}' has no sequences: a task needs two or more candidates rated in a dimension",
        args.inputs.data.name()));
  meta::LocalOptions lo;
  lo.bootstrap = args.options.bootstrap;
  lo.confidence = args.options.confidence;
  lo.seed = args.options.seed;
  lo.threads = args.options.threads;

  json out = json::array();
  std::vector<std::vector<std::string>> table;
  const std::string ci_head = fmt::format("{:.0f}% CI", args.options.confidence * 100);
  table.push_back({"metric", "dimension", "seqs", "pairs", "correct", "ties", "wrong", "accuracy",
                   ci_head, "tie rate"});
  for (const auto& c : l.columns) {
    for (const auto& r : meta::local_accuracy(c.values, sequences, lo)) {
      out.push_back({{"metric", c.metric},
                     {"dimension", r.dimension},
                     {"sequences", r.sequences},
                     {"pairs", r.counts.pairs},
                     {"correct", r.counts.correct},
                     {"ties", r.counts.ties},
                     {"wrong", r.counts.wrong},
                     {"undefined", r.counts.undefined},
                     {"accuracy", number(r.accuracy)},
                     {"accuracy_lo", number(r.ci.low)},
                     {"accuracy_hi", number(r.ci.high)},
                     {"tie_rate", number(r.tie_rate)},
                     {"signature", c.signature}});
      table.push_back({c.metric, r.dimension, std::to_string(r.sequences),
                       std::to_string(r.counts.pairs), std::to_string(r.counts.correct),
                       std::to_string(r.counts.ties), std::to_string(r.counts.wrong),
                       fixed(r.accuracy), interval(r.ci), fixed(r.tie_rate)});
    }
  }
  if (args.json) {
    json doc = {{"data", args.inputs.data.name()},       {"scores", files_json(args.inputs.scores)},
                {"sequences", sequences.size()},         {"human_ties_skipped", skipped_ties},
                {"bootstrap", args.options.bootstrap},   {"seed", args.options.seed},
                {"confidence", args.options.confidence}, {"results", out}};
    fmt::print("{}\n", doc.dump(2));
    return kExitOk;
  }
  print_table(table, 2);
  fmt::print(
      "\n{} sequences (a task per dimension, ordered by human rating, best first); {} adjacent "
      "pair(s) with equal ratings not compared. Correct: the better text scores strictly higher; "
      "a tie is not correct. CI: {} bootstrap resamples of sequences (percentile), seed {}.\n",
      sequences.size(), skipped_ties, args.options.bootstrap, args.options.seed);
  for (const auto& c : l.columns)
    if (!c.signature.empty()) fmt::print("{}: {}\n", c.metric, c.signature);
  return kExitOk;
}

}  // namespace

void add_meta_command(CLI::App& app, Commands& commands) {
  auto global = std::make_shared<MetaRequest>();
  auto local = std::make_shared<MetaRequest>();
  MetaRequest& mglobal = *global;
  MetaRequest& mlocal = *local;
  auto* meta = app.add_subcommand("meta",
                                  "Dual-perspective meta-evaluation (global CEM, local "
                                  "adjacent accuracy)");
  meta->require_subcommand(1);
  auto add_meta_common = [&](CLI::App* c, MetaRequest& a) {
    c->add_option("--data", a.inputs.data, "Dataset (task format) with human ratings")
        ->required()
        ->check(CLI::ExistingFile);
    add_input_options(c, a.inputs.data);
    c->add_option(
         "--scores", a.inputs.scores,
         "Scores JSONL from `probity score`; repeatable (each metric in one file); '-' reads "
         "standard input")
        ->required()
        ->check(file_or_stdin());
    c->add_option("--metric", a.inputs.metrics, "Only these metrics (default: all in the file)");
    c->add_option("--dimension", a.inputs.dimensions, "Only these human dimensions (default: all)");
    c->add_option("--bootstrap", a.options.bootstrap, "Bootstrap resamples for the CI (0: none)")
        ->check(whole(0, limits::kResamples))
        ->capture_default_str();
    c->add_option("--confidence", a.options.confidence, "Confidence level")
        ->check(real(kOpenUnit))
        ->capture_default_str();
    c->add_option("--seed", a.options.seed, "Seed of the bootstrap")
        ->check(whole(0))
        ->capture_default_str();
    c->add_flag("--json", a.json, "Print JSON instead of a table");
    c->add_flag("--skip-invalid", a.inputs.skip_invalid, "Skip invalid items and report them");
    c->add_flag("--allow-missing", a.inputs.allow_missing,
                "Use a scores file that leaves items without a score (their number is reported)");
    add_threads(c, a.options.threads);
  };
  auto* mg = meta->add_subcommand(
      "global",
      "CEM-ORD of metric levels against consensus human levels. Consensus: an item's annotator "
      "ratings spread by at most --max-spread (gold = their lower median). A continuous metric "
      "is mapped to levels by matching the gold level proportions by rank (lowest n_1 scores -> "
      "lowest level, ...; tied scores share the level at their middle rank); --direct rounds "
      "integer judge ratings instead");
  add_meta_common(mg, mglobal);
  mg->add_option("--max-spread", mglobal.max_spread,
                 "Consensus: largest allowed max - min of an item's annotator ratings")
      ->check(real(kNonNegative))
      ->capture_default_str();
  mg->add_flag("--direct", mglobal.options.direct,
               "Scores are integer-valued ratings (an LLM judge): use them as levels directly");
  mg->add_option("--chance", mglobal.options.chance_permutations,
                 "Random orderings averaged for the chance CEM (0: none)")
      ->check(whole(0, limits::kResamples))
      ->capture_default_str();
  auto* ml = meta->add_subcommand(
      "local",
      "Adjacent comparison accuracy over quality-decreasing sequences. Convention: each task is "
      "one sequence per human dimension; its candidates ordered by their rating in that "
      "dimension, higher = better (bench-build writes step j, the text with j errors, as "
      "rating steps - j); pairs of equal ratings are not compared. A pair is correct when the "
      "better text "
      "scores strictly higher; equal scores are counted as ties (not correct). Bootstrap CI over "
      "sequences");
  add_meta_common(ml, mlocal);

  commands.push_back({mg, [global](RunContext&) { return run_meta_global(*global); }});
  commands.push_back({ml, [local](RunContext&) { return run_meta_local(*local); }});
}

}  // namespace probity::cli
