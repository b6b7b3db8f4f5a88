// The attack's tables, drawn by every renderer (the audit's --attack section and `probity
// attack`): the per-item search with its held-out programs, the replacement families, the
// universal suffixes and, with two or more metrics, the defense matrix.
#include <fmt/format.h>

#include <cmath>
#include <optional>

#include "report/format.hpp"

namespace probity::report::detail {
namespace {

bool several_datasets(std::span<const MetricAttack> attacks) {
  for (const auto& a : attacks)
    if (a.dataset != attacks.front().dataset) return true;
  return false;
}

// The metric, and its dataset when the attacks span several.
std::string label(const MetricAttack& a, bool datasets, const Symbols& sym) {
  return datasets ? fmt::format("{}{}{}", a.metric, sym.dot(), a.dataset) : a.metric;
}

Cell untested(const std::string& cause) {
  Cell c("n/a: " + cause);
  c.tone = Tone::kNa;
  return c;
}

std::string quoted(std::string text, std::size_t max) {
  for (auto& c : text)
    if (c == '\n' || c == '\r' || c == '\t') c = ' ';
  if (text.size() > max) text = text.substr(0, max - 3) + "...";
  return "\"" + text + "\"";
}

// A held-out test of a suffix in the manipulation sense: d [CI], p, and the finding.
Cell suffix_test_cell(const StrategyTest& t, const Symbols& sym) {
  if (!t.testable) return untested(t.untestable);
  Cell c(fmt::format("d = {}, p = {}{}", fmt_d_pm(t.d, t.d_lo, t.d_hi, sym), fmt_p(t.p),
                     t.passed ? "" : " VULNERABLE"));
  c.tone = t.passed ? Tone::kPass : Tone::kFail;
  return c;
}

Cell replacement_cell(const ReplacementAttack& x) {
  if (!x.testable) return untested(x.untestable);
  const auto& h = x.held_out;
  Cell c(fmt::format("{}/{} = {} [{}, {}]{}", h.hits, h.n, fmt_num(h.rate, 3),
                     fmt_num(h.rate_lo, 3), fmt_num(h.rate_hi, 3),
                     x.vulnerable ? " VULNERABLE" : ""));
  c.tone = x.vulnerable ? Tone::kFail : Tone::kPass;
  return c;
}

}  // namespace

Table attack_search_table(std::span<const MetricAttack> attacks, double alpha, const Symbols& sym) {
  Table t;
  t.title = fmt::format("Attack {} does a search find content-free edits the metric rewards?",
                        sym.dash());
  const bool datasets = !attacks.empty() && !attacks.front().dataset.empty();
  t.header = {"metric"};
  if (datasets) t.header.push_back("dataset");
  t.header.insert(t.header.end(),
                  {"attacked", fmt::format("mean best {}", sym.delta()), "best-edit families",
                   "queries/s", "held-out programs", "strongest held-out program"});
  t.align = {Align::kLeft};
  if (datasets) t.align.push_back(Align::kLeft);
  t.align.insert(t.align.end(), {Align::kRight, Align::kRight, Align::kLeft, Align::kRight,
                                 Align::kRight, Align::kLeft});
  for (const auto& a : attacks) {
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
    // The others: resisted (a rise of the margin ruled out after Holm) or inconclusive.
    std::size_t resisted = 0;
    for (const auto& u : a.universal) resisted += u.held_out.outcome_holm == Outcome::kResists;
    const std::size_t unsure = a.universal.size() - vulnerable - resisted;
    Cell programs(fmt::format("{}/{}", vulnerable, a.universal.size()));
    if (unsure > 0) programs.text += fmt::format(" ({} ?)", unsure);
    programs.tone = vulnerable > 0 ? Tone::kFail : unsure > 0 ? Tone::kWarn : Tone::kPass;
    programs.title = fmt::format("{} raise the score, {} resisted, {} inconclusive", vulnerable,
                                 resisted, unsure);
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
    Cell speed(a.seconds > 0 ? fmt::format("{:.0f}", static_cast<double>(a.queries) / a.seconds)
                             : std::string("-"));
    if (!a.testable) {
      // No finding from nothing: the cause instead of a rate.
      rate = untested(a.untestable);
      mean = missing_cell(sym);
      speed = missing_cell(sym);
      programs = missing_cell(sym);
      best = missing_cell(sym);
    } else if (a.not_attacked > 0) {
      rate.text +=
          fmt::format(" of {} ({} not attacked: LLM work failed)", a.items, a.not_attacked);
    }
    std::vector<Cell> row{Cell(a.metric)};
    if (datasets) row.emplace_back(a.dataset);
    row.push_back(std::move(rate));
    row.push_back(std::move(mean));
    row.emplace_back(join(families, ", "));
    row.push_back(std::move(speed));
    row.push_back(std::move(programs));
    row.push_back(std::move(best));
    t.rows.push_back(std::move(row));
  }
  if (!attacks.empty()) {
    const auto& o = attacks.front();
    t.note = fmt::format(
        "attacked: share of items whose best edit found by the per-item search raises the "
        "score; held-out programs: of the {} best edit programs on the search half of the tasks "
        "({} searched), those that raise the score on the held-out half (one-sided paired t, "
        "Holm over the programs, {} = {:g}); (k ?): k programs neither raise it nor are ruled "
        "out to raise it by d >= {:g}. Edits add no task content (docs/attack.md).",
        o.universal.size(), o.programs_searched, sym.alpha(), alpha,
        o.universal.empty() ? kDefaultMargin : o.universal.front().held_out.margin);
  }
  return t;
}

Table replacement_table(std::span<const MetricAttack> attacks, const Symbols& sym) {
  Table t;
  t.title = fmt::format("Replacement {} does a content-free answer score as well as the real one?",
                        sym.dash());
  t.header = {"metric", "family", "answers' mean (candidates, empty)", "best on the search half",
              "held-out hits [95% Wilson]"};
  t.align = {Align::kLeft, Align::kLeft, Align::kRight, Align::kLeft, Align::kRight};
  const bool datasets = several_datasets(attacks);
  double tolerance = std::nan("");
  for (const auto& a : attacks)
    for (const auto& x : a.replacements) {
      double mean = 0;
      for (const auto& ans : x.answers) mean += ans.mean_score;
      mean /= static_cast<double>(std::max<std::size_t>(x.answers.size(), 1));
      const std::string means =
          x.family == ReplacementFamily::kMasterKey
              ? fmt::format("{} ({}, {})", fmt_num(mean, 3), fmt_num(x.candidates_mean, 3),
                            fmt_num(x.floor_mean, 3))
              : fmt::format("{} ({})", fmt_num(mean, 3), fmt_num(x.candidates_mean, 3));
      tolerance = x.tolerance;
      t.rows.push_back({Cell(label(a, datasets, sym)),
                        Cell(std::string(replacement_family_name(x.family))), Cell(means),
                        x.testable ? Cell(quoted(x.held_out.text, 40)) : missing_cell(sym),
                        replacement_cell(x)});
    }
  t.note = fmt::format(
      "master-key: every candidate replaced by a content-free string; a hit is an item where it "
      "scores above the empty answer and at least as high as the real candidate. null-model: one "
      "constant answer for every item; a hit is an item where it scores above the real "
      "candidate. Ties are not hits. The answer with the highest rate on the search half is "
      "measured on the held-out half; VULNERABLE when the Wilson lower bound exceeds the "
      "tolerance ({}).",
      fmt_num(tolerance, 2));
  return t;
}

Table suffix_table(std::span<const MetricAttack> attacks, const Symbols& sym) {
  Table t;
  t.title =
      fmt::format("Universal suffixes {} does one appended text raise every score?", sym.dash());
  t.header = {"metric",
              "search",
              "suffix",
              fmt::format("search {}", sym.delta()),
              "held-out d [CI], p",
              "transfer d [CI], p"};
  t.align = {Align::kLeft, Align::kLeft, Align::kLeft, Align::kRight, Align::kRight, Align::kRight};
  const bool datasets = several_datasets(attacks);
  for (const auto& a : attacks)
    for (const auto& u : a.suffixes) {
      std::vector<Cell> row{Cell(label(a, datasets, sym)),
                            Cell(std::string(suffix_search_name(u.search)))};
      if (!u.searched) {  // the cause once, not in every column
        row.push_back(untested(u.untestable));
        for (int k = 0; k < 3; ++k) row.push_back(missing_cell(sym));
      } else if (u.text.empty()) {
        Cell none("none: no word raised the score");
        none.tone = Tone::kPass;
        row.push_back(none);
        for (int k = 0; k < 3; ++k) row.push_back(missing_cell(sym));
      } else {
        row.push_back(Cell(quoted(u.text, 60)));
        row.push_back(Cell(fmt_num(u.search_mean_delta, 3)));
        row.push_back(suffix_test_cell(u.held_out, sym));
        row.push_back(u.transfer_metric.empty() && !u.transfer.testable
                          ? missing_cell(sym)
                          : suffix_test_cell(u.transfer, sym));
      }
      t.rows.push_back(std::move(row));
    }
  t.note =
      "suffix: one text appended to every candidate, found on the search half (universal-phrase: "
      "greedy over vocabulary words; logprob-search: random word replacements climbing a G-Eval "
      "judge's probability-weighted rating), tested on the held-out half and, with a transfer "
      "endpoint, on the same judge served there (one-sided paired t).";
  return t;
}

Table defense_matrix(std::span<const MetricAttack> attacks, const Symbols& sym) {
  Table t;
  t.title = fmt::format("Defense matrix {} held-out results per family and metric", sym.dash());
  if (attacks.size() < 2) return t;
  const bool datasets = several_datasets(attacks);
  t.header = {"family"};
  t.align = {Align::kLeft};
  for (const auto& a : attacks) {
    t.header.push_back(label(a, datasets, sym));
    t.align.push_back(Align::kRight);
  }
  const auto add_row = [&](const std::string& family, auto cell) {
    std::vector<Cell> row{Cell(family)};
    bool any = false;
    for (const auto& a : attacks) {
      std::optional<Cell> c = cell(a);
      any |= c.has_value();
      row.push_back(c ? *c : missing_cell(sym));
    }
    if (any) t.rows.push_back(std::move(row));
  };
  add_row("edits (attacked items)", [&](const MetricAttack& a) -> std::optional<Cell> {
    if (!a.testable) return untested(a.untestable);
    return Cell(fmt_percent(a.success_rate));
  });
  add_row("edits (held-out programs)", [&](const MetricAttack& a) -> std::optional<Cell> {
    if (!a.testable || a.universal.empty()) return std::nullopt;
    std::size_t vulnerable = 0;
    for (const auto& u : a.universal) vulnerable += u.held_out.testable && !u.held_out.passed_holm;
    Cell c(fmt::format("{}/{}{}", vulnerable, a.universal.size(),
                       vulnerable > 0 ? " VULNERABLE" : ""));
    c.tone = vulnerable > 0 ? Tone::kFail : Tone::kPass;
    return c;
  });
  for (ReplacementFamily f : {ReplacementFamily::kMasterKey, ReplacementFamily::kNullModel})
    add_row(std::string(replacement_family_name(f)),
            [f](const MetricAttack& a) -> std::optional<Cell> {
              for (const auto& x : a.replacements)
                if (x.family == f) return replacement_cell(x);
              return std::nullopt;
            });
  for (SuffixSearch f : {SuffixSearch::kUniversalPhrase, SuffixSearch::kLogprobSearch})
    add_row(std::string(suffix_search_name(f)),
            [f, &sym](const MetricAttack& a) -> std::optional<Cell> {
              for (const auto& u : a.suffixes) {
                if (u.search != f) continue;
                if (!u.searched) return untested(u.untestable);
                if (u.text.empty()) {
                  Cell c("none found");
                  c.tone = Tone::kPass;
                  return c;
                }
                return suffix_test_cell(u.held_out, sym);
              }
              return std::nullopt;
            });
  t.note =
      "One column per metric (e.g. one judge under each prompt variant): which attack family "
      "each resists on the held-out tasks. n/a: the family could not run there, with its cause.";
  return t;
}

std::vector<Table> attack_tables(std::span<const MetricAttack> attacks, double alpha,
                                 const Symbols& sym) {
  std::vector<Table> out;
  if (attacks.empty()) return out;
  Table tables[] = {attack_search_table(attacks, alpha, sym), replacement_table(attacks, sym),
                    suffix_table(attacks, sym), defense_matrix(attacks, sym)};
  for (Table& t : tables)
    if (!t.rows.empty()) out.push_back(std::move(t));
  return out;
}

}  // namespace probity::report::detail
