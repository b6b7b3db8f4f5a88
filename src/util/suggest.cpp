#include "util/suggest.hpp"

#include <algorithm>
#include <limits>

namespace probity::util {

std::size_t edit_distance(std::string_view a, std::string_view b) {
  // Optimal string alignment distance over three rows of the dynamic programme.
  const std::size_t n = a.size(), m = b.size();
  std::vector<std::size_t> prev2(m + 1), prev(m + 1), cur(m + 1);
  for (std::size_t j = 0; j <= m; ++j) prev[j] = j;
  for (std::size_t i = 1; i <= n; ++i) {
    cur[0] = i;
    for (std::size_t j = 1; j <= m; ++j) {
      const std::size_t cost = a[i - 1] == b[j - 1] ? 0 : 1;
      cur[j] = std::min({prev[j] + 1, cur[j - 1] + 1, prev[j - 1] + cost});
      if (i > 1 && j > 1 && a[i - 1] == b[j - 2] && a[i - 2] == b[j - 1])
        cur[j] = std::min(cur[j], prev2[j - 2] + 1);
    }
    std::swap(prev2, prev);
    std::swap(prev, cur);
  }
  return prev[m];
}

std::vector<std::string> nearest(std::string_view word,
                                 const std::vector<std::string>& candidates) {
  std::size_t best = std::numeric_limits<std::size_t>::max();
  std::vector<std::string> out;
  for (const auto& c : candidates) {
    if (c == word) continue;
    std::size_t d = edit_distance(word, c);
    const std::size_t longer = std::max(word.size(), c.size());
    const bool prefix = word.size() >= 3 && c.starts_with(word);
    if (prefix) d = std::min<std::size_t>(d, 1);
    if (!prefix && (d > 2 || 3 * d > longer + 2)) continue;
    if (d < best) {
      best = d;
      out.clear();
    }
    if (d == best && std::find(out.begin(), out.end(), c) == out.end()) out.push_back(c);
  }
  return out;
}

std::string did_you_mean(std::string_view word, const std::vector<std::string>& candidates) {
  const auto near = nearest(word, candidates);
  if (near.empty()) return {};
  std::string out = " (did you mean ";
  for (std::size_t i = 0; i < near.size(); ++i) {
    if (i > 0) out += i + 1 == near.size() ? " or " : ", ";
    out += "'" + near[i] + "'";
  }
  return out + "?)";
}

}  // namespace probity::util
