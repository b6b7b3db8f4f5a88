#pragma once
// Runs the built `probity` binary as a user would and captures what it prints.
#include <string>

namespace probity::test {

struct RunResult {
  int exit_code = -1;
  std::string out;
  std::string err;
};

// `args` is appended to the binary path and run through /bin/sh.
RunResult run_probity(const std::string& args);
std::string read_text(const std::string& path);

}  // namespace probity::test
