// Replicability of a finding over the audited datasets: the partial-conjunction test of the
// per-dataset p-values of the failure (stats::partial_conjunction_test).
#include <algorithm>
#include <cmath>
#include <tuple>

#include "probity/audit.hpp"
#include "probity/stats.hpp"

namespace probity {

std::vector<Replicability> replicability(std::span<const StrategyTest> tests, double alpha) {
  // Metric × kind × strategy in the order the tests come; a dataset counts where it was testable.
  std::vector<Replicability> out;
  for (const auto& t : tests) {
    if (!t.testable) continue;
    auto it = std::find_if(out.begin(), out.end(), [&](const Replicability& x) {
      return x.metric == t.metric && x.kind == t.kind && x.code == t.code;
    });
    if (it == out.end()) {
      out.push_back({t.metric, t.kind, t.code, t.name, {}, {}, 0, {}});
      it = out.end() - 1;
    }
    // The p-value of the failure: a drop ruled out (degradation), a significant rise
    // (manipulation). An undefined one is no evidence: p = 1.
    const double p = t.kind == StrategyKind::kDegradation ? t.p_equiv : t.p;
    it->datasets.push_back(t.dataset);
    it->p_fail.push_back(std::isfinite(p) ? p : 1.0);
  }
  std::erase_if(out, [](const Replicability& x) { return x.datasets.size() < 2; });
  for (auto& x : out) {
    const auto pc = stats::partial_conjunction_test(x.p_fail, alpha);
    x.failing = pc.k;
    x.p_at_least = pc.p_values;
  }
  return out;
}

}  // namespace probity
