// probity.toml: a configuration, or a ConfigError naming the file (and the line when known).
#include <cstdint>
#include <string_view>

#include "probity/llm.hpp"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  const std::string_view text(reinterpret_cast<const char*>(data), size);
  try {
    auto config = probity::llm::parse_config(text, "fuzz.toml");
    for (const auto& role : probity::llm::role_names()) (void)config.endpoint(role);
  } catch (const probity::llm::ConfigError& e) {
    if (e.file() != "fuzz.toml") __builtin_trap();
  } catch (const probity::UsageError&) {
  }
  return 0;
}
