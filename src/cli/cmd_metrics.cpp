// `probity metrics`: the registry with one-line descriptions and options.
#include <fmt/format.h>

#include <algorithm>
#include <limits>
#include <nlohmann/json.hpp>

#include "cli/commands.hpp"
#include "probity/error.hpp"
#include "probity/metric.hpp"

namespace probity::cli {

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

int run_metrics(bool json) {
  // The option tables that parse and validate metric names print here (and in docs/cli.md).
  const MetricRegistry registry = MetricRegistry::builtin();
  const auto& list = registry.list();
  if (json) {
    nlohmann::json out = nlohmann::json::array();
    for (const auto& m : list) {
      nlohmann::json options = nlohmann::json::array();
      for (const auto& o : m.options) options.push_back(option_json(o));
      for (const auto& o : style_options())  // every metric takes them
        if (std::none_of(m.options.begin(), m.options.end(),
                         [&](const OptionSpec& own) { return own.name == o.name; }))
          options.push_back(option_json(o));
      out.push_back({{"name", m.name}, {"description", m.description}, {"options", options}});
    }
    fmt::print("{}\n", out.dump(2));
    return kExitOk;
  }
  std::size_t width = 0;
  for (const auto& m : list) width = std::max(width, m.name.size());
  for (const auto& m : list) {
    fmt::print("{:<{}}  {}\n", m.name, width, m.description);
    for (const auto& o : m.options) fmt::print("{:<{}}    {}\n", "", width, describe(o));
  }
  fmt::print("\nEvery metric also takes:\n");
  for (const auto& o : style_options()) fmt::print("  {}\n", describe(o));
  return kExitOk;
}

}  // namespace probity::cli
