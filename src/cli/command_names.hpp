#pragma once
// The names of commands and options, for the messages of a command line that did not parse and
// for `probity help`.
#include <string>
#include <vector>

namespace CLI {
class App;
}

namespace probity::cli {

// The command a parse reached: the root, or the deepest subcommand given.
CLI::App* deepest_command(CLI::App* app);
// "probity", "probity meta", "probity meta global".
std::string command_path(const CLI::App* cmd);
// The commands `cmd` lists (hidden ones, in the group "", left out).
std::vector<std::string> subcommand_names(CLI::App* cmd);
// A message for the first word CLI11 could not place, with the nearest names; empty when every
// word was placed (the error is of another kind).
std::string unknown_word_message(CLI::App& app);

}  // namespace probity::cli
