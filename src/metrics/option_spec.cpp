// A metric family's option declarations (OptionSpec): the builders, the text `probity metrics`
// shows, and the check of a given value against its declaration.
#include <fmt/format.h>
#include <fmt/ranges.h>

#include <algorithm>
#include <array>
#include <charconv>
#include <cmath>
#include <limits>

#include "probity/error.hpp"
#include "probity/metric.hpp"
#include "util/enum_names.hpp"

namespace probity {

namespace {

OptionSpec make_option(std::string name, OptionSpec::Type type, std::string fallback,
                       std::string help) {
  OptionSpec o;
  o.name = std::move(name);
  o.type = type;
  o.fallback = std::move(fallback);
  o.help = std::move(help);
  return o;
}

std::string number_text(double v) {
  if (v == std::numeric_limits<double>::max()) return "";
  if (v == -std::numeric_limits<double>::max()) return "";
  return fmt::format("{}", v);
}

}  // namespace

OptionSpec option_bool(std::string name, bool fallback, std::string help) {
  return make_option(std::move(name), OptionSpec::Type::kBool, fallback ? "true" : "false",
                     std::move(help));
}

OptionSpec option_int(std::string name, int fallback, int min, int max, std::string help) {
  OptionSpec o = make_option(std::move(name), OptionSpec::Type::kInt, std::to_string(fallback),
                             std::move(help));
  o.min = min;
  o.max = max;
  return o;
}

OptionSpec option_number(std::string name, std::string fallback, double min, double max,
                         std::string help) {
  OptionSpec o =
      make_option(std::move(name), OptionSpec::Type::kNumber, std::move(fallback), std::move(help));
  o.min = min;
  o.max = max;
  return o;
}

OptionSpec option_choice(std::string name, std::string fallback, std::vector<std::string> choices,
                         std::string help) {
  OptionSpec o =
      make_option(std::move(name), OptionSpec::Type::kChoice, std::move(fallback), std::move(help));
  o.choices = std::move(choices);
  return o;
}

OptionSpec option_text(std::string name, std::string fallback, std::string help) {
  return make_option(std::move(name), OptionSpec::Type::kText, std::move(fallback),
                     std::move(help));
}

std::string_view type_name(OptionSpec::Type type) {
  static constexpr auto kTypeNames = std::to_array<util::EnumName<OptionSpec::Type>>({
      {OptionSpec::Type::kBool, "bool"},
      {OptionSpec::Type::kInt, "int"},
      {OptionSpec::Type::kNumber, "number"},
      {OptionSpec::Type::kChoice, "choice"},
      {OptionSpec::Type::kText, "text"},
  });
  return util::name_of(kTypeNames, type, "text");
}

std::string describe(const OptionSpec& o) {
  std::string out =
      o.name + "=" + (o.fallback.empty() ? "<" + std::string(type_name(o.type)) + ">" : o.fallback);
  std::string range;
  if (o.type == OptionSpec::Type::kChoice) {
    range = fmt::format("{}", fmt::join(o.choices, "|"));
  } else if (o.type == OptionSpec::Type::kInt || o.type == OptionSpec::Type::kNumber) {
    const std::string lo = number_text(o.min), hi = number_text(o.max);
    if (!lo.empty() || !hi.empty()) range = lo + ".." + hi;
  }
  if (!range.empty()) out += " (" + range + ")";
  if (!o.help.empty()) out += ": " + o.help;
  return out;
}

void check_option_value(const OptionSpec& o, std::string_view spec_text, const std::string& value) {
  switch (o.type) {
    case OptionSpec::Type::kBool:
      if (value != "true" && value != "1" && value != "yes" && value != "on" && value != "false" &&
          value != "0" && value != "no" && value != "off")
        throw UsageError(
            fmt::format("metric '{}': option {}={} is not a boolean", spec_text, o.name, value));
      break;
    case OptionSpec::Type::kInt: {
      long long v = 0;
      auto [p, ec] = std::from_chars(value.data(), value.data() + value.size(), v);
      if (ec != std::errc() || p != value.data() + value.size())
        throw UsageError(
            fmt::format("metric '{}': option {}={} is not an integer{}", spec_text, o.name, value,
                        ec == std::errc::result_out_of_range ? " (out of range)" : ""));
      if (static_cast<double>(v) < o.min || static_cast<double>(v) > o.max)
        throw UsageError(fmt::format("metric '{}': option {}={} must be in {}..{}", spec_text,
                                     o.name, value, number_text(o.min), number_text(o.max)));
      break;
    }
    case OptionSpec::Type::kNumber: {
      double v = 0;
      auto [p, ec] = std::from_chars(value.data(), value.data() + value.size(), v);
      if (ec != std::errc() || p != value.data() + value.size() || !std::isfinite(v))
        throw UsageError(fmt::format("metric '{}': option {}={} is not a finite number", spec_text,
                                     o.name, value));
      if (v < o.min || v > o.max)
        throw UsageError(fmt::format("metric '{}': option {}={} must be in {}..{}", spec_text,
                                     o.name, value, number_text(o.min), number_text(o.max)));
      break;
    }
    case OptionSpec::Type::kChoice:
      if (std::find(o.choices.begin(), o.choices.end(), value) == o.choices.end())
        throw UsageError(fmt::format("metric '{}': option {}={} is not one of {}", spec_text,
                                     o.name, value, fmt::join(o.choices, ", ")));
      break;
    case OptionSpec::Type::kText:
      break;
  }
}

}  // namespace probity
