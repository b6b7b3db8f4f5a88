#include "cli/progress.hpp"

#include <fmt/format.h>
#include <unistd.h>

#include <cstdio>

namespace probity::cli {

Progress::Progress(std::string label)
    : label_(std::move(label)),
      start_(std::chrono::steady_clock::now()),
      enabled_(isatty(2) != 0) {}

Progress::~Progress() {
  finish();
}

void Progress::update(std::size_t done, std::size_t total) {
  if (!enabled_ || total == 0) return;
  double elapsed = std::chrono::duration<double>(std::chrono::steady_clock::now() - start_).count();
  if (elapsed < 1.0) return;
  constexpr int kWidth = 30;
  double frac = static_cast<double>(done) / static_cast<double>(total);
  int filled = static_cast<int>(frac * kWidth);
  double eta = done > 0 ? elapsed * (1.0 - frac) / frac : 0.0;
  fmt::print(stderr, "\r{} [{}{}] {}/{} {:.0f}s left ", label_, std::string(filled, '#'),
             std::string(kWidth - filled, ' '), done, total, eta);
  std::fflush(stderr);
  drawn_ = true;
}

void Progress::finish() {
  if (drawn_) {
    fmt::print(stderr, "\r\033[K");
    std::fflush(stderr);
    drawn_ = false;
  }
}

}  // namespace probity::cli
