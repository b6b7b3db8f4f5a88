// Global (CEM) and local (adjacent accuracy) meta-evaluation: library and `probity meta`.
#include <gtest/gtest.h>

#include <cmath>
#include <fstream>
#include <nlohmann/json.hpp>

#include "cli_runner.hpp"
#include "probity/meta.hpp"
#include "test_paths.hpp"

namespace {

using namespace probity;
using probity::test::run_probity;
using json = nlohmann::json;

TEST(MetaGlobal, ConsensusIsTheLowerMedianWithinTheSpread) {
  const std::vector<double> same = {4, 4, 4}, spread = {4, 5, 4}, two = {4, 5};
  EXPECT_EQ(meta::consensus_level(same, 0.0), 4.0);
  EXPECT_FALSE(meta::consensus_level(spread, 0.0));
  EXPECT_EQ(meta::consensus_level(spread, 1.0), 4.0);
  EXPECT_EQ(meta::consensus_level(two, 1.0), 4.0);  // lower median
  const std::vector<double> one = {3.5};
  EXPECT_EQ(meta::consensus_level(one, 0.0), 3.5);
  EXPECT_FALSE(meta::consensus_level(std::vector<double>{}, 0.0));
}

TEST(MetaGlobal, RankMappingMatchesGoldProportionsTiesShareALevel) {
  const std::vector<double> scores = {0.3, 0.1, 0.2, 0.9}, gold = {1, 2, 2, 3};
  EXPECT_EQ(meta::map_by_rank(scores, gold), (std::vector<double>{2, 1, 2, 3}));
  // Equal scores share the level at the middle of their group, whatever the item order.
  const std::vector<double> tied = {0.5, 0.5, 0.5, 0.5};
  EXPECT_EQ(meta::map_by_rank(tied, gold), (std::vector<double>{2, 2, 2, 2}));
  const std::vector<double> some = {0.9, 0.2, 0.2, 0.1};  // ranks 4, {2, 3}, 1
  EXPECT_EQ(meta::map_by_rank(some, gold), (std::vector<double>{3, 2, 2, 1}));
  const std::vector<double> ratings = {1.2, 2.0, 1.6, 3.4};
  EXPECT_EQ(meta::map_direct(ratings), (std::vector<double>{1, 2, 2, 3}));
}

// Hand computation (n_1 = 1, n_2 = 2, n_3 = 1, N = 4; prox(a, b) = −log2((n_a/2 + Σ_{k after a
// up to b} n_k) / N)): gold 1 2 2 3, predicted 2 1 2 3.
//   denominator: prox(1,1) + 2·prox(2,2) + prox(3,3) = 3 + 2 + 2 + 3 = 10
//   numerator: prox(2,1) = −log2((1 + 1)/4) = 1; prox(1,2) = −log2((0.5 + 2)/4) = 0.678072;
//              prox(2,2) = 2; prox(3,3) = 3  →  6.678072
constexpr double kHandCem = (1.0 + 0.67807190511263782 + 2.0 + 3.0) / 10.0;

TEST(MetaGlobal, CemOfRankMappedScoresMatchesHandComputation) {
  const std::vector<double> scores = {0.3, 0.1, 0.2, 0.9}, gold = {1, 2, 2, 3};
  meta::GlobalOptions o;
  o.bootstrap = 200;
  o.chance_permutations = 50;
  const auto r = meta::global_cem(scores, gold, o);
  EXPECT_EQ(r.n, 4u);
  EXPECT_NEAR(r.cem, kHandCem, 1e-12);
  EXPECT_EQ(r.levels, (std::vector<double>{1, 2, 3}));
  EXPECT_EQ(r.counts, (std::vector<std::size_t>{1, 2, 1}));
  EXPECT_TRUE(std::isfinite(r.ci.low) && r.ci.low <= r.ci.high);
  EXPECT_TRUE(std::isfinite(r.chance));
  // A perfect ordering scores 1.
  const std::vector<double> perfect = {0.1, 0.5, 0.6, 0.9};
  EXPECT_DOUBLE_EQ(meta::global_cem(perfect, gold, o).cem, 1.0);
}

std::string write_global_fixture(const std::string& dir) {
  // Five candidates; c5's annotators disagree, so it is not a consensus item.
  const std::string data = dir + "/global.jsonl";
  std::ofstream(data)
      << R"({"task_id": "t1", "references": [{"id": "r", "text": "The cat sat on the mat."}], )"
      << R"("candidates": [)"
      << R"({"id": "c1", "text": "one", "human": {"quality": [1, 1, 1]}}, )"
      << R"({"id": "c2", "text": "two", "human": {"quality": [2, 2, 2]}}, )"
      << R"({"id": "c3", "text": "three", "human": {"quality": [2, 2, 2]}}, )"
      << R"({"id": "c4", "text": "four", "human": {"quality": [3, 3, 3]}}, )"
      << R"({"id": "c5", "text": "five", "human": {"quality": [1, 3, 2]}}]})"
      << "\n";
  std::ofstream scores(dir + "/scores.jsonl");
  const double s[] = {0.3, 0.1, 0.2, 0.9, 0.0};
  for (int i = 0; i < 5; ++i)
    scores << json{{"task_id", "t1"},
                   {"candidate_id", "c" + std::to_string(i + 1)},
                   {"metric", "m"},
                   {"score", s[i]}}
                  .dump()
           << "\n";
  return data;
}

TEST(MetaGlobal, CliComputesHandCheckedCemOverConsensusItems) {
  const std::string dir = probity::test::temp_dir("meta-global");
  const std::string data = write_global_fixture(dir);
  auto r = run_probity("meta global --data " + data + " --scores " + dir +
                       "/scores.jsonl --bootstrap 100 --json");
  ASSERT_EQ(r.exit_code, 0) << r.err;
  const auto doc = json::parse(r.out);
  const auto& row = doc["results"][0];
  EXPECT_EQ(row["consensus_items"], 4);
  EXPECT_EQ(row["rated_items"], 5);
  EXPECT_NEAR(row["cem"].get<double>(), kHandCem, 1e-12);
  // With a spread of 2 the fifth item joins at its lower median, 2.
  r = run_probity("meta global --data " + data + " --scores " + dir +
                  "/scores.jsonl --bootstrap 0 --max-spread 2 --json");
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_EQ(json::parse(r.out)["results"][0]["consensus_items"], 5);
  // The table names the metric and the CEM.
  r = run_probity("meta global --data " + data + " --scores " + dir +
                  "/scores.jsonl --bootstrap 0");
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_NE(r.out.find("0.6678"), std::string::npos) << r.out;
}

TEST(MetaGlobal, CliExitCodes) {
  const std::string dir = probity::test::temp_dir("meta-global-codes");
  const std::string data = write_global_fixture(dir);
  // Usage: missing --scores, unknown dimension, unknown subcommand.
  EXPECT_EQ(run_probity("meta global --data " + data).exit_code, 2);
  EXPECT_EQ(run_probity("meta global --data " + data + " --scores " + dir +
                        "/scores.jsonl --dimension nope")
                .exit_code,
            2);
  EXPECT_EQ(run_probity("meta sideways --data " + data).exit_code, 2);
  // Invalid input: a score record naming an unknown candidate.
  std::ofstream(dir + "/bad.jsonl")
      << R"({"task_id": "t1", "candidate_id": "zz", "metric": "m", "score": 1})"
      << "\n";
  auto r = run_probity("meta global --data " + data + " --scores " + dir + "/bad.jsonl");
  EXPECT_EQ(r.exit_code, 3) << r.err;
}

TEST(MetaLocal, AdjacentCountsTiesSeparately) {
  meta::Sequence seq;
  seq.items = {0, 1, 2, 3};
  const std::vector<double> scores = {0.9, 0.5, 0.5, 0.7};
  const auto c = meta::adjacent_counts(scores, seq);
  EXPECT_EQ(c.pairs, 3u);
  EXPECT_EQ(c.correct, 1u);
  EXPECT_EQ(c.ties, 1u);
  EXPECT_EQ(c.wrong, 1u);
  std::vector<meta::Sequence> seqs = {seq};
  seqs[0].dimension = "d";
  const auto rows = meta::local_accuracy(scores, seqs, {});
  ASSERT_EQ(rows.size(), 1u);
  EXPECT_DOUBLE_EQ(rows[0].accuracy, 1.0 / 3.0);
  EXPECT_DOUBLE_EQ(rows[0].tie_rate, 1.0 / 3.0);
  // A NaN score leaves its pairs out.
  const std::vector<double> with_nan = {0.9, std::nan(""), 0.5, 0.4};
  const auto n = meta::adjacent_counts(with_nan, seq);
  EXPECT_EQ(n.pairs, 1u);
  EXPECT_EQ(n.undefined, 2u);
}

std::string write_local_fixture(const std::string& dir) {
  // Two sequences in "consistency" (ratings 2 > 1 > 0) and one in "fluency" with a human tie.
  const std::string data = dir + "/local.jsonl";
  std::ofstream(data)
      << R"({"task_id": "a", "references": [{"id": "r", "text": "x y z"}], "candidates": [)"
      << R"({"id": "step0", "text": "a0", "human": {"consistency": [2]}}, )"
      << R"({"id": "step1", "text": "a1", "human": {"consistency": [1]}}, )"
      << R"({"id": "step2", "text": "a2", "human": {"consistency": [0]}}]})"
      << "\n"
      << R"({"task_id": "b", "references": [{"id": "r", "text": "x y z"}], "candidates": [)"
      << R"({"id": "step2", "text": "b2", "human": {"consistency": [0]}}, )"
      << R"({"id": "step0", "text": "b0", "human": {"consistency": [2]}}, )"
      << R"({"id": "step1", "text": "b1", "human": {"consistency": [1]}}]})"
      << "\n"
      << R"({"task_id": "c", "references": [{"id": "r", "text": "x y z"}], "candidates": [)"
      << R"({"id": "u", "text": "c0", "human": {"fluency": [3]}}, )"
      << R"({"id": "v", "text": "c1", "human": {"fluency": [3]}}, )"
      << R"({"id": "w", "text": "c2", "human": {"fluency": [1]}}]})"
      << "\n";
  std::ofstream scores(dir + "/scores.jsonl");
  auto rec = [&](const char* t, const char* c, double s) {
    scores << json{{"task_id", t}, {"candidate_id", c}, {"metric", "m"}, {"score", s}}.dump()
           << "\n";
  };
  rec("a", "step0", 0.9);  // a: correct, correct
  rec("a", "step1", 0.5);
  rec("a", "step2", 0.1);
  rec("b", "step0", 0.4);  // b (in file order step2, step0, step1): tie, then wrong
  rec("b", "step1", 0.4);
  rec("b", "step2", 0.6);
  rec("c", "u", 0.2);  // c: u = v in rating, so only v ≻ w is compared: wrong
  rec("c", "v", 0.3);
  rec("c", "w", 0.8);
  return data;
}

TEST(MetaLocal, SequencesFollowRatingsAndSkipHumanTies) {
  const std::string dir = probity::test::temp_dir("meta-local-lib");
  const Dataset ds = load_dataset(write_local_fixture(dir));
  const auto items = all_items(ds);
  std::size_t ties = 0;
  const auto seqs = meta::sequences_from_dataset(ds, items, {"consistency", "fluency"}, &ties);
  ASSERT_EQ(seqs.size(), 3u);
  EXPECT_EQ(ties, 1u);
  // Task b lists step2 first; the sequence is ordered best first.
  EXPECT_EQ(seqs[1].id, "b");
  EXPECT_EQ(ds.tasks[1].candidates[items[seqs[1].items[0]].candidate].id, "step0");
  EXPECT_EQ(ds.tasks[1].candidates[items[seqs[1].items[2]].candidate].id, "step2");
  EXPECT_EQ(seqs[2].comparable, (std::vector<bool>{false, true}));
}

TEST(MetaLocal, CliReportsPerDimensionAndOverall) {
  const std::string dir = probity::test::temp_dir("meta-local");
  const std::string data = write_local_fixture(dir);
  auto r = run_probity("meta local --data " + data + " --scores " + dir +
                       "/scores.jsonl --bootstrap 100 --json");
  ASSERT_EQ(r.exit_code, 0) << r.err;
  const auto doc = json::parse(r.out);
  EXPECT_EQ(doc["human_ties_skipped"], 1);
  const auto& rows = doc["results"];
  ASSERT_EQ(rows.size(), 3u);
  EXPECT_EQ(rows[0]["dimension"], "consistency");
  EXPECT_EQ(rows[0]["pairs"], 4);
  EXPECT_EQ(rows[0]["correct"], 2);
  EXPECT_EQ(rows[0]["ties"], 1);
  EXPECT_EQ(rows[0]["wrong"], 1);
  EXPECT_DOUBLE_EQ(rows[0]["accuracy"].get<double>(), 0.5);
  EXPECT_DOUBLE_EQ(rows[0]["tie_rate"].get<double>(), 0.25);
  EXPECT_EQ(rows[1]["dimension"], "fluency");
  EXPECT_EQ(rows[1]["pairs"], 1);
  EXPECT_EQ(rows[1]["wrong"], 1);
  EXPECT_EQ(rows[2]["dimension"], "overall");
  EXPECT_EQ(rows[2]["pairs"], 5);
  EXPECT_DOUBLE_EQ(rows[2]["accuracy"].get<double>(), 0.4);
  // Usage: no --scores; invalid input: malformed data line.
  EXPECT_EQ(run_probity("meta local --data " + data).exit_code, 2);
  std::ofstream(dir + "/broken.jsonl") << "{not json\n";
  EXPECT_EQ(
      run_probity("meta local --data " + dir + "/broken.jsonl --scores " + dir + "/scores.jsonl")
          .exit_code,
      3);
}

}  // namespace
