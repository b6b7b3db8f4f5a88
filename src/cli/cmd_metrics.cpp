// `probity metrics`: the registry with one-line descriptions and options.
#include <fmt/format.h>

#include <algorithm>
#include <nlohmann/json.hpp>

#include "cli/command.hpp"
#include "cli/flags.hpp"
#include "cli/llm_context.hpp"
#include "metrics/option_json.hpp"
#include "probity/error.hpp"
#include "probity/metric.hpp"

namespace probity::cli {
namespace {

int run_metrics(bool json) {
  // The option tables that parse and validate metric names print here (and in docs/cli.md).
  const MetricRegistry registry = MetricRegistry::builtin();
  const auto& list = registry.list();
  if (json) {
    nlohmann::json out = nlohmann::json::array();
    for (const auto& m : list) {
      out.push_back({{"name", m.name},
                     {"description", m.description},
                     {"options", metrics::options_json(m)}});
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
  for (const auto& o : common_options()) fmt::print("  {}\n", describe(o));
  return kExitOk;
}

}  // namespace

void add_metrics_command(CLI::App& app, Commands& commands) {
  auto json = std::make_shared<bool>(false);
  bool& metrics_json = *json;
  auto* lc = app.add_subcommand("metrics", "List the available metrics and their options");
  lc->add_flag("--json", metrics_json, "Print JSON");
  commands.push_back({lc, [json](RunContext&) { return run_metrics(*json); }});
}

}  // namespace probity::cli
