#pragma once
// Opening the SQLite files probity keeps (the LLM response cache, the audit cache) so that a file
// that is not one, or is damaged, is reported as bad input naming the file, not as an internal
// error, and so that a read-only cache opens on a read-only file system.
#include <string>
#include <string_view>

struct sqlite3;

namespace probity::data {

enum class SqliteAccess {
  kReadWrite,  // created when missing; WAL journal
  kReadOnly,   // never created or changed (no -wal or -shm file either)
};

// Opens `path`, checks that it is an SQLite database that is not cut short, and returns the
// connection (the caller closes it). `what` names the file's role in messages ("llm cache").
// Throws InputError for a file that is not a database or is truncated or corrupt, and
// OutputError when a read-write file cannot be created.
sqlite3* open_sqlite(const std::string& path, std::string_view what, SqliteAccess access);

// Throws the error of the last failed call on `db` while `doing` something: InputError when
// SQLite says the file is damaged or not a database, OutputError when it could not write (full
// disk, read-only file), std::runtime_error otherwise.
[[noreturn]] void throw_sqlite_error(sqlite3* db, const std::string& path, std::string_view what,
                                     std::string_view doing);

// The names of the tables in the database (sqlite_master), sorted.
std::string table_names(sqlite3* db);

}  // namespace probity::data
