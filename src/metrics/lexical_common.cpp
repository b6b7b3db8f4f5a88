#include "metrics/lexical_common.hpp"

#include <algorithm>
#include <atomic>

#include "probity/text.hpp"
#include "text/ascii.hpp"

namespace probity::metrics::detail {

namespace {
// Eight sets cover the audit's pattern (a task's candidates and their perturbations one after
// another on a thread) and rouge1/rouge2/rougeL of the same item.
std::atomic<std::size_t> cache_capacity{8};
}  // namespace

void set_reference_cache_capacity(std::size_t entries) {
  cache_capacity.store(entries, std::memory_order_relaxed);
}
std::size_t reference_cache_capacity() {
  return cache_capacity.load(std::memory_order_relaxed);
}

std::string lower(std::string_view s) {
  if (std::all_of(s.begin(), s.end(),
                  [](char c) { return static_cast<unsigned char>(c) < 0x80; })) {
    return text::ascii_lower(s);
  }
  return text::to_lower(s);
}

}  // namespace probity::metrics::detail
