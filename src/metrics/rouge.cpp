#include "metrics/builtin.hpp"

namespace probity::metrics {
void register_rouge(MetricRegistry&) {}
}  // namespace probity::metrics
