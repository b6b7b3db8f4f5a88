#pragma once
// Minimal deterministic parallel loops: every index is processed exactly once and writes only its
// own outputs, so results never depend on the thread count or the schedule.
#include <algorithm>
#include <atomic>
#include <cstddef>
#include <exception>
#include <mutex>
#include <thread>
#include <vector>

namespace probity::util {

// The thread count to use: `requested` (0: all cores), never more than there are work items.
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

// Runs body(worker, begin, end) over contiguous blocks of [0, count) on `threads` threads (0: all
// cores), one block per thread: for work whose items cost the same, such as resamples, where
// each worker keeps its own scratch. The first exception thrown by a worker is rethrown here.
template <class Body>
void parallel_blocks(std::size_t count, unsigned threads, Body&& body) {
  if (count == 0) return;
  threads = resolve_threads(threads, count);
  if (threads <= 1) {
    body(0u, std::size_t{0}, count);
    return;
  }
  std::exception_ptr error;
  std::mutex error_mutex;
  std::vector<std::thread> pool;
  pool.reserve(threads);
  for (unsigned w = 0; w < threads; ++w) {
    const std::size_t begin = count * w / threads;
    const std::size_t end = count * (w + 1) / threads;
    pool.emplace_back([&, w, begin, end] {
      try {
        body(w, begin, end);
      } catch (...) {
        std::lock_guard lock(error_mutex);
        if (!error) error = std::current_exception();
      }
    });
  }
  for (auto& t : pool) t.join();
  if (error) std::rethrow_exception(error);
}

}  // namespace probity::util
