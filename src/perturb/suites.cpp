#include "perturb/suites.hpp"

#include <fmt/format.h>

#include <algorithm>

#include "perturb/textops.hpp"
#include "probity/error.hpp"
#include "text/ascii.hpp"
#include "util/enum_names.hpp"

namespace probity::perturb {

namespace {
constexpr auto kTaskTypes = std::to_array<util::EnumName<TaskType>>({
    {TaskType::kSummarization, "summarization"},
    {TaskType::kPeerReview, "peer-review"},
    {TaskType::kQa, "qa"},
});
}  // namespace

std::optional<TaskType> parse_task_type(std::string_view name) {
  return util::parse_enum(kTaskTypes, name);
}

std::string_view task_type_name(TaskType type) {
  return util::name_of(kTaskTypes, type, "summarization");
}

std::optional<TaskType> infer_task_type(const Dataset& dataset) {
  std::optional<TaskType> found;
  for (const auto& t : dataset.tasks) {
    const std::string g = text::ascii_lower(t.group);
    std::optional<TaskType> type;
    auto has = [&](std::initializer_list<std::string_view> words) {
      return std::any_of(words.begin(), words.end(),
                         [&](std::string_view w) { return g.find(w) != std::string::npos; });
    };
    if (has({"review", "iclr", "neurips", "openreview", "peer", "grading"}))
      type = TaskType::kPeerReview;
    else if (has({"sum", "news", "cnn", "dailymail", "xsum", "samsum", "newsroom"}))
      type = TaskType::kSummarization;
    else if (has({"qa", "question", "answer", "lfqa", "medaesqa"}))
      type = TaskType::kQa;
    if (!type) return std::nullopt;
    if (found && *found != *type) return std::nullopt;  // a mixed file says nothing
    found = type;
  }
  return found;
}

std::vector<std::string> suite_names() {
  return {"paper", "paper:summarization", "paper:peer-review", "paper:qa"};
}

SuitePlan resolve_suite(std::string_view name, const Dataset& dataset) {
  SuitePlan plan;
  std::optional<TaskType> type;
  if (name == "paper") {
    type = infer_task_type(dataset);
    if (!type)
      throw UsageError(
          "--suite paper: the dataset's group names do not say what kind of task it is; name it: "
          "--suite paper:summarization, paper:peer-review or paper:qa");
  } else if (name.starts_with("paper:")) {
    type = parse_task_type(name.substr(6));
    if (!type)
      throw UsageError(
          fmt::format("unknown suite '{}' (known: {})", name, fmt::join(suite_names(), ", ")));
  } else {
    throw UsageError(
        fmt::format("unknown suite '{}' (known: {})", name, fmt::join(suite_names(), ", ")));
  }
  plan.type = *type;
  plan.name = fmt::format("paper:{}", task_type_name(*type));
  // Rules for R, S and M; the LLM for the rest (Xu et al. 2025, App. C).
  plan.degradations = {"R", "S", "llm:D", "llm:P", "llm:U"};
  switch (*type) {
    case TaskType::kSummarization:  // SummEval, SPACE: m = 5 and 2
      plan.manipulations = {"M", "llm:R"};
      break;
    case TaskType::kPeerReview:  // ICLR 2026, peer grading: m = 6 and 6
      plan.degradations.push_back("llm:O");
      plan.manipulations = {"M", "llm:R", "llm:P", "llm:N", "llm:H", "llm:S"};
      break;
    case TaskType::kQa:  // LFQA-E, MedAESQA: m = 5 and 4
      plan.manipulations = {"M", "llm:H", "llm:S", "llm:R"};
      break;
  }
  return plan;
}

const Reference* ground_truth_reference(const Task& task) {
  for (const auto& r : task.references)
    if (r.id == "gt" || r.id == "ground_truth") return &r;
  return task.references.empty() ? nullptr : &task.references.front();
}

}  // namespace probity::perturb
