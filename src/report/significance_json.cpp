// `probity significance --json` and the dict probity.significance returns in Python: the run's
// settings, per metric sacreBLEU's baseline rows and, with the clusters, the ranking and the
// full matrices of pairwise p-values (raw and adjusted; rows and columns in `systems` order).
#include <cmath>
#include <nlohmann/json.hpp>
#include <optional>
#include <string>

#include "probity/significance.hpp"
#include "report/json_value.hpp"

namespace probity::report {
namespace {

using ojson = nlohmann::ordered_json;

ojson num(double v) {
  return std::isfinite(v) ? ojson(v) : ojson(nullptr);
}

ojson optional_num(const std::optional<double>& v) {
  return v ? num(*v) : ojson(nullptr);
}

// null on the diagonal (a system is not tested against itself).
ojson matrix(const std::vector<std::vector<double>>& p) {
  ojson rows = ojson::array();
  for (const auto& row : p) {
    ojson r = ojson::array();
    for (double v : row) r.push_back(num(v));
    rows.push_back(std::move(r));
  }
  return rows;
}

ojson clusters_json(const SignificanceRun& run, const SignificanceMetric& m) {
  const SignificanceClusters& c = *m.clusters;
  ojson ranking = ojson::array();
  for (std::size_t s : c.order)
    ranking.push_back(
        {{"system", run.systems[s]}, {"rank", c.rank[s]}, {"score", num(m.test.systems[s].score)}});
  return {{"ranking", ranking}, {"p", matrix(m.test.pairwise)}, {"p_adjusted", matrix(c.adjusted)}};
}

}  // namespace

nlohmann::ordered_json significance_document(const SignificanceRun& run) {
  ojson metrics = ojson::array();
  for (const auto& m : run.metrics) {
    ojson rows = ojson::array();
    for (std::size_t s = 0; s < run.systems.size(); ++s) {
      const auto& r = m.test.systems[s];
      rows.push_back({{"system", run.systems[s]},
                      {"baseline", s == 0},
                      {"score", num(r.score)},
                      {"p_value", optional_num(r.p_value)},
                      {"mean", optional_num(r.mean)},
                      {"ci", optional_num(r.ci)}});
    }
    ojson j = {{"metric", m.name},
               {"spec", m.spec},
               {"signature", m.test.signature},
               {"aggregation", std::string(paired_aggregation_name(m.test.aggregation))},
               {"higher_is_better", m.higher_is_better},
               {"systems", rows}};
    j["clusters"] = m.clusters ? clusters_json(run, m) : ojson(nullptr);
    metrics.push_back(std::move(j));
  }
  return {{"data", run.data},
          {"test", std::string(paired_test_kind_name(run.kind))},
          {"samples", run.samples},
          {"seed", run.seed},
          {"items", run.items},
          {"baseline", run.systems.front()},
          {"systems", run.systems},
          {"clusters", run.clusters},
          {"correction", std::string(stats::rank_correction_name(run.correction))},
          {"alpha", run.alpha},
          {"warnings", run.warnings},
          {"metrics", metrics}};
}

}  // namespace probity::report
