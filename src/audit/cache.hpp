#pragma once
// The audit's resume database (SQLite, WAL): per-item metric scores and model-backed
// perturbations, keyed by fixed-size hashes of everything that determines them. Finished work
// survives a crash or Ctrl-C; a re-run recomputes nothing.
//
// Rows are small (a 24-byte key and a score), so a 100k-candidate audit's cache stays a few
// hundred bytes per candidate and metric. Writes go to a writer thread with a connection of its
// own, one transaction per batch, so committing overlaps the next batch's computation.
#include <array>
#include <cstdint>
#include <memory>
#include <optional>
#include <span>
#include <string>
#include <utility>
#include <vector>

#include "probity/perturb.hpp"
#include "util/hash.hpp"

struct sqlite3;

namespace probity::audit {

// A row's key: the stage (what is computed: a metric's part, or a perturbation strategy) and the
// item (the texts it is computed on). The stage comes first in the stored bytes, so one stage's
// rows are neighbours in the B-tree and inserting or looking up a stage touches few pages.
struct CacheKey {
  std::uint64_t stage = 0;
  util::Key128 item{};
  std::array<unsigned char, 24> bytes() const;
};

class AuditCache {
 public:
  // Opens or creates the cache. A cache of an earlier format (probity before 0.2: texts as keys)
  // is emptied, and reset_from_old_format() says so; one of a later format is an error.
  explicit AuditCache(const std::string& path);
  // Commits what is still queued (ignoring write errors: flush() reports them).
  ~AuditCache();
  AuditCache(const AuditCache&) = delete;
  AuditCache& operator=(const AuditCache&) = delete;

  // Lookups of many keys in one read transaction: out[i] is empty when keys[i] is not stored.
  // A stored NaN score (undefined) comes back as NaN.
  void get_scores(std::span<const CacheKey> keys, std::vector<std::optional<double>>& out);
  void get_perturbations(std::span<const CacheKey> keys,
                         std::vector<std::optional<PerturbResult>>& out);
  // Whether any row of `stage` is stored (a fresh stage needs no per-item lookups).
  bool has_stage(std::uint64_t stage);

  // Queued for the writer thread, committed as one transaction. A failed write (disk full) is
  // rethrown by the next put or flush.
  void put_scores(std::vector<std::pair<CacheKey, double>> rows);
  void put_perturbations(std::vector<std::pair<CacheKey, PerturbResult>> rows);
  // Waits until everything queued is committed; rethrows a write error.
  void flush();

  // Copies every entry of another cache file that this one lacks (merging shards' work).
  void import(const std::string& path);

  bool reset_from_old_format() const { return reset_; }
  std::size_t hits() const { return hits_; }
  std::size_t misses() const { return misses_; }
  // Counts lookups the caller skipped because has_stage() said none could hit.
  void count_skipped_lookups(std::size_t n) { misses_ += n; }

 private:
  struct Reader;
  struct Writer;
  std::unique_ptr<Reader> reader_;
  std::unique_ptr<Writer> writer_;
  bool reset_ = false;
  std::size_t hits_ = 0, misses_ = 0;
};

}  // namespace probity::audit
