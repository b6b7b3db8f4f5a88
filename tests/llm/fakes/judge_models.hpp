#pragma once
// Simulated judge models for the test server (probity_fake_servers --llm judge-<behaviour>): each
// reads probity's judge prompts (pointwise, pairwise and G-Eval, every prompt variant) the way a
// model sees them, as text, and answers by a fixed rule with a known weakness, so that a whole
// audit and attack run end to end shows which weakness the battery and the attack families find.
// None of them reads the prompt's defenses: a matrix over prompt variants run on them measures the
// pipeline, not the defenses (that needs a real model).
#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <string_view>

namespace probity::test {

enum class JudgeBehaviour {
  kOverlap,   // content only: unigram F1 with the reference (or, pairwise, the task input)
  kGullible,  // kOverlap, but obeys text that claims a score and rates content-free answers best
  kFirst,     // pairwise: always the first response; pointwise: the scale's middle
  kLonger,    // the longer text: pairwise wins, pointwise ratings grow with length
};

// "overlap", "gullible", "first", "longer"; nullopt for another name.
std::optional<JudgeBehaviour> judge_behaviour_named(std::string_view name);

// The simulated judge's answer to `request` (an OpenAI chat request) when its first message is one
// of probity's judge prompts; nullopt otherwise.
std::optional<std::string> judge_answer(const nlohmann::json& request, JudgeBehaviour behaviour);

}  // namespace probity::test
