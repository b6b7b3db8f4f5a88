// The persistent pool behind parallel_for and parallel_blocks: every index once, the same output
// at any thread count, exceptions rethrown in the caller, loops inside loops, and no thread
// created per loop.
#include "util/parallel.hpp"

#include <gtest/gtest.h>

#include <atomic>
#include <filesystem>
#include <numeric>
#include <stdexcept>
#include <thread>
#include <vector>

namespace {

std::size_t threads_of_this_process() {
  std::size_t n = 0;
  for ([[maybe_unused]] const auto& e : std::filesystem::directory_iterator("/proc/self/task")) ++n;
  return n;
}

TEST(Parallel, EveryIndexOnceAtAnyThreadCount) {
  for (unsigned threads : {1u, 2u, 3u, 8u}) {
    for (std::size_t n : {0u, 1u, 7u, 1000u}) {
      std::vector<std::atomic<int>> seen(n);
      probity::util::parallel_for(
          n, threads, [&](std::size_t i) { seen[i].fetch_add(1); }, 3);
      for (std::size_t i = 0; i < n; ++i) EXPECT_EQ(seen[i].load(), 1) << i;
    }
  }
}

TEST(Parallel, BlocksAreFixedWhicheverThreadRunsThem) {
  for (unsigned threads : {1u, 2u, 5u}) {
    std::vector<int> owner(103, -1);
    probity::util::parallel_blocks(owner.size(), threads,
                                   [&](unsigned w, std::size_t begin, std::size_t end) {
                                     for (std::size_t i = begin; i < end; ++i)
                                       owner[i] = static_cast<int>(w);
                                   });
    for (unsigned w = 0; w < threads; ++w)
      for (std::size_t i = owner.size() * w / threads; i < owner.size() * (w + 1) / threads; ++i)
        EXPECT_EQ(owner[i], static_cast<int>(w)) << i;
  }
}

TEST(Parallel, TheFirstExceptionReachesTheCaller) {
  for (unsigned threads : {1u, 2u, 4u}) {
    EXPECT_THROW(probity::util::parallel_for(
                     100, threads,
                     [](std::size_t i) {
                       if (i == 42) throw std::runtime_error("item 42");
                     },
                     1),
                 std::runtime_error);
    // The pool is usable afterwards.
    std::atomic<std::size_t> sum{0};
    probity::util::parallel_for(100, threads, [&](std::size_t i) { sum += i; });
    EXPECT_EQ(sum.load(), 4950u);
  }
}

TEST(Parallel, LoopsInsideLoopsFinish) {
  std::vector<std::size_t> sums(16, 0);
  probity::util::parallel_for(
      sums.size(), 0,
      [&](std::size_t i) {
        std::vector<std::size_t> part(50, 0);
        probity::util::parallel_for(
            50, 0, [&](std::size_t j) { part[j] = i * j; }, 1);
        sums[i] = std::accumulate(part.begin(), part.end(), std::size_t{0});
      },
      1);
  for (std::size_t i = 0; i < sums.size(); ++i) EXPECT_EQ(sums[i], i * 1225);
}

TEST(Parallel, ManyShortLoopsCreateNoThreads) {
  probity::util::parallel_for(
      4, 2, [](std::size_t) {}, 1);  // the pool exists from here on
  const std::size_t before = threads_of_this_process();
  std::atomic<std::size_t> count{0};
  for (int r = 0; r < 500; ++r) probity::util::parallel_for(64, 2, [&](std::size_t) { ++count; });
  EXPECT_EQ(count.load(), 500u * 64u);
  EXPECT_EQ(threads_of_this_process(), before);
}

TEST(Parallel, LoopsFromTwoThreadsAtOnce) {
  std::vector<std::size_t> a(5000, 0), b(5000, 0);
  std::thread other([&] {
    for (int r = 0; r < 50; ++r)
      probity::util::parallel_for(a.size(), 2, [&](std::size_t i) { a[i] += i; });
  });
  for (int r = 0; r < 50; ++r)
    probity::util::parallel_for(b.size(), 2, [&](std::size_t i) { b[i] += 2 * i; });
  other.join();
  for (std::size_t i = 0; i < a.size(); ++i) {
    ASSERT_EQ(a[i], 50 * i);
    ASSERT_EQ(b[i], 100 * i);
  }
}

TEST(Parallel, BlockingLoopsRunMoreThreadsThanCores) {
  // Eight items that each wait for all eight to have started: only eight threads finish it.
  std::atomic<int> started{0};
  probity::util::blocking_for(8, 8, [&](std::size_t) {
    ++started;
    while (started.load() < 8) std::this_thread::yield();
  });
  EXPECT_EQ(started.load(), 8);
}

}  // namespace
