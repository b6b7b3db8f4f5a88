#pragma once
// The subcommands of the `probity` tool. Each cmd_*.cpp adds its command: the flags bound
// straight onto the library's request (probity/requests.hpp, probity/audit.hpp, ...) and how
// the parsed request runs. main.cpp adds them in the order `probity --help` lists them.
#include <functional>
#include <memory>
#include <vector>

#include "cli/terminal.hpp"

namespace CLI {
class App;
}
namespace probity::llm {
class Session;
}

namespace probity::cli {

// What every command's run is given once the command line is parsed.
struct RunContext {
  Console console;  // from the global -q, -v and --no-color
  // The LLM session of the command's engine, once it has one: after an endpoint failed, whether
  // its answers are in a cache decides what the error message suggests.
  std::shared_ptr<llm::Session> llm;
};

struct Command {
  CLI::App* app = nullptr;  // run when this (sub)command was parsed
  std::function<int(RunContext&)> run;
};
using Commands = std::vector<Command>;

void add_score_command(CLI::App& app, Commands& commands);
void add_fit_command(CLI::App& app, Commands& commands);  // freezes a fitted metric
void add_correlate_command(CLI::App& app, Commands& commands);
void add_compare_command(CLI::App& app, Commands& commands);
void add_rank_command(CLI::App& app, Commands& commands);
void add_significance_command(CLI::App& app, Commands& commands);
void add_power_command(CLI::App& app, Commands& commands);
void add_audit_command(CLI::App& app, Commands& commands);
void add_perturb_command(CLI::App& app, Commands& commands);
void add_merge_command(CLI::App& app, Commands& commands);
void add_select_command(CLI::App& app, Commands& commands);
void add_attack_command(CLI::App& app, Commands& commands);
void add_meta_command(CLI::App& app, Commands& commands);  // meta global, meta local
void add_bench_build_command(CLI::App& app, Commands& commands);
void add_metrics_command(CLI::App& app, Commands& commands);
// cache stats | batches | import | export | merge: the LLM response cache and its batches.
void add_cache_command(CLI::App& app, Commands& commands);
// help, completion and the hidden man page: texts made from `app`'s own option tables.
void add_help_commands(CLI::App& app, Commands& commands);

}  // namespace probity::cli
