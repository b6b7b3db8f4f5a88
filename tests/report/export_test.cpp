// --export: standalone SVG figures that parse as XML and LaTeX booktabs tables.
#include <gtest/gtest.h>

#include <filesystem>
#include <string>
#include <vector>

#include "cli_runner.hpp"
#include "probity/report.hpp"
#include "report/figures.hpp"
#include "report/fixture.hpp"
#include "report/format.hpp"
#include "test_paths.hpp"

namespace {

using namespace probity::report;

// A small well-formedness check: one root element, every tag closed in order, attribute values
// quoted, only the five predefined entities or numeric references, no stray '<' or '&'.
bool well_formed_xml(const std::string& s, std::string& why) {
  std::vector<std::string> open;
  std::size_t i = 0, roots = 0;
  auto name_end = [&](std::size_t p) {
    while (p < s.size() && (std::isalnum(static_cast<unsigned char>(s[p])) || s[p] == '-' ||
                            s[p] == ':' || s[p] == '_' || s[p] == '.'))
      ++p;
    return p;
  };
  while (i < s.size()) {
    if (s[i] == '&') {
      const auto semi = s.find(';', i);
      const std::string ent = semi == std::string::npos ? "" : s.substr(i + 1, semi - i - 1);
      if (!(ent == "amp" || ent == "lt" || ent == "gt" || ent == "quot" || ent == "apos" ||
            (ent.size() > 1 && ent[0] == '#'))) {
        why = "bad entity at " + std::to_string(i);
        return false;
      }
      i = semi + 1;
      continue;
    }
    if (s[i] != '<') {
      if (open.empty() && !std::isspace(static_cast<unsigned char>(s[i]))) {
        why = "text outside the root at " + std::to_string(i);
        return false;
      }
      ++i;
      continue;
    }
    if (s.compare(i, 2, "<?") == 0) {
      i = s.find("?>", i) + 2;
      continue;
    }
    const bool closing = s.compare(i, 2, "</") == 0;
    const std::size_t start = i + (closing ? 2 : 1);
    const std::size_t end = name_end(start);
    const std::string name = s.substr(start, end - start);
    if (name.empty()) {
      why = "empty tag name at " + std::to_string(i);
      return false;
    }
    // Attributes: name="value" pairs up to '>' or '/>'.
    std::size_t p = end;
    bool self_closing = false;
    while (true) {
      while (p < s.size() && std::isspace(static_cast<unsigned char>(s[p]))) ++p;
      if (p >= s.size()) {
        why = "unterminated tag " + name;
        return false;
      }
      if (s[p] == '>') break;
      if (s.compare(p, 2, "/>") == 0) {
        self_closing = true;
        ++p;
        break;
      }
      const std::size_t a = name_end(p);
      if (a == p || a + 1 >= s.size() || s[a] != '=' || s[a + 1] != '"') {
        why = "bad attribute in " + name + " at " + std::to_string(p);
        return false;
      }
      const auto q = s.find('"', a + 2);
      const std::string value = s.substr(a + 2, q - a - 2);
      if (value.find('<') != std::string::npos) {
        why = "'<' in an attribute of " + name;
        return false;
      }
      p = q + 1;
    }
    i = p + 1;
    if (closing) {
      if (open.empty() || open.back() != name) {
        why = "</" + name + "> closes " + (open.empty() ? "nothing" : open.back());
        return false;
      }
      open.pop_back();
    } else if (!self_closing) {
      if (open.empty()) ++roots;
      open.push_back(name);
    } else if (open.empty()) {
      ++roots;
    }
  }
  if (!open.empty()) {
    why = "<" + open.back() + "> is never closed";
    return false;
  }
  if (roots != 1) {
    why = std::to_string(roots) + " root elements";
    return false;
  }
  return true;
}

// What can be checked without a TeX installation: the file names in its header every package
// whose commands it uses (a plain article has the rest), it uses no amssymb symbol, it is plain
// ASCII (no inputenc question), and every tabular sits in a \resizebox shrinking it to the column.
void expect_compiles_in_plain_article(const std::string& body, const std::string& f) {
  const std::string header(detail::latex_preamble_comment());
  ASSERT_TRUE(body.starts_with(header)) << f;
  const std::pair<const char*, const char*> kNeeds[] = {{"\\toprule", "booktabs"},
                                                        {"\\midrule", "booktabs"},
                                                        {"\\bottomrule", "booktabs"},
                                                        {"\\resizebox", "graphicx"}};
  for (const auto& [command, package] : kNeeds) {
    if (body.find(command) == std::string::npos) continue;
    EXPECT_NE(header.find(std::string("\\usepackage{") + package + "}"), std::string::npos)
        << f << " uses " << command;
  }
  for (const char* amssymb : {"\\checkmark", "\\square", "\\blacksquare", "\\lesssim"})
    EXPECT_EQ(body.find(amssymb), std::string::npos) << f << " uses " << amssymb;
  for (unsigned char c : body) ASSERT_LT(c, 0x80) << f << ": non-ASCII byte";
  std::size_t tabulars = 0;
  for (std::size_t at = body.find("\\begin{tabular}"); at != std::string::npos;
       at = body.find("\\begin{tabular}", at + 1)) {
    ++tabulars;
    const std::string box =
        "\\resizebox{\\ifdim\\width>\\columnwidth\\columnwidth\\else\\width\\fi}{!}{%\n";
    ASSERT_GE(at, box.size()) << f;
    EXPECT_EQ(body.substr(at - box.size(), box.size()), box) << f;
  }
  EXPECT_EQ(tabulars, 1u) << f;
  EXPECT_NE(body.find("\\end{tabular}}"), std::string::npos) << f;
}

TEST(ReportExport, WritesStandaloneSvgFiguresAndLatexTables) {
  const auto report = probity::test::make_sample_report();
  const std::string dir = probity::test::temp_dir("export");
  const auto files = write_exports(report, dir, true, true);
  std::size_t svgs = 0, texs = 0;
  for (const auto& f : files) {
    ASSERT_TRUE(std::filesystem::exists(f)) << f;
    const std::string body = probity::test::read_text(f);
    if (f.ends_with(".svg")) {
      ++svgs;
      std::string why;
      EXPECT_TRUE(well_formed_xml(body, why)) << f << ": " << why;
      EXPECT_NE(body.find("<svg xmlns=\"http://www.w3.org/2000/svg\""), std::string::npos) << f;
      EXPECT_NE(body.find("<style>"), std::string::npos) << f;
    } else {
      ASSERT_TRUE(f.ends_with(".tex")) << f;
      ++texs;
      EXPECT_NE(body.find("\\begin{tabular}"), std::string::npos) << f;
      EXPECT_NE(body.find("\\end{tabular}"), std::string::npos) << f;
      EXPECT_NE(body.find("\\toprule"), std::string::npos) << f;
      EXPECT_NE(body.find("\\bottomrule"), std::string::npos) << f;
      expect_compiles_in_plain_article(body, f);
    }
  }
  // 2 correlation charts + 2 datasets × 12 strategies' forest plots.
  EXPECT_EQ(svgs, 26u);
  // scorecard, 3 correlation tables, 2 grids, 4 effect tables, 2 accounting tables.
  EXPECT_EQ(texs, 12u);
  // The odd metric name (a<b&"c") is escaped, so its & does not split a column.
  EXPECT_NE(probity::test::read_text(dir + "/table-scorecard.tex").find("a\\textless{}b\\&\"c\""),
            std::string::npos);
  EXPECT_TRUE(std::filesystem::exists(dir + "/fig-correlation-summeval.svg"));
  EXPECT_TRUE(std::filesystem::exists(dir + "/fig-forest-summeval-degradation-S.svg"));
  // Only what was asked for.
  const std::string only_svg = probity::test::temp_dir("export-svg");
  for (const auto& f : write_exports(report, only_svg, false, true))
    EXPECT_TRUE(f.ends_with(".svg"));
}

TEST(ReportExport, LatexEscapesSpecialCharacters) {
  EXPECT_EQ(detail::latex_escape("a<b&\"c\" 50% $x_1$ #{}"),
            "a\\textless{}b\\&\"c\" 50\\% \\$x\\_1\\$ \\#\\{\\}");
  EXPECT_EQ(detail::latex_escape("\u03c1 0.41\u00b10.02 \u2713"),
            "$\\rho$ 0.41$\\pm$0.02 $\\surd$");
}

TEST(ReportFigures, LongLabelsWrapWithoutLosingText) {
  const auto lines = detail::wrap_label("bertscore-deberta-xlarge-mnli:layer-40|idf", 22);
  std::string joined;
  for (const auto& l : lines) {
    EXPECT_LE(l.size(), 22u) << l;
    joined += l;
  }
  EXPECT_EQ(joined, "bertscore-deberta-xlarge-mnli:layer-40|idf");
  EXPECT_GE(lines.size(), 2u);
  EXPECT_EQ(detail::wrap_label("bleu", 22), std::vector<std::string>{"bleu"});
}

TEST(ReportFigures, EachForestPanelHasItsOwnScale) {
  // A manipulation that inflates strongly next to ones that barely move: the small panel's axis
  // is not stretched to the large one's range.
  auto report = probity::test::make_sample_report();
  for (auto& t : report.tests)
    if (t.dataset == "summeval" && t.kind == probity::StrategyKind::kManipulation &&
        t.code == "M") {
      t.d = 7.5;
      t.d_lo = 7.3;
      t.d_hi = 7.7;
      t.d_boot_lo = 7.2;
      t.d_boot_hi = 7.8;
    }
  const detail::TestIndex index(report);
  const auto figures =
      detail::forest_figures(index, "summeval", probity::StrategyKind::kManipulation, {});
  ASSERT_EQ(figures.size(), 6u);
  EXPECT_NE(figures[1].svg.find(">7.50 [7.30, 7.70]<"), std::string::npos);  // values printed
  // The rephrase panel (R) ends its axis well below 1; the elongation panel (M) reaches 8.
  EXPECT_EQ(figures[0].svg.find(">6<"), std::string::npos);
  EXPECT_NE(figures[1].svg.find(">6<"), std::string::npos);
}

}  // namespace
