// `probity correlate --level ... --statistic ...` end to end: the bundled SummEval scores at
// every level against mt-metrics-eval's values (tests/golden/meta_eval/summeval.json).
#include <gtest/gtest.h>

#include <cmath>
#include <fstream>
#include <map>
#include <nlohmann/json.hpp>
#include <string>
#include <tuple>

#include "cli_runner.hpp"
#include "probity/engine.hpp"
#include "probity/metric.hpp"
#include "probity/stats.hpp"
#include "test_paths.hpp"

namespace {

using nlohmann::json;
using probity::test::run_probity;

// The rows of the metrics and baselines: without the `humans` ceiling rows that come first when
// items have several ratings (SummEval: three experts).
json without_humans(const json& rows) {
  json out = json::array();
  for (const json& row : rows)
    if (!row.value("humans", false)) out.push_back(row);
  return out;
}

TEST(CorrelateLevels, EveryLevelAndStatisticMatchesMtMetricsEvalOnSummEval) {
  const std::string data = probity::test::data_path("summeval/summeval.jsonl");
  const std::string scores = probity::test::golden_path("meta_eval/summeval_scores.jsonl");
  auto r = run_probity("correlate --data " + data + " --scores " + scores +
                       " --metric chrf --metric gem --dimension relevance --dimension coherence"
                       " --level item --level task --level system --statistic pearson"
                       " --statistic spearman --statistic kendall --statistic kendall-c"
                       " --statistic pairwise-acc --statistic acc-eq --bootstrap 0 --json");
  ASSERT_EQ(r.exit_code, 0) << r.err;
  const json got = json::parse(r.out);
  std::ifstream f(probity::test::golden_path("meta_eval/summeval.json"));
  const json golden = json::parse(f);
  const std::map<std::string, std::string> stat = {{"pearson", "pearson"},
                                                   {"spearman", "spearman"},
                                                   {"kendall_b", "kendall"},
                                                   {"kendall_c", "kendall-c"},
                                                   {"pairwise_accuracy", "pairwise-acc"},
                                                   {"kendall_acc23_opt", "acc-eq"}};
  std::map<std::tuple<std::string, std::string, std::string, std::string>, json> expected;
  for (const json& e : golden["results"]) {
    auto s = stat.find(e["stat"].get<std::string>());
    if (s == stat.end() || e["level"] == "system_rows") continue;
    expected[{e["metric"], e["gold"], e["level"], s->second}] = e;
  }
  std::size_t compared = 0;
  EXPECT_EQ(got["results"][0]["metric"], "humans");
  for (const json& row : without_humans(got["results"])) {
    if (row["baseline"]) continue;
    const auto key =
        std::make_tuple(row["metric"].get<std::string>(), row["dimension"].get<std::string>(),
                        row["level"].get<std::string>(), row["statistic"].get<std::string>());
    auto e = expected.find(key);
    if (e == expected.end()) {
      // Pairwise accuracy is recorded at the system level only.
      EXPECT_EQ(row["statistic"], "pairwise-acc") << row.dump();
      continue;
    }
    EXPECT_NEAR(row["value"].get<double>(), e->second["value"].get<double>(), 1e-9) << row.dump();
    if (row["statistic"] == "acc-eq") {
      EXPECT_EQ(row["epsilon"].get<double>(), e->second["epsilon_exact"].get<double>());
    }
    ++compared;
  }
  EXPECT_EQ(compared, 2u * 2u * 16u);  // metrics x dimensions x (5 + 5 + 6)
}

TEST(CorrelateLevels, BootstrapResamplesTasksOrSystemsAndIsSeeded) {
  const std::string data = probity::test::data_path("summeval/summeval.jsonl");
  const std::string scores = probity::test::golden_path("meta_eval/summeval_scores.jsonl");
  const std::string cmd = "correlate --data " + data + " --scores " + scores +
                          " --metric chrf --dimension relevance --level task --level system"
                          " --statistic kendall --bootstrap 200 --seed 7 --json --no-baselines";
  auto a = run_probity(cmd);
  ASSERT_EQ(a.exit_code, 0) << a.err;
  EXPECT_EQ(run_probity(cmd + " --threads 1").out, a.out);  // same bytes at any thread count
  const json j = json::parse(a.out);
  ASSERT_EQ(without_humans(j["results"]).size(), 2u);
  for (const json& row : without_humans(j["results"])) {
    const double v = row["value"], lo = row["ci_lo"], hi = row["ci_hi"];
    EXPECT_LE(lo, v);
    EXPECT_LE(v, hi);
    EXPECT_EQ(row["resampled"], row["level"] == "system" ? "systems" : "tasks");
  }
  EXPECT_NE(run_probity(cmd + " --seed 8").out, a.out);
}

TEST(CorrelateLevels, BadNamesAreUsageErrorsAndTheSystemLevelNeedsSystems) {
  const std::string data = probity::test::data_path("summeval/summeval.jsonl");
  const std::string scores = probity::test::golden_path("meta_eval/summeval_scores.jsonl");
  const std::string base = "correlate --data " + data + " --scores " + scores + " --metric chrf";
  auto ok = run_probity(base + " --level task --bootstrap 0");
  ASSERT_EQ(ok.exit_code, 0) << ok.err;
  auto bad = run_probity(base + " --level segment");
  EXPECT_EQ(bad.exit_code, 2);
  EXPECT_NE(bad.err.find("segment"), std::string::npos) << bad.err;
  auto stat = run_probity(base + " --statistic tau");
  EXPECT_EQ(stat.exit_code, 2);
  // The same data without the `system` field.
  const std::string dir = probity::test::temp_dir("levels_nosys");
  {
    std::ifstream in(data);
    std::ofstream out(dir + "/nosys.jsonl");
    for (std::string line; std::getline(in, line);) {
      json t = json::parse(line);
      for (json& c : t["candidates"]) c.erase("system");
      out << t.dump() << "\n";
    }
  }
  auto nosys = run_probity("correlate --data " + dir + "/nosys.jsonl --scores " + scores +
                           " --metric chrf --level system --bootstrap 0");
  EXPECT_EQ(nosys.exit_code, 2) << nosys.err;
  EXPECT_NE(nosys.err.find("system"), std::string::npos) << nosys.err;
}

TEST(Rank, ClustersEveryMetricWithSeededPermutationTests) {
  const std::string data = probity::test::data_path("summeval/summeval.jsonl");
  const std::string scores = probity::test::golden_path("meta_eval/summeval_scores.jsonl");
  const std::string cmd = "rank --data " + data + " --scores " + scores +
                          " --dimension relevance --level task --statistic kendall"
                          " --permutations 200 --json";
  auto r = run_probity(cmd);
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_EQ(run_probity(cmd + " --threads 1").out, r.out);
  const json j = json::parse(r.out);
  const json& res = j["results"][0];
  ASSERT_EQ(res["ranking"].size(), 5u);
  EXPECT_EQ(res["tests"].size(), 10u);
  double previous = 2;
  std::size_t rank = 1;
  for (const json& row : res["ranking"]) {
    EXPECT_LE(row["value"].get<double>(), previous);
    previous = row["value"];
    EXPECT_GE(row["rank"].get<std::size_t>(), rank);
    rank = row["rank"];
  }
  EXPECT_EQ(res["ranking"][0]["rank"], 1);
  for (const json& t : res["tests"])
    EXPECT_GE(t["p_adjusted"].get<double>(), t["p"].get<double>());  // Holm never lowers p
  auto one = run_probity("rank --data " + data + " --scores " + scores + " --metric chrf");
  EXPECT_EQ(one.exit_code, 2);
}

TEST(CorrelateLevels, PreferenceAgreementOnLfqaE) {
  // LFQA-E zh: 594 tasks, 1,193 expert preferences (96 ties), no ratings. The expected value is
  // counted here from the scores file and the pairs, independently of probity's code.
  const std::string data = probity::test::data_path("lfqa_e/lfqa_e_zh.jsonl");
  const std::string dir = probity::test::temp_dir("levels_lfqa");
  const std::string scores = dir + "/s.jsonl";
  auto s = run_probity("score --data " + data + " --metric chrf --out " + scores);
  ASSERT_EQ(s.exit_code, 0) << s.err;
  std::map<std::pair<std::string, std::string>, double> score;
  {
    std::ifstream f(scores);
    for (std::string line; std::getline(f, line);) {
      const json r = json::parse(line);
      if (r.contains("score")) score[{r["task_id"], r["candidate_id"]}] = r["score"];
    }
  }
  double credit = 0;
  std::size_t strict = 0, ties = 0;
  {
    std::ifstream f(data);
    for (std::string line; std::getline(f, line);) {
      const json t = json::parse(line);
      for (const json& p : t["pairs"]) {
        if (p["preferred"] == "tie") {
          ++ties;
          continue;
        }
        const double a = score.at({t["task_id"], p["a"]}), b = score.at({t["task_id"], p["b"]});
        ++strict;
        credit += a == b ? 0.5 : ((a > b) == (p["preferred"] == "a") ? 1.0 : 0.0);
      }
    }
  }
  ASSERT_EQ(strict + ties, 1193u);
  auto r = run_probity("correlate --data " + data + " --scores " + scores +
                       " --statistic preference-acc --bootstrap 100 --json");
  ASSERT_EQ(r.exit_code, 0) << r.err;
  const json row = json::parse(r.out)["results"][0];
  EXPECT_DOUBLE_EQ(row["value"].get<double>(), credit / static_cast<double>(strict));
  EXPECT_EQ(row["n"], strict);
  EXPECT_EQ(row["human_ties"], ties);
  EXPECT_EQ(row["groups"], 594);
  EXPECT_LT(row["ci_lo"].get<double>(), row["value"].get<double>());
  // Without pairs the statistic is a usage error.
  auto none =
      run_probity("correlate --data " + probity::test::data_path("summeval/summeval.jsonl") +
                  " --scores " + probity::test::golden_path("meta_eval/summeval_scores.jsonl") +
                  " --statistic preference-acc");
  EXPECT_EQ(none.exit_code, 2);
  EXPECT_NE(none.err.find("pairs"), std::string::npos) << none.err;
}

TEST(CompareLevels, TheLevelTestsDeltaIsTheDifferenceOfTheLevelValues) {
  const std::string data = probity::test::data_path("summeval/summeval.jsonl");
  const std::string scores = probity::test::golden_path("meta_eval/summeval_scores.jsonl");
  for (const std::string level : {"item", "task", "system"}) {
    const std::string cmd = "compare --data " + data + " --scores " + scores +
                            " --metric chrf --metric bleu --dimension relevance --level " + level +
                            " --correlation kendall --permutations 200 --json";
    auto r = run_probity(cmd);
    ASSERT_EQ(r.exit_code, 0) << r.err;
    EXPECT_EQ(run_probity(cmd + " --threads 1").out, r.out);
    const json row = json::parse(r.out)["results"][0];
    auto c = run_probity("correlate --data " + data + " --scores " + scores +
                         " --metric chrf --metric bleu --dimension relevance --level " + level +
                         " --statistic kendall --bootstrap 0 --json");
    ASSERT_EQ(c.exit_code, 0) << c.err;
    const json corr = without_humans(json::parse(c.out)["results"]);
    const double chrf = corr[0]["metric"] == "chrf" ? corr[0]["value"] : corr[1]["value"];
    const double bleu = corr[0]["metric"] == "bleu" ? corr[0]["value"] : corr[1]["value"];
    EXPECT_NEAR(row["chrf"].get<double>(), chrf, 1e-12) << level;
    EXPECT_NEAR(row["bleu"].get<double>(), bleu, 1e-12) << level;
    EXPECT_NEAR(row["delta"].get<double>(), chrf - bleu, 1e-9) << level;
    EXPECT_GE(row["p_two_sided"].get<double>(), 0.0);
    EXPECT_LE(row["p_two_sided"].get<double>(), 1.0);
  }
}

TEST(CorrelateLevels, LengthAndRandomBaselinesAreShownUnlessSwitchedOff) {
  const std::string data = probity::test::data_path("summeval/summeval.jsonl");
  const std::string scores = probity::test::golden_path("meta_eval/summeval_scores.jsonl");
  const std::string cmd = "correlate --data " + data + " --scores " + scores +
                          " --metric chrf --dimension relevance --level task --statistic kendall"
                          " --bootstrap 0 --json";
  auto r = run_probity(cmd);
  ASSERT_EQ(r.exit_code, 0) << r.err;
  const json all = json::parse(r.out)["results"];
  ASSERT_EQ(all.size(), 4u);
  EXPECT_EQ(all[0]["metric"], "humans");  // the ceiling above, the baselines below
  const json rows = without_humans(all);
  ASSERT_EQ(rows.size(), 3u);
  EXPECT_EQ(rows[1]["metric"], "baseline:length");
  EXPECT_EQ(rows[2]["metric"], "baseline:random");
  EXPECT_TRUE(rows[1]["baseline"].get<bool>());
  EXPECT_FALSE(rows[0]["baseline"].get<bool>());
  // Chance: |tau| small; same bytes again (seeded).
  EXPECT_LT(std::fabs(rows[2]["value"].get<double>()), 0.1);
  EXPECT_EQ(run_probity(cmd).out, r.out);
  auto off = run_probity(cmd + " --no-baselines");
  EXPECT_EQ(without_humans(json::parse(off.out)["results"]).size(), 1u);
}

TEST(Baselines, LengthCountsCharactersOrTokensAndRandomIsUniformAndSeeded) {
  auto chars = probity::make_metric("length");
  auto tokens = probity::make_metric("length,unit=tokens");
  probity::MetricInput in;
  in.candidate = "caf\xc3\xa9  au\tlait ";
  EXPECT_EQ(chars->score(in)[0], 14.0);
  EXPECT_EQ(tokens->score(in)[0], 3.0);
  auto r0 = probity::make_metric("random");
  auto r1 = probity::make_metric("random,seed=1");
  double sum = 0;
  std::vector<std::string> texts;
  for (int i = 0; i < 2000; ++i) texts.push_back("candidate " + std::to_string(i));
  for (const auto& t : texts) {
    in.candidate = t;
    const double v = r0->score(in)[0];
    EXPECT_GE(v, 0.0);
    EXPECT_LT(v, 1.0);
    sum += v;
  }
  EXPECT_NEAR(sum / 2000, 0.5, 0.03);
  in.candidate = texts[0];
  EXPECT_EQ(r0->score(in)[0], r0->score(in)[0]);
  EXPECT_NE(r0->score(in)[0], r1->score(in)[0]);
}

}  // namespace

namespace {

TEST(CorrelateLevels, ResamplingUnitsAreNamedAndTwoStageCrossesTasksAndSystems) {
  // stats: a candidate of a task drawn twice and a system drawn three times appears six times.
  probity::stats::LevelData d;
  d.num_tasks = 2;
  d.num_systems = 2;
  d.gold = {1, 2, 3, 4};
  d.metric = {1, 2, 3, 4};
  d.task = {0, 0, 1, 1};
  d.system = {0, 1, 0, 1};
  const std::vector<std::size_t> tasks{0, 0}, systems{1, 1, 1};
  const auto r = probity::stats::resample_tasks_and_systems(d, tasks, systems);
  EXPECT_EQ(r.gold, std::vector<double>(6, 2.0));  // task 0, system 1 only
  EXPECT_EQ(r.num_tasks, 2u);
  EXPECT_EQ(r.num_systems, 3u);
  EXPECT_EQ(r.task, (std::vector<std::size_t>{0, 0, 0, 1, 1, 1}));
  EXPECT_EQ(r.system, (std::vector<std::size_t>{0, 1, 2, 0, 1, 2}));

  const std::string base = "correlate --data " +
                           probity::test::data_path("summeval/summeval.jsonl") + " --scores " +
                           probity::test::golden_path("meta_eval/summeval_scores.jsonl") +
                           " --metric chrf --dimension relevance --level task --level system"
                           " --statistic kendall --bootstrap 300 --seed 4 --json --no-baselines";
  std::map<std::string, json> by_unit;
  for (const std::string unit : {"level", "tasks", "systems", "both"}) {
    auto out = run_probity(base + " --resample " + unit);
    ASSERT_EQ(out.exit_code, 0) << out.err;
    by_unit[unit] = without_humans(json::parse(out.out)["results"]);
    // Same bytes at one thread.
    auto one = run_probity(base + " --resample " + unit + " --threads 1");
    EXPECT_EQ(one.out, out.out) << unit;
  }
  EXPECT_EQ(by_unit["level"][0]["resampled"], "tasks");
  EXPECT_EQ(by_unit["level"][1]["resampled"], "systems");
  EXPECT_EQ(by_unit["tasks"][1]["resampled"], "tasks");
  EXPECT_EQ(by_unit["systems"][0]["resampled"], "systems");
  EXPECT_EQ(by_unit["both"][0]["resampled"], "tasks+systems");
  // The level default is the same draw as naming its unit.
  EXPECT_EQ(by_unit["level"][0]["ci_lo"], by_unit["tasks"][0]["ci_lo"]);
  EXPECT_EQ(by_unit["level"][0]["ci_hi"], by_unit["tasks"][0]["ci_hi"]);
  EXPECT_EQ(by_unit["level"][1]["ci_lo"], by_unit["systems"][1]["ci_lo"]);
  EXPECT_EQ(by_unit["level"][1]["ci_hi"], by_unit["systems"][1]["ci_hi"]);
  for (const auto& [unit, rows] : by_unit)
    for (const json& row : rows) {
      EXPECT_EQ(row["value"], by_unit["level"][row == rows[0] ? 0 : 1]["value"]);
      EXPECT_LE(row["ci_lo"].get<double>(), row["value"].get<double>()) << unit;
      EXPECT_GE(row["ci_hi"].get<double>(), row["value"].get<double>()) << unit;
    }
  // Two sources of variation: the two-stage interval is wider than either one-stage one.
  auto width = [](const json& row) {
    return row["ci_hi"].get<double>() - row["ci_lo"].get<double>();
  };
  for (std::size_t k : {0u, 1u}) {
    EXPECT_GT(width(by_unit["both"][k]), width(by_unit["tasks"][k]));
    EXPECT_GT(width(by_unit["both"][k]), width(by_unit["systems"][k]));
  }
}

}  // namespace
