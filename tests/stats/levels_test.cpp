// Item, task and system level statistics against mt-metrics-eval's own outputs
// (tests/golden/meta_eval/*.json, made by tests/golden/gen/mt_metrics_eval_golden.py): every value
// to 1e-9, acc-eq's tie threshold exactly.
#include <gtest/gtest.h>

#include <cmath>
#include <fstream>
#include <map>
#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <vector>

#include "probity/stats.hpp"
#include "test_paths.hpp"

namespace st = probity::stats;
using nlohmann::json;

namespace {

const json& golden(const std::string& name) {
  static std::map<std::string, json> cache;
  auto it = cache.find(name);
  if (it == cache.end()) {
    std::ifstream f(probity::test::golden_path("meta_eval/" + name + ".json"));
    it = cache.emplace(name, json::parse(f)).first;
  }
  return it->second;
}

// mt-metrics-eval's layout (row = system, column = item/task; null = missing) as candidates.
st::LevelData from_matrices(const json& gold, const json& metric) {
  st::LevelData d;
  d.num_systems = gold.size();
  d.num_tasks = gold[0].size();
  for (std::size_t s = 0; s < gold.size(); ++s) {
    for (std::size_t i = 0; i < gold[s].size(); ++i) {
      auto cell = [](const json& v) {
        if (v.is_null()) return std::nan("");
        if (v.is_string()) return std::stod(v.get<std::string>());
        return v.get<double>();
      };
      d.gold.push_back(cell(gold[s][i]));
      d.metric.push_back(cell(metric[s][i]));
      d.task.push_back(i);
      d.system.push_back(s);
    }
  }
  return d;
}

std::optional<st::LevelStatistic> statistic_of(const std::string& stat) {
  if (stat == "pearson") return st::LevelStatistic::kPearson;
  if (stat == "spearman") return st::LevelStatistic::kSpearman;
  if (stat == "kendall_b") return st::LevelStatistic::kKendallB;
  if (stat == "kendall_c") return st::LevelStatistic::kKendallC;
  if (stat == "pairwise_accuracy") return st::LevelStatistic::kPairwiseAcc;
  if (stat == "kendall_acc23_opt") return st::LevelStatistic::kAccEq;
  return std::nullopt;  // p-free variants, sufficient statistics, per-system rows
}

std::optional<st::Level> level_of(const std::string& level) {
  if (level == "item") return st::Level::kItem;
  if (level == "task") return st::Level::kTask;
  if (level == "system") return st::Level::kSystem;
  return std::nullopt;  // "system_rows" (average_by="sys") is not a level probity reports
}

// Compares every result of `file` that probity computes; returns how many were compared.
std::size_t check_file(const std::string& file) {
  const json& g = golden(file);
  std::size_t compared = 0;
  for (const json& r : g["results"]) {
    const auto statistic = statistic_of(r["stat"].get<std::string>());
    const auto level = level_of(r["level"].get<std::string>());
    if (!statistic || !level) continue;
    // probity's system means are over the candidates where both scores exist ("paired").
    if (r.contains("system_rule") && r["system_rule"] != "paired") continue;
    const std::string c = r.value("case", "");
    if (c == "nan_metric") continue;  // ill-defined in mt-metrics-eval; see NaNScoresAreLeftOut
    const json& cases = g.contains("cases") ? g["cases"][c] : g;
    const json& gold =
        cases["gold"].is_object() ? cases["gold"][r.value("gold", "")] : cases["gold"];
    const json& metric = cases.contains("metrics")
                             ? cases["metrics"][r["metric"].get<std::string>()]
                             : cases["metric"];
    const st::LevelData d = from_matrices(gold, metric);
    const st::LevelResult got = st::level_statistic(*statistic, *level, d);
    const std::string what = file + " " + c + " " + r.value("gold", "") + " " +
                             r.value("metric", "") + " " + r["stat"].get<std::string>() + " " +
                             r["level"].get<std::string>();
    // mt-metrics-eval reports 0 with no group used; probity says undefined.
    if (r.value("groups_used", 1) == 0) {
      EXPECT_TRUE(std::isnan(got.value)) << what;
    } else {
      const double e = r["value"].get<double>();
      EXPECT_NEAR(got.value, e, 1e-9) << what;
    }
    if (*level == st::Level::kTask && r.contains("groups_used")) {
      EXPECT_EQ(got.groups, r["groups_used"].get<std::size_t>()) << what;
    }
    if (*statistic == st::LevelStatistic::kAccEq) {
      // Its running float sum can prefer a later threshold of the same exact accuracy; the
      // exact first maximum is `epsilon_exact`.
      EXPECT_EQ(got.epsilon, r["epsilon_exact"].get<double>()) << what;
    }
    ++compared;
  }
  return compared;
}

TEST(Levels, SyntheticCasesMatchMtMetricsEval) {
  EXPECT_EQ(check_file("synthetic"), 26u);
}

TEST(Levels, SummEvalMatchesMtMetricsEvalAtEveryLevel) {
  // 4 dimensions x 5 metrics x (4 correlations x 3 levels + pairwise-acc + 3 acc-eq levels).
  EXPECT_EQ(check_file("summeval"), 20u * 16u);
}

TEST(Levels, MissingScoresConstantGroupsAndAbsentSystemsMatchMtMetricsEval) {
  EXPECT_GE(check_file("summeval_edge"), 60u);
}

TEST(Levels, NaNScoresAreLeftOutLikeMissingOnes) {
  const json& c = golden("summeval_edge")["cases"]["nan_metric"];
  st::LevelData with_nan = from_matrices(c["gold"]["relevance"], c["metrics"]["chrf"]);
  st::LevelData dropped = with_nan;
  for (std::size_t i = 0; i < dropped.metric.size(); ++i)
    if (std::isnan(dropped.metric[i])) dropped.gold[i] = std::nan("");
  for (auto s : {st::LevelStatistic::kPearson, st::LevelStatistic::kKendallB,
                 st::LevelStatistic::kAccEq, st::LevelStatistic::kPairwiseAcc})
    for (auto l : {st::Level::kItem, st::Level::kTask, st::Level::kSystem}) {
      if (s == st::LevelStatistic::kPairwiseAcc && l != st::Level::kSystem) continue;
      const auto a = st::level_statistic(s, l, with_nan);
      const auto b = st::level_statistic(s, l, dropped);
      EXPECT_EQ(a.value, b.value);
      EXPECT_EQ(a.n, b.n);
      EXPECT_LT(a.n, with_nan.gold.size());
    }
}

TEST(Levels, AccEqSweepEqualsTheBruteForceSearch) {
  // Every candidate threshold evaluated directly, on integer scores with many ties.
  st::LevelData d;
  d.num_tasks = 3;
  const std::vector<double> gold = {1, 2, 2, 3, 1, 1, 4, 2, 3, 3, 5, 1};
  const std::vector<double> metric = {1, 3, 2, 2, 7, 1, 9, 2, 4, 6, 6, 3};
  for (std::size_t i = 0; i < gold.size(); ++i) {
    d.gold.push_back(gold[i]);
    d.metric.push_back(metric[i]);
    d.task.push_back(i % 3);
  }
  auto accuracy = [&](double eps, bool grouped) {
    double sum = 0;
    std::size_t groups = 0;
    for (std::size_t t = 0; t < (grouped ? 3u : 1u); ++t) {
      std::size_t ok = 0, pairs = 0;
      for (std::size_t i = 0; i < gold.size(); ++i)
        for (std::size_t j = i + 1; j < gold.size(); ++j) {
          if (grouped && (i % 3 != t || j % 3 != t)) continue;
          const double dg = gold[i] - gold[j], dm = metric[i] - metric[j];
          const bool tie = std::fabs(dm) <= eps;
          ok += tie ? dg == 0 : (dg > 0) == (dm > 0) && dg != 0;
          ++pairs;
        }
      sum += static_cast<double>(ok) / static_cast<double>(pairs);
      ++groups;
    }
    return sum / static_cast<double>(groups);
  };
  for (bool grouped : {false, true}) {
    double best = -1, best_eps = 0;
    for (double eps : {0.0, 1.0, 2.0, 3.0, 4.0, 5.0, 6.0, 7.0, 8.0}) {
      const double a = accuracy(eps, grouped);
      if (a > best + 1e-12) best = a, best_eps = eps;
    }
    const auto r = st::level_statistic(st::LevelStatistic::kAccEq,
                                       grouped ? st::Level::kTask : st::Level::kItem, d);
    EXPECT_NEAR(r.value, best, 1e-12) << grouped;
    EXPECT_EQ(r.epsilon, best_eps) << grouped;
  }
}

TEST(Levels, ResamplingDrawsWholeTasksOrSystems) {
  st::LevelData d;
  d.num_tasks = 2;
  d.num_systems = 2;
  d.gold = {1, 2, 3, 4};
  d.metric = {1, 2, 4, 3};
  d.task = {0, 0, 1, 1};
  d.system = {0, 1, 0, 1};
  const std::vector<std::size_t> twice_task1 = {1, 1};
  const auto r = st::resample_units(d, st::Level::kTask, twice_task1);
  EXPECT_EQ(r.num_tasks, 2u);
  EXPECT_EQ(r.gold, (std::vector<double>{3, 4, 3, 4}));
  EXPECT_EQ(r.task, (std::vector<std::size_t>{0, 0, 1, 1}));
  const std::vector<std::size_t> sys = {0, 0, 1};
  const auto s = st::resample_units(d, st::Level::kSystem, sys);
  EXPECT_EQ(s.num_systems, 3u);
  EXPECT_EQ(s.gold, (std::vector<double>{1, 3, 1, 3, 2, 4}));
  EXPECT_EQ(s.system, (std::vector<std::size_t>{0, 0, 1, 1, 2, 2}));
}

TEST(Levels, NamesRoundTripAndUnknownOnesAreRejected) {
  for (auto n : {"item", "task", "system"}) EXPECT_EQ(st::level_name(st::parse_level(n)), n);
  for (auto n : {"pearson", "spearman", "kendall", "kendall-c", "pairwise-acc", "acc-eq", "spa",
                 "pdp", "kendall-like"})
    EXPECT_EQ(st::level_statistic_name(st::parse_level_statistic(n)), n);
  for (auto n : {"scores", "pairs"}) EXPECT_EQ(st::perm_test_name(st::parse_perm_test(n)), n);
  EXPECT_THROW(st::parse_perm_test("items"), std::invalid_argument);
  // The plain correlations' spellings are accepted too; the printed names stay.
  EXPECT_EQ(st::parse_level_statistic("kendall_c"), st::LevelStatistic::kKendallC);
  EXPECT_EQ(st::parse_level_statistic("kendall_b"), st::LevelStatistic::kKendallB);
  EXPECT_THROW(st::parse_level("segment"), std::invalid_argument);
  try {
    st::parse_level_statistic("tau");
    ADD_FAILURE() << "no exception";
  } catch (const std::invalid_argument& e) {
    EXPECT_STREQ(e.what(),
                 "unknown statistic 'tau' (expected pearson, spearman, kendall, "
                 "kendall-c, pairwise-acc, acc-eq, spa, pdp or kendall-like)");
  }
}

TEST(Levels, SignificanceClustersAreGreedyFromTheTopAsWmtAssignsThem) {
  // Order a > b > c > d. a beats c but not b; b does not beat c; so c joins a's cluster? No: c is
  // compared with every member of the current cluster {a, b}, and a beats it: new cluster {c}.
  // d is compared with c only (not with a, which beats it): it joins c's cluster.
  const std::vector<double> values = {0.9, 0.8, 0.7, 0.6};
  std::vector<std::vector<double>> p(4, std::vector<double>(4, 1.0));
  p[0][2] = 0.01;
  p[0][3] = 0.001;
  std::vector<std::size_t> order;
  const auto ranks = st::significance_ranks(values, p, 0.05, &order);
  EXPECT_EQ(order, (std::vector<std::size_t>{0, 1, 2, 3}));
  EXPECT_EQ(ranks, (std::vector<std::size_t>{1, 1, 2, 2}));
  // Unsorted input and a NaN value, which goes last.
  const std::vector<double> shuffled = {0.7, std::nan(""), 0.9};
  std::vector<std::vector<double>> q(3, std::vector<double>(3, 1.0));
  const auto r2 = st::significance_ranks(shuffled, q, 0.05, &order);
  EXPECT_EQ(order, (std::vector<std::size_t>{2, 0, 1}));
  EXPECT_EQ(r2, (std::vector<std::size_t>{1, 1, 1}));
}

TEST(Levels, PermutationTestSeparatesAMetricFromItsNegationAndNotFromItself) {
  const json& g = golden("summeval");
  const st::LevelData d = from_matrices(g["gold"]["relevance"], g["metrics"]["chrf"]);
  std::vector<double> negated = d.metric;
  for (double& v : negated) v = -v;
  st::PermutationOptions o;
  o.permutations = 200;
  o.alternative = st::Alternative::kGreater;
  o.seed = 3;
  for (auto level : {st::Level::kItem, st::Level::kTask, st::Level::kSystem}) {
    const auto better =
        st::level_permutation_test(st::LevelStatistic::kPearson, level, d, negated, o);
    EXPECT_GT(better.delta, 0) << st::level_name(level);
    EXPECT_LE(better.p, 0.01) << st::level_name(level);
    const auto same =
        st::level_permutation_test(st::LevelStatistic::kPearson, level, d, d.metric, o);
    EXPECT_EQ(same.delta, 0) << st::level_name(level);
    EXPECT_EQ(same.p, 1.0) << st::level_name(level);  // every permutation ties delta = 0
    // Seeded: the same p again, at any thread count.
    o.threads = 1;
    EXPECT_EQ(st::level_permutation_test(st::LevelStatistic::kPearson, level, d, negated, o).p,
              better.p);
    o.threads = 0;
  }
}

// The permutation test's fast paths (the pooled evaluator at the item and system level, the
// per-task gather at the task level) give what the generic path gives: level_statistic on each
// permutation's swapped scores, with the same swaps.
TEST(Levels, PermutationFastPathsEqualTheGenericComputation) {
  const json& g = golden("summeval");
  const st::LevelData d = from_matrices(g["gold"]["relevance"], g["metrics"]["chrf"]);
  const st::LevelData e = from_matrices(g["gold"]["relevance"], g["metrics"]["gem"]);
  st::PermutationOptions o;
  o.permutations = 300;
  o.seed = 11;
  o.alternative = st::Alternative::kGreater;
  for (auto statistic : {st::LevelStatistic::kPearson, st::LevelStatistic::kSpearman,
                         st::LevelStatistic::kKendallB, st::LevelStatistic::kKendallC}) {
    for (auto level : {st::Level::kItem, st::Level::kTask, st::Level::kSystem}) {
      SCOPED_TRACE(std::string(st::level_name(level)) + " " +
                   std::string(st::level_statistic_name(statistic)));
      const auto fast = st::level_permutation_test(statistic, level, d, e.metric, o);
      // The generic computation: z-scored cells (system means at the system level), swapped
      // per cell, level_statistic of both sides.
      st::LevelData a = d, b = d;
      b.metric = e.metric;
      st::Level at = level;
      if (level == st::Level::kSystem) {
        auto means = [](const st::LevelData& x) {
          std::vector<double> gold(x.num_systems), metric(x.num_systems), n(x.num_systems);
          for (std::size_t i = 0; i < x.gold.size(); ++i)
            if (std::isfinite(x.gold[i]) && std::isfinite(x.metric[i])) {
              gold[x.system[i]] += x.gold[i];
              metric[x.system[i]] += x.metric[i];
              n[x.system[i]] += 1;
            }
          st::LevelData m;
          m.num_tasks = 1;
          for (std::size_t s = 0; s < gold.size(); ++s) {
            m.gold.push_back(gold[s] / n[s]);
            m.metric.push_back(metric[s] / n[s]);
            m.task.push_back(0);
          }
          return m;
        };
        a = means(d);
        b = means(b);
        at = st::Level::kItem;
      }
      auto z = [](std::vector<double> v) {
        double mean = 0, sq = 0;
        for (double x : v) mean += x;
        mean /= static_cast<double>(v.size());
        for (double x : v) sq += (x - mean) * (x - mean);
        const double sd = std::sqrt(sq / static_cast<double>(v.size()));
        for (double& x : v) x = (x - mean) / sd;
        return v;
      };
      const std::vector<double> za = z(a.metric), zb = z(b.metric);
      const st::LevelData shape = a;
      const auto generic = st::paired_permutation_test(
          za, zb,
          [&](std::span<const double> x, std::span<const double> y) {
            st::LevelData dx = shape;
            dx.metric.assign(x.begin(), x.end());
            st::LevelData dy = shape;
            dy.metric.assign(y.begin(), y.end());
            return st::level_statistic(statistic, at, dx).value -
                   st::level_statistic(statistic, at, dy).value;
          },
          o);
      EXPECT_NEAR(fast.delta, generic.delta, 1e-12);
      EXPECT_EQ(fast.extreme, generic.extreme) << fast.delta << " " << generic.delta;
      EXPECT_EQ(fast.permutations, generic.permutations);
    }
  }
}

TEST(Preferences, StrictPreferencesScoreTiesHalfAndHumanTiesApart) {
  // a preferred and the metric agrees; b preferred and the metric agrees; a preferred but the
  // metric ties (1/2); b preferred and the metric disagrees; a human tie the metric ties; a human
  // tie it does not; a pair with a missing score.
  const std::vector<double> a = {3, 1, 2, 5, 4, 4, std::nan("")};
  const std::vector<double> b = {1, 2, 2, 4, 4, 1, 0};
  const std::vector<int> human = {1, -1, 1, -1, 0, 0, 1};
  const auto r = st::preference_accuracy(a, b, human);
  EXPECT_EQ(r.pairs, 6u);
  EXPECT_EQ(r.strict, 4u);
  EXPECT_EQ(r.metric_ties, 1u);
  EXPECT_EQ(r.human_ties, 2u);
  EXPECT_DOUBLE_EQ(r.accuracy, 2.5 / 4);
  EXPECT_DOUBLE_EQ(r.tie_agreement, 0.5);
  EXPECT_TRUE(std::isnan(st::preference_accuracy({}, {}, {}).accuracy));
}

}  // namespace
