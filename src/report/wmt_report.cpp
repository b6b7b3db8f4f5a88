// The WMT protocol table and JSON (wmt_report.hpp).
#include "report/wmt_report.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>

namespace probity::report {
namespace {

std::string value_text(double v) {
  return std::isnan(v) ? std::string("--") : fmt::format("{:.3f}", v);
}

// "rank value" as mt-metrics-eval prints a task column; '-' for the rank of an untested column.
std::string ranked(std::size_t rank, double value) {
  return fmt::format("{} {}", rank ? std::to_string(rank) : std::string("-"), value_text(value));
}

std::string level_of(WmtStatistic s) {
  return s == WmtStatistic::kSpa ? "sys" : "seg";
}

std::string status_name(WmtMetricStatus s) {
  switch (s) {
    case WmtMetricStatus::kPrimary:
      return "primary";
    case WmtMetricStatus::kBaseline:
      return "baseline";
    case WmtMetricStatus::kContrastive:
      break;
  }
  return "contrastive";
}

}  // namespace

std::vector<std::vector<std::string>> wmt_rank_table(const WmtRankResult& r) {
  std::vector<std::vector<std::string>> rows;
  std::vector<std::string> header{"metric", "average", "avg rank"};
  for (const auto& t : r.tasks)
    header.push_back(fmt::format("{} {}", t.lp, wmt_statistic_name(t.statistic)));
  rows.push_back(std::move(header));
  // The label marks baselines with '_' as mt-metrics-eval's tables do; `metric` is the name.
  auto add_row = [&](const std::string& label, const std::string& metric,
                     const std::string& average, const std::string& avg_rank) {
    std::vector<std::string> row{label, average, avg_rank};
    for (const auto& t : r.tasks) {
      const auto it = std::find(t.metrics.begin(), t.metrics.end(), metric);
      if (it == t.metrics.end()) {
        row.push_back("--");
        continue;
      }
      const auto i = static_cast<std::size_t>(it - t.metrics.begin());
      row.push_back(ranked(t.ranks[i], t.values[i]));
    }
    rows.push_back(std::move(row));
  };
  for (const auto& a : r.average)
    add_row((a.status == WmtMetricStatus::kBaseline ? "_" : "") + a.metric, a.metric,
            ranked(a.rank, a.value), fmt::format("{:.2f}", a.average_rank));
  // Metrics missing from some task (no average), alphabetically as mt-metrics-eval's 'union'.
  std::vector<std::string> rest;
  for (const auto& t : r.tasks)
    for (const auto& m : t.metrics)
      if (std::none_of(r.average.begin(), r.average.end(),
                       [&](const WmtAverageRow& a) { return a.metric == m; }) &&
          std::find(rest.begin(), rest.end(), m) == rest.end())
        rest.push_back(m);
  std::sort(rest.begin(), rest.end());
  for (const auto& m : rest) add_row(m, m, "--", "--");
  return rows;
}

nlohmann::ordered_json wmt_rank_document(const WmtRankResult& r, const WmtRankRequest& request) {
  using json = nlohmann::ordered_json;
  json tasks = json::array();
  for (const auto& t : r.tasks) {
    json metrics = json::array();
    for (std::size_t i = 0; i < t.metrics.size(); ++i)
      metrics.push_back({{"metric", t.metrics[i]}, {"value", t.values[i]}, {"rank", t.ranks[i]}});
    json sig = json::array();
    for (std::size_t i = 0; i < t.sig.size(); ++i)
      for (std::size_t j = i + 1; j < t.sig.size(); ++j)
        sig.push_back({{"better", t.metrics[i]}, {"worse", t.metrics[j]}, {"p", t.sig[i][j]}});
    tasks.push_back({{"lp", t.lp},
                     {"level", level_of(t.statistic)},
                     {"statistic", std::string(wmt_statistic_name(t.statistic))},
                     {"human", t.human},
                     {"weight", t.weight},
                     {"systems", t.systems},
                     {"segments", t.segments},
                     {"metrics", metrics},
                     {"tests", sig}});
  }
  json average = json::array();
  for (const auto& a : r.average)
    average.push_back({{"metric", a.metric},
                       {"status", status_name(a.status)},
                       {"value", a.value},
                       {"rank", a.rank},
                       {"average_rank", a.average_rank}});
  json average_tests = json::array();
  for (std::size_t i = 0; i < r.average_sig.size(); ++i)
    for (std::size_t j = i + 1; j < r.average_sig.size(); ++j)
      average_tests.push_back({{"better", r.average[i].metric},
                               {"worse", r.average[j].metric},
                               {"p", r.average_sig[i][j]}});
  return {{"protocol", std::string(wmt_protocol_name(r.protocol))},
          {"test_set", request.test_set_dir},
          {"lps", r.lps},
          {"permutations", request.permutations},
          {"seed", request.seed},
          {"alpha", request.alpha},
          {"correction", "none"},
          {"conventions", r.conventions},
          {"average", average},
          {"average_tests", average_tests},
          {"tasks", tasks}};
}

}  // namespace probity::report
