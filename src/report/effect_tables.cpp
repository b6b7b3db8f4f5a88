// Effect sizes: one table per dataset and kind, d with its CI per metric and strategy, and a
// test's details (tooltips).
#include <fmt/format.h>

#include <cmath>

#include "report/format.hpp"

namespace probity::report::detail {

std::string na_text(const StrategyTest& t) {
  // "n/a (n=8)": too few applied items; "n/a (constant)": scores that do not vary;
  // "n/a (language)": the strategy has no rules for the data's language.
  switch (t.reason) {
    case NotTestable::kConstantScores:
      return "n/a (constant)";
    case NotTestable::kLanguage:
      return "n/a (language)";
    case NotTestable::kNone:
    case NotTestable::kTooFewApplied:
      break;
  }
  return fmt::format("n/a (n={})", t.applied);
}

std::string test_details(const TestIndex& index, const StrategyTest& t, const Symbols& sym) {
  const AuditReport& r = index.report();
  std::string conf = fmt_percent(r.confidence);
  std::string out = t.code + " " + index.strategy_name(t.kind, t.code) + ": ";
  Verdict raw = raw_verdict(&t), holm = holm_verdict(&t);
  if (raw == Verdict::kNotTestable) {
    out += fmt::format("not testable: {} ({} applied of {} considered)",
                       t.untestable.empty() ? "too few applied items" : t.untestable, t.applied,
                       t.considered);
    return out;
  }
  out += outcome_word(t, false);
  if (holm != raw || t.outcome != t.outcome_holm)
    append(out, {" (", outcome_word(t, true), " after Holm)"});
  out += fmt::format("\nd = {}, {} CI {} analytic, {} bootstrap", fmt_num(t.d, 3), conf,
                     fmt_ci(t.d_lo, t.d_hi, 3), fmt_ci(t.d_boot_lo, t.d_boot_hi, 3));
  out +=
      fmt::format("\nmean {} = {} (sd {}), t = {}, df = {}", sym.delta(), fmt_num(t.mean_delta, 4),
                  fmt_num(t.sd_delta, 4), fmt_num(t.t, 3), fmt_num(t.df, 1));
  out += fmt::format("\np = {}, Holm p = {}; {} applied of {} considered", fmt_p(t.p),
                     fmt_p(t.p_holm), t.applied, t.considered);
  out += fmt::format("\nequivalence (a {} of |d| >= {:g} ruled out): p = {}, Holm p = {}",
                     t.kind == StrategyKind::kDegradation ? "drop" : "rise", t.margin,
                     fmt_p(t.p_equiv), fmt_p(t.p_equiv_holm));
  out += fmt::format("\nminimum detectable |d| at 80% power: {}", fmt_num(t.mde, 3));
  return out;
}

std::vector<std::pair<std::string, StrategyKind>> effect_sections(const TestIndex& index) {
  std::vector<std::pair<std::string, StrategyKind>> out;
  for (StrategyKind kind : kKinds)
    for (const auto& ds : index.datasets())
      if (index.has_tests(ds, kind)) out.emplace_back(ds, kind);
  return out;
}

Table effect_table(const TestIndex& index, const std::string& dataset, StrategyKind kind,
                   const Symbols& sym) {
  const AuditReport& r = index.report();
  Table t;
  bool deg = kind == StrategyKind::kDegradation;
  t.title =
      fmt::format("Effect sizes d {} {} CI {} {}, {}", sym.plus_minus(), fmt_percent(r.confidence),
                  sym.dash(), dataset, deg ? "degradations" : "manipulations");
  auto strategies = index.strategies_on(dataset, kind);
  t.header.push_back("metric");
  t.align.push_back(Align::kLeft);
  for (const auto& s : strategies) {
    t.header.push_back(s.code);
    t.align.push_back(Align::kRight);
  }
  for (const auto& m : index.metrics()) {
    std::vector<Cell> line;
    line.push_back({m});
    bool any = false;
    for (const auto& s : strategies) {
      const StrategyTest* st = index.find(dataset, m, kind, s.code);
      if (!st) {
        line.push_back(missing_cell(sym));
        continue;
      }
      any = true;
      Cell c;
      Verdict v = raw_verdict(st);
      c.tone = tone_of(v);
      c.marked = holm_changes(st);
      c.text = v == Verdict::kNotTestable ? na_text(*st) : fmt_d_pm(st->d, st->d_lo, st->d_hi, sym);
      if (c.marked) c.text += sym.holm();
      c.title = test_details(index, *st, sym);
      line.push_back(std::move(c));
    }
    if (any) t.rows.push_back(std::move(line));
  }
  t.note = fmt::format(
      "d = standardised mean of the paired differences {} = perturbed - original, with the "
      "half-width of its analytic CI. {} n/a = not testable; {} = Holm's adjustment changes the "
      "verdict.",
      sym.delta(),
      deg ? "A metric that notices the degradation has d < 0."
          : "A metric fooled by the manipulation has d > 0.",
      sym.holm());
  return t;
}

}  // namespace probity::report::detail
