// The score-file reader against a fixed dataset: columns, or an InputError / UsageError.
#include <cstdint>
#include <sstream>
#include <string_view>

#include "probity/error.hpp"
#include "probity/scores.hpp"
#include "probity/scoring.hpp"

namespace {
const probity::Dataset& dataset() {
  static const probity::Dataset ds = probity::parse_dataset(
      R"({"task_id": "t1", "references": ["a b"], "candidates": [{"id": "c1", "text": "a"}, {"id": "c2", "text": ""}]})"
      "\n"
      R"({"task_id": "t2", "references": ["x"], "candidates": [{"id": "c1", "text": "y"}]})"
      "\n",
      "data.jsonl");
  return ds;
}
}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  const auto& ds = dataset();
  const auto items = probity::all_items(ds);
  for (bool allow : {false, true}) {
    std::istringstream in(std::string(reinterpret_cast<const char*>(data), size));
    try {
      auto columns = probity::read_scores(in, "fuzz.jsonl", ds, items, {}, {allow});
      for (const auto& c : columns)
        if (c.values.size() != items.size()) __builtin_trap();
    } catch (const probity::InputError&) {
    } catch (const probity::UsageError&) {
    }
  }
  return 0;
}
