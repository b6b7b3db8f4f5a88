// A test's verdict, raw and after Holm's adjustment, and how a table cell shows it.
#include <fmt/format.h>

#include "report/format.hpp"

namespace probity::report::detail {

Verdict raw_verdict(const StrategyTest* t) {
  if (!t) return Verdict::kMissing;
  if (!t->testable) return Verdict::kNotTestable;
  return t->passed ? Verdict::kPass : Verdict::kFail;
}

Verdict holm_verdict(const StrategyTest* t) {
  if (!t) return Verdict::kMissing;
  if (!t->testable) return Verdict::kNotTestable;
  return t->passed_holm ? Verdict::kPass : Verdict::kFail;
}

bool holm_changes(const StrategyTest* t) {
  return t && t->testable && t->passed != t->passed_holm;
}

Cell missing_cell(const Symbols& sym) {
  Cell c;
  c.text = sym.dash();
  c.tone = Tone::kMissing;
  c.title = "not run";
  return c;
}

Tone tone_of(Verdict v) {
  switch (v) {
    case Verdict::kPass:
      return Tone::kPass;
    case Verdict::kFail:
      return Tone::kFail;
    case Verdict::kNotTestable:
      return Tone::kNa;
    case Verdict::kMissing:
      break;
  }
  return Tone::kMissing;
}

std::string verdict_word(Verdict v, const Symbols& sym) {
  switch (v) {
    case Verdict::kPass:
      return std::string(sym.pass());
    case Verdict::kFail:
      return "FAIL";
    case Verdict::kNotTestable:
      return "n/a";
    case Verdict::kMissing:
      break;
  }
  return std::string(sym.dash());
}

}  // namespace probity::report::detail
