// The audit's correlation section at the field's levels (issue 14): --level rows equal
// mt-metrics-eval's values, the length and random baselines sit beside the metrics, --rank gives
// the clusters `probity rank` gives, preferences are scored when the data has pairs, and
// report.json carries all of it through a round trip.
#include <fmt/format.h>
#include <gtest/gtest.h>

#include <cmath>
#include <filesystem>
#include <fstream>
#include <map>
#include <nlohmann/json.hpp>
#include <tuple>

#include "cli_runner.hpp"
#include "probity/audit.hpp"
#include "probity/error.hpp"
#include "probity/report.hpp"
#include "test_paths.hpp"

namespace probity::test {
namespace {

using nlohmann::json;

json read_json(const std::string& path) {
  std::ifstream in(path);
  return json::parse(in);
}

std::string out_dir(const std::string& name) {
  const auto dir = std::filesystem::temp_directory_path() / ("probity_audit_levels_" + name);
  std::filesystem::remove_all(dir);
  return dir.string();
}

// The bundled SummEval scores of chrf and gem as audited metrics (scores:FILE).
std::string scored_metrics() {
  const std::string data = data_path("summeval/summeval.jsonl");
  const std::string scores = golden_path("meta_eval/summeval_scores.jsonl");
  std::string out;
  for (const char* m : {"chrf", "gem"})
    out += fmt::format(" --metric scores:{},data={},metric={}", scores, data, m);
  return " --data " + data + out + " --degrade none --manipulate none";
}

TEST(AuditLevels, LevelRowsAreMtMetricsEvalsValuesAndBaselinesSitBesideTheMetrics) {
  const std::string dir = out_dir("summeval");
  auto r = run_probity("audit" + scored_metrics() +
                       " --level item --level task --level system --statistic kendall"
                       " --statistic pearson --statistic acc-eq --bootstrap 0 --out " +
                       dir);
  ASSERT_EQ(r.exit_code, 0) << r.err;
  const json report = read_json(dir + "/report.json");
  EXPECT_EQ(report["levels"], json({"item", "task", "system"}));

  const json golden = read_json(golden_path("meta_eval/summeval.json"));
  const std::map<std::string, std::string> stat = {
      {"kendall_b", "kendall"}, {"pearson", "pearson"}, {"kendall_acc23_opt", "acc-eq"}};
  std::map<std::tuple<std::string, std::string, std::string, std::string>, double> expected;
  for (const json& e : golden["results"]) {
    auto s = stat.find(e["stat"].get<std::string>());
    if (s == stat.end() || e["level"] == "system_rows") continue;
    expected[{e["metric"], e["gold"], e["level"], s->second}] = e["value"].get<double>();
  }
  std::size_t compared = 0;
  std::vector<std::string> names;
  for (const json& c : report["correlations"]) {
    names.push_back(c["metric"].get<std::string>());
    const bool baseline = c.value("baseline", false);
    EXPECT_EQ(baseline, c["metric"].get<std::string>().starts_with("baseline:"));
    // 4 dimensions x 3 levels x 3 statistics, for metrics and baselines alike.
    EXPECT_EQ(c["levels"].size(), 36u) << c["metric"];
    if (baseline) continue;
    const std::string metric =
        c["metric"].get<std::string>().find("chrf") != std::string::npos ? "chrf" : "gem";
    for (const json& row : c["levels"]) {
      auto e = expected.find({metric, row["dimension"], row["level"], row["statistic"]});
      if (e == expected.end()) continue;
      EXPECT_NEAR(row["value"].get<double>(), e->second, 1e-9) << row.dump();
      ++compared;
    }
  }
  EXPECT_GE(compared, 30u);  // every golden cell of relevance and coherence, both metrics
  ASSERT_EQ(names.size(), 4u);
  EXPECT_EQ(names[2], "baseline:length");
  EXPECT_EQ(names[3], "baseline:random");

  // The tables a reader sees: the pooled table with baseline rows and one table per level.
  const std::string md = read_text(dir + "/report.md");
  EXPECT_NE(md.find("| baseline:length |"), std::string::npos);
  EXPECT_NE(md.find("Human correlation by level — summeval: task level, kendall"),
            std::string::npos);
  EXPECT_NE(md.find("system level, acc-eq"), std::string::npos);
  // Baselines are in the correlation tables only, never in the strategy grids.
  const std::string grid_dir = out_dir("grid");
  auto g =
      run_probity("audit --data " + data_path("summeval/summeval_sample20.jsonl") +
                  " --metric bleu --degrade none --manipulate R --bootstrap 0 --out " + grid_dir);
  ASSERT_EQ(g.exit_code, 0) << g.err;
  const std::string grid_md = read_text(grid_dir + "/report.md");
  ASSERT_NE(grid_md.find("## Manipulation tests"), std::string::npos);
  EXPECT_EQ(grid_md.substr(grid_md.find("## Manipulation tests")).find("baseline:"),
            std::string::npos);
  EXPECT_NE(grid_md.find("| baseline:length |"), std::string::npos);

  // report.json reads back and writes out byte-identical.
  const std::string text = read_text(dir + "/report.json");
  EXPECT_EQ(report::to_json(report::from_json(text)), text);
}

TEST(AuditLevels, RankIsTheRankCommandsClustersAndNoBaselinesLeavesThemOut) {
  const std::string data = data_path("summeval/summeval.jsonl");
  const std::string dir = out_dir("rank");
  auto a = run_probity("audit --data " + data +
                       " --metric chrf --metric rougeL --degrade none --manipulate none"
                       " --level system --statistic kendall --rank --permutations 200 --seed 3"
                       " --bootstrap 0 --no-baselines --out " +
                       dir);
  ASSERT_EQ(a.exit_code, 0) << a.err;
  const json report = read_json(dir + "/report.json");
  for (const json& c : report["correlations"]) EXPECT_FALSE(c.value("baseline", false));
  ASSERT_EQ(report["rankings"].size(), 4u);  // one per dimension

  // `probity rank` on the same metrics' scores (same names, so the same per-pair seeds).
  const std::string scores = dir + "/scores.jsonl";
  ASSERT_EQ(run_probity("score --data " + data + " --metric chrf --metric rougeL.f --out " + scores)
                .exit_code,
            0);
  auto r = run_probity("rank --data " + data + " --scores " + scores +
                       " --level system --statistic kendall --permutations 200 --seed 3 --json");
  ASSERT_EQ(r.exit_code, 0) << r.err;
  const json ranked = json::parse(r.out);
  ASSERT_EQ(ranked["results"].size(), 4u);
  for (std::size_t d = 0; d < 4; ++d) {
    const json& mine = report["rankings"][d];
    const json& theirs = ranked["results"][d];
    EXPECT_EQ(mine["dimension"], theirs["dimension"]);
    EXPECT_EQ(mine["level"], "system");
    EXPECT_EQ(mine["ranking"], theirs["ranking"]);
    EXPECT_EQ(mine["tests"], theirs["tests"]);
  }
  EXPECT_NE(read_text(dir + "/report.md").find("## Significance clusters"), std::string::npos);
}

TEST(AuditLevels, PreferencesAreScoredWhenTheDataHasPairs) {
  const std::string data = data_path("lfqa_e/lfqa_e_zh.jsonl");
  const std::string dir = out_dir("lfqa");
  auto a =
      run_probity("audit --data " + data +
                  " --metric chrf --degrade none --manipulate none --bootstrap 100 --out " + dir);
  ASSERT_EQ(a.exit_code, 0) << a.err;
  const json report = read_json(dir + "/report.json");
  ASSERT_EQ(report["correlations"].size(), 3u);  // chrf and the two baselines
  const json& pref = report["correlations"][0]["preference"];
  ASSERT_TRUE(pref.is_object());

  // The same number as `correlate --statistic preference-acc` on chrf's scores.
  const std::string scores = dir + "/chrf.scores.jsonl";
  ASSERT_EQ(run_probity("score --data " + data + " --metric chrf --out " + scores).exit_code, 0);
  auto c = run_probity("correlate --data " + data + " --scores " + scores +
                       " --statistic preference-acc --bootstrap 100 --json --no-baselines");
  ASSERT_EQ(c.exit_code, 0) << c.err;
  const json row = json::parse(c.out)["results"][0];
  EXPECT_EQ(pref["accuracy"], row["value"]);
  EXPECT_EQ(pref["strict"], row["n"]);
  EXPECT_EQ(pref["ci_lo"], row["ci_lo"]);
  EXPECT_EQ(pref["ci_hi"], row["ci_hi"]);
  EXPECT_NE(read_text(dir + "/report.md").find("Human preference agreement"), std::string::npos);
}

TEST(AuditLevels, TheSystemLevelWithoutSystemsIsAUsageError) {
  const auto dir = std::filesystem::temp_directory_path() / "probity_audit_levels_nosys";
  std::filesystem::create_directories(dir);
  const std::string data = (dir / "d.jsonl").string();
  {
    std::ofstream out(data);
    out << R"({"task_id": "t", "references": ["a b c"], "candidates": [{"id": "x", "text": "a b", "human": {"q": 1}}, {"id": "y", "text": "a", "human": {"q": 2}}]})"
        << "\n";
  }
  auto a = run_probity("audit --data " + data + " --metric bleu --level system --out " +
                       (dir / "out").string());
  EXPECT_EQ(a.exit_code, 2) << a.err;
  EXPECT_NE(a.err.find("--level system needs candidates that name their system"), std::string::npos)
      << a.err;
}

}  // namespace
}  // namespace probity::test

namespace probity::test {
namespace {

TEST(AuditLevels, PairsDerivedFromRatingsAreEveryRatedPairOfATask) {
  Dataset ds;
  Task t;
  t.task_id = "t";
  t.references = {{"r", "x"}};
  auto cand = [](std::string id, double q) {
    Candidate c;
    c.id = std::move(id);
    c.text = "x";
    c.human["q"] = {q};
    return c;
  };
  t.candidates = {cand("a", 3), cand("b", 1), cand("c", 3.2), cand("d", 0)};
  t.candidates[3].human.clear();  // d is not rated: in no pair
  ds.tasks.push_back(t);
  EXPECT_EQ(derive_preferences(ds, "q", 0.5), 3u);
  const auto& p = ds.tasks[0].pairs;
  ASSERT_EQ(p.size(), 3u);
  EXPECT_EQ(p[0].a + p[0].b + p[0].preferred, "aba");    // 3 > 1
  EXPECT_EQ(p[1].a + p[1].b + p[1].preferred, "actie");  // |3 - 3.2| <= 0.5
  EXPECT_EQ(p[2].a + p[2].b + p[2].preferred, "bcb");    // 1 < 3.2
  // The agreement of a metric with them: a over b agrees, b under c agrees; the tie is apart.
  const std::vector<ItemRef> items = {{0, 0}, {0, 1}, {0, 2}, {0, 3}};
  const std::vector<double> scores = {0.9, 0.1, 0.5, 0.0};
  const auto agreement = preference_agreement(ds, items, scores, {0});
  EXPECT_EQ(agreement.result.strict, 2u);
  EXPECT_EQ(agreement.result.human_ties, 1u);
  EXPECT_EQ(agreement.result.accuracy, 1.0);
  // Human pairs are never replaced.
  EXPECT_THROW(derive_preferences(ds, "q", 0), UsageError);
}

}  // namespace
}  // namespace probity::test
