// The audit's correlation section at the field's levels: --level rows equal
// mt-metrics-eval's values, the length and random baselines sit beside the metrics, --rank gives
// the clusters `probity rank` gives, preferences are scored when the data has pairs,
// report.json carries all of it through a round trip, and the rows' intervals (// resampling
// without materialised resamples) keep the generic computation's bits.
#include <fmt/format.h>
#include <gtest/gtest.h>

#include <bit>
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
#include "probity/scoring.hpp"
#include "test_paths.hpp"
#include "util/hash.hpp"
#include "util/random.hpp"

namespace probity::test {
namespace {

using nlohmann::json;

json read_json(const std::string& path) {
  std::ifstream in(path);
  return json::parse(in);
}

std::string out_dir(const std::string& name) {
  const auto dir = std::filesystem::path(probity::test::temp_dir("probity_audit_levels_" + name));
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
    if (c.value("humans", false)) continue;  // the ceiling, checked below
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
  // The human ceiling above the metrics (SummEval has three experts per summary), the
  // baselines below.
  ASSERT_EQ(names.size(), 5u);
  EXPECT_EQ(names[0], "humans");
  EXPECT_EQ(names[3], "baseline:length");
  EXPECT_EQ(names[4], "baseline:random");
  EXPECT_EQ(report["correlations"][0]["levels"].size(), 36u);
  EXPECT_EQ(report["correlations"][0]["agreement"].size(), 4u);

  // The tables a reader sees: the pooled table with baseline rows and one table per level.
  const std::string md = read_text(dir + "/report.md");
  EXPECT_NE(md.find("| baseline:length |"), std::string::npos);
  EXPECT_LT(md.find("| humans |"), md.find("| baseline:length |"));
  EXPECT_NE(md.find("Krippendorff"), std::string::npos);
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
  EXPECT_EQ(grid_md.substr(grid_md.find("## Manipulation tests")).find("| humans"),
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
  const auto dir = std::filesystem::path(probity::test::temp_dir("probity_audit_levels_nosys"));
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

namespace probity::test {
namespace {

bool same_bits(double a, double b) {
  return std::bit_cast<std::uint64_t>(a) == std::bit_cast<std::uint64_t>(b);
}

// The CI of a level row as the audit computed it before stats::level_bootstrap_values: each
// resample materialised (resample_units / resample_tasks_and_systems) and measured.
std::pair<stats::ConfidenceInterval, std::size_t> generic_level_ci(
    stats::LevelStatistic statistic, stats::Level level, const stats::LevelData& data,
    ResampleUnit unit, std::uint64_t seed, std::size_t resamples) {
  std::vector<double> values(resamples);
  if (unit != ResampleUnit::kBoth) {
    stats::BootstrapOptions bo;
    bo.resamples = resamples;
    bo.seed = seed;
    const bool systems = unit == ResampleUnit::kSystems;
    const stats::Level by = systems ? stats::Level::kSystem : stats::Level::kTask;
    values = stats::bootstrap(
                 systems ? data.num_systems : data.num_tasks,
                 [&](std::span<const std::size_t> drawn) {
                   return stats::level_statistic(statistic, level,
                                                 stats::resample_units(data, by, drawn))
                       .value;
                 },
                 bo)
                 .distribution;
  } else {
    for (std::size_t r = 0; r < resamples; ++r) {
      util::Rng rng(seed, r);
      std::vector<std::size_t> tasks(data.num_tasks), systems(data.num_systems);
      for (auto& t : tasks) t = rng.below(static_cast<std::uint32_t>(data.num_tasks));
      for (auto& s : systems) s = rng.below(static_cast<std::uint32_t>(data.num_systems));
      values[r] = stats::level_statistic(statistic, level,
                                         stats::resample_tasks_and_systems(data, tasks, systems))
                      .value;
    }
  }
  std::size_t defined = 0;
  for (double v : values) defined += !std::isnan(v);
  return {stats::percentile_interval(values, 0.95), defined};
}

// Every level x statistic x resampling unit of the audit's level rows, and the mean row of the
// pooled table, on a SummEval sample with the length baseline as the metric (many ties): the
// same bits as the generic computation.
TEST(AuditLevels, RowIntervalsAreTheGenericBootstrapsBitForBit) {
  const Dataset ds = load_dataset(data_path("summeval/summeval_sample20.jsonl"));
  const std::vector<ItemRef> items = all_items(ds);
  const std::vector<double> scores = baseline_scores(ds, items)[0].values;
  const std::vector<std::string> dims = {"coherence", "relevance"};
  const auto human = human_matrix(ds, items, dims);
  const stats::Level levels[] = {stats::Level::kItem, stats::Level::kTask, stats::Level::kSystem};
  const stats::LevelStatistic statistics[] = {
      stats::LevelStatistic::kPearson,     stats::LevelStatistic::kSpearman,
      stats::LevelStatistic::kKendallB,    stats::LevelStatistic::kKendallC,
      stats::LevelStatistic::kPairwiseAcc, stats::LevelStatistic::kAccEq};
  std::size_t compared = 0;
  for (ResampleUnit unit : {ResampleUnit::kTasks, ResampleUnit::kSystems, ResampleUnit::kBoth}) {
    CorrelationOptions options;
    options.bootstrap = 60;
    options.seed = 9;
    options.threads = 2;
    options.resample = unit;
    const auto rows =
        level_correlations(ds, items, scores, human, dims, levels, statistics, options);
    ASSERT_EQ(rows.size(), 2u * 3u * 6u);
    for (const LevelCorrelation& row : rows) {
      const std::size_t dim = row.dimension == dims[0] ? 0 : 1;
      const stats::LevelData data = level_data(ds, items, scores, human[dim]);
      const std::uint64_t seed =
          options.seed ^
          util::fnv1a64(fmt::format("{}\x1f{}\x1f{}", row.dimension, stats::level_name(row.level),
                                    stats::level_statistic_name(row.statistic)));
      const auto [ci, defined] =
          generic_level_ci(row.statistic, row.level, data, unit, seed, options.bootstrap);
      const std::string what = row.dimension + " " + std::string(stats::level_name(row.level)) +
                               " " + std::string(stats::level_statistic_name(row.statistic)) + " " +
                               row.unit;
      EXPECT_TRUE(same_bits(row.ci_lo, ci.low)) << what << ": " << row.ci_lo << " vs " << ci.low;
      EXPECT_TRUE(same_bits(row.ci_hi, ci.high)) << what;
      EXPECT_EQ(row.resamples, defined) << what;
      compared += !std::isnan(ci.low);
    }
  }
  EXPECT_GE(compared, 90u);

  // The mean row: one item resample for both dimensions, the mean of spearman() on it.
  CorrelationOptions options;
  options.bootstrap = 150;
  options.seed = 4;
  const auto rows = human_correlations(scores, human, dims, options);
  ASSERT_EQ(rows.back().dimension, "mean");
  stats::BootstrapOptions bo;
  bo.resamples = options.bootstrap;
  bo.seed = options.seed;
  const auto generic = stats::bootstrap(
      scores.size(),
      [&](std::span<const std::size_t> idx) {
        double sum = 0;
        for (const auto& h : human) {
          std::vector<double> x, y;
          for (std::size_t i : idx)
            if (std::isfinite(scores[i]) && std::isfinite(h[i])) {
              x.push_back(scores[i]);
              y.push_back(h[i]);
            }
          sum += stats::spearman(x, y).statistic;
        }
        return sum / static_cast<double>(human.size());
      },
      bo);
  EXPECT_TRUE(same_bits(rows.back().spearman_lo, generic.ci.low));
  EXPECT_TRUE(same_bits(rows.back().spearman_hi, generic.ci.high));
  EXPECT_FALSE(std::isnan(generic.ci.low));
}

}  // namespace
}  // namespace probity::test
