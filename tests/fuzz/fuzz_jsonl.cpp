// The JSONL task reader: any bytes give tasks or an InputError naming file, line and field.
#include <cstdint>
#include <string_view>

#include "probity/dataset.hpp"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  const std::string_view text(reinterpret_cast<const char*>(data), size);
  for (bool skip : {false, true}) {
    try {
      auto ds = probity::parse_dataset(text, "fuzz.jsonl", {skip});
      (void)ds.dimensions();
      (void)probity::items_digest(ds);
    } catch (const probity::InputError& e) {
      if (e.file() != "fuzz.jsonl") __builtin_trap();  // errors name the file
    }
  }
  return 0;
}
