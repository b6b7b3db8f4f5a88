#pragma once
// Reading tests/golden/meta_eval/wmt_stats.json (tests/golden/gen/mtme_wmt_stats.py: MTME's own
// code) for the mtme_*_test.cpp files.
#include <gtest/gtest.h>

#include <cmath>
#include <fstream>
#include <limits>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "test_paths.hpp"

namespace probity::test::mtme {

inline const nlohmann::json& golden() {
  static const nlohmann::json doc = [] {
    std::ifstream in(golden_path("meta_eval/wmt_stats.json"));
    if (!in) throw std::runtime_error("missing tests/golden/meta_eval/wmt_stats.json");
    return nlohmann::json::parse(in);
  }();
  return doc;
}

// A flat list with null as NaN (missing gold).
inline std::vector<double> values(const nlohmann::json& j) {
  std::vector<double> v;
  for (const auto& x : j)
    v.push_back(x.is_null() ? std::numeric_limits<double>::quiet_NaN() : x.get<double>());
  return v;
}

struct Input {
  std::size_t systems = 0, items = 0;
  std::vector<double> gold;
  const nlohmann::json* metrics = nullptr;
  std::vector<double> metric(const std::string& name) const { return values(metrics->at(name)); }
};

inline Input input(const std::string& name) {
  const auto& j = golden().at("inputs").at(name);
  return {j.at("systems").get<std::size_t>(), j.at("items").get<std::size_t>(),
          values(j.at("gold")), &j.at("metrics")};
}

// 1e-9 relative (absolute near 0); null means NaN.
inline void expect_near(double got, const nlohmann::json& want, const std::string& what) {
  if (want.is_null()) {
    EXPECT_TRUE(std::isnan(got)) << what << ": " << got;
    return;
  }
  const double w = want.get<double>();
  EXPECT_NEAR(got, w, 1e-9 * std::max(1.0, std::abs(w))) << what;
}

}  // namespace probity::test::mtme
