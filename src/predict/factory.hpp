#pragma once
// Built-in predictors by mechanism, configured from metric options and shared between metrics
// with the same configuration (a predictor is fitted once per dataset).
#include <memory>

#include "probity/metric.hpp"
#include "probity/mi.hpp"

namespace probity::predict {

// Consumes the predictor options of `spec` (ar: order, cache, stem, normalize, corpus; oracle:
// calib_seed). Throws UsageError for the exact mechanism, which has no data of its own.
std::shared_ptr<mi::Predictor> make_predictor(mi::Mechanism mechanism,
                                              mi::Representation representation,
                                              const MetricSpec& spec);

}  // namespace probity::predict
