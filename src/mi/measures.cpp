// F (SPEC §4.1, Table 9) and E (SPEC §4.2): the information measures with their optimal critics
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

Measure parse_measure(std::string_view name) {
  if (name == "tv") return Measure::kTV;
  if (name == "kl") return Measure::kKL;
  if (name == "rkl" || name == "reverse-kl") return Measure::kReverseKL;
  if (name == "chi2" || name == "pearson") return Measure::kPearson;
  if (name == "hellinger" || name == "h2") return Measure::kHellinger;
  throw std::invalid_argument("unknown information measure '" + std::string(name) +
                              "' (tv, kl, rkl, chi2, hellinger)");
}

std::string_view measure_name(Measure m) {
  switch (m) {
    case Measure::kTV:
      return "tv";
    case Measure::kKL:
      return "kl";
    case Measure::kReverseKL:
      return "rkl";
    case Measure::kPearson:
      return "chi2";
    case Measure::kHellinger:
      return "hellinger";
  }
  return "?";
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

Estimator parse_estimator(std::string_view name) {
  if (name == "direct") return Estimator::kDirect;
  if (name == "fvar" || name == "f-var" || name == "variational") return Estimator::kVariational;
  throw std::invalid_argument("unknown estimator '" + std::string(name) + "' (direct, fvar)");
}

std::string_view estimator_name(Estimator e) {
  return e == Estimator::kDirect ? "direct" : "fvar";
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

Representation parse_representation(std::string_view name) {
  if (name == "token") return Representation::kToken;
  if (name == "report" || name == "full") return Representation::kReport;
  if (name == "statement") return Representation::kStatement;
  throw std::invalid_argument("unknown representation '" + std::string(name) +
                              "' (token, report, statement)");
}

std::string_view representation_name(Representation r) {
  switch (r) {
    case Representation::kToken:
      return "token";
    case Representation::kReport:
      return "report";
    case Representation::kStatement:
      return "statement";
  }
  return "?";
}

Mechanism parse_mechanism(std::string_view name) {
  if (name == "ar" || name == "autoregression") return Mechanism::kAutoregression;
  if (name == "oracle") return Mechanism::kOracle;
  if (name == "exact") return Mechanism::kExact;
  throw std::invalid_argument("unknown prediction mechanism '" + std::string(name) +
                              "' (ar, oracle)");
}

std::string_view mechanism_name(Mechanism m) {
  switch (m) {
    case Mechanism::kAutoregression:
      return "ar";
    case Mechanism::kOracle:
      return "oracle";
    case Mechanism::kExact:
      return "exact";
  }
  return "?";
}

}  // namespace probity::mi
