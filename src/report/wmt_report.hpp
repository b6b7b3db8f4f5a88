#pragma once
// `probity rank --protocol`'s outputs: the WMT table (mt-metrics-eval's TaskSetResults.Table
// layout: the average with its cluster, the average rank, then per task the cluster rank and the
// value) and the JSON document (also what Python's probity.rank returns for a protocol).
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "probity/wmt.hpp"

namespace probity::report {

// Rows of the table: a header (per task its language pair and statistic: spa is the system
// level, acc-eq the segment level), then one row per metric of the average, in its order, then
// the metrics missing from some task.
std::vector<std::vector<std::string>> wmt_rank_table(const WmtRankResult& result);
nlohmann::ordered_json wmt_rank_document(const WmtRankResult& result,
                                         const WmtRankRequest& request);

}  // namespace probity::report
