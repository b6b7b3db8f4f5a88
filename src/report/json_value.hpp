#pragma once
// report.json as a JSON value (what to_json prints), for callers that want the structure
// itself: the Python module turns it into dicts and lists without printing and re-parsing it.
#include <nlohmann/json.hpp>

#include "probity/attack.hpp"
#include "probity/audit.hpp"
#include "probity/significance.hpp"

namespace probity::report {

nlohmann::ordered_json to_json_value(const AuditReport& report);
// One metric's attack results, as in report.json's "attacks" and `probity attack`'s attack.json.
nlohmann::ordered_json attack_json(const MetricAttack& attack);
// `probity attack`'s attack.json (and the dict probity.attack returns in Python): the run, its
// options and each metric's attack_json.
nlohmann::ordered_json attack_document(const AttackRun& run);
// `probity significance --json` (and the dict probity.significance returns in Python).
nlohmann::ordered_json significance_document(const SignificanceRun& run);

}  // namespace probity::report
