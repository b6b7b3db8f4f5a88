// `probity attack` from its request (run_attack(AttackRequest, ...) in probity/attack.hpp): what
// the CLI and the Python module share between reading their arguments and writing the results.
#include <filesystem>

#include "llm/session.hpp"
#include "perturb/edit_ops.hpp"
#include "probity/attack.hpp"
#include "probity/engine.hpp"
#include "probity/error.hpp"
#include "probity/scoring.hpp"

namespace probity {

AttackRun run_attack(const AttackRequest& request, Engine& engine,
                     std::vector<MetricSelection> extra) {
  if (request.metrics.empty() && extra.empty())
    throw UsageError("attack: at least one metric is required");
  const AttackOptions& o = request.options;
  if (!o.transfer_endpoint.empty() && !extra.empty())
    throw UsageError(
        "attack: a transfer endpoint tests each judge again on another server; a Python "
        "callable has no endpoint to move (pass registry metrics only, or no transfer endpoint)");
  AttackRun run;
  run.data = request.data.name();
  Dataset ds = request.data.load({request.skip_invalid});
  set_default_language(ds, request.lang);
  run.skipped = ds.skipped;
  auto items = all_items(ds);
  if (items.empty()) throw InputError(request.data.name(), 0, "", "no valid items");
  if (request.sample > 0) {  // the audit's seeded sample, so --sample picks the same items
    std::vector<ItemRef> sampled;
    for (std::size_t i : choose_sample(items.size(), request.sample, o.seed,
                                       std::filesystem::path(request.data.name()).stem().string()))
      sampled.push_back(items[i]);
    items = std::move(sampled);
  }
  run.items = items.size();
  std::vector<MetricSelection> metrics;
  for (const auto& m : request.metrics) metrics.push_back(select_metric(m, engine));
  for (auto& m : extra) metrics.push_back(std::move(m));
  check_distinct_names(metrics);
  require_attackable(metrics);
  // The transfer endpoint: each metric again, on the endpoint of that role.
  std::vector<MetricSelection> transfer;
  if (!o.transfer_endpoint.empty())
    for (const auto& m : request.metrics)
      transfer.push_back(select_metric(transfer_spec(m, o.transfer_endpoint), engine));
  const auto registry = perturb::EditOpRegistry::builtin();
  const auto& session = engine.llm_or_null();
  run.report = run_attack(ds, items, metrics, o, registry, session, transfer);
  if (session) run.llm_usage = session->accounting().to_json();
  return run;
}

}  // namespace probity
