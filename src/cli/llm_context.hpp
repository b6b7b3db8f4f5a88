#pragma once
// The LLM flags shared by the commands that may talk to a model: they build the command's Engine
// (with its llm::Session), and the usage/cost summary printed at the end.
#include <functional>
#include <memory>
#include <string>
#include <vector>

#include "cli/command.hpp"
#include "probity/engine.hpp"
#include "probity/llm.hpp"

namespace probity::llm {
class Session;
}

namespace probity::cli {

struct LlmFlags {
  std::string config;  // --config probity.toml
  llm::CliOverrides overrides;
  std::string perturber = "rules";  // audit: --perturber rules|llm
  double max_failed = 0;            // --max-failed: share of failed requests tolerated
  double max_unparsed = 0.05;       // --max-unparsed: share of unusable structured answers
  bool any() const;
};

// The command's engine, with an LLM session when any LLM flag (or OPENAI_BASE_URL) was given.
// Its session writes the clients' notes (retries, batch progress) to stderr unless -q.
std::unique_ptr<Engine> make_engine(const LlmFlags& flags, const Console& console);
// Renames the selected strategies to their LLM realisations ("all" → every LLM strategy of the
// kind); an empty list stays empty. UsageError when the engine has no LLM session.
void use_llm_perturber(const Engine& engine, std::vector<std::string>& degradations,
                       std::vector<std::string>& manipulations);
// The command's exit code once the LLM accounting is in: kExitLlmFailures (with a message on
// stderr naming the endpoint, the failure kinds and the first server messages) when an
// endpoint's failed requests or unparsed answers exceed the flags' shares, else `code`.
int with_llm_failures(int code, const std::shared_ptr<llm::Session>& session,
                      const LlmFlags& flags);
// Prints the accounting table to stderr; with `json_path` (the audit, whose printed report
// already ends with the table) writes its JSON there instead.
void report_llm_usage(const std::shared_ptr<llm::Session>& session, const std::string& json_path);
// Runs a command that may talk to `session`, then report_llm_usage. A command stopped by an
// error after the server was asked anything still shows what was asked (the table on stderr,
// and its JSON at `json_path`) before the error goes on.
int run_reporting_llm_usage(const std::shared_ptr<llm::Session>& session,
                            const std::string& json_path, const std::function<int()>& run);
// A command that may talk to a model: its engine from `flags` (its session kept in
// `context.llm`), `run` through run_reporting_llm_usage, and the exit code with_llm_failures
// gives.
int run_with_llm(const LlmFlags& flags, RunContext& context, const std::string& json_path,
                 const std::function<int(Engine&)>& run);

}  // namespace probity::cli
