#pragma once
// Small datasets and helpers shared by the perturbation tests.
#include <set>
#include <string>
#include <vector>

#include "probity/dataset.hpp"
#include "probity/perturb.hpp"
#include "probity/text.hpp"

namespace probity::test {

// The rule-based strategies, as every Engine starts with (immutable).
inline const PerturbationRegistry& builtin_strategies() {
  static const PerturbationRegistry registry = PerturbationRegistry::builtin();
  return registry;
}

// One task with one candidate per text, so single strings can be perturbed.
inline Dataset single_task(const std::vector<std::string>& texts, std::string source = {},
                           std::string group = "reviews") {
  Dataset ds;
  Task task;
  task.task_id = "t0";
  task.group = std::move(group);
  task.source = std::move(source);
  for (std::size_t i = 0; i < texts.size(); ++i) {
    Candidate c;
    // Appended rather than concatenated: GCC 12 warns falsely (-Wrestrict) on "c" + string.
    c.id = "c";
    c.id += std::to_string(i);
    c.system = "sys";
    c.system += std::to_string(i);
    c.text = texts[i];
    task.candidates.push_back(std::move(c));
  }
  ds.tasks.push_back(std::move(task));
  return ds;
}

inline PerturbResult run(StrategyKind kind, const std::string& code, const Dataset& ds,
                         std::size_t task = 0, std::size_t candidate = 0, std::uint64_t seed = 1) {
  auto strategy = builtin_strategies().create(kind, code);
  return strategy->apply(PerturbContext{&ds, task, candidate, seed});
}

inline PerturbResult degrade(const std::string& code, const std::string& text,
                             std::uint64_t seed = 1, const std::string& source = {}) {
  const Dataset ds = single_task({text}, source);
  return run(StrategyKind::kDegradation, code, ds, 0, 0, seed);
}

inline PerturbResult manipulate(const std::string& code, const std::string& text,
                                std::uint64_t seed = 1) {
  const Dataset ds = single_task({text});
  return run(StrategyKind::kManipulation, code, ds, 0, 0, seed);
}

// Lower-cased word tokens (letters and digits), as ROUGE sees them.
inline std::set<std::string> word_set(const std::string& text) {
  const auto tokens = text::rouge_tokenize(text, false);
  return {tokens.begin(), tokens.end()};
}

inline std::size_t line_count(const std::string& text) {
  std::size_t n = 1;
  for (char c : text) n += c == '\n' ? 1 : 0;
  return n;
}

// A review-like text with headers, list items and paragraphs.
inline const std::string& markdown_review() {
  static const std::string text =
      "## Summary\n"
      "The paper proposes a new method for text evaluation. It is evaluated on three datasets. "
      "The results are strong. The code is released.\n"
      "\n"
      "## Strengths\n"
      "- The idea is simple. It works well.\n"
      "- Clear writing.\n"
      "- Strong baselines. Thorough ablations.\n"
      "\n"
      "## Weaknesses\n"
      "1. Missing related work.\n"
      "2. The evaluation is limited to English. I do not think the baselines are strong "
      "enough.\n"
      "\n"
      "Overall, I recommend acceptance because the method is novel and the experiments are "
      "convincing.";
  return text;
}

}  // namespace probity::test
