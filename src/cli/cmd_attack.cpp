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
#include "probity/requests.hpp"
#include "probity/scoring.hpp"
#include "report/json_value.hpp"
#include "util/output_file.hpp"

namespace probity::cli {
namespace {
namespace {

using ojson = nlohmann::ordered_json;

}  // namespace

int attack_command(const AttackRequest& args, Engine& engine) {
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
  const AttackReport& r = run.report;
  const AttackOptions& o = r.options;
  ojson doc = report::attack_document(run);
  std::vector<std::vector<std::string>> table{{"metric", "attacked", "mean best Δ", "queries/s",
                                               "held-out programs", "best held-out program"}};
  for (const auto& a : r.metrics) {
    std::size_t found = 0;
    std::string best_program = "-";
    for (const auto& u : a.universal) {
      if (u.held_out.testable && !u.held_out.passed_holm && found++ == 0)
        best_program = fmt::format("{} (d {} [{}, {}], Holm p {})", fmt::join(u.program, "+"),
                                   fixed(u.held_out.d, 2), fixed(u.held_out.d_lo, 2),
                                   fixed(u.held_out.d_hi, 2), fixed(u.held_out.p_holm, 3));
    }

    const double qps = a.seconds > 0 ? static_cast<double>(a.queries) / a.seconds : 0;
    std::string attacked =
        a.testable ? fmt::format("{:.1f}%", 100 * a.success_rate) : std::string("not testable");
    if (a.testable && a.not_attacked > 0)
      attacked += fmt::format(" of {} ({} not attacked)", a.items, a.not_attacked);
    table.push_back({a.metric, attacked, a.testable ? fixed(a.mean_best_delta) : "-",
                     fmt::format("{:.0f}", qps),
                     fmt::format("{}/{} significant", found, a.universal.size()), best_program});
  }
  const std::string path = (std::filesystem::path(args.out) / "attack.json").string();
  util::write_file_atomically(path,
                              doc.dump(2, ' ', false, ojson::error_handler_t::replace) + "\n");
  print_table(table, 1);
  for (const auto& a : r.metrics) {
    // The cause first: a search that attacked nothing has no finding to read.
    if (!a.testable) fmt::print("\n{}: not testable: {}\n", a.metric, a.untestable);
    const auto& w = a.rewrites;
    if (w.guard.empty()) continue;
    if (a.testable && a.not_attacked > 0)
      fmt::print(
          "\n{}: {} item{} could not be attacked (the LLM attacker's work failed for them); the "
          "rates are over the {} attacked\n",
          a.metric, a.not_attacked, a.not_attacked == 1 ? "" : "s", a.items);
    fmt::print(
        "\n{}: {} attacker requests: {} failed, {} unparseable after re-asking{}; the LLM "
        "attacker proposed {} rewrites: {} scored, {} repeats not scored, {} rejected by the {} "
        "guard as adding information, {} without a guard verdict (discarded), {} over the query "
        "budget\n",
        a.metric, w.requests, w.attacker_failed - w.attacker_unparseable, w.attacker_unparseable,
        w.first_attacker_error.empty() ? "" : fmt::format(" (first: {})", w.first_attacker_error),
        w.proposed, w.scored, w.duplicates, w.rejected, w.guard, w.guard_failed, w.over_budget);
    for (const auto& e : w.rejected_examples)
      fmt::print("  rejected ({}/{}): {}\n", e.task_id, e.candidate_id, e.reason);
  }
  // The replacement families: each answer's rate on every item, and the held-out finding.
  std::vector<std::vector<std::string>> replaced{
      {"metric", "family", "answers' mean (candidates, empty)", "best on search half",
       "held-out rate [95% Wilson]", "finding"}};
  for (const auto& a : r.metrics)
    for (const auto& x : a.replacements) {
      const std::string family(replacement_family_name(x.family));
      double mean = 0;
      for (const auto& ans : x.answers) mean += ans.mean_score;
      mean /= static_cast<double>(std::max<std::size_t>(x.answers.size(), 1));
      const std::string means = x.family == ReplacementFamily::kMasterKey
                                    ? fmt::format("{} ({}, {})", fixed(mean),
                                                  fixed(x.candidates_mean), fixed(x.floor_mean))
                                    : fmt::format("{} ({})", fixed(mean), fixed(x.candidates_mean));
      if (!x.testable) {
        replaced.push_back({a.metric, family, means, "-", "n/a: " + x.untestable, "untested"});
        continue;
      }
      std::string shown = x.held_out.text;
      for (auto& c : shown)
        if (c == '\n') c = ' ';
      if (shown.size() > 40) shown = shown.substr(0, 37) + "...";
      replaced.push_back({a.metric, family, means, fmt::format("\"{}\"", shown),
                          fmt::format("{}/{} = {} [{}, {}]", x.held_out.hits, x.held_out.n,
                                      fixed(x.held_out.rate, 3), fixed(x.held_out.rate_lo, 3),
                                      fixed(x.held_out.rate_hi, 3)),
                          x.vulnerable ? "VULNERABLE" : "no"});
    }
  if (replaced.size() > 1) {
    fmt::print("\n");
    print_table(replaced, 1);
    fmt::print(
        "\nmaster-key: every candidate replaced by a content-free string; a hit is an item where "
        "it scores above the empty answer and at least as high as the real candidate (the "
        "false-positive rate). null-model: one constant "
        "answer for every item; a hit is an item where it scores above the real candidate. Ties "
        "are not hits. The answer with the highest rate on the {} search tasks is measured on "
        "the {} held-out tasks; a finding when its Wilson lower bound exceeds {}.\n",
        r.search_tasks, r.held_out_tasks, o.tolerance);
  }
  // The defense matrix: with several metrics (e.g. one judge under prompt=naive|delimited|
  // sandwich|instructed), each family's held-out result side by side.
  if (r.metrics.size() >= 2) {
    std::vector<std::vector<std::string>> matrix{{"family"}};
    for (const auto& a : r.metrics) matrix[0].push_back(a.metric);
    const auto add_row = [&](const std::string& family, auto cell) {
      std::vector<std::string> row{family};
      bool any = false;
      for (const auto& a : r.metrics) {
        auto c = cell(a);
        any |= c.has_value();
        row.push_back(c.value_or("-"));
      }
      if (any) matrix.push_back(std::move(row));
    };
    add_row("edits (attacked items)", [](const MetricAttack& a) -> std::optional<std::string> {
      if (!a.testable) return std::nullopt;
      return fmt::format("{:.1f}%", 100 * a.success_rate);
    });
    for (ReplacementFamily f : {ReplacementFamily::kMasterKey, ReplacementFamily::kNullModel})
      add_row(std::string(replacement_family_name(f)),
              [f](const MetricAttack& a) -> std::optional<std::string> {
                for (const auto& x : a.replacements)
                  if (x.family == f)
                    return x.testable ? fmt::format("{} [{}, {}]{}", fixed(x.held_out.rate, 3),
                                                    fixed(x.held_out.rate_lo, 3),
                                                    fixed(x.held_out.rate_hi, 3),
                                                    x.vulnerable ? " VULNERABLE" : "")
                                      : "untested";
                return std::nullopt;
              });
    for (SuffixSearch f : {SuffixSearch::kUniversalPhrase, SuffixSearch::kLogprobSearch})
      add_row(std::string(suffix_search_name(f)),
              [f](const MetricAttack& a) -> std::optional<std::string> {
                for (const auto& u : a.suffixes)
                  if (u.search == f)
                    return u.searched && u.text.empty() ? std::string("none found")
                           : u.held_out.testable
                               ? fmt::format("d {} [{}, {}]{}", fixed(u.held_out.d, 2),
                                             fixed(u.held_out.d_lo, 2), fixed(u.held_out.d_hi, 2),
                                             u.held_out.passed ? "" : " VULNERABLE")
                               : "untested";
                return std::nullopt;
              });
    if (matrix.size() > 1) {
      fmt::print("\ndefense matrix (held-out results per family and metric):\n");
      print_table(matrix, 1);
    }
  }
  // The universal suffixes: what each search found and its held-out (and transfer) test.
  std::vector<std::vector<std::string>> suffixes{
      {"metric", "search", "suffix", "search Δ", "held-out d [CI], p", "transfer d [CI], p"}};
  const auto tested = [](const StrategyTest& t) {
    if (!t.testable) return "n/a: " + t.untestable;
    return fmt::format("{} [{}, {}], p {}{}", fixed(t.d, 2), fixed(t.d_lo, 2), fixed(t.d_hi, 2),
                       fixed(t.p, 3), t.passed ? "" : " VULNERABLE");
  };
  for (const auto& a : r.metrics)
    for (const auto& u : a.suffixes) {
      const std::string search(suffix_search_name(u.search));
      if (!u.searched)  // the cause once, not in every column
        suffixes.push_back({a.metric, search, "n/a: " + u.untestable, "-", "-", "-"});
      else if (u.text.empty())
        suffixes.push_back({a.metric, search, "none: no word raised the score", "-", "-", "-"});
      else
        suffixes.push_back({a.metric, search, fmt::format("\"{}\"", u.text),
                            fixed(u.search_mean_delta), tested(u.held_out), tested(u.transfer)});
    }
  if (suffixes.size() > 1) {
    fmt::print("\n");
    print_table(suffixes, 1);
    fmt::print(
        "\nsuffix: one text appended to every candidate, found on the {} search tasks "
        "(universal-phrase: greedy, up to {} words, {} vocabulary words tried per step; "
        "logprob-search: {} words, {} random replacements), tested on the {} held-out tasks "
        "(one-sided paired t, alpha {}).\n",
        r.search_tasks, o.phrase_words, o.phrase_candidates, o.suffix_words, o.suffix_iterations,
        r.held_out_tasks, o.alpha);
  }
  fmt::print(
      "\nattacked: items whose best edit ({} search, {} queries per item, up to {} {}) raises "
      "the score by more than {}. Held-out programs: the {} best edit programs (up to {} "
      "operators) on {} search tasks, tested on {} held-out tasks (one-sided paired t, Holm over "
      "the programs, alpha {}). Operators: {}.\nreport: {}\n",
      o.strategy, o.budget, o.steps, o.strategy == "llm" ? "attacker rounds" : "edits", o.delta,
      o.programs, o.program_length, r.search_tasks, r.held_out_tasks, o.alpha,
      fmt::join(r.operators, ", "), path);
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
                          return attack_command(state->request, engine);
                        });
                      }});
}

}  // namespace probity::cli
