#include "predict/exact_predictor.hpp"

#include <charconv>
#include <cmath>
#include <stdexcept>

namespace probity::predict {
namespace {

std::size_t symbol(std::string_view text, char prefix, std::size_t size) {
  std::size_t v = 0;
  if (text.size() < 2 || text[0] != prefix ||
      std::from_chars(text.data() + 1, text.data() + text.size(), v).ec != std::errc() || v >= size)
    throw std::invalid_argument("exact predictor: not a symbol of the distribution: " +
                                std::string(text));
  return v;
}

}  // namespace

ExactPredictor::ExactPredictor(std::vector<std::vector<double>> joint)
    : joint_(std::move(joint)), px_(joint_.size(), 0.0), py_(joint_.at(0).size(), 0.0) {
  double total = 0;
  for (std::size_t i = 0; i < joint_.size(); ++i)
    for (std::size_t j = 0; j < py_.size(); ++j) {
      if (!(joint_[i][j] > 0)) throw std::invalid_argument("exact predictor: p(x, y) must be > 0");
      px_[i] += joint_[i][j];
      py_[j] += joint_[i][j];
      total += joint_[i][j];
    }
  if (std::abs(total - 1) > 1e-9) throw std::invalid_argument("exact predictor: p must sum to 1");
}

double ExactPredictor::log_ratio(std::string_view x, std::string_view y) const {
  std::size_t i = symbol(x, 'x', px_.size()), j = symbol(y, 'y', py_.size());
  return std::log(joint_[i][j]) - std::log(px_[i]) - std::log(py_[j]);
}

int ExactPredictor::critic(std::string_view x, std::string_view y) const {
  return log_ratio(x, y) > 0 ? 1 : -1;
}

double ExactPredictor::mutual_information(mi::Measure m) const {
  double sum = 0;
  for (std::size_t i = 0; i < px_.size(); ++i)
    for (std::size_t j = 0; j < py_.size(); ++j)
      sum += px_[i] * py_[j] * mi::f(m, joint_[i][j] / (px_[i] * py_[j]));
  return sum;
}

}  // namespace probity::predict
