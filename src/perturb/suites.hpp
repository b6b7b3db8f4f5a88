#pragma once
// Named selections of strategies and their realisations. `paper` is the protocol of Xu et al. 2025
// (§5, Tables 7-8, App. C): random replacement, sentence deletion and meaningless elongation by
// rule, every other strategy by an LLM (prompts v2), the strategies the paper ran for each kind
// of dataset, one ground-truth reference per task and about 200 candidates per test.
#include <cstddef>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "probity/dataset.hpp"

namespace probity::perturb {

enum class TaskType { kSummarization, kPeerReview, kQa };

std::optional<TaskType> parse_task_type(std::string_view name);  // summarization, peer-review, qa
std::string_view task_type_name(TaskType type);
// From the datasets' group names (news, cnndm, dialogue summaries: summarization; review, iclr,
// peer: peer review; qa, question: question answering); nullopt when they do not say.
std::optional<TaskType> infer_task_type(const Dataset& dataset);

struct SuitePlan {
  std::string name;  // "paper:summarization"
  TaskType type = TaskType::kSummarization;
  // Command-line strategy names: letter codes (rules) and llm:<code> (LLM, prompts v2).
  std::vector<std::string> degradations, manipulations;
  std::size_t sample = 200;      // candidates per test (the paper down-samples to about 200)
  bool single_reference = true;  // one ground-truth reference per task
};

// "paper" with the task type inferred from `dataset`, or "paper:<type>". Throws UsageError for
// an unknown suite, or when the type cannot be inferred.
SuitePlan resolve_suite(std::string_view name, const Dataset& dataset);
// The suites `--suite` accepts, for help texts.
std::vector<std::string> suite_names();

// The task's ground-truth reference when it names one (id "gt" or "ground_truth"), else its
// first; nullptr when the task has none.
const Reference* ground_truth_reference(const Task& task);

}  // namespace probity::perturb
