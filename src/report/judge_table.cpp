// The judge diagnostics: per judge metric and dataset, each value of the bias battery with its
// CI, and whether the CI excludes what an unbiased judge gives.
#include <fmt/format.h>

#include "report/format.hpp"

namespace probity::report::detail {

Table judge_diagnostics_table(const AuditReport& report, const Symbols& sym) {
  Table t;
  t.title = fmt::format("Judge diagnostics {} is the judge biased or inconsistent?", sym.dash());
  t.header = {"metric", "dataset", "mode", "diagnostic", "value", "CI", "n", "unbiased", ""};
  t.header[5] = fmt::format("{:g}% CI", 100 * report.confidence);
  t.align = {Align::kLeft,  Align::kLeft,  Align::kLeft,  Align::kLeft, Align::kRight,
             Align::kRight, Align::kRight, Align::kRight, Align::kLeft};
  for (const auto& d : report.judge_diagnostics) {
    for (const auto& v : d.values) {
      Cell value(fmt_num(v.value, 3));
      Cell ci(fmt_ci(v.low, v.high, 3));
      Cell verdict(v.finding ? "FINDING" : "");
      if (!v.untested.empty()) {
        // Nothing computed reads as no finding: the cause instead.
        value = Cell("n/a: " + v.untested);
        value.tone = Tone::kNa;
        ci = missing_cell(sym);
        verdict = Cell("untested");
        verdict.tone = Tone::kNa;
      } else if (v.finding) {
        verdict.tone = Tone::kFail;
      }
      t.rows.push_back({Cell(d.metric), Cell(d.dataset), Cell(std::string(judge_mode_name(d.mode))),
                        Cell(v.name), std::move(value), std::move(ci), Cell(std::to_string(v.n)),
                        v.unbiased ? Cell(fmt_num(*v.unbiased, 1)) : missing_cell(sym),
                        std::move(verdict)});
    }
  }
  t.note =
      "position: JudgeLM's consistency under swapped order and prefer-first/second shares (bias "
      "= prefer_first - prefer_second); length: AlpacaEval's prefer-longer and prefer-lists "
      "shares and each system's length-controlled win rate against the reference (lc_shift = LC "
      "- raw win rate) for pairwise judges, the partial correlation of the rating with length "
      "given the human rating for pointwise ones; self_consistency: repeated verdicts "
      "(samples=k). FINDING: the CI excludes the unbiased value.";
  return t;
}

}  // namespace probity::report::detail
