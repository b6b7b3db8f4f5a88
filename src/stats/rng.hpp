#pragma once
// Reproducible randomness for resampling: every resample or permutation b draws from its own
// generator seeded from (seed, b), so results do not depend on how b is spread over threads.
#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <exception>
#include <mutex>
#include <stdexcept>
#include <thread>
#include <vector>

namespace probity::stats::detail {

// SplitMix64 finalizer (Steele, Lea & Flood 2014): a bijective 64-bit mixer.
inline constexpr std::uint64_t mix64(std::uint64_t z) {
  z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ULL;
  z = (z ^ (z >> 27)) * 0x94D049BB133111EBULL;
  return z ^ (z >> 31);
}

// xoshiro256** (Blackman & Vigna), state filled by SplitMix64 from the stream key.
class Rng {
 public:
  Rng(std::uint64_t seed, std::uint64_t stream) {
    std::uint64_t sm = mix64(mix64(seed) + mix64(stream ^ 0x5851F42D4C957F2DULL));
    for (auto& word : s_) {
      sm += 0x9E3779B97F4A7C15ULL;
      word = mix64(sm);
    }
  }

  std::uint64_t next() {
    const std::uint64_t result = rotl(s_[1] * 5, 7) * 9;
    const std::uint64_t t = s_[1] << 17;
    s_[2] ^= s_[0];
    s_[3] ^= s_[1];
    s_[1] ^= s_[2];
    s_[0] ^= s_[3];
    s_[2] ^= t;
    s_[3] = rotl(s_[3], 45);
    return result;
  }

  // Uniform integer in [0, bound), bound < 2^32 (Lemire 2019, unbiased).
  std::uint32_t below(std::uint32_t bound) {
    std::uint64_t m = (next() >> 32) * bound;
    auto low = static_cast<std::uint32_t>(m);
    if (low < bound) {
      const std::uint32_t threshold = static_cast<std::uint32_t>(-bound) % bound;
      while (low < threshold) {
        m = (next() >> 32) * bound;
        low = static_cast<std::uint32_t>(m);
      }
    }
    return static_cast<std::uint32_t>(m >> 32);
  }

 private:
  static constexpr std::uint64_t rotl(std::uint64_t x, int k) { return (x << k) | (x >> (64 - k)); }
  std::uint64_t s_[4];
};

inline unsigned resolve_threads(unsigned requested, std::size_t tasks) {
  unsigned t = requested != 0 ? requested : std::max(1u, std::thread::hardware_concurrency());
  return static_cast<unsigned>(std::min<std::size_t>(t, std::max<std::size_t>(tasks, 1)));
}

// Runs body(worker, begin, end) over contiguous blocks of [0, count) on `threads` threads. Each
// task writes only its own outputs, so the block split never changes results. The first exception
// thrown by a worker is rethrown here.
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

}  // namespace probity::stats::detail
