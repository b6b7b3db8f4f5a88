// The cache's batch tables (the batches a run submitted, with their request keys, and the
// failures they reported) and its whole-table reads and writes (export, import, merge).
#include <fmt/format.h>
#include <sqlite3.h>

#include <chrono>
#include <nlohmann/json.hpp>

#include "data/sqlite_file.hpp"
#include "llm/internal.hpp"
#include "probity/dataset.hpp"
#include "probity/llm.hpp"

namespace probity::llm {

namespace {

constexpr std::string_view kWhat = "llm cache";

double now_s() {
  return std::chrono::duration<double>(std::chrono::system_clock::now().time_since_epoch()).count();
}

// A prepared statement finalized on every exit path.
struct Statement {
  sqlite3_stmt* stmt = nullptr;
  Statement(sqlite3* db, const std::string& path, const char* sql) {
    if (sqlite3_prepare_v2(db, sql, -1, &stmt, nullptr) != SQLITE_OK)
      data::throw_sqlite_error(db, path, kWhat, "prepare");
  }
  ~Statement() { sqlite3_finalize(stmt); }
  Statement(const Statement&) = delete;
  Statement& operator=(const Statement&) = delete;
  void text(int i, const std::string& s) {
    sqlite3_bind_text(stmt, i, s.data(), static_cast<int>(s.size()), SQLITE_TRANSIENT);
  }
  std::string column(int i) {
    const auto* p = static_cast<const char*>(sqlite3_column_blob(stmt, i));
    return std::string(p ? p : "", static_cast<std::size_t>(sqlite3_column_bytes(stmt, i)));
  }
};

}  // namespace

void Cache::ensure_batch_tables() {
  exec(
      "CREATE TABLE IF NOT EXISTS llm_batches (id TEXT PRIMARY KEY, record TEXT NOT NULL, "
      "created REAL NOT NULL) WITHOUT ROWID");
  exec(
      "CREATE TABLE IF NOT EXISTS llm_batch_failures (key TEXT PRIMARY KEY, kind TEXT NOT NULL, "
      "message TEXT NOT NULL) WITHOUT ROWID");
}

void Cache::put_batch(const BatchRecord& r) {
  if (!db_ || mode_ == CacheMode::kReadOnly) return;
  // One JSON document per batch: the record grows fields without a schema change.
  nlohmann::json j = {{"id", r.id},
                      {"provider", r.provider},
                      {"endpoint", r.endpoint},
                      {"model", r.model},
                      {"base_url", r.base_url},
                      {"status", r.status},
                      {"open", r.open},
                      {"keys", r.keys},
                      {"completed", r.completed},
                      {"failed", r.failed},
                      {"created", r.created},
                      {"updated", r.updated},
                      {"cost_usd", r.cost_usd},
                      {"estimated_cost_usd", r.estimated_cost_usd}};
  std::lock_guard lock(mutex_);
  ensure_batch_tables();
  Statement st(db_, path_, "INSERT OR REPLACE INTO llm_batches VALUES (?, ?, ?)");
  st.text(1, r.id);
  st.text(2, j.dump());
  sqlite3_bind_double(st.stmt, 3, r.created);
  if (sqlite3_step(st.stmt) != SQLITE_DONE) data::throw_sqlite_error(db_, path_, kWhat, "write");
}

std::vector<Cache::BatchRecord> Cache::batches() {
  std::vector<BatchRecord> out;
  if (!db_) return out;
  std::lock_guard lock(mutex_);
  if (data::table_names(db_).find("llm_batches") == std::string::npos) return out;
  Statement st(db_, path_, "SELECT record FROM llm_batches ORDER BY created, id");
  int rc;
  while ((rc = sqlite3_step(st.stmt)) == SQLITE_ROW) {
    const std::string text = st.column(0);
    const auto j = nlohmann::json::parse(text, nullptr, false);
    if (!j.is_object())
      throw InputError(path_, 0, "llm_batches", "a batch record is not a JSON object");
    BatchRecord r;
    r.id = j.value("id", "");
    r.provider = j.value("provider", "");
    r.endpoint = j.value("endpoint", "");
    r.model = j.value("model", "");
    r.base_url = j.value("base_url", "");
    r.status = j.value("status", "");
    r.open = j.value("open", false);
    if (j.contains("keys") && j["keys"].is_array())
      for (const auto& k : j["keys"])
        if (k.is_string()) r.keys.push_back(k.get<std::string>());
    r.completed = j.value("completed", std::uint64_t{0});
    r.failed = j.value("failed", std::uint64_t{0});
    r.created = j.value("created", 0.0);
    r.updated = j.value("updated", 0.0);
    r.cost_usd = j.value("cost_usd", 0.0);
    r.estimated_cost_usd = j.value("estimated_cost_usd", 0.0);
    out.push_back(std::move(r));
  }
  if (rc != SQLITE_DONE) data::throw_sqlite_error(db_, path_, kWhat, "read batches");
  return out;
}

void Cache::put_batch_failures(const std::vector<BatchFailure>& failures) {
  if (!db_ || failures.empty() || mode_ == CacheMode::kReadOnly) return;
  std::lock_guard lock(mutex_);
  ensure_batch_tables();
  Statement st(db_, path_, "INSERT OR REPLACE INTO llm_batch_failures VALUES (?, ?, ?)");
  exec("BEGIN IMMEDIATE");
  try {
    for (const auto& f : failures) {
      sqlite3_reset(st.stmt);
      st.text(1, f.key);
      st.text(2, std::string(error_kind_name(f.kind)));
      st.text(3, f.message);
      if (sqlite3_step(st.stmt) != SQLITE_DONE)
        data::throw_sqlite_error(db_, path_, kWhat, "write");
    }
  } catch (...) {
    sqlite3_exec(db_, "ROLLBACK", nullptr, nullptr, nullptr);
    throw;
  }
  exec("COMMIT");
}

std::vector<Cache::BatchFailure> Cache::take_batch_failures(const std::vector<std::string>& keys) {
  std::vector<BatchFailure> out;
  if (!db_ || keys.empty() || mode_ == CacheMode::kReadOnly) return out;
  std::lock_guard lock(mutex_);
  if (data::table_names(db_).find("llm_batch_failures") == std::string::npos) return out;
  Statement get(db_, path_, "SELECT kind, message FROM llm_batch_failures WHERE key = ?");
  Statement del(db_, path_, "DELETE FROM llm_batch_failures WHERE key = ?");
  exec("BEGIN IMMEDIATE");
  try {
    for (const auto& key : keys) {
      sqlite3_reset(get.stmt);
      get.text(1, key);
      const int rc = sqlite3_step(get.stmt);
      if (rc == SQLITE_DONE) continue;
      if (rc != SQLITE_ROW) data::throw_sqlite_error(db_, path_, kWhat, "read failures");
      out.push_back({key, detail::parse_error_kind(get.column(0)), get.column(1)});
      sqlite3_reset(del.stmt);
      del.text(1, key);
      if (sqlite3_step(del.stmt) != SQLITE_DONE)
        data::throw_sqlite_error(db_, path_, kWhat, "delete failures");
    }
  } catch (...) {
    sqlite3_exec(db_, "ROLLBACK", nullptr, nullptr, nullptr);
    throw;
  }
  exec("COMMIT");
  return out;
}

void Cache::for_each(
    const std::function<void(const std::string&, const std::string&, double)>& visit) {
  if (!db_) return;
  std::lock_guard lock(mutex_);
  Statement st(db_, path_, "SELECT key, body, created FROM llm_responses ORDER BY key");
  int rc;
  while ((rc = sqlite3_step(st.stmt)) == SQLITE_ROW)
    visit(st.column(0), st.column(1), sqlite3_column_double(st.stmt, 2));
  if (rc != SQLITE_DONE) data::throw_sqlite_error(db_, path_, kWhat, "read");
}

std::size_t Cache::put_entries(
    const std::vector<std::tuple<std::string, std::string, double>>& entries, bool replace) {
  if (!db_ || entries.empty() || mode_ == CacheMode::kReadOnly) return 0;
  std::lock_guard lock(mutex_);
  Statement st(db_, path_,
               replace ? "INSERT OR REPLACE INTO llm_responses VALUES (?, ?, ?)"
                       : "INSERT OR IGNORE INTO llm_responses VALUES (?, ?, ?)");
  std::size_t written = 0;
  exec("BEGIN IMMEDIATE");
  try {
    for (const auto& [key, body, created] : entries) {
      sqlite3_reset(st.stmt);
      st.text(1, key);
      st.text(2, body);
      sqlite3_bind_double(st.stmt, 3, created > 0 ? created : now_s());
      if (sqlite3_step(st.stmt) != SQLITE_DONE)
        data::throw_sqlite_error(db_, path_, kWhat, "write");
      written += static_cast<std::size_t>(sqlite3_changes(db_));
    }
  } catch (...) {
    sqlite3_exec(db_, "ROLLBACK", nullptr, nullptr, nullptr);
    throw;
  }
  exec("COMMIT");
  return written;
}

}  // namespace probity::llm
