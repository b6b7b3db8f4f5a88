#pragma once
// Small helpers shared by the JSONL and CSV readers.
#include <cstddef>
#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "probity/dataset.hpp"

namespace probity::data {

// True when `s` holds only whitespace (an "empty text").
bool is_blank(std::string_view s);
// nlohmann's parse error text without its "[json.exception.parse_error.101] " prefix.
std::string short_json_message(std::string_view what);

// A JSON value for an error message: at most 80 bytes of its text (the rest elided, with the
// size said), so that a huge value does not become a huge message.
std::string quote_json(const nlohmann::json& value);

// One JSONL line parsed (util::json_hazard checked first), or nullopt with `message` (and, where it
// can be told, the `field` of a number too large for a double, such as 1e999) set.
std::optional<nlohmann::json> parse_json_line(const std::string& line, std::string& field,
                                              std::string& message);

// One row of a CSV or TSV file: the physical line where it starts and its cells.
struct Row {
  std::size_t line = 0;
  std::vector<std::string> cells;
};
// Splits CSV (`separator` ',') or TSV ('\t') text into rows (RFC 4180 quoting; quoted cells may
// span lines; a leading BOM is dropped; blank lines are skipped).
std::vector<Row> read_delimited(std::string text, const std::string& path, char separator);
// A finite number, surrounding spaces allowed.
bool parse_number(const std::string& s, double& out);
// The CSV importer's conventions (dataset.hpp) over CSV or TSV text.
Dataset parse_delimited_dataset(std::string_view text, const std::string& path, ReadOptions options,
                                char separator);

// The task format (JSONL) from a file, or standard input for "-".
Dataset read_task_jsonl(const std::string& path, ReadOptions options);

}  // namespace probity::data
