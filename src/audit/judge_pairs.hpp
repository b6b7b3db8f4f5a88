#pragma once
// A pairwise judge asked about the human pairs themselves (one candidate against the other, both
// orders, as JudgeLM and AlpacaEval measure judges on human preference data such as LFQA-E):
// its agreement with the human preference and its position consistency on those pairs.
#include <span>
#include <vector>

#include "probity/audit.hpp"
#include "probity/scoring.hpp"

namespace probity::audit {

// The human pairs of `ds` whose two candidates are both among `items`, judged by `judge` (a
// pairwise judge laid out as `design`): the candidate `a` in the candidate's slot and `b` in the
// reference's. Values, each with a bootstrap CI over tasks:
//   human_pairs.agreement: over pairs with a decisive human preference and a judge verdict, 1
//     when the judge prefers the human's choice, 0.5 for a judge tie, 0 otherwise (AlpacaEval's
//     human agreement with ties as halves);
//   human_pairs.position_consistency: share of pairs whose two orders give the same winner;
//   human_pairs.tie_rate: share of pairs the judge calls a tie (after its ties= policy).
// Empty when the dataset has no human pairs; each value untested with its cause when none of
// them is among the items or every verdict failed.
std::vector<JudgeDiagnostic> human_pair_diagnostics(const Dataset& ds,
                                                    std::span<const ItemRef> items,
                                                    MetricSelection& judge,
                                                    const JudgeDesign& design,
                                                    const stats::BootstrapOptions& bootstrap);

}  // namespace probity::audit
