// The terminal rendering: box-drawn tables, aligned by display width so that multi-byte glyphs
// (✓, ±, ρ) do not shift the columns.
#include "probity/report.hpp"
#include "report/format.hpp"

namespace probity::report {

std::string to_text(const AuditReport& report, bool unicode) {
  return to_text(report, TextOptions{unicode, 0, false});
}

std::string to_text(const AuditReport& report, const TextOptions& options) {
  using namespace detail;
  Symbols sym{options.unicode};
  const auto draw = [&](const Table& t, const Symbols& s) {
    return detail::render_text_table(t, s, options.width, options.color);
  };
  TestIndex index(report);
  // The verdict first, then the run's metadata and the details.
  std::string out;
  if (Table card = scorecard_table(index, sym); !card.rows.empty())
    append(out, {draw(card, sym), "\n"});
  if (options.width > 0)
    for (const auto& line : wrap_cell(run_summary(report, sym), options.width)) out += line + "\n";
  else
    out += run_summary(report, sym) + "\n";

  for (const auto& t : correlation_tables(index, sym)) append(out, {"\n", draw(t, sym)});
  for (const auto& t : ranking_tables(index, sym)) append(out, {"\n", draw(t, sym)});
  if (Table attack = attack_table(index, sym); !attack.rows.empty())
    append(out, {"\n", draw(attack, sym)});
  for (StrategyKind kind : kKinds) {
    Grid grid = build_grid(index, kind);
    if (grid_has_tests(grid)) append(out, {"\n", draw(grid_table(grid, index, sym), sym)});
  }
  for (const auto& [dataset, kind] : effect_sections(index))
    append(out, {"\n", draw(effect_table(index, dataset, kind, sym), sym)});
  for (StrategyKind kind : kKinds) {
    Table accounting = accounting_table(index, kind, sym);
    if (!accounting.rows.empty()) append(out, {"\n", draw(accounting, sym)});
  }
  Table usage = llm_usage_table(report);
  if (!usage.rows.empty()) append(out, {"\n", draw(usage, sym)});
  return out;
}

}  // namespace probity::report
