// The report's tests looked up by (dataset, metric, kind, code), in display order, and the
// strategies listed by kind.
#include <fmt/format.h>

#include <algorithm>

#include "report/format.hpp"

namespace probity::report::detail {

namespace {

int kind_index(StrategyKind kind) {
  return kind == StrategyKind::kDegradation ? 0 : 1;
}

}  // namespace

void add_unique(std::vector<std::string>& list, const std::string& value) {
  if (std::find(list.begin(), list.end(), value) == list.end()) list.push_back(value);
}

TestIndex::TestIndex(const AuditReport& report) : report_(&report) {
  for (const auto& d : report.datasets) add_unique(datasets_, d.name);
  for (const auto& m : report.metrics) add_unique(metrics_, m);
  for (const auto& s : report.strategies) {
    auto& list = strategies_[kind_index(s.kind)];
    bool seen = std::any_of(list.begin(), list.end(), [&](auto& r) { return r.code == s.code; });
    if (!seen) list.push_back({s.code, s.name});
  }
  for (const auto& t : report.tests) {
    add_unique(datasets_, t.dataset);
    add_unique(metrics_, t.metric);
    auto& list = strategies_[kind_index(t.kind)];
    bool seen = std::any_of(list.begin(), list.end(), [&](auto& r) { return r.code == t.code; });
    if (!seen) list.push_back({t.code, t.name});
    // The first test of a key wins; a report never holds two, but merged ones might.
    tests_.emplace(std::make_tuple(t.dataset, t.metric, kind_index(t.kind), t.code), &t);
  }
  for (const auto& c : report.correlations) {
    add_unique(datasets_, c.dataset);
    if (!c.baseline && !c.humans) add_unique(metrics_, c.metric);  // no strategy tests
  }
}

const StrategyTest* TestIndex::find(const std::string& dataset, const std::string& metric,
                                    StrategyKind kind, const std::string& code) const {
  auto it = tests_.find(std::make_tuple(dataset, metric, kind_index(kind), code));
  return it == tests_.end() ? nullptr : it->second;
}

const std::vector<StrategyRef>& TestIndex::strategies(StrategyKind kind) const {
  return strategies_[kind_index(kind)];
}

std::vector<StrategyRef> TestIndex::strategies_on(const std::string& dataset,
                                                  StrategyKind kind) const {
  std::vector<StrategyRef> out;
  for (const auto& s : strategies(kind)) {
    for (const auto& m : metrics_) {
      if (find(dataset, m, kind, s.code)) {
        out.push_back(s);
        break;
      }
    }
  }
  return out;
}

bool TestIndex::has_tests(const std::string& dataset, StrategyKind kind) const {
  return !strategies_on(dataset, kind).empty();
}

std::string TestIndex::strategy_name(StrategyKind kind, const std::string& code) const {
  for (const auto& s : strategies(kind))
    if (s.code == code) return s.name;
  return code;
}

std::string strategy_list(const TestIndex& index, StrategyKind kind) {
  std::vector<std::string> parts;
  for (const auto& s : index.strategies(kind)) parts.push_back(s.code + " " + s.name);
  return join(parts, ", ");
}

}  // namespace probity::report::detail
