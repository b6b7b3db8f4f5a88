#pragma once
// A minimal deterministic parallel loop: every index is processed exactly once and writes only
// its own outputs, so results never depend on the thread count or the schedule.
#include <algorithm>
#include <atomic>
#include <exception>
#include <mutex>
#include <thread>
#include <vector>

namespace probity::util {

inline unsigned resolve_threads(unsigned requested, std::size_t work_items) {
  unsigned t = requested ? requested : std::max(1u, std::thread::hardware_concurrency());
  return static_cast<unsigned>(std::min<std::size_t>(t, std::max<std::size_t>(1, work_items)));
}

// Calls fn(i) for i in [0, n) on `threads` threads (0: all cores), in chunks of `chunk`.
// The first exception thrown stops the loop and is rethrown in the caller.
template <class Fn>
void parallel_for(std::size_t n, unsigned threads, Fn&& fn, std::size_t chunk = 8) {
  threads = resolve_threads(threads, (n + chunk - 1) / chunk);
  std::atomic<std::size_t> next{0};
  std::exception_ptr failure;
  std::mutex failure_mutex;
  auto work = [&] {
    try {
      for (;;) {
        std::size_t begin = next.fetch_add(chunk);
        if (begin >= n) return;
        std::size_t end = std::min(n, begin + chunk);
        for (std::size_t i = begin; i < end; ++i) fn(i);
      }
    } catch (...) {
      std::lock_guard lock(failure_mutex);
      if (!failure) failure = std::current_exception();
      next.store(n);
    }
  };
  std::vector<std::thread> pool;
  for (unsigned t = 1; t < threads; ++t) pool.emplace_back(work);
  work();
  for (auto& t : pool) t.join();
  if (failure) std::rethrow_exception(failure);
}

}  // namespace probity::util
