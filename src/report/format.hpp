#pragma once
// Shared pieces of the report renderers: number formatting, UTF-8 display width, and the one
// Table model with the tables (scorecard, grids, effect sizes, correlations, accounting) built
// once and drawn by the text, Markdown, HTML and LaTeX renderers, so that all show the same
// numbers. Each group below is implemented in its own file: format.cpp (numbers and strings),
// test_index.cpp, verdicts.cpp, grid.cpp, scorecard.cpp, correlation_tables.cpp,
// attack_tables.cpp, effect_tables.cpp, run_tables.cpp, text_table.cpp, latex.cpp.
#include <cstddef>
#include <initializer_list>
#include <limits>
#include <map>
#include <span>
#include <string>
#include <string_view>
#include <tuple>
#include <utility>
#include <vector>

#include "probity/audit.hpp"

namespace probity::report::detail {

inline constexpr std::string_view kSchema = "probity.audit/1";

std::string_view kind_title(StrategyKind kind);  // "Degradations" / "Manipulations"
inline constexpr StrategyKind kKinds[] = {StrategyKind::kDegradation, StrategyKind::kManipulation};

// Glyphs of one rendering: Unicode, or plain ASCII for terminals that cannot show it.
struct Symbols {
  bool unicode = true;
  std::string_view pass() const { return unicode ? "\u2713" : "ok"; }
  std::string_view plus_minus() const { return unicode ? "\u00b1" : "+/-"; }
  std::string_view holm() const { return unicode ? "\u2020" : "*"; }
  std::string_view rho() const { return unicode ? "\u03c1" : "rho"; }
  std::string_view alpha() const { return unicode ? "\u03b1" : "alpha"; }
  std::string_view delta() const { return unicode ? "\u0394" : "delta"; }
  std::string_view dash() const { return unicode ? "\u2014" : "-"; }
  std::string_view range() const { return unicode ? "\u2013" : ".."; }
  std::string_view ellipsis() const { return unicode ? "\u2026" : "..."; }
  std::string_view dot() const { return unicode ? " \u00b7 " : ", "; }
};

// ---- numbers -----------------------------------------------------------------------------

std::string fmt_num(double v, int decimals);  // fixed; "NaN", "inf", "-inf" when not finite
std::string fmt_p(double p);                  // "<0.001", else 3 decimals
std::string fmt_ci(double lo, double hi, int decimals);  // "[-0.96, -0.72]"
// Effect size with the half-width of its CI: "-0.84±0.12" (just "-0.84" without a finite CI).
std::string fmt_d_pm(double d, double lo, double hi, const Symbols& sym);
std::string fmt_percent(double fraction);                                         // 0.95 -> "95%"
std::string fmt_count_range(std::size_t lo, std::size_t hi, const Symbols& sym);  // "3" / "2–3"

// ---- UTF-8 -------------------------------------------------------------------------------

// Terminal columns a string occupies: one per code point, two for East Asian wide ones, none
// for combining marks. Bytes that are not valid UTF-8 count one each.
std::size_t display_width(std::string_view s);
// At most `max_chars` code points, ending in an ellipsis when cut.
std::string truncate_text(std::string_view s, std::size_t max_chars, const Symbols& sym);
std::string join(const std::vector<std::string>& parts, std::string_view sep);
// Concatenation by appending: cheaper than chains of operator+, and it avoids GCC 12's false
// -Wrestrict warning on `"literal" + std::string&&`.
inline void append(std::string& out, std::initializer_list<std::string_view> parts) {
  for (std::string_view p : parts) out += p;
}
inline std::string cat(std::initializer_list<std::string_view> parts) {
  std::string out;
  append(out, parts);
  return out;
}

// ---- looking tests up ---------------------------------------------------------------------

struct StrategyRef {
  std::string code, name;
};

// Fast lookup of tests plus the display order of datasets, metrics and strategies: the order
// the report declares them in, followed by any that only occur in the tests.
class TestIndex {
 public:
  explicit TestIndex(const AuditReport& report);
  const AuditReport& report() const { return *report_; }
  const StrategyTest* find(const std::string& dataset, const std::string& metric, StrategyKind kind,
                           const std::string& code) const;
  const std::vector<std::string>& datasets() const { return datasets_; }
  const std::vector<std::string>& metrics() const { return metrics_; }
  const std::vector<StrategyRef>& strategies(StrategyKind kind) const;
  // Strategies of `kind` that have at least one test on `dataset`.
  std::vector<StrategyRef> strategies_on(const std::string& dataset, StrategyKind kind) const;
  bool has_tests(const std::string& dataset, StrategyKind kind) const;
  std::string strategy_name(StrategyKind kind, const std::string& code) const;

 private:
  const AuditReport* report_;
  std::map<std::tuple<std::string, std::string, int, std::string>, const StrategyTest*> tests_;
  std::vector<std::string> datasets_, metrics_;
  std::vector<StrategyRef> strategies_[2];
};

// Appends `value` unless `list` holds it already.
void add_unique(std::vector<std::string>& list, const std::string& value);
// "R random-replacement, S sentence-deletion, ...": the strategies of `kind` for a legend.
std::string strategy_list(const TestIndex& index, StrategyKind kind);

// ---- verdicts and grids ------------------------------------------------------------------

// A test's three-way outcome as a verdict: pass (detects / resists), fail (misses / fooled),
// inconclusive (neither shown), not testable, or missing (not run).
enum class Verdict { kPass, kFail, kInconclusive, kNotTestable, kMissing };
Verdict raw_verdict(const StrategyTest* t);
Verdict holm_verdict(const StrategyTest* t);
// True when Holm's adjustment changes the outcome.
bool holm_changes(const StrategyTest* t);
// "detects", "MISSES", "resists", "FOOLED", "inconclusive", "n/a": raw or after Holm.
std::string outcome_word(const StrategyTest& t, bool holm);

// One cell of the pass/fail grid: one metric on one dataset, every strategy of one kind.
struct GridCell {
  bool run = false;                       // at least one test of this kind
  std::size_t tested = 0;                 // tests that were testable
  std::vector<std::string> shown;         // codes that fail raw or after Holm, in paper order
  std::vector<std::string> changed;       // the subset whose verdict Holm changes
  std::vector<std::string> inconclusive;  // after Holm, and not shown as failing
  std::vector<std::string> untestable;    // "n/a" codes
  std::size_t fails_raw = 0, fails_holm = 0;
  std::size_t inconclusive_holm = 0;  // every test inconclusive after Holm, shown or not
};

struct Grid {
  StrategyKind kind = StrategyKind::kDegradation;
  std::vector<std::string> datasets, metrics;
  std::vector<std::vector<GridCell>> cells;        // [metric][dataset]
  std::vector<std::size_t> fails_raw, fails_holm;  // per metric, over datasets
  std::vector<std::size_t> inconclusive;           // per metric, after Holm
};

Grid build_grid(const TestIndex& index, StrategyKind kind);
bool grid_has_tests(const Grid& grid);
// "✓", "R,S,U†", "R ?:T n/a:O", "n/a", "—": the cell's text in the paper's notation, with the
// inconclusive strategies after "?:".
std::string grid_cell_text(const GridCell& cell, const Symbols& sym);

// A test in a few lines: verdicts, d with both CIs, t, p, item counts (tooltips).
// The short text of a test that could not be run, for table cells: "n/a (n=8)".
std::string na_text(const StrategyTest& t);
std::string test_details(const TestIndex& index, const StrategyTest& t, const Symbols& sym);

// ---- scorecard ---------------------------------------------------------------------------

// The verdict of one metric on one dataset from all the evidence of the report: the human
// correlation against the length and random baselines, the degradation and manipulation tests
// by their three-way outcome after Holm's adjustment (the counts every rendering shows), the
// attack's held-out findings, and what could not be tested (never counted as a pass).
struct KindTally {
  std::size_t passed = 0, tested = 0, untestable = 0;    // passed: detects / resists, after Holm
  std::map<std::string, std::size_t> untestable_causes;  // StrategyTest::untestable, counted
  std::vector<StrategyRef> failed;                       // misses / fooled, after Holm
  std::vector<StrategyRef> inconclusive;                 // after Holm
  std::vector<std::string> holm;  // codes whose outcome Holm's adjustment changes
};
// The human correlation against a baseline: the metric's ρ is not above the baseline's CI.
enum class SignalProblem { kNone, kNoSignal, kNoBetterThanLength };
struct ScoreLine {
  std::string dataset, metric;
  const CorrelationResult* correlation = nullptr;  // "mean" dimension, or the only one
  SignalProblem signal = SignalProblem::kNone;
  const CorrelationResult* baseline = nullptr;  // the baseline row behind `signal`
  KindTally kinds[2];                           // [degradation, manipulation]
  // The attack's held-out findings: what gamed the metric ("3/10 universal programs",
  // "master-key", ...); empty without an attack or without a finding.
  std::vector<std::string> attack_findings;
  bool attacked = false;
  bool robust = false;  // every test passed, nothing inconclusive, no finding at all
  std::string verdict;  // one line: "gameable: meaningless-addition (M); ..."
};
std::vector<ScoreLine> scorecard(const TestIndex& index);

// ---- tables ------------------------------------------------------------------------------

enum class Align { kLeft, kRight, kCenter };
// kWarn: fails only after Holm's adjustment (the raw verdict is a pass).
enum class Tone { kNone, kPass, kFail, kWarn, kNa, kMissing };

struct Cell {
  Cell() = default;
  Cell(std::string t) : text(std::move(t)) {}  // NOLINT: implicit, so rows read as {"a", "b"}
  std::string text;
  Tone tone = Tone::kNone;
  bool marked = false;                                     // Holm changes a verdict here
  std::string title;                                       // longer explanation (HTML tooltip)
  double heat = std::numeric_limits<double>::quiet_NaN();  // in [-1, 1]: correlation shading
  bool mono = false;                                       // code-like content (signatures)
};

struct Table {
  std::string title;
  std::vector<std::string> header;
  std::vector<Align> align;
  std::vector<std::vector<Cell>> rows;
  std::string note;  // legend under the table
};

// A verdict as a cell's tone and word ("pass", "FAIL", "n/a", "—"), and the cell of a test
// that was not run.
Tone tone_of(Verdict v);
std::string verdict_word(Verdict v, const Symbols& sym);
Cell missing_cell(const Symbols& sym);

// One row per metric (and dataset when there are several): ρ [CI], x/n, y/n, verdict.
Table scorecard_table(const TestIndex& index, const Symbols& sym);
// The legend of the `humans` row: what it is and the raters' Krippendorff's α per dimension.
std::string humans_note(const MetricCorrelations& humans, const Symbols& sym);
// The pooled table per dataset (the humans row, metrics, then baselines), its --level tables and
// its preference agreement table, after a summary over datasets when there are several.
std::vector<Table> correlation_tables(const TestIndex& index, const Symbols& sym);
// The attack's tables (attack_tables.cpp): the per-item search and held-out programs, the
// replacement families, the universal suffixes, the defense matrix (two or more metrics); each
// with rows empty when the attacks have none of it. attack_tables: those with rows, in order.
Table attack_search_table(std::span<const MetricAttack> attacks, double alpha, const Symbols& sym);
Table replacement_table(std::span<const MetricAttack> attacks, const Symbols& sym);
Table suffix_table(std::span<const MetricAttack> attacks, const Symbols& sym);
Table defense_matrix(std::span<const MetricAttack> attacks, const Symbols& sym);
std::vector<Table> attack_tables(std::span<const MetricAttack> attacks, double alpha,
                                 const Symbols& sym);
// Every judge metric's bias battery (rows empty without a judge metric).
Table judge_diagnostics_table(const AuditReport& report, const Symbols& sym);
// --rank: significance clusters per (dataset, level, statistic), one row per dimension.
std::vector<Table> ranking_tables(const TestIndex& index, const Symbols& sym);
Table grid_table(const Grid& grid, const TestIndex& index, const Symbols& sym);
// Per metric and strategy over the datasets (rows empty with one dataset).
Table replicability_table(const AuditReport& report, const Symbols& sym);
std::string grid_legend(StrategyKind kind, const TestIndex& index, const Symbols& sym);
// One effect-size table per (dataset, kind) that has tests, in display order.
std::vector<std::pair<std::string, StrategyKind>> effect_sections(const TestIndex& index);
Table effect_table(const TestIndex& index, const std::string& dataset, StrategyKind kind,
                   const Symbols& sym);
Table accounting_table(const TestIndex& index, StrategyKind kind, const Symbols& sym);
Table dataset_table(const AuditReport& report);
// One row per LLM endpoint of report.llm_usage (no rows when the run used no LLM).
Table llm_usage_table(const AuditReport& report);
Table signature_table(const AuditReport& report);
Table strategy_table(const AuditReport& report);
Table tests_table(const TestIndex& index, const Symbols& sym);
Table skipped_table(const AuditReport& report, std::size_t limit);
std::size_t skipped_count(const AuditReport& report);

// One line: version, seed, α, confidence, bootstrap, sample, time, cache.
std::string run_summary(const AuditReport& report, const Symbols& sym);
// Paragraphs (plain text) explaining how to read the tables.
std::vector<std::string> how_to_read(const TestIndex& index, const Symbols& sym);

// LaTeX: text with LaTeX's special characters escaped and the report's symbols as commands; a
// Table as a `table` environment with a booktabs tabular (--export latex).
std::string latex_escape(std::string_view s);
std::string latex_table(const Table& table);
// The comment every exported .tex file starts with: the \usepackage lines it needs.
std::string_view latex_preamble_comment();

// A box-drawn table for the terminal; every line has the same display width. With `max_width`
// (0: none) the columns are narrowed until the table fits, widest first: first down to their
// widest word (cells wrap at spaces onto more lines), then down to 4 columns (words are cut); a
// table that cannot fit stays wider. Title and note wrap to the width too. `color`: ANSI
// colours by the cells' tones, the title bold.
std::string render_text_table(const Table& table, const Symbols& sym, std::size_t max_width = 0,
                              bool color = false);
// The end of the word starting at `start`: the next space outside square brackets, so that an
// interval "[0.12, 0.34]" is one word.
std::size_t word_end(std::string_view text, std::size_t start);
// `text` broken at spaces (outside brackets) into lines of at most `width` display columns; a word
// longer than that is cut into pieces of `width` columns. At least one (possibly empty) line.
std::vector<std::string> wrap_cell(std::string_view text, std::size_t width);

}  // namespace probity::report::detail
