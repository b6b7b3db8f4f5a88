// MTME's grouping, averaging and z-scoring (see mtme_detail.hpp).
#include <algorithm>
#include <cmath>
#include <stdexcept>

#include "stats/kernels.hpp"
#include "stats/mtme_detail.hpp"

namespace probity::stats::detail {

std::vector<std::vector<std::size_t>> mtme_groups(std::size_t size, std::size_t systems,
                                                  MtmeAverageBy average_by) {
  if (systems == 0 || size % systems != 0)
    throw std::invalid_argument("mt-metrics-eval statistics: scores are not systems x items");
  const std::size_t items = size / systems;
  std::vector<std::vector<std::size_t>> groups;
  if (average_by == MtmeAverageBy::kNone) {
    groups.emplace_back(size);
    for (std::size_t i = 0; i < size; ++i) groups[0][i] = i;
  } else if (average_by == MtmeAverageBy::kSys) {
    for (std::size_t s = 0; s < systems; ++s) {
      groups.emplace_back();
      for (std::size_t t = 0; t < items; ++t) groups.back().push_back(s * items + t);
    }
  } else {
    for (std::size_t t = 0; t < items; ++t) {
      groups.emplace_back();
      for (std::size_t s = 0; s < systems; ++s) groups.back().push_back(s * items + t);
    }
  }
  return groups;
}

double mtme_average(std::vector<double> values, bool replace_nans_with_zeros) {
  if (replace_nans_with_zeros) {
    for (double& v : values)
      if (std::isnan(v)) v = 0.0;
  } else {
    std::erase_if(values, [](double v) { return std::isnan(v); });
  }
  return values.empty() ? 0.0 : numpy_mean(values);
}

std::vector<double> scipy_zscore(std::span<const double> v) {
  if (!v.empty() && std::all_of(v.begin(), v.end(), [&](double x) { return x == v[0]; }))
    return std::vector<double>(v.size(), std::nan(""));
  return zscore(v);
}

}  // namespace probity::stats::detail
