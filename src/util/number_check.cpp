#include "util/number_check.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <charconv>
#include <cmath>
#include <cstdlib>
#include <string>
#include <system_error>

#include "probity/error.hpp"

namespace probity::util {

namespace {

// The user's text as messages quote it: long enough to recognise, never a screenful.
std::string quoted(std::string_view text) {
  constexpr std::size_t kShown = 32;
  if (text.empty()) return "''";
  if (text.size() <= kShown) return std::string(text);
  return std::string(text.substr(0, kShown)) + "...";
}

bool all_digits(std::string_view s) {
  return !s.empty() && std::all_of(s.begin(), s.end(), [](char c) { return c >= '0' && c <= '9'; });
}

std::string whole_range_problem(const std::string& shown, std::uint64_t value,
                                const WholeBounds& b) {
  if (value < b.min) return fmt::format("{} is less than the minimum {}", shown, b.min);
  if (value > b.max) return fmt::format("{} is more than the maximum {}", shown, b.max);
  return {};
}

std::string real_range_problem(const std::string& shown, double value, const RealBounds& b) {
  if (std::isnan(value)) return fmt::format("{} is not a number", shown);
  if (std::isinf(value)) return fmt::format("{} is not a finite number", shown);
  if (b.min_open ? !(value > b.min) : value < b.min)
    return b.min_open ? fmt::format("{} must be more than {}", shown, b.min)
                      : fmt::format("{} is less than the minimum {}", shown, b.min);
  if (b.max_open ? !(value < b.max) : value > b.max)
    return b.max_open ? fmt::format("{} must be less than {}", shown, b.max)
                      : fmt::format("{} is more than the maximum {}", shown, b.max);
  return {};
}

}  // namespace

std::string whole_number_problem(std::string_view text, const WholeBounds& bounds) {
  const std::string shown = quoted(text);
  std::uint64_t value = 0;
  const auto [end, ec] = std::from_chars(text.data(), text.data() + text.size(), value);
  if (ec == std::errc() && end == text.data() + text.size())
    return whole_range_problem(shown, value, bounds);
  // Digits only, past 2^64 - 1: more than any maximum (CLI11 would saturate it).
  if (all_digits(text)) return fmt::format("{} is more than the maximum {}", shown, bounds.max);
  if (text.starts_with('-') && all_digits(text.substr(1)))
    return fmt::format("{} is less than the minimum {}", shown, bounds.min);
  return fmt::format("{} is not a whole number", shown);
}

std::string real_number_problem(std::string_view text, const RealBounds& bounds) {
  const std::string shown = quoted(text);
  double value = 0;
  const auto [end, ec] = std::from_chars(text.data(), text.data() + text.size(), value);
  if (end != text.data() + text.size() || ec == std::errc::invalid_argument)
    return fmt::format("{} is not a number", shown);
  if (ec == std::errc::result_out_of_range) {
    // from_chars leaves `value` alone here: strtod tells an overflow (1e999) from an underflow.
    const std::string copy(text);
    if (std::isinf(std::strtod(copy.c_str(), nullptr)))
      return fmt::format("{} is not a finite number", shown);
    return fmt::format("{} is too close to 0 to represent", shown);
  }
  return real_range_problem(shown, value, bounds);
}

std::string whole_number_problem(std::uint64_t value, const WholeBounds& bounds) {
  return whole_range_problem(std::to_string(value), value, bounds);
}

std::string real_number_problem(double value, const RealBounds& bounds) {
  return real_range_problem(fmt::format("{}", value), value, bounds);
}

void check_whole(std::string_view name, std::uint64_t value, const WholeBounds& bounds) {
  if (std::string problem = whole_number_problem(value, bounds); !problem.empty())
    throw UsageError(fmt::format("{}: {}", name, problem));
}

void check_real(std::string_view name, double value, const RealBounds& bounds) {
  if (std::string problem = real_number_problem(value, bounds); !problem.empty())
    throw UsageError(fmt::format("{}: {}", name, problem));
}

std::string describe(const WholeBounds& bounds) {
  const WholeBounds all;
  if (bounds.min == all.min && bounds.max == all.max) return {};
  if (bounds.max == all.max) return fmt::format("[{}..]", bounds.min);
  return fmt::format("[{}..{}]", bounds.min, bounds.max);
}

std::string describe(const RealBounds& bounds) {
  const RealBounds all;
  const bool low = bounds.min != all.min, high = bounds.max != all.max;
  if (!low && !high) return {};
  return fmt::format("{}{}..{}{}", bounds.min_open ? '(' : '[',
                     low ? fmt::format("{}", bounds.min) : "",
                     high ? fmt::format("{}", bounds.max) : "", bounds.max_open ? ')' : ']');
}

}  // namespace probity::util
