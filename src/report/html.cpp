// report.html: one self-contained file (inline CSS, inline SVG, no scripts, nothing fetched) so
// that it can be mailed, archived or opened offline and always looks the same.
#include <fmt/format.h>

#include <algorithm>
#include <cctype>
#include <cmath>
#include <cstdint>
#include <string_view>
#include <utility>
#include <vector>

#include "probity/report.hpp"
#include "report/figures.hpp"
#include "report/format.hpp"

namespace probity::report {

namespace {

using namespace detail;

constexpr std::size_t kExampleChars = 400;
constexpr std::size_t kExamplesShown = 24;
constexpr std::size_t kSkippedShown = 200;

std::string esc(std::string_view s) {
  return xml_escape(s);
}

const char* kCss = R"css(
:root {
  --fg: #1f2328; --muted: #59636e; --border: #d1d9e0; --soft: #f6f8fa; --accent: #0969da;
  --pass: #1a7f37; --pass-bg: #dafbe1; --fail: #cf222e; --fail-bg: #ffebe9;
  --na: #6e7781; --na-bg: #eaeef2; --holm: #9a6700; --warn-bg: #fff8c5;
}
* { box-sizing: border-box; }
body {
  margin: 0; background: var(--soft); color: var(--fg); line-height: 1.5; font-size: 14px;
  font-family: system-ui, -apple-system, "Segoe UI", Roboto, "Helvetica Neue", Arial,
    "Noto Sans", "Liberation Sans", "DejaVu Sans", sans-serif;
}
main { max-width: 1240px; margin: 0 auto; padding: 28px 36px 24px; background: #fff;
  min-height: 100vh; box-shadow: 0 0 0 1px var(--border); }
h1 { font-size: 26px; margin: 0 0 2px; font-weight: 650; letter-spacing: -0.01em; }
h2 { font-size: 19px; margin: 36px 0 10px; padding-bottom: 6px;
  border-bottom: 1px solid var(--border); font-weight: 620; }
h3 { font-size: 15px; margin: 22px 0 8px; font-weight: 620; }
p { margin: 6px 0; }
a { color: var(--accent); text-decoration: none; }
a:hover { text-decoration: underline; }
.sub { color: var(--muted); margin: 0 0 16px; }
.mono, code { font-family: ui-monospace, SFMono-Regular, "SF Mono", Menlo, Consolas,
  "Liberation Mono", "DejaVu Sans Mono", monospace; font-size: 12px; }
dl.meta { display: grid; grid-template-columns: repeat(auto-fill, minmax(180px, 1fr));
  gap: 10px 18px; margin: 0; padding: 14px 16px; background: var(--soft);
  border: 1px solid var(--border); border-radius: 8px; }
dl.meta div { min-width: 0; }
dl.meta dt { color: var(--muted); font-size: 11.5px; text-transform: uppercase;
  letter-spacing: 0.04em; }
dl.meta dd { margin: 0; font-weight: 600; overflow-wrap: anywhere; }
nav.toc { margin: 14px 0 0; font-size: 13px; color: var(--muted); }
nav.toc a { margin-right: 14px; }
.how p { color: #333b44; max-width: 980px; }
.note { color: var(--muted); font-size: 12.5px; max-width: 1000px; margin: 6px 0 14px; }
.scroll { overflow-x: auto; }
table { border-collapse: collapse; font-variant-numeric: tabular-nums; margin: 6px 0 4px;
  font-size: 13px; }
th, td { padding: 5px 11px; border-bottom: 1px solid var(--border); text-align: left;
  vertical-align: top; }
thead th { background: var(--soft); border-bottom: 2px solid var(--border); font-weight: 600;
  white-space: nowrap; }
td.r, th.r { text-align: right; }
td.c, th.c { text-align: center; }
td.nowrap { white-space: nowrap; }
tbody tr:hover td { background-color: #f3f6f9; }
table.grid td, table.grid th { border: 1px solid var(--border); padding: 7px 14px; }
table.grid td:first-child { font-weight: 600; }
table.grid td.pass { background: var(--pass-bg); color: var(--pass); font-weight: 700; }
table.grid td.fail { background: var(--fail-bg); color: var(--fail); font-weight: 700; }
table.grid td.warn { background: var(--warn-bg); color: var(--holm); font-weight: 700; }
table.grid td.na { background: var(--na-bg); color: var(--na); }
table.grid td.missing { color: var(--na); }
.nacodes { color: var(--na); font-weight: 400; }
table.grid td.total { font-weight: 700; }
td.holm { outline: 2px dashed var(--holm); outline-offset: -4px; }
table.fx td.pass { color: var(--pass); }
table.fx td.fail { color: var(--fail); font-weight: 600; }
table.fx td.na, table.fx td.missing, table.plain td.na { color: var(--na); }
table.tests td.pass { color: var(--pass); font-weight: 600; }
table.tests td.fail { color: var(--fail); font-weight: 700; }
table.tests td.na { color: var(--na); }
table.plain td.mono { overflow-wrap: anywhere; min-width: 12em; max-width: 26em; }
table.card td.pass { color: var(--pass); font-weight: 600; }
table.card td.fail { color: var(--fail); font-weight: 600; }
table.card td.na { color: var(--na); }
table.card td:last-child { white-space: normal; min-width: 16em; }
table.card td:first-child { overflow-wrap: anywhere; max-width: 22em; }
table.card td.holm { outline: none; }
table.card td.holm::after { content: " \2020"; color: var(--holm); }
.grids { display: flex; flex-wrap: wrap; gap: 8px 40px; }
.grids > div { flex: 1 1 460px; min-width: 0; }
.legend { display: flex; flex-wrap: wrap; gap: 6px 18px; font-size: 12.5px; color: var(--muted);
  margin: 4px 0 10px; align-items: center; }
.legend span { display: inline-flex; align-items: center; gap: 6px; }
.sw { display: inline-block; }
.sw.dot { width: 10px; height: 10px; border-radius: 50%; }
.sw.pass { background: var(--pass); } .sw.fail { background: var(--fail); }
.sw.na { background: #8c959f; }
.sw.bar { width: 22px; height: 4px; background: #57606a; border-radius: 2px; }
.sw.boot { width: 22px; height: 0; border-top: 2px dashed #8c959f; }
.sw.ring { width: 13px; height: 13px; border-radius: 50%; border: 1.5px solid var(--holm); }
.sw.cell { width: 18px; height: 13px; border: 1px solid var(--border); }
.sw.cell.pass { background: var(--pass-bg); } .sw.cell.fail { background: var(--fail-bg); }
.sw.cell.na { background: var(--na-bg); }
.sw.cell.warn { background: var(--warn-bg); }
.sw.cell.holm { outline: 2px dashed var(--holm); outline-offset: -3px; }
.forest { display: grid; grid-template-columns: repeat(auto-fill, minmax(min(500px, 100%), 1fr));
  gap: 14px; margin: 8px 0 12px; }
figure.panel { margin: 0; padding: 10px 12px 6px; border: 1px solid var(--border);
  border-radius: 8px; background: #fff; }
figure.panel figcaption { font-size: 13px; margin-bottom: 2px; display: flex;
  justify-content: space-between; gap: 8px; }
figure.panel figcaption .tally { color: var(--muted); font-size: 12px; white-space: nowrap; }
figure.panel svg { display: block; max-width: 100%; height: auto; }
svg text { font-size: 11px; fill: var(--fg); font-variant-numeric: tabular-nums; }
svg text.muted { fill: var(--muted); }
svg text.na { fill: #8c959f; font-style: italic; }
.examples { display: grid; gap: 14px; }
.example { border: 1px solid var(--border); border-radius: 8px; overflow: hidden; }
.example .head { background: var(--soft); padding: 7px 12px; font-size: 13px;
  border-bottom: 1px solid var(--border); }
.example .body { display: grid; grid-template-columns: 1fr 1fr; }
.example .body > div { padding: 8px 12px 10px; min-width: 0; }
.example .body > div + div { border-left: 1px solid var(--border); }
.example h4 { margin: 0 0 4px; font-size: 11.5px; text-transform: uppercase;
  letter-spacing: 0.04em; color: var(--muted); }
mark.del { background: #ffebe9; color: #82071e; border-radius: 2px; padding: 0 1px; }
mark.ins { background: #dafbe1; color: #116329; border-radius: 2px; padding: 0 1px; }
.example .text { white-space: pre-wrap; overflow-wrap: anywhere; font-size: 13px; margin: 0; }
.badge { display: inline-block; font-size: 11px; padding: 1px 7px; border-radius: 10px;
  font-weight: 600; margin-right: 6px; }
.badge.degradation { background: #ddf4ff; color: #0550ae; }
.badge.manipulation { background: #fbefff; color: #8250df; }
details { margin: 18px 0; }
details summary { cursor: pointer; font-weight: 600; }
footer { margin-top: 40px; padding-top: 12px; border-top: 1px solid var(--border);
  color: var(--muted); font-size: 12.5px; }
@media (max-width: 640px) {
  main { padding: 14px 12px 16px; }
  h1 { font-size: 21px; }
  .forest { grid-template-columns: minmax(0, 1fr); }
  .grids > div { flex-basis: 100%; }
  .example .body { grid-template-columns: minmax(0, 1fr); }
  .example .body > div + div { border-left: 0; border-top: 1px solid var(--border); }
  dl.meta { grid-template-columns: repeat(auto-fill, minmax(140px, 1fr)); }
  th, td { padding: 4px 7px; }
  table.card, table.card tbody, table.card tr, table.card td { display: block; }
  table.card thead { display: none; }
  table.card tr { border: 1px solid var(--border); border-radius: 8px; margin: 0 0 8px;
    padding: 6px 10px; }
  table.card td { border: 0; padding: 1px 0; text-align: left; white-space: normal;
    min-width: 0; }
  table.card td:first-child { font-weight: 650; max-width: none; }
  table.card td[data-label]::before { content: attr(data-label) ": "; color: var(--muted);
    font-weight: 400; }
}
@media print { body { background: #fff; } main { box-shadow: none; } }
)css";

std::string tone_class(Tone tone) {
  switch (tone) {
    case Tone::kPass:
      return "pass";
    case Tone::kFail:
      return "fail";
    case Tone::kWarn:
      return "warn";
    case Tone::kNa:
      return "na";
    case Tone::kMissing:
      return "missing";
    case Tone::kNone:
      break;
  }
  return "";
}

std::string align_class(Align a) {
  return a == Align::kRight ? "r" : a == Align::kCenter ? "c" : "";
}

// Correlation cells are shaded by ρ: blue for agreement with humans, red for disagreement.
std::string heat_style(double v) {
  if (!std::isfinite(v)) return "";
  double a = 0.06 + 0.34 * std::min(1.0, std::fabs(v));
  return v >= 0 ? fmt::format("background:rgba(9,105,218,{:.3f})", a)
                : fmt::format("background:rgba(207,34,46,{:.3f})", a);
}

// Cell text; in grid cells the "n/a:X" part is set apart so that it does not read as a failure.
std::string cell_html(const std::string& text) {
  std::size_t na = text.find("n/a:");
  if (na == std::string::npos) return esc(text);
  return cat(
      {esc(text.substr(0, na)), "<span class=\"nacodes\">", esc(text.substr(na)), "</span>"});
}

// Renders a table; `total_cols` trailing columns are styled as totals (grids).
std::string html_table(const Table& t, const std::string& cls, std::size_t total_cols = 0) {
  if (t.rows.empty()) return "";
  std::string out = "<div class=\"scroll\"><table class=\"" + cls + "\"><thead><tr>";
  for (std::size_t c = 0; c < t.header.size(); ++c) {
    std::string a = c < t.align.size() ? align_class(t.align[c]) : "";
    out += a.empty() ? "<th>" : "<th class=\"" + a + "\">";
    out += esc(t.header[c]) + "</th>";
  }
  out += "</tr></thead><tbody>\n";
  for (const auto& row : t.rows) {
    out += "<tr>";
    for (std::size_t c = 0; c < t.header.size(); ++c) {
      Cell cell = c < row.size() ? row[c] : Cell();
      std::vector<std::string> classes;
      if (c < t.align.size() && t.align[c] != Align::kLeft)
        classes.push_back(align_class(t.align[c]));
      if (std::string tc = tone_class(cell.tone); !tc.empty()) classes.push_back(tc);
      if (cell.marked) classes.push_back("holm");
      if (cell.mono) classes.push_back("mono");
      if (c + total_cols >= t.header.size() && total_cols > 0) classes.push_back("total");
      if (c > 0 && !cell.mono && cell.text.size() < 40) classes.push_back("nowrap");
      out += "<td";
      if (!classes.empty()) append(out, {" class=\"", join(classes, " "), "\""});
      if (std::string style = heat_style(cell.heat); !style.empty())
        out += " style=\"" + style + "\"";
      if (!cell.title.empty()) append(out, {" title=\"", esc(cell.title), "\""});
      // Cards (the scorecard) stack their cells on a phone, each labelled by its header.
      if (cls == "card" && c > 0) append(out, {" data-label=\"", esc(t.header[c]), "\""});
      append(out, {">", cell_html(cell.text), "</td>"});
    }
    out += "</tr>\n";
  }
  out += "</tbody></table></div>\n";
  if (!t.note.empty()) append(out, {"<p class=\"note\">", esc(t.note), "</p>\n"});
  return out;
}

// ---- figures -----------------------------------------------------------------------------

std::string figure_html(const Figure& f) {
  std::string out = "<figure class=\"panel\"><figcaption><span>";
  if (!f.code.empty()) append(out, {"<b>", esc(f.code), "</b> "});
  append(out, {esc(f.caption), "</span>"});
  if (!f.tally.empty()) append(out, {"<span class=\"tally\">", esc(f.tally), "</span>"});
  append(out, {"</figcaption>\n", f.svg, "</figure>\n"});
  return out;
}

std::string forest_section(const TestIndex& index, const std::string& dataset, StrategyKind kind,
                           const Symbols& sym) {
  std::string out = "<div class=\"forest\">\n";
  for (const auto& f : forest_figures(index, dataset, kind, sym)) out += figure_html(f);
  return out + "</div>\n";
}

// ---- examples ----------------------------------------------------------------------------

// A word and the whitespace after it; the diff compares words only, rendering keeps spacing.
struct Word {
  std::string_view text, space;
};

std::vector<Word> split_words(std::string_view s, std::string_view& lead) {
  auto is_space = [](char c) { return std::isspace(static_cast<unsigned char>(c)) != 0; };
  std::size_t i = 0;
  while (i < s.size() && is_space(s[i])) ++i;
  lead = s.substr(0, i);
  std::vector<Word> out;
  while (i < s.size()) {
    std::size_t j = i;
    while (j < s.size() && !is_space(s[j])) ++j;
    std::size_t k = j;
    while (k < s.size() && is_space(s[k])) ++k;
    out.push_back({s.substr(i, j - i), s.substr(j, k - j)});
    i = k;
  }
  return out;
}

std::size_t code_points(std::string_view s) {
  std::size_t n = 0;
  for (unsigned char c : s) n += (c & 0xC0) != 0x80;
  return n;
}

// Escaped text of one side of an example, runs of words missing from the other side wrapped in
// <mark>, cut at a word boundary after kExampleChars code points.
std::string render_side(std::string_view lead, const std::vector<Word>& words,
                        const std::vector<bool>& changed, const char* mark_class,
                        const Symbols& sym) {
  std::string out = esc(lead);
  std::size_t chars = code_points(lead);
  bool open = false;
  for (std::size_t i = 0; i < words.size(); ++i) {
    std::size_t n = code_points(words[i].text);
    bool cut = chars + n > kExampleChars;
    std::string_view text = words[i].text;
    if (cut && chars == 0) {
      // A single over-long first word: cut it at a code-point boundary.
      std::size_t end = 0;
      for (std::size_t seen = 0; end < text.size(); ++end)
        if ((static_cast<unsigned char>(text[end]) & 0xC0) != 0x80 && seen++ == kExampleChars)
          break;
      text = text.substr(0, end);
    } else if (cut) {
      text = {};
    }
    if (changed[i] && !open && !text.empty()) {
      append(out, {"<mark class=\"", mark_class, "\">"});
      open = true;
    }
    out += esc(text);
    // A mark spans the space between two changed words so that a changed phrase reads as one.
    bool next_changed = i + 1 < words.size() && changed[i + 1];
    if (open && (cut || !changed[i] || !next_changed)) {
      out += "</mark>";
      open = false;
    }
    if (cut) {
      while (!out.empty() && (out.back() == ' ' || out.back() == '\n')) out.pop_back();
      return out + std::string(sym.ellipsis());
    }
    out += esc(words[i].space);
    chars += n + code_points(words[i].space);
  }
  return out;
}

// Both sides of an example with a word-level diff (longest common subsequence), so that small
// edits such as a flipped opinion word stand out. Texts with little in common (a random
// replacement) or very long ones are shown without marks: everything would be marked.
std::pair<std::string, std::string> diff_html(std::string_view original, std::string_view perturbed,
                                              const Symbols& sym) {
  std::string_view lead_a, lead_b;
  auto a = split_words(original, lead_a), b = split_words(perturbed, lead_b);
  const std::size_t n = a.size(), m = b.size();
  std::vector<bool> del(n, false), ins(m, false);
  if (n * m <= 4'000'000) {
    std::vector<std::uint32_t> lcs((n + 1) * (m + 1), 0);
    auto at = [&](std::size_t i, std::size_t j) -> std::uint32_t& { return lcs[i * (m + 1) + j]; };
    for (std::size_t i = n; i-- > 0;)
      for (std::size_t j = m; j-- > 0;)
        at(i, j) =
            a[i].text == b[j].text ? at(i + 1, j + 1) + 1 : std::max(at(i + 1, j), at(i, j + 1));
    if (4 * static_cast<std::size_t>(at(0, 0)) >= std::min(n, m)) {
      std::size_t i = 0, j = 0;
      while (i < n && j < m) {
        if (a[i].text == b[j].text) {
          ++i;
          ++j;
        } else if (at(i + 1, j) >= at(i, j + 1)) {
          del[i++] = true;
        } else {
          ins[j++] = true;
        }
      }
      for (; i < n; ++i) del[i] = true;
      for (; j < m; ++j) ins[j] = true;
    }
  }
  return {render_side(lead_a, a, del, "del", sym), render_side(lead_b, b, ins, "ins", sym)};
}

std::string anchor(std::string_view prefix, const std::string& name) {
  std::string out(prefix);
  for (unsigned char c : name) out += std::isalnum(c) ? static_cast<char>(c) : '-';
  return out;
}

// One example card: a head (already HTML), where it comes from, and both texts with their
// word-level diff.
std::string example_card(const std::string& head_html, const std::string& dataset,
                         const std::string& task_id, const std::string& candidate_id,
                         std::string_view original, std::string_view changed,
                         std::string_view changed_label, const Symbols& sym) {
  auto diff = diff_html(original, changed, sym);
  return cat({"<div class=\"example\"><div class=\"head\">", head_html, " <span class=\"note\">",
              esc(fmt::format("{}{}{}task {}{}candidate {}", sym.dot(), dataset, sym.dot(), task_id,
                              sym.dot(), candidate_id)),
              "</span></div>\n<div class=\"body\"><div><h4>Original</h4><p class=\"text\">",
              diff.first, "</p></div><div><h4>", std::string(changed_label),
              "</h4><p class=\"text\">", diff.second, "</p></div></div></div>\n"});
}

// The attack's gameability against query budget: the share of items attacked after 1, 2, 5, ...
// queries, one line per metric and dataset (log-scaled queries).
std::string budget_plot(const std::vector<MetricAttack>& attacks) {
  static constexpr const char* kColours[] = {"#0969da", "#cf222e", "#1a7f37", "#8250df",
                                             "#bc4c00", "#57606a", "#bf3989", "#116329"};
  std::size_t max_queries = 1;
  for (const auto& a : attacks)
    for (const auto& p : a.budget_curve) max_queries = std::max(max_queries, p.queries);
  const double width = 548, height = 240, left = 48, right = 12, top = 10, bottom = 40;
  const double log_max = std::max(std::log10(static_cast<double>(max_queries)), 1.0);
  auto x = [&](double q) {
    return left + std::log10(std::max(q, 1.0)) / log_max * (width - left - right);
  };
  auto y = [&](double share) { return top + (1 - share) * (height - top - bottom); };
  std::string out = fmt::format(
      "<figure class=\"panel\"><figcaption><span><b>Gameability against query budget</b></span>"
      "</figcaption>\n<svg viewBox=\"0 0 {0:.0f} {1:.0f}\" width=\"{0:.0f}\" height=\"{1:.0f}\" "
      "role=\"img\" aria-label=\"Share of items attacked against metric queries per item\">\n",
      width, height);
  out += fmt::format(
      "<rect x=\"{:.1f}\" y=\"{:.1f}\" width=\"{:.1f}\" height=\"{:.1f}\" fill=\"#f6f8fa\"/>\n",
      left, top, width - left - right, height - top - bottom);
  for (double share : {0.0, 0.25, 0.5, 0.75, 1.0})
    out += fmt::format(
        "<line x1=\"{0:.1f}\" x2=\"{1:.1f}\" y1=\"{2:.1f}\" y2=\"{2:.1f}\" stroke=\"#d0d7de\"/>"
        "<text x=\"{3:.1f}\" y=\"{4:.1f}\" text-anchor=\"end\" class=\"muted\">{5:.0f}%</text>\n",
        left, width - right, y(share), left - 4, y(share) + 4, 100 * share);
  for (double q = 1; q <= static_cast<double>(max_queries) * 1.0001; q *= 10)
    out += fmt::format(
        "<line x1=\"{0:.1f}\" x2=\"{0:.1f}\" y1=\"{1:.1f}\" y2=\"{2:.1f}\" stroke=\"#d0d7de\"/>"
        "<text x=\"{0:.1f}\" y=\"{3:.1f}\" text-anchor=\"middle\" class=\"muted\">{4:.0f}</text>\n",
        x(q), top, height - bottom, height - bottom + 14, q);
  out += fmt::format(
      "<text x=\"{:.1f}\" y=\"{:.1f}\" text-anchor=\"middle\" class=\"muted\">metric queries per "
      "item (log scale); y: share of items whose best edit raises the score</text>\n",
      left + (width - left - right) / 2, height - 6);
  std::string legend;
  for (std::size_t k = 0; k < attacks.size(); ++k) {
    const auto& a = attacks[k];
    if (a.budget_curve.empty()) continue;  // not testable: no curve drawn from nothing
    const char* colour = kColours[k % std::size(kColours)];
    std::string points;
    for (const auto& p : a.budget_curve)
      points += fmt::format("{:.1f},{:.1f} ", x(static_cast<double>(p.queries)), y(p.success_rate));
    out += fmt::format(
        "<polyline fill=\"none\" stroke=\"{}\" stroke-width=\"2\" points=\"{}\"><title>{}</title>"
        "</polyline>\n",
        colour, points, esc(a.dataset.empty() ? a.metric : a.dataset + " / " + a.metric));
    legend += fmt::format("<span style=\"color:{}\">&#9632;</span> {} ", colour,
                          esc(a.dataset.empty() ? a.metric : a.dataset + " / " + a.metric));
  }
  out += "</svg><p class=\"note\">" + legend + "</p></figure>\n";
  return out;
}

}  // namespace

std::string to_html(const AuditReport& report) {
  Symbols sym{true};
  TestIndex index(report);
  std::string out;
  out +=
      "<!DOCTYPE html>\n<html lang=\"en\">\n<head>\n<meta charset=\"utf-8\">\n"
      "<meta name=\"viewport\" content=\"width=device-width, initial-scale=1\">\n"
      "<meta name=\"generator\" content=\"probity " +
      esc(report.version) + "\">\n<title>probity audit report</title>\n<style>" + kCss +
      "</style>\n</head>\n<body>\n<main>\n";

  // Header.
  std::vector<std::string> ds_names;
  for (const auto& d : report.datasets) ds_names.push_back(d.name);
  out += "<header>\n<h1>probity audit report</h1>\n<p class=\"sub\">" +
         esc(fmt::format("{} metric{} on {} dataset{}: {}", report.metrics.size(),
                         report.metrics.size() == 1 ? "" : "s", report.datasets.size(),
                         report.datasets.size() == 1 ? "" : "s", join(ds_names, ", "))) +
         "</p>\n";
  // The verdict first: the scorecard and the correlation chart, then the run's metadata.
  if (Table card = scorecard_table(index, sym); !card.rows.empty()) {
    out += "<section id=\"scorecard\">\n<h2>Scorecard</h2>\n";
    card.title.clear();
    out += html_table(card, "card");
    out += "</section>\n";
  }
  {
    std::string charts;
    for (const auto& ds : index.datasets())
      if (auto f = correlation_figure(index, ds, sym)) charts += figure_html(*f);
    if (!charts.empty()) append(out, {"<div class=\"forest corr\">\n", charts, "</div>\n"});
  }
  out += "<dl class=\"meta\">\n";
  auto meta = [&](const std::string& k, const std::string& v) {
    append(out, {"<div><dt>", esc(k), "</dt><dd>", esc(v), "</dd></div>\n"});
  };
  meta("Version", "probity " + report.version);
  meta("Seed", std::to_string(report.seed));
  meta("Significance", fmt::format("{} = {:g}", sym.alpha(), report.alpha));
  meta("Confidence", fmt_percent(report.confidence));
  meta("Bootstrap", fmt::format("{} resamples", report.bootstrap));
  meta("Sample", report.sample == 0 ? std::string("all candidates")
                                    : fmt::format("{} per dataset", report.sample));
  meta("Run time", fmt::format("{:.1f} s", report.seconds));
  meta("Cache", fmt::format("{} hits / {} misses", report.cache_hits, report.cache_misses));
  out += "</dl>\n";

  Grid grids[2] = {build_grid(index, StrategyKind::kDegradation),
                   build_grid(index, StrategyKind::kManipulation)};
  auto correlations = correlation_tables(index, sym);
  auto rankings = ranking_tables(index, sym);
  auto sections = effect_sections(index);
  out += "<nav class=\"toc\">";
  if (!correlations.empty()) out += "<a href=\"#correlation\">Human correlation</a>";
  if (!rankings.empty()) out += "<a href=\"#ranking\">Significance clusters</a>";
  auto attacks = attack_tables(report.attacks, report.alpha, sym);
  Table attack = attacks.empty() ? Table{} : attacks.front();
  if (!attack.rows.empty()) out += "<a href=\"#attack\">Attack</a>";
  Table judge = judge_diagnostics_table(report, sym);
  if (!judge.rows.empty()) out += "<a href=\"#judge\">Judge diagnostics</a>";
  if (grid_has_tests(grids[0]) || grid_has_tests(grids[1]))
    out += "<a href=\"#grids\">Pass/fail grids</a>";
  if (!sections.empty()) out += "<a href=\"#effects\">Effect sizes</a>";
  if (!sections.empty()) out += "<a href=\"#accounting\">Item accounting</a>";
  if (!report.examples.empty()) out += "<a href=\"#examples\">Examples</a>";
  out += "<a href=\"#run\">Metrics &amp; strategies</a></nav>\n</header>\n";

  out +=
      "<section class=\"how\" id=\"how\">\n<details><summary>How to read this report"
      "</summary>\n";
  for (const auto& p : how_to_read(index, sym)) append(out, {"<p>", esc(p), "</p>\n"});
  out += "</details>\n</section>\n";

  if (!correlations.empty()) {
    out += "<section id=\"correlation\">\n<h2>Human correlation</h2>\n";
    for (auto& t : correlations) {
      append(out, {"<h3>", esc(t.title), "</h3>\n"});
      t.title.clear();
      out += html_table(t, "corr");
    }
    out += "</section>\n";
  }
  if (!judge.rows.empty()) {
    out += "<section id=\"judge\">\n<h2>Judge diagnostics</h2>\n";
    append(out, {"<h3>", esc(judge.title), "</h3>\n"});
    judge.title.clear();
    out += html_table(judge, "judge");
    out += "</section>\n";
  }
  if (!attack.rows.empty()) {
    out += "<section id=\"attack\">\n<h2>Attack</h2>\n";
    append(out, {"<h3>", esc(attack.title), "</h3>\n"});
    attack.title.clear();
    out += html_table(attack, "attack");
    if (std::any_of(report.attacks.begin(), report.attacks.end(),
                    [](const MetricAttack& a) { return !a.budget_curve.empty(); }))
      out += budget_plot(report.attacks);
    // The largest gains per metric, with what changed.
    out += "<div class=\"examples\">\n";
    for (const auto& a : report.attacks)
      for (const auto& e : a.examples)
        out += example_card(cat({"<b>", esc(a.metric), "</b> ",
                                 esc(fmt::format("{} ({:.4g} → {:.4g})",
                                                 fmt::join(e.program, " + "), e.before, e.after))}),
                            a.dataset, e.task_id, e.candidate_id, e.original, e.attacked,
                            "Attacked", sym);
    out += "</div>\n";
    // The replacement families, the universal suffixes and the defense matrix.
    for (std::size_t k = 1; k < attacks.size(); ++k) {
      append(out, {"<h3>", esc(attacks[k].title), "</h3>\n"});
      attacks[k].title.clear();
      out += html_table(attacks[k], "attack");
    }
    out += "</section>\n";
  }
  if (!rankings.empty()) {
    out += "<section id=\"ranking\">\n<h2>Significance clusters</h2>\n";
    for (auto& t : rankings) {
      append(out, {"<h3>", esc(t.title), "</h3>\n"});
      t.title.clear();
      out += html_table(t, "rank");
    }
    out += "</section>\n";
  }

  if (grid_has_tests(grids[0]) || grid_has_tests(grids[1])) {
    out += "<section id=\"grids\">\n<h2>Pass/fail grids</h2>\n";
    out +=
        "<div class=\"legend\"><span><i class=\"sw cell pass\"></i>passed every test</span>"
        "<span><i class=\"sw cell fail\"></i>failed strategies (letter codes)</span>"
        "<span><i class=\"sw cell warn\"></i>inconclusive, or fails only after Holm's "
        "adjustment</span>"
        "<span><i class=\"sw cell na\"></i>not testable (n/a)</span>"
        "<span><i class=\"sw cell holm\"></i>" +
        esc(std::string(sym.holm())) +
        " Holm's adjustment changes a verdict</span></div>\n<div class=\"grids\">\n";
    for (const Grid& g : grids) {
      if (!grid_has_tests(g)) continue;
      Table t = grid_table(g, index, sym);
      append(out,
             {"<div id=\"", std::string(kind_name(g.kind)), "\"><h3>", esc(t.title), "</h3>\n"});
      t.title.clear();
      out += html_table(t, "grid", 2) + "</div>\n";
    }
    out += "</div>\n";
    if (Table rep = replicability_table(report, sym); !rep.rows.empty()) {
      append(out, {"<h3>", esc(rep.title), "</h3>\n"});
      rep.title.clear();
      out += html_table(rep, "plain");
    }
    out += "</section>\n";
  }

  if (!sections.empty()) {
    out += "<section id=\"effects\">\n<h2>Effect sizes</h2>\n";
    out +=
        "<p class=\"note\">" +
        esc(fmt::format(
            "Forest plots: one panel per strategy, one row per metric. The dot is d, the "
            "solid bar its analytic {0} CI and the dashed line the paired bootstrap {0} CI; "
            "the dashed vertical line marks d = 0. Degradations should push d below 0; "
            "manipulations should leave it at 0 or below. Each panel has its own scale; d and its "
            "analytic CI are printed on the right, the full statistics are in the table below "
            "each set of panels (and on hover).",
            fmt_percent(report.confidence))) +
        "</p>\n";
    out +=
        "<div class=\"legend\"><span><i class=\"sw dot pass\"></i>pass</span>"
        "<span><i class=\"sw dot fail\"></i>fail</span>"
        "<span><i class=\"sw dot na\"></i>not testable</span>"
        "<span><i class=\"sw bar\"></i>analytic CI</span>"
        "<span><i class=\"sw boot\"></i>bootstrap CI</span>"
        "<span><i class=\"sw ring\"></i>Holm changes the verdict</span></div>\n";
    for (const auto& [dataset, kind] : sections) {
      append(out, {"<h3 id=\"", esc(anchor(std::string(kind_name(kind)) + "-", dataset)), "\">",
                   esc(fmt::format("{} {} {}", dataset, sym.dash(), kind_title(kind))), "</h3>\n"});
      out += forest_section(index, dataset, kind, sym);
      Table t = effect_table(index, dataset, kind, sym);
      t.title.clear();
      out += html_table(t, "fx");
    }
    out += "</section>\n";

    out += "<section id=\"accounting\">\n<h2>Item accounting</h2>\n";
    for (StrategyKind kind : kKinds) {
      Table acc = accounting_table(index, kind, sym);
      if (acc.rows.empty()) continue;
      append(out, {"<h3>", kind_title(kind), "</h3>\n"});
      acc.title.clear();
      out += html_table(acc, "plain");
    }
    out += "</section>\n";
  }

  if (!report.examples.empty()) {
    out +=
        "<section id=\"examples\">\n<h2>Perturbation examples</h2>\n<p class=\"note\">"
        "Word-level differences: <mark class=\"del\">removed</mark> from the original, "
        "<mark class=\"ins\">added</mark> in the perturbed text (not marked when the two texts "
        "have little in common). Texts are cut after about 400 characters.</p>\n"
        "<div class=\"examples\">\n";
    std::size_t shown = std::min(report.examples.size(), kExamplesShown);
    for (std::size_t i = 0; i < shown; ++i) {
      const auto& e = report.examples[i];
      std::string kind(kind_name(e.kind));
      out += example_card(cat({"<span class=\"badge ", kind, "\">", kind, "</span><b>", esc(e.code),
                               "</b> ", esc(index.strategy_name(e.kind, e.code))}),
                          e.dataset, e.task_id, e.candidate_id, e.original, e.perturbed,
                          "Perturbed", sym);
    }
    out += "</div>\n";
    if (shown < report.examples.size())
      out += "<p class=\"note\">" +
             esc(fmt::format("{} more examples in report.json.", report.examples.size() - shown)) +
             "</p>\n";
    out += "</section>\n";
  }

  out += "<section id=\"run\">\n<h2>Metrics, strategies and datasets</h2>\n";
  for (Table t : {signature_table(report), strategy_table(report), dataset_table(report),
                  llm_usage_table(report)}) {
    if (t.rows.empty()) continue;
    append(out, {"<h3>", esc(t.title), "</h3>\n"});
    t.title.clear();
    out += html_table(t, "plain");
  }
  if (skipped_count(report) > 0) {
    Table t = skipped_table(report, kSkippedShown);
    append(out, {"<h3>", esc(t.title), "</h3>\n"});
    t.title.clear();
    out += html_table(t, "plain");
  }
  Table tests = tests_table(index, sym);
  if (!tests.rows.empty()) {
    tests.title.clear();
    append(out, {"<details><summary>",
                 esc(fmt::format("All {} tests (statistics in full)", tests.rows.size())),
                 "</summary>\n", html_table(tests, "tests"), "</details>\n"});
  }
  out += "</section>\n";

  append(out,
         {"<footer>", esc(run_summary(report, sym)), "</footer>\n</main>\n</body>\n</html>\n"});
  return out;
}

}  // namespace probity::report
