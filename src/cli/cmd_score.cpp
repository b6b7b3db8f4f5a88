// `probity score`: runs the library's ScoreRequest (probity/score_run.hpp), writing per-candidate
// score records as JSONL and the corpus table: per system when the data has several, and pooled.
#include <fmt/format.h>

#include <algorithm>
#include <chrono>
#include <iostream>
#include <nlohmann/json.hpp>
#include <optional>
#include <span>

#include "cli/command.hpp"
#include "cli/flags.hpp"
#include "cli/llm_context.hpp"
#include "cli/output.hpp"
#include "cli/progress.hpp"
#include "cli/rouge_notes.hpp"
#include "probity/engine.hpp"
#include "probity/error.hpp"
#include "probity/score_run.hpp"
#include "probity/scores.hpp"
#include "probity/scoring.hpp"
#include "util/output_file.hpp"

namespace probity::cli {
namespace {

// Where `probity score` writes what the library's ScoreRequest computes.
struct ScoreView {
  std::string out;          // records; empty: stdout (none with score_only)
  std::string explain;      // JSONL of per-item explanations from metrics that support them
  bool score_only = false;  // -b: only the corpus scores, one per line, on stdout
  Console console;          // -q: no progress bar and no notes; -v: the time taken
};
namespace {

// The ROUGE metrics that tokenize as rouge-score's default tokenizer (ASCII letters only).
std::vector<std::string> ascii_only(std::span<const MetricSelection> metrics) {
  std::vector<std::string> names;
  for (const auto& m : metrics)
    if (m.metric->has(MetricCapability::kAsciiOnlyTokens)) names.push_back(m.metric->name());
  return names;
}

// Writes the records of each chunk (unless only the scores are wanted), the --explain lines,
// and collects the notes on empty texts and on letters dropped by rouge-score's tokenizer.
class RecordWriter final : public ScoreSink {
 public:
  RecordWriter(const ScoreView& view, std::ostream* records, util::OutputFile* file,
               std::ostream* explain)
      : view_(view), records_(records), file_(file), explain_(explain), progress_("scoring") {}

  void begin(std::span<const MetricSelection> metrics) override {
    rouge_notes_.emplace(ascii_only(metrics));
    explains_.assign(metrics.size(), true);
    // The end record names each metric as it was made, before any fitting (a fitted metric's
    // records name what it was fitted on).
    for (const auto& m : metrics)
      for (std::size_t p : m.parts)
        trailer_metrics_.emplace_back(m.record_name(p), m.metric->signature());
  }
  void read(const Dataset& tasks) override {
    empty_notes_.add(tasks);
    rouge_notes_->add(tasks);
  }
  void scored(const ScoredChunk& chunk) override {
    if (records_) {
      records_written_ +=
          write_score_records(*records_, chunk.tasks, chunk.items, chunk.metrics, chunk.stats);
      file_->check();  // a full disk stops the run now, not at the end
    }
    if (explain_) write_explanations(chunk);
  }
  bool wants_progress() const override { return !view_.console.quiet(); }
  void progress(std::size_t done, std::size_t expected) override {
    progress_.update(done, expected);
  }

  void finish() { progress_.finish(); }
  void print_notes() const {
    empty_notes_.print();
    rouge_notes_->print();
  }
  std::size_t records() const { return records_written_; }
  const std::vector<std::pair<std::string, std::string>>& trailer_metrics() const {
    return trailer_metrics_;
  }
  std::size_t explained() const { return explained_; }

 private:
  // Metric::explain of every item, for the metrics that offer it.
  void write_explanations(const ScoredChunk& chunk) {
    std::optional<NegativeSampler> own;
    const NegativeSampler& sampler = chunk.negatives ? *chunk.negatives : own.emplace(chunk.tasks);
    MetricInput input;
    for (const auto& item : chunk.items) {
      const Task& task = chunk.tasks.tasks[item.task];
      set_input(input, task, task.candidates[item.candidate].text);
      for (std::size_t m = 0; m < chunk.metrics.size(); ++m) {
        if (!explains_[m]) continue;
        const Metric& metric = *chunk.metrics[m].metric;
        input.negatives = sampler.for_metric(chunk.first_task + item.task, metric);
        const std::string text = metric.explain(input);
        // A metric without explanations says so on its first item; skip it afterwards.
        if (text.empty()) {
          explains_[m] = false;
          continue;
        }
        nlohmann::ordered_json rec = {{"task_id", task.task_id},
                                      {"candidate_id", task.candidates[item.candidate].id},
                                      {"metric", chunk.metrics[m].primary_name()},
                                      {"explain", nlohmann::ordered_json::parse(text)}};
        *explain_ << rec.dump() << '\n';
        ++explained_;
      }
    }
  }

  const ScoreView& view_;
  std::ostream* records_;
  util::OutputFile* file_;
  std::ostream* explain_;
  Progress progress_;
  EmptyTextNotes empty_notes_;
  std::optional<RougeLetterNotes> rouge_notes_;
  std::vector<bool> explains_;
  std::vector<std::pair<std::string, std::string>> trailer_metrics_;
  std::size_t records_written_ = 0, explained_ = 0;
};

// The name of a system in the corpus table.
std::string system_label(const CorpusGroup& group) {
  return group.system.empty() ? "(no system)" : group.system;
}

// The corpus table: per selected part of each metric, a row per system (when the data has
// several) and the pooled row, which says it is pooled. With score_only, the scores alone: one
// per system, or the pooled one for data without systems.
void print_corpus(std::FILE* to, const ScoreRun& run, bool score_only) {
  const bool by_system = !run.systems.empty();
  const std::string pooled = fmt::format("(pooled: {} systems)", run.systems.size());
  std::size_t width = pooled.size();
  for (const auto& g : run.systems) width = std::max(width, system_label(g).size());
  for (std::size_t m = 0; m < run.metrics.size(); ++m) {
    const MetricSelection& sel = run.metrics[m];
    std::vector<std::vector<double>> scores;  // per system, then pooled
    for (const auto& g : run.systems) scores.push_back(g.metrics[m].score());
    scores.push_back(run.pooled.metrics[m].score());
    for (std::size_t p : sel.parts) {
      auto row = [&](const CorpusGroup& group, std::size_t g, const std::string& label) {
        if (score_only) return fmt::print(to, "{:.4f}\n", scores[g][p]);
        const CorpusAccumulator& acc = group.metrics[m];
        const std::string breakdown = acc.breakdown();
        const std::string system = by_system ? fmt::format("{:<{}} ", label, width) : "";
        fmt::print(to, "{:<24} {}corpus {:>10.4f}  n={}  {}{}{}\n", sel.record_name(p), system,
                   scores[g][p], acc.count(), corpus_signature(run, group, m),
                   breakdown.empty() ? "" : "  ", breakdown);
      };
      for (std::size_t g = 0; g < run.systems.size(); ++g)
        row(run.systems[g], g, system_label(run.systems[g]));
      // -b prints what sacreBLEU -b prints: one score per system (the pooled one only when the
      // data has no systems), so that no unlabelled pooled line follows the systems'.
      if (!(score_only && by_system)) row(run.pooled, run.systems.size(), pooled);
    }
  }
}

void print_bootstrap(std::FILE* to, const ScoreRun& run, const ScoreRequest& request) {
  const auto bounds = rouge_bootstrap(run, request);
  for (std::size_t r = 0; r < run.rouge.size(); ++r) {
    const MetricSelection& sel = run.metrics[run.rouge[r]];
    for (std::size_t p : sel.parts)
      fmt::print(to,
                 "{:<24} bootstrap low {:.4f} mid {:.4f} high {:.4f}  n={} "
                 "samples={} confidence={} seed={}\n",
                 sel.record_name(p), bounds[r].low[p], bounds[r].mid[p], bounds[r].high[p],
                 run.rouge_scores[r].size() / 3, request.bootstrap_samples,
                 request.bootstrap_confidence, request.bootstrap_seed);
  }
}

}  // namespace

int run_score(const ScoreRequest& request, const ScoreView& view, Engine& engine) {
  const std::vector<util::PlannedOutput> outputs = {{view.out, "--out", {}},
                                                    {view.explain, "--explain", {}}};
  util::refuse_overwriting_inputs(command_inputs(request.data, request.metrics, &engine), outputs);

  // Records go to a temporary file that replaces --out only once everything is written; with
  // -b and no --out, nowhere.
  std::optional<util::OutputFile> file;
  if (!view.score_only || !view.out.empty())
    file.emplace(view.out.empty() ? "-" : view.out);  // "-": standard output, writes checked
  std::optional<util::OutputFile> explain_output;
  if (!view.explain.empty()) explain_output.emplace(view.explain);

  RecordWriter writer(view, file ? &file->stream() : nullptr, file ? &*file : nullptr,
                      explain_output ? &explain_output->stream() : nullptr);
  const auto started = std::chrono::steady_clock::now();
  const ScoreRun run = run_score(request, engine, writer);
  writer.finish();
  if (view.console.verbose())
    fmt::print(stderr, "scored {} metric(s) in {:.1f} s\n", run.metrics.size(),
               std::chrono::duration<double>(std::chrono::steady_clock::now() - started).count());
  print_skipped(run.skipped);
  writer.print_notes();
  require_scored(run, request);
  if (file) {
    ScoresTrailer trailer;
    trailer.shard_index = request.shard_index;
    trailer.shard_count = request.shard_count;
    trailer.metrics = writer.trailer_metrics();
    trailer.records = writer.records();
    trailer.data = run.data;
    write_scores_trailer(file->stream(), trailer);
    file->commit();
  }
  if (explain_output) {
    explain_output->commit();
    if (writer.explained() == 0 && !view.console.quiet())
      fmt::print(stderr, "note: none of the metrics supports --explain; '{}' is empty\n",
                 view.explain);
  }

  // The corpus table goes where the records do not: stdout when they go to --out (or nowhere,
  // with -b), else stderr.
  std::FILE* summary = file && view.out.empty() ? stderr : stdout;
  print_corpus(summary, run, view.score_only);
  if (request.aggregate == CorpusAggregate::kBootstrap && !view.score_only)
    print_bootstrap(summary, run, request);
  return kExitOk;
}

}  // namespace

void add_score_command(CLI::App& app, Commands& commands) {
  struct State {
    ScoreRequest request;
    ScoreView view;
    std::string shard;
    LlmFlags llm;
  };
  auto state = std::make_shared<State>();
  ScoreRequest& score = state->request;
  ScoreView& score_view = state->view;
  std::string& score_shard = state->shard;
  LlmFlags& score_llm = state->llm;
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
  add_input_options(sc, score.data);
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
  add_llm_flags(sc, score_llm);

  commands.push_back({sc, [state](RunContext& context) {
                        State& s = *state;
                        if (!s.shard.empty())
                          parse_shard(s.shard, s.request.shard_index, s.request.shard_count);
                        s.view.console = context.console;
                        return run_with_llm(s.llm, context, "", [&s](Engine& engine) {
                          return run_score(s.request, s.view, engine);
                        });
                      }});
}

}  // namespace probity::cli
