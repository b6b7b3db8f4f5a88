// Krippendorff's alpha against tests/golden/krippendorff.json (tests/golden/gen/krippendorff.py:
// NLTK's AnnotationTask.alpha) to 1e-9: SummEval's expert ratings, Krippendorff 2011's worked
// example, seeded ratings with gaps; undefined where the data cannot show agreement.
#include <gtest/gtest.h>

#include <cmath>
#include <fstream>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "probity/stats.hpp"
#include "test_paths.hpp"

namespace st = probity::stats;
using nlohmann::json;

TEST(KrippendorffAlpha, MatchesNltk) {
  std::ifstream in(probity::test::golden_path("krippendorff.json"));
  ASSERT_TRUE(in) << "missing tests/golden/krippendorff.json";
  const json g = json::parse(in);
  ASSERT_GE(g.at("cases").size(), 20u);
  const std::pair<const char*, st::AlphaMetric> metrics[] = {
      {"nominal", st::AlphaMetric::kNominal},
      {"interval", st::AlphaMetric::kInterval},
      {"ordinal", st::AlphaMetric::kOrdinal}};
  for (const auto& c : g.at("cases")) {
    const auto units = c.at("units").get<std::vector<std::vector<double>>>();
    for (const auto& [name, metric] : metrics) {
      const double a = st::krippendorff_alpha(units, metric);
      const json& e = c.at("alpha").at(name);
      const std::string what = c.at("name").get<std::string>() + " " + name;
      if (e.is_null())
        EXPECT_TRUE(std::isnan(a)) << what << ": " << a;
      else
        EXPECT_NEAR(a, e.get<double>(), 1e-9) << what;
    }
  }
}

TEST(KrippendorffAlpha, ThePublishedExample) {
  // Krippendorff 2011, "Computing Krippendorff's Alpha-Reliability": 4 observers, 12 units.
  const std::vector<std::vector<double>> units = {
      {1, 1, 1},    {2, 2, 3, 2}, {3, 3, 3, 3}, {3, 3, 3, 3}, {2, 2, 2, 2}, {1, 2, 3, 4},
      {4, 4, 4, 4}, {1, 1, 2, 1}, {2, 2, 2, 2}, {5, 5, 5},    {1, 1},       {3}};
  EXPECT_NEAR(st::krippendorff_alpha(units, st::AlphaMetric::kNominal), 0.743, 5e-4);
  EXPECT_NEAR(st::krippendorff_alpha(units, st::AlphaMetric::kOrdinal), 0.815, 5e-4);
  EXPECT_NEAR(st::krippendorff_alpha(units, st::AlphaMetric::kInterval), 0.849, 5e-4);
}
