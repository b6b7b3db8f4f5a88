#pragma once
// The project's own random number generators (the only others, in util/numpy_random.hpp,
// reproduce NumPy's streams where a reference tool's numbers are to be matched). Both are portable
// (the same bytes on every platform and compiler for a given seed), unlike <random>'s
// distributions, whose algorithms are implementation-defined; pinned results (perturbations,
// calibration, resampling) depend on that.
#include <cstddef>
#include <cstdint>
#include <vector>

namespace probity::util {

// SplitMix64 finalizer (Steele, Lea & Flood 2014): a bijective 64-bit mixer.
inline constexpr std::uint64_t mix64(std::uint64_t z) {
  z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ULL;
  z = (z ^ (z >> 27)) * 0x94D049BB133111EBULL;
  return z ^ (z >> 31);
}

// The SplitMix64 generator: a Weyl sequence (step 2^64 / golden ratio) through mix64. A single
// sequential stream; the perturbations and the support judge's calibration draw from it.
class SplitMix64 {
 public:
  explicit SplitMix64(std::uint64_t seed) : state_(seed) {}

  std::uint64_t next() { return mix64(state_ += 0x9E3779B97F4A7C15ULL); }

  // Uniform in [0, bound), unbiased: draws past the last whole multiple of bound are redrawn.
  // 0 for bound <= 1 without consuming a draw.
  std::size_t below(std::size_t bound) {
    if (bound <= 1) return 0;
    const auto b = static_cast<std::uint64_t>(bound);
    const std::uint64_t threshold = (0 - b) % b;
    for (;;) {
      const std::uint64_t r = next();
      if (r >= threshold) return static_cast<std::size_t>(r % b);
    }
  }
  double uniform() { return static_cast<double>(next() >> 11) * 0x1.0p-53; }  // [0, 1)
  bool chance(double p) { return uniform() < p; }
  template <class T>
  const T& pick(const std::vector<T>& items) {
    return items[below(items.size())];
  }

 private:
  std::uint64_t state_;
};

// xoshiro256** (Blackman & Vigna), state filled by SplitMix64 from the (seed, stream) key. Used
// where every resample, permutation or draw b gets its own generator seeded from (seed, b), so
// results do not depend on how the b are spread over threads.
class Rng {
 public:
  Rng(std::uint64_t seed, std::uint64_t stream) {
    SplitMix64 sm(mix64(mix64(seed) + mix64(stream ^ 0x5851F42D4C957F2DULL)));
    for (auto& word : s_) word = sm.next();
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

}  // namespace probity::util
