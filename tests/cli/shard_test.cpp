// Sharded runs equal unsharded ones: score shards merge into the same bytes, and an
// audit finished from the shards' caches recomputes nothing and reports the same numbers.
#include <gtest/gtest.h>

#include <filesystem>
#include <nlohmann/json.hpp>

#include "cli_runner.hpp"
#include "test_paths.hpp"

namespace {

using probity::test::read_text;
using probity::test::run_probity;

std::string sample() {
  return probity::test::data_path("summeval/summeval_sample20.jsonl");
}

TEST(Shard, ScoreShardsMergeIntoTheUnshardedFile) {
  std::string dir = probity::test::temp_dir("shard-score");
  std::string metrics = " --metric bleu --metric rougeL --metric stmt-tv --metric gem";
  ASSERT_EQ(
      run_probity("score --data " + sample() + metrics + " --out " + dir + "/all.jsonl").exit_code,
      0);
  std::string shards;
  for (int i = 0; i < 3; ++i) {
    std::string f = dir + "/s" + std::to_string(i) + ".jsonl";
    auto r = run_probity("score --data " + sample() + metrics + " --shard " + std::to_string(i) +
                         "/3 --out " + f);
    ASSERT_EQ(r.exit_code, 0) << r.err;
    EXPECT_FALSE(read_text(f).empty());
    shards += " " + f;
  }
  auto m = run_probity("merge --data " + sample() + " --out " + dir + "/merged.jsonl" + shards);
  ASSERT_EQ(m.exit_code, 0) << m.err;
  EXPECT_EQ(read_text(dir + "/merged.jsonl"), read_text(dir + "/all.jsonl"));

  // A missing shard is reported, not silently merged.
  auto partial =
      run_probity("merge --data " + sample() + " --out " + dir + "/p.jsonl " + dir + "/s0.jsonl");
  EXPECT_EQ(partial.exit_code, 3);
  EXPECT_NE(partial.err.find("have no records"), std::string::npos) << partial.err;
  EXPECT_NE(partial.err.find("shard(s) 1, 2 of 3 are missing"), std::string::npos) << partial.err;
  EXPECT_FALSE(std::filesystem::exists(dir + "/p.jsonl"));  // nothing half-merged is written
  // A shard's file alone is not a complete score file.
  auto shard_only = run_probity("correlate --data " + sample() + " --scores " + dir + "/s0.jsonl");
  EXPECT_EQ(shard_only.exit_code, 3);
  EXPECT_NE(shard_only.err.find("shard 0/3 only"), std::string::npos) << shard_only.err;
  // With --allow-missing the merge is written and says what is missing.
  partial = run_probity("merge --allow-missing --data " + sample() + " --out " + dir + "/p.jsonl " +
                        dir + "/s0.jsonl");
  EXPECT_EQ(partial.exit_code, 0) << partial.err;
  EXPECT_NE(partial.out.find("have no records"), std::string::npos) << partial.out;
  EXPECT_EQ(run_probity("score --data " + sample() + " --metric bleu --shard 3/3").exit_code, 2);
}

std::string strip_volatile(const std::string& text) {
  auto j = nlohmann::json::parse(text);
  j.erase("seconds");
  j.erase("cache_hits");
  j.erase("cache_misses");
  return j.dump();
}

TEST(Shard, AuditFinishedFromShardCachesEqualsUnshardedRun) {
  std::string base = probity::test::temp_dir("shard-audit");
  std::string args = "audit --data " + sample() +
                     " --metric bleu --metric stmt-tv --sample 120 --seed 5 --bootstrap 100";
  ASSERT_EQ(run_probity(args + " --out " + base + "/plain").exit_code, 0);
  for (int i = 0; i < 2; ++i) {
    auto r = run_probity(args + " --shard " + std::to_string(i) + "/2 --out " + base + "/s" +
                         std::to_string(i));
    ASSERT_EQ(r.exit_code, 0) << r.err;
    EXPECT_NE(r.out.find("shard " + std::to_string(i) + "/2"), std::string::npos) << r.out;
  }
  auto merged = run_probity(args + " --out " + base + "/merged --import " + base + "/s0 --import " +
                            base + "/s1");
  ASSERT_EQ(merged.exit_code, 0) << merged.err;
  auto j = nlohmann::json::parse(read_text(base + "/merged/report.json"));
  EXPECT_EQ(j["cache_misses"].get<int>(), 0);  // every perturbation and score came from a shard
  EXPECT_EQ(strip_volatile(read_text(base + "/merged/report.json")),
            strip_volatile(read_text(base + "/plain/report.json")));
}

}  // namespace
