// The pass/fail grids: per metric and dataset, the strategies of one kind that fail.
#include <fmt/format.h>

#include "report/format.hpp"

namespace probity::report::detail {

Grid build_grid(const TestIndex& index, StrategyKind kind) {
  Grid g;
  g.kind = kind;
  for (const auto& ds : index.datasets())
    if (index.has_tests(ds, kind)) g.datasets.push_back(ds);
  g.metrics = index.metrics();
  g.cells.assign(g.metrics.size(), std::vector<GridCell>(g.datasets.size()));
  g.fails_raw.assign(g.metrics.size(), 0);
  g.fails_holm.assign(g.metrics.size(), 0);
  g.inconclusive.assign(g.metrics.size(), 0);
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
        if (raw == Verdict::kFail || holm == Verdict::kFail)
          cell.shown.push_back(s.code);
        else if (holm == Verdict::kInconclusive)
          cell.inconclusive.push_back(s.code);
        if (holm == Verdict::kInconclusive) ++cell.inconclusive_holm;
        if (holm_changes(t)) cell.changed.push_back(s.code);
      }
      g.fails_raw[m] += cell.fails_raw;
      g.fails_holm[m] += cell.fails_holm;
      g.inconclusive[m] += cell.inconclusive_holm;
    }
  }
  return g;
}

bool grid_has_tests(const Grid& grid) {
  return !grid.datasets.empty();
}

std::string grid_cell_text(const GridCell& cell, const Symbols& sym) {
  if (!cell.run) return std::string(sym.dash());
  if (cell.shown.empty() && cell.inconclusive.empty() && cell.untestable.empty())
    return std::string(sym.pass());
  auto marked = [&](const std::vector<std::string>& list) {
    std::vector<std::string> codes;
    for (const auto& code : list) {
      bool changed =
          std::find(cell.changed.begin(), cell.changed.end(), code) != cell.changed.end();
      codes.push_back(changed ? code + std::string(sym.holm()) : code);
    }
    return join(codes, ",");
  };
  // Nothing could be tested: plain "n/a" rather than a list of every code.
  if (cell.tested == 0) return "n/a";
  std::string out = marked(cell.shown);
  if (!cell.inconclusive.empty()) {
    if (!out.empty()) out += ' ';
    append(out, {"?:", marked(cell.inconclusive)});
  }
  if (!cell.untestable.empty()) {
    if (!out.empty()) out += ' ';
    append(out, {"n/a:", join(cell.untestable, ",")});
  }
  return out;
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
  t.header.push_back("inconclusive");
  t.align.push_back(Align::kRight);
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
      else if (!gc.shown.empty() || !gc.inconclusive.empty())
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
          std::string line_text = cat({s.code, " ", s.name, ": ", outcome_word(*st, false)});
          if (holm != raw || holm_changes(st))
            append(line_text, {" (Holm: ", outcome_word(*st, true), ")"});
          if (raw != Verdict::kNotTestable) append(line_text, {", p = ", fmt_p(st->p)});
          lines.push_back(std::move(line_text));
        }
      c.title = lines.empty() ? "not run" : join(lines, "\n");
      line.push_back(std::move(c));
    }
    line.push_back({std::to_string(grid.fails_raw[m])});
    line.push_back({std::to_string(grid.fails_holm[m])});
    line.push_back({std::to_string(grid.inconclusive[m])});
    t.rows.push_back(std::move(line));
  }
  t.note = grid_legend(grid.kind, index, sym);
  return t;
}

std::string grid_legend(StrategyKind kind, const TestIndex& index, const Symbols& sym) {
  bool deg = kind == StrategyKind::kDegradation;
  double alpha = index.report().alpha;
  return fmt::format(
      "{} = passed every {} test on the dataset; letters = failed strategies ({}); ?:X = "
      "inconclusive. The metric {} when the one-sided paired p < {} = {:g}, and {} when a {} of "
      "|d| >= {:g} is ruled out (equivalence test, p < {}); otherwise the test is inconclusive. "
      "n/a:X = strategy X was not testable (too few applied items, or constant scores), never "
      "counted as a pass. {} = Holm's adjustment (of both tests) changes the verdict. fails / "
      "Holm = failures without / with Holm's adjustment; inconclusive: after Holm.",
      sym.pass(), kind_name(kind), strategy_list(index, kind),
      deg ? "detects the degradation" : "is fooled", sym.alpha(), alpha,
      deg ? "misses it" : "resists", deg ? "drop" : "rise", index.report().margin, sym.alpha(),
      sym.holm());
}

}  // namespace probity::report::detail
