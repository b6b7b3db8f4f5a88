// spa, pdp and kendall-like as level statistics (src/stats/mtme_levels.cpp): a level's candidates
// laid out as mt-metrics-eval's matrix give MTME's own values (golden meta_eval/wmt_stats.json:
// item level = average_by 'none', task level = 'item'), and the level bootstrap and permutation
// tests take them.
#include <gtest/gtest.h>

#include <cmath>
#include <fstream>
#include <nlohmann/json.hpp>

#include "probity/error.hpp"
#include "probity/stats.hpp"
#include "test_paths.hpp"

namespace probity::stats {
namespace {

using nlohmann::json;

json golden() {
  std::ifstream in(test::golden_path("meta_eval/wmt_stats.json"));
  return json::parse(in);
}

// The input's gold and metric as candidates: task = item, system = row; missing gold left out.
LevelData level_data(const json& input, const std::string& metric) {
  LevelData d;
  const std::size_t systems = input["systems"], items = input["items"];
  d.num_tasks = items;
  d.num_systems = systems;
  for (std::size_t s = 0; s < systems; ++s)
    for (std::size_t t = 0; t < items; ++t) {
      const json& g = input["gold"][s * items + t];
      if (g.is_null()) continue;
      d.gold.push_back(g.get<double>());
      d.metric.push_back(input["metrics"][metric][s * items + t].get<double>());
      d.task.push_back(t);
      d.system.push_back(s);
    }
  return d;
}

Level level_of(const std::string& average_by) {
  return average_by == "none" ? Level::kItem : Level::kTask;
}

TEST(MtmeLevels, PdpAndKendallLikeEqualMtme) {
  const json g = golden();
  int checked = 0;
  for (const auto& [key, statistic] :
       {std::pair<std::string, LevelStatistic>{"pdp", LevelStatistic::kPdp},
        {"kendall_like", LevelStatistic::kKendallLike}}) {
    for (const json& c : g[key]) {
      const std::string by = c["average_by"];
      if (by == "sys" || (c.contains("thresh") && c["thresh"].get<double>() != 25)) continue;
      const std::string input = c["input"];
      if (input == "small_mqm") continue;  // its gold has ties only within MQM's steps
      const LevelData d = level_data(g["inputs"][input], c["metric"]);
      const double v = level_statistic(statistic, level_of(by), d).value;
      const double want = c["value"].get<double>();
      SCOPED_TRACE(key + " " + input + " " + c["metric"].get<std::string>() + " " + by);
      if (std::isnan(want))
        EXPECT_TRUE(std::isnan(v));
      else
        EXPECT_NEAR(v, want, 1e-9 * std::max(1.0, std::fabs(want)));
      ++checked;
    }
  }
  EXPECT_GE(checked, 12);
}

TEST(MtmeLevels, SpaAtTheSystemLevelEqualsMtme) {
  const json g = golden();
  int checked = 0;
  for (const json& c : g["spa"]) {
    if (c["input"] != "small") continue;
    const LevelData d = level_data(g["inputs"]["small"], c["metric"]);
    EXPECT_NEAR(level_statistic(LevelStatistic::kSpa, Level::kSystem, d).value,
                c["spa"].get<double>(), 1e-12)
        << c["metric"];
    ++checked;
  }
  EXPECT_GE(checked, 2);
  const LevelData d = level_data(g["inputs"]["small"], "m1");
  EXPECT_THROW(level_statistic(LevelStatistic::kSpa, Level::kTask, d), UsageError);
}

TEST(MtmeLevels, BootstrapAndPermutationTakeThem) {
  const json g = golden();
  const LevelData d = level_data(g["inputs"]["small"], "m1");
  const LevelData e = level_data(g["inputs"]["small"], "m2");
  for (auto [s, level] : {std::pair{LevelStatistic::kSpa, Level::kSystem},
                          {LevelStatistic::kPdp, Level::kTask},
                          {LevelStatistic::kKendallLike, Level::kItem}}) {
    const auto boot = level_bootstrap_values(s, level, d, LevelUnits::kTasks, 20, 3, 2);
    const auto again = level_bootstrap_values(s, level, d, LevelUnits::kTasks, 20, 3, 1);
    EXPECT_EQ(boot, again);  // same bytes at any thread count
    std::size_t finite = 0;
    for (double v : boot) finite += std::isfinite(v);
    EXPECT_EQ(finite, boot.size());
    PermutationOptions po;
    po.permutations = 50;
    const auto same = level_permutation_test(s, level, d, d.metric, po);
    EXPECT_EQ(same.delta, 0.0);
    const auto diff = level_permutation_test(s, level, d, e.metric, po);
    EXPECT_GE(diff.p, 0.0);
    EXPECT_LE(diff.p, 1.0);
  }
}

TEST(MtmeLevels, CandidatesWithoutASystemOrAScoreTakeNoPart) {
  const json g = golden();
  const LevelData d = level_data(g["inputs"]["small"], "m1");
  LevelData more = d;
  more.gold.push_back(3.0);  // a candidate without a system
  more.metric.push_back(0.5);
  more.task.push_back(0);
  more.system.push_back(kNoSystem);
  more.gold.push_back(2.0);  // one without a metric score
  more.metric.push_back(std::nan(""));
  more.task.push_back(1);
  more.system.push_back(0);
  EXPECT_EQ(level_statistic(LevelStatistic::kSpa, Level::kSystem, more).value,
            level_statistic(LevelStatistic::kSpa, Level::kSystem, d).value);
  EXPECT_EQ(level_statistic(LevelStatistic::kPdp, Level::kSystem, more).value,
            level_statistic(LevelStatistic::kPdp, Level::kSystem, d).value);
  EXPECT_TRUE(std::isfinite(level_statistic(LevelStatistic::kPdp, Level::kTask, more).value));
}

TEST(MtmeLevels, PairsTestSeparatesAClearlyBetterMetric) {
  const json g = golden();
  const LevelData good = level_data(g["inputs"]["small"], "m1");
  const LevelData noise = level_data(g["inputs"]["small"], "noise");
  PermutationOptions po;
  po.permutations = 500;
  po.alternative = Alternative::kGreater;
  const auto r = level_pairs_permutation_test(Level::kTask, good, noise.metric, po);
  EXPECT_GT(r.delta, 0.0);
  EXPECT_LT(r.p, 0.05);
  const auto back = level_pairs_permutation_test(Level::kTask, noise, good.metric, po);
  EXPECT_GT(back.p, 0.9);
  EXPECT_EQ(r.permutations, 500u);
}

}  // namespace
}  // namespace probity::stats
