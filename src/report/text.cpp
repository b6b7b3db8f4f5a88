// The terminal rendering: box-drawn tables, aligned by display width so that multi-byte glyphs
// (✓, ±, ρ) do not shift the columns.
#include "probity/report.hpp"
#include "report/format.hpp"

namespace probity::report {

std::string to_text(const AuditReport& report, bool unicode) {
  using namespace detail;
  Symbols sym{unicode};
  TestIndex index(report);
  // The verdict first, then the run's metadata and the details.
  std::string out;
  if (Table card = scorecard_table(index, sym); !card.rows.empty())
    append(out, {render_text_table(card, sym), "\n"});
  out += run_summary(report, sym) + "\n";

  for (const auto& t : correlation_tables(index, sym))
    append(out, {"\n", render_text_table(t, sym)});
  for (const auto& t : ranking_tables(index, sym)) append(out, {"\n", render_text_table(t, sym)});
  if (Table attack = attack_table(index, sym); !attack.rows.empty())
    append(out, {"\n", render_text_table(attack, sym)});
  for (StrategyKind kind : kKinds) {
    Grid grid = build_grid(index, kind);
    if (grid_has_tests(grid))
      append(out, {"\n", render_text_table(grid_table(grid, index, sym), sym)});
  }
  for (const auto& [dataset, kind] : effect_sections(index))
    append(out, {"\n", render_text_table(effect_table(index, dataset, kind, sym), sym)});
  for (StrategyKind kind : kKinds) {
    Table accounting = accounting_table(index, kind, sym);
    if (!accounting.rows.empty()) append(out, {"\n", render_text_table(accounting, sym)});
  }
  Table usage = llm_usage_table(report);
  if (!usage.rows.empty()) append(out, {"\n", render_text_table(usage, sym)});
  return out;
}

}  // namespace probity::report
