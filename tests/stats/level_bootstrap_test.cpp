// level_bootstrap_values against the generic computation it replaces (each resample built with
// resample_units / resample_tasks_and_systems and measured with level_statistic): the same bits
// for every level, statistic and resampling unit, on SummEval's matrices (with their missing
// cells and constant groups) and on synthetic data with ties, NaNs, empty tasks and candidates
// without a system.
#include <gtest/gtest.h>

#include <bit>
#include <cmath>
#include <cstdint>
#include <fstream>
#include <map>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "probity/stats.hpp"
#include "test_paths.hpp"
#include "util/random.hpp"

namespace st = probity::stats;
using nlohmann::json;

namespace {

constexpr st::LevelStatistic kStatistics[] = {
    st::LevelStatistic::kPearson,  st::LevelStatistic::kSpearman,    st::LevelStatistic::kKendallB,
    st::LevelStatistic::kKendallC, st::LevelStatistic::kPairwiseAcc, st::LevelStatistic::kAccEq};
constexpr st::Level kLevels[] = {st::Level::kItem, st::Level::kTask, st::Level::kSystem};
constexpr st::LevelUnits kUnits[] = {st::LevelUnits::kTasks, st::LevelUnits::kSystems,
                                     st::LevelUnits::kTasksAndSystems};

// The generic computation, as the audit's level rows did it before level_bootstrap_values.
std::vector<double> reference(st::LevelStatistic statistic, st::Level level,
                              const st::LevelData& data, st::LevelUnits units,
                              std::size_t resamples, std::uint64_t seed) {
  if (units != st::LevelUnits::kTasksAndSystems) {
    st::BootstrapOptions bo;
    bo.resamples = resamples;
    bo.seed = seed;
    bo.threads = 1;
    const bool systems = units == st::LevelUnits::kSystems;
    const st::Level by = systems ? st::Level::kSystem : st::Level::kTask;
    return st::bootstrap(
               systems ? data.num_systems : data.num_tasks,
               [&](std::span<const std::size_t> drawn) {
                 return st::level_statistic(statistic, level, st::resample_units(data, by, drawn))
                     .value;
               },
               bo)
        .distribution;
  }
  std::vector<double> values(resamples);
  for (std::size_t r = 0; r < resamples; ++r) {
    probity::util::Rng rng(seed, r);
    std::vector<std::size_t> tasks(data.num_tasks), systems(data.num_systems);
    for (auto& t : tasks) t = rng.below(static_cast<std::uint32_t>(data.num_tasks));
    for (auto& s : systems) s = rng.below(static_cast<std::uint32_t>(data.num_systems));
    values[r] =
        st::level_statistic(statistic, level, st::resample_tasks_and_systems(data, tasks, systems))
            .value;
  }
  return values;
}

std::string name(st::LevelStatistic s, st::Level l, st::LevelUnits u) {
  const char* units[] = {"tasks", "systems", "both"};
  return std::string(st::level_statistic_name(s)) + " " + std::string(st::level_name(l)) + " " +
         units[static_cast<int>(u)];
}

// Equal bits, or both NaN; returns how many values were defined.
std::size_t expect_identical(const std::vector<double>& got, const std::vector<double>& want,
                             const std::string& what) {
  EXPECT_EQ(got.size(), want.size()) << what;
  std::size_t defined = 0;
  for (std::size_t b = 0; b < got.size() && b < want.size(); ++b) {
    if (std::isnan(want[b])) {
      EXPECT_TRUE(std::isnan(got[b])) << what << " resample " << b;
      continue;
    }
    ++defined;
    EXPECT_EQ(std::bit_cast<std::uint64_t>(got[b]), std::bit_cast<std::uint64_t>(want[b]))
        << what << " resample " << b << ": " << got[b] << " vs " << want[b];
  }
  return defined;
}

// Every level x statistic x unit; returns the defined resample values compared.
std::size_t check_all(const st::LevelData& d, std::size_t resamples, std::uint64_t seed,
                      bool item_acc_eq = true) {
  std::size_t defined = 0;
  for (auto level : kLevels)
    for (auto statistic : kStatistics)
      for (auto units : kUnits) {
        if (!item_acc_eq && level == st::Level::kItem && statistic == st::LevelStatistic::kAccEq)
          continue;
        const std::string what = name(statistic, level, units);
        const auto want = reference(statistic, level, d, units, resamples, seed);
        const auto got = st::level_bootstrap_values(statistic, level, d, units, resamples, seed, 2);
        defined += expect_identical(got, want, what);
      }
  return defined;
}

const json& golden(const std::string& file) {
  static std::map<std::string, json> cache;
  auto it = cache.find(file);
  if (it == cache.end()) {
    std::ifstream f(probity::test::golden_path("meta_eval/" + file + ".json"));
    it = cache.emplace(file, json::parse(f)).first;
  }
  return it->second;
}

// mt-metrics-eval's layout (row = system, column = task; null = missing) as candidates.
st::LevelData from_matrices(const json& gold, const json& metric) {
  st::LevelData d;
  d.num_systems = gold.size();
  d.num_tasks = gold[0].size();
  auto cell = [](const json& v) {
    if (v.is_null()) return std::nan("");
    if (v.is_string()) return std::stod(v.get<std::string>());
    return v.get<double>();
  };
  for (std::size_t s = 0; s < gold.size(); ++s)
    for (std::size_t i = 0; i < gold[s].size(); ++i) {
      d.gold.push_back(cell(gold[s][i]));
      d.metric.push_back(cell(metric[s][i]));
      d.task.push_back(i);
      d.system.push_back(s);
    }
  return d;
}

// Integer ratings and scores (many ties), NaNs in both, a task with a constant metric, a task
// with one candidate, tasks without candidates, candidates without a system, a system whose
// candidates are all unusable; candidates in a shuffled order.
st::LevelData synthetic(std::uint64_t seed) {
  probity::util::SplitMix64 rng(seed);
  st::LevelData d;
  d.num_tasks = 14;  // tasks 12 and 13 have no candidate
  d.num_systems = 7;
  for (std::size_t t = 0; t < 12; ++t) {
    const std::size_t size = t == 3 ? 1 : 3 + rng.below(6);
    for (std::size_t k = 0; k < size; ++k) {
      d.task.push_back(t);
      const std::size_t s = rng.below(7);
      d.system.push_back(rng.below(10) == 0 ? st::kNoSystem : s);
      d.gold.push_back(static_cast<double>(1 + rng.below(5)) / 3.0);
      d.metric.push_back(t == 5 ? 0.25 : static_cast<double>(rng.below(8)) * 0.1);
      if (rng.below(12) == 0) d.gold.back() = std::nan("");
      if (rng.below(12) == 0) d.metric.back() = std::nan("");
      if (s == 6) d.metric.back() = std::nan("");  // system 6 is never usable
    }
  }
  // Shuffle the candidates: units' members are not contiguous.
  for (std::size_t i = d.gold.size(); i > 1; --i) {
    const std::size_t j = rng.below(i);
    std::swap(d.gold[i - 1], d.gold[j]);
    std::swap(d.metric[i - 1], d.metric[j]);
    std::swap(d.task[i - 1], d.task[j]);
    std::size_t a = d.system[i - 1], b = d.system[j];
    d.system[i - 1] = b;
    d.system[j] = a;
  }
  return d;
}

TEST(LevelBootstrap, EqualsTheGenericComputationOnSyntheticData) {
  for (std::uint64_t seed : {1u, 2u, 3u}) {
    const st::LevelData d = synthetic(seed);
    EXPECT_GT(check_all(d, 150, seed * 7), 4000u) << seed;
  }
}

TEST(LevelBootstrap, EqualsTheGenericComputationOnSummEval) {
  const json& g = golden("summeval");
  const st::LevelData d = from_matrices(g["gold"]["relevance"], g["metrics"]["chrf"]);
  // Item-level acc-eq sorts 1.3 million pairs per resample in the reference: fewer resamples.
  EXPECT_GT(check_all(d, 30, 11, false), 1000u);
  const auto want =
      reference(st::LevelStatistic::kAccEq, st::Level::kItem, d, st::LevelUnits::kTasks, 3, 11);
  const auto got = st::level_bootstrap_values(st::LevelStatistic::kAccEq, st::Level::kItem, d,
                                              st::LevelUnits::kTasks, 3, 11);
  EXPECT_EQ(expect_identical(got, want, "acc-eq item tasks"), 3u);
}

TEST(LevelBootstrap, EqualsTheGenericComputationWithMissingCellsAndConstantGroups) {
  const json& c = golden("summeval_edge")["cases"];
  const st::LevelData missing = from_matrices(c["missing_constant"]["gold"]["coherence"],
                                              c["missing_constant"]["metrics"]["chrf"]);
  EXPECT_GT(check_all(missing, 20, 5, false), 500u);
  const st::LevelData nan =
      from_matrices(c["nan_metric"]["gold"]["relevance"], c["nan_metric"]["metrics"]["chrf"]);
  EXPECT_GT(check_all(nan, 20, 6, false), 500u);
}

// The correlate/audit "mean" row on SummEval: chrf against the four expert dimensions.
TEST(LevelBootstrap, MeanSpearmanOnSummEvalIsTheMaterialisedMean) {
  const json& g = golden("summeval");
  const st::LevelData first = from_matrices(g["gold"]["relevance"], g["metrics"]["chrf"]);
  std::vector<std::vector<double>> ys;
  for (const char* dim : {"relevance", "coherence", "consistency", "fluency"})
    ys.push_back(from_matrices(g["gold"][dim], g["metrics"]["chrf"]).gold);
  st::BootstrapOptions o;
  o.resamples = 200;
  o.seed = 21;
  const auto got = st::bootstrap_mean_spearman(first.metric, ys, o);
  const auto want = st::bootstrap(
      first.metric.size(),
      [&](std::span<const std::size_t> idx) {
        double sum = 0;
        for (const auto& y : ys) {
          std::vector<double> bx, by;
          for (std::size_t i : idx)
            if (std::isfinite(first.metric[i]) && std::isfinite(y[i])) {
              bx.push_back(first.metric[i]);
              by.push_back(y[i]);
            }
          sum += st::spearman(bx, by).statistic;
        }
        return sum / static_cast<double>(ys.size());
      },
      o);
  EXPECT_EQ(expect_identical(got.distribution, want.distribution, "mean spearman"), 200u);
  EXPECT_EQ(std::bit_cast<std::uint64_t>(got.ci.low), std::bit_cast<std::uint64_t>(want.ci.low));
  EXPECT_EQ(std::bit_cast<std::uint64_t>(got.ci.high), std::bit_cast<std::uint64_t>(want.ci.high));
}

TEST(LevelBootstrap, IsTheSameAtAnyThreadCount) {
  const st::LevelData d = synthetic(9);
  for (auto level : kLevels)
    for (auto statistic : {st::LevelStatistic::kSpearman, st::LevelStatistic::kAccEq})
      for (auto units : kUnits) {
        const auto one = st::level_bootstrap_values(statistic, level, d, units, 101, 4, 1);
        const auto two = st::level_bootstrap_values(statistic, level, d, units, 101, 4, 2);
        const auto three = st::level_bootstrap_values(statistic, level, d, units, 101, 4, 3);
        expect_identical(two, one, name(statistic, level, units));
        expect_identical(three, one, name(statistic, level, units));
      }
}

TEST(LevelBootstrap, RejectsWhatTheGenericComputationRejects) {
  st::LevelData d = synthetic(4);
  d.system.clear();
  EXPECT_THROW(st::level_bootstrap_values(st::LevelStatistic::kPearson, st::Level::kItem, d,
                                          st::LevelUnits::kSystems, 10, 1),
               std::invalid_argument);
  EXPECT_THROW(st::level_bootstrap_values(st::LevelStatistic::kPearson, st::Level::kSystem, d,
                                          st::LevelUnits::kTasks, 10, 1),
               std::invalid_argument);
  d.num_tasks = 1;
  d.task.assign(d.gold.size(), 0);
  EXPECT_THROW(st::level_bootstrap_values(st::LevelStatistic::kPearson, st::Level::kItem, d,
                                          st::LevelUnits::kTasks, 10, 1),
               std::invalid_argument);
}

}  // namespace
