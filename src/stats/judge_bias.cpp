// Bias and consistency statistics of LLM judges: JudgeLM's position shares, AlpacaEval's length
// and list preferences, the partial correlation of a score with length, and repeated-verdict
// consistency (flip rate, standard deviation, ICC(1,1)). Definitions: include/probity/stats.hpp.
#include <cmath>
#include <limits>
#include <stdexcept>

#include "probity/stats.hpp"
#include "text/utf8.hpp"

namespace probity::stats {
namespace {

constexpr double kNaN = std::numeric_limits<double>::quiet_NaN();

void require_same_length(std::size_t a, std::size_t b, const char* what) {
  if (a != b) throw std::invalid_argument(std::string(what) + ": inputs differ in length");
}

bool is_word(char32_t c) {
  if (c < 0x80)
    return c == '_' || (c >= '0' && c <= '9') || ((c | 0x20) >= 'a' && (c | 0x20) <= 'z');
  const auto cat = utf8proc_category(static_cast<utf8proc_int32_t>(c));
  return (cat >= UTF8PROC_CATEGORY_LU && cat <= UTF8PROC_CATEGORY_LO) ||
         (cat >= UTF8PROC_CATEGORY_ND && cat <= UTF8PROC_CATEGORY_NO);
}

bool is_space(char32_t c) {
  if (c < 0x80) return (c >= 0x09 && c <= 0x0D) || (c >= 0x1C && c <= 0x20);
  if (c == 0x85) return true;
  const auto cat = utf8proc_category(static_cast<utf8proc_int32_t>(c));
  return cat == UTF8PROC_CATEGORY_ZS || cat == UTF8PROC_CATEGORY_ZL || cat == UTF8PROC_CATEGORY_ZP;
}

// The better and the worse output of a pair, as AlpacaEval's np.where on `between` picks them:
// the better is output_1 for a preference in [1, 1.5), else output_2; the worse is output_1 for
// one in (1.5, 2], else output_2. A tie (1.5) thus gives output_2 twice, and no length or list
// difference: ties never count.
std::pair<std::string_view, std::string_view> ranked(std::string_view a, std::string_view b,
                                                     double preference) {
  const bool first_better = preference >= 1 && preference < 1.5;
  const bool first_worse = preference > 1.5 && preference <= 2;
  return {first_better ? a : b, first_worse ? a : b};
}

double pearson_defined(std::span<const double> x, std::span<const double> y) {
  return pearson(x, y).statistic;
}

}  // namespace

PositionBias position_bias(std::span<const double> x_first, std::span<const double> x_second) {
  require_same_length(x_first.size(), x_second.size(), "position_bias");
  PositionBias b;
  b.n = x_first.size();
  if (b.n == 0) {
    b.consistency = b.prefer_first = b.prefer_second = kNaN;
    return b;
  }
  std::size_t same = 0, first = 0, second = 0;
  for (std::size_t i = 0; i < b.n; ++i) {
    if (x_first[i] == x_second[i]) {
      ++same;
    } else if (x_first[i] > x_second[i]) {
      ++first;
    } else {
      ++second;
    }
  }
  const auto n = static_cast<double>(b.n);
  b.consistency = static_cast<double>(same) / n;
  b.prefer_first = static_cast<double>(first) / n;
  b.prefer_second = static_cast<double>(second) / n;
  return b;
}

bool alpaca_contains_list(std::string_view text) {
  std::vector<char32_t> cps;
  while (!text.empty()) {
    char32_t cp = 0;
    const std::size_t len = text::decode_utf8(text, cp);
    cps.push_back(len == 0 ? text::escaped_byte(static_cast<unsigned char>(text[0])) : cp);
    text.remove_prefix(len == 0 ? 1 : len);
  }
  const std::size_t n = cps.size();
  auto is_digit = [](char32_t c) {
    if (c < 0x80) return c >= '0' && c <= '9';
    return utf8proc_category(static_cast<utf8proc_int32_t>(c)) == UTF8PROC_CATEGORY_ND;
  };
  // From `i`: any non-word characters, then a word character ([^\w]*\w+).
  auto word_follows = [&](std::size_t i) {
    while (i < n && !is_word(cps[i])) ++i;
    return i < n;
  };
  for (std::size_t start = 0; start < n; ++start) {
    if (start > 0 && cps[start - 1] != '\n') continue;  // (?m)^
    std::size_t i = start;
    while (i < n && is_space(cps[i])) ++i;
    if (i >= n) return false;
    const char32_t c = cps[i];
    if (c == '*' || c == 0x2022 || c == '-') {
      if (word_follows(i + 1)) return true;
    } else if (is_digit(c)) {
      while (i < n && is_digit(cps[i])) ++i;
      if (i < n && (cps[i] == '.' || cps[i] == ')') && word_follows(i + 1)) return true;
    } else if (c < 0x80 && ((c | 0x20) >= 'a' && (c | 0x20) <= 'z')) {
      if (i + 2 < n && (cps[i + 1] == '.' || cps[i + 1] == ')') && is_space(cps[i + 2]) &&
          word_follows(i + 2))
        return true;
    }
  }
  return false;
}

PairPreference length_preference(std::string_view output_1, std::string_view output_2,
                                 double preference, std::size_t significant_delta) {
  const auto [best, worse] = ranked(output_1, output_2, preference);
  const auto lb = static_cast<double>(text::code_points(best));
  const auto lw = static_cast<double>(text::code_points(worse));
  return {std::abs(lb - lw) > static_cast<double>(significant_delta), lb > lw};
}

PairPreference list_preference(std::string_view output_1, std::string_view output_2,
                               double preference) {
  const auto [best, worse] = ranked(output_1, output_2, preference);
  const bool b = alpaca_contains_list(best), w = alpaca_contains_list(worse);
  return {b != w, b};
}

namespace {

template <typename F>
double preferred_share(std::span<const std::string_view> output_1,
                       std::span<const std::string_view> output_2,
                       std::span<const double> preference, const char* what, F pair) {
  require_same_length(output_1.size(), output_2.size(), what);
  require_same_length(output_1.size(), preference.size(), what);
  std::size_t preferred = 0, counted = 0;
  for (std::size_t i = 0; i < preference.size(); ++i) {
    const PairPreference p = pair(output_1[i], output_2[i], preference[i]);
    if (!p.counted) continue;
    ++counted;
    if (p.preferred) ++preferred;
  }
  return counted == 0 ? kNaN : static_cast<double>(preferred) / static_cast<double>(counted);
}

}  // namespace

double prefer_longer(std::span<const std::string_view> output_1,
                     std::span<const std::string_view> output_2, std::span<const double> preference,
                     std::size_t significant_delta) {
  return preferred_share(output_1, output_2, preference, "prefer_longer",
                         [&](std::string_view a, std::string_view b, double p) {
                           return length_preference(a, b, p, significant_delta);
                         });
}

double prefer_lists(std::span<const std::string_view> output_1,
                    std::span<const std::string_view> output_2,
                    std::span<const double> preference) {
  return preferred_share(output_1, output_2, preference, "prefer_lists", list_preference);
}

double partial_correlation(std::span<const double> x, std::span<const double> y,
                           std::span<const double> z) {
  require_same_length(x.size(), y.size(), "partial_correlation");
  require_same_length(x.size(), z.size(), "partial_correlation");
  const double rxy = pearson_defined(x, y), rxz = pearson_defined(x, z),
               ryz = pearson_defined(y, z);
  const double denominator = (1 - rxz * rxz) * (1 - ryz * ryz);
  if (!std::isfinite(rxy) || !std::isfinite(rxz) || !std::isfinite(ryz) || !(denominator > 0))
    return kNaN;
  return (rxy - rxz * ryz) / std::sqrt(denominator);
}

SelfConsistency self_consistency(std::span<const double> ratings, std::size_t samples) {
  SelfConsistency c;
  c.samples = samples;
  if (samples == 0 || ratings.size() % samples != 0)
    throw std::invalid_argument("self_consistency: ratings are not items x samples");
  c.items = ratings.size() / samples;
  if (samples < 2 || c.items < 2) {
    c.flip_rate = c.mean_sd = c.icc = kNaN;
    return c;
  }
  const auto k = static_cast<double>(samples);
  const auto n = static_cast<double>(c.items);
  double grand = 0;
  for (double v : ratings) grand += v;
  grand /= n * k;
  double flips = 0, sd_sum = 0, between = 0, within = 0;
  for (std::size_t i = 0; i < c.items; ++i) {
    const auto row = ratings.subspan(i * samples, samples);
    double mean = 0;
    bool all_equal = true;
    for (double v : row) {
      mean += v;
      all_equal = all_equal && v == row[0];
    }
    mean /= k;
    double ss = 0;
    for (double v : row) ss += (v - mean) * (v - mean);
    if (!all_equal) ++flips;
    sd_sum += std::sqrt(ss / (k - 1));
    between += (mean - grand) * (mean - grand);
    within += ss;
  }
  c.flip_rate = flips / n;
  c.mean_sd = sd_sum / n;
  const double msb = k * between / (n - 1);
  const double msw = within / (n * (k - 1));
  const double denominator = msb + (k - 1) * msw;
  c.icc = denominator > 0 ? (msb - msw) / denominator : kNaN;
  return c;
}

}  // namespace probity::stats
