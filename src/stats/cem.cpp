// CEM-ORD (Amigo, Gonzalo, Mizzaro & Carrillo-de-Albornoz, ACL 2020): informational closeness of
// a predicted ordinal class to the gold class, normalized by the gold's closeness to itself.
#include <algorithm>
#include <cmath>
#include <limits>
#include <stdexcept>
#include <string>
#include <vector>

#include "probity/stats.hpp"

namespace probity::stats {

namespace {

std::size_t level_index(std::span<const double> levels, double value) {
  const auto it = std::lower_bound(levels.begin(), levels.end(), value);
  if (it == levels.end() || *it != value) {
    throw std::invalid_argument("cem_ord: value " + std::to_string(value) +
                                " is not one of the levels");
  }
  return static_cast<std::size_t>(it - levels.begin());
}

}  // namespace

double cem_ord(std::span<const double> pred, std::span<const double> gold,
               std::span<const double> levels) {
  if (pred.size() != gold.size()) {
    throw std::invalid_argument("cem_ord: pred and gold differ in length");
  }
  if (levels.empty() || !std::is_sorted(levels.begin(), levels.end()) ||
      std::adjacent_find(levels.begin(), levels.end()) != levels.end()) {
    throw std::invalid_argument("cem_ord: levels must be strictly increasing");
  }
  if (gold.empty()) return std::numeric_limits<double>::quiet_NaN();

  std::vector<double> count(levels.size(), 0.0);
  std::vector<std::size_t> p(pred.size()), g(gold.size());
  for (std::size_t i = 0; i < gold.size(); ++i) {
    g[i] = level_index(levels, gold[i]);
    p[i] = level_index(levels, pred[i]);
    count[g[i]] += 1.0;
  }
  const double total = static_cast<double>(gold.size());
  // prox(a, b) = -log2((n_a / 2 + sum of n_k for k strictly after a up to and including b) / N):
  // the information of "a class at least as far from a as b is". The mass is floored at half an
  // item, as the authors' evaluation code does, so an empty class gives a finite value.
  auto prox = [&](std::size_t a, std::size_t b) {
    double mass = count[a] / 2.0;
    if (b > a) {
      for (std::size_t k = a + 1; k <= b; ++k) mass += count[k];
    } else {
      for (std::size_t k = b; k < a; ++k) mass += count[k];
    }
    return -std::log2(std::max(mass, 0.5) / total);
  };
  const std::size_t nl = levels.size();
  std::vector<double> table(nl * nl);
  for (std::size_t a = 0; a < nl; ++a) {
    for (std::size_t b = 0; b < nl; ++b) table[a * nl + b] = prox(a, b);
  }
  double num = 0.0, den = 0.0;
  for (std::size_t i = 0; i < gold.size(); ++i) {
    num += table[p[i] * nl + g[i]];
    den += table[g[i] * nl + g[i]];
  }
  return num / den;
}

}  // namespace probity::stats
