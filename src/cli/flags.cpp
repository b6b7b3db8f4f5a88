// What the commands' flags have in common (flags.hpp).
#include "cli/flags.hpp"

#include <charconv>
#include <stdexcept>

#include "cli/llm_context.hpp"
#include "probity/audit.hpp"
#include "probity/error.hpp"
#include "probity/limits.hpp"
#include "probity/stats.hpp"
#include "text/language.hpp"

namespace probity::cli {

CLI::Validator whole(std::uint64_t min, std::uint64_t max) {
  const util::WholeBounds b{min, max};
  return CLI::Validator([b](std::string& s) { return util::whole_number_problem(s, b); },
                        util::describe(b), kBoundsName);
}

CLI::Validator real(const util::RealBounds& b) {
  return CLI::Validator([b](std::string& s) { return util::real_number_problem(s, b); },
                        util::describe(b), kBoundsName);
}

CLI::Validator file_or_stdin() {
  return CLI::Validator(
      [](std::string& s) -> std::string { return s == "-" ? std::string() : CLI::ExistingFile(s); },
      "FILE|-");
}

void add_threads(CLI::App* cmd, unsigned& threads) {
  cmd->add_option("--threads", threads, "Worker threads (0: all cores)")
      ->check(whole(0, limits::kThreads))
      ->capture_default_str();
}

CLI::Option* levels(CLI::Option* option) {
  return one_of(option, {stats::Level::kItem, stats::Level::kTask, stats::Level::kSystem},
                stats::level_name);
}

CLI::Option* level_statistics(CLI::Option* option) {
  return one_of(option, kLevelStatistics, stats::level_statistic_name);
}

std::vector<std::string> level_statistic_names() {
  std::vector<std::string> names;
  for (const auto s : kLevelStatistics) names.emplace_back(stats::level_statistic_name(s));
  return names;
}

CLI::Option* perm_tests(CLI::Option* option) {
  return one_of(option, {stats::PermTest::kScores, stats::PermTest::kPairs}, stats::perm_test_name);
}

CLI::Option* rank_corrections(CLI::Option* option) {
  return one_of(option,
                {stats::RankCorrection::kHolm, stats::RankCorrection::kBenjaminiHochberg,
                 stats::RankCorrection::kNone},
                stats::rank_correction_name);
}

void add_llm_flags(CLI::App* cmd, LlmFlags& f) {
  cmd->add_option("--config", f.config, "LLM configuration (probity.toml)")
      ->check(CLI::ExistingFile);
  cmd->add_option("--llm-base-url", f.overrides.base_url,
                  "OpenAI-compatible endpoint, e.g. http://127.0.0.1:8000/v1");
  cmd->add_option("--llm-model", f.overrides.model, "Model name sent to the endpoint");
  cmd->add_option("--llm-api-key-env", f.overrides.api_key_env,
                  "NAME of the environment variable holding the API key");
  cmd->add_option("--llm-concurrency", f.overrides.concurrency, "LLM requests in flight")
      ->check(whole(1, limits::kLlmConcurrency));
  cmd->add_option("--cache", f.overrides.cache, "LLM response cache (SQLite file)");
  cmd->add_option("--cache-mode", f.overrides.cache_mode, "read-write, read-only, refresh or off");
  cmd->add_option("--llm-max-tokens", f.overrides.max_tokens,
                  "Longest answer of every LLM role (replaces the roles' built-in limits)")
      ->check(whole(1, 1 << 30));
  one_of(cmd->add_option("--llm-structured", f.overrides.structured,
                         "What structured questions ask of the server: schema (each answer's "
                         "JSON Schema, the default), json (any JSON object) or off"),
         {llm::StructuredMode::kSchema, llm::StructuredMode::kJson, llm::StructuredMode::kOff},
         llm::structured_mode_name);
  one_of(cmd->add_option("--llm-server", f.overrides.server,
                         "The server software, where it changes what is sent: auto (the "
                         "default), openai, vllm, sglang, llamacpp or ollama"),
         {llm::ServerKind::kAuto, llm::ServerKind::kOpenAi, llm::ServerKind::kVllm,
          llm::ServerKind::kSglang, llm::ServerKind::kLlamaCpp, llm::ServerKind::kOllama},
         llm::server_kind_name);
  one_of(cmd->add_option("--batch", f.overrides.batch,
                         "Send the LLM requests a run misses in its cache as batches: openai "
                         "(Files + Batches API), anthropic (Message Batches) or file (write "
                         "OpenAI batch JSONL to --batch-dir for vllm run-batch and stop with "
                         "exit 6); half the online price on OpenAI and Anthropic"),
         {llm::BatchMode::kOff, llm::BatchMode::kOpenAi, llm::BatchMode::kAnthropic,
          llm::BatchMode::kFile},
         llm::batch_mode_name);
  cmd->add_option("--batch-dir", f.overrides.batch_dir,
                  "Where --batch file writes its requests files");
  cmd->add_option("--budget-usd", f.overrides.budget_usd,
                  "Stop before submitting a batch whose estimated cost would take the run past "
                  "this many US dollars")
      ->check(real(kNonNegative));
  cmd->add_option("--max-failed", f.max_failed,
                  "Share of an endpoint's LLM requests that may fail (transport, auth, HTTP "
                  "errors) before the run exits with code 5")
      ->check(real(kUnit))
      ->capture_default_str();
  cmd->add_option("--max-unparsed", f.max_unparsed,
                  "Share of an endpoint's structured answers that may stay unusable after "
                  "re-asking before the run exits with code 5")
      ->check(real(kUnit))
      ->capture_default_str();
}

CLI::Validator known_language() {
  return CLI::Validator(
      [](std::string& s) -> std::string { return text::unknown_language(s).value_or(""); }, "");
}

void parse_shard(const std::string& text, std::size_t& index, std::size_t& count) {
  auto slash = text.find('/');
  auto number = [&](std::string_view s, std::size_t& v) {
    auto [p, ec] = std::from_chars(s.data(), s.data() + s.size(), v);
    return ec == std::errc() && p == s.data() + s.size() && !s.empty();
  };
  if (slash == std::string::npos || !number(std::string_view(text).substr(0, slash), index) ||
      !number(std::string_view(text).substr(slash + 1), count) || count == 0 || index >= count)
    throw UsageError(
        fmt::format("--shard '{}': expected I/N with 0 <= I < N (e.g. 0/4 ... 3/4)", text));
}

void require_bounds(CLI::App& app) {
  for (CLI::Option* o : app.get_options()) {
    if (o->get_type_size() == 0) continue;
    const std::string type = o->get_type_name();
    const std::string base = type.substr(0, type.find(':'));
    if (base != "UINT" && base != "INT" && base != "FLOAT") continue;
    try {
      o->get_validator(kBoundsName);
    } catch (const CLI::OptionNotFound&) {
      throw std::logic_error(fmt::format("the numeric option {} of `{}` declares no bounds",
                                         o->get_name(), app.get_name()));
    }
  }
  for (CLI::App* sub : app.get_subcommands([](CLI::App*) { return true; })) require_bounds(*sub);
}

}  // namespace probity::cli
