#pragma once
// `probity attack` (issue 15): a black-box search for content-free edits that raise a metric's
// score, per item (greedy, beam or random search under a query budget) and as universal edit
// programs chosen on a seeded half of the tasks and tested on the other half with the audit's
// paired one-sided test, SMD with CI and Holm over the programs tested.
#include <cstdint>
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

struct AttackOptions {
  std::string strategy = "greedy";    // greedy, beam or random
  std::size_t budget = 200;           // metric queries per item
  std::size_t steps = 3;              // edits per item (random: the longest program)
  std::size_t beam = 4;               // beam width (beam)
  std::vector<std::string> families;  // edit families (empty: every content-free one)
  bool include_content = false;       // also the copy-source family (can add task content)
  double delta = 0.0;                 // an item is attacked when its best Δ exceeds this
  std::size_t program_length = 2;     // universal programs: up to this many operators
  std::size_t programs = 10;          // programs (best on the search half) tested on held-out
  double split = 0.5;                 // share of tasks in the search half
  double alpha = 0.05;
  std::size_t bootstrap = 1000;
  double confidence = 0.95;
  std::size_t min_applied = 30;
  std::uint64_t seed = 0;
  unsigned threads = 0;
  std::size_t examples = 3;  // items shown with their best edit
};

struct AttackExample {
  std::string task_id, candidate_id;
  std::vector<std::string> program;  // operator names in order
  std::string original, attacked;
  double before = 0, after = 0;
};

struct UniversalProgram {
  std::vector<std::string> program;
  std::size_t search_applied = 0;
  double search_mean_delta = 0;  // on the search half (used only to choose)
  StrategyTest held_out;         // the paired test on the held-out half (manipulation sense)
};

struct BudgetPoint {
  std::size_t queries = 0;
  double success_rate = 0;  // items whose best Δ after this many queries exceeds delta
  double mean_best_delta = 0;
};

struct MetricAttack {
  std::string metric, signature;
  std::size_t items = 0;       // items attacked (with a defined original score)
  std::size_t queries = 0;     // metric calls of the per-item search
  double seconds = 0;          // of the per-item search
  double success_rate = 0;     // share of items with best Δ > delta
  double mean_best_delta = 0;  // over the items
  StrategyTest best_edits;     // the paired test of the best per-item edits against the originals
  std::vector<std::pair<std::string, std::size_t>> families;  // family of the first best edit
  std::vector<BudgetPoint> budget_curve;
  std::vector<UniversalProgram> universal;  // best on the search half, tested on held-out
  std::size_t programs_searched = 0;
  std::vector<AttackExample> examples;
};

struct AttackReport {
  std::string dataset;
  std::size_t search_tasks = 0, held_out_tasks = 0;
  std::vector<std::string> operators;  // names used
  AttackOptions options;
  std::vector<MetricAttack> metrics;
};

// Attacks every metric on `items` of `ds` (the metrics fitted here on the dataset).
AttackReport run_attack(const Dataset& ds, std::span<const ItemRef> items,
                        std::vector<MetricSelection>& metrics, const AttackOptions& options,
                        const perturb::EditOpRegistry& registry);

}  // namespace probity
