#pragma once
// Locations the tests read from: the repository's own copies (never ../shared).
#include <string>

namespace probity::test {
std::string golden_path(const std::string& rel);  // tests/golden/<rel>
std::string data_path(const std::string& rel);    // data/<rel>
std::string probity_binary();                     // the built CLI
std::string temp_dir(const std::string& name);    // a fresh, empty directory, unique per process
}  // namespace probity::test
