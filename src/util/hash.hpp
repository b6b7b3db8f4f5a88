#pragma once
// Stable hashes for cache keys and seeds (std::hash is not stable across builds).
#include <xxhash.h>

#include <array>
#include <cstdint>
#include <cstring>
#include <functional>
#include <string>
#include <string_view>
#include <unordered_map>

namespace probity::util {

// FNV-1a's 64-bit offset basis and prime.
inline constexpr std::uint64_t kFnvOffsetBasis = 0xCBF29CE484222325ULL;
inline constexpr std::uint64_t kFnvPrime = 0x100000001B3ULL;

// FNV-1a over the bytes of s, continuing from h. The default start is not kFnvOffsetBasis (it is
// that number in decimal with the last digit missing); cache keys and seeds made with it are
// pinned by stored results, so it stays.
inline std::uint64_t fnv1a64(std::string_view s, std::uint64_t h = 1469598103934665603ULL) {
  for (unsigned char c : s) {
    h ^= c;
    h *= kFnvPrime;
  }
  return h;
}

// FNV-1a over the 8 bytes of v in little-endian order whatever the host, continuing from h.
inline std::uint64_t fnv1a64_u64(std::uint64_t v, std::uint64_t h) {
  for (int i = 0; i < 8; ++i) {
    h ^= (v >> (8 * i)) & 0xFFU;
    h *= kFnvPrime;
  }
  return h;
}

// The hash of string-keyed unordered containers that are looked up by std::string_view without
// building a std::string (with std::equal_to<>: heterogeneous lookup). Not stable across builds.
struct StringHash {
  using is_transparent = void;
  // Not noexcept: libstdc++ then keeps each key's hash in its node (rehashing and lookups compare
  // hashes before strings), as it does for std::hash<std::string>.
  std::size_t operator()(std::string_view s) const { return std::hash<std::string_view>{}(s); }
};
template <class Value>
using StringMap = std::unordered_map<std::string, Value, StringHash, std::equal_to<>>;

inline std::string hex64(std::uint64_t v) {
  static const char* digits = "0123456789abcdef";
  std::string out(16, '0');
  for (int i = 15; i >= 0; --i, v >>= 4) out[static_cast<std::size_t>(i)] = digits[v & 15];
  return out;
}

// XXH3 (libxxhash): fast strong hashes for content keys. Stable across builds and hosts (the
// algorithm's output is specified), so keys made with them can be stored.
inline std::uint64_t xxh3_64(std::string_view s, std::uint64_t seed = 0) {
  return XXH3_64bits_withSeed(s.data(), s.size(), seed);
}

// A 128-bit content key as 16 big-endian bytes (byte order fixed, so stored keys compare the same
// on any host, and keys sharing a high half sort together).
using Key128 = std::array<unsigned char, 16>;

inline void store_be64(std::uint64_t v, unsigned char* out) {
  for (int i = 7; i >= 0; --i, v >>= 8) out[i] = static_cast<unsigned char>(v & 0xFFU);
}

// The 128-bit XXH3 of the words `parts` (each as 8 little-endian bytes).
template <std::size_t N>
Key128 key128(const std::array<std::uint64_t, N>& parts) {
  std::array<unsigned char, 8 * N> bytes{};
  for (std::size_t i = 0; i < N; ++i)
    for (std::size_t b = 0; b < 8; ++b)
      bytes[8 * i + b] = static_cast<unsigned char>((parts[i] >> (8 * b)) & 0xFFU);
  const XXH128_hash_t h = XXH3_128bits(bytes.data(), bytes.size());
  Key128 key{};
  store_be64(h.high64, key.data());
  store_be64(h.low64, key.data() + 8);
  return key;
}

}  // namespace probity::util
