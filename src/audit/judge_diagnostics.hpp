#pragma once
// The bias battery of an LLM judge metric on the audited items: position (pairwise), length and
// lists, self-consistency of repeated verdicts, each with a bootstrap CI over tasks.
#include <span>
#include <string_view>
#include <vector>

#include "probity/audit.hpp"

namespace probity::audit {

// `stats`: the judge's item statistics for `items` (laid out as `design` says), `texts` the
// candidates, `human[d][i]` the human ratings (human_matrix).
JudgeDiagnostics judge_diagnostics(const Dataset& ds, std::span<const ItemRef> items,
                                   std::span<const std::string_view> texts,
                                   const MetricStats& stats, const JudgeDesign& design,
                                   const std::vector<std::vector<double>>& human,
                                   const stats::BootstrapOptions& bootstrap);

}  // namespace probity::audit
