#pragma once
// Number formatting shared by the meta-evaluation commands: undefined values print as "undef"
// in tables and as null in JSON.
#include <fmt/format.h>

#include <cmath>
#include <nlohmann/json.hpp>
#include <string>

namespace probity::cli {

using json = nlohmann::ordered_json;

inline json number(double v) {
  return std::isfinite(v) ? json(v) : json(nullptr);
}

inline std::string fixed(double v, int digits = 4) {
  return std::isfinite(v) ? fmt::format("{:.{}f}", v, digits) : "undef";
}

}  // namespace probity::cli
