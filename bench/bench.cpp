// probity-bench: probity's throughput on SummEval, printed with the machine, the load and the
// method of every figure. Peer figures (sacreBLEU, rouge-score, SciPy) come from a JSON written
// by bench/peers.py: the committed reference file (labelled with where, when and how it was
// measured) unless --peers or --run-peers gives this machine's own. bench/README.md explains
// every figure. A program that prints figures, never a timed test.
#include <fmt/format.h>
#include <sys/resource.h>
#include <sys/utsname.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include <CLI/CLI.hpp>
#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <functional>
#include <map>
#include <nlohmann/json.hpp>
#include <optional>
#include <set>
#include <sstream>
#include <string>
#include <thread>
#include <tuple>
#include <vector>

#include "probity/dataset.hpp"
#include "probity/engine.hpp"
#include "probity/llm.hpp"
#include "probity/metric.hpp"
#include "probity/scoring.hpp"
#include "probity/stats.hpp"
#include "probity/version.hpp"

namespace fs = std::filesystem;
using json = nlohmann::json;

// The instruction-count mode runs this under callgrind with --toggle-collect on its name, so
// only the measured pass is counted (not loading the data or the warm-up pass).
struct BenchWorkload {
  std::function<double()> body;
};
extern "C" __attribute__((noinline)) double probity_bench_workload(const BenchWorkload* w) {
  return w->body();
}

namespace {

using Clock = std::chrono::steady_clock;

double seconds_since(Clock::time_point t) {
  return std::chrono::duration<double>(Clock::now() - t).count();
}

double cpu_seconds(clockid_t clock) {
  timespec ts{};
  clock_gettime(clock, &ts);
  return static_cast<double>(ts.tv_sec) + static_cast<double>(ts.tv_nsec) * 1e-9;
}

std::string cpu_model() {
  std::ifstream in("/proc/cpuinfo");
  std::string line;
  while (std::getline(in, line))
    if (line.rfind("model name", 0) == 0) return line.substr(line.find(':') + 2);
  return "unknown";
}

std::string load_average() {
  double l[3] = {0, 0, 0};
  if (getloadavg(l, 3) != 3) return "unknown";
  return fmt::format("{:.2f} {:.2f} {:.2f}", l[0], l[1], l[2]);
}

double median(std::vector<double> v) {
  if (v.empty()) return std::nan("");
  std::sort(v.begin(), v.end());
  const std::size_t m = v.size() / 2;
  return v.size() % 2 ? v[m] : (v[m - 1] + v[m]) / 2;
}

// Medians over rounds of wall time and CPU time (separately: the round with the median wall
// time need not be the one with the median CPU time).
struct Timing {
  double wall = 0, cpu = 0;
  std::vector<double> walls, cpus;
};

// `thread_clock`: CPU time of the calling thread (one-thread rows: work done on this thread
// only); otherwise of the whole process (rows that use a thread pool).
Timing measure(int rounds, bool thread_clock, const std::function<void()>& body) {
  const clockid_t clock = thread_clock ? CLOCK_THREAD_CPUTIME_ID : CLOCK_PROCESS_CPUTIME_ID;
  Timing t;
  for (int r = 0; r < rounds; ++r) {
    const double c0 = cpu_seconds(clock);
    const auto w0 = Clock::now();
    body();
    t.walls.push_back(seconds_since(w0));
    t.cpus.push_back(cpu_seconds(clock) - c0);
  }
  t.wall = median(t.walls);
  t.cpu = median(t.cpus);
  return t;
}

// The rule of bench/peers.py's split_sentences (Python `re.sub(r"([.!?])\s+", "\1\n", text,
// flags=re.ASCII)`): a newline after '.', '!' or '?' replaces the ASCII whitespace that follows.
// rouge-score's rougeLsum splits sentences on "\n" only, and SummEval's texts have none.
bool ascii_space(char c) {
  return c == ' ' || c == '\t' || c == '\n' || c == '\r' || c == '\f' || c == '\v';
}
std::string split_sentences(std::string_view t) {
  std::string out;
  out.reserve(t.size() + 16);
  for (std::size_t i = 0; i < t.size();) {
    const char c = t[i++];
    out += c;
    if ((c == '.' || c == '!' || c == '?') && i < t.size() && ascii_space(t[i])) {
      out += '\n';
      while (i < t.size() && ascii_space(t[i])) ++i;
    }
  }
  return out;
}

struct Pair {
  std::string hyp, ref;
};

// A lexical row: metrics scored together per pair; `key` names the row in the peers' JSON.
struct LexRow {
  std::string key, name;
  std::vector<std::string> specs;
  bool split = false;  // texts split into newline-separated sentences first
};

const std::vector<LexRow>& lex_rows() {
  static const std::vector<LexRow> rows = {
      {"bleu", "sentence BLEU", {"bleu,refs=first"}, false},
      {"chrf", "chrF", {"chrf,refs=first"}, false},
      {"rouge",
       "ROUGE-1/2/L stemmed",
       {"rouge1,stem=true,refs=first", "rouge2,stem=true,refs=first",
        "rougeL,stem=true,refs=first"},
       false},
      {"rougeLsum", "ROUGE-Lsum stemmed, split", {"rougeLsum,stem=true,refs=first"}, true},
  };
  return rows;
}

// One pass of Metric::score over the pairs (the scoring kernel, no engine around it); returns
// the sum of the primary parts, compared with the peers' checksum.
struct LexWork {
  std::vector<std::unique_ptr<probity::Metric>> metrics;
  std::vector<Pair> pairs;

  LexWork(const LexRow& row, const std::vector<Pair>& all, std::size_t limit) {
    for (const auto& s : row.specs) metrics.push_back(probity::make_metric(s));
    for (std::size_t i = 0; i < all.size() && i < limit; ++i)
      pairs.push_back(row.split ? Pair{split_sentences(all[i].hyp), split_sentences(all[i].ref)}
                                : all[i]);
  }
  double pass() const {
    double sum = 0;
    probity::MetricInput in;
    in.references.resize(1);
    for (const auto& p : pairs) {
      in.candidate = p.hyp;
      in.references[0] = p.ref;
      for (const auto& m : metrics) sum += m->score(in)[m->primary_part()];
    }
    return sum;
  }
};

// ---- peers ----------------------------------------------------------------------------------

struct PeerRow {
  std::string tool, call, basis;
  double cpu_s = 0, pairs_per_s = 0, checksum = std::nan("");
  std::map<std::string, double> variants;  // variant -> CPU seconds
  // callgrind counts by peers.py --instructions (0: not counted)
  double instr_per_pass = 0, instr_pairs = 0;
  std::string instr_variant;
};

struct Peers {
  std::string label;
  std::string data_sha256;
  std::map<std::string, PeerRow> rows;
};

std::optional<Peers> read_peers(const std::string& path, bool same_run, bool committed) {
  std::ifstream in(path);
  if (!in) return std::nullopt;
  const json doc = json::parse(in, nullptr, false);
  if (doc.is_discarded() || !doc.contains("rows")) return std::nullopt;
  Peers p;
  const json& m = doc.value("measured", json::object());
  auto loads = [](const json& l) {
    if (!l.is_array() || l.size() != 3) return std::string("?");
    return fmt::format("{:.2f} {:.2f} {:.2f}", l[0].get<double>(), l[1].get<double>(),
                       l[2].get<double>());
  };
  std::string versions;
  // value() returns a copy: keep it alive while items() iterates over it.
  const json version_list = doc.value("versions", json::object());
  for (const auto& [k, v] : version_list.items())
    if (v.is_string() && k.find("path") == std::string::npos && k != "rouge_score")
      versions += fmt::format("{}{} {}", versions.empty() ? "" : ", ", k, v.get<std::string>());
  p.label = fmt::format(
      "{}{}: {} on {} ({} cores), load average {} at start, {} at end; {}; {}",
      committed  ? "REFERENCE FIGURES, not measured in this run (bench/peers-reference.json)"
      : same_run ? "measured in this run by bench/peers.py"
                 : "measured by bench/peers.py",
      committed || same_run ? "" : fmt::format(" ({})", path), m.value("date", "?"),
      m.value("cpu", "?"), m.value("cores", 0), loads(m.value("load_start", json())),
      loads(m.value("load_end", json())), m.value("method", "?"), versions);
  const json notes = doc.value("notes", json::array());
  for (const auto& note : notes)
    if (note.is_string()) p.label += "\n       " + note.get<std::string>();
  p.data_sha256 = doc.value("data", json::object()).value("sha256", "");
  for (const auto& [key, r] : doc["rows"].items()) {
    PeerRow row;
    row.tool = r.value("tool", "");
    row.call = r.value("call", "");
    row.basis = r.value("basis", "");
    row.cpu_s = r.value("cpu_s", 0.0);
    if (r.contains("pairs_per_s") && r["pairs_per_s"].is_number())
      row.pairs_per_s = r["pairs_per_s"].get<double>();
    if (r.contains("checksum") && r["checksum"].is_number())
      row.checksum = r["checksum"].get<double>();
    if (r.contains("instructions") && r["instructions"].is_object()) {
      const json& ins = r["instructions"];
      row.instr_per_pass = ins.value("per_pass", 0.0);
      if (ins.contains("pairs") && ins["pairs"].is_number())
        row.instr_pairs = ins["pairs"].get<double>();
      row.instr_variant = ins.value("variant", "");
    }
    const json variants = r.value("variants", json::object());
    for (const auto& [v, vr] : variants.items()) row.variants[v] = vr.value("cpu_s", 0.0);
    p.rows[key] = row;
  }
  return p;
}

// Whether probity and the peer computed the same thing (sum of the scores, or the statistic).
std::string agreement(double mine, double peer, double tolerance) {
  if (std::isnan(peer)) return "no checksum";
  if (std::fabs(mine - peer) <= tolerance * std::max(1.0, std::fabs(peer))) return "same values";
  return fmt::format("DIFFERENT VALUES (probity {:.9g}, peer {:.9g}): not like-for-like", mine,
                     peer);
}

// ---- child processes ------------------------------------------------------------------------

struct ChildRun {
  double wall = 0, cpu = 0, peak_mb = 0;
  int exit_code = -1;
};

// Runs a shell command as one child process: wall time, CPU time (user + sys of it and its
// children) and peak RSS.
ChildRun run_measured(const std::string& cmd) {
  auto t0 = Clock::now();
  pid_t pid = fork();
  if (pid == 0) {
    execl("/bin/sh", "sh", "-c", ("exec " + cmd).c_str(), static_cast<char*>(nullptr));
    _exit(127);
  }
  int status = 0;
  rusage ru{};
  wait4(pid, &status, 0, &ru);
  ChildRun r;
  r.wall = seconds_since(t0);
  auto tv = [](const timeval& t) {
    return static_cast<double>(t.tv_sec) + static_cast<double>(t.tv_usec) * 1e-6;
  };
  r.cpu = tv(ru.ru_utime) + tv(ru.ru_stime);
  r.peak_mb = static_cast<double>(ru.ru_maxrss) / 1024.0;
  r.exit_code = WIFEXITED(status) ? WEXITSTATUS(status) : -1;
  return r;
}

std::string shell_quote(const std::string& s) {
  std::string out = "'";
  for (char c : s) out += c == '\'' ? std::string("'\\''") : std::string(1, c);
  return out + "'";
}

std::string slurp(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  std::stringstream ss;
  ss << in.rdbuf();
  return ss.str();
}

// SummEval repeated with new task ids ("copyK-<id>") up to exactly `target` candidates (the last
// task keeps only the candidates needed, and only the human pairs among them).
void write_scaled(const std::string& data, const std::string& out_path, std::size_t target) {
  std::ifstream in(data);
  std::vector<json> tasks;
  for (std::string l; std::getline(in, l);)
    if (!l.empty()) tasks.push_back(json::parse(l));
  std::ofstream out(out_path);
  std::size_t n = 0;
  for (std::size_t copy = 0; n < target; ++copy)
    for (const auto& t : tasks) {
      if (n >= target) break;
      json c = t;
      c["task_id"] = fmt::format("copy{}-{}", copy, t["task_id"].get<std::string>());
      auto& cands = c["candidates"];
      if (n + cands.size() > target) {
        cands.erase(cands.begin() + static_cast<std::ptrdiff_t>(target - n), cands.end());
        if (c.contains("pairs")) {
          std::set<std::string> kept;
          for (const auto& k : cands) kept.insert(k["id"].get<std::string>());
          json pairs = json::array();
          for (const auto& pr : c["pairs"])
            if (kept.count(pr["a"].get<std::string>()) && kept.count(pr["b"].get<std::string>()))
              pairs.push_back(pr);
          c["pairs"] = pairs;
        }
      }
      n += cands.size();
      out << c.dump() << "\n";
    }
}

// ---- the benchmark --------------------------------------------------------------------------

struct Options {
  std::string data;
  std::vector<std::string> sections;
  int rounds = 5;
  std::string peers_file;
  bool run_peers = false;
  std::string peers_out;  // where --run-peers keeps its JSON (default: a temporary file)
  std::string python = "/usr/bin/python3";
  std::string valgrind = "valgrind";
  std::vector<std::size_t> sizes = {1000, 10000, 100000};
  int scaling_rounds = 1;
  std::size_t instr_pairs = 200;
  std::string workload;  // internal: the instruction-count child
};

class Bench {
 public:
  explicit Bench(Options o) : o_(std::move(o)) {
    ds_ = probity::load_dataset(o_.data);
    for (const auto& t : ds_.tasks)
      for (const auto& c : t.candidates) pairs_.push_back({c.text, t.references[0].text});
    dir_ = fs::temp_directory_path() / ("probity-bench-" + std::to_string(getpid()));
  }
  ~Bench() {
    std::error_code ec;
    fs::remove_all(dir_, ec);
  }

  void header() {
    utsname un{};
    uname(&un);
    fmt::print("probity {} benchmark\n", probity::version());
    fmt::print("machine: {} | {} cores | {} {}\n", cpu_model(), hardware_threads(), un.sysname,
               un.release);
    fmt::print("load average at start: {}\n", load_average());
    fmt::print("input: {} ({} candidates x first reference)\n", o_.data, pairs_.size());
    fmt::print(
        "method: median of {} rounds; CPU = CPU time (one-thread rows: of the measuring thread; "
        "threaded rows and child processes: user + sys of the process); wall = steady clock\n",
        o_.rounds);
  }

  void load_peers() {
    const std::string committed = std::string(PROBITY_SOURCE_DIR) + "/bench/peers-reference.json";
    std::string file = o_.peers_file.empty() ? committed : o_.peers_file;
    if (o_.run_peers) {
      fs::create_directories(dir_);
      file = o_.peers_out.empty() ? (dir_ / "peers.json").string() : o_.peers_out;
      fmt::print("\nrunning bench/peers.py (one core, median of {} rounds)...\n", o_.rounds);
      std::fflush(stdout);
      auto r = run_measured(fmt::format("{} {}/bench/peers.py --data {} --rounds {} --out {}",
                                        o_.python, PROBITY_SOURCE_DIR, shell_quote(o_.data),
                                        o_.rounds, shell_quote(file)));
      if (r.exit_code != 0) fmt::print("bench/peers.py failed (exit {})\n", r.exit_code);
    }
    peers_ = read_peers(file, o_.run_peers, !o_.run_peers && o_.peers_file.empty());
    if (o_.run_peers && peers_ && peers_->rows.empty()) {
      fmt::print(
          "bench/peers.py measured no peer (none importable): using the reference figures\n");
      peers_ = read_peers(committed, false, true);
    }
    if (!peers_) {
      fmt::print("peers: none ({} unreadable)\n", file);
      return;
    }
    fmt::print("\npeers: {}\n", peers_->label);
    const std::string sha = probity::llm::sha256_hex(slurp(o_.data));
    if (!peers_->data_sha256.empty() && peers_->data_sha256 != sha)
      fmt::print("       WARNING: the peers were measured on another input (sha256 {}, this {})\n",
                 peers_->data_sha256.substr(0, 12), sha.substr(0, 12));
  }

  const PeerRow* peer(const std::string& key) const {
    if (!peers_) return nullptr;
    auto it = peers_->rows.find(key);
    return it == peers_->rows.end() ? nullptr : &it->second;
  }

  void section(const std::string& title) {
    fmt::print("\n== {} (load average {})\n", title, load_average());
    std::fflush(stdout);
  }

  // In-process lexical rows: Metric::score per pair on one thread.
  void lexical() {
    section("lexical metrics: Metric::score per pair, 1 thread");
    fmt::print("{:<28} {:>4} {:>12} {:>12} {:>12} {:>9}  {}\n", "row", "thr", "CPU pairs/s",
               "wall pairs/s", "peer pairs/s", "speed-up", "peer (one core, CPU time)");
    for (const auto& row : lex_rows()) {
      LexWork w(row, pairs_, pairs_.size());
      double sum = w.pass();  // warm-up: first use of each metric's tables
      const Timing t = measure(o_.rounds, true, [&] { sum = w.pass(); });
      const double n = static_cast<double>(w.pairs.size());
      inprocess_[row.key] = n / t.cpu;
      inprocess_sum_[row.key] = sum;
      const PeerRow* p = peer(row.key);
      if (!p || p->pairs_per_s <= 0) {
        fmt::print("{:<28} {:>4} {:>12.0f} {:>12.0f} {:>12} {:>9}  -\n", row.name, 1, n / t.cpu,
                   n / t.wall, "-", "-");
        continue;
      }
      fmt::print("{:<28} {:>4} {:>12.0f} {:>12.0f} {:>12.0f} {:>8.1f}x  {} ({}), {}\n", row.name, 1,
                 n / t.cpu, n / t.wall, p->pairs_per_s, n / t.cpu / p->pairs_per_s, p->tool,
                 p->basis, agreement(sum, p->checksum, 1e-9));
      for (const auto& [variant, cpu] : p->variants)
        if (variant != p->basis && cpu > 0)
          fmt::print("{:<28} {:>4} {:>12} {:>12} {:>12.0f} {:>8.1f}x  {} ({}; not the basis)\n", "",
                     "", "", "", n / cpu, n / t.cpu / (n / cpu), p->tool, variant);
    }
  }

  // The same rows through the engine (compute_stats, one thread) and through the Python module.
  void python() {
    section("through the Python module (1 thread; in-process rows for comparison)");
    std::map<std::string, double> engine, engine_sum;
    for (const auto& row : lex_rows()) {
      probity::Dataset d = ds_;
      if (row.split)
        for (auto& t : d.tasks) {
          for (auto& r : t.references) r.text = split_sentences(r.text);
          for (auto& c : t.candidates) c.text = split_sentences(c.text);
        }
      std::vector<probity::MetricSelection> sel;
      for (const auto& s : row.specs) sel.push_back(probity::select_metric(s));
      const auto items = probity::all_items(d);
      probity::ScoreOptions so;
      so.threads = 1;
      probity::compute_stats(d, items, sel, so);  // warm-up
      const Timing t =
          measure(o_.rounds, false, [&] { probity::compute_stats(d, items, sel, so); });
      engine[row.key] = static_cast<double>(items.size()) / t.cpu;
    }
    const std::string out = (dir_ / "python.json").string();
    fs::create_directories(dir_);
    auto run =
        run_measured(fmt::format("env PYTHONPATH={} {} {}/bench/python_bench.py --data {} "
                                 "--rounds {} > {}",
                                 shell_quote(PROBITY_PYTHON_DIR), o_.python, PROBITY_SOURCE_DIR,
                                 shell_quote(o_.data), o_.rounds, shell_quote(out)));
    std::ifstream in(out);
    const json doc = json::parse(in, nullptr, false);
    if (run.exit_code != 0 || doc.is_discarded()) {
      fmt::print("bench/python_bench.py failed (exit {}); is the module built in {}?\n",
                 run.exit_code, PROBITY_PYTHON_DIR);
      return;
    }
    fmt::print("{:<28} {:>4} {:>13} {:>13} {:>13} {:>13} {:>9} {:>9}  {}\n", "row (CPU pairs/s)",
               "thr", "Metric::score", "compute_stats", "py batch", "py per call", "batch/cs",
               "py/peer", "values");
    for (const auto& row : lex_rows()) {
      if (!inprocess_.count(row.key)) {
        LexWork w(row, pairs_, pairs_.size());
        inprocess_sum_[row.key] = w.pass();
        const Timing t = measure(o_.rounds, true, [&] { w.pass(); });
        inprocess_[row.key] = static_cast<double>(w.pairs.size()) / t.cpu;
      }
      const json& r = doc["rows"][row.key];
      const double batch = r["variants"]["batch"]["pairs_per_s"].get<double>();
      const double call = r["variants"]["per call"]["pairs_per_s"].get<double>();
      const PeerRow* p = peer(row.key);
      fmt::print("{:<28} {:>4} {:>13.0f} {:>13.0f} {:>13.0f} {:>13.0f} {:>9.2f} {:>9}  {}\n",
                 row.name, 1, inprocess_[row.key], engine[row.key], batch, call,
                 batch / engine[row.key],
                 p && p->pairs_per_s > 0 ? fmt::format("{:.1f}x", batch / p->pairs_per_s) : "-",
                 agreement(r["checksum"].get<double>(), inprocess_sum_[row.key], 1e-9));
    }
    fmt::print(
        "(batch/cs: the module's batch call against the same engine path in process; "
        "py/peer: batch against the peer's basis figure)\n");
  }

  // Bootstrap and permutation statistics at n = 1,600 (BLEU against the mean expert relevance).
  void stats() {
    section("statistics, n = " + std::to_string(pairs_.size()));
    std::vector<double> x, y, z;
    bleu_inputs(x, y, z);
    fmt::print("{:<40} {:>4} {:>9} {:>9} {:>9} {:>9}  {}\n", "row", "thr", "CPU s", "wall s",
               "peer s", "speed-up", "peer (one core, CPU time)");
    for (unsigned threads : {1u, 2u}) {
      probity::stats::BootstrapOptions bo;
      bo.resamples = 1000;
      bo.threads = threads;
      probity::stats::BootstrapResult b;
      const Timing tb = measure(o_.rounds, false, [&] {
        b = probity::stats::bootstrap_correlation(x, y, probity::stats::CorrelationType::kSpearman,
                                                  bo);
      });
      stat_row("bootstrap CI Spearman, 1000", "bootstrap", threads, tb, b.estimate);
      probity::stats::PermutationOptions po;
      po.permutations = 1000;
      po.threads = threads;
      probity::stats::PermutationResult p;
      const Timing tp = measure(o_.rounds, false, [&] {
        p = probity::stats::permutation_correlation_diff(
            x, z, y, probity::stats::CorrelationType::kSpearman, po);
      });
      stat_row("permutation test Spearman, 1000", "permutation", threads, tp, p.delta);
    }
    fmt::print("(2-thread rows have no ratio: the peers run on one core)\n");
  }

  // Instructions per pair (or per run) of each row under callgrind, counting only one pass.
  void instructions() {
    section(
        fmt::format("instruction counts: valgrind --tool=callgrind, first {} pairs (one pass "
                    "after a warm-up pass; statistics: one run, n = {}, 1 thread)",
                    o_.instr_pairs, pairs_.size()));
    if (run_measured(o_.valgrind + " --version >/dev/null 2>&1").exit_code != 0) {
      fmt::print("skipped: {} not found\n", o_.valgrind);
      return;
    }
    fs::create_directories(dir_);
    char self[4096] = {0};
    const ssize_t len = readlink("/proc/self/exe", self, sizeof(self) - 1);
    if (len <= 0) return;
    fmt::print("{:<28} {:>14} {:>12} {:>14} {:>9}  {}\n", "row", "instructions", "per pair",
               "peer per pair", "ratio", "peer (bench/peers.py --instructions)");
    std::vector<std::pair<std::string, std::string>> rows;
    for (const auto& r : lex_rows()) rows.emplace_back(r.key, r.name);
    rows.emplace_back("bootstrap", "bootstrap CI, 1000");
    rows.emplace_back("permutation", "permutation test, 1000");
    const double pairs = static_cast<double>(std::min(o_.instr_pairs, pairs_.size()));
    for (const auto& [key, name] : rows) {
      const std::string out = (dir_ / ("callgrind." + key)).string();
      auto run = run_measured(fmt::format(
          "{} --tool=callgrind --collect-atstart=no --toggle-collect=probity_bench_workload "
          "--callgrind-out-file={} {} --data {} --workload {} --instr-pairs {} >/dev/null 2>&1",
          o_.valgrind, shell_quote(out), shell_quote(std::string(self, len)), shell_quote(o_.data),
          key, o_.instr_pairs));
      double ir = 0;
      std::ifstream in(out);
      for (std::string l; std::getline(in, l);)
        if (l.rfind("summary:", 0) == 0 || l.rfind("totals:", 0) == 0)
          ir = std::max(ir, std::strtod(l.c_str() + l.find(':') + 1, nullptr));
      if (run.exit_code != 0 || ir <= 0) {
        fmt::print("{:<28} [FAILED]\n", name);
        continue;
      }
      const bool lexical = key != "bootstrap" && key != "permutation";
      // Lexical rows compare per pair, statistics per run (the same n = 1,600 on both sides).
      const double mine = lexical ? ir / pairs : ir;
      const PeerRow* p = peer(key);
      std::string peer_cols = fmt::format("{:>14} {:>9}", "-", "-");
      if (p && p->instr_per_pass > 0) {
        const double theirs =
            lexical && p->instr_pairs > 0 ? p->instr_per_pass / p->instr_pairs : p->instr_per_pass;
        peer_cols = fmt::format(
            "{:>14.0f} {:>8.1f}x  {} ({}{})", theirs, theirs / mine, p->tool, p->instr_variant,
            lexical && p->instr_pairs != pairs ? fmt::format("; first {:.0f} pairs", p->instr_pairs)
                                               : "");
      }
      fmt::print("{:<28} {:>14.0f} {:>12} {}\n", name, ir,
                 lexical ? fmt::format("{:.0f}", mine) : std::string("per run"), peer_cols);
    }
    fmt::print(
        "(instructions are not time: the ratio of counts is stable, but a Python peer "
        "retires its instructions at another rate than probity's kernels)\n");
  }

  // The child of instructions(): the chosen row's warm-up pass, then the counted pass.
  int workload() {
    for (const auto& row : lex_rows())
      if (row.key == o_.workload) {
        LexWork w(row, pairs_, o_.instr_pairs);
        w.pass();
        BenchWorkload bw{[&] { return w.pass(); }};
        return std::isnan(probity_bench_workload(&bw)) ? 1 : 0;
      }
    std::vector<double> x, y, z;
    bleu_inputs(x, y, z);
    BenchWorkload bw;
    if (o_.workload == "bootstrap") {
      probity::stats::BootstrapOptions bo;
      bo.resamples = 1000;
      bo.threads = 1;
      bw.body = [&] {
        return probity::stats::bootstrap_correlation(x, y,
                                                     probity::stats::CorrelationType::kSpearman, bo)
            .estimate;
      };
    } else if (o_.workload == "permutation") {
      probity::stats::PermutationOptions po;
      po.permutations = 1000;
      po.threads = 1;
      bw.body = [&] {
        return probity::stats::permutation_correlation_diff(
                   x, z, y, probity::stats::CorrelationType::kSpearman, po)
            .delta;
      };
    } else {
      fmt::print(stderr, "unknown workload {}\n", o_.workload);
      return 2;
    }
    return std::isnan(probity_bench_workload(&bw)) ? 1 : 0;
  }

  // MI metrics offline on all of SummEval, all cores.
  void mi() {
    section(fmt::format("MI metrics, SummEval, {} threads", hardware_threads()));
    fmt::print("{:<12} {:>4} {:>10} {:>10} {:>10} {:>10} {:>14}\n", "metric", "thr", "fit CPU s",
               "fit wall s", "score CPU s", "score wall", "candidates/s");
    for (const char* spec : {"gem", "stmt-tv", "tvd-mi", "gppm-j"}) {
      const auto items = probity::all_items(ds_);
      std::vector<probity::MetricSelection> sel;
      const Timing fit = measure(o_.rounds, false, [&] {
        sel.clear();
        sel.push_back(probity::select_metric(spec));
        sel[0].metric->fit(ds_.tasks);
      });
      probity::ScoreOptions so;
      so.fit = false;
      const Timing score =
          measure(o_.rounds, false, [&] { probity::compute_stats(ds_, items, sel, so); });
      fmt::print("{:<12} {:>4} {:>10.2f} {:>10.2f} {:>10.2f} {:>10.2f} {:>14.0f}\n", spec,
                 hardware_threads(), fit.cpu, fit.wall, score.cpu, score.wall,
                 static_cast<double>(items.size()) / score.wall);
    }
    fmt::print("(every round fits anew: select_metric(spec) makes an engine of its own)\n");
  }

  // A full offline audit of SummEval and its re-run from the cache (target: under 2 minutes).
  void audit() {
    section(
        fmt::format("probity audit, SummEval ({} candidates x 12 strategies), "
                    "bleu+chrf+rougeL.f, {} threads, one run each",
                    pairs_.size(), hardware_threads()));
    fs::create_directories(dir_);
    const std::string cmd = fmt::format(
        "{} audit --data {} --metric bleu --metric chrf --metric rougeL.f --seed 0 --out {} "
        ">/dev/null",
        PROBITY_BINARY, shell_quote(o_.data), shell_quote((dir_ / "audit").string()));
    print_child_header();
    print_child("audit", pairs_.size(), run_measured(cmd));
    print_child("audit, re-run from its cache", pairs_.size(), run_measured(cmd));
    fs::remove_all(dir_ / "audit");
  }

  // score (lexical, MI) and audit on SummEval repeated to 1k, 10k, 100k candidates.
  void scaling() {
    section(fmt::format(
        "scaling: SummEval repeated with new task ids, {} threads, {}", hardware_threads(),
        o_.scaling_rounds == 1 ? std::string("one run each")
                               : fmt::format("median of {} runs", o_.scaling_rounds)));
    fs::create_directories(dir_);
    print_child_header();
    for (std::size_t n : o_.sizes) {
      const std::string data = (dir_ / fmt::format("scaled-{}.jsonl", n)).string();
      write_scaled(o_.data, data, n);
      const std::string scores = (dir_ / "scores.jsonl").string();
      child_rows("score lexical (bleu chrf rougeL)", n,
                 fmt::format("{} score --data {} --metric bleu --metric chrf --metric rougeL "
                             "--out {} >/dev/null",
                             PROBITY_BINARY, data, scores));
      child_rows("score MI (gem stmt-tv tvd-mi gppm-j)", n,
                 fmt::format("{} score --data {} --metric gem --metric stmt-tv --metric tvd-mi "
                             "--metric gppm-j --out {} >/dev/null",
                             PROBITY_BINARY, data, scores));
      const fs::path audit_dir = dir_ / "audit-scaled";
      std::uintmax_t cache_bytes = 0;
      child_rows(
          "audit bleu chrf rougeL.f", n,
          fmt::format("{} audit --data {} --metric bleu --metric chrf --metric rougeL.f --seed 0 "
                      "--out {} >/dev/null",
                      PROBITY_BINARY, data, audit_dir.string()),
          [&] {
            std::error_code ec;
            cache_bytes = fs::file_size(audit_dir / "cache.sqlite", ec);
            fs::remove_all(audit_dir, ec);
          },
          &cache_bytes);
      fs::remove(data);
      fs::remove(scores);
    }
    fmt::print("(CPU = user + sys of the child; cache = the audit's cache.sqlite per candidate)\n");
  }

  // probity attack's per-item search: queries/s from attack.json, one run each.
  void attack() {
    section(fmt::format("probity attack, SummEval, {} threads, greedy search, one run each",
                        hardware_threads()));
    fs::create_directories(dir_);
    fmt::print("{:<10} {:>4} {:>7} {:>9} {:>11} {:>8} {:>8}\n", "metric", "thr", "budget",
               "queries", "queries/s", "wall s", "CPU s");
    for (const auto& [spec, budget, programs] :
         std::vector<std::tuple<std::string, int, int>>{{"bleu", 200, 10},
                                                        {"chrf", 50, 0},
                                                        {"rougeL.f", 50, 0},
                                                        {"gem", 20, 0},
                                                        {"gppm-j", 20, 0},
                                                        {"tvd-mi", 20, 0},
                                                        {"stmt-tv", 20, 0},
                                                        {"expert", 20, 0}}) {
      const auto out = dir_ / ("attack-" + spec);
      auto run = run_measured(fmt::format(
          "{} attack --data {} --metric {} --budget {} --programs {} --bootstrap 100 --out {} "
          ">/dev/null",
          PROBITY_BINARY, shell_quote(o_.data), spec, budget, programs, out.string()));
      std::ifstream in(out / "attack.json");
      const auto doc = json::parse(in, nullptr, false);
      if (run.exit_code != 0 || doc.is_discarded()) {
        fmt::print("{:<10} [FAILED]\n", spec);
        continue;
      }
      const auto& m = doc["metrics"][0];
      const double queries = m["queries"].get<double>(), secs = m["seconds"].get<double>();
      fmt::print("{:<10} {:>4} {:>7} {:>9.0f} {:>11.0f} {:>8.1f} {:>8.1f}{}\n", spec,
                 hardware_threads(), budget, queries, secs > 0 ? queries / secs : 0.0, run.wall,
                 run.cpu,
                 programs > 0 ? fmt::format("  (with {} universal programs)", programs) : "");
      fs::remove_all(out);
    }
    fmt::print(
        "(queries/s: the search's own clock in attack.json; wall and CPU: the whole "
        "command)\n");
  }

  void footer() { fmt::print("\nload average at end: {}\n", load_average()); }

 private:
  static unsigned hardware_threads() { return std::max(1u, std::thread::hardware_concurrency()); }

  void bleu_inputs(std::vector<double>& x, std::vector<double>& y, std::vector<double>& z) const {
    auto bleu = probity::make_metric("bleu,refs=first");
    for (const auto& t : ds_.tasks)
      for (const auto& c : t.candidates) {
        probity::MetricInput in;
        in.candidate = c.text;
        in.references = {t.references[0].text};
        x.push_back(bleu->score(in)[0]);
        y.push_back(c.human_mean("relevance"));
        // A view of the task's own string: a ternary with std::string() would dangle.
        in.references = {t.references.size() > 1 ? std::string_view(t.references[1].text)
                                                 : std::string_view()};
        z.push_back(bleu->score(in)[0]);
      }
  }

  void stat_row(const std::string& name, const std::string& key, unsigned threads, const Timing& t,
                double estimate) {
    const PeerRow* p = peer(key);
    if (threads == 1 && p && p->cpu_s > 0)
      fmt::print("{:<40} {:>4} {:>9.4f} {:>9.4f} {:>9.3f} {:>8.1f}x  {} ({}), {}\n", name, threads,
                 t.cpu, t.wall, p->cpu_s, p->cpu_s / t.cpu, p->tool, p->basis,
                 agreement(estimate, p->checksum, 1e-9));
    else
      fmt::print("{:<40} {:>4} {:>9.4f} {:>9.4f} {:>9} {:>9}\n", name, threads, t.cpu, t.wall, "-",
                 "-");
    if (threads == 1 && p)
      for (const auto& [variant, cpu] : p->variants)
        if (variant != p->basis && cpu > 0)
          fmt::print("{:<40} {:>4} {:>9} {:>9} {:>9.3f} {:>8.1f}x  {} ({}; not the basis)\n", "",
                     "", "", "", cpu, cpu / t.cpu, p->tool, variant);
  }

  static void print_child_header() {
    fmt::print("{:<36} {:>8} {:>4} {:>9} {:>9} {:>10} {:>12}\n", "command", "cands", "thr",
               "wall s", "CPU s", "peak MB", "cache B/cand");
  }

  void print_child(const std::string& name, std::size_t n, const ChildRun& r,
                   const std::uintmax_t* cache_bytes = nullptr) const {
    fmt::print("{:<36} {:>8} {:>4} {:>9.2f} {:>9.2f} {:>10.0f} {:>12}{}\n", name, n,
               hardware_threads(), r.wall, r.cpu, r.peak_mb,
               cache_bytes ? fmt::format("{:.0f}",
                                         static_cast<double>(*cache_bytes) / static_cast<double>(n))
                           : std::string("-"),
               r.exit_code == 0 ? "" : fmt::format(" [FAILED, exit {}]", r.exit_code));
    std::fflush(stdout);
  }

  // A child command run scaling_rounds times (after_each between runs, e.g. to drop a cache).
  void child_rows(const std::string& name, std::size_t n, const std::string& cmd,
                  const std::function<void()>& after_each = {},
                  const std::uintmax_t* cache_bytes = nullptr) {
    std::vector<double> walls, cpus, peaks;
    ChildRun last;
    for (int r = 0; r < o_.scaling_rounds; ++r) {
      last = run_measured(cmd);
      walls.push_back(last.wall);
      cpus.push_back(last.cpu);
      peaks.push_back(last.peak_mb);
      if (after_each) after_each();
      if (last.exit_code != 0) break;
    }
    last.wall = median(walls);
    last.cpu = median(cpus);
    last.peak_mb = median(peaks);
    print_child(name, n, last, cache_bytes);
  }

  Options o_;
  probity::Dataset ds_;
  std::vector<Pair> pairs_;
  fs::path dir_;
  std::optional<Peers> peers_;
  std::map<std::string, double> inprocess_;      // row -> CPU pairs/s of Metric::score
  std::map<std::string, double> inprocess_sum_;  // row -> sum of its scores
};

const std::vector<std::string> kSections = {"lexical", "python", "stats",   "instructions",
                                            "mi",      "audit",  "scaling", "attack"};

}  // namespace

int main(int argc, char** argv) {
  Options o;
  o.data = std::string(PROBITY_SOURCE_DIR) + "/data/summeval/summeval.jsonl";
  std::string sections = "all";
  CLI::App app{
      "probity-bench: probity's throughput with the machine, load and method of every figure "
      "(bench/README.md)"};
  app.add_option("data_positional", o.data, "Dataset (default: SummEval)")
      ->check(CLI::ExistingFile);
  app.add_option("--data", o.data, "Dataset (default: SummEval)")->check(CLI::ExistingFile);
  auto* sections_opt =
      app.add_option("--sections", sections,
                     "Comma-separated: lexical, python, stats, instructions, mi, audit, scaling, "
                     "attack, or all");
  app.add_option("--rounds", o.rounds, "Rounds per in-process figure (the median is printed)")
      ->check(CLI::PositiveNumber);
  app.add_option("--peers", o.peers_file,
                 "Peer figures written by bench/peers.py (default: the committed reference "
                 "figures, bench/peers-reference.json)");
  app.add_flag("--run-peers", o.run_peers,
               "Run bench/peers.py first (needs sacrebleu, rouge_score, scipy importable by "
               "--interpreter) and compare with its figures");
  app.add_option("--peers-out", o.peers_out,
                 "With --run-peers: keep its JSON in this file (e.g. to commit it as "
                 "bench/peers-reference.json)");
  app.add_option("--interpreter", o.python,
                 "Python interpreter of --run-peers and the python section (default "
                 "/usr/bin/python3)");
  bool python_mode = false, instructions_mode = false;
  app.add_flag("--python", python_mode,
               "The python section: the lexical rows through the Python module (alone unless "
               "--sections is given too)");
  app.add_flag("--instructions", instructions_mode,
               "The instructions section: callgrind counts (alone unless --sections is given "
               "too)");
  app.add_option("--valgrind", o.valgrind, "valgrind executable for the instructions section");
  app.add_option("--sizes", o.sizes, "Candidates of the scaling runs")->delimiter(',');
  app.add_option("--scaling-rounds", o.scaling_rounds,
                 "Runs per scaling/audit command (the median is printed)")
      ->check(CLI::PositiveNumber);
  app.add_option("--instr-pairs", o.instr_pairs, "Pairs of the instruction-count workload")
      ->check(CLI::PositiveNumber);
  app.add_option("--workload", o.workload, "Internal: one row's workload, run under callgrind");
  CLI11_PARSE(app, argc, argv);

  std::set<std::string> chosen;
  if (python_mode) chosen.insert("python");
  if (instructions_mode) chosen.insert("instructions");
  if (!chosen.empty() && sections_opt->count() == 0) sections.clear();
  std::stringstream ss(sections);
  for (std::string s; std::getline(ss, s, ',');) {
    if (s == "all") {
      chosen.insert(kSections.begin(), kSections.end());
    } else if (std::find(kSections.begin(), kSections.end(), s) != kSections.end()) {
      chosen.insert(s);
    } else {
      fmt::print(stderr, "unknown section '{}'\n", s);
      return 2;
    }
  }

  Bench bench(o);
  if (!o.workload.empty()) return bench.workload();
  bench.header();
  if (chosen.count("lexical") || chosen.count("python") || chosen.count("stats") ||
      chosen.count("instructions"))
    bench.load_peers();
  // Sections in the fixed order of kSections, whatever the order given.
  for (const auto& s : kSections) {
    if (!chosen.count(s)) continue;
    if (s == "lexical") bench.lexical();
    if (s == "python") bench.python();
    if (s == "stats") bench.stats();
    if (s == "instructions") bench.instructions();
    if (s == "mi") bench.mi();
    if (s == "audit") bench.audit();
    if (s == "scaling") bench.scaling();
    if (s == "attack") bench.attack();
  }
  bench.footer();
  return 0;
}
