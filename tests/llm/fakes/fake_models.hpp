#pragma once
// What the LLM fakes of probity_fake_servers "write" (a real server answers with whatever its
// model writes), for the executable and for tests that run the probity executable against the
// in-process fakes.
#include <nlohmann/json.hpp>
#include <optional>
#include <string>

#include "llm/fakes/fake_server.hpp"

namespace probity::test {

// A structured question gets the schema's smallest instance with its strings filled from the
// first <<<quoted>>> text of the prompt (a decomposition gets that text's sentences, a rewrite
// the text itself); anything else gets "ok".
std::string copy_model(const nlohmann::json& request);

// The vLLM-flavour fake serving `model` with copy_model, or for judge-<behaviour> the simulated
// judge of judge_models.hpp (copy_model for prompts that are not a judge's); nullopt for an
// unknown behaviour.
std::optional<FakeOptions> fake_llm_options(const std::string& model);

}  // namespace probity::test
