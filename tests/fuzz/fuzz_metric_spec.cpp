// Metric names: a metric, or a UsageError (exit 2), never a crash or another exception.
#include <cstdint>
#include <string>

#include "probity/engine.hpp"
#include "probity/error.hpp"
#include "probity/scoring.hpp"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  if (size > 256) return 0;
  std::string text(reinterpret_cast<const char*>(data), size);
  // Specs naming files would read the disk; the file-reading code has targets of its own.
  if (text.find("scores") != std::string::npos || text.find("corpus") != std::string::npos ||
      text.find("prompts") != std::string::npos)
    return 0;
  try {
    auto m = probity::select_metric(text);
    (void)m.metric->signature();
  } catch (const probity::UsageError&) {
  }
  return 0;
}
