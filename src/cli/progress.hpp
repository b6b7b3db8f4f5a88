#pragma once
// One progress line on stderr, drawn only when stderr is a terminal and the work has run for
// half a second (so short runs and logs stay clean). The logic (ProgressLine, Eta) takes its
// clock and its output as arguments, so that tests can drive it without timing.
#include <chrono>
#include <cstddef>
#include <functional>
#include <optional>
#include <string>
#include <string_view>

namespace probity::cli {

// Time left from the rate since the first report with work done, so that set-up before the first
// item (loading, fitting) does not inflate it; none until the estimate is stable: at least
// kMinSeconds and kMinFraction of the remaining work after that first report.
class Eta {
 public:
  static constexpr double kMinSeconds = 2.0;
  static constexpr double kMinFraction = 0.05;
  // `now` in seconds on any monotonic clock. A smaller total or done starts a new estimate.
  void observe(double now, std::size_t done, std::size_t total);
  std::optional<double> seconds_left() const;

 private:
  bool started_ = false;
  double t0_ = 0, now_ = 0;
  std::size_t d0_ = 0, done_ = 0, total_ = 0;
};

// "12 s", "3 min 05 s", "1 h 02 min".
std::string format_duration(double seconds);

class ProgressLine {
 public:
  using Clock = std::function<double()>;               // seconds, monotonic
  using Sink = std::function<void(std::string_view)>;  // receives whole redraws
  static constexpr double kShowAfter = 0.5;            // seconds before the line appears
  static constexpr double kRedrawEvery = 0.1;          // seconds between redraws

  ProgressLine(std::string label, bool enabled, Clock clock, Sink sink);
  // `detail`: what is being worked on ("stage 12/38 score bleu degradation S").
  void update(std::size_t done, std::size_t total, std::string_view detail = {});
  // Erases the line (when one was drawn).
  void finish();
  // The text of one line, without the carriage return.
  std::string text(std::size_t done, std::size_t total, std::string_view detail) const;
  bool drawn() const { return drawn_; }

 private:
  std::string label_;
  bool enabled_;
  Clock clock_;
  Sink sink_;
  double start_;
  double last_draw_ = -1;
  bool drawn_ = false;
  Eta eta_;
};

// The terminal's progress line: stderr, the steady clock, enabled when stderr is a TTY.
class Progress {
 public:
  explicit Progress(std::string label);
  ~Progress();
  Progress(const Progress&) = delete;
  Progress& operator=(const Progress&) = delete;
  void update(std::size_t done, std::size_t total, std::string_view detail = {});
  void finish();

 private:
  ProgressLine line_;
};

}  // namespace probity::cli
