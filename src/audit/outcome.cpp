// The three-way verdict of a paired test (probity::Outcome): how it is decided and named; the
// names of the paired tests.
#include <cmath>
#include <stdexcept>
#include <string>
#include <utility>

#include "probity/audit.hpp"

namespace probity {

namespace {

struct OutcomeName {
  Outcome outcome;
  std::string_view name;
};
constexpr OutcomeName kOutcomeNames[] = {
    {Outcome::kUntestable, "untestable"}, {Outcome::kDetects, "detects"},
    {Outcome::kMisses, "misses"},         {Outcome::kResists, "resists"},
    {Outcome::kFooled, "fooled"},         {Outcome::kInconclusive, "inconclusive"},
};

constexpr std::pair<PairedTest, std::string_view> kTestNames[] = {
    {PairedTest::kT, "t"}, {PairedTest::kWilcoxon, "wilcoxon"}, {PairedTest::kSign, "sign"}};

}  // namespace

std::string_view paired_test_name(PairedTest test) {
  for (const auto& [t, name] : kTestNames)
    if (t == test) return name;
  return "t";
}

PairedTest parse_paired_test(std::string_view name) {
  for (const auto& [t, n] : kTestNames)
    if (n == name) return t;
  throw std::invalid_argument("unknown paired test \"" + std::string(name) +
                              "\" (tests: t, wilcoxon, sign)");
}

std::string_view outcome_name(Outcome outcome) {
  for (const auto& o : kOutcomeNames)
    if (o.outcome == outcome) return o.name;
  return "untestable";
}

Outcome parse_outcome(std::string_view name) {
  for (const auto& o : kOutcomeNames)
    if (o.name == name) return o.outcome;
  throw std::invalid_argument("unknown test outcome \"" + std::string(name) + "\"");
}

bool outcome_good(Outcome outcome) {
  return outcome == Outcome::kDetects || outcome == Outcome::kResists;
}

bool outcome_bad(Outcome outcome) {
  return outcome == Outcome::kMisses || outcome == Outcome::kFooled;
}

Outcome decide_outcome(StrategyKind kind, double p, double p_equiv, double alpha) {
  const bool degradation = kind == StrategyKind::kDegradation;
  // The change in the strategy's direction comes first: a significant drop is detected, and a
  // significant rise fools the metric even when it is smaller than the margin.
  if (std::isfinite(p) && p < alpha) return degradation ? Outcome::kDetects : Outcome::kFooled;
  if (std::isfinite(p_equiv) && p_equiv < alpha)
    return degradation ? Outcome::kMisses : Outcome::kResists;
  return Outcome::kInconclusive;
}

}  // namespace probity
