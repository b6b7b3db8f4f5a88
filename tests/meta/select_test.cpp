// Choosing a variant on one half of the tasks and testing it on the other (`probity select`).
#include <gtest/gtest.h>

#include <cmath>
#include <fstream>
#include <nlohmann/json.hpp>

#include "cli_runner.hpp"
#include "probity/meta.hpp"
#include "probity/stats.hpp"
#include "test_paths.hpp"
#include "util/random.hpp"

namespace {

using namespace probity;
using probity::test::run_probity;
using json = nlohmann::json;

struct Synthetic {
  std::vector<std::string> task_ids;
  std::vector<std::size_t> task_of_item;
  std::vector<double> human;
  std::vector<std::vector<double>> scores;  // "overfit", "steady", "noise"
};

// "overfit" equals the rating on the selection tasks and is noise on the test tasks; "steady"
// is the rating plus moderate noise everywhere; "noise" is unrelated.
Synthetic synthetic(std::uint64_t seed, double split) {
  Synthetic s;
  for (int t = 0; t < 40; ++t) s.task_ids.push_back("task" + std::to_string(t));
  const auto in_sel = meta::split_tasks(s.task_ids, split, seed);
  util::SplitMix64 rng(99);
  s.scores.resize(3);
  for (std::size_t t = 0; t < s.task_ids.size(); ++t) {
    for (int c = 0; c < 5; ++c) {
      const double h = static_cast<double>(rng.below(5));
      s.task_of_item.push_back(t);
      s.human.push_back(h);
      s.scores[0].push_back(in_sel[t] ? h + 0.01 * rng.uniform() : rng.uniform());
      s.scores[1].push_back(h + 3.0 * rng.uniform());
      s.scores[2].push_back(rng.uniform());
    }
  }
  return s;
}

TEST(SelectSplit, DeterministicOrderFreeAndSized) {
  std::vector<std::string> ids;
  for (int i = 0; i < 10; ++i) ids.push_back("t" + std::to_string(i));
  const auto a = meta::split_tasks(ids, 0.5, 7);
  EXPECT_EQ(a, meta::split_tasks(ids, 0.5, 7));
  EXPECT_EQ(std::count(a.begin(), a.end(), true), 5);
  // Reversing the task list keeps every task's side.
  std::vector<std::string> rev(ids.rbegin(), ids.rend());
  const auto b = meta::split_tasks(rev, 0.5, 7);
  for (std::size_t i = 0; i < ids.size(); ++i) EXPECT_EQ(a[i], b[ids.size() - 1 - i]);
  EXPECT_NE(a, meta::split_tasks(ids, 0.5, 8));
  const auto c = meta::split_tasks(ids, 0.3, 1);
  EXPECT_EQ(std::count(c.begin(), c.end(), true), 3);
}

TEST(SelectVariant, ReportsTheWinnersTestHalfNeverItsSelectionScore) {
  const auto s = synthetic(3, 0.5);
  meta::SelectionOptions o;
  o.seed = 3;
  o.bootstrap = 200;
  o.permutations = 200;
  const auto r = meta::select_variant(s.scores, {"overfit", "steady", "noise"}, s.human,
                                      s.task_of_item, s.task_ids, o);
  ASSERT_EQ(r.winner, 0u);  // chosen on the selection half, where it is perfect
  EXPECT_GT(r.variants[0].selection, 0.95);
  // The reported number is recomputed on test items only.
  const auto in_sel = meta::split_tasks(s.task_ids, 0.5, 3);
  std::vector<double> x, h;
  for (std::size_t i = 0; i < s.human.size(); ++i) {
    if (in_sel[s.task_of_item[i]]) continue;
    x.push_back(s.scores[0][i]);
    h.push_back(s.human[i]);
  }
  EXPECT_DOUBLE_EQ(r.winner_test, stats::spearman(x, h).statistic);
  EXPECT_DOUBLE_EQ(r.winner_test, r.variants[0].test);
  EXPECT_NE(r.winner_test, r.variants[0].selection);
  EXPECT_LT(r.winner_test, 0.3);
  EXPECT_TRUE(r.winner_test_ci.low <= r.winner_test && r.winner_test <= r.winner_test_ci.high);
  // On the test half the steady variant beats the overfit winner.
  EXPECT_GT(r.variants[1].test, r.winner_test);
  EXPECT_LT(r.variants[1].delta_vs_winner, 0.0);
  EXPECT_LT(r.variants[1].p_vs_winner, 0.05);
  EXPECT_GE(r.variants[1].p_vs_winner_holm, r.variants[1].p_vs_winner);
  EXPECT_TRUE(std::isnan(r.variants[0].p_vs_winner));
  // The selection-half winner is far beyond what the best of three unrelated variants reaches.
  EXPECT_LT(r.p_max_selection, 0.01);
  EXPECT_EQ(r.selection_tasks, 20u);
  EXPECT_EQ(r.selection_items + r.test_items, 200u);
}

// --level: the variants are chosen and reported by the level statistic of each half, the CI
// resamples the half's tasks (or systems) and the paired test is the level's permutation test.
TEST(SelectVariant, AtALevelChoosesAndReportsTheLevelStatisticOfEachHalf) {
  const auto s = synthetic(3, 0.5);
  std::vector<std::size_t> system_of_item;
  for (std::size_t i = 0; i < s.human.size(); ++i) system_of_item.push_back(i % 5);
  const auto in_sel = meta::split_tasks(s.task_ids, 0.5, 3);
  for (stats::Level level : {stats::Level::kTask, stats::Level::kSystem}) {
    SCOPED_TRACE(std::string(stats::level_name(level)));
    meta::SelectionOptions o;
    o.seed = 3;
    o.bootstrap = 200;
    o.permutations = 200;
    o.level = level;
    o.statistic = stats::LevelStatistic::kKendallB;
    const auto r = meta::select_variant(s.scores, {"overfit", "steady", "noise"}, s.human,
                                        s.task_of_item, s.task_ids, o, system_of_item, 5);
    ASSERT_EQ(r.winner, 0u);
    // Each half's value is level_statistic over that half's candidates alone.
    for (std::size_t v = 0; v < 3; ++v)
      for (bool selection : {true, false}) {
        stats::LevelData d;
        d.num_tasks = s.task_ids.size();
        d.num_systems = 5;
        for (std::size_t i = 0; i < s.human.size(); ++i) {
          if (in_sel[s.task_of_item[i]] != selection) continue;
          d.gold.push_back(s.human[i]);
          d.metric.push_back(s.scores[v][i]);
          d.task.push_back(s.task_of_item[i]);
          d.system.push_back(system_of_item[i]);
        }
        const double expected = stats::level_statistic(o.statistic, level, d).value;
        EXPECT_DOUBLE_EQ(selection ? r.variants[v].selection : r.variants[v].test, expected);
      }
    EXPECT_TRUE(r.winner_test_ci.low <= r.winner_test && r.winner_test <= r.winner_test_ci.high);
    EXPECT_FALSE(std::isnan(r.variants[1].p_vs_winner));
    EXPECT_GE(r.variants[1].p_vs_winner_holm, r.variants[1].p_vs_winner);
    EXPECT_LT(r.p_max_selection, 0.05);
    // Same seed, same bytes at any thread count.
    o.threads = 1;
    const auto one = meta::select_variant(s.scores, {"overfit", "steady", "noise"}, s.human,
                                          s.task_of_item, s.task_ids, o, system_of_item, 5);
    EXPECT_EQ(one.winner_test_ci.low, r.winner_test_ci.low);
    EXPECT_EQ(one.p_max_selection, r.p_max_selection);
    EXPECT_EQ(one.variants[1].p_vs_winner, r.variants[1].p_vs_winner);
  }
  meta::SelectionOptions o;
  o.level = stats::Level::kSystem;
  EXPECT_THROW(
      meta::select_variant(s.scores, {"a", "b", "c"}, s.human, s.task_of_item, s.task_ids, o),
      std::invalid_argument);
}

TEST(SelectVariant, MaxStatisticPIsLargeWhenNothingIsAssociated) {
  util::SplitMix64 rng(5);
  Synthetic s;
  for (int t = 0; t < 30; ++t) s.task_ids.push_back("t" + std::to_string(t));
  s.scores.resize(4);
  for (std::size_t t = 0; t < 30; ++t)
    for (int c = 0; c < 4; ++c) {
      s.task_of_item.push_back(t);
      s.human.push_back(rng.uniform());
      for (auto& v : s.scores) v.push_back(rng.uniform());
    }
  meta::SelectionOptions o;
  o.bootstrap = 0;
  o.permutations = 300;
  const auto r =
      meta::select_variant(s.scores, {"a", "b", "c", "d"}, s.human, s.task_of_item, s.task_ids, o);
  EXPECT_GT(r.p_max_selection, 0.05);
}

TEST(SelectCli, ReportsTestHalfAndExitCodes) {
  const std::string dir = probity::test::temp_dir("select-cli");
  const auto s = synthetic(11, 0.5);
  const std::string data = dir + "/data.jsonl", scores = dir + "/scores.jsonl";
  {
    std::ofstream d(data), sc(scores);
    const char* names[] = {"overfit", "steady", "noise"};
    for (std::size_t t = 0; t < s.task_ids.size(); ++t) {
      json task = {{"task_id", s.task_ids[t]},
                   {"references", {{{"id", "r"}, {"text", "reference text"}}}}};
      task["candidates"] = json::array();
      for (std::size_t i = 0; i < s.human.size(); ++i) {
        if (s.task_of_item[i] != t) continue;
        const std::string id = "c" + std::to_string(i);
        task["candidates"].push_back(
            {{"id", id}, {"text", "text " + id}, {"human", {{"quality", {s.human[i]}}}}});
        for (int v = 0; v < 3; ++v)
          sc << json{{"task_id", s.task_ids[t]},
                     {"candidate_id", id},
                     {"metric", names[v]},
                     {"score", s.scores[v][i]}}
                    .dump()
             << "\n";
      }
      d << task.dump() << "\n";
    }
  }
  auto r = run_probity("select --data " + data + " --scores " + scores +
                       " --metric overfit --metric steady --metric noise --split 0.5 --seed 11 "
                       "--bootstrap 100 --permutations 100 --json");
  ASSERT_EQ(r.exit_code, 0) << r.err;
  const auto doc = json::parse(r.out);
  const auto& res = doc["results"][0];
  EXPECT_EQ(res["winner"], "overfit");
  EXPECT_DOUBLE_EQ(res["winner_test"].get<double>(), res["variants"][0]["test"].get<double>());
  EXPECT_NE(res["winner_test"].get<double>(), res["variants"][0]["selection"].get<double>());
  // The table says which number is the result.
  r = run_probity("select --data " + data + " --scores " + scores +
                  " --metric overfit --metric steady --seed 11 --bootstrap 0 --permutations 50");
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_NE(r.out.find("reported: overfit"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("on the test half"), std::string::npos) << r.out;

  // Usage errors: one variant, a split outside (0, 1), a metric absent from the scores.
  EXPECT_EQ(
      run_probity("select --data " + data + " --scores " + scores + " --metric overfit").exit_code,
      2);
  EXPECT_EQ(run_probity("select --data " + data + " --scores " + scores +
                        " --metric overfit --metric steady --split 1")
                .exit_code,
            2);
  EXPECT_EQ(run_probity("select --data " + data + " --scores " + scores +
                        " --metric overfit --metric nothere")
                .exit_code,
            2);
  // Invalid input: a data line with a candidate text that is not a string.
  std::ofstream(dir + "/bad.jsonl")
      << R"({"task_id": "t", "references": [{"text": "x"}], "candidates": [{"id": "c", "text": 1}]})"
      << "\n";
  EXPECT_EQ(
      run_probity("select --data " + dir + "/bad.jsonl --metric bleu --metric chrf").exit_code, 3);
}

TEST(SelectCli, ComputesMetricsWhenNoScoresAreGiven) {
  const std::string data = probity::test::data_path("summeval/summeval_sample20.jsonl");
  auto r = run_probity("select --data " + data +
                       " --metric bleu --metric rougeL.f --dimension relevance --seed 2 "
                       "--bootstrap 50 --permutations 50 --json");
  ASSERT_EQ(r.exit_code, 0) << r.err;
  const auto doc = json::parse(r.out);
  EXPECT_EQ(doc["results"][0]["test_tasks"], 10);
  EXPECT_EQ(doc["results"][0]["variants"].size(), 2u);
}

}  // namespace
