// The scorecard: per metric (and dataset), one verdict from all the evidence of the report (the
// human correlation against the baselines, the three-way tests after Holm, the attack, what
// could not be tested) with the counts every other rendering shows.
#include <fmt/format.h>

#include <cmath>
#include <map>

#include "report/format.hpp"

namespace probity::report::detail {

namespace {

const CorrelationResult* headline_row(const MetricCorrelations& c) {
  const CorrelationResult* row = nullptr;
  for (const auto& r : c.rows)
    if (r.dimension == "mean" || !row) row = &r;
  return row;
}

// The metric's ρ is no evidence of signal beyond a baseline when it does not clear the
// baseline's CI: at or below its upper bound.
bool not_above(const CorrelationResult& metric, const CorrelationResult& baseline) {
  return std::isfinite(metric.spearman) && std::isfinite(baseline.spearman_hi) &&
         metric.spearman <= baseline.spearman_hi;
}

void judge_signal(const AuditReport& r, ScoreLine& line) {
  if (!line.correlation || !std::isfinite(line.correlation->spearman)) return;
  const CorrelationResult *length = nullptr, *random = nullptr;
  for (const auto& c : r.correlations) {
    if (c.dataset != line.dataset || !c.baseline) continue;
    if (c.metric == "baseline:length") length = headline_row(c);
    if (c.metric == "baseline:random") random = headline_row(c);
  }
  if (random && not_above(*line.correlation, *random)) {
    line.signal = SignalProblem::kNoSignal;
    line.baseline = random;
  } else if (!random && std::isfinite(line.correlation->spearman_lo) &&
             line.correlation->spearman_lo <= 0.0) {
    line.signal = SignalProblem::kNoSignal;  // no random baseline: its CI reaches zero
  } else if (length && not_above(*line.correlation, *length)) {
    line.signal = SignalProblem::kNoBetterThanLength;
    line.baseline = length;
  }
}

void tally_tests(const TestIndex& index, ScoreLine& line) {
  for (int k = 0; k < 2; ++k) {
    KindTally& tally = line.kinds[k];
    for (const auto& s : index.strategies(kKinds[k])) {
      const StrategyTest* t = index.find(line.dataset, line.metric, kKinds[k], s.code);
      if (!t) continue;
      const Verdict v = holm_verdict(t);
      if (v == Verdict::kNotTestable) {
        ++tally.untestable;
        ++tally.untestable_causes[t->untestable.empty() ? "no cause recorded" : t->untestable];
        continue;
      }
      ++tally.tested;
      if (v == Verdict::kPass)
        ++tally.passed;
      else if (v == Verdict::kFail)
        tally.failed.push_back(s);
      else
        tally.inconclusive.push_back(s);
      if (holm_changes(t)) tally.holm.push_back(s.code);
    }
  }
}

// Held-out findings only: what the search found on one half and the other half confirmed.
void tally_attack(const AuditReport& r, ScoreLine& line) {
  for (const auto& a : r.attacks) {
    if (a.dataset != line.dataset || a.metric != line.metric) continue;
    line.attacked = true;
    // The per-item search: its best edits against the originals. The best of many edits per
    // item is chosen on the same item, so a deterministic metric that any edit moves shows up
    // here; the rate and d say how far the search got.
    if (a.testable && a.best_edits.testable && a.best_edits.outcome_holm == Outcome::kFooled)
      line.attack_findings.push_back(fmt::format("per-item search raised {} of items (d = {})",
                                                 fmt_percent(a.success_rate),
                                                 fmt_num(a.best_edits.d, 2)));
    std::size_t programs = 0;
    for (const auto& u : a.universal) programs += u.held_out.testable && !u.held_out.passed_holm;
    if (programs > 0)
      line.attack_findings.push_back(
          fmt::format("{}/{} universal edit programs", programs, a.universal.size()));
    for (const auto& x : a.replacements)
      if (x.vulnerable) line.attack_findings.emplace_back(replacement_family_name(x.family));
    for (const auto& u : a.suffixes)
      if (u.held_out.testable && !u.held_out.passed_holm)
        line.attack_findings.emplace_back(suffix_search_name(u.search));
  }
}

std::string named(const std::vector<StrategyRef>& refs) {
  std::vector<std::string> parts;
  for (const auto& s : refs) parts.push_back(cat({s.name, " (", s.code, ")"}));
  return join(parts, ", ");
}

// The one-line verdict; sets line.robust when it is "robust".
std::string verdict_of(ScoreLine& line, double margin) {
  const KindTally &deg = line.kinds[0], &man = line.kinds[1];
  std::vector<std::string> parts;
  // Findings first: any of them makes the metric unsafe to optimise against.
  std::vector<std::string> gamed;
  if (!man.failed.empty()) gamed.push_back(named(man.failed));
  if (!line.attack_findings.empty()) gamed.push_back("attack: " + join(line.attack_findings, ", "));
  if (!gamed.empty()) parts.push_back("gameable: " + join(gamed, "; "));
  if (!deg.failed.empty()) parts.push_back("misses: " + named(deg.failed));
  if (line.signal == SignalProblem::kNoSignal)
    parts.push_back(line.baseline
                        ? fmt::format("no signal shown: human correlation {} within the "
                                      "random baseline's CI (up to {})",
                                      fmt_num(line.correlation->spearman, 2),
                                      fmt_num(line.baseline->spearman_hi, 2))
                        : fmt::format("no signal shown: human correlation {} with a CI reaching 0",
                                      fmt_num(line.correlation->spearman, 2)));
  if (line.signal == SignalProblem::kNoBetterThanLength)
    parts.push_back(fmt::format(
        "not shown better than length: human correlation {} within the length "
        "baseline's CI (up to {})",
        fmt_num(line.correlation->spearman, 2), fmt_num(line.baseline->spearman_hi, 2)));
  std::vector<StrategyRef> unsure = deg.inconclusive;
  unsure.insert(unsure.end(), man.inconclusive.begin(), man.inconclusive.end());
  if (!unsure.empty())
    parts.push_back(fmt::format("inconclusive at margin {:g}: {}", margin, named(unsure)));
  const std::size_t tested = deg.tested + man.tested;
  const std::size_t na = deg.untestable + man.untestable;
  std::map<std::string, std::size_t> causes = deg.untestable_causes;
  for (const auto& [cause, n] : man.untestable_causes) causes[cause] += n;
  std::vector<std::string> why;
  for (const auto& [cause, n] : causes) why.push_back(fmt::format("{} with {}", n, cause));
  if (parts.empty() && tested + na == 0 && !line.attacked) return "not tested";
  if (parts.empty() && na > tested)
    return fmt::format("no verdict: {} of {} tests could run ({} not testable: {})", tested,
                       tested + na, na, join(why, "; "));
  if (parts.empty() && tested > 0) {
    line.robust = true;
    parts.push_back(
        fmt::format("robust: {} of {} tests passed at margin {:g}", tested, tested, margin));
  } else if (parts.empty()) {
    parts.push_back("no finding (no degradation or manipulation test ran)");
  }
  if (na > 0) parts.push_back(fmt::format("{} not testable ({})", na, join(why, "; ")));
  return join(parts, "; ");
}

}  // namespace

std::vector<ScoreLine> scorecard(const TestIndex& index) {
  const AuditReport& r = index.report();
  std::vector<ScoreLine> lines;
  for (const auto& ds : index.datasets())
    for (const auto& m : index.metrics()) {
      ScoreLine line;
      line.dataset = ds;
      line.metric = m;
      for (const auto& c : r.correlations)
        if (c.dataset == ds && c.metric == m && !c.baseline) line.correlation = headline_row(c);
      tally_tests(index, line);
      tally_attack(r, line);
      const KindTally &deg = line.kinds[0], &man = line.kinds[1];
      const bool any = line.correlation || line.attacked || deg.tested + deg.untestable > 0 ||
                       man.tested + man.untestable > 0;
      if (!any) continue;
      judge_signal(r, line);
      line.verdict = verdict_of(line, r.margin);
      lines.push_back(std::move(line));
    }
  return lines;
}

Table scorecard_table(const TestIndex& index, const Symbols& sym) {
  const AuditReport& r = index.report();
  const bool several = index.datasets().size() > 1;
  Table t;
  t.title = fmt::format(
      "Scorecard {} human correlation, degradations detected, manipulations resisted", sym.dash());
  if (several) {
    t.header.push_back("dataset");
    t.align.push_back(Align::kLeft);
  }
  t.header.push_back("metric");
  t.header.push_back(fmt::format("human {} [{} CI]", sym.rho(), fmt_percent(r.confidence)));
  t.header.push_back("degradations detected");
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
      if (line.signal != SignalProblem::kNone) rho.tone = Tone::kWarn;
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
        if (!tally.inconclusive.empty())
          c.text += fmt::format(" ({} ?)", tally.inconclusive.size());
        c.tone = !tally.failed.empty()         ? Tone::kFail
                 : !tally.inconclusive.empty() ? Tone::kWarn
                                               : Tone::kPass;
        if (!tally.holm.empty()) {
          c.marked = true;
          c.title =
              fmt::format("Holm's adjustment changes the outcome of {}", join(tally.holm, ","));
        }
      }
      row.push_back(std::move(c));
    }
    Cell verdict{line.verdict};
    const bool failed = !line.kinds[0].failed.empty() || !line.kinds[1].failed.empty() ||
                        !line.attack_findings.empty() || line.signal != SignalProblem::kNone;
    verdict.tone = failed ? Tone::kFail : line.robust ? Tone::kPass : Tone::kNa;
    row.push_back(std::move(verdict));
    t.rows.push_back(std::move(row));
  }
  t.note = fmt::format(
      "{} is Spearman's {} with the human ratings (the mean over dimensions when there are "
      "several), checked against the length and random baselines. A degradation is detected when "
      "the score drops significantly (one-sided paired t-test, p < {:g}) and missed when a drop "
      "of |d| >= {:g} is ruled out (equivalence test); a manipulation is resisted only when a "
      "rise of d >= {:g} is ruled out and fools the metric when the score rises significantly. "
      "(k ?) = k tests inconclusive: they showed neither, which is no evidence of robustness. "
      "Counts are after Holm's adjustment, as in the grids; the verdict also uses the attack's "
      "held-out findings.",
      sym.rho(), sym.rho(), r.alpha, r.margin, r.margin);
  return t;
}

}  // namespace probity::report::detail
