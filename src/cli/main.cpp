// The `probity` command-line tool: the global flags, the commands (each added by its cmd_*.cpp,
// flags bound onto the library's request), the parse, and the exit code of every error kind.
#include <fmt/format.h>
#include <fmt/ranges.h>

#include <CLI/CLI.hpp>
#include <exception>
#include <stdexcept>
#include <string_view>
#include <system_error>

#include "cli/command.hpp"
#include "cli/command_names.hpp"
#include "cli/flags.hpp"
#include "cli/terminal.hpp"
#include "llm/prompts.hpp"
#include "llm/session.hpp"
#include "probity/error.hpp"
#include "probity/version.hpp"
#include "util/output_file.hpp"

int main(int argc, char** argv) {
  using namespace probity;
  CLI::App app{"probity: reference-based text evaluation metrics and their audit", "probity"};
  app.set_version_flag("-V,--version",
                       "probity " + version() + "\nprompts: " + llm::default_prompts_dir());
  app.require_subcommand(1);
  // The global flags: accepted before or after the command (they fall through to the root).
  app.fallthrough();
  bool quiet = false, verbose = false, no_color = false;
  auto* quiet_flag =
      app.add_flag("-q,--quiet", quiet, "No progress bars and no notes on stderr (warnings stay)");
  app.add_flag("-v,--verbose", verbose, "Also the time each stage of a run takes, on stderr")
      ->excludes(quiet_flag);
  app.add_flag("--no-color", no_color,
               "No colours (also when NO_COLOR is set; colours only ever go to a terminal)");

  cli::Commands commands;
  for (auto add : {cli::add_score_command, cli::add_fit_command, cli::add_correlate_command,
                   cli::add_compare_command, cli::add_rank_command, cli::add_significance_command,
                   cli::add_power_command, cli::add_audit_command, cli::add_perturb_command,
                   cli::add_merge_command, cli::add_select_command, cli::add_attack_command,
                   cli::add_meta_command, cli::add_bench_build_command, cli::add_metrics_command,
                   cli::add_cache_command, cli::add_help_commands})
    add(app, commands);
  try {
    cli::require_bounds(app);
  } catch (const std::logic_error& e) {
    fmt::print(stderr, "probity: internal error: {}\n", e.what());
    return kExitFailure;
  }
  const auto error_prefix = [&] {
    return cli::detect_console(no_color, 0).color_stderr ? std::string("\033[1;31mprobity:\033[0m")
                                                         : std::string("probity:");
  };
  if (argc <= 1) {
    // Bare `probity`: the help, on stderr as no command ran, and the usage exit code.
    fmt::print(stderr, "{}", app.help());
    return kExitUsage;
  }
  try {
    app.parse(argc, argv);
  } catch (const CLI::ParseError& e) {
    if (e.get_exit_code() != static_cast<int>(CLI::ExitCodes::Success)) {
      if (const std::string message = cli::unknown_word_message(app); !message.empty()) {
        fmt::print(stderr, "{} {}\n", error_prefix(), message);
        return kExitUsage;
      }
      CLI::App* cmd = cli::deepest_command(&app);
      if (cmd->get_require_subcommand_min() > 0 && cmd->get_subcommands().empty()) {
        // `probity -q` or `probity meta`: that command's help, then what is missing.
        fmt::print(stderr, "{}\n{} `{}` needs a command: one of {}\n", cmd->help(), error_prefix(),
                   cli::command_path(cmd), fmt::join(cli::subcommand_names(cmd), ", "));
        return kExitUsage;
      }
    }
    int code = app.exit(e);  // help and version texts too
    try {
      util::check_stdout();
    } catch (const OutputError& out) {
      fmt::print(stderr, "probity: {}\n", out.what());
      return kExitOutput;
    }
    return code == 0 ? kExitOk : kExitUsage;
  }

  cli::RunContext context{cli::detect_console(no_color, verbose ? 1 : quiet ? -1 : 0), nullptr};
  CLI::App* parsed = cli::deepest_command(&app);
  try {
    int code = kExitUsage;
    for (const cli::Command& c : commands)
      if (c.app == parsed) code = c.run(context);
    // Every command's tables go to stdout: a full disk or a closed pipe there is an error too.
    util::check_stdout();
    return code;
  } catch (const InputError& e) {
    fmt::print(stderr, "{} invalid input: {}\n", error_prefix(), e.what());
    return kExitInvalidInput;
  } catch (const OutputError& e) {
    fmt::print(stderr, "{} {}\n", error_prefix(), e.what());
    return kExitOutput;
  } catch (const llm::BatchPending& e) {
    fmt::print(stderr, "{}\n", e.what());
    return kExitBatchPending;
  } catch (const llm::BudgetExceeded& e) {
    fmt::print(stderr, "{} {}\n", error_prefix(), e.what());
    return kExitLlmFailures;
  } catch (const llm::EndpointDown& e) {
    fmt::print(stderr, "{} {}\n", error_prefix(), e.what());
    // Only a cache that is written keeps the answers for a rerun.
    if (context.llm && context.llm->cache() != nullptr &&
        context.llm->config().cache_mode != llm::CacheMode::kReadOnly)
      fmt::print(stderr,
                 "The answers received so far are in the LLM cache (--cache): the same command "
                 "resumes once the endpoint works.\n");
    return kExitLlmFailures;
  } catch (const UsageError& e) {
    fmt::print(stderr, "{} {}\n", error_prefix(), e.what());
    return kExitUsage;
  } catch (const std::system_error& e) {
    // fmt::print to a full or closed standard output.
    if (std::string_view(e.what()).starts_with("cannot write to file")) {
      fmt::print(stderr, "{} cannot write to standard output: {}\n", error_prefix(),
                 e.code().message());
      return kExitOutput;
    }
    fmt::print(stderr, "{} error: {}\n", error_prefix(), e.what());
    return kExitFailure;
  } catch (const std::exception& e) {
    fmt::print(stderr, "{} error: {}\n", error_prefix(), e.what());
    return kExitFailure;
  }
}
