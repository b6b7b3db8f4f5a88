// The replicability table: per metric and strategy audited on several datasets, in how many the
// failure is shown (the partial-conjunction test).
#include <fmt/format.h>

#include "report/format.hpp"

namespace probity::report::detail {

Table replicability_table(const AuditReport& report, const Symbols& sym) {
  Table t;
  t.title =
      fmt::format("Replicability over datasets {} in how many does the metric fail?", sym.dash());
  t.header = {"metric", "kind", "strategy", "fails in", "p (at least 1)", "p (all)", "datasets"};
  t.align = {Align::kLeft,  Align::kLeft,  Align::kLeft, Align::kRight,
             Align::kRight, Align::kRight, Align::kLeft};
  for (const auto& x : report.replicability) {
    Cell fails(fmt::format("{}/{}", x.failing, x.datasets.size()));
    fails.tone = x.failing == 0                   ? Tone::kPass
                 : x.failing == x.datasets.size() ? Tone::kFail
                                                  : Tone::kWarn;
    std::vector<std::string> per;
    for (std::size_t i = 0; i < x.datasets.size(); ++i)
      per.push_back(fmt::format("{} p = {}", x.datasets[i], fmt_p(x.p_fail[i])));
    fails.title = join(per, "\n");
    t.rows.push_back({Cell(x.metric), Cell(std::string(kind_name(x.kind))),
                      Cell(cat({x.code, " ", x.name})), std::move(fails),
                      Cell(fmt_p(x.p_at_least.front())), Cell(fmt_p(x.p_at_least.back())),
                      Cell(join(x.datasets, ", "))});
  }
  t.note = fmt::format(
      "The failure is a degradation missed (its equivalence test) or a manipulation that fools "
      "the metric (its effect test). \"fails in k/K\": the datasets where the failure is shown "
      "with the family-wise error over the K datasets at {} = {:g}; p (at least u): Benjamini and "
      "Heller's partial-conjunction test with Bonferroni's combination, as SacreROUGE computes it.",
      sym.alpha(), report.alpha);
  return t;
}

}  // namespace probity::report::detail
