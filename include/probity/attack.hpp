#pragma once
// `probity attack`: a black-box search for content-free edits that raise a metric's
// score, per item (greedy, beam or random search under a query budget) and as universal edit
// programs chosen on a seeded half of the tasks and tested on the other half with the audit's
// paired one-sided test, SMD with CI and Holm over the programs tested.
#include <cstdint>
#include <memory>
#include <span>
#include <string>
#include <vector>

#include "probity/audit.hpp"
#include "probity/dataset.hpp"
#include "probity/scoring.hpp"

namespace probity {

namespace perturb {
class EditOpRegistry;
}
namespace llm {
class Session;
}
class Engine;

// AttackOptions and MetricAttack are in audit.hpp (the audit's --attack section holds them).

struct AttackReport {
  std::string dataset;
  std::size_t search_tasks = 0, held_out_tasks = 0;
  std::vector<std::string> operators;  // names used
  AttackOptions options;
  std::string attacker, guard;  // signatures (strategy llm)
  std::vector<MetricAttack> metrics;
};

// Why a metric that cannot score new texts (Metric::scores_new_texts, e.g. a scores: file) cannot
// be attacked, and the routes that can: an exec: scorer, an http: scorer, a Python callable.
std::string unattackable_reason(const MetricSelection& metric);
// `probity attack`: UsageError naming the first such metric, with unattackable_reason.
void require_attackable(std::span<const MetricSelection> metrics);

// Attacks every metric on `items` of `ds` (the metrics fitted here on the dataset). Strategy llm
// and guard llm talk to `session` (roles attacker and guard); UsageError without one.
// `transfer`, empty or one per metric: the same judges on the transfer endpoint, on which each
// universal suffix is tested too.
AttackReport run_attack(const Dataset& ds, std::span<const ItemRef> items,
                        std::vector<MetricSelection>& metrics, const AttackOptions& options,
                        const perturb::EditOpRegistry& registry,
                        std::shared_ptr<llm::Session> session = nullptr,
                        std::span<MetricSelection> transfer = {});

// `probity attack` run from its request, as the CLI and the Python module do: the dataset
// loaded (request.lang for tasks without one), request.sample candidates drawn with the seed as
// the audit draws them, request.metrics selected on `engine` followed by `extra` (the Python
// module's callables), each registry metric again on request.options.transfer_endpoint when set
// (UsageError when an extra metric would need one), then run_attack. Writes nothing.
struct AttackRun {
  AttackReport report;
  std::string data;  // the dataset's name
  std::size_t items = 0;
  std::vector<SkipRecord> skipped;  // invalid items left out (skip_invalid)
  std::string llm_usage;            // the LLM session's accounting as JSON ("" without one)
};
AttackRun run_attack(const AttackRequest& request, Engine& engine,
                     std::vector<MetricSelection> extra = {});

// The metric `spec` on the endpoint of configuration role `role` (its llm= option set): the
// judge a suffix is transferred to with --transfer-endpoint.
std::string transfer_spec(const std::string& spec, const std::string& role);

}  // namespace probity
