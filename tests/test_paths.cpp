#include "test_paths.hpp"

#include <unistd.h>

#include <filesystem>

namespace probity::test {
std::string golden_path(const std::string& rel) {
  return std::string(PROBITY_TEST_DIR) + "/golden/" + rel;
}
std::string data_path(const std::string& rel) {
  return std::string(PROBITY_SOURCE_DIR) + "/data/" + rel;
}
std::string probity_binary() {
  return PROBITY_BINARY;
}
std::string temp_dir(const std::string& name) {
  auto dir = std::filesystem::temp_directory_path() /
             ("probity-test-" + std::to_string(getpid()) + "-" + name);
  std::filesystem::remove_all(dir);
  std::filesystem::create_directories(dir);
  return dir.string();
}
}  // namespace probity::test
