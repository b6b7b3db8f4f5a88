#pragma once
// What the terminal allows, decided once in main() from the global flags and the environment and
// handed to the commands in their args (no process-wide state): verbosity (-q/-v), colour
// (on a terminal unless --no-color or NO_COLOR is set, or TERM=dumb) and the width tables fit.
#include <cstddef>

namespace probity::cli {

struct Console {
  int verbosity = 0;          // -1: -q (no progress, no notes), 0: default, 1: -v (stage timings)
  bool color_stdout = false;  // ANSI colours in the tables on stdout
  bool color_stderr = false;  // a coloured "error:" prefix
  std::size_t width = 0;      // tables fit this many columns (0: no limit)

  bool quiet() const { return verbosity < 0; }
  bool verbose() const { return verbosity > 0; }
};

// From the flags and the environment: colour only on a terminal, never with `no_color` or a
// non-empty NO_COLOR (no-color.org) or TERM=dumb; width from COLUMNS when it is a positive
// number, else from the terminal on stdout (TIOCGWINSZ), else 0 (output to a pipe or file keeps
// the full tables).
Console detect_console(bool no_color, int verbosity);

}  // namespace probity::cli
