#include "cli_runner.hpp"

#include <sys/wait.h>

#include <cstdlib>
#include <fstream>
#include <sstream>

#include "test_paths.hpp"

namespace probity::test {

std::string read_text(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  std::stringstream ss;
  ss << in.rdbuf();
  return ss.str();
}

RunResult run_probity(const std::string& args) {
  static int counter = 0;
  std::string dir = temp_dir("cli-run-" + std::to_string(counter++));
  // COLUMNS empty: the tables keep their full width even where the caller exports a width.
  std::string cmd = "COLUMNS= " + probity_binary() + " " + args + " >" + dir + "/out 2>" + dir +
                    "/err </dev/null";
  int status = std::system(cmd.c_str());
  RunResult r;
  r.exit_code = WIFEXITED(status) ? WEXITSTATUS(status) : -1;
  r.out = read_text(dir + "/out");
  r.err = read_text(dir + "/err");
  return r;
}

}  // namespace probity::test
