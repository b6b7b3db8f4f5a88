#pragma once
#include <stdexcept>
#include <string>

namespace probity {

// A mistake in how the tool was called (unknown metric, bad option value). CLI exit code 2.
class UsageError : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

// Exit codes of the command-line tool.
enum ExitCode : int { kExitOk = 0, kExitFailure = 1, kExitUsage = 2, kExitInvalidInput = 3 };

}  // namespace probity
