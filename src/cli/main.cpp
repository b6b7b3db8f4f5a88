// The `probity` command-line tool: flag parsing and dispatch. Each subcommand lives in its own
// cmd_*.cpp; CLI11 is included here only (it is slow to compile).
#include <fmt/format.h>
#include <fmt/ranges.h>

#include <CLI/CLI.hpp>
#include <cstdint>
#include <exception>
#include <initializer_list>
#include <limits>
#include <map>
#include <stdexcept>
#include <string_view>
#include <system_error>
#include <type_traits>

#include "cli/commands.hpp"
#include "cli/docgen.hpp"
#include "cli/input_options.hpp"
#include "cli/llm_context.hpp"
#include "cli/terminal.hpp"
#include "llm/prompts.hpp"
#include "llm/session.hpp"
#include "probity/dataset.hpp"
#include "probity/error.hpp"
#include "probity/limits.hpp"
#include "probity/metric.hpp"
#include "text/language.hpp"
#include "util/number_check.hpp"
#include "util/output_file.hpp"
#include "util/suggest.hpp"

namespace {

// The names of the meta-evaluation levels and level statistics (stats::parse_level,
// stats::parse_level_statistic), for correlate, compare and rank.
const std::vector<std::string> kLevelNames = {"item", "task", "system"};
const std::vector<std::string> kLevelStatisticNames = {"pearson",   "spearman",     "kendall",
                                                       "kendall-c", "pairwise-acc", "acc-eq"};

using namespace probity;

// The name of the validator every numeric flag carries (require_bounds checks that it does).
constexpr const char* kBoundsName = "bounds";

// A whole-number flag (count, seed, index) from `min` to `max`, checked when parsed: CLI11 alone
// would wrap "-1" into a 64-bit seed and saturate 99999999999999999999 into a count that never
// ends.
CLI::Validator whole(std::uint64_t min,
                     std::uint64_t max = std::numeric_limits<std::uint64_t>::max()) {
  const util::WholeBounds b{min, max};
  return CLI::Validator([b](std::string& s) { return util::whole_number_problem(s, b); },
                        util::describe(b), kBoundsName);
}

// A real-number flag (share, level, threshold): finite, within `b` (NaN passes every comparison
// CLI::Range makes).
CLI::Validator real(const util::RealBounds& b) {
  return CLI::Validator([b](std::string& s) { return util::real_number_problem(s, b); },
                        util::describe(b), kBoundsName);
}

// An existing file, or "-" for standard input.
CLI::Validator file_or_stdin() {
  return CLI::Validator(
      [](std::string& s) -> std::string { return s == "-" ? std::string() : CLI::ExistingFile(s); },
      "FILE|-");
}

const util::RealBounds kUnit{0.0, 1.0};
const util::RealBounds kOpenUnit{0.0, 1.0, true, true};
const util::RealBounds kNonNegative{0.0};
const util::RealBounds kFinite{};

void add_threads(CLI::App* cmd, unsigned& threads) {
  cmd->add_option("--threads", threads, "Worker threads (0: all cores)")
      ->check(whole(0, limits::kThreads))
      ->capture_default_str();
}

// A flag's values by the library's names for them (the names are declared there once).
template <class E>
std::map<std::string, E> by_name(std::initializer_list<E> values, std::string_view (*name)(E)) {
  std::map<std::string, E> out;
  for (E v : values) out.emplace(std::string(name(v)), v);
  return out;
}

// Binds a flag to a library enum: its values by the library's names, listed in the help as
// TEXT:{a,b,c} in the order given.
template <class E>
CLI::Option* one_of(CLI::Option* option, std::initializer_list<E> values,
                    std::string_view (*name)(E)) {
  std::vector<std::string_view> names;
  for (E v : values) names.push_back(name(v));
  const std::string listed = fmt::format("{{{}}}", fmt::join(names, ","));
  // CLI11 stores an enum from its number: the name becomes that number here.
  auto to_number = [map = by_name(values, name), listed](std::string& text) -> std::string {
    const auto it = map.find(text);
    if (it == map.end()) return fmt::format("{} not in {}", text, listed);
    text = std::to_string(static_cast<std::underlying_type_t<E>>(it->second));
    return {};
  };
  return option->transform(CLI::Validator(to_number, ""))->type_name("TEXT:" + listed);
}

// The library's enums as flag values.
CLI::Option* levels(CLI::Option* option) {
  return one_of(option, {stats::Level::kItem, stats::Level::kTask, stats::Level::kSystem},
                stats::level_name);
}
CLI::Option* level_statistics(CLI::Option* option) {
  return one_of(option,
                {stats::LevelStatistic::kPearson, stats::LevelStatistic::kSpearman,
                 stats::LevelStatistic::kKendallB, stats::LevelStatistic::kKendallC,
                 stats::LevelStatistic::kPairwiseAcc, stats::LevelStatistic::kAccEq},
                stats::level_statistic_name);
}
CLI::Option* rank_corrections(CLI::Option* option) {
  return one_of(option,
                {RankCorrection::kHolm, RankCorrection::kBenjaminiHochberg, RankCorrection::kNone},
                rank_correction_name);
}

// The LLM endpoint flags of commands whose metrics may call a model (they override
// [llm.default] of the --config file).
void add_llm_flags(CLI::App* cmd, cli::LlmFlags& f) {
  cmd->add_option("--config", f.config, "LLM configuration (probity.toml)")
      ->check(CLI::ExistingFile);
  cmd->add_option("--llm-base-url", f.overrides.base_url,
                  "OpenAI-compatible endpoint, e.g. http://127.0.0.1:8000/v1");
  cmd->add_option("--llm-model", f.overrides.model, "Model name sent to the endpoint");
  cmd->add_option("--llm-api-key-env", f.overrides.api_key_env,
                  "NAME of the environment variable holding the API key");
  cmd->add_option("--llm-concurrency", f.overrides.concurrency, "LLM requests in flight")
      ->check(whole(1, limits::kLlmConcurrency));
  cmd->add_option("--cache", f.overrides.cache, "LLM response cache (SQLite file)");
  cmd->add_option("--cache-mode", f.overrides.cache_mode, "read-write, read-only, refresh or off");
  cmd->add_option("--llm-max-tokens", f.overrides.max_tokens,
                  "Longest answer of every LLM role (replaces the roles' built-in limits)")
      ->check(whole(1, 1 << 30));
  one_of(cmd->add_option("--llm-structured", f.overrides.structured,
                         "What structured questions ask of the server: schema (each answer's "
                         "JSON Schema, the default), json (any JSON object) or off"),
         {llm::StructuredMode::kSchema, llm::StructuredMode::kJson, llm::StructuredMode::kOff},
         llm::structured_mode_name);
  one_of(cmd->add_option("--llm-server", f.overrides.server,
                         "The server software, where it changes what is sent: auto (the "
                         "default), openai, vllm, sglang, llamacpp or ollama"),
         {llm::ServerKind::kAuto, llm::ServerKind::kOpenAi, llm::ServerKind::kVllm,
          llm::ServerKind::kSglang, llm::ServerKind::kLlamaCpp, llm::ServerKind::kOllama},
         llm::server_kind_name);
  cmd->add_option("--max-failed", f.max_failed,
                  "Share of an endpoint's LLM requests that may fail (transport, auth, HTTP "
                  "errors) before the run exits with code 5")
      ->check(real(kUnit))
      ->capture_default_str();
  cmd->add_option("--max-unparsed", f.max_unparsed,
                  "Share of an endpoint's structured answers that may stay unusable after "
                  "re-asking before the run exits with code 5")
      ->check(real(kUnit))
      ->capture_default_str();
}

// --lang is checked when parsed, as the library checks it (set_default_language): an unknown
// language would make every rule-based perturbation not applicable.
CLI::Validator known_language() {
  return CLI::Validator(
      [](std::string& s) -> std::string { return text::unknown_language(s).value_or(""); }, "");
}

// --lang of the commands that perturb (perturb, audit, attack).
constexpr const char* kLangHelp =
    "Language of the tasks without a 'lang' field (ISO 639-1: en, de, ...); default: detected per "
    "task";

// Every numeric flag of every command declares its bounds with whole() or real(): one without
// them is a bug that fails every run, so that no count or share escapes the checks.
void require_bounds(CLI::App& app) {
  for (CLI::Option* o : app.get_options()) {
    if (o->get_type_size() == 0) continue;
    const std::string type = o->get_type_name();
    const std::string base = type.substr(0, type.find(':'));
    if (base != "UINT" && base != "INT" && base != "FLOAT") continue;
    try {
      o->get_validator(kBoundsName);
    } catch (const CLI::OptionNotFound&) {
      throw std::logic_error(fmt::format("the numeric option {} of `{}` declares no bounds",
                                         o->get_name(), app.get_name()));
    }
  }
  for (CLI::App* sub : app.get_subcommands([](CLI::App*) { return true; })) require_bounds(*sub);
}

// The command a parse reached: the root, or the deepest subcommand given.
CLI::App* deepest_command(CLI::App* app) {
  for (;;) {
    auto parsed = app->get_subcommands();
    if (parsed.empty()) return app;
    app = parsed.front();
  }
}

// "probity", "probity meta", "probity meta global".
std::string command_path(const CLI::App* cmd) {
  std::string path = cmd->get_name();
  for (const CLI::App* p = cmd->get_parent(); p != nullptr; p = p->get_parent())
    path = p->get_name() + " " + path;
  return path;
}

// The commands `cmd` lists (hidden ones, in the group "", left out).
std::vector<std::string> subcommand_names(CLI::App* cmd) {
  std::vector<std::string> names;
  for (CLI::App* sub : cmd->get_subcommands([](CLI::App*) { return true; }))
    if (!sub->get_group().empty()) names.push_back(sub->get_name());
  return names;
}

// The option names a command accepts: its own and, as the global flags fall through, its
// parents'.
std::vector<std::string> option_names(CLI::App* cmd) {
  std::vector<std::string> names;
  for (CLI::App* c = cmd; c != nullptr; c = c->get_parent())
    for (const CLI::Option* o : c->get_options()) {
      for (const auto& l : o->get_lnames()) names.push_back("--" + l);
      for (const auto& sn : o->get_snames()) names.push_back("-" + sn);
    }
  return names;
}

// A message for the first word CLI11 could not place, with the nearest names; empty when every
// word was placed (the error is of another kind).
std::string unknown_word_message(CLI::App& app) {
  const auto left = app.remaining(true);
  if (left.empty()) return {};
  CLI::App* cmd = deepest_command(&app);
  const std::string& word = left.front();
  if (word.size() > 1 && word[0] == '-') {
    const std::string name = word.substr(0, word.find('='));
    return fmt::format("unknown option '{}' of `{}`{}; see `probity help{}`", name,
                       command_path(cmd), util::did_you_mean(name, option_names(cmd)),
                       cmd == &app ? "" : command_path(cmd).substr(app.get_name().size()));
  }
  if (!cmd->get_subcommands([](CLI::App*) { return true; }).empty())
    return fmt::format("unknown command '{}'{}; see `{} --help`", word,
                       util::did_you_mean(word, subcommand_names(cmd)), command_path(cmd));
  return fmt::format("{}: unexpected argument '{}'", command_path(cmd), word);
}

// The command-line definition as plain data, for the completions and the man page.
cli::CommandDoc describe_command(CLI::App* app) {
  cli::CommandDoc d;
  d.name = app->get_name();
  d.description = app->get_description();
  d.hidden = app->get_parent() != nullptr && app->get_group().empty();
  for (const CLI::Option* o : app->get_options()) {
    if (!o->nonpositional()) continue;
    cli::OptionDoc od;
    for (const auto& n : o->get_snames()) od.names.push_back("-" + n);
    for (const auto& n : o->get_lnames()) od.names.push_back("--" + n);
    od.description = o->get_description();
    if (o->get_type_size() != 0) {
      const std::string type = o->get_type_name();  // "TEXT:FILE", "UINT:UINT", "TEXT:{a,b}"
      od.value = type.find(":FILE") != std::string::npos ? "FILE" : type.substr(0, type.find(':'));
      if (od.value.empty()) od.value = "VALUE";
      if (auto open = type.find('{'), close = type.find('}');
          open != std::string::npos && close != std::string::npos && close > open) {
        const std::string set = type.substr(open + 1, close - open - 1);
        for (std::size_t start = 0; start <= set.size();) {
          const std::size_t end = std::min(set.find(',', start), set.size());
          if (end > start) od.choices.push_back(set.substr(start, end - start));
          start = end + 1;
        }
      }
    }
    od.default_value = o->get_default_str();
    od.required = o->get_required();
    d.options.push_back(std::move(od));
  }
  for (CLI::App* sub : app->get_subcommands([](CLI::App*) { return true; }))
    d.commands.push_back(describe_command(sub));
  return d;
}

// `probity help [COMMAND [SUBCOMMAND]]`: the help of that command on stdout.
int print_help(CLI::App& app, const std::vector<std::string>& topics) {
  CLI::App* cmd = &app;
  std::string path = app.get_name();  // "probity score", as `probity score --help` shows it
  for (const auto& t : topics) {
    CLI::App* sub = nullptr;
    for (CLI::App* s : cmd->get_subcommands([](CLI::App*) { return true; }))
      if (s->get_name() == t) sub = s;
    if (sub == nullptr || sub->get_name() == "help")
      throw UsageError(fmt::format("help: unknown command '{}'{}", t,
                                   util::did_you_mean(t, subcommand_names(cmd))));
    cmd = sub;
    path += " " + sub->get_name();
  }
  // The formatter directly: App::help() delegates to the parsed subcommand (here `help` itself).
  fmt::print("{}", cmd->get_formatter()->make_help(cmd, path, CLI::AppFormatMode::Normal));
  return kExitOk;
}

}  // namespace

int main(int argc, char** argv) {
  CLI::App app{"probity: reference-based text evaluation metrics and their audit", "probity"};
  app.set_version_flag("-V,--version",
                       "probity " + version() + "\nprompts: " + llm::default_prompts_dir());
  app.require_subcommand(1);
  // The global flags: accepted before or after the command (they fall through to the root).
  app.fallthrough();
  bool quiet = false, verbose = false, no_color = false;
  auto* quiet_flag =
      app.add_flag("-q,--quiet", quiet, "No progress bars and no notes on stderr (warnings stay)");
  app.add_flag("-v,--verbose", verbose, "Also the time each stage of a run takes, on stderr")
      ->excludes(quiet_flag);
  app.add_flag("--no-color", no_color,
               "No colours (also when NO_COLOR is set; colours only ever go to a terminal)");

  ScoreRequest score;
  cli::ScoreView score_view;
  auto* sc =
      app.add_subcommand("score", "Score every candidate with the given metrics (JSONL out)");
  sc->add_option("--data", score.data,
                 "Dataset (JSONL task format or CSV); repeatable. A JSONL file is read in chunks "
                 "(up to 512 tasks, 2048 candidates); metrics that need all of it (the MI "
                 "presets and mi:... cells) are fitted in passes over it first. CSV, data that "
                 "cannot be read twice (a pipe), and metrics that fit only on loaded data "
                 "(expert, style=llm, refs= on a fitted metric) make it load whole")
      ->required()
      ->check(CLI::ExistingFile);
  cli::add_input_options(sc, score.data);
  sc->add_option("--metric,--metrics,-m", score.metrics,
                 "Metric name, e.g. bleu, chrf, rougeL.f,stem=true; repeatable, or several after "
                 "one flag as sacreBLEU's -m bleu chrf ter")
      ->required();
  sc->add_option("--out", score_view.out,
                 "Output JSONL file of the score records (default: stdout). The corpus table "
                 "(a row per system when the data has several, and the pooled row, labelled "
                 "so) goes to stderr when the records go to stdout, else to stdout");
  sc->add_flag("--score-only,-b", score_view.score_only,
               "Print only the corpus scores, one per line on stdout (per metric part: each "
               "system in order, then the pooled score), as sacreBLEU's -b; the records are "
               "written only with --out");
  sc->add_option("--explain", score_view.explain,
                 "Write per-item explanations (aspects, matches, judgments, rationales, model "
                 "calls) of metrics that support them, e.g. expert, as JSONL to this file");
  sc->add_flag("--skip-invalid", score.skip_invalid, "Skip invalid items and report them");
  add_threads(sc, score.threads);
  std::string score_shard;
  sc->add_option("--shard", score_shard,
                 "I/N: score only shard I (0-based) of N, chosen by a hash of the task id; "
                 "combine the shards' files with `probity merge`");
  one_of(sc->add_option("--aggregate", score.aggregate,
                        "ROUGE corpus aggregation: mean (the mean item score), or bootstrap: "
                        "also rouge-score's BootstrapAggregator low/mid/high of P, R and F, as "
                        "after numpy.random.seed(--bootstrap-seed)"),
         {CorpusAggregate::kMean, CorpusAggregate::kBootstrap}, corpus_aggregate_name)
      ->default_str("mean");
  sc->add_option("--bootstrap-samples", score.bootstrap_samples,
                 "--aggregate bootstrap: resamples (BootstrapAggregator n_samples)")
      ->check(whole(1, limits::kResamples))
      ->capture_default_str();
  sc->add_option("--bootstrap-confidence", score.bootstrap_confidence,
                 "--aggregate bootstrap: confidence_interval")
      ->check(real(kUnit))
      ->capture_default_str();
  sc->add_option("--bootstrap-seed", score.bootstrap_seed,
                 "--aggregate bootstrap: the seed of NumPy's global state (np.random.seed), "
                 "0 .. 4294967295")
      ->check(whole(0, 4294967295))
      ->capture_default_str();
  cli::LlmFlags score_llm;
  add_llm_flags(sc, score_llm);

  CorrelateRequest corr;
  auto* cc = app.add_subcommand("correlate", "Correlate metric scores with human ratings");
  cc->add_option("--data", corr.data, "Dataset with human ratings")
      ->required()
      ->check(CLI::ExistingFile);
  cli::add_input_options(cc, corr.data);
  cc->add_option(
        "--scores", corr.scores,
        "Scores JSONL from `probity score`; repeatable (each metric in one file); '-' reads "
        "standard input")
      ->required()
      ->check(file_or_stdin());
  cc->add_option("--metric", corr.metrics, "Only these metrics (default: all in the file)");
  cc->add_option("--dimension", corr.dimensions, "Only these human dimensions (default: all)");
  cc->add_option("--level", corr.levels,
                 "item (pooled), task (within each task, averaged) or system (per-system means); "
                 "repeatable (docs/meta-eval.md)")
      ->check(CLI::IsMember(kLevelNames));
  cc->add_option("--statistic", corr.statistics,
                 "pearson, spearman, kendall (tau-b), kendall-c, pairwise-acc, acc-eq "
                 "(pairwise accuracy with tie calibration) or preference-acc (agreement with the "
                 "tasks' human pairwise preferences); repeatable")
      ->check(CLI::IsMember([] {
        auto names = kLevelStatisticNames;
        names.push_back("preference-acc");
        return names;
      }()));
  cc->add_flag("!--no-baselines", corr.baselines,
               "With --level/--statistic: leave out the length and random baseline rows");
  cc->add_option("--bootstrap", corr.bootstrap,
                 "Bootstrap resamples for the CI (of Spearman; with --level/--statistic of every "
                 "value, resampling tasks, or systems at the system level; 0: none)")
      ->check(whole(0, limits::kResamples))
      ->capture_default_str();
  cc->add_option("--pairs-from", corr.pairs_from,
                 "With --statistic preference-acc on data without human pairs: derive the pairs "
                 "from this dimension's rating differences within each task (labelled as derived)");
  cc->add_option("--pairs-margin", corr.pairs_margin,
                 "--pairs-from: rating means this close are a tie")
      ->check(real(kNonNegative))
      ->capture_default_str();
  cc->add_option("--resample", corr.resample,
                 "With --level: what the bootstrap draws: level (tasks at the item and task "
                 "level, systems at the system level), tasks, systems, or both (two-stage: tasks "
                 "and systems drawn independently)")
      ->check(CLI::IsMember({"level", "tasks", "systems", "both"}))
      ->capture_default_str();
  cc->add_option("--confidence", corr.confidence, "Confidence level")
      ->check(real(kOpenUnit))
      ->capture_default_str();
  cc->add_option("--seed", corr.seed, "Seed of the bootstrap")
      ->check(whole(0))
      ->capture_default_str();
  cc->add_flag("--json", corr.json, "Print JSON instead of a table");
  cc->add_flag("--skip-invalid", corr.skip_invalid, "Skip invalid items and report them");
  cc->add_flag("--allow-missing", corr.allow_missing,
               "Use a scores file that leaves items without a score (their number is reported)");
  add_threads(cc, corr.threads);

  CompareRequest cmp;
  auto* mc = app.add_subcommand(
      "compare", "Paired permutation test between two metrics' correlations with humans");
  mc->add_option("--data", cmp.data, "Dataset with human ratings")
      ->required()
      ->check(CLI::ExistingFile);
  cli::add_input_options(mc, cmp.data);
  mc->add_option("--scores", cmp.scores,
                 "Scores JSONL holding both metrics; repeatable (each metric in one file); '-' "
                 "reads standard input")
      ->required()
      ->check(file_or_stdin());
  mc->add_option("--metric", cmp.metrics, "The two metrics to compare (give twice)")
      ->required()
      ->expected(1, 2);
  mc->add_option("--dimension", cmp.dimensions, "Only these human dimensions (default: all)");
  mc->add_option("--correlation", cmp.correlation,
                 "pearson, spearman or kendall; with --level also kendall-c, pairwise-acc or "
                 "acc-eq")
      ->check(CLI::IsMember(kLevelStatisticNames))
      ->capture_default_str();
  mc->add_option("--level", cmp.level,
                 "item, task or system: the test at that level (docs/meta-eval.md); default: "
                 "the pooled test")
      ->check(CLI::IsMember(kLevelNames));
  mc->add_option("--permutations", cmp.permutations, "Number of permutations")
      ->check(whole(1, limits::kResamples))
      ->capture_default_str();
  mc->add_option("--seed", cmp.seed, "Seed of the permutations")
      ->check(whole(0))
      ->capture_default_str();
  mc->add_flag("--json", cmp.json, "Print JSON instead of a table");
  mc->add_flag("--skip-invalid", cmp.skip_invalid, "Skip invalid items and report them");
  mc->add_flag("--allow-missing", cmp.allow_missing,
               "Use a scores file that leaves items without a score (their number is reported)");
  add_threads(mc, cmp.threads);

  RankRequest rank;
  auto* rc = app.add_subcommand(
      "rank", "Rank metrics into significance clusters (paired permutation tests at a level)");
  rc->add_option("--data", rank.data, "Dataset with human ratings")
      ->required()
      ->check(CLI::ExistingFile);
  cli::add_input_options(rc, rank.data);
  rc->add_option(
        "--scores", rank.scores,
        "Scores JSONL from `probity score`; repeatable (each metric in one file); '-' reads "
        "standard input")
      ->required()
      ->check(file_or_stdin());
  rc->add_option("--metric", rank.metrics, "Only these metrics (default: all in the file)");
  rc->add_option("--dimension", rank.dimensions, "Only these human dimensions (default: all)");
  rc->add_option("--level", rank.level, "item, task or system (docs/meta-eval.md)")
      ->check(CLI::IsMember(kLevelNames))
      ->capture_default_str();
  rc->add_option("--statistic", rank.statistic,
                 "pearson, spearman, kendall, kendall-c, pairwise-acc or acc-eq")
      ->check(CLI::IsMember(kLevelStatisticNames))
      ->capture_default_str();
  rc->add_option("--permutations", rank.permutations, "Permutations per pair of metrics")
      ->check(whole(1, limits::kResamples))
      ->capture_default_str();
  rc->add_option("--correction", rank.correction,
                 "Multiple-comparison control over all pairs: holm, bh (Benjamini-Hochberg) or "
                 "none")
      ->check(CLI::IsMember({"holm", "bh", "none"}))
      ->capture_default_str();
  rc->add_option("--alpha", rank.alpha, "Significance level")
      ->check(real(kOpenUnit))
      ->capture_default_str();
  rc->add_option("--seed", rank.seed, "Seed of the permutations")
      ->check(whole(0))
      ->capture_default_str();
  rc->add_flag("--json", rank.json, "Print JSON instead of a table");
  rc->add_flag("--skip-invalid", rank.skip_invalid, "Skip invalid items and report them");
  rc->add_flag("--allow-missing", rank.allow_missing,
               "Use a scores file that leaves items without a score (their number is reported)");
  add_threads(rc, rank.threads);

  SignificanceRequest sig;
  auto* sigc = app.add_subcommand(
      "significance",
      "Paired significance tests between systems as sacreBLEU computes them (--paired-bs, "
      "--paired-ar): the first system is the baseline");
  sigc->add_option("--data", sig.data,
                   "Dataset whose tasks each have one candidate per system (or --hyp FILE per "
                   "system, --ref FILE)")
      ->required()
      ->check(CLI::ExistingFile);
  cli::add_input_options(sigc, sig.data);
  sigc->add_option("--metric,-m", sig.metrics,
                   "bleu, chrf, chrf++ or ter, with options; repeatable")
      ->capture_default_str();
  auto* bs_flag = sigc->add_flag("--paired-bs", sig.paired_bs,
                                 "Paired bootstrap resampling: p-values and each system's mean "
                                 "and 95% CI (sacreBLEU --paired-bs)");
  sigc->add_flag("--paired-ar", sig.paired_ar,
                 "Paired approximate randomization: p-values (sacreBLEU --paired-ar)")
      ->excludes(bs_flag);
  sigc->add_option("--paired-bs-n", sig.paired_bs_n, "Bootstrap resamples")
      ->check(whole(1, limits::kResamples))
      ->capture_default_str();
  sigc->add_option("--paired-ar-n", sig.paired_ar_n, "Approximate randomization trials")
      ->check(whole(1, limits::kResamples))
      ->capture_default_str();
  sigc->add_option("--seed", sig.seed,
                   "Seed of NumPy's default_rng as sacreBLEU seeds it (SACREBLEU_SEED)")
      ->check(whole(0))
      ->capture_default_str();
  sigc->add_option("--baseline", sig.baseline, "The baseline system (default: the first)");
  sigc->add_option("--width,-w", sig.width, "Decimals of the scores in the table")
      ->check(whole(0, 10))
      ->capture_default_str();
  sigc->add_flag("--json", sig.json, "Print JSON instead of a table");
  sigc->add_flag("--skip-invalid", sig.skip_invalid, "Skip invalid items and report them");
  add_threads(sigc, sig.threads);

  AuditOptions audit;
  cli::AuditView audit_view;
  auto* ac = app.add_subcommand(
      "audit", "Audit metrics: human correlation, degradation and manipulation tests, report");
  ac->add_option("--data", audit.data, "Dataset(s) with human ratings; repeatable")
      ->required()
      ->check(CLI::ExistingFile);
  cli::add_input_options(ac, audit.data);
  ac->add_option("--lang", audit.lang, kLangHelp)->check(known_language());
  ac->add_option("--metric", audit.metrics, "Metric(s) to audit; repeatable")->required();
  ac->add_option("--dimension", audit.dimensions,
                 "Human dimension(s) to correlate with, e.g. relevance; repeatable (default: "
                 "every rating column; the scorecard's correlation is their mean)");
  ac->add_option("--degrade", audit.degradations,
                 "Degradations: 'all', 'none' or letter codes R,S,D,P,U,O; llm:<code> for the "
                 "LLM realisation (llm:<code>@v1: the v1 prompt)")
      ->delimiter(',')
      ->capture_default_str();
  ac->add_option("--manipulate", audit.manipulations,
                 "Manipulations: 'all', 'none' or letter codes R,M,P,N,H,S; llm:<code> for the "
                 "LLM realisation (llm:<code>@v1: the v1 prompt)")
      ->delimiter(',')
      ->capture_default_str();
  ac->add_option("--suite", audit.suite,
                 "A protocol instead of --degrade/--manipulate: paper (the paper's "
                 "strategies for the dataset's task type, rules for R,S,M and an LLM for the "
                 "rest, one ground-truth reference, --sample 200) or "
                 "paper:summarization|peer-review|qa");
  ac->add_option("--sample", audit.sample,
                 "Candidates per dataset, sampled with the seed (0: all; default: all, or "
                 "200 with --suite)")
      ->check(whole(0, limits::kItems));
  ac->add_option("--seed", audit.seed, "Seed of every random step")
      ->check(whole(0))
      ->capture_default_str();
  ac->add_option("--min-applied", audit.min_applied,
                 "Applied items a strategy needs to be tested (all items of a smaller dataset); "
                 "fewer: n/a")
      ->check(whole(0, limits::kItems))
      ->capture_default_str();
  ac->add_option("--bootstrap", audit.bootstrap, "Bootstrap resamples for CIs")
      ->check(whole(0, limits::kResamples))
      ->capture_default_str();
  ac->add_option("--alpha", audit.alpha, "Significance level of the one-sided tests")
      ->check(real(kOpenUnit))
      ->capture_default_str();
  levels(
      ac->add_option("--level", audit.levels,
                     "Also correlate at these levels: item (pooled over tasks' resamples), task, "
                     "system; repeatable (docs/meta-eval.md)"));
  level_statistics(ac->add_option(
      "--statistic", audit.level_statistics,
      "Statistics of the --level rows (default kendall): pearson, spearman, kendall, "
      "kendall-c, pairwise-acc, acc-eq; repeatable"));
  ac->add_flag("!--no-baselines", audit.baselines,
               "Leave out the length and random baseline rows of the correlation tables");
  ac->add_flag("--rank", audit.rank,
               "Significance clusters of the metrics and baselines at each --level (item when "
               "none) for the first --statistic");
  ac->add_option("--permutations", audit.rank_permutations, "--rank: permutations per pair")
      ->check(whole(1, limits::kResamples))
      ->capture_default_str();
  rank_corrections(
      ac->add_option("--correction", audit.rank_correction,
                     "--rank: multiple-comparison control over all pairs: holm, bh or none"))
      ->default_str("holm");
  ac->add_flag("--attack", audit.attack,
               "Add the attack section: search for content-free edits each metric rewards "
               "(docs/attack.md)");
  ac->add_option("--attack-strategy", audit.attack_options.strategy,
                 "--attack: greedy, beam, random, evolution or llm (the LLM attacker, role "
                 "attacker, with the offline support guard)")
      ->check(CLI::IsMember({"greedy", "beam", "random", "evolution", "llm"}))
      ->capture_default_str();
  ac->add_option("--attack-budget", audit.attack_options.budget,
                 "--attack: metric queries per item")
      ->check(whole(1, limits::kAttackBudget))
      ->capture_default_str();
  ac->add_option("--attack-programs", audit.attack_options.programs,
                 "--attack: universal programs tested on held-out tasks")
      ->check(whole(0, limits::kPrograms))
      ->capture_default_str();
  ac->add_option("--out", audit.out_dir, "Output directory (report files and resume cache)")
      ->required();
  ac->add_flag("--ascii", audit_view.ascii, "ASCII tables instead of Unicode");
  ac->add_option("--export", audit_view.exports,
                 "Also write every figure as standalone SVG (svg) and every table as LaTeX "
                 "booktabs (latex) into --out; comma-separated")
      ->delimiter(',')
      ->check(CLI::IsMember({"latex", "svg"}));
  ac->add_flag("--skip-invalid", audit.skip_invalid, "Skip invalid items and report them");
  add_threads(ac, audit.threads);
  std::string audit_shard;
  ac->add_option("--shard", audit_shard,
                 "I/N: audit only shard I of N into the --out cache (no report); then run the "
                 "unsharded audit with --import of every shard's directory");
  ac->add_option("--import", audit.import_caches,
                 "Directory (or cache.sqlite) of a finished shard whose cached work to reuse");

  PerturbRequest pert;
  auto* pc = app.add_subcommand(
      "perturb",
      "Write the dataset with every applied perturbation added as candidates, for "
      "scoring with your own metric (then audit with --metric scores:FILE,data=...)");
  pc->add_option("--data", pert.data, "Dataset")->required()->check(CLI::ExistingFile);
  cli::add_input_options(pc, pert.data);
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
  cli::LlmFlags perturb_llm;
  add_llm_flags(pc, perturb_llm);
  pc->add_option("--perturber", perturb_llm.perturber,
                 "Realisation of the strategies: rules (offline) or llm (the perturber role)")
      ->check(CLI::IsMember({"rules", "llm"}))
      ->capture_default_str();

  MergeRequest merge;
  auto* gc = app.add_subcommand(
      "merge", "Combine `score --shard I/N` outputs into the file of an unsharded run");
  gc->add_option("--data", merge.data, "The dataset the shards scored")
      ->required()
      ->check(CLI::ExistingFile);
  cli::add_input_options(gc, merge.data);
  gc->add_option("--out", merge.out, "Merged scores JSONL")->required();
  gc->add_option("shards", merge.shards, "Shard score files")->required()->check(CLI::ExistingFile);
  gc->add_flag("--allow-missing", merge.allow_missing,
               "Write the merge although items of the dataset have no records (reported)");
  cli::LlmFlags audit_llm;
  add_llm_flags(ac, audit_llm);
  ac->add_option("--perturber", audit_llm.perturber,
                 "Realisation of the strategies: rules (offline) or llm (the perturber role)")
      ->check(CLI::IsMember({"rules", "llm"}))
      ->capture_default_str();

  SelectRequest sel;
  auto* selc = app.add_subcommand(
      "select",
      "Choose the metric variant with the best human correlation on a seeded half of the tasks "
      "and report it on the other half (bootstrap CI, paired permutation tests against every "
      "other variant, max-statistic correction of the choice)");
  selc->add_option("--data", sel.data, "Dataset with human ratings")
      ->required()
      ->check(CLI::ExistingFile);
  cli::add_input_options(selc, sel.data);
  selc->add_option("--metric", sel.metrics, "A variant (metric name); give two or more")
      ->required();
  selc->add_option(
          "--scores", sel.scores,
          "Scores JSONL from `probity score` (default: compute the metrics); repeatable; '-' "
          "reads standard input")
      ->check(file_or_stdin());
  selc->add_option("--split", sel.split, "Fraction of tasks in the selection half")
      ->check(real(kOpenUnit))
      ->capture_default_str();
  selc->add_option("--seed", sel.seed, "Seed of the split, bootstrap and permutations")
      ->check(whole(0))
      ->capture_default_str();
  selc->add_option("--dimension", sel.dimensions, "Only these human dimensions (default: all)");
  selc->add_option("--correlation", sel.correlation,
                   "pearson, spearman or kendall; with --level also kendall-c, pairwise-acc or "
                   "acc-eq")
      ->check(CLI::IsMember(kLevelStatisticNames))
      ->capture_default_str();
  selc->add_option("--level", sel.level,
                   "item, task or system: choose and report the variants at that level "
                   "(docs/meta-eval.md); default: the pooled correlation")
      ->check(CLI::IsMember(kLevelNames));
  selc->add_option("--bootstrap", sel.bootstrap, "Bootstrap resamples (test tasks)")
      ->check(whole(0, limits::kResamples))
      ->capture_default_str();
  selc->add_option("--permutations", sel.permutations, "Permutations of each test")
      ->check(whole(1, limits::kResamples))
      ->capture_default_str();
  selc->add_option("--confidence", sel.confidence, "Confidence level")
      ->check(real(kOpenUnit))
      ->capture_default_str();
  cli::LlmFlags select_llm;
  add_llm_flags(selc, select_llm);
  selc->add_flag("--json", sel.json, "Print JSON instead of a table");
  selc->add_flag("--skip-invalid", sel.skip_invalid, "Skip invalid items and report them");
  selc->add_flag("--allow-missing", sel.allow_missing,
                 "Use a scores file that leaves items without a score (their number is reported)");
  add_threads(selc, sel.threads);

  AttackRequest atk;
  auto* atc = app.add_subcommand(
      "attack",
      "Search for content-free edits that raise a metric's score: per item under a query "
      "budget, and universal edit programs chosen on half the tasks and tested on the other");
  atc->add_option("--data", atk.data, "Dataset")->required()->check(CLI::ExistingFile);
  cli::add_input_options(atc, atk.data);
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
                  "copy-source adds task content); repeatable")
      ->delimiter(',');
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
  cli::LlmFlags attack_llm;
  add_llm_flags(atc, attack_llm);

  auto* meta = app.add_subcommand("meta",
                                  "Dual-perspective meta-evaluation (global CEM, local "
                                  "adjacent accuracy)");
  meta->require_subcommand(1);
  auto add_meta_common = [&](CLI::App* c, MetaRequest& a) {
    c->add_option("--data", a.data, "Dataset (task format) with human ratings")
        ->required()
        ->check(CLI::ExistingFile);
    cli::add_input_options(c, a.data);
    c->add_option(
         "--scores", a.scores,
         "Scores JSONL from `probity score`; repeatable (each metric in one file); '-' reads "
         "standard input")
        ->required()
        ->check(file_or_stdin());
    c->add_option("--metric", a.metrics, "Only these metrics (default: all in the file)");
    c->add_option("--dimension", a.dimensions, "Only these human dimensions (default: all)");
    c->add_option("--bootstrap", a.bootstrap, "Bootstrap resamples for the CI (0: none)")
        ->check(whole(0, limits::kResamples))
        ->capture_default_str();
    c->add_option("--confidence", a.confidence, "Confidence level")
        ->check(real(kOpenUnit))
        ->capture_default_str();
    c->add_option("--seed", a.seed, "Seed of the bootstrap")
        ->check(whole(0))
        ->capture_default_str();
    c->add_flag("--json", a.json, "Print JSON instead of a table");
    c->add_flag("--skip-invalid", a.skip_invalid, "Skip invalid items and report them");
    c->add_flag("--allow-missing", a.allow_missing,
                "Use a scores file that leaves items without a score (their number is reported)");
    add_threads(c, a.threads);
  };
  MetaRequest mglobal;
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
  mg->add_flag("--direct", mglobal.direct,
               "Scores are integer-valued ratings (an LLM judge): use them as levels directly");
  mg->add_option("--chance", mglobal.chance,
                 "Random orderings averaged for the chance CEM (0: none)")
      ->check(whole(0, limits::kResamples))
      ->capture_default_str();
  MetaRequest mlocal;
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

  BenchBuildRequest bench;
  auto* bc = app.add_subcommand(
      "bench-build",
      "Build a meta-evaluation benchmark from a dataset's references: local sequences (one "
      "error injected per step, cumulatively) or global items levelled by anchoring");
  bc->add_option("--data", bench.data, "Dataset whose references are edited")
      ->required()
      ->check(CLI::ExistingFile);
  cli::add_input_options(bc, bench.data);
  bc->add_option("--dimension", bench.dimension,
                 "consistency, fluency, coherence or relevance (selects the error types)")
      ->required()
      ->check(CLI::IsMember({"consistency", "fluency", "coherence", "relevance"}));
  bc->add_option("--kind", bench.kind, "local (sequences) or global (anchored levels)")
      ->check(CLI::IsMember({"local", "global"}))
      ->capture_default_str();
  bc->add_option("--steps", bench.steps, "Errors per sequence (global: most errors per item)")
      ->check(whole(1, 100))
      ->capture_default_str();
  bc->add_option("--sources", bench.sources, "Sources (tasks) used, in a seeded order (0: all)")
      ->check(whole(0, limits::kItems))
      ->capture_default_str();
  bc->add_option("--seed", bench.seed, "Seed of every choice")
      ->check(whole(0))
      ->capture_default_str();
  bc->add_option("--base-ref", bench.base_reference,
                 "Index of the reference that is edited; the others remain references")
      ->check(whole(0, 1000))
      ->capture_default_str();
  bc->add_option("--per-source", bench.per_source, "Global: items per source")
      ->check(whole(1, 100))
      ->capture_default_str();
  bc->add_option("--anchors", bench.anchors, "Global: anchors sampled per level (0: all)")
      ->check(whole(0, limits::kItems))
      ->capture_default_str();
  bc->add_option("--anchor-metric", bench.anchor_metric,
                 "Global: metric whose scores compare an item with the anchors (offline judge)")
      ->capture_default_str();
  bc->add_option("--max-spread", bench.max_spread, "Global: consensus rule of the anchors")
      ->check(real(kNonNegative))
      ->capture_default_str();
  bc->add_option("--out", bench.out, "Output dataset (task-format JSONL)")->required();
  bc->add_flag("--skip-invalid", bench.skip_invalid, "Skip invalid items and report them");
  add_threads(bc, bench.threads);
  bc->add_option("--injector", bench.injector,
                 "Error injection: rules (offline) or llm (one model call per step, role "
                 "--llm-role; failed steps end the sequence and are counted)")
      ->check(CLI::IsMember({"rules", "llm"}))
      ->capture_default_str();
  bc->add_option("--llm-role", bench.llm_role, "LLM role of the llm injector")
      ->capture_default_str();
  bc->add_option("--max-edit-share", bench.max_edit_share,
                 "llm injector: an answer changing more than this share of the words is "
                 "rejected and re-asked")
      ->check(real({0.01, 1.0}))
      ->capture_default_str();
  bc->add_option("--anchor-judge", bench.anchor_judge,
                 "Global: metric (--anchor-metric) or llm (pairwise model judge, role "
                 "--llm-role-judge, both orders; failures count as ties and are reported)")
      ->check(CLI::IsMember({"metric", "llm"}))
      ->capture_default_str();
  bc->add_option("--llm-role-judge", bench.llm_role_judge, "LLM role of the llm anchor judge")
      ->capture_default_str();
  cli::LlmFlags bench_llm;
  add_llm_flags(bc, bench_llm);

  bool metrics_json = false;
  auto* lc = app.add_subcommand("metrics", "List the available metrics and their options");
  lc->add_flag("--json", metrics_json, "Print JSON");

  // Help, completion and the man page, after the commands in `probity --help`.
  std::vector<std::string> help_topics;
  auto* hc = app.add_subcommand("help", "Show the help of probity or of a command");
  hc->add_option("command", help_topics, "A command and its subcommand, e.g. score, meta global");
  std::string completion_shell;
  auto* compc = app.add_subcommand(
      "completion",
      "Print a shell completion script: bash (source it, or install it as "
      "share/bash-completion/completions/probity) or zsh (as _probity on $fpath)");
  compc->add_option("shell", completion_shell, "bash or zsh")
      ->required()
      ->check(CLI::IsMember({"bash", "zsh"}));
  // Hidden: the man page, built from these option tables at build time (probity.1).
  auto* manc = app.add_subcommand("man", "Print the man page (roff)")->group("");
  try {
    require_bounds(app);
  } catch (const std::logic_error& e) {
    fmt::print(stderr, "probity: internal error: {}\n", e.what());
    return kExitFailure;
  }
  const auto error_prefix = [&] {
    return cli::detect_console(no_color, 0).color_stderr ? std::string("\033[1;31mprobity:\033[0m")
                                                         : std::string("probity:");
  };
  if (argc <= 1) {
    // Bare `probity`: the help, on stderr as no command ran, and the usage exit code.
    fmt::print(stderr, "{}", app.help());
    return kExitUsage;
  }
  try {
    app.parse(argc, argv);
  } catch (const CLI::ParseError& e) {
    if (e.get_exit_code() != static_cast<int>(CLI::ExitCodes::Success)) {
      if (const std::string message = unknown_word_message(app); !message.empty()) {
        fmt::print(stderr, "{} {}\n", error_prefix(), message);
        return kExitUsage;
      }
      CLI::App* cmd = deepest_command(&app);
      if (cmd->get_require_subcommand_min() > 0 && cmd->get_subcommands().empty()) {
        // `probity -q` or `probity meta`: that command's help, then what is missing.
        fmt::print(stderr, "{}\n{} `{}` needs a command: one of {}\n", cmd->help(), error_prefix(),
                   command_path(cmd), fmt::join(subcommand_names(cmd), ", "));
        return kExitUsage;
      }
    }
    int code = app.exit(e);  // help and version texts too
    try {
      util::check_stdout();
    } catch (const OutputError& out) {
      fmt::print(stderr, "probity: {}\n", out.what());
      return kExitOutput;
    }
    return code == 0 ? kExitOk : kExitUsage;
  }

  const cli::Console console = cli::detect_console(no_color, verbose ? 1 : quiet ? -1 : 0);
  score_view.console = console;
  audit_view.console = console;

  // The LLM session of the command that runs, if any: whether a failed endpoint left its answers
  // in a cache decides what the error message suggests.
  std::shared_ptr<llm::Session> llm_session;
  const auto engine_for = [&llm_session](const cli::LlmFlags& flags) {
    auto engine = cli::make_engine(flags);
    llm_session = engine->llm_or_null();
    return engine;
  };
  // Every command's tables go to stdout: a full disk or a closed pipe there is an error too.
  const auto dispatch = [&]() -> int {
    if (hc->parsed()) return print_help(app, help_topics);
    if (compc->parsed()) {
      const auto doc = describe_command(&app);
      fmt::print("{}",
                 completion_shell == "bash" ? cli::bash_completion(doc) : cli::zsh_completion(doc));
      return kExitOk;
    }
    if (manc->parsed()) {
      fmt::print("{}", cli::man_page(describe_command(&app), version()));
      return kExitOk;
    }
    if (!score_shard.empty()) cli::parse_shard(score_shard, score.shard_index, score.shard_count);
    if (!audit_shard.empty()) cli::parse_shard(audit_shard, audit.shard_index, audit.shard_count);
    if (gc->parsed()) return cli::run_merge(merge);
    if (pc->parsed()) {
      for (auto* list : {&pert.degradations, &pert.manipulations})
        if (list->size() == 1 && list->front() == "none") list->clear();
      auto engine = engine_for(perturb_llm);
      const auto session = engine->llm_or_null();
      if (perturb_llm.perturber == "llm")
        cli::use_llm_perturber(*engine, pert.degradations, pert.manipulations);
      const int code = cli::run_reporting_llm_usage(
          session, "", [&] { return cli::run_perturb(pert, *engine); });
      return cli::with_llm_failures(code, session, perturb_llm);
    }
    if (sc->parsed()) {
      auto engine = engine_for(score_llm);
      const auto session = engine->llm_or_null();
      const int code = cli::run_reporting_llm_usage(
          session, "", [&] { return cli::run_score(score, score_view, *engine); });
      return cli::with_llm_failures(code, session, score_llm);
    }
    if (cc->parsed()) return cli::run_correlate(corr);
    if (rc->parsed()) return cli::run_rank(rank);
    if (sigc->parsed()) {
      auto engine = engine_for(cli::LlmFlags{});
      return cli::run_significance(sig, *engine);
    }
    if (mc->parsed()) {
      if (cmp.metrics.size() != 2) throw UsageError("compare needs exactly two --metric options");
      return cli::run_compare(cmp);
    }
    if (lc->parsed()) return cli::run_metrics(metrics_json);
    if (selc->parsed()) {
      auto engine = engine_for(select_llm);
      const auto session = engine->llm_or_null();
      const int code =
          cli::run_reporting_llm_usage(session, "", [&] { return cli::run_select(sel, *engine); });
      return cli::with_llm_failures(code, session, select_llm);
    }
    if (atc->parsed()) {
      auto engine = engine_for(attack_llm);
      const auto session = engine->llm_or_null();
      const int code =
          cli::run_reporting_llm_usage(session, "", [&] { return cli::run_attack(atk, *engine); });
      return cli::with_llm_failures(code, session, attack_llm);
    }
    if (mg->parsed()) return cli::run_meta_global(mglobal);
    if (ml->parsed()) return cli::run_meta_local(mlocal);
    if (bc->parsed()) {
      auto engine = engine_for(bench_llm);
      const auto session = engine->llm_or_null();
      const int code = cli::run_reporting_llm_usage(
          session, "", [&] { return cli::run_bench_build(bench, *engine); });
      return cli::with_llm_failures(code, session, bench_llm);
    }
    if (ac->parsed()) {
      if (!audit.suite.empty() && audit_llm.perturber == "llm")
        throw UsageError("--suite chooses the realisations: give it without --perturber llm");
      auto engine = engine_for(audit_llm);
      const auto session = engine->llm_or_null();
      if (audit_llm.perturber == "llm")
        cli::use_llm_perturber(*engine, audit.degradations, audit.manipulations);
      const int code =
          cli::run_reporting_llm_usage(session, audit.out_dir + "/llm_usage.json",
                                       [&] { return cli::run_audit(audit, audit_view, *engine); });
      return cli::with_llm_failures(code, session, audit_llm);
    }
    return static_cast<int>(kExitUsage);
  };
  try {
    const int code = dispatch();
    util::check_stdout();
    return code;
  } catch (const InputError& e) {
    fmt::print(stderr, "{} invalid input: {}\n", error_prefix(), e.what());
    return kExitInvalidInput;
  } catch (const OutputError& e) {
    fmt::print(stderr, "{} {}\n", error_prefix(), e.what());
    return kExitOutput;
  } catch (const llm::EndpointDown& e) {
    fmt::print(stderr, "{} {}\n", error_prefix(), e.what());
    // Only a cache that is written keeps the answers for a rerun.
    if (llm_session && llm_session->cache() != nullptr &&
        llm_session->config().cache_mode != llm::CacheMode::kReadOnly)
      fmt::print(stderr,
                 "The answers received so far are in the LLM cache (--cache): the same command "
                 "resumes once the endpoint works.\n");
    return kExitLlmFailures;
  } catch (const UsageError& e) {
    fmt::print(stderr, "{} {}\n", error_prefix(), e.what());
    return kExitUsage;
  } catch (const std::system_error& e) {
    // fmt::print to a full or closed standard output.
    if (std::string_view(e.what()).starts_with("cannot write to file")) {
      fmt::print(stderr, "{} cannot write to standard output: {}\n", error_prefix(),
                 e.code().message());
      return kExitOutput;
    }
    fmt::print(stderr, "{} error: {}\n", error_prefix(), e.what());
    return kExitFailure;
  } catch (const std::exception& e) {
    fmt::print(stderr, "{} error: {}\n", error_prefix(), e.what());
    return kExitFailure;
  }
}
