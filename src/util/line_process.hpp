#pragma once
// A child process spoken to in lines: `/bin/sh -c COMMAND` with its stdin and stdout as pipes,
// one request line written and one answer line read per exchange, its stderr kept (the last few
// kilobytes) for the message when it fails. Used by the exec: metric (metrics/external_scorer.cpp).
#include <sys/types.h>

#include <stdexcept>
#include <string>
#include <string_view>

namespace probity::util {

// Why an exchange failed; LineProcess::Failure carries it with a message naming the command.
enum class LineFailure {
  kStart,    // the shell could not be started
  kExited,   // the process ended (or closed its stdout) before answering
  kTimeout,  // no full answer line within the timeout
};

class LineProcess {
 public:
  struct Failure : std::runtime_error {
    Failure(LineFailure kind_, const std::string& message)
        : std::runtime_error(message), kind(kind_) {}
    LineFailure kind;
  };

  // Starts nothing yet: the process starts at the first exchange.
  explicit LineProcess(std::string command) : command_(std::move(command)) {}
  // Closes its stdin (a well-behaved scorer then exits), waits a moment, then ends its process
  // group.
  ~LineProcess();
  LineProcess(const LineProcess&) = delete;
  LineProcess& operator=(const LineProcess&) = delete;

  // Writes `line` plus '\n' and returns the next line it writes (without '\n'), within
  // `timeout_s` seconds for the whole exchange. Throws Failure; after a failure the process is
  // ended and the next exchange starts a new one.
  std::string exchange(std::string_view line, double timeout_s);
  // The last lines the process wrote to stderr (at most `max_lines`), for messages.
  std::string stderr_tail(std::size_t max_lines = 5) const;

 private:
  void start();
  void stop();
  // Reads what stderr holds now (non-blocking) into the kept tail.
  void drain_stderr();

  std::string command_;
  pid_t pid_ = -1;
  int in_ = -1, out_ = -1, err_ = -1;  // our ends: its stdin, stdout, stderr
  std::string pending_;                // bytes of stdout after the last answer line
  std::string stderr_;                 // its stderr, the last kStderrKeep bytes
};

}  // namespace probity::util
