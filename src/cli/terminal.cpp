#include "cli/terminal.hpp"

#include <sys/ioctl.h>
#include <unistd.h>

#include <charconv>
#include <cstdlib>
#include <string_view>

namespace probity::cli {

namespace {

bool env_set(const char* name) {
  const char* v = std::getenv(name);
  return v != nullptr && *v != '\0';
}

std::size_t terminal_width() {
  if (const char* columns = std::getenv("COLUMNS"); columns != nullptr) {
    std::string_view s(columns);
    std::size_t n = 0;
    auto [p, ec] = std::from_chars(s.data(), s.data() + s.size(), n);
    if (ec == std::errc() && p == s.data() + s.size() && n > 0) return n;
  }
  if (isatty(STDOUT_FILENO) == 0) return 0;
  winsize ws{};
  if (ioctl(STDOUT_FILENO, TIOCGWINSZ, &ws) == 0 && ws.ws_col > 0) return ws.ws_col;
  return 0;
}

}  // namespace

Console detect_console(bool no_color, int verbosity) {
  Console c;
  c.verbosity = verbosity;
  const char* term = std::getenv("TERM");
  const bool allow =
      !no_color && !env_set("NO_COLOR") && !(term != nullptr && std::string_view(term) == "dumb");
  c.color_stdout = allow && isatty(STDOUT_FILENO) != 0;
  c.color_stderr = allow && isatty(STDERR_FILENO) != 0;
  c.width = terminal_width();
  return c;
}

}  // namespace probity::cli
