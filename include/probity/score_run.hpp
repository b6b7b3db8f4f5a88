#pragma once
// `probity score` as one request that every front end fills: score every candidate of some inputs
// with some metrics, reading task-format JSONL files in chunks (metrics that need the whole file
// are fitted in passes over it first), handing each scored chunk to a sink, and summing corpus
// scores pooled over all items and per system.
#include <cstdint>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "probity/dataset.hpp"
#include "probity/inputs.hpp"
#include "probity/metric.hpp"
#include "probity/scores.hpp"
#include "probity/scoring.hpp"
#include "probity/stats.hpp"

namespace probity {

class Engine;

// How the corpus row of a ROUGE metric is aggregated.
enum class CorpusAggregate {
  kMean,       // the mean item score
  kBootstrap,  // also rouge-score's BootstrapAggregator low/mid/high of P, R and F
};
// "mean" or "bootstrap"; anything else is a UsageError.
CorpusAggregate parse_corpus_aggregate(std::string_view name);
std::string_view corpus_aggregate_name(CorpusAggregate aggregate);

struct ScoreRequest {
  std::vector<DataInput> data;
  std::vector<std::string> metrics;  // metric specs, e.g. "bleu", "rougeL.f,stem=true"
  bool skip_invalid = false;
  unsigned threads = 0;                          // 0: all hardware threads
  std::size_t shard_index = 0, shard_count = 1;  // score only tasks of shard I of N
  // kBootstrap: stats::rouge_bootstrap_aggregate over the ROUGE metrics' item scores, as after
  // numpy.random.seed(bootstrap_seed).
  CorpusAggregate aggregate = CorpusAggregate::kMean;
  std::size_t bootstrap_samples = 1000;
  double bootstrap_confidence = 0.95;
  std::uint64_t bootstrap_seed = 0;
};

// UsageError for a request that cannot run: no data, no metric, a shard outside 0..N-1,
// bootstrap numbers out of range, or bootstrap aggregation with shards.
void check_request(const ScoreRequest& request);

// One chunk as scored: this shard's items of `tasks` and each metric's statistics for them.
// `negatives`: the sampler over the whole file the chunk belongs to (its tasks numbered from
// first_task), or null when the chunk is the whole input (a sampler over `tasks` draws the same).
struct ScoredChunk {
  const Dataset& tasks;
  std::span<const ItemRef> items;
  std::span<const MetricSelection> metrics;
  std::span<const MetricStats> stats;
  std::size_t first_task = 0;
  const NegativeSampler* negatives = nullptr;
};

// Where a run hands what it scores as it goes (records written, notes collected, progress shown).
class ScoreSink {
 public:
  virtual ~ScoreSink() = default;
  // Once, before any chunk: the metrics as selected.
  virtual void begin(std::span<const MetricSelection> /*metrics*/) {}
  // Every task read, before it is scored (also tasks of other shards).
  virtual void read(const Dataset& /*tasks*/) {}
  virtual void scored(const ScoredChunk& /*chunk*/) {}
  // Whether progress() is wanted; it is then called with (items done, items expected) from a
  // reporting thread, the total of a streamed file extrapolated from its bytes read so far.
  virtual bool wants_progress() const { return false; }
  virtual void progress(std::size_t /*done*/, std::size_t /*expected*/) {}
};

// How many references the tasks scored have: one count, or "var" when it varies (as sacreBLEU's
// signature says nrefs:N or nrefs:var).
class ReferenceCount {
 public:
  void add(std::size_t references);
  // "1", "2", ... or "var"; "0" before any task.
  std::string text() const;

 private:
  std::size_t count_ = 0;
  bool seen_ = false, varies_ = false;
};

// The corpus scores of one group of items: all of them (pooled), or one system's.
struct CorpusGroup {
  std::string system;  // the candidates' `system`; "" for the pooled group
  std::vector<CorpusAccumulator> metrics;
  std::vector<ReferenceCount> references;  // per metric (Metric::references_used)
};

struct ScoreRun {
  std::vector<MetricSelection> metrics;
  CorpusGroup pooled;
  // One group per distinct `system` of the candidates scored, in order of first appearance
  // (several --hyp files: one per file). Empty when every candidate has the same system.
  std::vector<CorpusGroup> systems;
  std::vector<SkipRecord> skipped;
  std::vector<ScoresTrailer::Data> data;  // per input: its path, digest and items
  // kBootstrap: the metrics (indices into `metrics`) with MetricCapability::kRougeBootstrap, and
  // their items' P, R and F (rows of 3).
  std::vector<std::size_t> rouge;
  std::vector<std::vector<double>> rouge_scores;

  std::size_t scored() const;  // items scored
};

// Runs the request: selects the metrics with `engine`, reads every input (a task-format JSONL
// file that can be read twice in chunks, anything else whole) and hands the chunks to `sink`.
// Errors as a loaded file would give them (InputError, UsageError).
ScoreRun run_score(const ScoreRequest& request, Engine& engine, ScoreSink& sink);

// InputError when the run scored nothing ("all N were skipped", or "the input holds no
// candidates").
void require_scored(const ScoreRun& run, const ScoreRequest& request);

// The corpus signature of metric `m` of a group: Metric::signature of the corpus score, with
// nrefs:all replaced by the number of references the group's tasks have.
std::string corpus_signature(const ScoreRun& run, const CorpusGroup& group, std::size_t m);

// rouge-score's BootstrapAggregator over run.rouge_scores (one NumPy stream through the ROUGE
// metrics in the order given). InputError when an item's ROUGE score is undefined.
std::vector<stats::AggregateBounds> rouge_bootstrap(const ScoreRun& run,
                                                    const ScoreRequest& request);

}  // namespace probity
