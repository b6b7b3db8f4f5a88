#pragma once
// Number formatting shared by the meta-evaluation commands: undefined values print as "undef"
// in tables and as null in JSON.
#include <fmt/format.h>

#include <cmath>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "probity/dataset.hpp"
#include "probity/inputs.hpp"
#include "probity/requests.hpp"
#include "probity/scores.hpp"
#include "probity/scoring.hpp"
#include "util/output_file.hpp"

namespace probity {
class Engine;
}

namespace probity::cli {

using json = nlohmann::ordered_json;

inline json number(double v) {
  return std::isfinite(v) ? json(v) : json(nullptr);
}

inline std::string fixed(double v, int digits = 4) {
  return std::isfinite(v) ? fmt::format("{:.{}f}", v, digits) : "undef";
}

// A dataset with human ratings, a scores file aligned to its items, and the dimensions to use.
struct ScoredData {
  Dataset ds;
  std::vector<ItemRef> items;
  std::vector<ScoreColumn> columns;
  std::vector<std::string> dims;
};

// The files of a repeatable --scores: quoted and listed for messages; a name or a list in JSON.
std::string describe_files(const std::vector<std::string>& files);
nlohmann::ordered_json files_json(const std::vector<std::string>& files);

// The columns of every scores file ("-": standard input), each metric from one file; notes on
// stderr for items without a score (allow_missing).
std::vector<ScoreColumn> read_score_files(const std::vector<std::string>& files, const Dataset& ds,
                                          std::span<const ItemRef> items,
                                          const std::vector<std::string>& metrics,
                                          bool allow_missing);
// Loads the data and the scores files (each metric in one of them; "-" is standard input) and
// checks the selection: every named metric must have scores, every named
// dimension must exist (UsageError otherwise); empty selections mean "all".
// A scores file that leaves items without a score is refused unless `allow_missing`; data
// without human ratings unless `need_ratings` is false (pairwise preferences only).
ScoredData load_scored(const DataInput& data, const std::vector<std::string>& scores,
                       const std::vector<std::string>& metrics,
                       const std::vector<std::string>& dimensions, bool skip_invalid,
                       bool allow_missing = false, bool need_ratings = true);
ScoredData load_scored(const ScoredInputs& inputs, bool need_ratings = true);

// What a command reads, by option: its datasets (--data), the files its metrics name, and the LLM
// configuration and response cache of `engine` (may be null); for util::refuse_overwriting_inputs.
std::vector<util::NamedInput> command_inputs(const std::vector<DataInput>& data,
                                             const std::vector<std::string>& metrics,
                                             const Engine* engine);

// What --skip-invalid left out, on stderr: "skipped N invalid item(s):" and each file:line:
// field: message (the first 50, then how many more). Nothing when nothing was skipped.
void print_skipped(const std::vector<SkipRecord>& records);

// Notes on stderr about empty texts, which are scored (not dropped): the tasks with an empty
// reference (MI metrics and ExPerT are undefined on them; overlap metrics give 0) and how many
// candidates are empty. Collects across calls (chunks) until flushed.
class EmptyTextNotes {
 public:
  void add(const Dataset& ds);
  void print() const;

 private:
  std::vector<std::string> tasks_;
  std::size_t empty_candidates_ = 0;
};

// A plain aligned table on stdout: the first `left_columns` columns left-aligned, a rule under
// the header row.
void print_table(const std::vector<std::vector<std::string>>& table, std::size_t left_columns);

}  // namespace probity::cli
