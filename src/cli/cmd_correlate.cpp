// `probity correlate` and `probity compare`: meta-evaluation against human ratings.
#include "cli/commands.hpp"
#include "probity/error.hpp"

namespace probity::cli {

int run_correlate(const CorrelateArgs&) {
  throw UsageError("correlate: waiting for stats layer");
}
int run_compare(const CompareArgs&) {
  throw UsageError("compare: waiting for stats layer");
}

}  // namespace probity::cli
