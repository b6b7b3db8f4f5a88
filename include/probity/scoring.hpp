#pragma once
// Scoring a dataset with several metrics: per-item sufficient statistics, computed in parallel,
// from which sentence and corpus scores (and bootstrap resamples) are derived.
#include <cstdint>
#include <functional>
#include <memory>
#include <ostream>
#include <span>
#include <string>
#include <string_view>
#include <unordered_map>
#include <unordered_set>
#include <vector>

#include "probity/dataset.hpp"
#include "probity/metric.hpp"

namespace probity {

class Engine;

// A metric as named on the command line, with the parts selected for output.
// "rougeL" selects every part; "rougeL.f" selects one and makes it the primary part.
struct MetricSelection {
  std::string spec;   // as given
  MetricSpec parsed;  // spec parsed (once)
  std::unique_ptr<Metric> metric;
  std::vector<std::size_t> parts;  // indices into metric->parts()
  std::size_t primary = 0;         // index into metric->parts()
  std::string display;             // name= given: the name in records and tables, else ""
  // The metric's own name for itself (a scores file's record name), used without name= unless
  // another selection would be written under it (check_distinct_names then drops it).
  std::string default_display;

  // Name of one part in score records: "bleu", "rougeL.f", "rougeL.f,stem=true"; with
  // name=N: "N" for the one selected part, "N.p" when several parts are written.
  std::string record_name(std::size_t part) const;
  // Name of the primary part.
  std::string primary_name() const { return record_name(primary); }
  // +1, or -1 for a lower-is-better metric (Metric::higher_is_better): the audit's, attack's and
  // select's scores are orientation() x the primary part.
  double orientation() const { return metric->higher_is_better() ? 1.0 : -1.0; }
  // The primary part's name where oriented scores are shown: "-ter" for TER.
  std::string oriented_name() const { return (orientation() < 0 ? "-" : "") + primary_name(); }
};

// Parses a metric name with its part selection and makes the metric with `engine`.
MetricSelection select_metric(const std::string& spec, Engine& engine);
// UsageError when two selections would write records under the same name; first, a default
// display name that would collide falls back to the spec.
void check_distinct_names(std::span<MetricSelection> metrics);

class NegativeSampler;

struct ScoreOptions {
  unsigned threads = 0;  // 0: all hardware threads
  bool fit = true;       // call Metric::fit on the dataset first (skip when already fitted)
  // Called with (done, total) items about ten times a second from a reporting thread.
  std::function<void(std::size_t, std::size_t)> progress;
  // Negatives drawn from a sampler over a whole file of which `ds` is a chunk (probity score
  // reads large files in chunks): ds.tasks[i] is the sampler's task first_task + i. Null: a
  // sampler over `ds`.
  const NegativeSampler* negatives = nullptr;
  std::size_t first_task = 0;
};

// Statistics of one metric over a list of items.
struct MetricStats {
  std::size_t num_stats = 0;
  std::vector<double> stats;  // row-major, num_stats per item

  std::span<const double> row(std::size_t i) const {
    return std::span<const double>(stats).subspan(i * num_stats, num_stats);
  }
};

// Draws negative references: for a task, one reference (the first) from each of `k` distinct
// other tasks of the same group. The draw depends only on (seed, task id), never on the order of
// processing, so sharded and resumed runs see the same negatives.
class NegativeSampler {
 public:
  // Over a dataset in memory; the draws view its references.
  explicit NegativeSampler(const Dataset& ds);
  // Over the tasks of a file given one by one in file order (add), for data read in chunks. It
  // keeps per task only its group, a hash of its id and the reference each of `metrics` may
  // draw from it (a copy; identical texts once), not its source, candidates or ratings.
  explicit NegativeSampler(std::span<const MetricSelection> metrics);
  void add(const Task& task);
  std::size_t size() const { return group_of_.size(); }
  // Up to k references of distinct other tasks of the task's group: each task's first, or its
  // first with one of `reference_ids` (a task with none of them gives none). A sampler made for
  // metrics draws only what they may (std::logic_error for other reference ids).
  std::vector<std::string_view> sample(std::size_t task, std::size_t k, std::uint64_t seed,
                                       std::span<const std::string> reference_ids = {}) const;
  // The negatives `metric` wants for an item of `task` (Metric::negatives; none: empty).
  std::vector<std::string_view> for_metric(std::size_t task, const Metric& metric) const;

 private:
  // The reference of task t drawn with `reference_ids`, or null.
  const std::string* drawn(std::size_t t, std::span<const std::string> reference_ids) const;

  const Dataset* ds_ = nullptr;                        // in memory, else null
  std::vector<std::vector<std::size_t>> group_tasks_;  // tasks of each group
  std::vector<std::uint32_t> group_of_;                // group index of each task
  std::vector<std::uint64_t> id_hash_;                 // fnv1a64 of each task id
  std::unordered_map<std::string, std::uint32_t> group_index_;
  // Read in chunks: per choice of reference ids (empty: the first reference), the reference of
  // each task (null: none), pointing into `texts_`.
  std::vector<std::vector<std::string>> choices_;
  std::vector<std::vector<const std::string*>> drawn_;
  std::unordered_set<std::string> texts_;
};

// InputError naming the first task of `items` without references when `metric` needs them
// (Metric::needs_references); compute_stats and the audit call it before fitting.
void require_references(const Dataset& ds, std::span<const ItemRef> items,
                        const MetricSelection& metric);

// What a metric sees of `candidate` as an answer to `task`: its text, the task's references and
// source; negatives are left to the caller (they depend on the metric). Reuses `input`'s storage.
void set_input(MetricInput& input, const Task& task, std::string_view candidate);

// Every candidate of the dataset in file order.
std::vector<ItemRef> all_items(const Dataset& ds);

// Computes statistics of each metric for each item. Metrics are fitted on the dataset first
// unless options.fit is false. `texts`, when
// given, replaces each item's candidate text (scoring perturbed candidates against the same
// references). Deterministic whatever the thread count.
std::vector<MetricStats> compute_stats(const Dataset& ds, std::span<const ItemRef> items,
                                       std::span<MetricSelection> metrics,
                                       const ScoreOptions& options = {},
                                       std::span<const std::string_view> texts = {});

// Writes one score record (probity/scores.hpp) per selected part of each metric for each item;
// returns how many.
std::size_t write_score_records(std::ostream& out, const Dataset& ds,
                                std::span<const ItemRef> items,
                                std::span<const MetricSelection> metrics,
                                std::span<const MetricStats> stats);

}  // namespace probity
