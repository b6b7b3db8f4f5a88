#include "report/format.hpp"

#include <fmt/format.h>
#include <utf8proc.h>

#include <algorithm>
#include <cmath>
#include <nlohmann/json.hpp>
#include <set>

#include "text/utf8.hpp"
#include "util/json_limits.hpp"

namespace probity::report::detail {

std::string_view kind_title(StrategyKind kind) {
  return kind == StrategyKind::kDegradation ? "Degradations" : "Manipulations";
}

// ---- numbers -----------------------------------------------------------------------------

std::string fmt_num(double v, int decimals) {
  if (std::isnan(v)) return "NaN";
  if (std::isinf(v)) return v > 0 ? "inf" : "-inf";
  std::string out = fmt::format("{:.{}f}", v, decimals);
  // "-0.00" says nothing a reader can use; print it as "0.00".
  if (out[0] == '-' && out.find_first_not_of("-0.") == std::string::npos) out.erase(0, 1);
  return out;
}

std::string fmt_p(double p) {
  if (!std::isfinite(p)) return fmt_num(p, 3);
  if (p < 0.001) return "<0.001";
  return fmt::format("{:.3f}", p);
}

std::string fmt_ci(double lo, double hi, int decimals) {
  return cat({"[", fmt_num(lo, decimals), ", ", fmt_num(hi, decimals), "]"});
}

std::string fmt_d_pm(double d, double lo, double hi, const Symbols& sym) {
  std::string out = fmt_num(d, 2);
  if (std::isfinite(d) && std::isfinite(lo) && std::isfinite(hi)) {
    out += sym.plus_minus();
    out += fmt_num((hi - lo) / 2, 2);
  }
  return out;
}

std::string fmt_percent(double fraction) {
  if (!std::isfinite(fraction)) return fmt_num(fraction, 0);
  return fmt::format("{:.4g}%", fraction * 100);
}

std::string fmt_count_range(std::size_t lo, std::size_t hi, const Symbols& sym) {
  if (lo == hi) return std::to_string(lo);
  return std::to_string(lo) + std::string(sym.range()) + std::to_string(hi);
}

std::size_t display_width(std::string_view s) {
  std::size_t width = 0;
  for (std::size_t i = 0; i < s.size();) {
    char32_t cp = 0;
    std::size_t len = text::decode_utf8(s.substr(i), cp);
    if (len == 0) {  // an ill-formed byte: one replacement character
      ++width;
      ++i;
      continue;
    }
    int w = utf8proc_charwidth(static_cast<utf8proc_int32_t>(cp));
    // Control characters report 0 but still take a cell once printed as a replacement.
    if (w == 0 && cp < 0x20) w = 1;
    width += static_cast<std::size_t>(w);
    i += len;
  }
  return width;
}

std::string truncate_text(std::string_view s, std::size_t max_chars, const Symbols& sym) {
  std::size_t i = 0, chars = 0;
  while (i < s.size() && chars < max_chars) {
    char32_t cp = 0;
    std::size_t len = text::decode_utf8(s.substr(i), cp);
    i += len == 0 ? 1 : len;
    ++chars;
  }
  if (i >= s.size()) return std::string(s);
  std::string out(s.substr(0, i));
  while (!out.empty() && (out.back() == ' ' || out.back() == '\n' || out.back() == '\t'))
    out.pop_back();
  out += sym.ellipsis();
  return out;
}

std::string join(const std::vector<std::string>& parts, std::string_view sep) {
  std::string out;
  for (std::size_t i = 0; i < parts.size(); ++i) {
    if (i) out += sep;
    out += parts[i];
  }
  return out;
}

// ---- test index --------------------------------------------------------------------------

namespace {

int kind_index(StrategyKind kind) {
  return kind == StrategyKind::kDegradation ? 0 : 1;
}

void add_unique(std::vector<std::string>& list, const std::string& value) {
  if (std::find(list.begin(), list.end(), value) == list.end()) list.push_back(value);
}

}  // namespace

TestIndex::TestIndex(const AuditReport& report) : report_(&report) {
  for (const auto& d : report.datasets) add_unique(datasets_, d.name);
  for (const auto& m : report.metrics) add_unique(metrics_, m);
  for (const auto& s : report.strategies) {
    auto& list = strategies_[kind_index(s.kind)];
    bool seen = std::any_of(list.begin(), list.end(), [&](auto& r) { return r.code == s.code; });
    if (!seen) list.push_back({s.code, s.name});
  }
  for (const auto& t : report.tests) {
    add_unique(datasets_, t.dataset);
    add_unique(metrics_, t.metric);
    auto& list = strategies_[kind_index(t.kind)];
    bool seen = std::any_of(list.begin(), list.end(), [&](auto& r) { return r.code == t.code; });
    if (!seen) list.push_back({t.code, t.name});
    // The first test of a key wins; a report never holds two, but merged ones might.
    tests_.emplace(std::make_tuple(t.dataset, t.metric, kind_index(t.kind), t.code), &t);
  }
  for (const auto& c : report.correlations) {
    add_unique(datasets_, c.dataset);
    if (!c.baseline) add_unique(metrics_, c.metric);  // baselines have no strategy tests
  }
}

const StrategyTest* TestIndex::find(const std::string& dataset, const std::string& metric,
                                    StrategyKind kind, const std::string& code) const {
  auto it = tests_.find(std::make_tuple(dataset, metric, kind_index(kind), code));
  return it == tests_.end() ? nullptr : it->second;
}

const std::vector<StrategyRef>& TestIndex::strategies(StrategyKind kind) const {
  return strategies_[kind_index(kind)];
}

std::vector<StrategyRef> TestIndex::strategies_on(const std::string& dataset,
                                                  StrategyKind kind) const {
  std::vector<StrategyRef> out;
  for (const auto& s : strategies(kind)) {
    for (const auto& m : metrics_) {
      if (find(dataset, m, kind, s.code)) {
        out.push_back(s);
        break;
      }
    }
  }
  return out;
}

bool TestIndex::has_tests(const std::string& dataset, StrategyKind kind) const {
  return !strategies_on(dataset, kind).empty();
}

std::string TestIndex::strategy_name(StrategyKind kind, const std::string& code) const {
  for (const auto& s : strategies(kind))
    if (s.code == code) return s.name;
  return code;
}

// ---- verdicts and grids ------------------------------------------------------------------

Verdict raw_verdict(const StrategyTest* t) {
  if (!t) return Verdict::kMissing;
  if (!t->testable) return Verdict::kNotTestable;
  return t->passed ? Verdict::kPass : Verdict::kFail;
}

Verdict holm_verdict(const StrategyTest* t) {
  if (!t) return Verdict::kMissing;
  if (!t->testable) return Verdict::kNotTestable;
  return t->passed_holm ? Verdict::kPass : Verdict::kFail;
}

bool holm_changes(const StrategyTest* t) {
  return t && t->testable && t->passed != t->passed_holm;
}

Grid build_grid(const TestIndex& index, StrategyKind kind) {
  Grid g;
  g.kind = kind;
  for (const auto& ds : index.datasets())
    if (index.has_tests(ds, kind)) g.datasets.push_back(ds);
  g.metrics = index.metrics();
  g.cells.assign(g.metrics.size(), std::vector<GridCell>(g.datasets.size()));
  g.fails_raw.assign(g.metrics.size(), 0);
  g.fails_holm.assign(g.metrics.size(), 0);
  for (std::size_t m = 0; m < g.metrics.size(); ++m) {
    for (std::size_t d = 0; d < g.datasets.size(); ++d) {
      GridCell& cell = g.cells[m][d];
      for (const auto& s : index.strategies(kind)) {
        const StrategyTest* t = index.find(g.datasets[d], g.metrics[m], kind, s.code);
        if (!t) continue;
        cell.run = true;
        Verdict raw = raw_verdict(t), holm = holm_verdict(t);
        if (raw == Verdict::kNotTestable) {
          cell.untestable.push_back(s.code);
          continue;
        }
        ++cell.tested;
        if (raw == Verdict::kFail) ++cell.fails_raw;
        if (holm == Verdict::kFail) ++cell.fails_holm;
        if (raw == Verdict::kFail || holm == Verdict::kFail) cell.shown.push_back(s.code);
        if (holm_changes(t)) cell.changed.push_back(s.code);
      }
      g.fails_raw[m] += cell.fails_raw;
      g.fails_holm[m] += cell.fails_holm;
    }
  }
  return g;
}

bool grid_has_tests(const Grid& grid) {
  return !grid.datasets.empty();
}

std::string grid_cell_text(const GridCell& cell, const Symbols& sym) {
  if (!cell.run) return std::string(sym.dash());
  if (cell.shown.empty() && cell.untestable.empty()) return std::string(sym.pass());
  std::vector<std::string> codes;
  for (const auto& code : cell.shown) {
    bool changed = std::find(cell.changed.begin(), cell.changed.end(), code) != cell.changed.end();
    codes.push_back(changed ? code + std::string(sym.holm()) : code);
  }
  // Nothing could be tested: plain "n/a" rather than a list of every code.
  if (cell.tested == 0) return "n/a";
  std::string out = join(codes, ",");
  if (!cell.untestable.empty()) {
    if (!out.empty()) out += ' ';
    append(out, {"n/a:", join(cell.untestable, ",")});
  }
  return out;
}

// ---- tables ------------------------------------------------------------------------------

namespace {

Cell missing_cell(const Symbols& sym) {
  Cell c;
  c.text = sym.dash();
  c.tone = Tone::kMissing;
  c.title = "not run";
  return c;
}

Tone tone_of(Verdict v) {
  switch (v) {
    case Verdict::kPass:
      return Tone::kPass;
    case Verdict::kFail:
      return Tone::kFail;
    case Verdict::kNotTestable:
      return Tone::kNa;
    case Verdict::kMissing:
      break;
  }
  return Tone::kMissing;
}

std::string verdict_word(Verdict v, const Symbols& sym) {
  switch (v) {
    case Verdict::kPass:
      return std::string(sym.pass());
    case Verdict::kFail:
      return "FAIL";
    case Verdict::kNotTestable:
      return "n/a";
    case Verdict::kMissing:
      break;
  }
  return std::string(sym.dash());
}

const DatasetSummary* find_dataset(const AuditReport& report, const std::string& name) {
  for (const auto& d : report.datasets)
    if (d.name == name) return &d;
  return nullptr;
}

}  // namespace

std::string na_text(const StrategyTest& t) {
  // "n/a (n=8)": too few applied items; "n/a (constant)": scores that do not vary;
  // "n/a (language)": the strategy has no rules for the data's language.
  switch (t.reason) {
    case NotTestable::kConstantScores:
      return "n/a (constant)";
    case NotTestable::kLanguage:
      return "n/a (language)";
    case NotTestable::kNone:
    case NotTestable::kTooFewApplied:
      break;
  }
  return fmt::format("n/a (n={})", t.applied);
}

std::string test_details(const TestIndex& index, const StrategyTest& t, const Symbols& sym) {
  const AuditReport& r = index.report();
  std::string conf = fmt_percent(r.confidence);
  std::string out = t.code + " " + index.strategy_name(t.kind, t.code) + ": ";
  Verdict raw = raw_verdict(&t), holm = holm_verdict(&t);
  if (raw == Verdict::kNotTestable) {
    out += fmt::format("not testable: {} ({} applied of {} considered)",
                       t.untestable.empty() ? "too few applied items" : t.untestable, t.applied,
                       t.considered);
    return out;
  }
  out += raw == Verdict::kPass ? "pass" : "FAIL";
  if (holm != raw) out += holm == Verdict::kPass ? " (pass after Holm)" : " (FAIL after Holm)";
  out += fmt::format("\nd = {}, {} CI {} analytic, {} bootstrap", fmt_num(t.d, 3), conf,
                     fmt_ci(t.d_lo, t.d_hi, 3), fmt_ci(t.d_boot_lo, t.d_boot_hi, 3));
  out +=
      fmt::format("\nmean {} = {} (sd {}), t = {}, df = {}", sym.delta(), fmt_num(t.mean_delta, 4),
                  fmt_num(t.sd_delta, 4), fmt_num(t.t, 3), fmt_num(t.df, 1));
  out += fmt::format("\np = {}, Holm p = {}; {} applied of {} considered", fmt_p(t.p),
                     fmt_p(t.p_holm), t.applied, t.considered);
  return out;
}

namespace {

std::string strategy_list(const TestIndex& index, StrategyKind kind) {
  std::vector<std::string> parts;
  for (const auto& s : index.strategies(kind)) parts.push_back(s.code + " " + s.name);
  return join(parts, ", ");
}

}  // namespace

std::vector<ScoreLine> scorecard(const TestIndex& index) {
  const AuditReport& r = index.report();
  std::vector<ScoreLine> lines;
  for (const auto& ds : index.datasets())
    for (const auto& m : index.metrics()) {
      ScoreLine line;
      line.dataset = ds;
      line.metric = m;
      for (const auto& c : r.correlations) {
        if (c.dataset != ds || c.metric != m || c.baseline) continue;
        for (const auto& row : c.rows)
          if (row.dimension == "mean" || !line.correlation) line.correlation = &row;
      }
      bool any = line.correlation != nullptr;
      for (int k = 0; k < 2; ++k) {
        KindTally& tally = line.kinds[k];
        for (const auto& s : index.strategies(kKinds[k])) {
          const StrategyTest* t = index.find(ds, m, kKinds[k], s.code);
          if (!t) continue;
          any = true;
          if (!t->testable) {
            ++tally.untestable;
            ++tally.untestable_causes[t->untestable.empty() ? "no cause recorded" : t->untestable];
            continue;
          }
          ++tally.tested;
          if (t->passed)
            ++tally.passed;
          else
            tally.failed.push_back(s);
          if (holm_changes(t)) tally.holm.push_back(s.code);
        }
      }
      if (!any) continue;
      auto names = [](const std::vector<StrategyRef>& refs) {
        std::vector<std::string> parts;
        for (const auto& s : refs) parts.push_back(cat({s.name, " (", s.code, ")"}));
        return join(parts, ", ");
      };
      const KindTally &deg = line.kinds[0], &man = line.kinds[1];
      std::vector<std::string> parts;
      if (!man.failed.empty()) parts.push_back("gameable: " + names(man.failed));
      if (!deg.failed.empty()) parts.push_back("misses: " + names(deg.failed));
      const std::size_t tested = deg.tested + man.tested;
      const std::size_t na = deg.untestable + man.untestable;
      // A failed test is evidence however few ran; robustness is not: it needs most of the
      // suite to have run (1 passed of 12 is no verdict).
      std::map<std::string, std::size_t> causes = deg.untestable_causes;
      for (const auto& [cause, n] : man.untestable_causes) causes[cause] += n;
      std::vector<std::string> why;
      for (const auto& [cause, n] : causes) why.push_back(fmt::format("{} × {}", n, cause));
      if (parts.empty() && tested + na == 0) {
        parts.push_back("not tested");
      } else if (parts.empty() && na > tested) {
        parts.push_back(fmt::format("no verdict: {} of {} tests could run ({} not testable: {})",
                                    tested, tested + na, na, join(why, "; ")));
      } else {
        if (parts.empty()) parts.push_back(fmt::format("robust: passed all {} tested", tested));
        if (na > 0) parts.push_back(fmt::format("{} not testable", na));
      }
      line.verdict = join(parts, "; ");
      lines.push_back(std::move(line));
    }
  return lines;
}

Table scorecard_table(const TestIndex& index, const Symbols& sym) {
  const AuditReport& r = index.report();
  const bool several = index.datasets().size() > 1;
  Table t;
  t.title = fmt::format(
      "Scorecard {} human correlation, degradations passed, manipulations resisted", sym.dash());
  if (several) {
    t.header.push_back("dataset");
    t.align.push_back(Align::kLeft);
  }
  t.header.push_back("metric");
  t.header.push_back(fmt::format("human {} [{} CI]", sym.rho(), fmt_percent(r.confidence)));
  t.header.push_back("degradations passed");
  t.header.push_back("manipulations resisted");
  t.header.push_back("verdict");
  for (Align a : {Align::kLeft, Align::kRight, Align::kCenter, Align::kCenter, Align::kLeft})
    t.align.push_back(a);
  for (const auto& line : scorecard(index)) {
    std::vector<Cell> row;
    if (several) row.push_back({line.dataset});
    row.push_back({line.metric});
    Cell rho;
    if (line.correlation) {
      const CorrelationResult& c = *line.correlation;
      rho.text = cat({fmt_num(c.spearman, 2), " ", fmt_ci(c.spearman_lo, c.spearman_hi, 2)});
      rho.heat = c.spearman;
      rho.title =
          fmt::format("Spearman over {} items ({}), p = {}", c.n, c.dimension, fmt_p(c.spearman_p));
    } else {
      rho = missing_cell(sym);
    }
    row.push_back(std::move(rho));
    for (int k = 0; k < 2; ++k) {
      const KindTally& tally = line.kinds[k];
      Cell c;
      if (tally.tested == 0) {
        c = tally.untestable > 0 ? Cell{"n/a"} : missing_cell(sym);
        if (tally.untestable > 0) c.tone = Tone::kNa;
      } else {
        c.text = fmt::format("{}/{}", tally.passed, tally.tested);
        c.tone = tally.failed.empty() ? Tone::kPass : Tone::kFail;
        if (!tally.holm.empty()) {
          c.marked = true;
          c.title =
              fmt::format("Holm's adjustment changes the verdict of {}", join(tally.holm, ","));
        }
      }
      row.push_back(std::move(c));
    }
    Cell verdict{line.verdict};
    const bool failed = !line.kinds[0].failed.empty() || !line.kinds[1].failed.empty();
    verdict.tone = failed                                            ? Tone::kFail
                   : line.kinds[0].tested + line.kinds[1].tested > 0 ? Tone::kPass
                                                                     : Tone::kNa;
    row.push_back(std::move(verdict));
    t.rows.push_back(std::move(row));
  }
  t.note = fmt::format(
      "{} is Spearman's {} with the human ratings (the mean over dimensions when there are "
      "several). A degradation passes when the metric's score drops significantly (one-sided "
      "paired t-test, p < {:g}); a manipulation is resisted unless the score rises significantly. "
      "Counts are of testable strategies, before Holm's adjustment (see the grids).",
      sym.rho(), sym.rho(), r.alpha);
  return t;
}

namespace {

// The correlations of a dataset: the audited metrics in report order, then the baselines.
std::vector<const MetricCorrelations*> dataset_correlations(const TestIndex& index,
                                                            const std::string& ds) {
  const AuditReport& r = index.report();
  std::vector<const MetricCorrelations*> rows;
  for (const auto& m : index.metrics())
    for (const auto& c : r.correlations)
      if (c.dataset == ds && c.metric == m && !c.baseline) {
        rows.push_back(&c);
        break;
      }
  for (const auto& c : r.correlations)
    if (c.dataset == ds && c.baseline) rows.push_back(&c);
  return rows;
}

// --level rows: one table per (level, statistic), a row per metric, a column per dimension.
std::vector<Table> level_tables(const TestIndex& index, const std::string& ds,
                                const std::vector<const MetricCorrelations*>& rows,
                                const Symbols& sym) {
  const AuditReport& r = index.report();
  std::vector<std::pair<stats::Level, stats::LevelStatistic>> keys;
  std::vector<std::string> dims;
  for (const auto* mc : rows)
    for (const auto& l : mc->levels) {
      if (std::find(keys.begin(), keys.end(), std::make_pair(l.level, l.statistic)) == keys.end())
        keys.emplace_back(l.level, l.statistic);
      add_unique(dims, l.dimension);
    }
  std::vector<Table> tables;
  for (const auto& [level, statistic] : keys) {
    Table t;
    const std::string unit = level == stats::Level::kSystem ? "systems" : "tasks";
    t.title = fmt::format("Human correlation by level {} {}: {} level, {} [{} CI over {}]",
                          sym.dash(), ds, stats::level_name(level),
                          stats::level_statistic_name(statistic), fmt_percent(r.confidence), unit);
    t.header.push_back("metric");
    t.align.push_back(Align::kLeft);
    for (const auto& d : dims) {
      t.header.push_back(d);
      t.align.push_back(Align::kRight);
    }
    for (const auto* mc : rows) {
      std::vector<Cell> line;
      line.push_back({mc->metric});
      for (const auto& d : dims) {
        auto it =
            std::find_if(mc->levels.begin(), mc->levels.end(), [&](const LevelCorrelation& l) {
              return l.level == level && l.statistic == statistic && l.dimension == d;
            });
        if (it == mc->levels.end()) {
          line.push_back(missing_cell(sym));
          continue;
        }
        Cell c;
        c.text = std::isfinite(it->ci_lo)
                     ? cat({fmt_num(it->result.value, 2), " [", fmt_num(it->ci_lo, 2), ",",
                            fmt_num(it->ci_hi, 2), "]"})
                     : fmt_num(it->result.value, 2);
        if (statistic != stats::LevelStatistic::kPairwiseAcc &&
            statistic != stats::LevelStatistic::kAccEq)
          c.heat = it->result.value;
        std::string groups;
        if (level == stats::Level::kTask)
          groups = fmt::format(", mean over {} tasks ({} skipped: undefined)", it->result.groups,
                               it->result.skipped);
        c.title = fmt::format(
            "{} on {}, {}: {} = {} over n = {}{}; {} CI {} from {} resamples of {}", mc->metric, ds,
            d, stats::level_statistic_name(statistic), fmt_num(it->result.value, 4), it->result.n,
            groups, fmt_percent(r.confidence), fmt_ci(it->ci_lo, it->ci_hi, 4), it->resamples,
            it->unit);
        if (statistic == stats::LevelStatistic::kAccEq)
          c.title += fmt::format("; tie threshold {}", fmt_num(it->result.epsilon, 6));
        line.push_back(std::move(c));
      }
      t.rows.push_back(std::move(line));
    }
    t.note = level == stats::Level::kItem
                 ? "Item level: pooled over all candidates (WMT's \"no grouping\")."
             : level == stats::Level::kTask
                 ? "Task level: the statistic within each task, averaged over the tasks where it "
                   "is defined (SummEval's summary level, WMT's \"group by item\")."
                 : "System level: per system the mean metric and human score over its "
                   "candidates, then the statistic across systems.";
    t.note += " The bootstrap resamples whole " + unit + " (docs/meta-eval.md).";
    tables.push_back(std::move(t));
  }
  return tables;
}

// Agreement with the human pairwise preferences (`pairs`).
Table preference_table(const TestIndex& index, const std::string& ds,
                       const std::vector<const MetricCorrelations*>& rows, const Symbols& sym) {
  const AuditReport& r = index.report();
  Table t;
  t.title = fmt::format("Human preference agreement {} {}: accuracy [{} CI over tasks]", sym.dash(),
                        ds, fmt_percent(r.confidence));
  t.header = {"metric", "accuracy", "pairs", "metric ties", "human ties", "ties shared"};
  t.align = {Align::kLeft,  Align::kRight, Align::kRight,
             Align::kRight, Align::kRight, Align::kRight};
  for (const auto* mc : rows) {
    if (!mc->preference) continue;
    const PreferenceAgreement& p = *mc->preference;
    Cell acc(std::isfinite(p.ci_lo) ? cat({fmt_num(p.result.accuracy, 3), " [", fmt_num(p.ci_lo, 3),
                                           ",", fmt_num(p.ci_hi, 3), "]"})
                                    : fmt_num(p.result.accuracy, 3));
    t.rows.push_back({Cell(mc->metric), std::move(acc), Cell(std::to_string(p.result.strict)),
                      Cell(std::to_string(p.result.metric_ties)),
                      Cell(std::to_string(p.result.human_ties)),
                      Cell(fmt_num(p.result.tie_agreement, 3))});
  }
  t.note =
      "Over the pairs with a strict human preference: 1 when the metric prefers the same "
      "candidate, 1/2 when it ties them, 0 otherwise; human ties are left out of the accuracy and "
      "\"ties shared\" is the share of them the metric ties too. The bootstrap resamples tasks.";
  return t;
}

}  // namespace

std::vector<Table> correlation_tables(const TestIndex& index, const Symbols& sym) {
  const AuditReport& r = index.report();
  std::vector<Table> tables;
  if (index.datasets().size() > 1) {
    // The paper's summary layout (Tables 1 and 6): one row per metric, one column per dataset,
    // Spearman averaged over the dataset's human dimensions (or its only dimension).
    Table t;
    t.title = fmt::format("Human correlation {} summary: Spearman {} [{} CI], mean over dimensions",
                          sym.dash(), sym.rho(), fmt_percent(r.confidence));
    t.header.push_back("metric");
    t.align.push_back(Align::kLeft);
    for (const auto& ds : index.datasets()) {
      t.header.push_back(ds);
      t.align.push_back(Align::kRight);
    }
    std::vector<std::string> names = index.metrics();
    for (const auto& c : r.correlations)
      if (c.baseline) add_unique(names, c.metric);
    for (const auto& m : names) {
      std::vector<Cell> line;
      line.push_back({m});
      for (const auto& ds : index.datasets()) {
        const CorrelationResult* summary = nullptr;
        for (const auto& c : r.correlations) {
          if (c.dataset != ds || c.metric != m) continue;
          for (const auto& row : c.rows)
            if (row.dimension == "mean" || (c.rows.size() == 1 && !summary)) summary = &row;
        }
        if (!summary) {
          line.push_back(missing_cell(sym));
          continue;
        }
        Cell c;
        c.text = cat({fmt_num(summary->spearman, 2), " [", fmt_num(summary->spearman_lo, 2), ",",
                      fmt_num(summary->spearman_hi, 2), "]"});
        c.heat = summary->spearman;
        line.push_back(std::move(c));
      }
      t.rows.push_back(std::move(line));
    }
    t.note = "Per-dimension values are in the tables below.";
    tables.push_back(std::move(t));
  }
  for (const auto& ds : index.datasets()) {
    const std::vector<const MetricCorrelations*> rows = dataset_correlations(index, ds);
    if (rows.empty()) continue;
    // Dimensions in the dataset's order, then any others, with "mean" last.
    std::vector<std::string> dims;
    if (const DatasetSummary* summary = find_dataset(r, ds))
      for (const auto& d : summary->dimensions) add_unique(dims, d);
    bool has_mean = false;
    for (const auto* mc : rows)
      for (const auto& row : mc->rows) {
        if (row.dimension == "mean")
          has_mean = true;
        else
          add_unique(dims, row.dimension);
      }
    if (has_mean) dims.push_back("mean");
    // Keep only the dimensions some metric has a value for.
    std::erase_if(dims, [&](const std::string& d) {
      return std::none_of(rows.begin(), rows.end(), [&](const MetricCorrelations* mc) {
        return std::any_of(mc->rows.begin(), mc->rows.end(),
                           [&](const CorrelationResult& c) { return c.dimension == d; });
      });
    });

    Table t;
    t.title = fmt::format("Human correlation {} {}: Spearman {} [{} CI]", sym.dash(), ds, sym.rho(),
                          fmt_percent(r.confidence));
    t.header.push_back("metric");
    t.align.push_back(Align::kLeft);
    for (const auto& d : dims) {
      t.header.push_back(d);
      t.align.push_back(Align::kRight);
    }
    for (const auto* mc : rows) {
      std::vector<Cell> line;
      line.push_back({mc->metric});
      for (const auto& d : dims) {
        auto it = std::find_if(mc->rows.begin(), mc->rows.end(),
                               [&](const CorrelationResult& c) { return c.dimension == d; });
        if (it == mc->rows.end()) {
          line.push_back(missing_cell(sym));
          continue;
        }
        Cell c;
        c.text = cat({fmt_num(it->spearman, 2), " [", fmt_num(it->spearman_lo, 2), ",",
                      fmt_num(it->spearman_hi, 2), "]"});
        c.heat = it->spearman;
        c.title = fmt::format(
            "{} on {}, {}: n = {}\nSpearman {} = {}, {} CI {}, p = {}\nKendall tau = {}, "
            "Pearson r = {}",
            mc->metric, ds, d, it->n, sym.rho(), fmt_num(it->spearman, 4),
            fmt_percent(r.confidence), fmt_ci(it->spearman_lo, it->spearman_hi, 4),
            fmt_p(it->spearman_p), fmt_num(it->kendall, 4), fmt_num(it->pearson, 4));
        line.push_back(std::move(c));
      }
      t.rows.push_back(std::move(line));
    }
    t.note = fmt::format(
        "Spearman {} between metric scores and the mean human rating per dimension, with a {} "
        "bootstrap CI; \"mean\" averages the per-dimension values.",
        sym.rho(), fmt_percent(r.confidence));
    if (std::any_of(rows.begin(), rows.end(), [](const auto* mc) { return mc->baseline; }))
      t.note +=
          " baseline:length (characters of the candidate) and baseline:random (a seeded hash) "
          "need no reference: a metric not above them tracks length or nothing.";
    if (!dims.empty()) tables.push_back(std::move(t));  // no ratings: preferences only
    for (auto& lt : level_tables(index, ds, rows, sym)) tables.push_back(std::move(lt));
    if (std::any_of(rows.begin(), rows.end(), [](const auto* mc) { return mc->preference; }))
      tables.push_back(preference_table(index, ds, rows, sym));
  }
  return tables;
}

Table attack_table(const TestIndex& index, const Symbols& sym) {
  const AuditReport& r = index.report();
  Table t;
  t.title = fmt::format("Attack {} does a search find content-free edits the metric rewards?",
                        sym.dash());
  t.header = {"metric",
              "dataset",
              "attacked",
              fmt::format("mean best {}", sym.delta()),
              "best-edit families",
              "held-out programs",
              "strongest held-out program"};
  t.align = {Align::kLeft, Align::kLeft,  Align::kRight, Align::kRight,
             Align::kLeft, Align::kRight, Align::kLeft};
  for (const auto& a : r.attacks) {
    std::vector<std::string> families;
    for (std::size_t k = 0; k < a.families.size() && k < 3; ++k)
      families.push_back(fmt::format("{} {}", a.families[k].first, a.families[k].second));
    std::size_t vulnerable = 0;
    const UniversalProgram* strongest = nullptr;
    for (const auto& u : a.universal) {
      if (!u.held_out.testable || u.held_out.passed_holm) continue;
      ++vulnerable;
      if (!strongest || u.held_out.d > strongest->held_out.d) strongest = &u;
    }
    Cell programs(fmt::format("{}/{}", vulnerable, a.universal.size()));
    programs.tone = vulnerable > 0 ? Tone::kFail : Tone::kPass;
    Cell best(strongest ? fmt::format("{} d = {}, Holm p = {}", join(strongest->program, "+"),
                                      fmt_d_pm(strongest->held_out.d, strongest->held_out.d_lo,
                                               strongest->held_out.d_hi, sym),
                                      fmt_p(strongest->held_out.p_holm))
                        : std::string("none"));
    std::string examples;
    for (const auto& e : a.examples)
      examples += fmt::format("{}{} / {}: {} {} {} by {}", examples.empty() ? "" : "\n", e.task_id,
                              e.candidate_id, fmt_num(e.before, 3), sym.unicode ? "\u2192" : "->",
                              fmt_num(e.after, 3), join(e.program, "+"));
    Cell rate(fmt_percent(a.success_rate));
    rate.title = examples;
    Cell mean(fmt_num(a.mean_best_delta, 3));
    if (!a.testable) {
      // No finding from nothing: the cause instead of a rate.
      rate = Cell("n/a: " + a.untestable);
      rate.tone = Tone::kNa;
      mean = missing_cell(sym);
    } else if (a.not_attacked > 0) {
      rate.text +=
          fmt::format(" of {} ({} not attacked: LLM work failed)", a.items, a.not_attacked);
    }
    t.rows.push_back({Cell(a.metric), Cell(a.dataset), std::move(rate), std::move(mean),
                      Cell(join(families, ", ")), std::move(programs), std::move(best)});
  }
  if (!r.attacks.empty()) {
    const auto& o = r.attacks.front();
    t.note = fmt::format(
        "attacked: share of items whose best edit found by the per-item search raises the "
        "score; held-out programs: of the {} best edit programs on the search half of the tasks "
        "({} searched), those that raise the score on the held-out half (one-sided paired t, "
        "Holm over the programs, {} = {:g}). Edits add no task content (docs/attack.md).",
        o.universal.size(), o.programs_searched, sym.alpha(), r.alpha);
  }
  return t;
}

std::vector<Table> ranking_tables(const TestIndex& index, const Symbols& sym) {
  const AuditReport& r = index.report();
  std::vector<Table> tables;
  // One table per (dataset, level, statistic): a row per dimension, its clusters in order.
  std::vector<std::tuple<std::string, stats::Level, stats::LevelStatistic>> keys;
  for (const auto& m : r.rankings) {
    auto key = std::make_tuple(m.dataset, m.level, m.statistic);
    if (std::find(keys.begin(), keys.end(), key) == keys.end()) keys.push_back(key);
  }
  for (const auto& [ds, level, statistic] : keys) {
    Table t;
    t.title = fmt::format("Significance clusters {} {}: {} level, {}", sym.dash(), ds,
                          stats::level_name(level), stats::level_statistic_name(statistic));
    t.header = {"dimension", "clusters (best first)"};
    t.align = {Align::kLeft, Align::kLeft};
    const MetricRanking* any = nullptr;
    for (const auto& m : r.rankings) {
      if (m.dataset != ds || m.level != level || m.statistic != statistic) continue;
      any = &m;
      std::vector<std::string> clusters;
      for (const auto& e : m.ranking) {
        const std::string entry = fmt::format("{} {}", e.metric, fmt_num(e.value, 3));
        if (clusters.size() < e.rank)
          clusters.push_back(fmt::format("{}: {}", e.rank, entry));
        else
          clusters.back() += ", " + entry;
      }
      Cell c(join(clusters, " | "));
      std::string tests;
      for (const auto& test : m.tests)
        tests += fmt::format("{}{} > {}: p = {}, adjusted {}", tests.empty() ? "" : "\n",
                             test.better, test.worse, fmt_p(test.p), fmt_p(test.p_adjusted));
      c.title = tests;
      t.rows.push_back({Cell(m.dimension), std::move(c)});
    }
    if (any)
      t.note = fmt::format(
          "A metric starts a new cluster when a metric of the cluster above beats it: one-sided "
          "paired permutation test at the {} level ({} permutations, scores z-scored and swapped "
          "per {}), p-values adjusted over all pairs ({}), {} = {:g} (mt-metrics-eval's "
          "AssignRanks; docs/meta-eval.md).",
          stats::level_name(level), any->permutations,
          level == stats::Level::kSystem ? "system" : "candidate",
          any->correction == RankCorrection::kHolm                ? "Holm"
          : any->correction == RankCorrection::kBenjaminiHochberg ? "Benjamini-Hochberg"
                                                                  : "none",
          sym.alpha(), any->alpha);
    tables.push_back(std::move(t));
  }
  return tables;
}

Table grid_table(const Grid& grid, const TestIndex& index, const Symbols& sym) {
  Table t;
  bool deg = grid.kind == StrategyKind::kDegradation;
  t.title = fmt::format("{} {} {}", deg ? "Degradation tests" : "Manipulation tests", sym.dash(),
                        deg ? "does the metric penalise degraded answers?"
                            : "does the metric resist score inflation?");
  t.header.push_back("metric");
  t.align.push_back(Align::kLeft);
  for (const auto& ds : grid.datasets) {
    t.header.push_back(ds);
    t.align.push_back(Align::kCenter);
  }
  t.header.push_back("fails");
  t.header.push_back("Holm");
  t.align.push_back(Align::kRight);
  t.align.push_back(Align::kRight);
  for (std::size_t m = 0; m < grid.metrics.size(); ++m) {
    std::vector<Cell> line;
    line.push_back({grid.metrics[m]});
    for (std::size_t d = 0; d < grid.datasets.size(); ++d) {
      const GridCell& gc = grid.cells[m][d];
      Cell c;
      c.text = grid_cell_text(gc, sym);
      if (!gc.run)
        c.tone = Tone::kMissing;
      else if (gc.fails_raw > 0)
        c.tone = Tone::kFail;
      else if (!gc.shown.empty())
        c.tone = Tone::kWarn;
      else if (!gc.untestable.empty())
        c.tone = Tone::kNa;
      else
        c.tone = Tone::kPass;
      c.marked = !gc.changed.empty();
      std::vector<std::string> lines;
      for (const auto& s : index.strategies(grid.kind))
        if (const StrategyTest* st =
                index.find(grid.datasets[d], grid.metrics[m], grid.kind, s.code)) {
          Verdict raw = raw_verdict(st), holm = holm_verdict(st);
          std::string line_text = cat({s.code, " ", s.name, ": ", verdict_word(raw, sym)});
          if (holm != raw) append(line_text, {" (Holm: ", verdict_word(holm, sym), ")"});
          if (raw != Verdict::kNotTestable) append(line_text, {", p = ", fmt_p(st->p)});
          lines.push_back(std::move(line_text));
        }
      c.title = lines.empty() ? "not run" : join(lines, "\n");
      line.push_back(std::move(c));
    }
    line.push_back({std::to_string(grid.fails_raw[m])});
    line.push_back({std::to_string(grid.fails_holm[m])});
    t.rows.push_back(std::move(line));
  }
  t.note = grid_legend(grid.kind, index, sym);
  return t;
}

std::string grid_legend(StrategyKind kind, const TestIndex& index, const Symbols& sym) {
  bool deg = kind == StrategyKind::kDegradation;
  double alpha = index.report().alpha;
  return fmt::format(
      "{} = passed every {} test on the dataset; letters = failed strategies ({}). A {} test "
      "{} when the one-sided paired p < {} = {:g}. n/a:X = strategy X was not testable (too few "
      "applied items, or constant scores), never counted as a pass. {} = Holm's adjustment changes "
      "the verdict "
      "({}). fails / Holm = failures without / with Holm's adjustment.",
      sym.pass(), kind_name(kind), strategy_list(index, kind), kind_name(kind),
      deg ? "passes" : "fails", sym.alpha(), alpha, sym.holm(),
      deg ? "fails only after adjustment" : "fails only without adjustment");
}

std::vector<std::pair<std::string, StrategyKind>> effect_sections(const TestIndex& index) {
  std::vector<std::pair<std::string, StrategyKind>> out;
  for (StrategyKind kind : kKinds)
    for (const auto& ds : index.datasets())
      if (index.has_tests(ds, kind)) out.emplace_back(ds, kind);
  return out;
}

Table effect_table(const TestIndex& index, const std::string& dataset, StrategyKind kind,
                   const Symbols& sym) {
  const AuditReport& r = index.report();
  Table t;
  bool deg = kind == StrategyKind::kDegradation;
  t.title =
      fmt::format("Effect sizes d {} {} CI {} {}, {}", sym.plus_minus(), fmt_percent(r.confidence),
                  sym.dash(), dataset, deg ? "degradations" : "manipulations");
  auto strategies = index.strategies_on(dataset, kind);
  t.header.push_back("metric");
  t.align.push_back(Align::kLeft);
  for (const auto& s : strategies) {
    t.header.push_back(s.code);
    t.align.push_back(Align::kRight);
  }
  for (const auto& m : index.metrics()) {
    std::vector<Cell> line;
    line.push_back({m});
    bool any = false;
    for (const auto& s : strategies) {
      const StrategyTest* st = index.find(dataset, m, kind, s.code);
      if (!st) {
        line.push_back(missing_cell(sym));
        continue;
      }
      any = true;
      Cell c;
      Verdict v = raw_verdict(st);
      c.tone = tone_of(v);
      c.marked = holm_changes(st);
      c.text = v == Verdict::kNotTestable ? na_text(*st) : fmt_d_pm(st->d, st->d_lo, st->d_hi, sym);
      if (c.marked) c.text += sym.holm();
      c.title = test_details(index, *st, sym);
      line.push_back(std::move(c));
    }
    if (any) t.rows.push_back(std::move(line));
  }
  t.note = fmt::format(
      "d = standardised mean of the paired differences {} = perturbed - original, with the "
      "half-width of its analytic CI. {} n/a = not testable; {} = Holm's adjustment changes the "
      "verdict.",
      sym.delta(),
      deg ? "A metric that notices the degradation has d < 0."
          : "A metric fooled by the manipulation has d > 0.",
      sym.holm());
  return t;
}

Table accounting_table(const TestIndex& index, StrategyKind kind, const Symbols& sym) {
  Table t;
  t.title = fmt::format("Item accounting {} {}, over metrics", sym.dash(),
                        kind == StrategyKind::kDegradation ? "degradations" : "manipulations");
  t.header = {"dataset",   "code",   "considered", "applied", "not appl.",
              "unchanged", "failed", "undefined",  "testable"};
  t.align = {Align::kLeft,  Align::kCenter, Align::kRight, Align::kRight, Align::kRight,
             Align::kRight, Align::kRight,  Align::kRight, Align::kRight};
  for (const auto& ds : index.datasets())
    for (const auto& s : index.strategies_on(ds, kind)) {
      std::vector<const StrategyTest*> tests;
      for (const auto& m : index.metrics())
        if (const StrategyTest* st = index.find(ds, m, kind, s.code)) tests.push_back(st);
      auto range = [&](std::size_t StrategyTest::*field) {
        std::size_t lo = tests.front()->*field, hi = lo;
        for (const auto* st : tests) {
          lo = std::min(lo, st->*field);
          hi = std::max(hi, st->*field);
        }
        Cell c;
        c.text = fmt_count_range(lo, hi, sym);
        if (lo != hi) c.title = "differs between metrics";
        return c;
      };
      std::size_t testable = static_cast<std::size_t>(std::count_if(
          tests.begin(), tests.end(), [](const StrategyTest* st) { return st->testable; }));
      Cell code{s.code};
      code.title = s.name;
      Cell tc;
      tc.text = fmt::format("{}/{}", testable, tests.size());
      tc.tone = testable == tests.size() ? Tone::kNone : Tone::kNa;
      tc.title = fmt::format(
          "metrics with at least {} applied items (all items of a smaller dataset) whose scores "
          "vary",
          index.report().min_applied);
      t.rows.push_back({{ds},
                        code,
                        range(&StrategyTest::considered),
                        range(&StrategyTest::applied),
                        range(&StrategyTest::not_applicable),
                        range(&StrategyTest::unchanged),
                        range(&StrategyTest::failed),
                        range(&StrategyTest::undefined),
                        tc});
    }
  t.note = fmt::format(
      "considered = applied + not applicable + unchanged (the perturbation left the text as it "
      "was) + failed (perturbation error) + undefined (metric score undefined); a range a{}b "
      "differs between metrics. testable = metrics with at least {} applied items (all items of "
      "a smaller dataset, --min-applied) whose scores vary.",
      sym.range(), index.report().min_applied);
  return t;
}

Table dataset_table(const AuditReport& report) {
  Table t;
  t.title = "Datasets";
  t.header = {"dataset", "path", "tasks", "candidates", "audited", "dimensions", "skipped"};
  t.align = {Align::kLeft,  Align::kLeft, Align::kRight, Align::kRight,
             Align::kRight, Align::kLeft, Align::kRight};
  for (const auto& d : report.datasets) {
    Cell path{d.path};
    path.mono = true;
    t.rows.push_back({{d.name},
                      path,
                      {std::to_string(d.tasks)},
                      {std::to_string(d.candidates)},
                      {std::to_string(d.audited)},
                      {join(d.dimensions, ", ")},
                      {std::to_string(d.skipped.size())}});
  }
  return t;
}

Table llm_usage_table(const AuditReport& report) {
  Table t;
  t.title = "LLM usage";
  t.header = {"endpoint", "model",    "answers",   "requests",   "cached",  "retries",
              "failed",   "unparsed", "tokens in", "tokens out", "cost USD"};
  t.align.assign(t.header.size(), Align::kRight);
  t.align[0] = t.align[1] = Align::kLeft;
  if (report.llm_usage.empty()) return t;
  const auto j = util::parse_json_or_discarded(report.llm_usage);
  if (!j.is_object() || !j.contains("endpoints") || !j["endpoints"].is_array()) return t;
  auto count = [](const nlohmann::json& u, const char* key) {
    return std::to_string(u.value(key, std::uint64_t{0}));
  };
  std::vector<std::string> failures, examples, unstructured;
  for (const auto& u : j["endpoints"]) {
    if (!u.is_object()) continue;
    const std::string endpoint = u.value("endpoint", std::string());
    if (const auto n = u.value("unstructured", std::uint64_t{0}); n > 0)
      unstructured.push_back(fmt::format("{}: {} request{} ({})", endpoint, n, n == 1 ? "" : "s",
                                         u.value("structured_rejection", std::string())));
    t.rows.push_back({{endpoint},
                      {u.value("model", std::string())},
                      {count(u, "answers")},
                      {count(u, "requests")},
                      {count(u, "cache_hits")},
                      {count(u, "retries")},
                      {count(u, "failed")},
                      {count(u, "unparsed")},
                      {count(u, "tokens_in")},
                      {count(u, "tokens_out")},
                      {fmt_num(u.value("cost_usd", 0.0), 4)}});
    if (auto f = u.find("failures"); f != u.end() && f->is_object())
      for (const auto& [kind, n] : f->items())
        failures.push_back(fmt::format("{} {}: {}", endpoint, kind, n.dump()));
    if (auto e = u.find("failure_examples"); e != u.end() && e->is_object())
      for (const auto& [kind, messages] : e->items())
        for (const auto& m : messages)
          if (m.is_string())
            examples.push_back(fmt::format("{} {}: {}", endpoint, kind, m.get<std::string>()));
  }
  t.note =
      "failed = requests that failed after retries (by kind below); unparsed = structured "
      "answers still unusable after re-asking. Both are recorded as failed items (undefined "
      "scores, failed perturbations), never replaced by defaults. answers = requests answered "
      "plus cache hits.";
  if (!unstructured.empty())
    t.note += " Sent without structured output after the server rejected it: " +
              join(unstructured, "; ") + ".";
  if (!failures.empty()) t.note += " Failures: " + join(failures, "; ") + ".";
  if (!examples.empty()) t.note += " First messages: " + join(examples, "; ") + ".";
  return t;
}

Table signature_table(const AuditReport& report) {
  Table t;
  t.title = "Metrics";
  t.header = {"metric", "signature"};
  t.align = {Align::kLeft, Align::kLeft};
  for (std::size_t i = 0; i < report.metrics.size(); ++i) {
    Cell sig{i < report.signatures.size() ? report.signatures[i] : std::string()};
    sig.mono = true;
    t.rows.push_back({{report.metrics[i]}, sig});
  }
  return t;
}

Table strategy_table(const AuditReport& report) {
  Table t;
  t.title = "Strategies";
  t.header = {"kind", "code", "name", "description", "signature"};
  t.align = {Align::kLeft, Align::kCenter, Align::kLeft, Align::kLeft, Align::kLeft};
  for (const auto& s : report.strategies) {
    Cell sig{s.signature};
    sig.mono = true;
    t.rows.push_back({{std::string(kind_name(s.kind))}, {s.code}, {s.name}, {s.description}, sig});
  }
  return t;
}

Table tests_table(const TestIndex& index, const Symbols& sym) {
  const AuditReport& r = index.report();
  Table t;
  t.title = "All tests";
  t.header = {"dataset",
              "metric",
              "kind",
              "code",
              "applied",
              std::string("mean ") + std::string(sym.delta()),
              std::string("sd ") + std::string(sym.delta()),
              "t",
              "df",
              "p",
              "p Holm",
              "raw",
              "Holm",
              "d",
              fmt_percent(r.confidence) + " CI",
              "bootstrap CI"};
  t.align = {Align::kLeft,   Align::kLeft,  Align::kLeft,  Align::kCenter,
             Align::kRight,  Align::kRight, Align::kRight, Align::kRight,
             Align::kRight,  Align::kRight, Align::kRight, Align::kCenter,
             Align::kCenter, Align::kRight, Align::kRight, Align::kRight};
  for (StrategyKind kind : kKinds)
    for (const auto& ds : index.datasets())
      for (const auto& m : index.metrics())
        for (const auto& s : index.strategies(kind)) {
          const StrategyTest* st = index.find(ds, m, kind, s.code);
          if (!st) continue;
          Verdict raw = raw_verdict(st), holm = holm_verdict(st);
          bool ok = st->testable;
          auto num = [&](double v, int decimals) {
            return ok ? fmt_num(v, decimals) : std::string(sym.dash());
          };
          Cell raw_cell{verdict_word(raw, sym)}, holm_cell{verdict_word(holm, sym)};
          raw_cell.tone = tone_of(raw);
          holm_cell.tone = tone_of(holm);
          holm_cell.marked = holm_changes(st);
          t.rows.push_back(
              {{ds},
               {m},
               {std::string(kind_name(kind))},
               {s.code},
               {std::to_string(st->applied)},
               {num(st->mean_delta, 4)},
               {num(st->sd_delta, 4)},
               {num(st->t, 2)},
               {num(st->df, 0)},
               {ok ? fmt_p(st->p) : std::string(sym.dash())},
               {ok ? fmt_p(st->p_holm) : std::string(sym.dash())},
               raw_cell,
               holm_cell,
               {num(st->d, 2)},
               {ok ? fmt_ci(st->d_lo, st->d_hi, 2) : std::string(sym.dash())},
               {ok ? fmt_ci(st->d_boot_lo, st->d_boot_hi, 2) : std::string(sym.dash())}});
        }
  return t;
}

std::size_t skipped_count(const AuditReport& report) {
  std::size_t n = 0;
  for (const auto& d : report.datasets) n += d.skipped.size();
  return n;
}

Table skipped_table(const AuditReport& report, std::size_t limit) {
  Table t;
  t.title = "Skipped input";
  t.header = {"dataset", "file", "line", "field", "message"};
  t.align = {Align::kLeft, Align::kLeft, Align::kRight, Align::kLeft, Align::kLeft};
  for (const auto& d : report.datasets)
    for (const auto& s : d.skipped) {
      if (t.rows.size() == limit) break;
      Cell file{s.file};
      file.mono = true;
      t.rows.push_back({{d.name}, file, {std::to_string(s.line)}, {s.field}, {s.message}});
    }
  std::size_t total = skipped_count(report);
  if (total > t.rows.size())
    t.note = fmt::format("First {} of {} skipped records; report.json lists them all.",
                         t.rows.size(), total);
  return t;
}

std::string run_summary(const AuditReport& report, const Symbols& sym) {
  std::vector<std::string> parts;
  parts.push_back("probity " + report.version);
  parts.push_back(fmt::format("seed {}", report.seed));
  parts.push_back(fmt::format("{} = {:g}", sym.alpha(), report.alpha));
  parts.push_back(fmt_percent(report.confidence) + " CIs");
  parts.push_back(fmt::format("{} bootstrap resamples", report.bootstrap));
  parts.push_back(report.sample == 0 ? std::string("all candidates")
                                     : fmt::format("sample {} per dataset", report.sample));
  parts.push_back(fmt::format("{:.1f} s", report.seconds));
  parts.push_back(fmt::format("cache {} hits / {} misses", report.cache_hits, report.cache_misses));
  if (!report.llm_usage.empty()) parts.push_back("LLM usage in report.json (llm_usage)");
  std::string out;
  for (std::size_t i = 0; i < parts.size(); ++i) {
    if (i) out += sym.dot();
    out += parts[i];
  }
  return out;
}

std::vector<std::string> how_to_read(const TestIndex& index, const Symbols& sym) {
  const AuditReport& r = index.report();
  std::vector<std::string> out;
  out.push_back(fmt::format(
      "Human correlation: Spearman {} between each metric and the mean human rating of each "
      "dimension, with a {} bootstrap CI ({} resamples).",
      sym.rho(), fmt_percent(r.confidence), r.bootstrap));
  if (!index.strategies(StrategyKind::kDegradation).empty())
    out.push_back(fmt::format(
        "Degradations make an answer worse ({}). A metric passes a degradation test when it scores "
        "the degraded answers lower: one-sided paired t-test on {} = perturbed - original, "
        "p < {} = {:g}.",
        strategy_list(index, StrategyKind::kDegradation), sym.delta(), sym.alpha(), r.alpha));
  if (!index.strategies(StrategyKind::kManipulation).empty())
    out.push_back(fmt::format(
        "Manipulations try to raise the score without adding content ({}). A metric fails a "
        "manipulation test when it scores the manipulated answers significantly higher (one-sided "
        "p < {}).",
        strategy_list(index, StrategyKind::kManipulation), sym.alpha()));
  out.push_back(fmt::format(
      "In the grids, {} means every test on that dataset passed and letters name the failed "
      "strategies. n/a marks a strategy with too few applied items (or constant scores) to test; "
      "it never counts as "
      "a pass. {} marks a verdict that Holm's adjustment (within dataset {} metric {} kind) "
      "changes. d is the standardised mean of {} with its {} CI.",
      sym.pass(), sym.holm(), sym.unicode ? "\u00d7" : "x", sym.unicode ? "\u00d7" : "x",
      sym.delta(), fmt_percent(r.confidence)));
  return out;
}

// ---- text rendering ----------------------------------------------------------------------

namespace {

std::string pad(std::string_view s, std::size_t width, Align align) {
  std::size_t w = display_width(s);
  std::size_t fill = width > w ? width - w : 0;
  std::size_t left = align == Align::kRight ? fill : align == Align::kCenter ? fill / 2 : 0;
  return std::string(left, ' ') + std::string(s) + std::string(fill - left, ' ');
}

std::string repeat(std::string_view s, std::size_t n) {
  std::string out;
  for (std::size_t i = 0; i < n; ++i) out += s;
  return out;
}

// Greedy word wrap at `width` display columns.
std::string wrap(std::string_view text, std::size_t width) {
  std::string out, line;
  std::size_t start = 0;
  while (start < text.size()) {
    std::size_t end = text.find(' ', start);
    if (end == std::string_view::npos) end = text.size();
    std::string_view word = text.substr(start, end - start);
    if (!line.empty() && display_width(line) + 1 + display_width(word) > width) {
      out += line + "\n";
      line.clear();
    }
    if (!line.empty()) line += ' ';
    line += word;
    start = end + 1;
  }
  if (!line.empty()) out += line + "\n";
  return out;
}

// Terminal cells hold one line.
std::string one_line(std::string_view s) {
  std::string out(s);
  std::replace(out.begin(), out.end(), '\n', ' ');
  std::replace(out.begin(), out.end(), '\t', ' ');
  return out;
}

}  // namespace

// Where a word too wide for its column may be cut: after one of these.
constexpr std::string_view kSoftBreaks = ",/:;|-_";

std::size_t word_end(std::string_view text, std::size_t start) {
  int depth = 0;
  for (std::size_t i = start; i < text.size(); ++i) {
    if (text[i] == '[') ++depth;
    if (text[i] == ']' && depth > 0) --depth;
    if (text[i] == ' ' && depth == 0) return i;
  }
  return text.size();
}

std::vector<std::string> wrap_cell(std::string_view text, std::size_t width) {
  width = std::max<std::size_t>(width, 1);
  std::vector<std::string> lines;
  std::string line;
  std::size_t line_width = 0;
  auto flush = [&] {
    lines.push_back(std::move(line));
    line.clear();
    line_width = 0;
  };
  std::size_t start = 0;
  while (start <= text.size()) {
    const std::size_t end = word_end(text, start);
    std::string_view word = text.substr(start, end - start);
    const std::size_t w = display_width(word);
    if (!line.empty() && line_width + 1 + w > width) flush();
    if (w <= width || !line.empty()) {
      if (!line.empty()) {
        line += ' ';
        ++line_width;
      }
      line += word;
      line_width += w;
    } else {
      // A word wider than the column (the line is empty here): pieces of at most `width`
      // columns, each ending after the last soft break that fits (so "[0.10,0.31]" breaks after
      // the comma), else cut at the width.
      std::string_view rest = word;
      while (display_width(rest) > width) {
        std::size_t i = 0, cols = 0, brk = 0;
        while (i < rest.size()) {
          char32_t cp = 0;
          std::size_t len = text::decode_utf8(rest.substr(i), cp);
          if (len == 0) len = 1;
          const std::size_t gw = display_width(rest.substr(i, len));
          if (cols + gw > width && i > 0) break;
          i += len;
          cols += gw;
          if (i < rest.size() && kSoftBreaks.find(rest[i - 1]) != std::string_view::npos) brk = i;
        }
        const std::size_t cut = brk > 0 ? brk : i;
        lines.emplace_back(rest.substr(0, cut));
        rest = rest.substr(cut);
      }
      line = std::string(rest);
      line_width = display_width(rest);
    }
    start = end + 1;
  }
  if (!line.empty() || lines.empty()) flush();
  return lines;
}

namespace {

std::string_view tone_color(Tone tone) {
  switch (tone) {
    case Tone::kPass:
      return "\033[32m";
    case Tone::kFail:
      return "\033[31m";
    case Tone::kWarn:
      return "\033[33m";
    case Tone::kNa:
    case Tone::kMissing:
      return "\033[2m";
    case Tone::kNone:
      break;
  }
  return {};
}

// The widest word of `s` (a bracketed interval counts as one word). `pieces`: the widest piece
// of a word cut after its soft breaks instead, except intervals, which are never cut.
std::size_t widest_word(std::string_view s, bool pieces) {
  std::size_t widest = 1, start = 0;
  while (start <= s.size()) {
    const std::size_t end = word_end(s, start);
    std::string_view word = s.substr(start, end - start);
    if (!pieces || word.find('[') != std::string_view::npos) {
      widest = std::max(widest, display_width(word));
    } else {
      std::size_t from = 0;
      for (std::size_t i = 0; i < word.size(); ++i)
        if (kSoftBreaks.find(word[i]) != std::string_view::npos || i + 1 == word.size()) {
          widest = std::max(widest, display_width(word.substr(from, i + 1 - from)));
          from = i + 1;
        }
    }
    start = end + 1;
  }
  return widest;
}

// How narrow a column may get: down to its widest word (cells wrap at spaces), or down to its
// widest piece (long words cut after a soft break), or to 4 columns (words cut anywhere). A
// header word and an interval "[0.12, 0.34]" are never cut before the last resort.
enum class Floor { kWords, kPieces, kAny };
std::size_t column_floor(const Table& table, std::size_t c, Floor floor) {
  if (floor == Floor::kAny) return 4;
  std::size_t widest = widest_word(table.header[c], false);
  for (const auto& row : table.rows)
    if (c < row.size())
      widest = std::max(widest, widest_word(one_line(row[c].text), floor == Floor::kPieces));
  return widest;
}

// Narrows the widest of `columns` above their floor by one until their frame and widths fit
// `max_width`; returns the total width reached.
std::size_t narrow_columns(const Table& table, const std::vector<std::size_t>& columns,
                           std::vector<std::size_t>& width, Floor floor_kind,
                           std::size_t max_width) {
  std::vector<std::size_t> floor(columns.size());
  std::size_t total = 3 * columns.size() + 1;  // "│ " before each cell, " " after, closing "│"
  for (std::size_t i = 0; i < columns.size(); ++i) {
    floor[i] = std::min(width[columns[i]], column_floor(table, columns[i], floor_kind));
    total += width[columns[i]];
  }
  while (total > max_width) {
    std::size_t widest = columns.size();
    for (std::size_t i = 0; i < columns.size(); ++i)
      if (width[columns[i]] > floor[i] &&
          (widest == columns.size() || width[columns[i]] > width[columns[widest]]))
        widest = i;
    if (widest == columns.size()) break;
    --width[columns[widest]];
    --total;
  }
  return total;
}

// How many leading columns tell the rows apart (at least one, at most all but one): the key a
// panel repeats.
std::size_t key_columns(const Table& table, std::size_t cols) {
  for (std::size_t keys = 1; keys + 1 < cols; ++keys) {
    std::set<std::vector<std::string>> seen;
    for (const auto& row : table.rows) {
      std::vector<std::string> key;
      for (std::size_t c = 0; c < keys; ++c) key.push_back(c < row.size() ? row[c].text : "");
      seen.insert(std::move(key));
    }
    if (seen.size() == table.rows.size()) return keys;
  }
  return std::max<std::size_t>(1, cols - 1);
}

// The columns of each panel: all of them when the table fits `max_width` without cutting
// more than soft breaks allow; else the key columns repeated in each panel, followed by as many
// of the others as fit.
std::vector<std::vector<std::size_t>> panels(const Table& table, std::size_t max_width) {
  const std::size_t cols = table.header.size();
  std::vector<std::size_t> floor(cols);
  std::size_t total = 3 * cols + 1;
  for (std::size_t c = 0; c < cols; ++c) {
    floor[c] = column_floor(table, c, Floor::kPieces);
    total += floor[c];
  }
  std::vector<std::vector<std::size_t>> out;
  if (max_width == 0 || total <= max_width || cols <= 2) {
    out.emplace_back();
    for (std::size_t c = 0; c < cols; ++c) out.back().push_back(c);
    return out;
  }
  const std::size_t keys = key_columns(table, cols);
  std::size_t key_width = 1;
  for (std::size_t c = 0; c < keys; ++c) key_width += 3 + floor[c];
  std::size_t used = 0;
  for (std::size_t c = keys; c < cols; ++c) {
    if (out.empty() || (used + 3 + floor[c] > max_width && out.back().size() > keys)) {
      out.emplace_back();
      for (std::size_t k = 0; k < keys; ++k) out.back().push_back(k);
      used = key_width;
    }
    out.back().push_back(c);
    used += 3 + floor[c];
  }
  return out;
}

}  // namespace

std::string render_text_table(const Table& table, const Symbols& sym, std::size_t max_width,
                              bool color) {
  const std::size_t cols = table.header.size();
  std::vector<std::size_t> width(cols, 0);
  auto cell_text = [&](const std::vector<Cell>& row, std::size_t c) {
    return c < row.size() ? one_line(row[c].text) : std::string();
  };
  for (std::size_t c = 0; c < cols; ++c) {
    width[c] = display_width(table.header[c]);
    for (const auto& row : table.rows)
      width[c] = std::max(width[c], display_width(cell_text(row, c)));
  }
  const bool u = sym.unicode;
  std::string_view h = u ? "\u2500" : "-", v = u ? "\u2502" : "|";
  std::string out;
  if (!table.title.empty()) {
    const auto title =
        max_width > 0 ? wrap_cell(table.title, max_width) : std::vector<std::string>{table.title};
    for (const auto& line : title) out += color ? "\033[1m" + line + "\033[0m\n" : line + "\n";
  }
  const auto all_panels = panels(table, max_width);
  for (std::size_t p = 0; p < all_panels.size(); ++p) {
    const std::vector<std::size_t>& columns = all_panels[p];
    if (max_width > 0) {
      // Wrap at spaces first, then cut words after soft breaks, then anywhere (a panel that
      // still does not fit stays wider than the terminal).
      for (Floor f : {Floor::kWords, Floor::kPieces, Floor::kAny})
        if (narrow_columns(table, columns, width, f, max_width) <= max_width) break;
    }
    auto rule = [&](std::string_view l, std::string_view m, std::string_view r) {
      std::string line(l);
      for (std::size_t i = 0; i < columns.size(); ++i) {
        line += repeat(h, width[columns[i]] + 2);
        line += i + 1 < columns.size() ? m : r;
      }
      return line + "\n";
    };
    // One row: each cell wrapped to its column, the row as tall as its tallest cell.
    auto row_lines = [&](auto text_of, auto tone_of) {
      std::vector<std::vector<std::string>> cells(columns.size());
      std::size_t height = 1;
      for (std::size_t i = 0; i < columns.size(); ++i) {
        const std::size_t c = columns[i];
        std::string t = text_of(c);
        cells[i] = display_width(t) <= width[c] ? std::vector<std::string>{std::move(t)}
                                                : wrap_cell(t, width[c]);
        height = std::max(height, cells[i].size());
      }
      std::string lines;
      for (std::size_t k = 0; k < height; ++k) {
        std::string line(v);
        for (std::size_t i = 0; i < columns.size(); ++i) {
          const std::size_t c = columns[i];
          Align a = c < table.align.size() ? table.align[c] : Align::kLeft;
          std::string text = pad(k < cells[i].size() ? cells[i][k] : std::string(), width[c], a);
          std::string_view sgr = color ? tone_color(tone_of(c)) : std::string_view();
          if (!sgr.empty()) text = std::string(sgr) + text + "\033[0m";
          append(line, {" ", text, " "});
          line += v;
        }
        lines += line + "\n";
      }
      return lines;
    };
    if (p > 0) out += "\n";
    out += u ? rule("\u250c", "\u252c", "\u2510") : rule("+", "+", "+");
    out += row_lines([&](std::size_t c) { return table.header[c]; },
                     [](std::size_t) { return Tone::kNone; });
    out += u ? rule("\u251c", "\u253c", "\u2524") : rule("+", "+", "+");
    for (const auto& row : table.rows)
      out += row_lines([&](std::size_t c) { return cell_text(row, c); },
                       [&](std::size_t c) { return c < row.size() ? row[c].tone : Tone::kNone; });
    out += u ? rule("\u2514", "\u2534", "\u2518") : rule("+", "+", "+");
  }
  if (!table.note.empty())
    out += wrap(table.note, max_width > 0 ? std::min<std::size_t>(100, max_width) : 100);
  return out;
}

}  // namespace probity::report::detail
