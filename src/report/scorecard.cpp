// The scorecard: per metric (and dataset), human correlation, degradations passed,
// manipulations resisted and a one-line verdict.
#include <fmt/format.h>

#include <map>

#include "report/format.hpp"

namespace probity::report::detail {

std::vector<ScoreLine> scorecard(const TestIndex& index) {
  const AuditReport& r = index.report();
  std::vector<ScoreLine> lines;
  for (const auto& ds : index.datasets())
    for (const auto& m : index.metrics()) {
      ScoreLine line;
      line.dataset = ds;
      line.metric = m;
      for (const auto& c : r.correlations) {
        if (c.dataset != ds || c.metric != m || c.baseline) continue;
        for (const auto& row : c.rows)
          if (row.dimension == "mean" || !line.correlation) line.correlation = &row;
      }
      bool any = line.correlation != nullptr;
      for (int k = 0; k < 2; ++k) {
        KindTally& tally = line.kinds[k];
        for (const auto& s : index.strategies(kKinds[k])) {
          const StrategyTest* t = index.find(ds, m, kKinds[k], s.code);
          if (!t) continue;
          any = true;
          if (!t->testable) {
            ++tally.untestable;
            ++tally.untestable_causes[t->untestable.empty() ? "no cause recorded" : t->untestable];
            continue;
          }
          ++tally.tested;
          if (t->passed)
            ++tally.passed;
          else
            tally.failed.push_back(s);
          if (holm_changes(t)) tally.holm.push_back(s.code);
        }
      }
      if (!any) continue;
      auto names = [](const std::vector<StrategyRef>& refs) {
        std::vector<std::string> parts;
        for (const auto& s : refs) parts.push_back(cat({s.name, " (", s.code, ")"}));
        return join(parts, ", ");
      };
      const KindTally &deg = line.kinds[0], &man = line.kinds[1];
      std::vector<std::string> parts;
      if (!man.failed.empty()) parts.push_back("gameable: " + names(man.failed));
      if (!deg.failed.empty()) parts.push_back("misses: " + names(deg.failed));
      const std::size_t tested = deg.tested + man.tested;
      const std::size_t na = deg.untestable + man.untestable;
      // A failed test is evidence however few ran; robustness is not: it needs most of the
      // suite to have run (1 passed of 12 is no verdict).
      std::map<std::string, std::size_t> causes = deg.untestable_causes;
      for (const auto& [cause, n] : man.untestable_causes) causes[cause] += n;
      std::vector<std::string> why;
      for (const auto& [cause, n] : causes) why.push_back(fmt::format("{} × {}", n, cause));
      if (parts.empty() && tested + na == 0) {
        parts.push_back("not tested");
      } else if (parts.empty() && na > tested) {
        parts.push_back(fmt::format("no verdict: {} of {} tests could run ({} not testable: {})",
                                    tested, tested + na, na, join(why, "; ")));
      } else {
        if (parts.empty()) parts.push_back(fmt::format("robust: passed all {} tested", tested));
        if (na > 0) parts.push_back(fmt::format("{} not testable", na));
      }
      line.verdict = join(parts, "; ");
      lines.push_back(std::move(line));
    }
  return lines;
}

Table scorecard_table(const TestIndex& index, const Symbols& sym) {
  const AuditReport& r = index.report();
  const bool several = index.datasets().size() > 1;
  Table t;
  t.title = fmt::format(
      "Scorecard {} human correlation, degradations passed, manipulations resisted", sym.dash());
  if (several) {
    t.header.push_back("dataset");
    t.align.push_back(Align::kLeft);
  }
  t.header.push_back("metric");
  t.header.push_back(fmt::format("human {} [{} CI]", sym.rho(), fmt_percent(r.confidence)));
  t.header.push_back("degradations passed");
  t.header.push_back("manipulations resisted");
  t.header.push_back("verdict");
  for (Align a : {Align::kLeft, Align::kRight, Align::kCenter, Align::kCenter, Align::kLeft})
    t.align.push_back(a);
  for (const auto& line : scorecard(index)) {
    std::vector<Cell> row;
    if (several) row.push_back({line.dataset});
    row.push_back({line.metric});
    Cell rho;
    if (line.correlation) {
      const CorrelationResult& c = *line.correlation;
      rho.text = cat({fmt_num(c.spearman, 2), " ", fmt_ci(c.spearman_lo, c.spearman_hi, 2)});
      rho.heat = c.spearman;
      rho.title =
          fmt::format("Spearman over {} items ({}), p = {}", c.n, c.dimension, fmt_p(c.spearman_p));
    } else {
      rho = missing_cell(sym);
    }
    row.push_back(std::move(rho));
    for (int k = 0; k < 2; ++k) {
      const KindTally& tally = line.kinds[k];
      Cell c;
      if (tally.tested == 0) {
        c = tally.untestable > 0 ? Cell{"n/a"} : missing_cell(sym);
        if (tally.untestable > 0) c.tone = Tone::kNa;
      } else {
        c.text = fmt::format("{}/{}", tally.passed, tally.tested);
        c.tone = tally.failed.empty() ? Tone::kPass : Tone::kFail;
        if (!tally.holm.empty()) {
          c.marked = true;
          c.title =
              fmt::format("Holm's adjustment changes the verdict of {}", join(tally.holm, ","));
        }
      }
      row.push_back(std::move(c));
    }
    Cell verdict{line.verdict};
    const bool failed = !line.kinds[0].failed.empty() || !line.kinds[1].failed.empty();
    verdict.tone = failed                                            ? Tone::kFail
                   : line.kinds[0].tested + line.kinds[1].tested > 0 ? Tone::kPass
                                                                     : Tone::kNa;
    row.push_back(std::move(verdict));
    t.rows.push_back(std::move(row));
  }
  t.note = fmt::format(
      "{} is Spearman's {} with the human ratings (the mean over dimensions when there are "
      "several). A degradation passes when the metric's score drops significantly (one-sided "
      "paired t-test, p < {:g}); a manipulation is resisted unless the score rises significantly. "
      "Counts are of testable strategies, before Holm's adjustment (see the grids).",
      sym.rho(), sym.rho(), r.alpha);
  return t;
}

}  // namespace probity::report::detail
