// `probity score`: per-candidate scores as JSONL plus a corpus-level summary on stderr.
#include <fmt/format.h>

#include <algorithm>
#include <chrono>
#include <exception>
#include <filesystem>
#include <iostream>
#include <nlohmann/json.hpp>
#include <optional>
#include <span>

#include "cli/commands.hpp"
#include "cli/output.hpp"
#include "cli/progress.hpp"
#include "cli/rouge_notes.hpp"
#include "metrics/corpus_signature.hpp"
#include "probity/audit.hpp"
#include "probity/engine.hpp"
#include "probity/error.hpp"
#include "probity/inputs.hpp"
#include "probity/scores.hpp"
#include "probity/scoring.hpp"
#include "probity/stats.hpp"
#include "util/output_file.hpp"

namespace probity::cli {
namespace {

// A chunk when streaming holds up to 512 tasks and 2048 candidates, which bounds memory for
// large files (SummEval's tasks of 16 candidates, ratings and a long source: 128 tasks, ~3 MB).
constexpr std::size_t kChunkTasks = 512;
constexpr std::size_t kChunkCandidates = 2048;

// Adds a task to a chunk; true when the chunk is full.
bool add_to_chunk(Dataset& chunk, Task&& task, std::size_t& candidates) {
  candidates = (chunk.tasks.empty() ? 0 : candidates) + task.candidates.size();
  chunk.tasks.push_back(std::move(task));
  return chunk.tasks.size() == kChunkTasks || candidates >= kChunkCandidates;
}

// Only a regular file can be read again: a pipe or a terminal is read once, and loaded whole.
bool rereadable(const std::string& path) {
  std::error_code ec;
  return std::filesystem::is_regular_file(path, ec);
}

// Fits the metrics that need the whole file in passes over it, chunk by chunk
// (Metric::fit_passes), and gives `sampler` every task, so that scoring can read the file in
// chunks too. Fails as a loaded file would: on the first invalid line, on a file without tasks,
// and on the first task of the shard without the references a metric needs (before any fit).
void fit_in_passes(const std::string& path, ReadOptions options, const ScoreArgs& args,
                   std::span<MetricSelection> metrics, NegativeSampler& sampler) {
  std::size_t passes = 1;  // pass 0 reads every task for the sampler and the checks
  for (auto& m : metrics) {
    if (!m.metric->needs_fit()) continue;
    m.metric->begin_fit();
    passes = std::max(passes, m.metric->fit_passes().value_or(0));
  }
  auto fits = [](const MetricSelection& m, std::size_t pass) {
    return m.metric->needs_fit() && pass < m.metric->fit_passes().value_or(0);
  };
  for (std::size_t pass = 0; pass < passes; ++pass) {
    TaskReader reader(path, options);
    Dataset chunk;
    chunk.path = path;
    std::size_t tasks = 0;
    std::exception_ptr missing_references;
    auto fit_chunk = [&] {
      if (pass == 0) {
        for (const auto& t : chunk.tasks) sampler.add(t);
        std::vector<ItemRef> items;
        for (const auto& it : all_items(chunk))
          if (in_shard(chunk.tasks[it.task].task_id, args.shard_index, args.shard_count))
            items.push_back(it);
        try {
          if (!missing_references)
            for (const auto& m : metrics) require_references(chunk, items, m);
        } catch (const InputError&) {
          missing_references = std::current_exception();
        }
      }
      if (!missing_references)
        for (auto& m : metrics)
          if (fits(m, pass)) m.metric->fit_chunk(pass, chunk.tasks);
      chunk.tasks.clear();
    };
    Task task;
    std::size_t candidates = 0;
    while (reader.next(task)) {
      ++tasks;
      if (add_to_chunk(chunk, std::move(task), candidates)) fit_chunk();
    }
    if (!chunk.tasks.empty()) fit_chunk();
    if (pass == 0 && tasks == 0) throw InputError(path, 0, "", "no valid tasks in file");
    if (missing_references) std::rethrow_exception(missing_references);
    for (auto& m : metrics)
      if (fits(m, pass)) m.metric->end_fit_pass(pass);
  }
}

}  // namespace

int run_score(const ScoreArgs& args, Engine& engine) {
  const std::vector<util::PlannedOutput> outputs = {{args.out, "--out", {}},
                                                    {args.explain, "--explain", {}}};
  util::refuse_overwriting_inputs(command_inputs(args.data, args.metrics, &engine), outputs);
  std::vector<MetricSelection> metrics;
  for (const auto& m : args.metrics) metrics.push_back(select_metric(m, engine));
  check_distinct_names(metrics);

  // Records go to a temporary file that replaces --out only once everything is written.
  std::optional<util::OutputFile> file;
  file.emplace(args.out.empty() ? "-" : args.out);  // "-": standard output, writes checked
  std::ostream& out = file->stream();

  // --explain: per-item explanations of metrics that offer them (Metric::explain).
  std::optional<util::OutputFile> explain_output;
  if (!args.explain.empty()) explain_output.emplace(args.explain);
  std::ostream* explain_file = explain_output ? &explain_output->stream() : nullptr;
  ScoresTrailer trailer;
  trailer.shard_index = args.shard_index;
  trailer.shard_count = args.shard_count;
  for (const auto& m : metrics)
    for (std::size_t p : m.parts)
      trailer.metrics.emplace_back(m.record_name(p), m.metric->signature());
  std::vector<bool> explains(metrics.size(), true);
  std::size_t explained = 0;

  std::vector<CorpusAccumulator> corpus;
  for (const auto& m : metrics) corpus.emplace_back(*m.metric);
  // --aggregate bootstrap: the ROUGE metrics and their items' P, R, F (rows of 3).
  const bool bootstrap = args.aggregate == "bootstrap";
  std::vector<std::size_t> rouge;
  std::vector<std::vector<double>> rouge_scores;
  if (bootstrap) {
    if (args.shard_count > 1)
      throw UsageError("--aggregate bootstrap resamples all items: not with --shard");
    for (std::size_t m = 0; m < metrics.size(); ++m)
      if (metrics[m].parsed.base().starts_with("rouge") &&
          metrics[m].metric->parts() == std::vector<std::string>{"p", "r", "f"})
        rouge.push_back(m);
    if (rouge.empty())
      throw UsageError(
          "--aggregate bootstrap is rouge-score's aggregation: give a ROUGE metric "
          "(rouge1, rouge2, rougeL, rougeLsum, ...)");
    rouge_scores.resize(rouge.size());
  }
  // Metrics that need the whole file first (fitted on it, or drawing negatives from all its
  // tasks) read it in passes before scoring; one that can only fit on a loaded dataset
  // (Metric::fit_passes) makes the file load whole.
  bool fits_whole_file = false, needs_loading = false;
  for (const auto& m : metrics) {
    fits_whole_file |= m.metric->needs_fit() || m.metric->negatives().count > 0;
    needs_loading |= !m.metric->fit_passes().has_value();
  }

  std::size_t skipped = 0;
  std::vector<SkipRecord> skip_records;
  const auto started = std::chrono::steady_clock::now();
  Progress progress("scoring");
  EmptyTextNotes empty_notes;
  RougeLetterNotes rouge_notes([&] {
    std::vector<std::string> names;  // ROUGE with rouge-score's ASCII-only tokenizer
    for (const auto& m : metrics) {
      const std::string sig = m.metric->signature();
      if (sig.starts_with("rouge") && sig.find("|tok:default|") != std::string::npos)
        names.push_back(m.metric->name());
    }
    return names;
  }());
  // Scores one chunk of a file, its tasks numbered from first_task in `negatives`, a sampler
  // over the whole file whose metrics are fitted already. Null: compute_stats fits the metrics
  // on the chunk and draws negatives from it (a loaded file, or metrics that need nothing of
  // the whole file).
  std::size_t items_before = 0;       // items scored in earlier chunks and files
  std::size_t items_before_file = 0;  // items scored in earlier files
  double stream_share = 0;            // share of the streamed file's bytes read; 0: loaded whole
  auto score_chunk = [&](const Dataset& chunk, std::size_t first_task,
                         const NegativeSampler* negatives) {
    empty_notes.add(chunk);
    rouge_notes.add(chunk);
    // With --shard, only this shard's tasks are scored; fitting still sees the whole file, so
    // every shard computes exactly the numbers of an unsharded run.
    std::vector<ItemRef> items;
    for (const auto& it : all_items(chunk))
      if (in_shard(chunk.tasks[it.task].task_id, args.shard_index, args.shard_count))
        items.push_back(it);
    ScoreOptions opts;
    opts.threads = args.threads;
    // One progress line for the whole run: items of earlier chunks and files count as done, and
    // the total of a streamed file is extrapolated from the share of its bytes read so far.
    if (!args.console.quiet())
      opts.progress = [&](std::size_t done, std::size_t total) {
        const std::size_t so_far = items_before + total;
        std::size_t expected = so_far;
        if (stream_share > 0 && stream_share < 1)
          expected = items_before_file +
                     static_cast<std::size_t>(std::min(
                         1e15, static_cast<double>(so_far - items_before_file) / stream_share));
        progress.update(items_before + done, std::max(expected, so_far));
      };
    opts.negatives = negatives;
    opts.first_task = first_task;
    if (negatives) {
      // Fitted on the whole file already; the others are prepared on the chunk as
      // compute_stats would.
      opts.fit = false;
      for (const auto& m : metrics) require_references(chunk, items, m);
      for (auto& m : metrics)
        if (!m.metric->needs_fit()) m.metric->fit(chunk.tasks);
    }
    auto stats = compute_stats(chunk, items, metrics, opts);
    items_before += items.size();
    trailer.records += write_score_records(out, chunk, items, metrics, stats);
    file->check();  // a full disk stops the run now, not at the end
    if (!args.explain.empty()) {
      std::optional<NegativeSampler> own;
      const NegativeSampler& sampler = negatives ? *negatives : own.emplace(chunk);
      MetricInput input;
      for (std::size_t i = 0; i < items.size(); ++i) {
        const Task& task = chunk.tasks[items[i].task];
        set_input(input, task, task.candidates[items[i].candidate].text);
        for (std::size_t m = 0; m < metrics.size(); ++m) {
          if (!explains[m]) continue;
          input.negatives = sampler.for_metric(first_task + items[i].task, *metrics[m].metric);
          const std::string text = metrics[m].metric->explain(input);
          // A metric without explanations says so on its first item; skip it afterwards.
          if (text.empty()) {
            explains[m] = false;
            continue;
          }
          nlohmann::ordered_json rec = {{"task_id", task.task_id},
                                        {"candidate_id", task.candidates[items[i].candidate].id},
                                        {"metric", metrics[m].primary_name()},
                                        {"explain", nlohmann::ordered_json::parse(text)}};
          *explain_file << rec.dump() << '\n';
          ++explained;
        }
      }
    }
    for (std::size_t m = 0; m < metrics.size(); ++m)
      for (std::size_t i = 0; i < items.size(); ++i) corpus[m].add(stats[m].row(i));
    std::vector<double> parts(3);
    for (std::size_t r = 0; r < rouge.size(); ++r)
      for (std::size_t i = 0; i < items.size(); ++i) {
        metrics[rouge[r]].metric->sentence_score(stats[rouge[r]].row(i), parts);
        rouge_scores[r].insert(rouge_scores[r].end(), parts.begin(), parts.end());
      }
  };

  for (const auto& input : args.data) {
    const std::string& path = input.name();
    items_before_file = items_before;
    stream_share = 0;
    ReadOptions ro{args.skip_invalid};
    ItemsDigest digest;
    // Anything but a task-format JSONL file (CSV, mapped rows, plain text, standard input) loads
    // whole; so does data that cannot be read twice (a pipe) when the file is needed whole.
    if (!input.streams_as_task_jsonl() ||
        (fits_whole_file && (needs_loading || !rereadable(path)))) {
      Dataset ds = input.load(ro);
      skip_records.insert(skip_records.end(), ds.skipped.begin(), ds.skipped.end());
      for (const auto& t : ds.tasks) digest.add(t);
      score_chunk(ds, 0, nullptr);
    } else {
      // Each file is fitted on by itself, as a loaded one would be.
      std::optional<NegativeSampler> sampler;
      if (fits_whole_file) fit_in_passes(path, ro, args, metrics, sampler.emplace(metrics));
      TaskReader reader(path, ro);
      Dataset chunk;
      chunk.path = path;
      std::size_t first_task = 0;
      std::error_code size_error;
      const auto file_bytes = std::filesystem::file_size(path, size_error);
      auto score = [&] {
        if (!size_error && file_bytes > 0)
          stream_share = static_cast<double>(reader.bytes_read()) / static_cast<double>(file_bytes);
        if (sampler && first_task + chunk.tasks.size() > sampler->size())
          throw InputError(path, 0, "", "the file changed while it was read");
        score_chunk(chunk, first_task, sampler ? &*sampler : nullptr);
        first_task += chunk.tasks.size();
        chunk.tasks.clear();
      };
      Task task;
      std::size_t candidates = 0;
      while (reader.next(task)) {
        digest.add(task);
        if (add_to_chunk(chunk, std::move(task), candidates)) score();
      }
      if (!chunk.tasks.empty()) score();
      if (sampler && first_task != sampler->size())
        throw InputError(path, 0, "", "the file changed while it was read");
      skip_records.insert(skip_records.end(), reader.skipped().begin(), reader.skipped().end());
    }
    trailer.data.push_back({path, digest.hex(), digest.items()});
  }
  progress.finish();
  if (args.console.verbose())
    fmt::print(stderr, "scored {} metric(s) in {:.1f} s\n", metrics.size(),
               std::chrono::duration<double>(std::chrono::steady_clock::now() - started).count());
  skipped = skip_records.size();
  print_skipped(skip_records);
  empty_notes.print();
  rouge_notes.print();
  std::size_t scored = 0;
  for (const auto& c : corpus) scored = std::max(scored, c.count());
  if (scored == 0)
    throw InputError(args.data.front().name(), 0, "",
                     skipped > 0 ? fmt::format("no valid items: all {} were skipped", skipped)
                                 : std::string("no valid items: the input holds no candidates"));
  write_scores_trailer(out, trailer);
  file->commit();
  if (explain_output) {
    explain_output->commit();
    if (explained == 0 && !args.console.quiet())
      fmt::print(stderr, "note: none of the metrics supports --explain; '{}' is empty\n",
                 args.explain);
  }

  // Corpus-level summary: where the records go to a file, the table goes to stdout.
  std::FILE* summary = args.out.empty() ? stderr : stdout;
  for (std::size_t m = 0; m < metrics.size(); ++m) {
    const std::vector<double> parts = corpus[m].score();
    for (std::size_t p : metrics[m].parts)
      fmt::print(summary, "{:<24} corpus {:>10.4f}  n={}  {}\n", metrics[m].record_name(p),
                 parts[p], corpus[m].count(), metrics::corpus_signature_of(*metrics[m].metric));
  }
  if (bootstrap) {
    // One NumPy stream through the ROUGE metrics in the order given, as rouge-score's
    // aggregator goes through its score types.
    bool undefined = false;
    for (const auto& r : rouge_scores)
      undefined |= std::any_of(r.begin(), r.end(), [](double v) { return std::isnan(v); });
    if (undefined)
      throw InputError(args.data.front().name(), 0, "",
                       "--aggregate bootstrap: an item's ROUGE score is undefined");
    const auto bounds = stats::rouge_bootstrap_aggregate(
        rouge_scores, 3, args.bootstrap_samples, args.bootstrap_confidence,
        static_cast<std::uint32_t>(args.bootstrap_seed));
    for (std::size_t r = 0; r < rouge.size(); ++r) {
      const MetricSelection& sel = metrics[rouge[r]];
      for (std::size_t p : sel.parts)
        fmt::print(summary,
                   "{:<24} bootstrap low {:.4f} mid {:.4f} high {:.4f}  n={} "
                   "samples={} confidence={} seed={}\n",
                   sel.record_name(p), bounds[r].low[p], bounds[r].mid[p], bounds[r].high[p],
                   rouge_scores[r].size() / 3, args.bootstrap_samples, args.bootstrap_confidence,
                   args.bootstrap_seed);
    }
  }
  return kExitOk;
}

}  // namespace probity::cli
