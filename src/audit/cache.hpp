#pragma once
// The audit's resume database: perturbed texts and metric statistics in SQLite (WAL), keyed by
// everything that determines them. Finished work survives a crash or Ctrl-C.
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "probity/perturb.hpp"

struct sqlite3;

namespace probity::audit {

class AuditCache {
 public:
  explicit AuditCache(const std::string& path);
  ~AuditCache();
  AuditCache(const AuditCache&) = delete;
  AuditCache& operator=(const AuditCache&) = delete;

  std::optional<PerturbResult> get_perturbation(const std::string& key);
  std::optional<std::vector<double>> get_stats(const std::string& key);

  // Writes are grouped in transactions: begin(), puts, commit().
  void begin();
  void commit();
  void put_perturbation(const std::string& key, const PerturbResult& result);
  void put_stats(const std::string& key, const std::vector<double>& stats);

  // Copies every entry of another cache file that this one lacks (merging shards' work).
  void import(const std::string& path);

  std::size_t hits() const { return hits_; }
  std::size_t misses() const { return misses_; }

 private:
  void exec(const char* sql);
  struct Statements;  // prepared once: lookups are the hot path of a re-run
  sqlite3* db_ = nullptr;
  std::unique_ptr<Statements> statements_;
  std::size_t hits_ = 0, misses_ = 0;
};

}  // namespace probity::audit
