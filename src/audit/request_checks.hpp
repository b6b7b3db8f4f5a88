#pragma once
// The numbers of an audit or attack request, checked once in the library so that every front end
// (the CLI, the Python module) gets the same usage errors: no NaN, no infinity, nothing past the
// maxima of probity/limits.hpp (a count that would allocate without end or never finish).
#include "probity/audit.hpp"

namespace probity::audit {

// UsageError naming the field ("budget: 0 is less than the minimum 1").
void check_request(const AttackOptions& options);
void check_request(const AuditOptions& options);

}  // namespace probity::audit
