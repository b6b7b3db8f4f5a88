// F (Xu et al. 2025, Table 9) and E (their §4): the information measures with their optimal critics
// and convex conjugates, and the two sample-level estimators.
#include <cmath>
#include <limits>
#include <stdexcept>
#include <string>

#include "probity/mi.hpp"

namespace probity::mi {
namespace {
constexpr double kInf = std::numeric_limits<double>::infinity();
}

double f(Measure m, double t) {
  switch (m) {
    case Measure::kTV:
      return 0.5 * std::abs(t - 1);
    case Measure::kKL:
      return t > 0 ? t * std::log(t) : 0.0;
    case Measure::kReverseKL:
      return -std::log(t);
    case Measure::kPearson:
      return (t - 1) * (t - 1);
    case Measure::kHellinger:
      return (std::sqrt(t) - 1) * (std::sqrt(t) - 1);
  }
  return std::nan("");
}

double optimal_critic(Measure m, double r) {
  switch (m) {
    case Measure::kTV:
      return r > 1 ? 0.5 : (r < 1 ? -0.5 : 0.0);
    case Measure::kKL:
      return 1 + std::log(r);
    case Measure::kReverseKL:
      return -1 / r;
    case Measure::kPearson:
      return 2 * (r - 1);
    case Measure::kHellinger:
      return 1 - 1 / std::sqrt(r);
  }
  return std::nan("");
}

double conjugate(Measure m, double u) {
  switch (m) {
    case Measure::kTV:
      return std::abs(u) <= 0.5 ? u : kInf;
    case Measure::kKL:
      return std::exp(u - 1);
    case Measure::kReverseKL:
      return u < 0 ? -1 - std::log(-u) : kInf;
    // sup over t >= 0 of u·t − (t−1)²: the maximiser t = 1 + u/2 is feasible for u >= −2.
    case Measure::kPearson:
      return u >= -2 ? u + u * u / 4 : -1.0;
    case Measure::kHellinger:
      return u < 1 ? u / (1 - u) : kInf;
  }
  return std::nan("");
}

double direct_score(Measure m, double log_r) {
  // f(r)/r, written per measure so that extreme log ratios do not overflow needlessly.
  switch (m) {
    case Measure::kKL:
      return log_r;
    case Measure::kTV:
      return 0.5 * std::abs(1 - std::exp(-log_r));
    case Measure::kReverseKL:
      return -log_r * std::exp(-log_r);
    case Measure::kPearson: {
      double r = std::exp(log_r);
      return (r - 1) * (r - 1) / r;
    }
    case Measure::kHellinger: {
      double s = std::exp(-0.5 * log_r);  // 1/√r
      return (1 - s) * (1 - s);
    }
  }
  return std::nan("");
}

double variational_score(Measure m, double critic_pos, std::span<const double> critics_neg) {
  double neg = 0;
  for (double c : critics_neg) neg += conjugate(m, c);
  neg /= static_cast<double>(critics_neg.size());
  return critic_pos - neg;
}

double variational_score(Measure m, double critic_pos, double critic_neg) {
  return variational_score(m, critic_pos, std::span<const double>(&critic_neg, 1));
}

}  // namespace probity::mi
