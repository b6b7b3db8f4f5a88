// The audit's resume database: fixed-size keys and scores, writes committed by a writer thread,
// formats checked, shards imported, and its size per candidate.
#include "audit/cache.hpp"

#include <gtest/gtest.h>
#include <sqlite3.h>

#include <cmath>
#include <filesystem>
#include <nlohmann/json.hpp>
#include <string>

#include "cli_runner.hpp"
#include "test_paths.hpp"

namespace {

using probity::PerturbResult;
using probity::audit::AuditCache;
using probity::audit::CacheKey;

CacheKey key(std::uint64_t stage, std::uint64_t item) {
  return {stage, probity::util::key128(std::array<std::uint64_t, 1>{item})};
}

void exec(const std::string& path, const std::string& sql) {
  sqlite3* db = nullptr;
  ASSERT_EQ(sqlite3_open(path.c_str(), &db), SQLITE_OK);
  char* err = nullptr;
  const int rc = sqlite3_exec(db, sql.c_str(), nullptr, nullptr, &err);
  EXPECT_EQ(rc, SQLITE_OK) << (err ? err : "");
  sqlite3_free(err);
  sqlite3_close(db);
}

TEST(AuditCache, ScoresComeBackAsStoredWithNaNAndMissingApart) {
  const std::string path = probity::test::temp_dir("cache-scores") + "/cache.sqlite";
  {
    AuditCache cache(path);
    EXPECT_FALSE(cache.has_stage(7));
    cache.put_scores({{key(7, 1), 0.25}, {key(7, 2), std::nan("")}, {key(8, 1), -3.5}});
    cache.flush();
    EXPECT_TRUE(cache.has_stage(7));
    EXPECT_TRUE(cache.has_stage(8));
    EXPECT_FALSE(cache.has_stage(6));
    EXPECT_FALSE(cache.has_stage(9));
    std::vector<std::optional<double>> out;
    const std::vector<CacheKey> keys{key(7, 1), key(7, 2), key(7, 3), key(8, 1)};
    cache.get_scores(keys, out);
    ASSERT_EQ(out.size(), 4u);
    EXPECT_EQ(out[0], 0.25);
    ASSERT_TRUE(out[1].has_value());
    EXPECT_TRUE(std::isnan(*out[1]));
    EXPECT_FALSE(out[2].has_value());
    EXPECT_EQ(out[3], -3.5);
    EXPECT_EQ(cache.hits(), 3u);
    EXPECT_EQ(cache.misses(), 1u);
  }
  // The largest stage number has no "next stage" to bound it.
  AuditCache cache(path);
  cache.put_scores({{key(UINT64_MAX, 1), 1.0}});
  cache.flush();
  EXPECT_TRUE(cache.has_stage(UINT64_MAX));
}

TEST(AuditCache, QueuedWritesAreCommittedWhenTheCacheCloses) {
  const std::string path = probity::test::temp_dir("cache-close") + "/cache.sqlite";
  {
    AuditCache cache(path);
    std::vector<std::pair<CacheKey, double>> rows;
    for (std::uint64_t i = 0; i < 5000; ++i) rows.emplace_back(key(1, i), static_cast<double>(i));
    cache.put_scores(std::move(rows));
    PerturbResult r;
    r.status = PerturbResult::Status::kUnchanged;
    r.text = "same";
    r.note = "nothing to flip";
    cache.put_perturbations({{key(2, 9), r}});
  }  // no flush: the destructor writes what is queued
  AuditCache cache(path);
  std::vector<std::optional<double>> out;
  cache.get_scores(std::vector<CacheKey>{key(1, 0), key(1, 4999)}, out);
  EXPECT_EQ(out[0], 0.0);
  EXPECT_EQ(out[1], 4999.0);
  std::vector<std::optional<PerturbResult>> found;
  cache.get_perturbations(std::vector<CacheKey>{key(2, 9), key(2, 8)}, found);
  ASSERT_TRUE(found[0].has_value());
  EXPECT_EQ(found[0]->status, PerturbResult::Status::kUnchanged);
  EXPECT_EQ(found[0]->text, "same");
  EXPECT_EQ(found[0]->note, "nothing to flip");
  EXPECT_FALSE(found[1].has_value());
}

TEST(AuditCache, AnEarlierFormatIsEmptiedAndALaterOneRefused) {
  const std::string dir = probity::test::temp_dir("cache-formats");
  const std::string old_path = dir + "/old.sqlite";
  exec(old_path,
       "CREATE TABLE perturbations (key TEXT PRIMARY KEY, status INTEGER, text TEXT, note TEXT);"
       "CREATE TABLE stats (key TEXT PRIMARY KEY, stats BLOB);"
       "INSERT INTO stats VALUES ('bleu|x', x'00');");
  {
    AuditCache cache(old_path);
    EXPECT_TRUE(cache.reset_from_old_format());
    cache.put_scores({{key(1, 1), 2.0}});
    cache.flush();
  }
  AuditCache reopened(old_path);
  EXPECT_FALSE(reopened.reset_from_old_format());

  const std::string new_path = dir + "/newer.sqlite";
  exec(new_path, "PRAGMA user_version = 99");
  EXPECT_THROW(AuditCache{new_path}, std::runtime_error);
}

TEST(AuditCache, ImportCopiesWhatIsMissingAndChecksTheFormat) {
  const std::string dir = probity::test::temp_dir("cache-import");
  {
    AuditCache shard(dir + "/shard.sqlite");
    shard.put_scores({{key(1, 1), 1.0}, {key(1, 2), 2.0}});
  }
  AuditCache main(dir + "/main.sqlite");
  main.put_scores({{key(1, 1), 10.0}});  // kept: import adds only what is missing
  main.import(dir + "/shard.sqlite");
  std::vector<std::optional<double>> out;
  main.get_scores(std::vector<CacheKey>{key(1, 1), key(1, 2)}, out);
  EXPECT_EQ(out[0], 10.0);
  EXPECT_EQ(out[1], 2.0);
  exec(dir + "/other.sqlite", "CREATE TABLE stats (key TEXT PRIMARY KEY, stats BLOB)");
  EXPECT_THROW(main.import(dir + "/other.sqlite"), std::runtime_error);
}

// The issue-16 budget: at most 1 KB per candidate and metric (it was 26 KB per candidate with
// three metrics, the texts themselves being the keys).
TEST(AuditCache, AnAuditStoresUnderOneKilobytePerCandidateAndMetric) {
  const std::string out = probity::test::temp_dir("cache-size");
  auto r = probity::test::run_probity(
      "audit --data " + probity::test::data_path("summeval/summeval_sample20.jsonl") +
      " --metric bleu --metric rougeL.f --bootstrap 50 --out " + out);
  ASSERT_EQ(r.exit_code, 0) << r.err;
  const auto report = nlohmann::json::parse(probity::test::read_text(out + "/report.json"));
  const auto candidates = report["datasets"][0]["audited"].get<std::size_t>();
  ASSERT_EQ(candidates, 320u);
  const auto bytes = std::filesystem::file_size(out + "/cache.sqlite");
  const double per_candidate_metric =
      static_cast<double>(bytes) / (static_cast<double>(candidates) * 2.0);
  EXPECT_LE(per_candidate_metric, 1024.0) << bytes << " bytes";
  // Something was stored: one row per item and stage.
  EXPECT_GE(bytes, candidates * 2u * 32u);
}

TEST(AuditCache, TheAuditSaysWhenItEmptiesAnOldCache) {
  const std::string out = probity::test::temp_dir("cache-old-note");
  exec(out + "/cache.sqlite", "CREATE TABLE stats (key TEXT PRIMARY KEY, stats BLOB)");
  auto r = probity::test::run_probity(
      "audit --data " + probity::test::data_path("summeval/summeval_sample20.jsonl") +
      " --metric bleu --degrade S --manipulate none --bootstrap 20 --out " + out);
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_NE(r.err.find("note: " + out + "/cache.sqlite was written by an earlier probity"),
            std::string::npos)
      << r.err;
}

}  // namespace
