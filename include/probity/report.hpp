#pragma once
// Renderings of an audit report: JSON (every number), Markdown, self-contained HTML, and the
// plain-text tables printed on the terminal.
#include <cstddef>
#include <string>
#include <vector>

#include "probity/attack.hpp"
#include "probity/audit.hpp"

namespace probity::report {

std::string to_json(const AuditReport& report);  // pretty-printed JSON
AuditReport from_json(const std::string& json);  // inverse of to_json (for merging, tests)
std::string to_markdown(const AuditReport& report);
std::string to_html(const AuditReport& report);
std::string to_text(const AuditReport& report, bool unicode = true);  // terminal tables

// How the terminal tables are drawn: box glyphs or ASCII, the width they must fit in (0: as
// wide as their cells; else columns are narrowed, widest first, and their cells wrapped at spaces
// onto more lines, or cut where a word is longer than the column), and ANSI colours for
// verdicts (green pass, red fail, yellow Holm-only fail, dim n/a and missing).
struct TextOptions {
  bool unicode = true;
  std::size_t width = 0;
  bool color = false;
};
// The details (correlations, grids, effect sizes, accounting, LLM usage), then the run's summary
// line and the scorecard: the verdict comes last, where a terminal leaves it in view.
std::string to_text(const AuditReport& report, const TextOptions& options);
// The two halves of to_text, for a caller that prints more between them (the files written).
std::string to_text_details(const AuditReport& report, const TextOptions& options);
std::string to_text_verdict(const AuditReport& report, const TextOptions& options);

// `probity attack`'s terminal output: its tables (the per-item search, replacements, suffixes,
// the defense matrix with two or more metrics), what the LLM attacker did, and the settings.
std::string attack_to_text(const AttackRun& run, const TextOptions& options);

// Writes report.json, report.md and report.html into `dir`.
void write_all(const AuditReport& report, const std::string& dir);
// --export: every figure as a standalone SVG file (fig-*.svg) and/or every table as a LaTeX
// booktabs table (table-*.tex) in `dir`; returns the paths written.
std::vector<std::string> write_exports(const AuditReport& report, const std::string& dir,
                                       bool latex, bool svg);

}  // namespace probity::report
