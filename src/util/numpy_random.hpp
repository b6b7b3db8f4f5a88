#pragma once
// NumPy's random streams, reproduced bit for bit so that probity's significance tests draw the
// very indices of the reference implementations (NumPy 1.17 .. 2.x; checked against NumPy 1.24.2
// in tests/util/numpy_random_test.cpp):
//  - Pcg64: numpy.random.default_rng(seed), i.e. PCG64 (128-bit LCG, XSL-RR output) seeded by
//    SeedSequence(seed); with Generator.integers / choice / random as sacreBLEU's
//    significance.py calls them.
//  - Mt19937: the legacy global state after numpy.random.seed(seed) (RandomState's MT19937 with
//    init_genrand), with RandomState.randint / choice as rouge-score's BootstrapAggregator
//    calls them.
// Both are plain value types: copying one copies the stream.
#include <cstddef>
#include <cstdint>
#include <span>
#include <vector>

namespace probity::util {

// GCC and Clang's 128-bit integer (__extension__: no -Wpedantic warning).
__extension__ typedef unsigned __int128 Uint128;

// numpy.random.SeedSequence(entropy).generate_state(n_words, np.uint32) for a non-negative
// integer entropy and no spawn key (the pool of 4 words, NumPy's hashmix constants).
std::vector<std::uint32_t> seed_sequence_state(std::uint64_t entropy, std::size_t n_words);

// numpy.add.reduce of a contiguous float64 array (so ndarray.sum() and, divided by the size,
// ndarray.mean()): 0 plus the pairwise sum (blocks of up to 128 summed with 8 accumulators).
double numpy_sum(std::span<const double> values);
inline double numpy_mean(std::span<const double> values) {
  return numpy_sum(values) / static_cast<double>(values.size());
}

class Pcg64 {
 public:
  // numpy.random.default_rng(seed).bit_generator.
  explicit Pcg64(std::uint64_t seed);

  // bit_generator.random_raw(): the next 64-bit output.
  std::uint64_t next64();
  // NumPy's next_uint32: the low half of a 64-bit output, its high half on the next call.
  std::uint32_t next32();
  // Generator.random(): (next64 >> 11) * 2^-53.
  double random() { return static_cast<double>(next64() >> 11) * 0x1.0p-53; }
  // Generator.integers(0, n, size=count, dtype=np.int64), which is also
  // Generator.choice(n, size=count, replace=True): Lemire's bounded method on 32-bit draws for
  // n <= 2^32 (one call's draws share nothing but the 32-bit half buffered by next32).
  // n must be >= 1; n == 1 draws nothing.
  void integers(std::uint64_t n, std::span<std::int64_t> out);
  // Generator.integers(2, size=count, dtype=bool): one 32-bit draw gives 32 booleans, lowest
  // bit first; the buffer lives for one call.
  // Successive calls with the same buffer continue one call's stream (a call's output cut in
  // pieces, e.g. row by row).
  struct BoolBuffer {
    std::uint32_t bits = 0;
    int left = 0;
  };
  void booleans(std::span<std::uint8_t> out, BoolBuffer& buffer);
  void booleans(std::span<std::uint8_t> out) {
    BoolBuffer buffer;
    booleans(out, buffer);
  }

  // The raw state, for the tests (numpy's bit_generator.state["state"]).
  Uint128 state() const { return state_; }
  Uint128 increment() const { return inc_; }

 private:
  void step() { state_ = state_ * kMultiplier + inc_; }
  static constexpr Uint128 kMultiplier =
      (static_cast<Uint128>(2549297995355413924ULL) << 64) | 4865540595714422341ULL;
  Uint128 state_ = 0, inc_ = 0;
  bool has_half_ = false;
  std::uint32_t half_ = 0;
};

class Mt19937 {
 public:
  // The state numpy.random.seed(seed) leaves (init_genrand); seed < 2^32.
  explicit Mt19937(std::uint32_t seed);
  std::uint32_t next32();
  // RandomState.randint(0, n, size=count) (dtype int64), which is also
  // RandomState.choice(n or np.arange(n), size=count): masked rejection sampling on 32-bit draws
  // for n <= 2^32. n must be >= 1; n == 1 draws nothing.
  void randint(std::uint64_t n, std::span<std::int64_t> out);

 private:
  static constexpr int kN = 624;
  std::uint32_t key_[kN];
  int pos_ = kN;
};

}  // namespace probity::util
