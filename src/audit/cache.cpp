#include "audit/cache.hpp"

#include <fmt/format.h>
#include <sqlite3.h>

#include <cstring>
#include <stdexcept>

namespace probity::audit {
namespace {

// RAII prepared statement.
class Statement {
 public:
  Statement(sqlite3* db, const char* sql) : db_(db) {
    if (sqlite3_prepare_v2(db, sql, -1, &stmt_, nullptr) != SQLITE_OK)
      throw std::runtime_error(fmt::format("cache: {}", sqlite3_errmsg(db)));
  }
  ~Statement() { sqlite3_finalize(stmt_); }
  Statement(const Statement&) = delete;
  Statement& operator=(const Statement&) = delete;
  void bind(int i, const std::string& s) {
    sqlite3_bind_text(stmt_, i, s.data(), static_cast<int>(s.size()), SQLITE_TRANSIENT);
  }
  void bind(int i, int v) { sqlite3_bind_int(stmt_, i, v); }
  void bind_blob(int i, const void* p, std::size_t n) {
    sqlite3_bind_blob(stmt_, i, p, static_cast<int>(n), SQLITE_TRANSIENT);
  }
  bool step() {
    int rc = sqlite3_step(stmt_);
    if (rc == SQLITE_ROW) return true;
    if (rc == SQLITE_DONE) return false;
    throw std::runtime_error(fmt::format("cache: {}", sqlite3_errmsg(db_)));
  }
  std::string text(int col) {
    auto p = reinterpret_cast<const char*>(sqlite3_column_text(stmt_, col));
    return p ? std::string(p, static_cast<std::size_t>(sqlite3_column_bytes(stmt_, col))) : "";
  }
  int integer(int col) { return sqlite3_column_int(stmt_, col); }
  // Back to the unstepped state, so the statement holds no read snapshot between uses.
  void reset() {
    sqlite3_reset(stmt_);
    sqlite3_clear_bindings(stmt_);
  }
  std::vector<double> doubles(int col) {
    std::vector<double> out(static_cast<std::size_t>(sqlite3_column_bytes(stmt_, col)) /
                            sizeof(double));
    if (!out.empty())
      std::memcpy(out.data(), sqlite3_column_blob(stmt_, col), out.size() * sizeof(double));
    return out;
  }

 private:
  sqlite3* db_;
  sqlite3_stmt* stmt_ = nullptr;
};

// Resets a reused statement when the use ends, whichever way it ends.
struct InUse {
  explicit InUse(Statement& s) : statement(s) {}
  ~InUse() { statement.reset(); }
  InUse(const InUse&) = delete;
  InUse& operator=(const InUse&) = delete;
  Statement& statement;
};

}  // namespace

struct AuditCache::Statements {
  explicit Statements(sqlite3* db)
      : get_perturbation(db, "SELECT status, text, note FROM perturbations WHERE key = ?"),
        get_stats(db, "SELECT stats FROM stats WHERE key = ?"),
        put_perturbation(db, "INSERT OR REPLACE INTO perturbations VALUES (?, ?, ?, ?)"),
        put_stats(db, "INSERT OR REPLACE INTO stats VALUES (?, ?)") {}
  Statement get_perturbation, get_stats, put_perturbation, put_stats;
};

AuditCache::AuditCache(const std::string& path) {
  if (sqlite3_open(path.c_str(), &db_) != SQLITE_OK) {
    std::string msg = db_ ? sqlite3_errmsg(db_) : "out of memory";
    sqlite3_close(db_);
    throw std::runtime_error(fmt::format("cannot open cache '{}': {}", path, msg));
  }
  sqlite3_busy_timeout(db_, 10000);
  exec("PRAGMA journal_mode=WAL");
  exec("PRAGMA synchronous=NORMAL");
  exec(
      "CREATE TABLE IF NOT EXISTS perturbations (key TEXT PRIMARY KEY, status INTEGER, "
      "text TEXT, note TEXT)");
  exec("CREATE TABLE IF NOT EXISTS stats (key TEXT PRIMARY KEY, stats BLOB)");
  statements_ = std::make_unique<Statements>(db_);
}

AuditCache::~AuditCache() {
  statements_.reset();  // finalized before the connection closes
  sqlite3_close(db_);
}

void AuditCache::exec(const char* sql) {
  char* err = nullptr;
  if (sqlite3_exec(db_, sql, nullptr, nullptr, &err) != SQLITE_OK) {
    std::string msg = err ? err : "unknown error";
    sqlite3_free(err);
    throw std::runtime_error(fmt::format("cache: {}", msg));
  }
}

std::optional<PerturbResult> AuditCache::get_perturbation(const std::string& key) {
  Statement& s = statements_->get_perturbation;
  InUse use(s);
  s.bind(1, key);
  if (!s.step()) {
    ++misses_;
    return std::nullopt;
  }
  ++hits_;
  PerturbResult r;
  r.status = static_cast<PerturbResult::Status>(s.integer(0));
  r.text = s.text(1);
  r.note = s.text(2);
  return r;
}

std::optional<std::vector<double>> AuditCache::get_stats(const std::string& key) {
  Statement& s = statements_->get_stats;
  InUse use(s);
  s.bind(1, key);
  if (!s.step()) {
    ++misses_;
    return std::nullopt;
  }
  ++hits_;
  return s.doubles(0);
}

void AuditCache::import(const std::string& path) {
  {
    Statement attach(db_, "ATTACH DATABASE ? AS shard");
    attach.bind(1, path);
    attach.step();
  }  // finalized before DETACH, which fails while a statement is open
  exec("BEGIN");
  exec("INSERT OR IGNORE INTO main.perturbations SELECT * FROM shard.perturbations");
  exec("INSERT OR IGNORE INTO main.stats SELECT * FROM shard.stats");
  exec("COMMIT");
  exec("DETACH DATABASE shard");
}

void AuditCache::begin() {
  exec("BEGIN");
}
void AuditCache::commit() {
  exec("COMMIT");
}

void AuditCache::put_perturbation(const std::string& key, const PerturbResult& result) {
  Statement& s = statements_->put_perturbation;
  InUse use(s);
  s.bind(1, key);
  s.bind(2, static_cast<int>(result.status));
  s.bind(3, result.text);
  s.bind(4, result.note);
  s.step();
}

void AuditCache::put_stats(const std::string& key, const std::vector<double>& stats) {
  Statement& s = statements_->put_stats;
  InUse use(s);
  s.bind(1, key);
  s.bind_blob(2, stats.data(), stats.size() * sizeof(double));
  s.step();
}

}  // namespace probity::audit
