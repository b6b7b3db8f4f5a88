// `probity help`, `probity completion` and the hidden `probity man`: texts made from the tool's
// own option tables (docgen.hpp renders them).
#include <fmt/format.h>

#include <CLI/CLI.hpp>

#include "cli/command.hpp"
#include "cli/command_names.hpp"
#include "cli/docgen.hpp"
#include "probity/error.hpp"
#include "probity/version.hpp"
#include "util/suggest.hpp"

namespace probity::cli {
namespace {

// The command-line definition as plain data, for the completions and the man page.
CommandDoc describe_command(CLI::App* app) {
  CommandDoc d;
  d.name = app->get_name();
  d.description = app->get_description();
  d.hidden = app->get_parent() != nullptr && app->get_group().empty();
  for (const CLI::Option* o : app->get_options()) {
    if (!o->nonpositional()) continue;
    OptionDoc od;
    for (const auto& n : o->get_snames()) od.names.push_back("-" + n);
    for (const auto& n : o->get_lnames()) od.names.push_back("--" + n);
    od.description = o->get_description();
    if (o->get_type_size() != 0) {
      const std::string type = o->get_type_name();  // "TEXT:FILE", "UINT:UINT", "TEXT:{a,b}"
      od.value = type.find(":FILE") != std::string::npos ? "FILE" : type.substr(0, type.find(':'));
      if (od.value.empty()) od.value = "VALUE";
      if (auto open = type.find('{'), close = type.find('}');
          open != std::string::npos && close != std::string::npos && close > open) {
        const std::string set = type.substr(open + 1, close - open - 1);
        for (std::size_t start = 0; start <= set.size();) {
          const std::size_t end = std::min(set.find(',', start), set.size());
          if (end > start) od.choices.push_back(set.substr(start, end - start));
          start = end + 1;
        }
      }
    }
    od.default_value = o->get_default_str();
    od.required = o->get_required();
    d.options.push_back(std::move(od));
  }
  for (CLI::App* sub : app->get_subcommands([](CLI::App*) { return true; }))
    d.commands.push_back(describe_command(sub));
  return d;
}

// `probity help [COMMAND [SUBCOMMAND]]`: the help of that command on stdout.
int print_help(CLI::App& app, const std::vector<std::string>& topics) {
  CLI::App* cmd = &app;
  std::string path = app.get_name();  // "probity score", as `probity score --help` shows it
  for (const auto& t : topics) {
    CLI::App* sub = nullptr;
    for (CLI::App* s : cmd->get_subcommands([](CLI::App*) { return true; }))
      if (s->get_name() == t) sub = s;
    if (sub == nullptr || sub->get_name() == "help")
      throw UsageError(fmt::format("help: unknown command '{}'{}", t,
                                   util::did_you_mean(t, subcommand_names(cmd))));
    cmd = sub;
    path += " " + sub->get_name();
  }
  // The formatter directly: App::help() delegates to the parsed subcommand (here `help` itself).
  fmt::print("{}", cmd->get_formatter()->make_help(cmd, path, CLI::AppFormatMode::Normal));
  return kExitOk;
}

}  // namespace

void add_help_commands(CLI::App& app, Commands& commands) {
  auto topics = std::make_shared<std::vector<std::string>>();
  auto* hc = app.add_subcommand("help", "Show the help of probity or of a command");
  hc->add_option("command", *topics, "A command and its subcommand, e.g. score, meta global");
  commands.push_back({hc, [&app, topics](RunContext&) { return print_help(app, *topics); }});
  auto shell = std::make_shared<std::string>();
  auto* compc = app.add_subcommand(
      "completion",
      "Print a shell completion script: bash (source it, or install it as "
      "share/bash-completion/completions/probity) or zsh (as _probity on $fpath)");
  compc->add_option("shell", *shell, "bash or zsh")
      ->required()
      ->check(CLI::IsMember({"bash", "zsh"}));
  commands.push_back({compc, [&app, shell](RunContext&) {
                        const auto doc = describe_command(&app);
                        fmt::print("{}",
                                   *shell == "bash" ? bash_completion(doc) : zsh_completion(doc));
                        return kExitOk;
                      }});
  // Hidden: the man page, built from these option tables at build time (probity.1).
  auto* manc = app.add_subcommand("man", "Print the man page (roff)")->group("");
  commands.push_back({manc, [&app](RunContext&) {
                        fmt::print("{}", man_page(describe_command(&app), version()));
                        return kExitOk;
                      }});
}

}  // namespace probity::cli
