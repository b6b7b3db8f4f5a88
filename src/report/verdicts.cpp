// A test's verdict, raw and after Holm's adjustment, and how a table cell shows it.
#include <fmt/format.h>

#include "report/format.hpp"

namespace probity::report::detail {

namespace {

std::string to_upper(std::string_view s) {
  std::string out(s);
  for (char& c : out)
    if (c >= 'a' && c <= 'z') c = static_cast<char>(c - 'a' + 'A');
  return out;
}

Verdict verdict_of(const StrategyTest& t, Outcome outcome) {
  if (!t.testable || outcome == Outcome::kUntestable) return Verdict::kNotTestable;
  if (outcome_good(outcome)) return Verdict::kPass;
  if (outcome_bad(outcome)) return Verdict::kFail;
  return Verdict::kInconclusive;
}

}  // namespace

Verdict raw_verdict(const StrategyTest* t) {
  return t ? verdict_of(*t, t->outcome) : Verdict::kMissing;
}

Verdict holm_verdict(const StrategyTest* t) {
  return t ? verdict_of(*t, t->outcome_holm) : Verdict::kMissing;
}

bool holm_changes(const StrategyTest* t) {
  return t && t->testable && t->outcome != t->outcome_holm;
}

std::string outcome_word(const StrategyTest& t, bool holm) {
  if (!t.testable) return "n/a";
  const Outcome o = holm ? t.outcome_holm : t.outcome;
  return outcome_bad(o) ? to_upper(outcome_name(o)) : std::string(outcome_name(o));
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
    case Verdict::kInconclusive:
      return Tone::kWarn;
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
    case Verdict::kInconclusive:
      return "?";
    case Verdict::kNotTestable:
      return "n/a";
    case Verdict::kMissing:
      break;
  }
  return std::string(sym.dash());
}

}  // namespace probity::report::detail
