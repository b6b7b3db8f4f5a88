#pragma once
// Other shapes of input than the task format (docs/dataset-format.md): flat rows or records
// (CSV, TSV, JSONL, a JSON array) read through a column map, sacreBLEU-style plain-text files
// (one segment per line), and the mt-metrics-eval directory layout. Each becomes a Dataset;
// every reader names the file, line and field of bad input.
#include <functional>
#include <memory>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "probity/dataset.hpp"

namespace probity {

enum class DataFormat { Auto, Jsonl, Json, Csv, Tsv };

// "jsonl", "json", "csv", "tsv" (or "auto"); anything else is a UsageError listing them.
DataFormat parse_data_format(std::string_view name);
const char* data_format_name(DataFormat format);
// The format a path's extension names (.jsonl/.ndjson, .json, .csv, .tsv); JSONL otherwise.
DataFormat format_of_path(std::string_view path);

// Which column (CSV/TSV header cell) or field (JSONL/JSON key) of a flat row holds what.
// Each row (record) is one candidate; rows that share a task id are one task.
struct ColumnMap {
  std::string task;          // task id; none: every row is its own task, id = its line
  std::string candidate;     // candidate text (required)
  std::string candidate_id;  // none: the system name, else c1, c2, ... within the task
  std::string system;
  std::string source;
  std::string group;
  std::vector<std::string> references;                     // in order; ids are the column names
  std::vector<std::pair<std::string, std::string>> human;  // dimension, column
  bool empty() const { return candidate.empty(); }
  std::vector<std::string> columns() const;  // every column named
};

// Parses `task=doc_id,candidate=prediction,reference=ref,human=score,system=model` (keys:
// task, candidate, id, system, source, group, reference (repeatable), human or human:<dim>
// (repeatable)); commas or line breaks separate entries, `#` starts a comment line. `origin`
// names the text in errors (`--map` or the map file), which are InputErrors naming the entry.
ColumnMap parse_column_map(std::string_view spec, const std::string& origin);
// `spec`, or when it starts with '@' the map file it names.
ColumnMap read_column_map(const std::string& spec);

// How to read one --data input.
struct InputSpec {
  DataFormat format = DataFormat::Auto;  // Auto: by the path's extension
  ColumnMap map;                         // empty: the task format (JSONL) or CSV conventions
  // Told what was ignored (the unmapped columns); may be empty.
  std::function<void(const std::string&)> note;
};

// Reads a dataset per `spec`; "-" is standard input (JSONL unless `spec.format` says).
Dataset load_input(const std::string& path, const InputSpec& spec, ReadOptions options = {});
// Parses flat rows in memory (`format` must not be Auto); `name` stands for the file.
Dataset parse_mapped(std::string_view text, DataFormat format, const ColumnMap& map,
                     const std::string& name, ReadOptions options = {},
                     const std::function<void(const std::string&)>& note = {});

// sacreBLEU-style plain text: line i of every file is segment i (task id "i", 1-based). Each
// hypothesis file is one system (candidate id and system: the file name without directory and
// extension); `human` holds one number per line for each hypothesis file, in the same order
// (dimension "human"; a blank line or `None`: not rated).
struct PlainTextInput {
  std::vector<std::string> hypotheses;
  std::vector<std::string> references;
  std::vector<std::string> human;
  std::string source;  // optional source file
};
Dataset load_plain_text(const PlainTextInput& input, ReadOptions options = {});

// One language pair of an mt-metrics-eval test-set directory (google-research/mt-metrics-eval):
// sources/<lp>.txt, references/<lp>.<ref>.txt, system-outputs/<lp>/<sys>.txt,
// human-scores/<lp>.<name>.seg.score, documents/<lp>.docs. Task ids are segment numbers.
Dataset load_mtme(const std::string& dir, const std::string& lp, ReadOptions options = {},
                  const std::function<void(const std::string&)>& note = {});

// One dataset as a request names it: a file read per `spec` ("-": standard input), plain-text
// files, one language pair of an mt-metrics-eval directory, or a dataset already in memory (the
// Python module's). Requests carry these, so that how an input is read travels with it.
struct DataInput {
  enum class Kind { kFile, kPlainText, kMtme, kMemory };
  Kind kind = Kind::kFile;
  std::string path;      // kFile: the file; kMtme: the directory
  InputSpec spec;        // kFile: format and column map; kFile and kMtme: where notes go
  PlainTextInput plain;  // kPlainText
  std::string lp;        // kMtme: the language pair
  std::shared_ptr<const Dataset> dataset;  // kMemory

  DataInput() = default;
  // A file in the task format (or CSV/TSV/JSON by its extension).
  DataInput(std::string file) : path(std::move(file)) {}  // NOLINT: implicit on purpose
  DataInput(const char* file) : path(file) {}             // NOLINT: implicit on purpose
  static DataInput memory(Dataset dataset);

  // What names the input in outputs and messages: the file, the first hypothesis file, the
  // directory, or the in-memory dataset's `path`.
  const std::string& name() const;
  // Whether TaskReader can stream it (a JSONL file in the task format with no map).
  bool streams_as_task_jsonl() const;
  Dataset load(ReadOptions options = {}) const;
};

}  // namespace probity
