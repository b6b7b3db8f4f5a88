#include "metrics/lexical_common.hpp"

#include <algorithm>
#include <atomic>

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

}  // namespace probity::metrics::detail
