#pragma once
#include <stdexcept>
#include <string>

namespace probity {

// A mistake in how the tool was called (unknown metric, bad option value). CLI exit code 2.
class UsageError : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

// An output that could not be written completely (a full disk, a read-only directory, a closed
// pipe): names the path and the operating system's reason. CLI exit code 4. Whatever the file
// held before is left as it was.
class OutputError : public std::runtime_error {
 public:
  OutputError(std::string path, const std::string& reason)
      : std::runtime_error("cannot write '" + path + "': " + reason), path_(std::move(path)) {}
  const std::string& path() const { return path_; }

 private:
  std::string path_;
};

// Exit codes of the command-line tool (docs/cli.md lists them).
enum ExitCode : int {
  kExitOk = 0,
  kExitFailure = 1,       // an internal error
  kExitUsage = 2,         // bad flags, options or configuration
  kExitInvalidInput = 3,  // bad data, or no valid items
  kExitOutput = 4,        // an output could not be written
  kExitLlmFailures = 5,   // more LLM-backed items failed than --max-failed allows
  kExitBatchPending = 6,  // requests were written to a batch file (--batch file): run it, import
  kExitInterrupted = 130  // Ctrl-C (128 + SIGINT)
};

}  // namespace probity
