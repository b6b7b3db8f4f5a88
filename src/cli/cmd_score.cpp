// `probity score`: per-candidate scores as JSONL plus a corpus-level summary on stderr.
#include <fmt/format.h>

#include <algorithm>
#include <iostream>
#include <nlohmann/json.hpp>
#include <optional>

#include "cli/commands.hpp"
#include "cli/output.hpp"
#include "cli/progress.hpp"
#include "probity/audit.hpp"
#include "probity/engine.hpp"
#include "probity/error.hpp"
#include "probity/scores.hpp"
#include "probity/scoring.hpp"
#include "util/output_file.hpp"

namespace probity::cli {
namespace {

// Tasks per chunk when streaming: bounds memory for large files.
constexpr std::size_t kChunkTasks = 512;

}  // namespace

int run_score(const ScoreArgs& args, Engine& engine) {
  for (const auto& path : args.data)
    for (const auto& [flag, target] : {std::pair{"--out", &args.out}, {"--explain", &args.explain}})
      if (!target->empty() && util::same_file(*target, path))
        throw UsageError(
            fmt::format("{} '{}' is also an input (--data): writing it would destroy "
                        "the data; write to another file",
                        flag, *target));
  std::vector<MetricSelection> metrics;
  for (const auto& m : args.metrics) metrics.push_back(select_metric(m, engine));

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
  bool needs_whole = false;
  for (const auto& m : metrics)
    needs_whole |= m.metric->needs_fit() || m.metric->negatives().count > 0;

  std::size_t skipped = 0;
  std::vector<SkipRecord> skip_records;
  Progress progress("scoring");
  EmptyTextNotes empty_notes;
  auto score_chunk = [&](const Dataset& chunk) {
    empty_notes.add(chunk);
    // With --shard, only this shard's tasks are scored; fitting still sees the whole chunk, so
    // every shard computes exactly the numbers of an unsharded run.
    std::vector<ItemRef> items;
    for (const auto& it : all_items(chunk))
      if (in_shard(chunk.tasks[it.task].task_id, args.shard_index, args.shard_count))
        items.push_back(it);
    ScoreOptions opts;
    opts.threads = args.threads;
    opts.progress = [&](std::size_t done, std::size_t total) { progress.update(done, total); };
    auto stats = compute_stats(chunk, items, metrics, opts);
    trailer.records += write_score_records(out, chunk, items, metrics, stats);
    file->check();  // a full disk stops the run now, not at the end
    if (!args.explain.empty()) {
      const NegativeSampler sampler(chunk);
      MetricInput input;
      for (std::size_t i = 0; i < items.size(); ++i) {
        const Task& task = chunk.tasks[items[i].task];
        set_input(input, task, task.candidates[items[i].candidate].text);
        for (std::size_t m = 0; m < metrics.size(); ++m) {
          if (!explains[m]) continue;
          input.negatives = sampler.for_metric(items[i].task, *metrics[m].metric);
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
  };

  for (const auto& path : args.data) {
    ReadOptions ro{args.skip_invalid};
    ItemsDigest digest;
    if (needs_whole || path.ends_with(".csv")) {
      Dataset ds = load_dataset(path, ro);
      skip_records.insert(skip_records.end(), ds.skipped.begin(), ds.skipped.end());
      for (const auto& t : ds.tasks) digest.add(t);
      score_chunk(ds);
    } else {
      TaskReader reader(path, ro);
      Dataset chunk;
      chunk.path = path;
      Task task;
      while (reader.next(task)) {
        digest.add(task);
        chunk.tasks.push_back(std::move(task));
        if (chunk.tasks.size() == kChunkTasks) {
          score_chunk(chunk);
          chunk.tasks.clear();
        }
      }
      if (!chunk.tasks.empty()) score_chunk(chunk);
      skip_records.insert(skip_records.end(), reader.skipped().begin(), reader.skipped().end());
    }
    trailer.data.push_back({path, digest.hex(), digest.items()});
  }
  progress.finish();
  skipped = skip_records.size();
  print_skipped(skip_records);
  empty_notes.print();
  std::size_t scored = 0;
  for (const auto& c : corpus) scored = std::max(scored, c.count());
  if (scored == 0)
    throw InputError(args.data.front(), 0, "",
                     skipped > 0 ? fmt::format("no valid items: all {} were skipped", skipped)
                                 : std::string("no valid items: the input holds no candidates"));
  write_scores_trailer(out, trailer);
  file->commit();
  if (explain_output) {
    explain_output->commit();
    if (explained == 0)
      fmt::print(stderr, "note: none of the metrics supports --explain; '{}' is empty\n",
                 args.explain);
  }

  // Corpus-level summary: where the records go to a file, the table goes to stdout.
  std::FILE* summary = args.out.empty() ? stderr : stdout;
  for (std::size_t m = 0; m < metrics.size(); ++m) {
    const std::vector<double> parts = corpus[m].score();
    for (std::size_t p : metrics[m].parts)
      fmt::print(summary, "{:<24} corpus {:>10.4f}  n={}  {}\n", metrics[m].record_name(p),
                 parts[p], corpus[m].count(), metrics[m].metric->signature());
  }
  return kExitOk;
}

}  // namespace probity::cli
