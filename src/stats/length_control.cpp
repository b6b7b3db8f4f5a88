// Logistic regression on soft labels and AlpacaEval's length-controlled win rate built on it.
// Definitions: include/probity/stats.hpp.
#include <algorithm>
#include <cmath>
#include <limits>
#include <stdexcept>

#include "probity/stats.hpp"

namespace probity::stats {
namespace {

constexpr double kNaN = std::numeric_limits<double>::quiet_NaN();
constexpr std::size_t kMaxIterations = 100;
constexpr double kMaxCoefficient = 50;

// log(1 + exp(t)) without overflow.
double softplus(double t) {
  return t > 0 ? t + std::log1p(std::exp(-t)) : std::log1p(std::exp(t));
}

double logistic(double t) {
  return t >= 0 ? 1 / (1 + std::exp(-t)) : std::exp(t) / (1 + std::exp(t));
}

// Solves a * s = b for a small symmetric positive definite `a` (p x p, row-major) by Gaussian
// elimination with partial pivoting; false when `a` is singular.
bool solve(std::vector<double> a, std::vector<double> b, std::size_t p, std::vector<double>& s) {
  for (std::size_t col = 0; col < p; ++col) {
    std::size_t pivot = col;
    for (std::size_t r = col + 1; r < p; ++r)
      if (std::abs(a[r * p + col]) > std::abs(a[pivot * p + col])) pivot = r;
    if (!(std::abs(a[pivot * p + col]) > 0)) return false;
    if (pivot != col) {
      for (std::size_t c = 0; c < p; ++c) std::swap(a[col * p + c], a[pivot * p + c]);
      std::swap(b[col], b[pivot]);
    }
    for (std::size_t r = col + 1; r < p; ++r) {
      const double f = a[r * p + col] / a[col * p + col];
      for (std::size_t c = col; c < p; ++c) a[r * p + c] -= f * a[col * p + c];
      b[r] -= f * b[col];
    }
  }
  s.assign(p, 0);
  for (std::size_t r = p; r-- > 0;) {
    double v = b[r];
    for (std::size_t c = r + 1; c < p; ++c) v -= a[r * p + c] * s[c];
    s[r] = v / a[r * p + r];
  }
  return std::all_of(s.begin(), s.end(), [](double v) { return std::isfinite(v); });
}

}  // namespace

LogisticFit logistic_regression(std::span<const double> x, std::size_t columns,
                                std::span<const double> y) {
  if (columns == 0 || x.size() != y.size() * columns)
    throw std::invalid_argument("logistic_regression: x is not rows x columns");
  for (double v : y)
    if (!(v >= 0 && v <= 1)) throw std::invalid_argument("logistic_regression: y outside [0, 1]");
  const std::size_t n = y.size(), p = columns;
  LogisticFit fit;
  fit.coefficients.assign(p, 0);
  auto row = [&](std::size_t i) { return x.subspan(i * p, p); };
  auto linear = [&](const std::vector<double>& beta, std::size_t i) {
    double eta = 0;
    for (std::size_t j = 0; j < p; ++j) eta += row(i)[j] * beta[j];
    return eta;
  };
  // Soft-label log-likelihood: y eta - log(1 + exp(eta)).
  auto loglik = [&](const std::vector<double>& beta) {
    double l = 0;
    for (std::size_t i = 0; i < n; ++i) {
      const double eta = linear(beta, i);
      l += y[i] * eta - softplus(eta);
    }
    return l;
  };
  double current = loglik(fit.coefficients);
  std::vector<double> step;
  for (fit.iterations = 1; fit.iterations <= kMaxIterations; ++fit.iterations) {
    std::vector<double> gradient(p, 0), hessian(p * p, 0);
    for (std::size_t i = 0; i < n; ++i) {
      const double mu = logistic(linear(fit.coefficients, i));
      const double w = mu * (1 - mu);
      for (std::size_t j = 0; j < p; ++j) {
        gradient[j] += row(i)[j] * (y[i] - mu);
        for (std::size_t k = 0; k < p; ++k) hessian[j * p + k] += w * row(i)[j] * row(i)[k];
      }
    }
    if (!solve(hessian, gradient, p, step)) return fit;
    // The full Newton step decides convergence; step halving keeps the likelihood from falling
    // where a full step overshoots, beyond rounding (near the maximum a full step can lose a few
    // ulps of the likelihood and must still be taken).
    double largest = 0;
    for (std::size_t j = 0; j < p; ++j)
      largest = std::max(largest, std::abs(step[j]) / std::max(1.0, std::abs(fit.coefficients[j])));
    const double slack = 1e-10 * std::max(1.0, std::abs(current));
    std::vector<double> next(p);
    double scale = 1, value = 0;
    for (int halvings = 0; halvings < 30; ++halvings, scale /= 2) {
      for (std::size_t j = 0; j < p; ++j) next[j] = fit.coefficients[j] + scale * step[j];
      value = loglik(next);
      if (value >= current - slack) break;
    }
    fit.coefficients = next;
    current = value;
    if (std::any_of(next.begin(), next.end(),
                    [](double b) { return !(std::abs(b) <= kMaxCoefficient); }))
      return fit;
    if (largest < 1e-12) {
      fit.converged = true;
      return fit;
    }
  }
  return fit;
}

LengthControlled length_controlled_win_rate(std::span<const double> preference,
                                            std::span<const double> delta_length) {
  if (preference.size() != delta_length.size())
    throw std::invalid_argument("length_controlled_win_rate: inputs differ in length");
  LengthControlled r;
  r.win_rate = r.lc_win_rate = r.beta = r.theta = kNaN;
  const std::size_t n = preference.size();
  if (n == 0) return r;
  double sum = 0;
  for (double v : preference) sum += v;
  r.win_rate = sum / static_cast<double>(n);
  if (n < 2) return r;
  double mean = 0;
  for (double d : delta_length) mean += d;
  mean /= static_cast<double>(n);
  double ss = 0;
  for (double d : delta_length) ss += (d - mean) * (d - mean);
  const double sd = std::sqrt(ss / static_cast<double>(n - 1));
  if (!(sd > 0)) return r;
  std::vector<double> x(2 * n);
  for (std::size_t i = 0; i < n; ++i) {
    x[2 * i] = 1;
    x[2 * i + 1] = std::tanh(delta_length[i] / sd);
  }
  const LogisticFit fit = logistic_regression(x, 2, preference);
  if (!fit.converged) return r;
  r.theta = fit.coefficients[0];
  r.beta = fit.coefficients[1];
  r.lc_win_rate = logistic(r.theta);
  r.defined = true;
  return r;
}

}  // namespace probity::stats
