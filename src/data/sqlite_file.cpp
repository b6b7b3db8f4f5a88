#include "data/sqlite_file.hpp"

#include <fmt/format.h>
#include <sqlite3.h>
#include <unistd.h>

#include <filesystem>
#include <system_error>

#include "probity/dataset.hpp"
#include "probity/error.hpp"

namespace probity::data {
namespace {

bool damaged(int code) {
  code &= 0xff;  // the primary code of an extended one
  return code == SQLITE_CORRUPT || code == SQLITE_NOTADB;
}

bool write_failure(int code) {
  code &= 0xff;
  return code == SQLITE_FULL || code == SQLITE_IOERR || code == SQLITE_READONLY ||
         code == SQLITE_CANTOPEN;
}

// file: URI of a path (SQLite decodes %XX; '?' and '#' would end the path).
std::string file_uri(const std::string& path, bool immutable) {
  std::string uri = "file:";
  for (unsigned char c : std::filesystem::absolute(path).string()) {
    if (c == '%' || c == '?' || c == '#' || c < 0x20)
      uri += fmt::format("%{:02X}", c);
    else
      uri += static_cast<char>(c);
  }
  uri += immutable ? "?mode=ro&immutable=1" : "?mode=ro";
  return uri;
}

// The first read: SQLite opens lazily, so a foreign or damaged file shows here.
int probe(sqlite3* db) {
  return sqlite3_exec(db, "SELECT count(*) FROM sqlite_master", nullptr, nullptr, nullptr);
}

std::int64_t pragma_int(sqlite3* db, const char* sql) {
  sqlite3_stmt* stmt = nullptr;
  std::int64_t v = -1;
  if (sqlite3_prepare_v2(db, sql, -1, &stmt, nullptr) == SQLITE_OK &&
      sqlite3_step(stmt) == SQLITE_ROW)
    v = sqlite3_column_int64(stmt, 0);
  sqlite3_finalize(stmt);
  return v;
}

}  // namespace

void throw_sqlite_error(sqlite3* db, const std::string& path, std::string_view what,
                        std::string_view doing) {
  const int code = db ? sqlite3_extended_errcode(db) : SQLITE_NOMEM;
  const std::string message = db ? sqlite3_errmsg(db) : "out of memory";
  if (damaged(code))
    throw InputError(path, 0, "",
                     fmt::format("not a readable {} (not an SQLite database, or truncated or "
                                 "corrupt): {} while {}",
                                 what, message, doing));
  if (write_failure(code))
    throw OutputError(path, fmt::format("{} ({}): {}", what, doing, message));
  throw std::runtime_error(fmt::format("{} '{}': {}: {}", what, path, doing, message));
}

std::string table_names(sqlite3* db) {
  sqlite3_stmt* stmt = nullptr;
  std::string out;
  if (sqlite3_prepare_v2(db, "SELECT name FROM sqlite_master WHERE type = 'table' ORDER BY name",
                         -1, &stmt, nullptr) != SQLITE_OK)
    return out;
  while (sqlite3_step(stmt) == SQLITE_ROW) {
    const auto* name = reinterpret_cast<const char*>(sqlite3_column_text(stmt, 0));
    out += fmt::format("{}{}", out.empty() ? "" : ", ", name ? name : "");
  }
  sqlite3_finalize(stmt);
  return out;
}

sqlite3* open_sqlite(const std::string& path, std::string_view what, SqliteAccess access) {
  const bool read_only = access == SqliteAccess::kReadOnly;
  std::error_code ec;
  if (std::filesystem::is_directory(path, ec))
    throw InputError(path, 0, "", fmt::format("the {} is a directory, not a file", what));
  auto open = [&](bool immutable) {
    sqlite3* db = nullptr;
    const int rc = read_only ? sqlite3_open_v2(file_uri(path, immutable).c_str(), &db,
                                               SQLITE_OPEN_READONLY | SQLITE_OPEN_URI, nullptr)
                             : sqlite3_open_v2(path.c_str(), &db,
                                               SQLITE_OPEN_READWRITE | SQLITE_OPEN_CREATE, nullptr);
    if (rc != SQLITE_OK) {
      try {
        throw_sqlite_error(db, path, what, "opening it");
      } catch (...) {
        sqlite3_close(db);
        throw;
      }
    }
    return db;
  };
  // Read-only in a directory that cannot be written (a read-only file system): SQLite could not
  // create the WAL index next to the file, so the file is read as one that nothing changes.
  const auto dir = std::filesystem::absolute(path).parent_path();
  bool immutable = read_only && ::access(dir.c_str(), W_OK) != 0;
  sqlite3* db = open(immutable);
  int rc = probe(db);
  if (rc != SQLITE_OK && read_only && !immutable && !damaged(sqlite3_extended_errcode(db))) {
    sqlite3_close(db);
    immutable = true;
    db = open(true);
    rc = probe(db);
  }
  try {
    if (rc != SQLITE_OK) throw_sqlite_error(db, path, what, "reading it");
    // A file cut short (a copy interrupted, a full disk) opens, and fails only at the pages
    // it lost: compare its size with what its header says it holds. Pages may still be in the
    // write-ahead log, which then holds the rest.
    const auto size = std::filesystem::file_size(path, ec);
    const std::int64_t pages = pragma_int(db, "PRAGMA page_count");
    const std::int64_t page_size = pragma_int(db, "PRAGMA page_size");
    if (!ec && pages > 0 && page_size > 0 && static_cast<std::int64_t>(size) < pages * page_size &&
        !std::filesystem::exists(path + "-wal", ec))
      throw InputError(path, 0, "",
                       fmt::format("the {} is truncated: {} bytes of the {} its header gives", what,
                                   size, pages * page_size));
  } catch (...) {
    sqlite3_close(db);
    throw;
  }
  return db;
}

}  // namespace probity::data
