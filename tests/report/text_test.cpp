#include <gtest/gtest.h>

#include <algorithm>
#include <sstream>

#include "probity/report.hpp"
#include "report/fixture.hpp"
#include "report/format.hpp"

namespace {

using probity::report::to_text;
using probity::report::detail::display_width;

std::vector<std::string> lines_of(const std::string& text) {
  std::vector<std::string> out;
  std::istringstream in(text);
  for (std::string line; std::getline(in, line);) out.push_back(line);
  return out;
}

std::string trim(const std::string& s) {
  auto b = s.find_first_not_of(' ');
  if (b == std::string::npos) return "";
  return s.substr(b, s.find_last_not_of(' ') - b + 1);
}

// The rows (cells, trimmed) of the first table under the line starting with `title`.
std::vector<std::vector<std::string>> rows(const std::string& text, const std::string& title,
                                           const std::string& bar = "\u2502") {
  std::vector<std::vector<std::string>> out;
  bool in_table = false, started = false;
  for (const auto& line : lines_of(text)) {
    if (!in_table) {
      in_table = line.rfind(title, 0) == 0;
      continue;
    }
    bool border = line.rfind(bar, 0) == 0 || line.rfind("+", 0) == 0 ||
                  line.rfind("\u250c", 0) == 0 || line.rfind("\u251c", 0) == 0 ||
                  line.rfind("\u2514", 0) == 0;
    if (!border) {
      if (started) break;
      continue;
    }
    started = true;
    if (line.rfind(bar, 0) != 0) continue;
    std::vector<std::string> cells;
    std::size_t pos = bar.size();
    while (pos < line.size()) {
      std::size_t next = line.find(bar, pos);
      if (next == std::string::npos) break;
      cells.push_back(trim(line.substr(pos, next - pos)));
      pos = next + bar.size();
    }
    out.push_back(std::move(cells));
  }
  return out;
}

// The cells of the row whose first cell is `first`.
std::vector<std::string> row(const std::string& text, const std::string& title,
                             const std::string& first, const std::string& bar = "\u2502") {
  for (auto& r : rows(text, title, bar))
    if (!r.empty() && r[0] == first) return r;
  return {};
}

TEST(ReportText, DegradationGridShowsPassesFailuresAndTotals) {
  std::string text = to_text(probity::test::make_sample_report());
  using V = std::vector<std::string>;
  EXPECT_EQ(row(text, "Degradation tests", "bleu"), (V{"bleu", "R,S,U", "\u2713", "3", "3", "0"}));
  EXPECT_EQ(row(text, "Degradation tests", "rouge-L"),
            (V{"rouge-L", "\u2713", "?:U\u2020", "0", "0", "1"}));
  EXPECT_EQ(row(text, "Degradation tests", probity::test::kOddMetric),
            (V{probity::test::kOddMetric, "D n/a:O", "\u2713", "1", "1", "0"}));
  auto header = row(text, "Degradation tests", "metric");
  EXPECT_EQ(header, (V{"metric", "summeval", "topical_chat", "fails", "Holm", "inconclusive"}));
}

TEST(ReportText, ManipulationGridMarksHolmAndUntestable) {
  std::string text = to_text(probity::test::make_sample_report());
  using V = std::vector<std::string>;
  EXPECT_EQ(row(text, "Manipulation tests", "bleu"),
            (V{"bleu", "M,N\u2020", "\u2713", "2", "1", "1"}));
  EXPECT_EQ(row(text, "Manipulation tests", "rouge-L"),
            (V{"rouge-L", "\u2713", "P", "1", "1", "0"}));
  // Every strategy untestable: n/a, never a pass.
  EXPECT_EQ(row(text, "Manipulation tests", probity::test::kOddMetric),
            (V{probity::test::kOddMetric, "\u2713", "n/a", "0", "0", "0"}));
}

TEST(ReportText, AsciiModeUsesPlainGlyphs) {
  std::string text = to_text(probity::test::make_sample_report(), false);
  for (unsigned char c : text) ASSERT_LT(c, 0x80) << "non-ASCII byte in ASCII rendering";
  using V = std::vector<std::string>;
  EXPECT_EQ(row(text, "Degradation tests", "rouge-L", "|"),
            (V{"rouge-L", "ok", "?:U*", "0", "0", "1"}));
  EXPECT_NE(text.find("-0.84+/-0.12"), std::string::npos);
}

TEST(ReportText, EffectTablesShowDWithCiHalfWidth) {
  std::string text = to_text(probity::test::make_sample_report());
  auto cells = row(text, "Effect sizes d \u00b1 95% CI \u2014 topical_chat, degradations", "bleu");
  ASSERT_EQ(cells.size(), 7u);
  EXPECT_EQ(cells[1], "-0.84\u00b10.12");
  auto odd = row(text, "Effect sizes d \u00b1 95% CI \u2014 summeval, degradations",
                 probity::test::kOddMetric);
  ASSERT_EQ(odd.size(), 7u);
  EXPECT_EQ(odd[6], "n/a (n=1)");  // O is not testable: one applied item
  auto flip =
      row(text, "Effect sizes d \u00b1 95% CI \u2014 topical_chat, degradations", "rouge-L");
  ASSERT_EQ(flip.size(), 7u);
  EXPECT_EQ(flip[5], "-0.31\u00b10.12\u2020");
}

TEST(ReportText, CorrelationAndAccountingTablesArePresent) {
  std::string text = to_text(probity::test::make_sample_report());
  auto cells = row(text, "Human correlation \u2014 summeval", "bleu");
  ASSERT_EQ(cells.size(), 6u);  // metric, 4 dimensions, mean
  EXPECT_EQ(cells[1], "0.12 [0.06,0.17]");
  auto table = rows(text, "Item accounting \u2014 degradations");
  ASSERT_EQ(table.size(), 13u);  // header + 2 datasets x 6 strategies
  EXPECT_EQ(table[0],
            (std::vector<std::string>{"dataset", "code", "considered", "applied", "not appl.",
                                      "unchanged", "failed", "undefined", "testable"}));
  // S: undefined scores differ by metric (shown as a range); O: one metric cannot be tested.
  EXPECT_EQ(table[2], (std::vector<std::string>{"summeval", "S", "50", "48\u201350", "0", "0", "0",
                                                "0\u20132", "3/3"}));
  EXPECT_EQ(table[6][1], "O");
  EXPECT_EQ(table[6][8], "2/3");
  EXPECT_EQ(rows(text, "Item accounting \u2014 manipulations").size(), 13u);
}

// Every box-drawn table (a run of lines starting with a border glyph) has rows of one width.
void expect_aligned(const std::string& text, const std::vector<std::string>& borders) {
  auto lines = lines_of(text);
  auto is_border = [&](const std::string& line) {
    for (const auto& b : borders)
      if (line.rfind(b, 0) == 0) return true;
    return false;
  };
  std::size_t tables = 0;
  for (std::size_t i = 0; i < lines.size(); ++i) {
    if (!is_border(lines[i])) continue;
    ++tables;
    std::size_t width = display_width(lines[i]), j = i;
    for (; j < lines.size() && is_border(lines[j]); ++j)
      EXPECT_EQ(display_width(lines[j]), width) << "table at line " << i << ": " << lines[j];
    i = j;
  }
  // scorecard, summary + 2 correlation, 2 grids, 4 effect-size, 2 accounting
  EXPECT_EQ(tables, 12u);
}

TEST(ReportText, TablesAlignByDisplayWidth) {
  auto r = probity::test::make_sample_report();
  r.metrics[1] = "rouge-\u00e9\u6f22";  // accented and wide characters in a row label
  for (auto& t : r.tests)
    if (t.metric == "rouge-L") t.metric = r.metrics[1];
  for (auto& c : r.correlations)
    if (c.metric == "rouge-L") c.metric = r.metrics[1];
  expect_aligned(to_text(r), {"\u250c", "\u2502", "\u251c", "\u2514"});
  expect_aligned(to_text(r, false), {"+", "|"});
}

TEST(ReportFormat, DisplayWidthCountsColumnsNotBytes) {
  EXPECT_EQ(display_width("abc"), 3u);
  EXPECT_EQ(display_width("\u2713"), 1u);
  EXPECT_EQ(display_width("\u00b1\u03c1"), 2u);
  EXPECT_EQ(display_width("\u6f22\u5b57"), 4u);  // East Asian wide
  EXPECT_EQ(display_width("e\u0301"), 1u);       // combining accent
  EXPECT_EQ(display_width("\xff"), 1u);          // invalid byte
}

TEST(ReportFormat, TruncatesAtCodePoints) {
  probity::report::detail::Symbols sym{true};
  using probity::report::detail::truncate_text;
  EXPECT_EQ(truncate_text("\u03b1\u03b2\u03b3\u03b4", 2, sym), "\u03b1\u03b2\u2026");
  EXPECT_EQ(truncate_text("short", 10, sym), "short");
  EXPECT_EQ(truncate_text("ab cd", 3, sym), "ab\u2026");
}

TEST(ReportFormat, NumbersAndCounts) {
  using namespace probity::report::detail;
  Symbols sym{true};
  EXPECT_EQ(fmt_d_pm(-0.84, -0.96, -0.72, sym), "-0.84\u00b10.12");
  EXPECT_EQ(fmt_d_pm(0.5, std::nan(""), 1.0, sym), "0.50");
  EXPECT_EQ(fmt_num(std::nan(""), 2), "NaN");
  EXPECT_EQ(fmt_num(-0.001, 2), "0.00");
  EXPECT_EQ(fmt_num(-0.01, 2), "-0.01");
  EXPECT_EQ(fmt_p(0.0002), "<0.001");
  EXPECT_EQ(fmt_p(0.0412), "0.041");
  EXPECT_EQ(fmt_percent(0.95), "95%");
  EXPECT_EQ(fmt_percent(0.999), "99.9%");
}

}  // namespace

namespace {

using probity::report::TextOptions;
using probity::report::detail::wrap_cell;

TEST(ReportFormat, WrapCellBreaksAtSpacesAndCutsLongWords) {
  using V = std::vector<std::string>;
  EXPECT_EQ(wrap_cell("a bb ccc dddd", 6), (V{"a bb", "ccc", "dddd"}));
  EXPECT_EQ(wrap_cell("", 4), (V{""}));
  EXPECT_EQ(wrap_cell("scores:mine.jsonl", 8), (V{"scores:", "mine.jso", "nl"}));
  EXPECT_EQ(wrap_cell("0.20 [0.08,0.31]", 8), (V{"0.20", "[0.08,", "0.31]"}));  // after ','
  EXPECT_EQ(wrap_cell("abcdefghij", 4), (V{"abcd", "efgh", "ij"}));
  EXPECT_EQ(wrap_cell("\u03c1\u03c1\u03c1 \u6f22\u5b57\u6f22", 3),
            (V{"\u03c1\u03c1\u03c1", "\u6f22", "\u5b57", "\u6f22"}));  // columns, not bytes
}

// The display width of a box-drawn table line whose cells are all at the narrowest (4 columns
// plus a space each side), from the borders it has; 0 for a line outside a table.
std::size_t narrowest_box_line(const std::string& line) {
  std::size_t borders = 0;
  for (const char* b : {"\u2502", "\u250c", "\u2510", "\u252c", "\u251c", "\u2524", "\u253c",
                        "\u2514", "\u2518", "\u2534"})
    for (std::size_t at = line.find(b); at != std::string::npos; at = line.find(b, at + 1))
      ++borders;
  return borders < 2 ? 0 : 7 * (borders - 1) + 1;
}

TEST(ReportText, NarrowWidthWrapsEveryTableIntoIt) {
  const auto report = probity::test::make_sample_report();
  const std::string full = to_text(report);
  std::size_t widest = 0;
  for (const auto& line : lines_of(full)) widest = std::max(widest, display_width(line));
  ASSERT_GT(widest, 60u);
  for (const std::size_t width : {60u, 45u}) {
    const std::string narrow = to_text(report, TextOptions{true, width, false});
    // A table narrows down to 4-column cells; one with too many columns for that stays wider.
    for (const auto& line : lines_of(narrow))
      EXPECT_LE(display_width(line), std::max<std::size_t>(width, narrowest_box_line(line)))
          << line;
    // Every word of the full rendering is still there (cells wrap rather than lose text).
    for (const char* word : {"bleu", "rouge-L", "summeval", "topical_chat", "Holm"})
      EXPECT_NE(narrow.find(word), std::string::npos) << word;
  }
  // Wide enough: exactly the unlimited rendering.
  EXPECT_EQ(to_text(report, TextOptions{true, 1000, false}), full);
}

TEST(ReportText, FitsEightyColumnsAndEndsWithTheScorecard) {
  const auto report = probity::test::make_sample_report();
  for (const bool unicode : {true, false}) {
    const std::string text = to_text(report, TextOptions{unicode, 80, false});
    const auto lines = lines_of(text);
    for (const auto& line : lines) {
      EXPECT_LE(display_width(line), 80u) << line;
      // An interval is never split across lines: each '[' closes on its own line.
      EXPECT_EQ(std::count(line.begin(), line.end(), '['),
                std::count(line.begin(), line.end(), ']'))
          << line;
    }
    // The last block (after the last blank line) is the scorecard.
    std::size_t last_blank = 0;
    for (std::size_t i = 0; i < lines.size(); ++i)
      if (lines[i].empty()) last_blank = i;
    ASSERT_LT(last_blank + 1, lines.size());
    EXPECT_TRUE(lines[last_blank + 1].starts_with("Scorecard")) << lines[last_blank + 1];
    // Header words stay whole.
    for (const char* word : {"degradations", "manipulations", "resisted", "verdict", "considered",
                             "unchanged", "undefined", "testable"})
      EXPECT_NE(text.find(word), std::string::npos) << word;
  }
}

TEST(ReportText, ColourMarksVerdictsOnlyWhenAsked) {
  const auto report = probity::test::make_sample_report();
  EXPECT_EQ(to_text(report).find('\033'), std::string::npos);
  const std::string coloured = to_text(report, TextOptions{true, 0, true});
  EXPECT_NE(coloured.find("\033[32m"), std::string::npos);  // a pass
  EXPECT_NE(coloured.find("\033[31m"), std::string::npos);  // a failure
  std::string stripped;
  for (std::size_t i = 0; i < coloured.size(); ++i) {
    if (coloured[i] == '\033') {
      i = coloured.find('m', i);
      continue;
    }
    stripped += coloured[i];
  }
  EXPECT_EQ(stripped, to_text(report));  // colour adds nothing but the escapes
}

}  // namespace
