// The terminal rendering: box-drawn tables, aligned by display width so that multi-byte glyphs
// (✓, ±, ρ) do not shift the columns.
#include "probity/report.hpp"
#include "report/format.hpp"

namespace probity::report {

namespace {

std::string draw(const detail::Table& table, const detail::Symbols& sym,
                 const TextOptions& options) {
  return detail::render_text_table(table, sym, options.width, options.color);
}

}  // namespace

std::string to_text(const AuditReport& report, bool unicode) {
  return to_text(report, TextOptions{unicode, 0, false});
}

std::string to_text(const AuditReport& report, const TextOptions& options) {
  std::string details = to_text_details(report, options);
  if (!details.empty()) details += "\n";
  return details + to_text_verdict(report, options);
}

std::string to_text_details(const AuditReport& report, const TextOptions& options) {
  using namespace detail;
  Symbols sym{options.unicode};
  TestIndex index(report);
  // Each table ends in a newline; a blank line separates them.
  std::string out;
  const auto add = [&](const Table& t) {
    if (!out.empty()) out += "\n";
    out += draw(t, sym, options);
  };
  for (const auto& t : correlation_tables(index, sym)) add(t);
  for (const auto& t : ranking_tables(index, sym)) add(t);
  for (const auto& t : attack_tables(report.attacks, report.alpha, sym)) add(t);
  if (Table judge = judge_diagnostics_table(report, sym); !judge.rows.empty()) add(judge);
  for (StrategyKind kind : kKinds) {
    Grid grid = build_grid(index, kind);
    if (grid_has_tests(grid)) add(grid_table(grid, index, sym));
  }
  if (Table rep = replicability_table(report, sym); !rep.rows.empty()) add(rep);
  for (const auto& [dataset, kind] : effect_sections(index))
    add(effect_table(index, dataset, kind, sym));
  for (StrategyKind kind : kKinds) {
    Table accounting = accounting_table(index, kind, sym);
    if (!accounting.rows.empty()) add(accounting);
  }
  if (Table usage = llm_usage_table(report); !usage.rows.empty()) add(usage);
  return out;
}

std::string to_text_verdict(const AuditReport& report, const TextOptions& options) {
  using namespace detail;
  Symbols sym{options.unicode};
  TestIndex index(report);
  std::string out;
  if (options.width > 0)
    for (const auto& line : wrap_cell(run_summary(report, sym), options.width)) out += line + "\n";
  else
    out += run_summary(report, sym) + "\n";
  if (Table card = scorecard_table(index, sym); !card.rows.empty())
    append(out, {"\n", draw(card, sym, options)});
  return out;
}

}  // namespace probity::report
