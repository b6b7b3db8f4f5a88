#include <fmt/format.h>

#include <cmath>
#include <fstream>
#include <nlohmann/json.hpp>
#include <unordered_map>

#include "data/validate.hpp"
#include "probity/scores.hpp"
#include "probity/text.hpp"

namespace probity {

using json = nlohmann::json;

std::vector<ScoreColumn> read_scores(const std::string& path, const Dataset& ds,
                                     std::span<const ItemRef> items,
                                     const std::vector<std::string>& metrics) {
  std::ifstream in(path, std::ios::binary);
  if (!in) throw InputError(path, 0, "", "cannot open file");
  std::unordered_map<std::string, std::size_t> item_index;  // "task\x1f" "cand" -> item
  for (std::size_t i = 0; i < items.size(); ++i) {
    const Task& t = ds.tasks[items[i].task];
    item_index.emplace(t.task_id + '\x1f' + t.candidates[items[i].candidate].id, i);
  }
  std::unordered_map<std::string, std::size_t> task_ids;
  for (std::size_t t = 0; t < ds.tasks.size(); ++t) task_ids.emplace(ds.tasks[t].task_id, t);

  std::vector<ScoreColumn> columns;
  std::unordered_map<std::string, std::size_t> column_index;
  std::vector<std::vector<bool>> seen;
  for (const auto& m : metrics) {
    column_index.emplace(m, columns.size());
    columns.push_back({m, "", std::vector<double>(items.size(), std::nan("")), 0, 0});
    seen.emplace_back(items.size(), false);
  }
  std::string line;
  std::size_t line_no = 0;
  while (std::getline(in, line)) {
    ++line_no;
    if (!line.empty() && line.back() == '\r') line.pop_back();
    if (data::is_blank(line)) continue;
    if (!text::is_valid_utf8(line)) throw InputError(path, line_no, "", "invalid UTF-8");
    json j;
    try {
      j = json::parse(line);
    } catch (const json::parse_error& e) {
      throw InputError(path, line_no, "", "malformed JSON: " + data::short_json_message(e.what()));
    }
    if (!j.is_object()) throw InputError(path, line_no, "", "expected a JSON object per line");
    auto str = [&](const char* key) {
      auto it = j.find(key);
      if (it == j.end()) throw InputError(path, line_no, key, "missing required field");
      if (!it->is_string()) throw InputError(path, line_no, key, "expected a string");
      return it->get<std::string>();
    };
    std::string task_id = str("task_id"), cand_id = str("candidate_id"), metric = str("metric");
    auto col = column_index.find(metric);
    if (col == column_index.end()) {
      if (!metrics.empty()) continue;
      col = column_index.emplace(metric, columns.size()).first;
      columns.push_back({metric, "", std::vector<double>(items.size(), std::nan("")), 0, 0});
      seen.emplace_back(items.size(), false);
    }
    auto item = item_index.find(task_id + '\x1f' + cand_id);
    if (item == item_index.end()) {
      if (!task_ids.count(task_id))
        throw InputError(path, line_no, "task_id",
                         fmt::format("task '{}' is not in the dataset", task_id));
      throw InputError(path, line_no, "candidate_id",
                       fmt::format("candidate '{}' is not in task '{}'", cand_id, task_id));
    }
    ScoreColumn& c = columns[col->second];
    if (seen[col->second][item->second])
      throw InputError(path, line_no, "metric",
                       fmt::format("duplicate score of '{}' for {}/{}", metric, task_id, cand_id));
    seen[col->second][item->second] = true;
    auto s = j.find("score");
    if (s == j.end()) throw InputError(path, line_no, "score", "missing required field");
    if (s->is_null()) {
      ++c.null_scores;
    } else if (s->is_number()) {
      c.values[item->second] = s->get<double>();
    } else {
      throw InputError(path, line_no, "score", "expected a number or null");
    }
    if (auto sig = j.find("signature"); sig != j.end() && sig->is_string() && c.signature.empty())
      c.signature = sig->get<std::string>();
  }
  for (std::size_t m = 0; m < columns.size(); ++m)
    for (bool b : seen[m]) columns[m].missing += b ? 0 : 1;
  return columns;
}

void write_score_records(std::ostream& out, const Dataset& ds, std::span<const ItemRef> items,
                         std::span<const MetricSelection> metrics,
                         std::span<const MetricStats> stats) {
  std::vector<std::vector<std::string>> names(metrics.size());
  std::vector<std::string> signatures(metrics.size());
  for (std::size_t m = 0; m < metrics.size(); ++m) {
    signatures[m] = json(metrics[m].metric->signature()).dump();
    for (std::size_t p : metrics[m].parts)
      names[m].push_back(json(metrics[m].record_name(p)).dump());
  }
  std::vector<double> parts;
  std::string buf;
  for (std::size_t i = 0; i < items.size(); ++i) {
    const Task& t = ds.tasks[items[i].task];
    std::string task_id = json(t.task_id).dump();
    std::string cand_id = json(t.candidates[items[i].candidate].id).dump();
    for (std::size_t m = 0; m < metrics.size(); ++m) {
      const Metric& metric = *metrics[m].metric;
      parts.assign(metric.parts().size(), 0.0);
      metric.sentence_score(stats[m].row(i), parts);
      for (std::size_t k = 0; k < metrics[m].parts.size(); ++k) {
        double v = parts[metrics[m].parts[k]];
        buf.clear();
        fmt::format_to(std::back_inserter(buf),
                       "{{\"task_id\": {}, \"candidate_id\": {}, \"metric\": {}, ", task_id,
                       cand_id, names[m][k]);
        if (std::isfinite(v)) {
          // Shortest representation that round-trips, as Python's repr(float).
          fmt::format_to(std::back_inserter(buf), "\"score\": {}, ", json(v).dump());
        } else {
          fmt::format_to(std::back_inserter(buf), "\"score\": null, \"error\": {}, ",
                         json(metric.undefined_reason(stats[m].row(i))).dump());
        }
        fmt::format_to(std::back_inserter(buf), "\"signature\": {}}}\n", signatures[m]);
        out << buf;
      }
    }
  }
}

}  // namespace probity
