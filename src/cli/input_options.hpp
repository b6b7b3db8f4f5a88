#pragma once
// The input flags every command that reads a dataset shares (docs/dataset-format.md): --map and
// --format for flat CSV/TSV/JSONL/JSON rows, "-" for standard input, --hyp/--ref/--human for
// sacreBLEU-style plain-text files, --mtme/--lp for an mt-metrics-eval directory.
#include <string>
#include <vector>

#include "probity/inputs.hpp"

namespace CLI {
class App;
}

namespace probity::cli {

// Adds the flags to `cmd`, whose --data option (added before, with CLI::ExistingFile) stores
// into `data`: --data then also takes "-" and is optional when --hyp or --mtme names the data.
// Once `cmd` is parsed, the flags are checked and `data` says how to read each input.
void add_input_options(CLI::App* cmd, DataInput& data);
void add_input_options(CLI::App* cmd, std::vector<DataInput>& data);

}  // namespace probity::cli
