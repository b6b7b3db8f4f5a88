#include "metrics/option_json.hpp"

#include <algorithm>
#include <limits>

namespace probity::metrics {
namespace {

nlohmann::json option_json(const OptionSpec& o) {
  nlohmann::json j = {{"name", o.name}, {"type", type_name(o.type)}, {"help", o.help}};
  j["default"] = o.fallback.empty() ? nlohmann::json(nullptr) : nlohmann::json(o.fallback);
  if (o.type == OptionSpec::Type::kChoice) j["choices"] = o.choices;
  if (o.type == OptionSpec::Type::kInt || o.type == OptionSpec::Type::kNumber) {
    // Integers as integers; an open end as null.
    const auto bound = [&](double v) {
      if (v == std::numeric_limits<double>::max() || v == -std::numeric_limits<double>::max())
        return nlohmann::json(nullptr);
      return o.type == OptionSpec::Type::kInt ? nlohmann::json(static_cast<long long>(v))
                                              : nlohmann::json(v);
    };
    j["min"] = bound(o.min);
    j["max"] = bound(o.max);
  }
  return j;
}

}  // namespace

nlohmann::json options_json(const MetricInfo& info) {
  nlohmann::json options = nlohmann::json::array();
  for (const auto& o : info.options) options.push_back(option_json(o));
  for (const auto& o : common_options())  // every metric takes them
    if (std::none_of(info.options.begin(), info.options.end(),
                     [&](const OptionSpec& own) { return own.name == o.name; }))
      options.push_back(option_json(o));
  return options;
}

}  // namespace probity::metrics
