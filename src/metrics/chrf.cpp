#include "metrics/builtin.hpp"

namespace probity::metrics {
void register_chrf(MetricRegistry&) {}
}  // namespace probity::metrics
