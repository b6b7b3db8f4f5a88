#pragma once
// Renderings of an audit report: JSON (every number), Markdown, self-contained HTML, and the
// plain-text tables printed on the terminal.
#include <string>
#include <vector>

#include "probity/audit.hpp"

namespace probity::report {

std::string to_json(const AuditReport& report);  // pretty-printed JSON
AuditReport from_json(const std::string& json);  // inverse of to_json (for merging, tests)
std::string to_markdown(const AuditReport& report);
std::string to_html(const AuditReport& report);
std::string to_text(const AuditReport& report, bool unicode = true);  // terminal tables

// Writes report.json, report.md and report.html into `dir`.
void write_all(const AuditReport& report, const std::string& dir);
// --export: every figure as a standalone SVG file (fig-*.svg) and/or every table as a LaTeX
// booktabs table (table-*.tex) in `dir`; returns the paths written.
std::vector<std::string> write_exports(const AuditReport& report, const std::string& dir,
                                       bool latex, bool svg);

}  // namespace probity::report
