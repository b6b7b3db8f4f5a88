// Numbers checked in the library: a request from any front end (the Python module
// builds AuditOptions itself) with a NaN share or a count past its maximum is a usage error
// naming the field, before any work.
#include "audit/request_checks.hpp"

#include <gtest/gtest.h>

#include <limits>

#include "probity/audit.hpp"
#include "probity/error.hpp"

namespace probity {
namespace {

std::string usage_error_of(const AuditOptions& options) {
  try {
    run_audit(options);
  } catch (const UsageError& e) {
    return e.what();
  }
  return "no usage error";
}

AuditOptions request() {
  AuditOptions o;
  o.data = {"never-read.jsonl"};
  o.metrics = {"bleu"};
  o.out_dir = "never-written";
  return o;
}

TEST(RequestChecks, AuditRejectsNanSharesAndHugeCounts) {
  auto o = request();
  o.alpha = std::numeric_limits<double>::quiet_NaN();
  EXPECT_EQ(usage_error_of(o), "alpha: nan is not a number");
  o = request();
  o.confidence = std::numeric_limits<double>::infinity();
  EXPECT_EQ(usage_error_of(o), "confidence: inf is not a finite number");
  o = request();
  o.bootstrap = std::numeric_limits<std::size_t>::max();
  EXPECT_EQ(usage_error_of(o), "bootstrap: 18446744073709551615 is more than the maximum 1000000");
  o = request();
  o.attack = true;
  o.attack_options.budget = std::numeric_limits<std::size_t>::max();
  EXPECT_EQ(usage_error_of(o), "budget: 18446744073709551615 is more than the maximum 1000000");
}

TEST(RequestChecks, AttackOptionsWithinBoundsPass) {
  AttackOptions o;
  EXPECT_NO_THROW(audit::check_request(o));
  o.split = 1.0;
  EXPECT_THROW(audit::check_request(o), UsageError);
  o = {};
  o.delta = std::numeric_limits<double>::quiet_NaN();
  EXPECT_THROW(audit::check_request(o), UsageError);
}

}  // namespace
}  // namespace probity
