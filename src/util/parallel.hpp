#pragma once
// Deterministic parallel loops on one persistent pool of worker threads: every index is processed
// exactly once and writes only its own outputs, so results never depend on the thread count or
// the schedule. The pool exists so that the many short loops of an audit (a chunk of items, a
// bootstrap of a few milliseconds) do not pay for creating threads each time.
#include <algorithm>
#include <atomic>
#include <condition_variable>
#include <cstddef>
#include <exception>
#include <functional>
#include <mutex>
#include <thread>
#include <vector>

namespace probity::util {

// The thread count to use: `requested` (0: all cores), never more than there are work items.
inline unsigned resolve_threads(unsigned requested, std::size_t work_items) {
  unsigned t = requested ? requested : std::max(1u, std::thread::hardware_concurrency());
  return static_cast<unsigned>(std::min<std::size_t>(t, std::max<std::size_t>(1, work_items)));
}

// One parallel loop: `slots` pieces of work numbered 0..slots-1, taken by whoever is free (the
// calling thread always takes part, so a loop finishes even when every worker is busy, and a loop
// inside a loop cannot deadlock).
class Job {
 public:
  Job(std::size_t slots, std::function<void(std::size_t)> body)
      : slots_(slots), body_(std::move(body)) {}
  // Runs slots until none is left.
  void work();

 private:
  friend class ThreadPool;
  const std::size_t slots_;
  const std::function<void(std::size_t)> body_;
  std::atomic<std::size_t> next_{0};
  std::atomic<bool> failed_{false};
  std::mutex mutex_;
  std::condition_variable left_;  // a helper has left the job
  unsigned helpers_ = 0;          // workers inside work() (under mutex_)
  std::exception_ptr failure_;    // the first exception (under mutex_)
};

// The process's worker threads, one fewer than the cores (the caller is the last one), started
// on first use and stopped at exit. They hold no state of a run: only loops submitted by
// run_job, which always finish before run_job returns.
class ThreadPool {
 public:
  static ThreadPool& shared();
  // Runs job's slots on the caller and up to `helpers` workers; returns when all are done.
  void run_job(Job& job, unsigned helpers);
  unsigned workers() const;

  ThreadPool(const ThreadPool&) = delete;
  ThreadPool& operator=(const ThreadPool&) = delete;
  ~ThreadPool();

 private:
  ThreadPool();
  struct Impl;
  Impl* impl_;
};

// Calls fn(i) for i in [0, n) on `threads` threads (0: all cores), in chunks of `chunk`.
// The first exception thrown stops the loop and is rethrown in the caller.
template <class Fn>
void parallel_for(std::size_t n, unsigned threads, Fn&& fn, std::size_t chunk = 8) {
  if (n == 0) return;
  chunk = std::max<std::size_t>(chunk, 1);
  const std::size_t chunks = (n + chunk - 1) / chunk;
  threads = resolve_threads(threads, chunks);
  if (threads <= 1) {
    for (std::size_t i = 0; i < n; ++i) fn(i);
    return;
  }
  Job job(chunks, [&](std::size_t c) {
    const std::size_t begin = c * chunk, end = std::min(n, begin + chunk);
    for (std::size_t i = begin; i < end; ++i) fn(i);
  });
  ThreadPool::shared().run_job(job, threads - 1);
}

// Runs body(worker, begin, end) over contiguous blocks of [0, count) on `threads` threads (0: all
// cores), one block per thread: for work whose items cost the same, such as resamples, where
// each worker keeps its own scratch. Block w is always [count*w/threads, count*(w+1)/threads),
// whichever thread runs it. The first exception thrown by a worker is rethrown here.
template <class Body>
void parallel_blocks(std::size_t count, unsigned threads, Body&& body) {
  if (count == 0) return;
  threads = resolve_threads(threads, count);
  if (threads <= 1) {
    body(0u, std::size_t{0}, count);
    return;
  }
  Job job(threads, [&](std::size_t w) {
    body(static_cast<unsigned>(w), count * w / threads, count * (w + 1) / threads);
  });
  ThreadPool::shared().run_job(job, threads - 1);
}

}  // namespace probity::util

namespace probity::util {

// Calls fn(i) for i in [0, n) on `threads` threads of its own, made for this call: for work that
// mostly waits (model requests), where more threads than cores are wanted and the pool's workers
// must not be held up. The first exception thrown stops the loop and is rethrown in the caller.
template <class Fn>
void blocking_for(std::size_t n, unsigned threads, Fn&& fn) {
  threads = resolve_threads(threads, n);
  std::atomic<std::size_t> next{0};
  std::exception_ptr failure;
  std::mutex failure_mutex;
  auto work = [&] {
    try {
      for (std::size_t i; (i = next.fetch_add(1)) < n;) fn(i);
    } catch (...) {
      std::lock_guard lock(failure_mutex);
      if (!failure) failure = std::current_exception();
      next.store(n);
    }
  };
  std::vector<std::thread> extra;
  for (unsigned t = 1; t < threads; ++t) extra.emplace_back(work);
  work();
  for (auto& t : extra) t.join();
  if (failure) std::rethrow_exception(failure);
}

}  // namespace probity::util
