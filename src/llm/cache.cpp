// The response cache: SQLite in WAL mode (readers never block the writer, a killed run loses at
// most the answers not yet committed), prepared statements, one transaction per batch.
#include <fmt/format.h>
#include <sqlite3.h>

#include <array>
#include <chrono>
#include <filesystem>

#include "data/sqlite_file.hpp"
#include "probity/dataset.hpp"
#include "probity/llm.hpp"
#include "util/enum_names.hpp"

namespace probity::llm {

namespace {
constexpr auto kCacheModes = std::to_array<util::EnumName<CacheMode>>({
    {CacheMode::kReadWrite, "read-write"},
    {.value = CacheMode::kReadWrite, .name = "rw", .printed = false, .listed = false},
    {CacheMode::kReadOnly, "read-only"},
    {.value = CacheMode::kReadOnly, .name = "ro", .printed = false, .listed = false},
    {CacheMode::kRefresh, "refresh"},
    {CacheMode::kOff, "off"},
});
}  // namespace

CacheMode parse_cache_mode(std::string_view name) {
  if (const auto mode = util::parse_enum(kCacheModes, name)) return *mode;
  throw UsageError(fmt::format("unknown cache mode '{}' (expected {})", name,
                               util::listed_names(kCacheModes, " or ")));
}

std::string_view cache_mode_name(CacheMode mode) {
  return util::name_of(kCacheModes, mode, "unknown");
}

namespace {

constexpr std::string_view kWhat = "llm cache";

[[noreturn]] void fail(sqlite3* db, const std::string& path, const char* doing) {
  data::throw_sqlite_error(db, path, kWhat, doing);
}

// A file that is an SQLite database but not a response cache (another program's, or one of ours
// with other columns) is refused rather than written into.
void check_schema(sqlite3* db, const std::string& path, bool read_only) {
  const std::string tables = data::table_names(db);
  if (tables.empty()) {
    if (read_only) throw InputError(path, 0, "", "the llm cache is empty (no llm_responses table)");
    return;  // a new cache
  }
  sqlite3_stmt* stmt = nullptr;
  const int rc = sqlite3_prepare_v2(db, "SELECT key, body, created FROM llm_responses LIMIT 0", -1,
                                    &stmt, nullptr);
  sqlite3_finalize(stmt);
  if (rc == SQLITE_OK) return;
  if (tables.find("llm_responses") == std::string::npos)
    throw InputError(path, 0, "",
                     fmt::format("not a probity llm cache: it has no llm_responses table (its "
                                 "tables: {})",
                                 tables));
  throw InputError(path, 0, "",
                   fmt::format("the llm cache has another schema than this probity writes (table "
                               "llm_responses with key, body, created): {}",
                               sqlite3_errmsg(db)));
}

// Resets a statement on every exit path so that a read transaction never stays open.
struct Reset {
  sqlite3_stmt* stmt;
  ~Reset() {
    sqlite3_reset(stmt);
    sqlite3_clear_bindings(stmt);
  }
};

}  // namespace

Cache::Cache(const std::string& path, CacheMode mode) : path_(path), mode_(mode) {
  if (mode_ == CacheMode::kOff) return;
  if (mode_ == CacheMode::kReadOnly && !std::filesystem::exists(path))
    throw UsageError(fmt::format("llm cache '{}' does not exist (cache mode read-only)", path));
  const bool read_only = mode_ == CacheMode::kReadOnly;
  // Read-only opens the file read-only, so that a cache on a read-only file system or shared
  // read-only serves its answers.
  db_ = data::open_sqlite(
      path, kWhat, read_only ? data::SqliteAccess::kReadOnly : data::SqliteAccess::kReadWrite);
  try {
    sqlite3_busy_timeout(db_, 30000);  // several processes may share one cache
    check_schema(db_, path_, read_only);
    if (!read_only) {
      exec("PRAGMA journal_mode=WAL");
      exec("PRAGMA synchronous=NORMAL");
    }
    // Lookups dominate: map the file and keep a larger page cache than the 2 MB default.
    exec("PRAGMA mmap_size=268435456");
    exec("PRAGMA cache_size=-32768");
    if (!read_only)
      exec(
          "CREATE TABLE IF NOT EXISTS llm_responses (key TEXT PRIMARY KEY, body TEXT NOT NULL, "
          "created REAL NOT NULL) WITHOUT ROWID");
    if (sqlite3_prepare_v2(db_, "SELECT body FROM llm_responses WHERE key = ?", -1, &get_,
                           nullptr) != SQLITE_OK)
      fail(db_, path_, "prepare");
    if (!read_only &&
        sqlite3_prepare_v2(db_, "INSERT OR REPLACE INTO llm_responses VALUES (?, ?, ?)", -1, &put_,
                           nullptr) != SQLITE_OK)
      fail(db_, path_, "prepare");
  } catch (...) {
    sqlite3_finalize(get_);
    sqlite3_finalize(put_);
    sqlite3_close(db_);
    throw;
  }
}

Cache::~Cache() {
  sqlite3_finalize(get_);
  sqlite3_finalize(put_);
  sqlite3_close(db_);
}

void Cache::exec(const char* sql) {
  if (sqlite3_exec(db_, sql, nullptr, nullptr, nullptr) != SQLITE_OK) fail(db_, path_, sql);
}

std::optional<std::string> Cache::get(const std::string& key) {
  if (!db_) return std::nullopt;
  std::lock_guard lock(mutex_);
  Reset reset{get_};
  sqlite3_bind_text(get_, 1, key.data(), static_cast<int>(key.size()), SQLITE_STATIC);
  const int rc = sqlite3_step(get_);
  if (rc == SQLITE_DONE) return std::nullopt;
  if (rc != SQLITE_ROW) fail(db_, path_, "lookup");
  const auto* p = static_cast<const char*>(sqlite3_column_blob(get_, 0));
  return std::string(p ? p : "", static_cast<std::size_t>(sqlite3_column_bytes(get_, 0)));
}

std::vector<std::optional<std::string>> Cache::get_many(const std::vector<std::string>& keys) {
  std::vector<std::optional<std::string>> out(keys.size());
  if (!db_ || keys.empty()) return out;
  std::lock_guard lock(mutex_);
  // One read transaction: one WAL snapshot and no per-lookup locking.
  exec("BEGIN");
  try {
    for (std::size_t i = 0; i < keys.size(); ++i) {
      Reset reset{get_};
      sqlite3_bind_text(get_, 1, keys[i].data(), static_cast<int>(keys[i].size()), SQLITE_STATIC);
      const int rc = sqlite3_step(get_);
      if (rc == SQLITE_ROW) {
        const auto* p = static_cast<const char*>(sqlite3_column_blob(get_, 0));
        out[i].emplace(p ? p : "", static_cast<std::size_t>(sqlite3_column_bytes(get_, 0)));
      } else if (rc != SQLITE_DONE) {
        fail(db_, path_, "lookup");
      }
    }
  } catch (...) {
    sqlite3_exec(db_, "ROLLBACK", nullptr, nullptr, nullptr);
    throw;
  }
  exec("COMMIT");
  return out;
}

void Cache::put_many(const std::vector<std::pair<std::string, std::string>>& entries) {
  // Read-only and off caches never write (the client does not ask them to).
  if (!db_ || entries.empty() || mode_ == CacheMode::kReadOnly) return;
  const double now =
      std::chrono::duration<double>(std::chrono::system_clock::now().time_since_epoch()).count();
  std::lock_guard lock(mutex_);
  exec("BEGIN IMMEDIATE");
  try {
    for (const auto& [key, body] : entries) {
      Reset reset{put_};
      sqlite3_bind_text(put_, 1, key.data(), static_cast<int>(key.size()), SQLITE_STATIC);
      sqlite3_bind_text(put_, 2, body.data(), static_cast<int>(body.size()), SQLITE_STATIC);
      sqlite3_bind_double(put_, 3, now);
      if (sqlite3_step(put_) != SQLITE_DONE) fail(db_, path_, "write");
    }
  } catch (...) {
    sqlite3_exec(db_, "ROLLBACK", nullptr, nullptr, nullptr);
    throw;
  }
  exec("COMMIT");
}

void Cache::erase_many(const std::vector<std::string>& keys) {
  if (!db_ || keys.empty() || mode_ == CacheMode::kReadOnly) return;
  std::lock_guard lock(mutex_);
  sqlite3_stmt* stmt = nullptr;
  if (sqlite3_prepare_v2(db_, "DELETE FROM llm_responses WHERE key = ?", -1, &stmt, nullptr) !=
      SQLITE_OK)
    fail(db_, path_, "prepare");
  try {
    exec("BEGIN IMMEDIATE");
    for (const auto& key : keys) {
      Reset reset{stmt};
      sqlite3_bind_text(stmt, 1, key.data(), static_cast<int>(key.size()), SQLITE_STATIC);
      if (sqlite3_step(stmt) != SQLITE_DONE) fail(db_, path_, "delete");
    }
  } catch (...) {
    sqlite3_exec(db_, "ROLLBACK", nullptr, nullptr, nullptr);
    sqlite3_finalize(stmt);
    throw;
  }
  sqlite3_finalize(stmt);
  exec("COMMIT");
}

void Cache::put(const std::string& key, const std::string& body) {
  put_many({{key, body}});
}

std::size_t Cache::size() {
  if (!db_) return 0;
  std::lock_guard lock(mutex_);
  sqlite3_stmt* stmt = nullptr;
  if (sqlite3_prepare_v2(db_, "SELECT COUNT(*) FROM llm_responses", -1, &stmt, nullptr) !=
      SQLITE_OK)
    fail(db_, path_, "prepare");
  std::size_t n = 0;
  if (sqlite3_step(stmt) == SQLITE_ROW) n = static_cast<std::size_t>(sqlite3_column_int64(stmt, 0));
  sqlite3_finalize(stmt);
  return n;
}

}  // namespace probity::llm
