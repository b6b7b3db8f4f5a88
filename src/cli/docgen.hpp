#pragma once
// Shell completions and the man page, generated from the command-line definition main.cpp
// builds with CLI11 (it converts it into these plain structs, so this file needs no CLI11).
#include <string>
#include <vector>

namespace probity::cli {

struct OptionDoc {
  std::vector<std::string> names;  // "-q", "--quiet"
  std::string description;
  std::string value;                 // "" for a flag, else the value's type, e.g. "TEXT", "UINT"
  std::vector<std::string> choices;  // the accepted values, when a closed set
  std::string default_value;         // as --help shows it; "" when none
  bool required = false;
};

struct CommandDoc {
  std::string name;  // "probity", "score", "global"
  std::string description;
  std::vector<OptionDoc> options;
  std::vector<CommandDoc> commands;
  bool hidden = false;  // left out of the man page (completion, man)
};

// A bash completion script for `probity` (complete -F): the commands at each level, the options
// of each command (and the global ones), the choices of options with a closed set of values and
// file names for the others.
std::string bash_completion(const CommandDoc& root);
// The same completion for zsh, through zsh's bashcompinit (loaded when not yet).
std::string zsh_completion(const CommandDoc& root);
// probity.1 in man(7) roff: every command with its options, exit status, environment.
std::string man_page(const CommandDoc& root, const std::string& version);

}  // namespace probity::cli
