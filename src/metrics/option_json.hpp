#pragma once
// A metric family's option table as JSON, for `probity metrics --json` and probity.metrics().
#include <nlohmann/json.hpp>

#include "probity/metric.hpp"

namespace probity::metrics {

// One object per option ({"name", "type", "default", "help"}, "choices" or "min"/"max" where they
// apply): the family's own, then the style options every metric takes that it does not declare.
nlohmann::json options_json(const MetricInfo& info);

}  // namespace probity::metrics
