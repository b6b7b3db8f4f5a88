// The CSV importer: tasks, or an InputError naming file, line and column.
#include <cstdint>
#include <string_view>

#include "probity/dataset.hpp"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  const std::string_view text(reinterpret_cast<const char*>(data), size);
  for (bool skip : {false, true}) {
    try {
      auto ds = probity::parse_csv_dataset(text, "fuzz.csv", {skip});
      (void)ds.num_candidates();
    } catch (const probity::InputError& e) {
      if (e.file() != "fuzz.csv") __builtin_trap();
    }
  }
  return 0;
}
