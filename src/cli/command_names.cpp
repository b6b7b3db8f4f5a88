// The names of commands and options (command_names.hpp).
#include "cli/command_names.hpp"

#include <fmt/format.h>

#include <CLI/CLI.hpp>

#include "util/suggest.hpp"

namespace probity::cli {
namespace {

// The option names a command accepts: its own and, as the global flags fall through, its
// parents'.
std::vector<std::string> option_names(CLI::App* cmd) {
  std::vector<std::string> names;
  for (CLI::App* c = cmd; c != nullptr; c = c->get_parent())
    for (const CLI::Option* o : c->get_options()) {
      for (const auto& l : o->get_lnames()) names.push_back("--" + l);
      for (const auto& sn : o->get_snames()) names.push_back("-" + sn);
    }
  return names;
}

}  // namespace

CLI::App* deepest_command(CLI::App* app) {
  for (;;) {
    auto parsed = app->get_subcommands();
    if (parsed.empty()) return app;
    app = parsed.front();
  }
}

std::string command_path(const CLI::App* cmd) {
  std::string path = cmd->get_name();
  for (const CLI::App* p = cmd->get_parent(); p != nullptr; p = p->get_parent())
    path = p->get_name() + " " + path;
  return path;
}

std::vector<std::string> subcommand_names(CLI::App* cmd) {
  std::vector<std::string> names;
  for (CLI::App* sub : cmd->get_subcommands([](CLI::App*) { return true; }))
    if (!sub->get_group().empty()) names.push_back(sub->get_name());
  return names;
}

std::string unknown_word_message(CLI::App& app) {
  const auto left = app.remaining(true);
  if (left.empty()) return {};
  CLI::App* cmd = deepest_command(&app);
  const std::string& word = left.front();
  if (word.size() > 1 && word[0] == '-') {
    const std::string name = word.substr(0, word.find('='));
    return fmt::format("unknown option '{}' of `{}`{}; see `probity help{}`", name,
                       command_path(cmd), util::did_you_mean(name, option_names(cmd)),
                       cmd == &app ? "" : command_path(cmd).substr(app.get_name().size()));
  }
  if (!cmd->get_subcommands([](CLI::App*) { return true; }).empty())
    return fmt::format("unknown command '{}'{}; see `{} --help`", word,
                       util::did_you_mean(word, subcommand_names(cmd)), command_path(cmd));
  return fmt::format("{}: unexpected argument '{}'", command_path(cmd), word);
}

}  // namespace probity::cli
