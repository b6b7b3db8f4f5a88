#include "audit/cache.hpp"

#include <fmt/format.h>
#include <sqlite3.h>

#include <cmath>
#include <condition_variable>
#include <deque>
#include <exception>
#include <mutex>
#include <stdexcept>
#include <thread>
#include <variant>

#include "data/sqlite_file.hpp"
#include "probity/dataset.hpp"

namespace probity::audit {
namespace {

// The stored format: PRAGMA user_version. Caches without it (0) are probity 0.1's, keyed by texts.
constexpr int kFormat = 2;

// Rows queued for the writer before put_* waits for it (bounds memory when scoring outruns it).
constexpr std::size_t kMaxQueuedRows = 1 << 20;

constexpr std::string_view kWhat = "audit cache";

// Names the file (the connection knows it) and maps a damaged file to InputError, a failed write
// to OutputError.
[[noreturn]] void fail(sqlite3* db, std::string_view what) {
  const char* file = sqlite3_db_filename(db, "main");
  data::throw_sqlite_error(db, file ? file : "", kWhat, what);
}

void exec(sqlite3* db, const char* sql) {
  if (sqlite3_exec(db, sql, nullptr, nullptr, nullptr) != SQLITE_OK) fail(db, sql);
}

sqlite3* open_db(const std::string& path) {
  sqlite3* db = data::open_sqlite(path, kWhat, data::SqliteAccess::kReadWrite);
  sqlite3_busy_timeout(db, 10000);
  try {
    exec(db, "PRAGMA journal_mode=WAL");
    exec(db, "PRAGMA synchronous=NORMAL");
    exec(db, "PRAGMA cache_size=-32768");  // 32 MB: a stage's rows stay in memory
  } catch (...) {
    sqlite3_close(db);
    throw;
  }
  return db;
}

// RAII prepared statement, reset after each use so it holds no read snapshot.
class Statement {
 public:
  Statement(sqlite3* db, const char* sql) : db_(db) {
    if (sqlite3_prepare_v2(db, sql, -1, &stmt_, nullptr) != SQLITE_OK) fail(db, "prepare");
  }
  ~Statement() { sqlite3_finalize(stmt_); }
  Statement(const Statement&) = delete;
  Statement& operator=(const Statement&) = delete;
  void bind_key(int i, const CacheKey& key) {
    const auto bytes = key.bytes();
    sqlite3_bind_blob(stmt_, i, bytes.data(), static_cast<int>(bytes.size()), SQLITE_TRANSIENT);
  }
  void bind_blob(int i, const void* p, int n) {
    sqlite3_bind_blob(stmt_, i, p, n, SQLITE_TRANSIENT);
  }
  // SQLITE_STATIC: the text must outlive the step. A view, so that a C string binds in place
  // (as `const std::string&` it was a temporary gone before the step: ASan, stack-use-after-scope).
  void bind_text(int i, std::string_view s) {
    sqlite3_bind_text(stmt_, i, s.data(), static_cast<int>(s.size()), SQLITE_STATIC);
  }
  void bind_text(int i, const char* s) { bind_text(i, std::string_view(s)); }
  void bind_text(int i, std::string&& s) = delete;  // would dangle
  void bind_int(int i, int v) { sqlite3_bind_int(stmt_, i, v); }
  // NaN is stored as NULL (SQLite has no NaN).
  void bind_double(int i, double v) {
    if (std::isnan(v)) {
      sqlite3_bind_null(stmt_, i);
    } else {
      sqlite3_bind_double(stmt_, i, v);
    }
  }
  bool step() {
    const int rc = sqlite3_step(stmt_);
    if (rc == SQLITE_ROW) return true;
    if (rc == SQLITE_DONE) return false;
    fail(db_, "step");
  }
  double real(int col) {
    return sqlite3_column_type(stmt_, col) == SQLITE_NULL ? std::nan("")
                                                          : sqlite3_column_double(stmt_, col);
  }
  int integer(int col) { return sqlite3_column_int(stmt_, col); }
  std::string text(int col) {
    auto p = reinterpret_cast<const char*>(sqlite3_column_text(stmt_, col));
    return p ? std::string(p, static_cast<std::size_t>(sqlite3_column_bytes(stmt_, col))) : "";
  }
  void reset() {
    sqlite3_reset(stmt_);
    sqlite3_clear_bindings(stmt_);
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

int user_version(sqlite3* db) {
  Statement s(db, "PRAGMA user_version");
  return s.step() ? s.integer(0) : 0;
}

bool has_table(sqlite3* db, const char* name) {
  Statement s(db, "SELECT 1 FROM sqlite_master WHERE type = 'table' AND name = ?");
  s.bind_text(1, name);
  return s.step();
}

// Whether `sql` (a SELECT of the columns this version reads) compiles against the file.
bool has_columns(sqlite3* db, const char* sql) {
  sqlite3_stmt* stmt = nullptr;
  const int rc = sqlite3_prepare_v2(db, sql, -1, &stmt, nullptr);
  sqlite3_finalize(stmt);
  return rc == SQLITE_OK;
}

// A database that is not an audit cache (another program's, a file given by mistake) is refused
// rather than written into; so is one of this format whose tables have other columns.
void check_schema(sqlite3* db, const std::string& path, int version) {
  const std::string tables = data::table_names(db);
  if (tables.empty()) return;  // new
  const bool ours = has_table(db, "scores") || has_table(db, "perturbations") ||
                    (version == 0 && has_table(db, "stats"));
  if (!ours)
    throw InputError(path, 0, "",
                     fmt::format("not a probity audit cache (its tables: {})", tables));
  if (version != kFormat) return;  // an earlier format: emptied by prepare_schema
  if (!has_columns(db, "SELECT key, score FROM scores LIMIT 0") ||
      !has_columns(db, "SELECT key, status, text, note FROM perturbations LIMIT 0"))
    throw InputError(path, 0, "",
                     fmt::format("the audit cache has format {} but not its tables (scores: key, "
                                 "score; perturbations: key, status, text, note)",
                                 kFormat));
}

// Creates the tables, or checks that the file holds this format. Returns whether tables of the
// earlier format were dropped.
bool prepare_schema(sqlite3* db, const std::string& path) {
  const int version = user_version(db);
  if (version > kFormat)
    throw InputError(path, 0, "",
                     fmt::format("the audit cache was written by a newer probity (format {}, this "
                                 "one reads {}): use another --out directory or a newer probity",
                                 version, kFormat));
  check_schema(db, path, version);
  bool reset = false;
  exec(db, "BEGIN IMMEDIATE");
  try {
    if (version < kFormat && (has_table(db, "stats") || has_table(db, "perturbations"))) {
      exec(db, "DROP TABLE IF EXISTS stats");
      exec(db, "DROP TABLE IF EXISTS perturbations");
      reset = true;
    }
    exec(db, "CREATE TABLE IF NOT EXISTS scores (key BLOB PRIMARY KEY, score REAL) WITHOUT ROWID");
    exec(db,
         "CREATE TABLE IF NOT EXISTS perturbations (key BLOB PRIMARY KEY, status INTEGER, "
         "text TEXT, note TEXT) WITHOUT ROWID");
    exec(db, fmt::format("PRAGMA user_version = {}", kFormat).c_str());
    exec(db, "COMMIT");
  } catch (...) {
    sqlite3_exec(db, "ROLLBACK", nullptr, nullptr, nullptr);
    throw;
  }
  if (reset) exec(db, "VACUUM");  // give the old rows' space back
  return reset;
}

using ScoreRows = std::vector<std::pair<CacheKey, double>>;
using PerturbationRows = std::vector<std::pair<CacheKey, PerturbResult>>;

}  // namespace

std::array<unsigned char, 24> CacheKey::bytes() const {
  std::array<unsigned char, 24> out{};
  util::store_be64(stage, out.data());
  std::copy(item.begin(), item.end(), out.begin() + 8);
  return out;
}

struct AuditCache::Reader {
  sqlite3* db;
  Statement get_score, get_perturbation, has_stage;
  explicit Reader(sqlite3* connection)
      : db(connection),
        get_score(db, "SELECT score FROM scores WHERE key = ?"),
        get_perturbation(db, "SELECT status, text, note FROM perturbations WHERE key = ?"),
        has_stage(db,
                  "SELECT 1 FROM scores WHERE key >= ? AND key < ? UNION ALL "
                  "SELECT 1 FROM perturbations WHERE key >= ? AND key < ? LIMIT 1") {}
  ~Reader() = default;
  // One read transaction for a batch of lookups (one lock instead of one per lookup).
  struct Snapshot {
    explicit Snapshot(sqlite3* d) : db(d) { exec(db, "BEGIN"); }
    ~Snapshot() { sqlite3_exec(db, "COMMIT", nullptr, nullptr, nullptr); }
    Snapshot(const Snapshot&) = delete;
    Snapshot& operator=(const Snapshot&) = delete;
    sqlite3* db;
  };
};

struct AuditCache::Writer {
  sqlite3* db;
  Statement put_score, put_perturbation;
  std::mutex mutex;
  std::condition_variable changed;
  std::deque<std::variant<ScoreRows, PerturbationRows>> queue;
  std::size_t queued_rows = 0;
  bool busy = false, stopping = false;
  std::exception_ptr error;
  std::thread thread;

  explicit Writer(sqlite3* connection)
      : db(connection),
        put_score(db, "INSERT OR REPLACE INTO scores VALUES (?, ?)"),
        put_perturbation(db, "INSERT OR REPLACE INTO perturbations VALUES (?, ?, ?, ?)") {
    thread = std::thread([this] { loop(); });
  }

  void write(const ScoreRows& rows) {
    for (const auto& [key, score] : rows) {
      InUse use(put_score);
      put_score.bind_key(1, key);
      put_score.bind_double(2, score);
      put_score.step();
    }
  }
  void write(const PerturbationRows& rows) {
    for (const auto& [key, r] : rows) {
      InUse use(put_perturbation);
      put_perturbation.bind_key(1, key);
      put_perturbation.bind_int(2, static_cast<int>(r.status));
      put_perturbation.bind_text(3, r.text);
      put_perturbation.bind_text(4, r.note);
      put_perturbation.step();
    }
  }

  void loop() {
    std::unique_lock lock(mutex);
    for (;;) {
      changed.wait(lock, [&] { return stopping || !queue.empty(); });
      if (queue.empty()) return;  // stopping, and everything is written
      auto batch = std::move(queue.front());
      queue.pop_front();
      const std::size_t rows = std::visit([](const auto& r) { return r.size(); }, batch);
      busy = true;
      const bool skip = error != nullptr;  // after a failure nothing more is written
      lock.unlock();
      std::exception_ptr failure;
      if (!skip) {
        try {
          exec(db, "BEGIN IMMEDIATE");
          try {
            std::visit([this](const auto& r) { write(r); }, batch);
            exec(db, "COMMIT");
          } catch (...) {
            sqlite3_exec(db, "ROLLBACK", nullptr, nullptr, nullptr);
            throw;
          }
        } catch (...) {
          failure = std::current_exception();
        }
      }
      lock.lock();
      busy = false;
      queued_rows -= rows;
      if (failure && !error) error = failure;
      changed.notify_all();
    }
  }

  template <class Rows>
  void push(Rows rows) {
    if (rows.empty()) return;
    std::unique_lock lock(mutex);
    changed.wait(lock, [&] { return error || queued_rows < kMaxQueuedRows; });
    if (error) std::rethrow_exception(error);
    queued_rows += rows.size();
    queue.emplace_back(std::move(rows));
    changed.notify_all();
  }

  void flush() {
    std::unique_lock lock(mutex);
    changed.wait(lock, [&] { return queue.empty() && !busy; });
    if (error) std::rethrow_exception(error);
  }

  ~Writer() {
    {
      std::lock_guard lock(mutex);
      stopping = true;
    }
    changed.notify_all();
    thread.join();
  }
};

AuditCache::AuditCache(const std::string& path) {
  sqlite3* read_db = open_db(path);
  try {
    reset_ = prepare_schema(read_db, path);
    reader_ = std::make_unique<Reader>(read_db);
  } catch (...) {
    reader_.reset();
    sqlite3_close(read_db);
    throw;
  }
  sqlite3* write_db = nullptr;
  try {
    write_db = open_db(path);
    writer_ = std::make_unique<Writer>(write_db);
  } catch (...) {
    sqlite3_close(write_db);
    sqlite3* db = reader_->db;
    reader_.reset();
    sqlite3_close(db);
    throw;
  }
}

AuditCache::~AuditCache() {
  sqlite3* write_db = writer_->db;
  writer_.reset();  // writes what is queued, then stops
  sqlite3_close(write_db);
  sqlite3* read_db = reader_->db;
  reader_.reset();  // statements are finalized before the connection closes
  sqlite3_close(read_db);
}

void AuditCache::get_scores(std::span<const CacheKey> keys,
                            std::vector<std::optional<double>>& out) {
  out.assign(keys.size(), std::nullopt);
  Reader::Snapshot snapshot(reader_->db);
  Statement& s = reader_->get_score;
  for (std::size_t i = 0; i < keys.size(); ++i) {
    InUse use(s);
    s.bind_key(1, keys[i]);
    if (s.step()) {
      out[i] = s.real(0);
      ++hits_;
    } else {
      ++misses_;
    }
  }
}

void AuditCache::get_perturbations(std::span<const CacheKey> keys,
                                   std::vector<std::optional<PerturbResult>>& out) {
  out.assign(keys.size(), std::nullopt);
  Reader::Snapshot snapshot(reader_->db);
  Statement& s = reader_->get_perturbation;
  for (std::size_t i = 0; i < keys.size(); ++i) {
    InUse use(s);
    s.bind_key(1, keys[i]);
    if (!s.step()) {
      ++misses_;
      continue;
    }
    ++hits_;
    PerturbResult r;
    r.status = static_cast<PerturbResult::Status>(s.integer(0));
    r.text = s.text(1);
    r.note = s.text(2);
    out[i] = std::move(r);
  }
}

bool AuditCache::has_stage(std::uint64_t stage) {
  std::array<unsigned char, 8> low{}, high{};
  util::store_be64(stage, low.data());
  // The first key of the next stage; the last stage's rows are all >= low.
  const bool last = stage == UINT64_MAX;
  util::store_be64(last ? stage : stage + 1, high.data());
  Statement& s = reader_->has_stage;
  InUse use(s);
  for (int pair : {0, 2}) {
    s.bind_blob(pair + 1, low.data(), 8);
    if (last) {
      static const std::array<unsigned char, 25> top = [] {
        std::array<unsigned char, 25> t{};
        t.fill(0xFF);
        return t;
      }();
      s.bind_blob(pair + 2, top.data(), 25);
    } else {
      s.bind_blob(pair + 2, high.data(), 8);
    }
  }
  return s.step();
}

void AuditCache::put_scores(std::vector<std::pair<CacheKey, double>> rows) {
  writer_->push(std::move(rows));
}

void AuditCache::put_perturbations(std::vector<std::pair<CacheKey, PerturbResult>> rows) {
  writer_->push(std::move(rows));
}

void AuditCache::flush() {
  writer_->flush();
}

void AuditCache::import(const std::string& path) {
  flush();
  sqlite3* db = reader_->db;
  {
    // The shard's format first: rows of another format would be garbage here.
    sqlite3* shard = data::open_sqlite(path, kWhat, data::SqliteAccess::kReadOnly);
    int version = 0;
    bool empty = false;
    try {
      version = user_version(shard);
      empty = data::table_names(shard).empty();
      if (version == kFormat) check_schema(shard, path, version);
    } catch (...) {
      sqlite3_close(shard);
      throw;
    }
    sqlite3_close(shard);
    if (version != kFormat)
      throw InputError(path, 0, "",
                       empty && version == 0
                           ? "not a probity audit cache to import"
                           : fmt::format("the audit cache has format {}, this probity reads {}: "
                                         "re-run that shard with this probity",
                                         version, kFormat));
  }
  {
    Statement attach(db, "ATTACH DATABASE ? AS shard");
    attach.bind_text(1, path);
    attach.step();
  }  // finalized before DETACH, which fails while a statement is open
  try {
    exec(db, "BEGIN IMMEDIATE");
    exec(db, "INSERT OR IGNORE INTO main.scores SELECT * FROM shard.scores");
    exec(db, "INSERT OR IGNORE INTO main.perturbations SELECT * FROM shard.perturbations");
    exec(db, "COMMIT");
  } catch (...) {
    sqlite3_exec(db, "ROLLBACK", nullptr, nullptr, nullptr);
    sqlite3_exec(db, "DETACH DATABASE shard", nullptr, nullptr, nullptr);
    throw;
  }
  exec(db, "DETACH DATABASE shard");
}

}  // namespace probity::audit
