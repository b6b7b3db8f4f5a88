// `probity completion bash|zsh` and `probity man`: generated from the option tables, so every
// command and option is in them; the bash script is run to check what it completes.
#include <gtest/gtest.h>
#include <sys/wait.h>

#include <cstdlib>
#include <fstream>
#include <sstream>

#include "cli_runner.hpp"
#include "test_paths.hpp"

namespace {

using probity::test::run_probity;

bool has(const std::string& text, const std::string& part) {
  return text.find(part) != std::string::npos;
}

// What the bash completion offers for the command line `words` (the last word is completed).
std::string complete(const std::string& script, const std::string& words) {
  static int counter = 0;
  const std::string dir = probity::test::temp_dir("docgen-" + std::to_string(counter++));
  std::ofstream(dir + "/probity.bash") << script;
  std::ofstream(dir + "/run.sh") << "source " << dir << "/probity.bash\n"
                                 << "COMP_WORDS=(" << words << ")\n"
                                 << "COMP_CWORD=$(( ${#COMP_WORDS[@]} - 1 ))\n"
                                 << "_probity\nprintf '%s\\n' \"${COMPREPLY[@]}\" | sort\n";
  const int status =
      std::system(("bash " + dir + "/run.sh >" + dir + "/out 2>" + dir + "/err").c_str());
  EXPECT_TRUE(WIFEXITED(status) && WEXITSTATUS(status) == 0)
      << probity::test::read_text(dir + "/err");
  return probity::test::read_text(dir + "/out");
}

TEST(CliDocgen, BashCompletionCompletesCommandsOptionsAndValues) {
  auto r = run_probity("completion bash");
  ASSERT_EQ(r.exit_code, 0) << r.err;
  ASSERT_TRUE(has(r.out, "complete -F _probity probity"));
  EXPECT_EQ(complete(r.out, "probity sc"), "score\n");
  EXPECT_EQ(complete(r.out, "probity co"), "compare\ncompletion\ncorrelate\n");
  EXPECT_EQ(complete(r.out, "probity meta g"), "global\n");
  EXPECT_EQ(complete(r.out, "probity score --me"), "--metric\n--metrics\n");
  EXPECT_EQ(complete(r.out, "probity meta global --max-s"), "--max-spread\n");
  EXPECT_EQ(complete(r.out, "probity correlate --level ''"), "item\nsystem\ntask\n");
  EXPECT_EQ(complete(r.out, "probity audit --no-c"), "--no-color\n");  // a global flag
  EXPECT_FALSE(has(complete(r.out, "probity ''"), "man\n"));           // hidden
  // A file name after an option that takes a path.
  const std::string dir = probity::test::temp_dir("docgen-files");
  std::ofstream(dir + "/tasks.jsonl") << "{}\n";
  EXPECT_EQ(complete(r.out, "probity score --data " + dir + "/ta"), dir + "/tasks.jsonl\n");
}

TEST(CliDocgen, ZshCompletionLoadsTheSameFunction) {
  auto r = run_probity("completion zsh");
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_TRUE(r.out.starts_with("#compdef probity\n")) << r.out;
  EXPECT_TRUE(has(r.out, "bashcompinit"));
  EXPECT_TRUE(has(r.out, run_probity("completion bash").out));
  EXPECT_EQ(run_probity("completion fish").exit_code, 2);
}

TEST(CliDocgen, ManPageHasEveryCommandAndOption) {
  auto r = run_probity("man");
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_TRUE(r.out.starts_with(".\\\" probity.1")) << r.out.substr(0, 200);
  EXPECT_TRUE(has(r.out, ".TH PROBITY 1"));
  for (const char* section : {".SS \"probity score\"", ".SS \"probity meta global\"",
                              ".SS \"probity audit\"", ".SH EXIT STATUS", ".SH ENVIRONMENT"})
    EXPECT_TRUE(has(r.out, section)) << section;
  EXPECT_TRUE(has(r.out, "\\fB\\-\\-metric\\fR \\fITEXT\\fR")) << "an option with its value";
  EXPECT_TRUE(has(r.out, "\\fB\\-q\\fR, \\fB\\-\\-quiet\\fR")) << "a global flag";
  EXPECT_FALSE(has(r.out, ".SS \"probity man\""));  // hidden from itself
  // Every line that starts with a dot is a man(7) macro (text cannot start a request by chance).
  std::istringstream in(r.out);
  for (std::string line; std::getline(in, line);)
    if (line.starts_with(".") || line.starts_with("'")) {
      const std::string macro = line.substr(0, line.find(' '));
      EXPECT_TRUE(macro == ".\\\"" || macro == ".TH" || macro == ".SH" || macro == ".SS" ||
                  macro == ".TP" || macro == ".RS" || macro == ".RE" || macro == ".B" ||
                  macro == ".I" || macro == ".br")
          << line;
    }
  // Rendered without warnings where groff is installed (man-db depends on it).
  if (std::system("command -v groff >/dev/null 2>&1") != 0) GTEST_SKIP() << "no groff";
  const std::string dir = probity::test::temp_dir("docgen-man");
  std::ofstream(dir + "/probity.1") << r.out;
  const int status = std::system(
      ("groff -man -Tutf8 -ww " + dir + "/probity.1 >" + dir + "/out 2>" + dir + "/err").c_str());
  EXPECT_TRUE(WIFEXITED(status) && WEXITSTATUS(status) == 0);
  EXPECT_EQ(probity::test::read_text(dir + "/err"), "");
  EXPECT_TRUE(has(probity::test::read_text(dir + "/out"), "probity score"));
}

}  // namespace
