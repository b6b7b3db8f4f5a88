#pragma once
// Score records as JSONL: {"task_id", "candidate_id", "metric", "score", "signature"[, "error"]},
// ended by one line {"probity_scores": {...}} that says what the file covers (the datasets'
// digests, the metrics and their signatures, the shard, the number of records), so that readers
// refuse a file that is cut short, concatenated, a shard, or about another dataset.
#include <cstddef>
#include <nlohmann/json_fwd.hpp>
#include <optional>
#include <ostream>
#include <span>
#include <string>
#include <utility>
#include <vector>

#include "probity/dataset.hpp"

namespace probity {

// One metric's scores aligned to a list of items; NaN where the score is null or missing.
struct ScoreColumn {
  std::string metric;
  std::string signature;
  std::vector<double> values;
  std::size_t null_scores = 0;  // records with "score": null
  std::size_t missing = 0;      // items without a record
};

// What a file of score records covers: its last line.
struct ScoresTrailer {
  struct Data {
    std::string path, digest;  // digest: items_digest of the dataset file as read
    std::size_t items = 0;
  };
  std::vector<Data> data;
  std::vector<std::pair<std::string, std::string>> metrics;  // record name, signature
  std::size_t shard_index = 0, shard_count = 1;
  std::size_t records = 0;
};
void write_scores_trailer(std::ostream& out, const ScoresTrailer& trailer);
// The end record of a parsed line, or nullopt when the line is a score record. InputError for a
// malformed end record.
std::optional<ScoresTrailer> scores_trailer_of(const nlohmann::json& line, const std::string& path,
                                               std::size_t line_no);

struct ScoresReadOptions {
  // Keep items without a score (as NaN) instead of refusing the file; the columns' `missing`
  // says how many.
  bool allow_missing = false;
};

// Reads a scores file and aligns it to `items` of `ds`. Records naming an unknown task or
// candidate, duplicates, and malformed lines are InputErrors naming file, line and field. So is a
// file whose end record is missing while records lack, whose record count differs from its end
// record, that is a shard, that is about another dataset, or that leaves items of `ds` without a
// score of a kept metric (unless allow_missing). `metrics` restricts which metric names are kept
// (empty: all, in order of first appearance).
std::vector<ScoreColumn> read_scores(const std::string& path, const Dataset& ds,
                                     std::span<const ItemRef> items,
                                     const std::vector<std::string>& metrics = {},
                                     ScoresReadOptions options = {});
// The same over a stream; `name` stands for the file in messages.
std::vector<ScoreColumn> read_scores(std::istream& in, const std::string& name, const Dataset& ds,
                                     std::span<const ItemRef> items,
                                     const std::vector<std::string>& metrics = {},
                                     ScoresReadOptions options = {});

}  // namespace probity
