#pragma once
// Stable hashes for cache keys and seeds (std::hash is not stable across builds).
#include <cstdint>
#include <string>
#include <string_view>

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

inline std::string hex64(std::uint64_t v) {
  static const char* digits = "0123456789abcdef";
  std::string out(16, '0');
  for (int i = 15; i >= 0; --i, v >>= 4) out[static_cast<std::size_t>(i)] = digits[v & 15];
  return out;
}

}  // namespace probity::util
