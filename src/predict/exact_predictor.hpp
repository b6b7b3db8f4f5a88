#pragma once
// The exact predictor over a synthetic discrete joint distribution: texts "x<i>" and "y<j>" name
// the symbols, and log r(x, y) = log p(i, j) − log p(i) − log p(j) is computed exactly. It exists
// to verify the estimators against known mutual information.
#include <string>
#include <vector>

#include "probity/mi.hpp"

namespace probity::predict {

class ExactPredictor final : public mi::Predictor {
 public:
  // joint[i][j] = P(X = i, Y = j); every entry must be positive and they must sum to 1.
  explicit ExactPredictor(std::vector<std::vector<double>> joint);
  std::string signature() const override { return "exact:synthetic"; }
  void fit(std::span<const Task>, bool) override {}
  double log_ratio(std::string_view x, std::string_view y) const override;
  int critic(std::string_view x, std::string_view y) const override;

  // The true f-mutual information E_{P_X ⊗ P_Y}[f(r)].
  double mutual_information(mi::Measure m) const;
  const std::vector<double>& px() const { return px_; }
  const std::vector<double>& py() const { return py_; }
  const std::vector<std::vector<double>>& joint() const { return joint_; }

 private:
  std::vector<std::vector<double>> joint_;
  std::vector<double> px_, py_;
};

}  // namespace probity::predict
