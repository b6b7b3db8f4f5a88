#include "audit/excerpt.hpp"

#include <algorithm>

namespace probity::audit {
namespace {

constexpr std::string_view kCut = " \u2026 ";

bool continuation(char c) {
  return (static_cast<unsigned char>(c) & 0xC0) == 0x80;
}

// `pos` moved back to the start of the UTF-8 character it falls in.
std::size_t char_start(std::string_view s, std::size_t pos) {
  while (pos > 0 && pos < s.size() && continuation(s[pos])) --pos;
  return pos;
}

// A cut near `pos` moved to a space within `slack` bytes (towards `forward`), else to a
// character boundary.
std::size_t cut_at(std::string_view s, std::size_t pos, bool forward, std::size_t slack = 40) {
  pos = std::min(pos, s.size());
  for (std::size_t k = 0; k <= slack; ++k) {
    const std::size_t p = forward ? pos + k : (pos >= k ? pos - k : 0);
    if (p >= s.size() || p == 0) break;
    if (s[p] == ' ') return p;
  }
  return char_start(s, pos);
}

// The changed middle of one text, its first and last half-limit bytes when longer.
std::string middle(std::string_view s, std::size_t limit) {
  if (s.size() <= limit) return std::string(s);
  const std::size_t head = char_start(s, limit / 2);
  const std::size_t tail = char_start(s, s.size() - limit / 2);
  return std::string(s.substr(0, head)) + std::string(kCut) + std::string(s.substr(tail));
}

}  // namespace

ExcerptPair excerpt_edit(std::string_view original, std::string_view edited, std::size_t context,
                         std::size_t limit) {
  const std::size_t bound = 2 * context + limit + 2 * kCut.size();
  if (original.size() <= bound && edited.size() <= bound)
    return {std::string(original), std::string(edited)};
  // The common beginning and end, on character boundaries of both texts.
  std::size_t prefix = 0;
  const std::size_t shorter = std::min(original.size(), edited.size());
  while (prefix < shorter && original[prefix] == edited[prefix]) ++prefix;
  prefix = char_start(original, prefix);
  std::size_t suffix = 0;
  while (suffix < shorter - prefix &&
         original[original.size() - 1 - suffix] == edited[edited.size() - 1 - suffix])
    ++suffix;
  while (suffix > 0 && continuation(original[original.size() - suffix])) --suffix;

  // What both keep before and after the change: at most `context` bytes of each.
  const std::size_t before_start = prefix > context ? cut_at(original, prefix - context, true) : 0;
  const std::size_t after_len = std::min(suffix, context);
  std::string head(original.substr(before_start, prefix - before_start));
  if (before_start > 0) head = std::string(kCut.substr(1)) + head;
  auto tail_of = [&](std::string_view s) {
    const std::size_t start = s.size() - suffix;
    std::size_t end = start + after_len;
    if (end < s.size()) end = cut_at(s, end, false);
    std::string t(s.substr(start, std::max(end, start) - start));
    if (end < s.size()) t += kCut.substr(0, kCut.size() - 1);
    return t;
  };
  ExcerptPair out;
  out.original = head + middle(original.substr(prefix, original.size() - suffix - prefix), limit) +
                 tail_of(original);
  out.edited = head + middle(edited.substr(prefix, edited.size() - suffix - prefix), limit) +
               tail_of(edited);
  return out;
}

}  // namespace probity::audit
