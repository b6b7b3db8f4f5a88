// Agreement of binary and ordinal judges with a reference: ROC AUC, Cohen's kappa, Matthews'
// correlation, balanced accuracy, macro F1, Brier score and the expected calibration error, each
// as scikit-learn 1.2 computes it (tests/golden/agreement.json). The formulas are in stats.hpp.
#include <algorithm>
#include <cmath>
#include <cstddef>
#include <limits>
#include <span>
#include <stdexcept>
#include <string>
#include <vector>

#include "probity/stats.hpp"

namespace probity::stats {

namespace {

constexpr double kNaN = std::numeric_limits<double>::quiet_NaN();

void check_lengths(std::size_t a, std::size_t b, const char* fn) {
  if (a != b) throw std::invalid_argument(std::string(fn) + ": inputs differ in length");
}

void check_binary(std::span<const int> labels, const char* fn) {
  for (const int y : labels) {
    if (y != 0 && y != 1) {
      throw std::invalid_argument(std::string(fn) + ": label " + std::to_string(y) +
                                  " is not 0 or 1");
    }
  }
}

void check_probabilities(std::span<const double> p, const char* fn) {
  for (const double v : p) {
    if (!(v >= 0.0 && v <= 1.0)) {
      throw std::invalid_argument(std::string(fn) + ": probability outside [0, 1]");
    }
  }
}

// The confusion matrix over the sorted union of labels (scikit-learn's unique_labels), rows =
// first argument, as counts in doubles (every use below is floating point).
struct Confusion {
  std::size_t k = 0;
  std::vector<double> cell;  // row-major k x k
  double at(std::size_t i, std::size_t j) const { return cell[i * k + j]; }
  double row_sum(std::size_t i) const {
    double s = 0.0;
    for (std::size_t j = 0; j < k; ++j) s += at(i, j);
    return s;
  }
  double col_sum(std::size_t j) const {
    double s = 0.0;
    for (std::size_t i = 0; i < k; ++i) s += at(i, j);
    return s;
  }
};

Confusion confusion(std::span<const int> rows, std::span<const int> cols) {
  std::vector<int> labels(rows.begin(), rows.end());
  labels.insert(labels.end(), cols.begin(), cols.end());
  std::sort(labels.begin(), labels.end());
  labels.erase(std::unique(labels.begin(), labels.end()), labels.end());
  const auto index = [&](int v) {
    return static_cast<std::size_t>(std::lower_bound(labels.begin(), labels.end(), v) -
                                    labels.begin());
  };
  Confusion c;
  c.k = labels.size();
  c.cell.assign(c.k * c.k, 0.0);
  for (std::size_t i = 0; i < rows.size(); ++i) c.cell[index(rows[i]) * c.k + index(cols[i])] += 1;
  return c;
}

}  // namespace

double roc_auc(std::span<const int> labels, std::span<const double> scores) {
  check_lengths(labels.size(), scores.size(), "roc_auc");
  check_binary(labels, "roc_auc");
  const auto positives = static_cast<std::size_t>(std::count(labels.begin(), labels.end(), 1));
  const std::size_t negatives = labels.size() - positives;
  if (positives == 0 || negatives == 0) return kNaN;
  // Average ranks make a tied positive-negative pair count 1/2, the trapezoid of sklearn's ROC
  // curve through tied thresholds.
  const std::vector<double> ranks = rankdata_average(scores);
  double rank_sum = 0.0;
  for (std::size_t i = 0; i < labels.size(); ++i) {
    if (labels[i] == 1) rank_sum += ranks[i];
  }
  const auto np = static_cast<double>(positives), nn = static_cast<double>(negatives);
  return (rank_sum - np * (np + 1.0) / 2.0) / (np * nn);
}

double cohen_kappa(std::span<const int> a, std::span<const int> b, KappaWeights weights) {
  check_lengths(a.size(), b.size(), "cohen_kappa");
  if (a.empty()) return kNaN;
  const Confusion c = confusion(a, b);
  std::vector<double> rows(c.k), cols(c.k);
  for (std::size_t i = 0; i < c.k; ++i) {
    rows[i] = c.row_sum(i);
    cols[i] = c.col_sum(i);
  }
  const auto n = static_cast<double>(a.size());
  double observed = 0.0, expected = 0.0;
  for (std::size_t i = 0; i < c.k; ++i) {
    for (std::size_t j = 0; j < c.k; ++j) {
      // Weights on label indices, not label values, as scikit-learn: labels {1, 5} are one step
      // apart.
      const double d = std::abs(static_cast<double>(i) - static_cast<double>(j));
      const double w = weights == KappaWeights::kNone     ? (i == j ? 0.0 : 1.0)
                       : weights == KappaWeights::kLinear ? d
                                                          : d * d;
      observed += w * c.at(i, j);
      expected += w * (rows[i] * cols[j] / n);
    }
  }
  if (expected == 0.0) return kNaN;  // one shared label: 0 / 0
  return 1.0 - observed / expected;
}

double matthews_corrcoef(std::span<const int> truth, std::span<const int> pred) {
  check_lengths(truth.size(), pred.size(), "matthews_corrcoef");
  if (truth.empty()) return kNaN;
  const Confusion c = confusion(truth, pred);
  double correct = 0.0, tp = 0.0, tt = 0.0, pp = 0.0;
  for (std::size_t i = 0; i < c.k; ++i) {
    const double t = c.row_sum(i), p = c.col_sum(i);
    correct += c.at(i, i);
    tp += t * p;
    tt += t * t;
    pp += p * p;
  }
  const auto s = static_cast<double>(truth.size());
  const double cov_tp = correct * s - tp, cov_pp = s * s - pp, cov_tt = s * s - tt;
  if (cov_pp * cov_tt == 0.0) return 0.0;
  return cov_tp / std::sqrt(cov_tt * cov_pp);
}

double balanced_accuracy(std::span<const int> truth, std::span<const int> pred) {
  check_lengths(truth.size(), pred.size(), "balanced_accuracy");
  if (truth.empty()) return kNaN;
  const Confusion c = confusion(truth, pred);
  double sum = 0.0;
  std::size_t classes = 0;
  for (std::size_t i = 0; i < c.k; ++i) {
    const double support = c.row_sum(i);
    if (support == 0.0) continue;  // a class only predicted has no recall
    sum += c.at(i, i) / support;
    ++classes;
  }
  return sum / static_cast<double>(classes);
}

double f1_macro(std::span<const int> truth, std::span<const int> pred) {
  check_lengths(truth.size(), pred.size(), "f1_macro");
  if (truth.empty()) return kNaN;
  const Confusion c = confusion(truth, pred);
  double sum = 0.0;
  for (std::size_t i = 0; i < c.k; ++i) {
    const double tp = c.at(i, i), predicted = c.col_sum(i), actual = c.row_sum(i);
    const double precision = predicted == 0.0 ? 0.0 : tp / predicted;
    const double recall = actual == 0.0 ? 0.0 : tp / actual;
    const double denom = precision + recall;
    sum += denom == 0.0 ? 0.0 : 2.0 * precision * recall / denom;
  }
  return sum / static_cast<double>(c.k);
}

double brier_score(std::span<const int> labels, std::span<const double> probabilities) {
  check_lengths(labels.size(), probabilities.size(), "brier_score");
  check_binary(labels, "brier_score");
  check_probabilities(probabilities, "brier_score");
  if (labels.empty()) return kNaN;
  double sum = 0.0;
  for (std::size_t i = 0; i < labels.size(); ++i) {
    const double d = static_cast<double>(labels[i]) - probabilities[i];
    sum += d * d;
  }
  return sum / static_cast<double>(labels.size());
}

double expected_calibration_error(std::span<const int> labels,
                                  std::span<const double> probabilities, std::size_t bins) {
  check_lengths(labels.size(), probabilities.size(), "expected_calibration_error");
  check_binary(labels, "expected_calibration_error");
  check_probabilities(probabilities, "expected_calibration_error");
  if (bins == 0) throw std::invalid_argument("expected_calibration_error: bins must be positive");
  if (labels.empty()) return kNaN;
  // NumPy's linspace(0, 1, bins + 1) edges are k * (1 / bins), not k / bins: they differ in the
  // last bit (3 * 0.1 > 0.3), which decides the bin of a probability of exactly 0.3.
  const double step = 1.0 / static_cast<double>(bins);
  std::vector<double> inner(bins - 1);
  for (std::size_t k = 1; k < bins; ++k) inner[k - 1] = static_cast<double>(k) * step;
  std::vector<double> count(bins, 0.0), prob_sum(bins, 0.0), true_sum(bins, 0.0);
  for (std::size_t i = 0; i < labels.size(); ++i) {
    const auto b = static_cast<std::size_t>(
        std::lower_bound(inner.begin(), inner.end(), probabilities[i]) - inner.begin());
    count[b] += 1;
    prob_sum[b] += probabilities[i];
    true_sum[b] += labels[i];
  }
  const auto n = static_cast<double>(labels.size());
  double ece = 0.0;
  for (std::size_t b = 0; b < bins; ++b) {
    if (count[b] == 0.0) continue;
    ece += count[b] / n * std::abs(true_sum[b] / count[b] - prob_sum[b] / count[b]);
  }
  return ece;
}

}  // namespace probity::stats
