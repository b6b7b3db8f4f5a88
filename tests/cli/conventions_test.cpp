// The command-line conventions: help, version, "did you mean", -q/-v, colour and table width.
#include <gtest/gtest.h>
#include <sys/wait.h>

#include <cstdlib>
#include <sstream>

#include "cli_runner.hpp"
#include "report/format.hpp"
#include "test_paths.hpp"

namespace {

using probity::report::detail::display_width;
using probity::test::run_probity;

bool has(const std::string& text, const std::string& part) {
  return text.find(part) != std::string::npos;
}

std::string sample() {
  return probity::test::data_path("summeval/summeval_sample20.jsonl");
}

// `command` through /bin/sh (environment assignments first): its exit code; stdout into `out`,
// or stdout and stderr when it failed.
int run_shell(const std::string& command, std::string& out) {
  static int counter = 0;
  const std::string dir = probity::test::temp_dir("conventions-" + std::to_string(counter++));
  const int status =
      std::system((command + " >" + dir + "/out 2>" + dir + "/err </dev/null").c_str());
  out = probity::test::read_text(dir + "/out");
  const int code = WIFEXITED(status) ? WEXITSTATUS(status) : -1;
  if (code != 0) out += probity::test::read_text(dir + "/err");
  return code;
}

std::string audit_args(const std::string& out_dir) {
  return " audit --data " + sample() + " --metric bleu --metric chrf --bootstrap 20 --out " +
         out_dir;
}

TEST(CliConventions, BareProbityPrintsHelpOnStderrAndExitsTwo) {
  auto r = run_probity("");
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_TRUE(r.out.empty()) << r.out;
  EXPECT_TRUE(has(r.err, "Usage:")) << r.err;
  for (const char* cmd : {"score", "audit", "correlate", "help"}) EXPECT_TRUE(has(r.err, cmd));
}

TEST(CliConventions, HelpCommandPrintsTheHelpOfACommand) {
  auto r = run_probity("help");
  EXPECT_EQ(r.exit_code, 0) << r.err;
  EXPECT_EQ(r.out, run_probity("--help").out);
  r = run_probity("help score");
  EXPECT_EQ(r.exit_code, 0) << r.err;
  EXPECT_EQ(r.out, run_probity("score --help").out);
  EXPECT_TRUE(has(r.out, "--metric")) << r.out;
  r = run_probity("help meta global");
  EXPECT_EQ(r.exit_code, 0) << r.err;
  EXPECT_TRUE(has(r.out, "--max-spread")) << r.out;
  r = run_probity("help scroe");
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_TRUE(has(r.err, "unknown command 'scroe' (did you mean 'score'?)")) << r.err;
}

TEST(CliConventions, VersionShortAndLong) {
  auto shrt = run_probity("-V"), lng = run_probity("--version");
  EXPECT_EQ(shrt.exit_code, 0);
  EXPECT_TRUE(shrt.out.starts_with("probity ")) << shrt.out;
  EXPECT_EQ(shrt.out, lng.out);
}

TEST(CliConventions, UnknownCommandsAndOptionsGetSuggestions) {
  auto r = run_probity("scroe --data x");
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_TRUE(has(r.err, "unknown command 'scroe' (did you mean 'score'?)")) << r.err;
  r = run_probity("frobnicate");
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_TRUE(has(r.err, "unknown command 'frobnicate'; see `probity --help`")) << r.err;
  r = run_probity("score --data " + sample() + " --metrc bleu");
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_TRUE(has(r.err,
                  "probity: unknown option '--metrc' of `probity score` (did you mean "
                  "'--metric'?); see `probity help score`"))
      << r.err;
  r = run_probity("meta glbal --data x");
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_TRUE(has(r.err, "unknown command 'glbal' (did you mean 'global'?)")) << r.err;
  r = run_probity("meta");  // a command that needs a subcommand: its help
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_TRUE(has(r.err, "`probity meta` needs a command: one of global, local")) << r.err;
}

TEST(CliConventions, QuietSilencesNotesAndVerboseTimesStages) {
  const std::string dir = probity::test::temp_dir("conventions-quiet");
  // bleu has no explanations: `score --explain` notes that the file stays empty.
  const std::string score = " score --data " + sample() + " --metric bleu --out " + dir +
                            "/s.jsonl --explain " + dir + "/e.jsonl";
  auto normal = run_probity(score);
  ASSERT_EQ(normal.exit_code, 0) << normal.err;
  EXPECT_TRUE(has(normal.err, "note: none of the metrics supports --explain")) << normal.err;
  auto quiet = run_probity("-q" + score);
  ASSERT_EQ(quiet.exit_code, 0) << quiet.err;
  EXPECT_FALSE(has(quiet.err, "note:")) << quiet.err;
  EXPECT_TRUE(has(quiet.out, "corpus")) << "the summary is not a note";
  auto verbose = run_probity(audit_args(dir + "/c") + " --verbose");  // after the command too
  ASSERT_EQ(verbose.exit_code, 0) << verbose.err;
  EXPECT_TRUE(has(verbose.err, "s] score bleu degradation R")) << verbose.err;
  EXPECT_TRUE(has(verbose.err, " s] done")) << verbose.err;
  auto plain = run_probity(audit_args(dir + "/a"));
  ASSERT_EQ(plain.exit_code, 0) << plain.err;
  EXPECT_FALSE(has(plain.err, " s] done")) << plain.err;
  EXPECT_EQ(run_probity("-q -v" + audit_args(dir + "/d")).exit_code, 2);
}

TEST(CliConventions, TablesFitColumnsAndKeepEveryWord) {
  const std::string bin = probity::test::probity_binary();
  const std::string dir = probity::test::temp_dir("conventions-width");
  std::string wide, narrow;
  ASSERT_EQ(run_shell("COLUMNS= " + bin + audit_args(dir + "/w"), wide), 0) << wide;
  ASSERT_EQ(run_shell("COLUMNS=72 " + bin + audit_args(dir + "/n"), narrow), 0) << narrow;
  std::size_t widest_before = 0;
  std::istringstream w(wide), n(narrow);
  for (std::string line; std::getline(w, line);)
    widest_before = std::max(widest_before, display_width(line));
  for (std::string line; std::getline(n, line);) {
    if (has(line, dir)) continue;  // the lines naming the report files are not wrapped
    EXPECT_LE(display_width(line), 72u) << line;
  }
  EXPECT_GT(widest_before, 72u);  // the check above was not vacuous
  EXPECT_TRUE(has(narrow, "baseline:length")) << narrow;
}

TEST(CliConventions, ColourOnlyOnATerminalAndNeverWithNoColor) {
  const std::string bin = probity::test::probity_binary();
  const std::string dir = probity::test::temp_dir("conventions-colour");
  std::string plain, tty, no_color_env, no_color_flag;
  ASSERT_EQ(run_shell(bin + audit_args(dir + "/p"), plain), 0) << plain;
  // "\033[0m" ends every coloured cell (the progress bar's erase is "\033[K").
  EXPECT_FALSE(has(plain, "\033[0m")) << "colour in a file";
  // script(1) runs the command on a pseudo-terminal.
  if (std::system("command -v script >/dev/null 2>&1") != 0) GTEST_SKIP() << "no script(1)";
  const auto on_tty = [&](const std::string& env, const std::string& args, std::string& out) {
    return run_shell(
        "script -qec \"env -u NO_COLOR TERM=xterm " + env + " " + bin + args + "\" /dev/null", out);
  };
  ASSERT_EQ(on_tty("", audit_args(dir + "/t"), tty), 0) << tty;
  EXPECT_TRUE(has(tty, "\033[32m") || has(tty, "\033[31m")) << tty;
  ASSERT_EQ(on_tty("NO_COLOR=1", audit_args(dir + "/e"), no_color_env), 0) << no_color_env;
  EXPECT_FALSE(has(no_color_env, "\033[0m")) << no_color_env;
  ASSERT_EQ(on_tty("", audit_args(dir + "/f") + " --no-color", no_color_flag), 0);
  EXPECT_FALSE(has(no_color_flag, "\033[0m")) << no_color_flag;
}

}  // namespace
