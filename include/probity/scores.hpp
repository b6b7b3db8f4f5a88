#pragma once
// Score records as JSONL: {"task_id", "candidate_id", "metric", "score", "signature"[, "error"]}.
#include <cstddef>
#include <ostream>
#include <string>
#include <vector>

#include "probity/dataset.hpp"
#include "probity/scoring.hpp"

namespace probity {

// One metric's scores aligned to a list of items; NaN where the score is null or missing.
struct ScoreColumn {
  std::string metric;
  std::string signature;
  std::vector<double> values;
  std::size_t null_scores = 0;  // records with "score": null
  std::size_t missing = 0;      // items without a record
};

// Reads a scores file and aligns it to `items` of `ds`. Records naming an unknown task or
// candidate, duplicates, and malformed lines are InputErrors naming file, line and field.
// `metrics` restricts which metric names are kept (empty: all, in order of first appearance).
std::vector<ScoreColumn> read_scores(const std::string& path, const Dataset& ds,
                                     std::span<const ItemRef> items,
                                     const std::vector<std::string>& metrics = {});

// Writes one record per selected part of each metric for each item.
void write_score_records(std::ostream& out, const Dataset& ds, std::span<const ItemRef> items,
                         std::span<const MetricSelection> metrics,
                         std::span<const MetricStats> stats);

}  // namespace probity
