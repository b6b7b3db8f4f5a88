#pragma once
// The corpus score sacreBLEU's paired bootstrap (significance.py, _paired_bs_test and
// _bootstrap_resample) computes for one resample: the items' statistics as a numpy float32 array,
// summed in float32 row after row (numpy's reduction over axis 0), then given to the metric's
// _compute_score_from_stats. Under NumPy 1.x promotion (checked with NumPy 1.24.2) a quotient of
// two of those float32 numbers stays float32 (chrF's precision and recall, TER's edits per
// reference word) while any operation with a Python number widens to float64; BLEU's add-k
// smoothing writes back into the float32 array. Everything else is the metric's own formula.
#include <span>

namespace probity::metrics {

class NumpyResampled {
 public:
  virtual ~NumpyResampled() = default;
  // The score of float32-summed statistics (num_stats() of them), as above.
  virtual double resample_score(std::span<const float> summed) const = 0;
};

}  // namespace probity::metrics
