#pragma once
#include <string>

namespace probity {

// The version string written into every signature and file probity writes ("0.x.y").
std::string version();

}  // namespace probity
