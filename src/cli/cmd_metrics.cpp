// `probity metrics`: the registry with one-line descriptions and options.
#include <fmt/format.h>

#include <nlohmann/json.hpp>

#include "cli/commands.hpp"
#include "probity/error.hpp"
#include "probity/metric.hpp"

namespace probity::cli {

int run_metrics(bool json) {
  const MetricRegistry registry = MetricRegistry::builtin();
  const auto& list = registry.list();
  if (json) {
    nlohmann::json out = nlohmann::json::array();
    for (const auto& m : list)
      out.push_back({{"name", m.name}, {"description", m.description}, {"options", m.options}});
    fmt::print("{}\n", out.dump(2));
    return kExitOk;
  }
  std::size_t width = 0;
  for (const auto& m : list) width = std::max(width, m.name.size());
  for (const auto& m : list) {
    fmt::print("{:<{}}  {}\n", m.name, width, m.description);
    if (!m.options.empty()) fmt::print("{:<{}}  options: {}\n", "", width, m.options);
  }
  fmt::print(
      "\nEvery metric also takes style=llm (style_llm=perturber role, style_reasks=2): the "
      "candidate,\nreferences and negatives are first rewritten by the model into neutral "
      "\"The text ...\" statements\n(style normalisation, prompts/style_normalize.v1); a "
      "failed rewrite makes the item undefined.\n");
  return kExitOk;
}

}  // namespace probity::cli
