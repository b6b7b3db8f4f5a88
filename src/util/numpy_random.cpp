#include "util/numpy_random.hpp"

#include <array>

namespace probity::util {
namespace {

// numpy/random/bit_generator.pyx: SeedSequence's constants.
constexpr std::uint32_t kInitA = 0x43b0d7e5, kMultA = 0x931e8875;
constexpr std::uint32_t kInitB = 0x8b51f9dd, kMultB = 0x58f38ded;
constexpr std::uint32_t kMixMultL = 0xca01f9dd, kMixMultR = 0x4973f715;
constexpr int kXShift = 16;
constexpr std::size_t kPoolSize = 4;

std::uint32_t hashmix(std::uint32_t value, std::uint32_t& hash_const) {
  value ^= hash_const;
  hash_const *= kMultA;
  value *= hash_const;
  value ^= value >> kXShift;
  return value;
}

std::uint32_t mix(std::uint32_t x, std::uint32_t y) {
  std::uint32_t result = kMixMultL * x - kMixMultR * y;
  result ^= result >> kXShift;
  return result;
}

// The smallest 2^k - 1 >= max (numpy's gen_mask).
std::uint32_t gen_mask(std::uint32_t max) {
  std::uint32_t mask = max;
  mask |= mask >> 1;
  mask |= mask >> 2;
  mask |= mask >> 4;
  mask |= mask >> 8;
  mask |= mask >> 16;
  return mask;
}

double pairwise_sum(const double* a, std::size_t n) {
  // numpy/core/src/umath/loops_utils.h.src: DOUBLE_pairwise_sum.
  if (n < 8) {
    double res = 0.;
    for (std::size_t i = 0; i < n; ++i) res += a[i];
    return res;
  }
  if (n <= 128) {
    double r[8];
    for (std::size_t j = 0; j < 8; ++j) r[j] = a[j];
    std::size_t i = 8;
    for (; i < n - (n % 8); i += 8)
      for (std::size_t j = 0; j < 8; ++j) r[j] += a[i + j];
    double res = ((r[0] + r[1]) + (r[2] + r[3])) + ((r[4] + r[5]) + (r[6] + r[7]));
    for (; i < n; ++i) res += a[i];
    return res;
  }
  std::size_t n2 = n / 2;
  n2 -= n2 % 8;
  return pairwise_sum(a, n2) + pairwise_sum(a + n2, n - n2);
}

}  // namespace

double numpy_sum(std::span<const double> values) {
  return 0. + pairwise_sum(values.data(), values.size());
}

std::vector<std::uint32_t> seed_sequence_state(std::uint64_t entropy, std::size_t n_words) {
  // _coerce_to_uint32_array(int): 32-bit words, least significant first; 0 is [0].
  std::vector<std::uint32_t> words;
  do {
    words.push_back(static_cast<std::uint32_t>(entropy & 0xFFFFFFFFu));
    entropy >>= 32;
  } while (entropy != 0);

  // mix_entropy
  std::array<std::uint32_t, kPoolSize> pool{};
  std::uint32_t hash_const = kInitA;
  for (std::size_t i = 0; i < kPoolSize; ++i)
    pool[i] = hashmix(i < words.size() ? words[i] : 0, hash_const);
  for (std::size_t src = 0; src < kPoolSize; ++src)
    for (std::size_t dst = 0; dst < kPoolSize; ++dst)
      if (src != dst) pool[dst] = mix(pool[dst], hashmix(pool[src], hash_const));
  for (std::size_t src = kPoolSize; src < words.size(); ++src)
    for (std::size_t dst = 0; dst < kPoolSize; ++dst)
      pool[dst] = mix(pool[dst], hashmix(words[src], hash_const));

  // generate_state
  std::vector<std::uint32_t> state(n_words);
  hash_const = kInitB;
  for (std::size_t i = 0; i < n_words; ++i) {
    std::uint32_t v = pool[i % kPoolSize];
    v ^= hash_const;
    hash_const *= kMultB;
    v *= hash_const;
    v ^= v >> kXShift;
    state[i] = v;
  }
  return state;
}

// ---- PCG64 ------------------------------------------------------------------------------------

Pcg64::Pcg64(std::uint64_t seed) {
  // PCG64.__init__: generate_state(4, np.uint64), i.e. 8 words read as 4 little-endian uint64;
  // pcg64_set_seed(state, val, val + 2): initstate = (val[0] << 64) | val[1], initseq likewise.
  const auto w = seed_sequence_state(seed, 8);
  auto u64 = [&](std::size_t i) {
    return static_cast<std::uint64_t>(w[2 * i]) | (static_cast<std::uint64_t>(w[2 * i + 1]) << 32);
  };
  const Uint128 initstate = (static_cast<Uint128>(u64(0)) << 64) | u64(1);
  const Uint128 initseq = (static_cast<Uint128>(u64(2)) << 64) | u64(3);
  // pcg_setseq_128_srandom_r
  state_ = 0;
  inc_ = (initseq << 1) | 1;
  step();
  state_ += initstate;
  step();
}

std::uint64_t Pcg64::next64() {
  step();
  // XSL-RR: the xor of the halves rotated right by the top 6 bits.
  const auto x = static_cast<std::uint64_t>(state_ >> 64) ^ static_cast<std::uint64_t>(state_);
  const auto rot = static_cast<unsigned>(state_ >> 122);
  return (x >> rot) | (x << ((64 - rot) & 63));
}

std::uint32_t Pcg64::next32() {
  if (has_half_) {
    has_half_ = false;
    return half_;
  }
  const std::uint64_t next = next64();
  has_half_ = true;
  half_ = static_cast<std::uint32_t>(next >> 32);
  return static_cast<std::uint32_t>(next & 0xFFFFFFFFu);
}

void Pcg64::integers(std::uint64_t n, std::span<std::int64_t> out) {
  // random_bounded_uint64_fill(off = 0, rng = n - 1, use_masked = false).
  const std::uint64_t rng = n - 1;
  if (rng == 0) {
    for (auto& v : out) v = 0;
    return;
  }
  if (rng == 0xFFFFFFFFu) {
    for (auto& v : out) v = next32();
    return;
  }
  if (rng > 0xFFFFFFFFu) {
    // buffered_bounded_lemire_uint64 (populations beyond 2^32 items, never in practice).
    const std::uint64_t rng_excl = n;
    for (auto& v : out) {
      Uint128 m = static_cast<Uint128>(next64()) * rng_excl;
      auto leftover = static_cast<std::uint64_t>(m);
      if (leftover < rng_excl) {
        const std::uint64_t threshold = (UINT64_MAX - rng) % rng_excl;
        while (leftover < threshold) {
          m = static_cast<Uint128>(next64()) * rng_excl;
          leftover = static_cast<std::uint64_t>(m);
        }
      }
      v = static_cast<std::int64_t>(m >> 64);
    }
    return;
  }
  // buffered_bounded_lemire_uint32
  const auto rng32 = static_cast<std::uint32_t>(rng);
  const std::uint32_t rng_excl = rng32 + 1;
  for (auto& v : out) {
    std::uint64_t m = static_cast<std::uint64_t>(next32()) * rng_excl;
    auto leftover = static_cast<std::uint32_t>(m);
    if (leftover < rng_excl) {
      const std::uint32_t threshold = (UINT32_MAX - rng32) % rng_excl;
      while (leftover < threshold) {
        m = static_cast<std::uint64_t>(next32()) * rng_excl;
        leftover = static_cast<std::uint32_t>(m);
      }
    }
    v = static_cast<std::int64_t>(m >> 32);
  }
}

void Pcg64::booleans(std::span<std::uint8_t> out, BoolBuffer& buffer) {
  // random_bounded_bool_fill / buffered_bounded_bool (rng = 1).
  std::uint32_t& buf = buffer.bits;
  int& bcnt = buffer.left;
  for (auto& v : out) {
    if (bcnt == 0) {
      buf = next32();
      bcnt = 31;
    } else {
      buf >>= 1;
      --bcnt;
    }
    v = static_cast<std::uint8_t>(buf & 1u);
  }
}

// ---- MT19937 ----------------------------------------------------------------------------------

Mt19937::Mt19937(std::uint32_t seed) {
  // mt19937_seed (init_genrand).
  for (int pos = 0; pos < kN; ++pos) {
    key_[pos] = seed;
    seed = 1812433253u * (seed ^ (seed >> 30)) + static_cast<std::uint32_t>(pos + 1);
  }
  pos_ = kN;
}

std::uint32_t Mt19937::next32() {
  constexpr int kM = 397;
  constexpr std::uint32_t kMatrixA = 0x9908b0dfu, kUpper = 0x80000000u, kLower = 0x7fffffffu;
  if (pos_ == kN) {
    int i = 0;
    for (; i < kN - kM; ++i) {
      const std::uint32_t y = (key_[i] & kUpper) | (key_[i + 1] & kLower);
      key_[i] = key_[i + kM] ^ (y >> 1) ^ ((y & 1u) ? kMatrixA : 0u);
    }
    for (; i < kN - 1; ++i) {
      const std::uint32_t y = (key_[i] & kUpper) | (key_[i + 1] & kLower);
      key_[i] = key_[i + (kM - kN)] ^ (y >> 1) ^ ((y & 1u) ? kMatrixA : 0u);
    }
    const std::uint32_t y = (key_[kN - 1] & kUpper) | (key_[0] & kLower);
    key_[kN - 1] = key_[kM - 1] ^ (y >> 1) ^ ((y & 1u) ? kMatrixA : 0u);
    pos_ = 0;
  }
  std::uint32_t y = key_[pos_++];
  y ^= y >> 11;
  y ^= (y << 7) & 0x9d2c5680u;
  y ^= (y << 15) & 0xefc60000u;
  y ^= y >> 18;
  return y;
}

void Mt19937::randint(std::uint64_t n, std::span<std::int64_t> out) {
  // random_bounded_uint64_fill(off = 0, rng = n - 1, use_masked = true), 32-bit branch.
  const std::uint64_t rng = n - 1;
  if (rng == 0) {
    for (auto& v : out) v = 0;
    return;
  }
  if (rng > 0xFFFFFFFFu) {
    // buffered_bounded_masked_uint64 on mt19937_next64 (high word first).
    std::uint64_t mask = rng;
    for (int s = 1; s < 64; s <<= 1) mask |= mask >> s;
    for (auto& v : out) {
      std::uint64_t val;
      do {
        const std::uint64_t hi = next32();
        val = ((hi << 32) | next32()) & mask;
      } while (val > rng);
      v = static_cast<std::int64_t>(val);
    }
    return;
  }
  const auto rng32 = static_cast<std::uint32_t>(rng);
  if (rng == 0xFFFFFFFFu) {
    for (auto& v : out) v = next32();
    return;
  }
  const std::uint32_t mask = gen_mask(rng32);
  for (auto& v : out) {
    std::uint32_t val;
    while ((val = (next32() & mask)) > rng32) {
    }
    v = val;
  }
}

}  // namespace probity::util
