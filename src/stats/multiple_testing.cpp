// Holm and Benjamini-Hochberg adjustments, step for step as statsmodels 0.13 multipletests
// (methods "holm" and "fdr_bh"), so adjusted values match it to the last bit; the names of the
// corrections a ranking's pairs take.
#include <fmt/format.h>

#include <algorithm>
#include <array>
#include <cmath>
#include <limits>
#include <numeric>
#include <stdexcept>

#include "probity/stats.hpp"
#include "util/enum_names.hpp"

namespace probity::stats {

namespace {

struct Sorted {
  std::vector<std::size_t> index;  // positions of the defined p-values, by increasing p
  std::vector<double> p;           // the sorted p-values
};

Sorted sort_defined(std::span<const double> p, double alpha) {
  if (!(alpha > 0.0 && alpha < 1.0)) {
    throw std::invalid_argument("multiple testing: alpha must be in (0, 1)");
  }
  Sorted s;
  for (std::size_t i = 0; i < p.size(); ++i) {
    if (std::isnan(p[i])) continue;
    if (p[i] < 0.0 || p[i] > 1.0) {
      throw std::invalid_argument("multiple testing: p-values must be in [0, 1]");
    }
    s.index.push_back(i);
  }
  // Ties get equal adjusted values and decisions whatever their order.
  std::stable_sort(s.index.begin(), s.index.end(),
                   [&](std::size_t a, std::size_t b) { return p[a] < p[b]; });
  for (std::size_t i : s.index) s.p.push_back(p[i]);
  return s;
}

MultipleTestingResult scatter(const Sorted& s, std::size_t size, const std::vector<double>& adj,
                              const std::vector<bool>& reject) {
  MultipleTestingResult r;
  r.adjusted.assign(size, std::numeric_limits<double>::quiet_NaN());
  r.reject.assign(size, false);
  for (std::size_t k = 0; k < s.index.size(); ++k) {
    r.adjusted[s.index[k]] = std::min(adj[k], 1.0);
    r.reject[s.index[k]] = reject[k];
  }
  return r;
}

}  // namespace

MultipleTestingResult holm(std::span<const double> p, double alpha) {
  const Sorted s = sort_defined(p, alpha);
  const std::size_t m = s.p.size();
  std::vector<double> adj(m);
  std::vector<bool> reject(m, false);
  // Step-down: reject while p_(k) <= alpha / (m - k); stop at the first failure.
  bool still = true;
  double running = 0.0;
  for (std::size_t k = 0; k < m; ++k) {
    const double factor = static_cast<double>(m - k);
    still = still && !(s.p[k] > alpha / factor);
    reject[k] = still;
    running = std::max(running, s.p[k] * factor);
    adj[k] = running;
  }
  return scatter(s, p.size(), adj, reject);
}

MultipleTestingResult benjamini_hochberg(std::span<const double> p, double alpha) {
  const Sorted s = sort_defined(p, alpha);
  const std::size_t m = s.p.size();
  std::vector<double> adj(m);
  std::vector<bool> reject(m, false);
  // Step-up: reject everything up to the largest k with p_(k) <= alpha * k / m.
  std::size_t last = 0;
  for (std::size_t k = 0; k < m; ++k) {
    const double ecdf = static_cast<double>(k + 1) / static_cast<double>(m);
    if (s.p[k] <= ecdf * alpha) last = k + 1;
  }
  std::fill(reject.begin(), reject.begin() + static_cast<std::ptrdiff_t>(last), true);
  double running = std::numeric_limits<double>::infinity();
  for (std::size_t k = m; k-- > 0;) {
    const double ecdf = static_cast<double>(k + 1) / static_cast<double>(m);
    running = std::min(running, s.p[k] / ecdf);
    adj[k] = running;
  }
  return scatter(s, p.size(), adj, reject);
}

namespace {
constexpr auto kRankCorrections = std::to_array<util::EnumName<RankCorrection>>({
    {RankCorrection::kNone, "none"},
    {RankCorrection::kHolm, "holm"},
    {RankCorrection::kBenjaminiHochberg, "bh"},
});
}  // namespace

RankCorrection parse_rank_correction(std::string_view name) {
  if (const auto c = util::parse_enum(kRankCorrections, name)) return *c;
  throw std::invalid_argument(
      fmt::format("unknown correction '{}' ({})", name, util::listed_names(kRankCorrections)));
}

std::string_view rank_correction_name(RankCorrection correction) {
  return util::name_of(kRankCorrections, correction, "none");
}

std::vector<double> adjust_p_values(std::span<const double> p, RankCorrection correction,
                                    double alpha) {
  switch (correction) {
    case RankCorrection::kHolm:
      return holm(p, alpha).adjusted;
    case RankCorrection::kBenjaminiHochberg:
      return benjamini_hochberg(p, alpha).adjusted;
    case RankCorrection::kNone:
      break;
  }
  return {p.begin(), p.end()};
}

}  // namespace probity::stats
