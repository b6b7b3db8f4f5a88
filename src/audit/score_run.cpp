// `probity score` as a library request (probity/score_run.hpp): chunked reading, fitting in
// passes, and the corpus scores pooled and per system.
#include "probity/score_run.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <exception>
#include <filesystem>
#include <optional>
#include <unordered_map>

#include "metrics/corpus_signature.hpp"
#include "probity/audit.hpp"
#include "probity/engine.hpp"
#include "probity/error.hpp"
#include "probity/limits.hpp"
#include "util/number_check.hpp"

namespace probity {
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

// This shard's items of a chunk.
std::vector<ItemRef> shard_items(const Dataset& chunk, const ScoreRequest& request) {
  std::vector<ItemRef> items;
  for (const auto& it : all_items(chunk))
    if (in_shard(chunk.tasks[it.task].task_id, request.shard_index, request.shard_count))
      items.push_back(it);
  return items;
}

// Fits the metrics that need the whole file in passes over it, chunk by chunk
// (Metric::fit_passes), and gives `sampler` every task, so that scoring can read the file in
// chunks too. Fails as a loaded file would: on the first invalid line, on a file without tasks,
// and on the first task of the shard without the references a metric needs (before any fit).
void fit_in_passes(const std::string& path, ReadOptions options, const ScoreRequest& request,
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
        const auto items = shard_items(chunk, request);
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

CorpusGroup make_group(std::string system, std::span<const MetricSelection> metrics) {
  CorpusGroup group;
  group.system = std::move(system);
  for (const auto& m : metrics) group.metrics.emplace_back(*m.metric);
  group.references.resize(metrics.size());
  return group;
}

// Adds a chunk's statistics to the pooled group and to each system's.
class CorpusTally {
 public:
  explicit CorpusTally(ScoreRun& run) : run_(run) {}

  void add(const Dataset& chunk, std::span<const ItemRef> items,
           std::span<const MetricStats> stats) {
    std::vector<double> parts(3);
    for (std::size_t i = 0; i < items.size(); ++i) {
      const Task& task = chunk.tasks[items[i].task];
      CorpusGroup& system = group_of(task.candidates[items[i].candidate].system);
      for (std::size_t m = 0; m < run_.metrics.size(); ++m) {
        const std::size_t used = run_.metrics[m].metric->references_used(task);
        run_.pooled.references[m].add(used);
        system.references[m].add(used);
        run_.pooled.metrics[m].add(stats[m].row(i));
        system.metrics[m].add(stats[m].row(i));
      }
    }
    for (std::size_t r = 0; r < run_.rouge.size(); ++r)
      for (std::size_t i = 0; i < items.size(); ++i) {
        run_.metrics[run_.rouge[r]].metric->sentence_score(stats[run_.rouge[r]].row(i), parts);
        run_.rouge_scores[r].insert(run_.rouge_scores[r].end(), parts.begin(), parts.end());
      }
  }

  // Only systems that differ make a table: one system is the pooled row itself.
  void finish() {
    if (run_.systems.size() < 2) run_.systems.clear();
  }

 private:
  CorpusGroup& group_of(const std::string& system) {
    auto [it, added] = index_.try_emplace(system, run_.systems.size());
    if (added) run_.systems.push_back(make_group(system, run_.metrics));
    return run_.systems[it->second];
  }

  ScoreRun& run_;
  std::unordered_map<std::string, std::size_t> index_;
};

}  // namespace

CorpusAggregate parse_corpus_aggregate(std::string_view name) {
  if (name == "mean") return CorpusAggregate::kMean;
  if (name == "bootstrap") return CorpusAggregate::kBootstrap;
  throw UsageError(fmt::format("aggregate: '{}' is not one of mean, bootstrap", name));
}

std::string_view corpus_aggregate_name(CorpusAggregate aggregate) {
  return aggregate == CorpusAggregate::kBootstrap ? "bootstrap" : "mean";
}

void check_request(const ScoreRequest& request) {
  if (request.data.empty()) throw UsageError("score: no data to score");
  if (request.metrics.empty()) throw UsageError("score: no metric given");
  if (request.shard_count == 0 || request.shard_index >= request.shard_count)
    throw UsageError(fmt::format("shard: {}/{} is not a shard I/N with 0 <= I < N",
                                 request.shard_index, request.shard_count));
  util::check_whole("threads", request.threads, {0, limits::kThreads});
  util::check_whole("bootstrap_samples", request.bootstrap_samples, {1, limits::kResamples});
  util::check_real("bootstrap_confidence", request.bootstrap_confidence, {0.0, 1.0});
  util::check_whole("bootstrap_seed", request.bootstrap_seed, {0, 4294967295});
  if (request.aggregate == CorpusAggregate::kBootstrap && request.shard_count > 1)
    throw UsageError("--aggregate bootstrap resamples all items: not with --shard");
}

void ReferenceCount::add(std::size_t references) {
  if (seen_ && references != count_) varies_ = true;
  count_ = references;
  seen_ = true;
}

std::string ReferenceCount::text() const {
  return varies_ ? std::string("var") : std::to_string(seen_ ? count_ : 0);
}

std::size_t ScoreRun::scored() const {
  std::size_t n = 0;
  for (const auto& c : pooled.metrics) n = std::max(n, c.count());
  return n;
}

ScoreRun run_score(const ScoreRequest& request, Engine& engine, ScoreSink& sink) {
  check_request(request);
  ScoreRun run;
  for (const auto& m : request.metrics) run.metrics.push_back(select_metric(m, engine));
  check_distinct_names(run.metrics);
  auto& metrics = run.metrics;
  run.pooled = make_group("", metrics);
  if (request.aggregate == CorpusAggregate::kBootstrap) {
    for (std::size_t m = 0; m < metrics.size(); ++m)
      if (metrics[m].metric->has(MetricCapability::kRougeBootstrap)) run.rouge.push_back(m);
    if (run.rouge.empty())
      throw UsageError(
          "--aggregate bootstrap is rouge-score's aggregation: give a ROUGE metric "
          "(rouge1, rouge2, rougeL, rougeLsum, ...)");
    run.rouge_scores.resize(run.rouge.size());
  }
  sink.begin(metrics);
  CorpusTally tally(run);

  // Metrics that need the whole file first (fitted on it, or drawing negatives from all its
  // tasks) read it in passes before scoring; one that can only fit on a loaded dataset
  // (Metric::fit_passes) makes the file load whole.
  bool fits_whole_file = false, needs_loading = false;
  for (const auto& m : metrics) {
    fits_whole_file |= m.metric->needs_fit() || m.metric->negatives().count > 0;
    needs_loading |= !m.metric->fit_passes().has_value();
  }

  std::size_t items_before = 0;       // items scored in earlier chunks and files
  std::size_t items_before_file = 0;  // items scored in earlier files
  double stream_share = 0;            // share of the streamed file's bytes read; 0: loaded whole
  // Scores one chunk of a file, its tasks numbered from first_task in `negatives`, a sampler
  // over the whole file whose metrics are fitted already. Null: compute_stats fits the metrics
  // on the chunk and draws negatives from it (a loaded file, or metrics that need nothing of
  // the whole file).
  auto score_chunk = [&](const Dataset& chunk, std::size_t first_task,
                         const NegativeSampler* negatives) {
    sink.read(chunk);
    // With a shard, only its tasks are scored; fitting still sees the whole file, so every
    // shard computes exactly the numbers of an unsharded run.
    const auto items = shard_items(chunk, request);
    ScoreOptions opts;
    opts.threads = request.threads;
    // One progress line for the whole run: items of earlier chunks and files count as done, and
    // the total of a streamed file is extrapolated from the share of its bytes read so far.
    if (sink.wants_progress())
      opts.progress = [&](std::size_t done, std::size_t total) {
        const std::size_t so_far = items_before + total;
        std::size_t expected = so_far;
        if (stream_share > 0 && stream_share < 1)
          expected = items_before_file +
                     static_cast<std::size_t>(std::min(
                         1e15, static_cast<double>(so_far - items_before_file) / stream_share));
        sink.progress(items_before + done, std::max(expected, so_far));
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
    const auto stats = compute_stats(chunk, items, metrics, opts);
    items_before += items.size();
    sink.scored({chunk, items, metrics, stats, first_task, negatives});
    tally.add(chunk, items, stats);
  };

  for (const auto& input : request.data) {
    const std::string& path = input.name();
    items_before_file = items_before;
    stream_share = 0;
    ReadOptions ro{request.skip_invalid};
    ItemsDigest digest;
    // Anything but a task-format JSONL file (CSV, mapped rows, plain text, standard input) loads
    // whole; so does data that cannot be read twice (a pipe) when the file is needed whole.
    if (!input.streams_as_task_jsonl() ||
        (fits_whole_file && (needs_loading || !rereadable(path)))) {
      Dataset ds = input.load(ro);
      run.skipped.insert(run.skipped.end(), ds.skipped.begin(), ds.skipped.end());
      for (const auto& t : ds.tasks) digest.add(t);
      score_chunk(ds, 0, nullptr);
    } else {
      // Each file is fitted on by itself, as a loaded one would be.
      std::optional<NegativeSampler> sampler;
      if (fits_whole_file) fit_in_passes(path, ro, request, metrics, sampler.emplace(metrics));
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
      run.skipped.insert(run.skipped.end(), reader.skipped().begin(), reader.skipped().end());
    }
    run.data.push_back({path, digest.hex(), digest.items()});
  }
  tally.finish();
  return run;
}

void require_scored(const ScoreRun& run, const ScoreRequest& request) {
  if (run.scored() > 0) return;
  const std::size_t skipped = run.skipped.size();
  throw InputError(request.data.front().name(), 0, "",
                   skipped > 0 ? fmt::format("no valid items: all {} were skipped", skipped)
                               : std::string("no valid items: the input holds no candidates"));
}

std::string corpus_signature(const ScoreRun& run, const CorpusGroup& group, std::size_t m) {
  std::string sig = metrics::corpus_signature_of(*run.metrics[m].metric);
  // Signature fields are "|"-separated; nrefs comes first after the metric's name.
  const std::string all = "|nrefs:all|";
  if (const auto at = sig.find(all); at != std::string::npos)
    sig.replace(at, all.size(), "|nrefs:" + group.references[m].text() + "|");
  return sig;
}

std::vector<stats::AggregateBounds> rouge_bootstrap(const ScoreRun& run,
                                                    const ScoreRequest& request) {
  bool undefined = false;
  for (const auto& r : run.rouge_scores)
    undefined |= std::any_of(r.begin(), r.end(), [](double v) { return std::isnan(v); });
  if (undefined)
    throw InputError(request.data.front().name(), 0, "",
                     "--aggregate bootstrap: an item's ROUGE score is undefined");
  return stats::rouge_bootstrap_aggregate(run.rouge_scores, 3, request.bootstrap_samples,
                                          request.bootstrap_confidence,
                                          static_cast<std::uint32_t>(request.bootstrap_seed));
}

}  // namespace probity
