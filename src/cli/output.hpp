#pragma once
// Number formatting shared by the meta-evaluation commands: undefined values print as "undef"
// in tables and as null in JSON.
#include <fmt/format.h>

#include <cmath>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "probity/dataset.hpp"
#include "probity/scores.hpp"
#include "probity/scoring.hpp"

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

// Loads both and checks the selection: every named metric must have scores, every named
// dimension must exist (UsageError otherwise); empty selections mean "all".
ScoredData load_scored(const std::string& data, const std::string& scores,
                       const std::vector<std::string>& metrics,
                       const std::vector<std::string>& dimensions, bool skip_invalid);

// A plain aligned table on stdout: the first `left_columns` columns left-aligned, a rule under
// the header row.
void print_table(const std::vector<std::vector<std::string>>& table, std::size_t left_columns);

}  // namespace probity::cli
