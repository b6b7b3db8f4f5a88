// --export: the report's figures as standalone SVG files and its tables as LaTeX (booktabs),
// drawn from the same Table and Figure models as the HTML, Markdown and terminal renderings.
#include <fmt/format.h>

#include <filesystem>
#include <stdexcept>

#include "probity/error.hpp"
#include "probity/report.hpp"
#include "report/figures.hpp"
#include "report/format.hpp"
#include "util/output_file.hpp"

namespace probity::report {

namespace detail {

std::string latex_escape(std::string_view s) {
  // Characters LaTeX would interpret, and the report's symbols as math-mode or text commands;
  // other UTF-8 passes through (pdflatex with inputenc, or xelatex/lualatex).
  static constexpr std::pair<std::string_view, std::string_view> kSymbols[] = {
      {"\u2713", "$\\surd$"},  // amssymb's \checkmark would add a package
      {"\u00b1", "$\\pm$"},
      {"\u03c1", "$\\rho$"},
      {"\u03b1", "$\\alpha$"},
      {"\u0394", "$\\Delta$"},
      {"\u2020", "$^\\dagger$"},
      {"\u2014", "---"},
      {"\u2013", "--"},
      {"\u2026", "\\ldots{}"},
      {"\u2190", "$\\leftarrow$"},
      {"\u2192", "$\\rightarrow$"},
      {"\u00b7", "$\\cdot$"},
      {"\u2212", "$-$"},
      {"\u00d7", "$\\times$"}};
  std::string out;
  for (std::size_t i = 0; i < s.size();) {
    bool replaced = false;
    for (const auto& [from, to] : kSymbols)
      if (s.substr(i, from.size()) == from) {
        out += to;
        i += from.size();
        replaced = true;
        break;
      }
    if (replaced) continue;
    const char c = s[i++];
    switch (c) {
      case '\\':
        out += "\\textbackslash{}";
        break;
      case '&':
      case '%':
      case '$':
      case '#':
      case '_':
      case '{':
      case '}':
        out += '\\';
        out += c;
        break;
      case '[':
      case ']':
        // Braced: after a row's "\\" (or a macro) a bare '[' opens an optional argument.
        out += '{';
        out += c;
        out += '}';
        break;
      case '~':
        out += "\\textasciitilde{}";
        break;
      case '^':
        out += "\\textasciicircum{}";
        break;
      case '<':
        out += "\\textless{}";
        break;
      case '>':
        out += "\\textgreater{}";
        break;
      case '\n':
      case '\r':
      case '\t':
        out += ' ';
        break;
      default:
        out += c;
    }
  }
  return out;
}

std::string_view latex_preamble_comment() {
  return "% Exported by probity. Needs, in the preamble of a plain \\documentclass{article}:\n"
         "%   \\usepackage{booktabs}  % \\toprule, \\midrule, \\bottomrule\n"
         "%   \\usepackage{graphicx}  % \\resizebox\n";
}

// A `table` environment with a booktabs `tabular` shrunk to the column when wider (never
// enlarged): failures in bold, the note as a footnote-size paragraph under it. The comment on
// top names the packages it needs.
std::string latex_table(const Table& t) {
  std::string spec;
  for (std::size_t c = 0; c < t.header.size(); ++c) {
    Align a = c < t.align.size() ? t.align[c] : Align::kLeft;
    spec += a == Align::kRight ? 'r' : a == Align::kCenter ? 'c' : 'l';
  }
  std::string out(latex_preamble_comment());
  out += "\\begin{table}[ht]\n\\centering\n";
  if (!t.title.empty()) append(out, {"\\caption{", latex_escape(t.title), "}\n"});
  // \width inside \resizebox is the tabular's natural width: only a wider one is scaled down.
  out += "\\resizebox{\\ifdim\\width>\\columnwidth\\columnwidth\\else\\width\\fi}{!}{%\n";
  append(out, {"\\begin{tabular}{", spec, "}\n\\toprule\n"});
  std::vector<std::string> cells;
  for (const auto& h : t.header) cells.push_back(latex_escape(h));
  append(out, {join(cells, " & "), " \\\\\n\\midrule\n"});
  for (const auto& row : t.rows) {
    cells.clear();
    for (std::size_t c = 0; c < t.header.size(); ++c) {
      if (c >= row.size()) {
        cells.emplace_back();
        continue;
      }
      std::string text = latex_escape(row[c].text);
      if (row[c].mono) text = cat({"\\texttt{", text, "}"});
      if (row[c].tone == Tone::kFail && !text.empty()) text = cat({"\\textbf{", text, "}"});
      if (row[c].tone == Tone::kWarn && !text.empty()) text = cat({"\\textit{", text, "}"});
      cells.push_back(std::move(text));
    }
    append(out, {join(cells, " & "), " \\\\\n"});
  }
  out += "\\bottomrule\n\\end{tabular}}\n";
  if (!t.note.empty())
    append(out, {"\\par\\smallskip{\\footnotesize ", latex_escape(t.note), "\\par}\n"});
  out += "\\end{table}\n";
  return out;
}

}  // namespace detail

std::vector<std::string> write_exports(const AuditReport& report, const std::string& dir,
                                       bool latex, bool svg) {
  using namespace detail;
  std::filesystem::path root(dir.empty() ? "." : dir);
  std::error_code ec;
  std::filesystem::create_directories(root, ec);
  if (ec)
    throw std::runtime_error("cannot create directory " + root.string() + ": " + ec.message());
  Symbols sym{true};
  TestIndex index(report);
  std::vector<std::pair<std::string, std::string>> files;  // name, content
  if (svg) {
    for (const auto& ds : index.datasets())
      if (auto f = correlation_figure(index, ds, sym))
        files.emplace_back("fig-" + f->name + ".svg", standalone_svg(*f));
    for (const auto& [dataset, kind] : effect_sections(index))
      for (const auto& f : forest_figures(index, dataset, kind, sym))
        files.emplace_back("fig-" + f.name + ".svg", standalone_svg(f));
  }
  if (latex) {
    auto add = [&](const std::string& name, const Table& t) {
      if (!t.rows.empty()) files.emplace_back("table-" + name + ".tex", latex_table(t));
    };
    add("scorecard", scorecard_table(index, sym));
    std::size_t n = 0;
    for (const auto& t : correlation_tables(index, sym)) add(fmt::format("correlation-{}", ++n), t);
    n = 0;
    for (const auto& t : ranking_tables(index, sym)) add(fmt::format("ranking-{}", ++n), t);
    add("attack", attack_search_table(report.attacks, report.alpha, sym));
    add("attack-replacement", replacement_table(report.attacks, sym));
    add("attack-suffix", suffix_table(report.attacks, sym));
    add("attack-defense", defense_matrix(report.attacks, sym));
    add("judge-diagnostics", judge_diagnostics_table(report, sym));
    for (StrategyKind kind : kKinds) {
      Grid grid = build_grid(index, kind);
      if (grid_has_tests(grid)) add(cat({"grid-", kind_name(kind)}), grid_table(grid, index, sym));
    }
    add("replicability", replicability_table(report, sym));
    for (const auto& [dataset, kind] : effect_sections(index))
      add(cat({"effects-", file_stem(dataset), "-", kind_name(kind)}),
          effect_table(index, dataset, kind, sym));
    for (StrategyKind kind : kKinds)
      add(cat({"accounting-", kind_name(kind)}), accounting_table(index, kind, sym));
  }
  // Distinct datasets whose names differ only in characters a file name cannot hold ("a/b",
  // "a_b") would share a file: one figure would replace the other.
  for (std::size_t i = 0; i < files.size(); ++i)
    for (std::size_t j = 0; j < i; ++j)
      if (files[i].first == files[j].first)
        throw UsageError("--export: two figures or tables would both be written as " +
                         files[i].first +
                         "; give the datasets file names that differ in letters "
                         "or digits");
  std::vector<std::string> written;
  for (const auto& [name, content] : files) {
    const std::string path = (root / name).string();
    util::write_file_atomically(path, content);
    written.push_back(path);
  }
  return written;
}

}  // namespace probity::report
