#include "cli/llm_context.hpp"

#include <fmt/format.h>

#include <cstdio>

#include "llm/prompts.hpp"
#include "llm/session.hpp"
#include "llm/structured.hpp"
#include "perturb/llm_strategies.hpp"
#include "probity/engine.hpp"
#include "probity/error.hpp"
#include "util/output_file.hpp"

namespace probity::cli {

bool LlmFlags::any() const {
  const auto& o = overrides;
  return !config.empty() || o.base_url || o.model || o.api_key_env || o.concurrency || o.cache ||
         o.cache_mode;
}

std::unique_ptr<Engine> make_engine(const LlmFlags& flags, const Console& console) {
  auto engine = std::make_unique<Engine>();
  // OPENAI_BASE_URL names an endpoint as the flags do (the OpenAI client convention).
  if (!flags.any() && !llm::environment_names_endpoint()) return engine;
  llm::LlmConfig config = flags.config.empty() ? llm::LlmConfig{} : llm::load_config(flags.config);
  llm::apply_cli_overrides(config, flags.overrides);
  llm::apply_environment(config);
  auto session = std::make_shared<llm::Session>(std::move(config));
  // Retries, servers that refuse a structured-output field, batch progress: notes on stderr.
  if (!console.quiet())
    session->set_log([](std::string_view line) { fmt::print(stderr, "probity: {}\n", line); });
  engine->set_llm(std::move(session));
  return engine;
}

void use_llm_perturber(const Engine& engine, std::vector<std::string>& degradations,
                       std::vector<std::string>& manipulations) {
  if (!engine.llm_or_null()) throw UsageError("--perturber llm needs --config or --llm-base-url");
  const auto& registry = engine.strategies();
  degradations = perturb::llm_strategy_names(StrategyKind::kDegradation, degradations, registry);
  manipulations = perturb::llm_strategy_names(StrategyKind::kManipulation, manipulations, registry);
}

int with_llm_failures(int code, const std::shared_ptr<llm::Session>& session,
                      const LlmFlags& flags) {
  if (!session) return code;
  bool over = false;
  for (const auto& u : session->accounting().endpoints()) {
    std::uint64_t failed = 0;
    for (const auto& [kind, n] : u.failures) failed += n;
    const double share_failed =
        u.answers == 0 ? 0.0 : static_cast<double>(failed) / static_cast<double>(u.answers);
    const double share_unparsed =
        u.questions == 0 ? 0.0 : static_cast<double>(u.unparsed) / static_cast<double>(u.questions);
    if (share_failed > flags.max_failed) {
      over = true;
      std::string kinds;
      for (const auto& [kind, n] : u.failures)
        kinds += fmt::format("{}{} {}", kinds.empty() ? "" : ", ", kind, n);
      fmt::print(stderr, "probity: {} of {} LLM requests to '{}' ({}) failed: {}\n", failed,
                 u.answers, u.endpoint, u.model, kinds);
      for (const auto& [kind, messages] : u.failure_examples)
        for (const auto& m : messages) fmt::print(stderr, "  {}: {}\n", kind, m);
    }
    if (share_unparsed > flags.max_unparsed) {
      over = true;
      // Which checks, so that the exit names what the model's answers failed.
      std::string causes;
      std::uint64_t checked = 0;
      for (const auto& [check, n] : u.rejected_by_check) {
        causes += fmt::format("{}{} {}", causes.empty() ? "" : ", ", check, n);
        checked += n;
      }
      if (checked < u.unparsed)
        causes +=
            fmt::format("{}not parseable {}", causes.empty() ? "" : ", ", u.unparsed - checked);
      // Judges read without re-asking (G-Eval reads a rating from free text) say so.
      fmt::print(stderr, "probity: {} of {} structured answers from '{}' ({}) {}: {}\n", u.unparsed,
                 u.questions, u.endpoint, u.model,
                 u.reasks > 0 ? fmt::format("stayed unusable after {} re-asks", u.reasks)
                              : std::string("were unusable"),
                 causes);
    }
  }
  if (!over) return code;
  fmt::print(stderr,
             "probity: the affected items are undefined (not defaulted); exit code {} "
             "(--max-failed {}, --max-unparsed {} allow more)\n",
             static_cast<int>(kExitLlmFailures), flags.max_failed, flags.max_unparsed);
  return code == kExitOk ? kExitLlmFailures : code;
}

void report_llm_usage(const std::shared_ptr<llm::Session>& session, const std::string& json_path) {
  if (!session) return;
  if (json_path.empty()) {  // the audit's text report already ends with this table
    std::fflush(stdout);    // keep it after what the command printed when both go to a terminal
    fmt::print(stderr, "LLM usage:\n{}\n", session->accounting().summary());
  }
  if (json_path.empty()) return;
  util::write_file_atomically(json_path, session->accounting().to_json() + "\n");
}

int run_reporting_llm_usage(const std::shared_ptr<llm::Session>& session,
                            const std::string& json_path, const std::function<int()>& run) {
  int code = 0;
  try {
    code = run();
  } catch (...) {
    if (session && session->accounting().total().answers > 0) {
      std::fflush(stdout);
      fmt::print(stderr, "LLM usage:\n{}\n", session->accounting().summary());
      if (!json_path.empty()) {
        try {
          util::write_file_atomically(json_path, session->accounting().to_json() + "\n");
        } catch (const std::exception&) {
          // The error that stopped the command is the one to report.
        }
      }
    }
    throw;
  }
  report_llm_usage(session, json_path);
  return code;
}

int run_with_llm(const LlmFlags& flags, RunContext& context, const std::string& json_path,
                 const std::function<int(Engine&)>& run) {
  auto engine = make_engine(flags, context.console);
  context.llm = engine->llm_or_null();
  const int code = run_reporting_llm_usage(context.llm, json_path, [&] { return run(*engine); });
  return with_llm_failures(code, context.llm, flags);
}

}  // namespace probity::cli
