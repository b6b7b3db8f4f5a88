#include "metrics/builtin.hpp"

namespace probity::metrics {
void register_bleu(MetricRegistry&) {}
}  // namespace probity::metrics
