#pragma once
// The attack's view of a metric: oriented primary-part scores of texts given as the candidates of
// items, in batches (attack.cpp binds it to compute_stats).
#include <functional>
#include <span>
#include <string>
#include <vector>

#include "probity/dataset.hpp"

namespace probity::attack {

using ScoreTexts = std::function<std::vector<double>(std::span<const ItemRef> items,
                                                     std::span<const std::string> texts)>;

}  // namespace probity::attack
