#include "probity/version.hpp"

namespace probity {

std::string version() {
  return PROBITY_VERSION;
}

}  // namespace probity
