// Score records (probity/scores.hpp's format) of scored metrics, as `probity score` writes them.
#include <fmt/format.h>

#include <cmath>
#include <iterator>
#include <nlohmann/json.hpp>

#include "probity/scoring.hpp"

namespace probity {

using json = nlohmann::json;

std::size_t write_score_records(std::ostream& out, const Dataset& ds,
                                std::span<const ItemRef> items,
                                std::span<const MetricSelection> metrics,
                                std::span<const MetricStats> stats) {
  std::size_t written = 0;
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
        ++written;
      }
    }
  }
  return written;
}

}  // namespace probity
