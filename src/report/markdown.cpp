// report.md: the same tables as the terminal, as GitHub-flavoured Markdown, with a header
// describing the run and a few perturbation examples.
#include <fmt/format.h>

#include <algorithm>
#include <cctype>

#include "probity/report.hpp"
#include "report/format.hpp"

namespace probity::report {

namespace {

using namespace detail;

constexpr std::size_t kExampleChars = 400;
constexpr std::size_t kExamplesShown = 12;
constexpr std::size_t kSkippedShown = 50;

bool is_word(char c) {
  return std::isalnum(static_cast<unsigned char>(c)) || static_cast<unsigned char>(c) >= 0x80;
}

// Escapes text for a table cell or paragraph: only what Markdown would otherwise interpret
// (emphasis, code, links, HTML, the table's pipes), so that the raw file stays readable.
std::string md_escape(std::string_view s) {
  std::string out;
  for (std::size_t i = 0; i < s.size(); ++i) {
    char c = s[i];
    char prev = i > 0 ? s[i - 1] : ' ', next = i + 1 < s.size() ? s[i + 1] : ' ';
    switch (c) {
      case '\\':
      case '`':
      case '*':
      case '|':
        out += '\\';
        out += c;
        break;
      case '_':  // intraword underscores never start emphasis in GFM
        if (!is_word(prev) || !is_word(next)) out += '\\';
        out += c;
        break;
      case ']':  // only "](" and "][" (and "]:") can form links
        if (next == '(' || next == '[' || next == ':') out += '\\';
        out += c;
        break;
      case '#':
        if (i == 0) out += '\\';
        out += c;
        break;
      case '<':
        out += "&lt;";
        break;
      case '>':
        out += "&gt;";
        break;
      case '&':
        out += "&amp;";
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

std::size_t longest_run(std::string_view s, char c) {
  std::size_t best = 0, run = 0;
  for (char x : s) {
    run = x == c ? run + 1 : 0;
    best = std::max(best, run);
  }
  return best;
}

// A code span that survives backticks in the text; inside a table its pipes are escaped (GFM
// splits cells before it parses code spans), elsewhere they must stay as they are.
std::string md_code(std::string_view s, bool in_table) {
  if (s.empty()) return "";
  std::string body;
  for (char c : s) {
    if (c == '|' && in_table)
      body += "\\|";
    else if (c == '\n' || c == '\r' || c == '\t')
      body += ' ';
    else
      body += c;
  }
  std::string fence(longest_run(s, '`') + 1, '`');
  // Padding keeps a leading or trailing backtick from merging with the fence.
  bool pad = s.front() == '`' || s.back() == '`';
  return pad ? cat({fence, " ", body, " ", fence}) : cat({fence, body, fence});
}

std::string md_table(const Table& t) {
  if (t.rows.empty()) return "";
  std::string out;
  out += "|";
  for (const auto& h : t.header) append(out, {" ", md_escape(h), " |"});
  out += "\n|";
  for (std::size_t c = 0; c < t.header.size(); ++c) {
    Align a = c < t.align.size() ? t.align[c] : Align::kLeft;
    out += a == Align::kRight ? " ---: |" : a == Align::kCenter ? " :---: |" : " --- |";
  }
  out += "\n";
  for (const auto& row : t.rows) {
    out += "|";
    for (std::size_t c = 0; c < t.header.size(); ++c) {
      std::string cell;
      if (c < row.size()) {
        cell = row[c].mono ? md_code(row[c].text, true) : md_escape(row[c].text);
        // Failures stand out in the grids as in the paper's red cells.
        if (!row[c].text.empty() && !row[c].mono) {
          if (row[c].tone == Tone::kFail) cell = cat({"**", cell, "**"});
          if (row[c].tone == Tone::kWarn) cell = cat({"*", cell, "*"});  // fails after Holm only
        }
      }
      out += " " + cell + " |";
    }
    out += "\n";
  }
  return out;
}

// A titled section: heading, table, legend.
std::string md_section(const Table& t, const std::string& heading) {
  if (t.rows.empty()) return "";
  std::string out = cat({heading, " ", md_escape(t.title), "\n\n", md_table(t)});
  if (!t.note.empty()) append(out, {"\n", md_escape(t.note), "\n"});
  return out + "\n";
}

std::string fenced(std::string_view text) {
  std::string fence(std::max<std::size_t>(3, longest_run(text, '`') + 1), '`');
  std::string body(text);
  if (body.empty() || body.back() != '\n') body += '\n';
  return fence + "text\n" + body + fence + "\n";
}

}  // namespace

std::string to_markdown(const AuditReport& report) {
  Symbols sym{true};
  TestIndex index(report);
  std::string out = "# probity audit report\n\n";
  // The verdict first: what a reader came for, before the run's metadata.
  out += md_section(scorecard_table(index, sym), "##");

  out += fmt::format("- **Version:** probity {}\n", md_escape(report.version));
  out += fmt::format("- **Seed:** {}\n", report.seed);
  out += fmt::format("- **Tests:** {} = {:g}, {} confidence intervals, {} bootstrap resamples\n",
                     sym.alpha(), report.alpha, fmt_percent(report.confidence), report.bootstrap);
  out += fmt::format("- **Sample:** {}\n",
                     report.sample == 0 ? std::string("all candidates")
                                        : fmt::format("{} candidates per dataset", report.sample));
  std::vector<std::string> ds;
  for (const auto& d : report.datasets)
    ds.push_back(fmt::format("{} ({} tasks, {} candidates, {} audited)", md_escape(d.name), d.tasks,
                             d.candidates, d.audited));
  out += "- **Datasets:** " + (ds.empty() ? std::string("none") : join(ds, "; ")) + "\n";
  out += fmt::format("- **Run:** {:.1f} s, cache {} hits / {} misses\n", report.seconds,
                     report.cache_hits, report.cache_misses);
  if (!report.metrics.empty()) {
    out += "- **Metric signatures:**\n";
    for (std::size_t i = 0; i < report.metrics.size(); ++i) {
      std::string sig = i < report.signatures.size() ? report.signatures[i] : std::string();
      append(out, {"  - ", md_escape(report.metrics[i])});
      if (!sig.empty()) append(out, {": ", md_code(sig, false)});
      out += "\n";
    }
  }
  out += "\n## How to read\n\n";
  for (const auto& p : how_to_read(index, sym)) out += md_escape(p) + "\n\n";

  auto correlations = correlation_tables(index, sym);
  if (!correlations.empty()) {
    out += "## Human correlation\n\n";
    for (const auto& t : correlations) out += md_section(t, "###");
  }
  for (const auto& t : attack_tables(report.attacks, report.alpha, sym)) out += md_section(t, "##");
  if (Table judge = judge_diagnostics_table(report, sym); !judge.rows.empty())
    out += md_section(judge, "##");
  auto rankings = ranking_tables(index, sym);
  if (!rankings.empty()) {
    out += "## Significance clusters\n\n";
    for (const auto& t : rankings) out += md_section(t, "###");
  }
  for (StrategyKind kind : kKinds) {
    Grid grid = build_grid(index, kind);
    if (grid_has_tests(grid)) out += md_section(grid_table(grid, index, sym), "##");
  }
  if (Table rep = replicability_table(report, sym); !rep.rows.empty()) out += md_section(rep, "##");
  auto sections = effect_sections(index);
  if (!sections.empty()) {
    out += "## Effect sizes\n\n";
    for (const auto& [dataset, kind] : sections)
      out += md_section(effect_table(index, dataset, kind, sym), "###");
  }
  for (StrategyKind kind : kKinds) out += md_section(accounting_table(index, kind, sym), "##");

  if (!report.examples.empty()) {
    out += "## Perturbation examples\n\n";
    std::size_t shown = std::min(report.examples.size(), kExamplesShown);
    for (std::size_t i = 0; i < shown; ++i) {
      const auto& e = report.examples[i];
      out += fmt::format("### {}{}{} {} ({}){}task {}, candidate {}\n\n", md_escape(e.dataset),
                         sym.dot(), kind_name(e.kind), md_escape(e.code),
                         md_escape(index.strategy_name(e.kind, e.code)), sym.dot(),
                         md_escape(e.task_id), md_escape(e.candidate_id));
      append(out,
             {"**Original**\n\n", fenced(truncate_text(e.original, kExampleChars, sym)), "\n"});
      append(out,
             {"**Perturbed**\n\n", fenced(truncate_text(e.perturbed, kExampleChars, sym)), "\n"});
    }
    if (shown < report.examples.size())
      out += fmt::format("{} more examples in report.json.\n\n", report.examples.size() - shown);
  }

  out += md_section(strategy_table(report), "##");
  out += md_section(dataset_table(report), "##");
  if (Table usage = llm_usage_table(report); !usage.rows.empty()) out += md_section(usage, "##");
  if (skipped_count(report) > 0) out += md_section(skipped_table(report, kSkippedShown), "##");
  Table tests = tests_table(index, sym);
  if (!tests.rows.empty())
    append(out,
           {"<details>\n<summary>All tests</summary>\n\n", md_table(tests), "\n</details>\n\n"});
  append(out, {"---\n\n", md_escape(run_summary(report, sym)), "\n"});
  return out;
}

}  // namespace probity::report
