#include "cli/progress.hpp"

#include <fmt/format.h>
#include <unistd.h>

#include <algorithm>
#include <cmath>
#include <cstdio>

namespace probity::cli {

void Eta::observe(double now, std::size_t done, std::size_t total) {
  if (started_ && (total != total_ || done < done_)) started_ = false;  // new work
  total_ = total;
  done_ = done;
  now_ = now;
  if (!started_ && done > 0) {
    started_ = true;
    t0_ = now;
    d0_ = done;
  }
}

std::optional<double> Eta::seconds_left() const {
  if (!started_ || total_ == 0 || done_ >= total_) return std::nullopt;
  const double elapsed = now_ - t0_;
  const double progressed = static_cast<double>(done_ - d0_);
  const double remaining_at_start = static_cast<double>(total_ - d0_);
  if (elapsed < kMinSeconds || progressed <= 0 || progressed < kMinFraction * remaining_at_start)
    return std::nullopt;
  return static_cast<double>(total_ - done_) * elapsed / progressed;
}

std::string format_duration(double seconds) {
  const auto s = static_cast<long long>(std::llround(std::max(0.0, seconds)));
  if (s < 60) return fmt::format("{} s", s);
  if (s < 3600) return fmt::format("{} min {:02} s", s / 60, s % 60);
  return fmt::format("{} h {:02} min", s / 3600, (s % 3600) / 60);
}

ProgressLine::ProgressLine(std::string label, bool enabled, Clock clock, Sink sink)
    : label_(std::move(label)),
      enabled_(enabled),
      clock_(std::move(clock)),
      sink_(std::move(sink)),
      start_(clock_ ? clock_() : 0.0) {}

std::string ProgressLine::text(std::size_t done, std::size_t total, std::string_view detail) const {
  constexpr int kWidth = 24;
  constexpr std::size_t kDetailChars = 48;
  const double frac =
      total == 0 ? 0.0 : std::min(1.0, static_cast<double>(done) / static_cast<double>(total));
  const int filled = static_cast<int>(frac * kWidth);
  std::string out = fmt::format("{} [{}{}] {:3.0f}% {}/{}", label_, std::string(filled, '#'),
                                std::string(kWidth - filled, ' '), frac * 100, done, total);
  if (auto left = eta_.seconds_left()) out += fmt::format(", ~{} left", format_duration(*left));
  if (!detail.empty()) {
    std::string d(detail.substr(0, kDetailChars));
    if (detail.size() > kDetailChars) d += "...";
    out += "  " + d;
  }
  return out;
}

void ProgressLine::update(std::size_t done, std::size_t total, std::string_view detail) {
  if (!enabled_ || total == 0) return;
  const double now = clock_() - start_;
  eta_.observe(now, done, total);
  if (now < kShowAfter) return;
  if (drawn_ && now - last_draw_ < kRedrawEvery && done < total) return;
  last_draw_ = now;
  // Clear to the end of the line: the previous redraw may have been longer.
  sink_("\r" + text(done, total, detail) + "\033[K");
  drawn_ = true;
}

void ProgressLine::finish() {
  if (!drawn_) return;
  sink_("\r\033[K");
  drawn_ = false;
}

namespace {

double steady_seconds() {
  return std::chrono::duration<double>(std::chrono::steady_clock::now().time_since_epoch()).count();
}

void to_stderr(std::string_view s) {
  std::fwrite(s.data(), 1, s.size(), stderr);
  std::fflush(stderr);
}

}  // namespace

Progress::Progress(std::string label)
    : line_(std::move(label), isatty(2) != 0, steady_seconds, to_stderr) {}

Progress::~Progress() {
  finish();
}

void Progress::update(std::size_t done, std::size_t total, std::string_view detail) {
  line_.update(done, total, detail);
}

void Progress::finish() {
  line_.finish();
}

}  // namespace probity::cli
