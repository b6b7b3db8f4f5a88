#pragma once
// Stable hashes for cache keys and seeds (std::hash is not stable across builds).
#include <cstdint>
#include <string>
#include <string_view>

namespace probity::util {

inline std::uint64_t fnv1a64(std::string_view s, std::uint64_t h = 1469598103934665603ULL) {
  for (unsigned char c : s) {
    h ^= c;
    h *= 1099511628211ULL;
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
