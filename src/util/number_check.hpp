#pragma once
// One check for every number a user gives as a count, seed, share or threshold, whether typed on
// the command line or passed to the library: no NaN or infinity, no overflow, nothing past the
// documented bounds, and a short message that says which (no 309-digit numbers).
#include <cstdint>
#include <limits>
#include <string>
#include <string_view>

namespace probity::util {

struct WholeBounds {
  std::uint64_t min = 0;
  std::uint64_t max = std::numeric_limits<std::uint64_t>::max();
};

struct RealBounds {
  double min = std::numeric_limits<double>::lowest();
  double max = std::numeric_limits<double>::max();
  bool min_open = false, max_open = false;  // the bound itself is excluded
};

// Why `text` is not a whole number within `bounds` ("99999999999999999999 is more than the
// maximum 1000000"), or "" when it is one.
std::string whole_number_problem(std::string_view text, const WholeBounds& bounds);
// Why `text` is not a finite number within `bounds`, or "" when it is one.
std::string real_number_problem(std::string_view text, const RealBounds& bounds);
std::string whole_number_problem(std::uint64_t value, const WholeBounds& bounds);
std::string real_number_problem(double value, const RealBounds& bounds);

// The same checks on numbers a request already holds: UsageError "<name>: <problem>".
void check_whole(std::string_view name, std::uint64_t value, const WholeBounds& bounds);
void check_real(std::string_view name, double value, const RealBounds& bounds);

// The bounds as help shows them: "[1..1000000]", "(0..1)", "[0..]"; "" for every value of the
// type (a seed).
std::string describe(const WholeBounds& bounds);
std::string describe(const RealBounds& bounds);

}  // namespace probity::util
