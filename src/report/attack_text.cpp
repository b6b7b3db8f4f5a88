// `probity attack`'s terminal output (and probity.format_attack's): the attack tables, what the
// LLM attacker did, and the settings the numbers depend on.
#include <fmt/format.h>

#include "probity/attack.hpp"
#include "probity/report.hpp"
#include "report/format.hpp"

namespace probity::report {

std::string attack_to_text(const AttackRun& run, const TextOptions& options) {
  const detail::Symbols sym{options.unicode};
  const AttackReport& r = run.report;
  const AttackOptions& o = r.options;
  std::string out;
  for (const auto& t : detail::attack_tables(r.metrics, o.alpha, sym)) {
    if (!out.empty()) out += "\n";
    out += detail::render_text_table(t, sym, options.width, options.color);
  }
  for (const auto& a : r.metrics) {
    const auto& w = a.rewrites;
    if (w.guard.empty()) continue;
    if (a.testable && a.not_attacked > 0)
      out += fmt::format(
          "\n{}: {} item{} could not be attacked (the LLM attacker's work failed for them); the "
          "rates are over the {} attacked\n",
          a.metric, a.not_attacked, a.not_attacked == 1 ? "" : "s", a.items);
    out += fmt::format(
        "\n{}: {} attacker requests: {} failed, {} unparseable after re-asking{}; the LLM "
        "attacker proposed {} rewrites: {} scored, {} repeats not scored, {} rejected by the {} "
        "guard as adding information, {} without a guard verdict (discarded), {} over the query "
        "budget\n",
        a.metric, w.requests, w.attacker_failed - w.attacker_unparseable, w.attacker_unparseable,
        w.first_attacker_error.empty() ? "" : fmt::format(" (first: {})", w.first_attacker_error),
        w.proposed, w.scored, w.duplicates, w.rejected, w.guard, w.guard_failed, w.over_budget);
    for (const auto& e : w.rejected_examples)
      out += fmt::format("  rejected ({}/{}): {}\n", e.task_id, e.candidate_id, e.reason);
  }
  out += fmt::format(
      "\n{} items; search half {} tasks, held-out half {} tasks. Per-item search: {}, {} queries "
      "per item, up to {} {}, attacked when the best {} exceeds {}. Universal programs: the {} "
      "best (up to {} operators), one-sided paired t, Holm, {} {}. Suffixes: universal-phrase up "
      "to {} words ({} vocabulary words per step); logprob-search {} words, {} replacements. "
      "Operators: {}.\n",
      run.items, r.search_tasks, r.held_out_tasks, o.strategy, o.budget, o.steps,
      o.strategy == "llm" ? "attacker rounds" : "edits", sym.delta(), o.delta, o.programs,
      o.program_length, sym.alpha(), o.alpha, o.phrase_words, o.phrase_candidates, o.suffix_words,
      o.suffix_iterations, fmt::join(r.operators, ", "));
  return out;
}

}  // namespace probity::report
