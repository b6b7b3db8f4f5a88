#include "util/line_process.hpp"

#include <fcntl.h>
#include <fmt/format.h>
#include <poll.h>
#include <signal.h>
#include <spawn.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cerrno>
#include <chrono>
#include <cstring>
#include <thread>

extern char** environ;

namespace probity::util {
namespace {

constexpr std::size_t kStderrKeep = 8192;
using Clock = std::chrono::steady_clock;

void close_fd(int& fd) {
  if (fd >= 0) ::close(fd);
  fd = -1;
}

std::string os_error(std::string_view what) {
  return fmt::format("{}: {}", what, std::strerror(errno));
}

// "exited with code 3", "was killed by signal 9", or "closed its output" while still running.
std::string exit_status(pid_t pid) {
  int status = 0;
  // It has closed stdout; give it a moment to finish exiting.
  for (int i = 0; i < 100; ++i) {
    const pid_t r = ::waitpid(pid, &status, WNOHANG);
    if (r == pid) {
      if (WIFEXITED(status)) return fmt::format("exited with code {}", WEXITSTATUS(status));
      if (WIFSIGNALED(status)) return fmt::format("was killed by signal {}", WTERMSIG(status));
      return "ended";
    }
    if (r < 0) return "ended";
    std::this_thread::sleep_for(std::chrono::milliseconds(10));
  }
  return "closed its standard output (still running)";
}

}  // namespace

LineProcess::~LineProcess() {
  stop();
}

void LineProcess::start() {
  // stdin is a socket pair so that writing to a scorer that has gone gives EPIPE (MSG_NOSIGNAL)
  // instead of killing probity with SIGPIPE; stdout and stderr are plain pipes.
  int in[2] = {-1, -1}, out[2] = {-1, -1}, err[2] = {-1, -1};
  auto fail = [&](const std::string& what) {
    for (int* p : {in, out, err})
      for (int k = 0; k < 2; ++k)
        if (p[k] >= 0) ::close(p[k]);
    throw Failure(LineFailure::kStart, fmt::format("cannot start '{}': {}", command_, what));
  };
  if (::socketpair(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0, in) != 0) fail(os_error("socketpair"));
  if (::pipe2(out, O_CLOEXEC) != 0 || ::pipe2(err, O_CLOEXEC) != 0) fail(os_error("pipe"));
  posix_spawn_file_actions_t actions;
  posix_spawn_file_actions_init(&actions);
  posix_spawn_file_actions_adddup2(&actions, in[1], 0);
  posix_spawn_file_actions_adddup2(&actions, out[1], 1);
  posix_spawn_file_actions_adddup2(&actions, err[1], 2);
  posix_spawnattr_t attr;
  posix_spawnattr_init(&attr);
  // Its own process group, so that ending it ends what the shell started too.
  posix_spawnattr_setflags(&attr, POSIX_SPAWN_SETPGROUP);
  posix_spawnattr_setpgroup(&attr, 0);
  const char* argv[] = {"/bin/sh", "-c", command_.c_str(), nullptr};
  pid_t pid = -1;
  const int rc = ::posix_spawn(&pid, "/bin/sh", &actions, &attr, const_cast<char**>(argv), environ);
  posix_spawn_file_actions_destroy(&actions);
  posix_spawnattr_destroy(&attr);
  if (rc != 0) {
    errno = rc;
    fail(os_error("posix_spawn /bin/sh"));
  }
  ::close(in[1]);
  ::close(out[1]);
  ::close(err[1]);
  pid_ = pid;
  in_ = in[0];
  out_ = out[0];
  err_ = err[0];
  for (int fd : {in_, out_, err_}) ::fcntl(fd, F_SETFL, ::fcntl(fd, F_GETFL) | O_NONBLOCK);
  pending_.clear();
  stderr_.clear();
}

void LineProcess::stop() {
  if (pid_ < 0) return;
  close_fd(in_);  // EOF on its stdin: time to exit
  int status = 0;
  bool reaped = false;
  for (int i = 0; i < 50 && !reaped; ++i) {
    if (::waitpid(pid_, &status, WNOHANG) != 0) reaped = true;
    if (!reaped) std::this_thread::sleep_for(std::chrono::milliseconds(10));
  }
  if (!reaped) {
    ::kill(-pid_, SIGKILL);
    ::waitpid(pid_, &status, 0);
  }
  close_fd(out_);
  close_fd(err_);
  pid_ = -1;
}

void LineProcess::drain_stderr() {
  if (err_ < 0) return;
  char buf[4096];
  for (;;) {
    const ssize_t n = ::read(err_, buf, sizeof buf);
    if (n <= 0) {
      if (n == 0) close_fd(err_);
      return;
    }
    stderr_.append(buf, static_cast<std::size_t>(n));
    if (stderr_.size() > kStderrKeep) stderr_.erase(0, stderr_.size() - kStderrKeep);
  }
}

std::string LineProcess::stderr_tail(std::size_t max_lines) const {
  std::string_view s = stderr_;
  while (!s.empty() && (s.back() == '\n' || s.back() == '\r')) s.remove_suffix(1);
  std::size_t begin = s.size();
  for (std::size_t lines = 0; begin > 0 && lines < max_lines;) {
    --begin;
    if (s[begin] == '\n' && ++lines == max_lines) {
      ++begin;
      break;
    }
  }
  return std::string(s.substr(begin));
}

std::string LineProcess::exchange(std::string_view line, double timeout_s) {
  if (pid_ < 0) start();
  const auto deadline = Clock::now() + std::chrono::duration_cast<Clock::duration>(
                                           std::chrono::duration<double>(std::max(timeout_s, 0.0)));
  std::string request(line);
  request += '\n';
  std::size_t written = 0;
  auto failed = [&](LineFailure kind, const std::string& what) {
    drain_stderr();
    std::string message = fmt::format("'{}' {}", command_, what);
    if (const std::string tail = stderr_tail(); !tail.empty())
      message += fmt::format("; the last lines of its stderr:\n{}", tail);
    else
      message += "; it wrote nothing to stderr";
    stop();
    return Failure(kind, message);
  };
  for (;;) {
    if (const auto nl = pending_.find('\n'); nl != std::string::npos && written == request.size()) {
      std::string answer = pending_.substr(0, nl);
      pending_.erase(0, nl + 1);
      drain_stderr();
      return answer;
    }
    const auto left =
        std::chrono::duration_cast<std::chrono::milliseconds>(deadline - Clock::now());
    if (left.count() <= 0)
      throw failed(LineFailure::kTimeout,
                   fmt::format("gave no answer line within {}s (timeout=; {} of {} request bytes "
                               "written, {} answer bytes read)",
                               timeout_s, written, request.size(), pending_.size()));
    pollfd fds[3] = {{out_, POLLIN, 0}, {err_, POLLIN, 0}, {-1, POLLOUT, 0}};
    if (written < request.size()) fds[2].fd = in_;
    const int rc = ::poll(fds, 3, static_cast<int>(std::min<long long>(left.count(), 1000)));
    if (rc < 0) {
      if (errno == EINTR) continue;
      throw failed(LineFailure::kExited, os_error("poll"));
    }
    if (fds[1].revents != 0) drain_stderr();
    if (fds[2].fd >= 0 && fds[2].revents != 0) {
      const ssize_t n =
          ::send(in_, request.data() + written, request.size() - written, MSG_NOSIGNAL);
      if (n > 0) {
        written += static_cast<std::size_t>(n);
      } else if (n < 0 && errno != EAGAIN && errno != EWOULDBLOCK && errno != EINTR) {
        const std::string reason = std::strerror(errno);
        throw failed(LineFailure::kExited, fmt::format("stopped reading its input ({}) and {}",
                                                       reason, exit_status(pid_)));
      }
    }
    if (fds[0].revents != 0) {
      char buf[65536];
      const ssize_t n = ::read(out_, buf, sizeof buf);
      if (n > 0) {
        pending_.append(buf, static_cast<std::size_t>(n));
      } else if (n == 0) {
        throw failed(
            LineFailure::kExited,
            fmt::format("{} before answering{}", exit_status(pid_),
                        pending_.empty() ? std::string()
                                         : fmt::format(" (it wrote {} bytes without a newline)",
                                                       pending_.size())));
      } else if (errno != EAGAIN && errno != EWOULDBLOCK && errno != EINTR) {
        throw failed(LineFailure::kExited, os_error("reading its output"));
      }
    }
  }
}

}  // namespace probity::util
