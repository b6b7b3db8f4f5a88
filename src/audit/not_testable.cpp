// The names of NotTestable in report.json.
#include <stdexcept>
#include <string>

#include "probity/audit.hpp"

namespace probity {

namespace {

struct ReasonName {
  NotTestable reason;
  std::string_view name;
};
constexpr ReasonName kReasonNames[] = {
    {NotTestable::kNone, "none"},
    {NotTestable::kTooFewApplied, "too_few_applied"},
    {NotTestable::kConstantScores, "constant_scores"},
    {NotTestable::kLanguage, "language"},
};

}  // namespace

std::string_view not_testable_name(NotTestable reason) {
  for (const auto& r : kReasonNames)
    if (r.reason == reason) return r.name;
  return "none";
}

NotTestable parse_not_testable(std::string_view name) {
  for (const auto& r : kReasonNames)
    if (r.name == name) return r.reason;
  throw std::invalid_argument("unknown not-testable reason \"" + std::string(name) + "\"");
}

}  // namespace probity
