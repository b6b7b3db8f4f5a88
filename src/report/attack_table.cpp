// --attack: per metric and dataset, what the search found.
#include <fmt/format.h>

#include <cmath>

#include "report/format.hpp"

namespace probity::report::detail {

Table attack_table(const TestIndex& index, const Symbols& sym) {
  const AuditReport& r = index.report();
  Table t;
  t.title = fmt::format("Attack {} does a search find content-free edits the metric rewards?",
                        sym.dash());
  t.header = {"metric",
              "dataset",
              "attacked",
              fmt::format("mean best {}", sym.delta()),
              "best-edit families",
              "held-out programs",
              "strongest held-out program"};
  t.align = {Align::kLeft, Align::kLeft,  Align::kRight, Align::kRight,
             Align::kLeft, Align::kRight, Align::kLeft};
  for (const auto& a : r.attacks) {
    std::vector<std::string> families;
    for (std::size_t k = 0; k < a.families.size() && k < 3; ++k)
      families.push_back(fmt::format("{} {}", a.families[k].first, a.families[k].second));
    std::size_t vulnerable = 0;
    const UniversalProgram* strongest = nullptr;
    for (const auto& u : a.universal) {
      if (!u.held_out.testable || u.held_out.passed_holm) continue;
      ++vulnerable;
      if (!strongest || u.held_out.d > strongest->held_out.d) strongest = &u;
    }
    Cell programs(fmt::format("{}/{}", vulnerable, a.universal.size()));
    programs.tone = vulnerable > 0 ? Tone::kFail : Tone::kPass;
    Cell best(strongest ? fmt::format("{} d = {}, Holm p = {}", join(strongest->program, "+"),
                                      fmt_d_pm(strongest->held_out.d, strongest->held_out.d_lo,
                                               strongest->held_out.d_hi, sym),
                                      fmt_p(strongest->held_out.p_holm))
                        : std::string("none"));
    std::string examples;
    for (const auto& e : a.examples)
      examples += fmt::format("{}{} / {}: {} {} {} by {}", examples.empty() ? "" : "\n", e.task_id,
                              e.candidate_id, fmt_num(e.before, 3), sym.unicode ? "\u2192" : "->",
                              fmt_num(e.after, 3), join(e.program, "+"));
    Cell rate(fmt_percent(a.success_rate));
    rate.title = examples;
    Cell mean(fmt_num(a.mean_best_delta, 3));
    if (!a.testable) {
      // No finding from nothing: the cause instead of a rate.
      rate = Cell("n/a: " + a.untestable);
      rate.tone = Tone::kNa;
      mean = missing_cell(sym);
    } else if (a.not_attacked > 0) {
      rate.text +=
          fmt::format(" of {} ({} not attacked: LLM work failed)", a.items, a.not_attacked);
    }
    t.rows.push_back({Cell(a.metric), Cell(a.dataset), std::move(rate), std::move(mean),
                      Cell(join(families, ", ")), std::move(programs), std::move(best)});
  }
  if (!r.attacks.empty()) {
    const auto& o = r.attacks.front();
    t.note = fmt::format(
        "attacked: share of items whose best edit found by the per-item search raises the "
        "score; held-out programs: of the {} best edit programs on the search half of the tasks "
        "({} searched), those that raise the score on the held-out half (one-sided paired t, "
        "Holm over the programs, {} = {:g}). Edits add no task content (docs/attack.md).",
        o.universal.size(), o.programs_searched, sym.alpha(), r.alpha);
  }
  return t;
}

}  // namespace probity::report::detail
