#pragma once
// A progress bar on stderr, drawn only when stderr is a terminal and the work has run for more
// than a second (so short runs and logs stay clean).
#include <chrono>
#include <cstddef>
#include <string>

namespace probity::cli {

class Progress {
 public:
  explicit Progress(std::string label);
  ~Progress();
  void update(std::size_t done, std::size_t total);
  void finish();

 private:
  std::string label_;
  std::chrono::steady_clock::time_point start_;
  bool enabled_;
  bool drawn_ = false;
};

}  // namespace probity::cli
