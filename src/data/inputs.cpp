// Other shapes of input (inputs.hpp): mapped flat rows, plain-text files, mt-metrics-eval.
#include "probity/inputs.hpp"

#include <fmt/format.h>
#include <fmt/ranges.h>

#include <algorithm>
#include <cmath>
#include <filesystem>
#include <fstream>
#include <iostream>
#include <iterator>
#include <map>
#include <nlohmann/json.hpp>
#include <optional>
#include <set>
#include <sstream>
#include <unordered_map>
#include <unordered_set>

#include "data/validate.hpp"
#include "probity/error.hpp"
#include "probity/text.hpp"
#include "text/ascii.hpp"
#include "text/utf8.hpp"
#include "util/json_limits.hpp"

namespace probity {
namespace {

using json = nlohmann::json;
namespace fs = std::filesystem;

std::string read_text(const std::string& path) {
  if (path == "-") {
    std::string s{std::istreambuf_iterator<char>(std::cin), std::istreambuf_iterator<char>()};
    return s;
  }
  std::ifstream in(path, std::ios::binary);
  if (!in) throw InputError(path, 0, "", "cannot open file");
  std::stringstream buf;
  buf << in.rdbuf();
  return buf.str();
}

std::string display_name(const std::string& path) {
  return path == "-" ? "<stdin>" : path;
}

std::string trim(std::string_view s) {
  while (!s.empty() && (s.front() == ' ' || s.front() == '\t' || s.front() == '\r'))
    s.remove_prefix(1);
  while (!s.empty() && (s.back() == ' ' || s.back() == '\t' || s.back() == '\r'))
    s.remove_suffix(1);
  return std::string(s);
}

// A rating cell or value that means "not rated".
bool unrated_text(const std::string& v) {
  return data::is_blank(v) || v == "None" || v == "NaN" || v == "nan" || v == "NA";
}

// Builds tasks from flat records (a JSON object per row; CSV/TSV cells become strings).
class FlatBuilder {
 public:
  FlatBuilder(const ColumnMap& map, std::string path, ReadOptions options, bool text_cells)
      : map_(map), path_(std::move(path)), options_(options), text_cells_(text_cells) {
    for (const auto& c : map_.columns()) {
      mapped_.insert(c);
      mapped_.insert(c.substr(0, c.find('.')));  // the top of a dotted path is used too
    }
    ds_.path = path_;
  }

  void add(const json& record, std::size_t line) {
    line_ = line;
    try {
      add_record(record);
    } catch (const Problem& p) {
      if (!options_.skip_invalid) throw InputError(path_, line_, p.field, p.message);
      ds_.skipped.push_back({path_, line_, p.field, p.message});
    }
  }

  // A whole row is bad (malformed JSON, invalid UTF-8).
  void problem(const std::string& field, const std::string& message) {
    if (!options_.skip_invalid) throw InputError(path_, line_, field, message);
    ds_.skipped.push_back({path_, line_, field, message});
  }
  void set_line(std::size_t line) { line_ = line; }

  Dataset finish(const std::function<void(const std::string&)>& note) {
    if (ds_.tasks.empty()) throw InputError(path_, 0, "", "no valid rows in file");
    if (note && !unmapped_.empty())
      note(fmt::format("{}: ignored {} column(s) not named by the column map: {}", path_,
                       unmapped_.size(), fmt::join(unmapped_, ", ")));
    return std::move(ds_);
  }

 private:
  struct Problem {
    std::string field;
    std::string message;
  };

  // The column's value; a dotted path ("meta.doc_id", "refs.0") reaches into nested objects
  // and arrays (the shape of Hugging Face datasets) when no field has the whole name.
  const json* field(const std::string& column, const json& record) const {
    auto it = record.find(column);
    if (it != record.end()) return it->is_null() ? nullptr : &*it;
    const json* at = &record;
    std::size_t begin = 0;
    while (at != nullptr && begin <= column.size()) {
      const std::size_t dot = std::min(column.find('.', begin), column.size());
      const std::string key = column.substr(begin, dot - begin);
      if (at->is_object()) {
        auto next = at->find(key);
        at = next == at->end() ? nullptr : &*next;
      } else if (at->is_array() && !key.empty() &&
                 key.find_first_not_of("0123456789") == std::string::npos && key.size() < 10) {
        const std::size_t i = std::stoul(key);
        at = i < at->size() ? &(*at)[i] : nullptr;
      } else {
        at = nullptr;
      }
      if (dot == column.size()) break;
      begin = dot + 1;
    }
    return at == nullptr || at->is_null() ? nullptr : at;
  }

  // An id-like value: a string, or an integer written out.
  std::string id_value(const json& record, const std::string& column, const char* key) const {
    const json* v = field(column, record);
    if (v == nullptr)
      throw Problem{column, fmt::format("missing field (the column map's {}={})", key, column)};
    std::string s;
    if (v->is_string())
      s = v->get<std::string>();
    else if (v->is_number_integer())
      s = v->dump();
    else
      throw Problem{column, fmt::format("expected a string or an integer, got {}", v->type_name())};
    if (data::is_blank(s)) throw Problem{column, "empty id"};
    return s;
  }

  std::string text_value(const json& record, const std::string& column, const char* key,
                         bool required) const {
    const json* v = field(column, record);
    if (v == nullptr) {
      if (required)
        throw Problem{column, fmt::format("missing field (the column map's {}={})", key, column)};
      return {};
    }
    if (!v->is_string())
      throw Problem{column, fmt::format("expected a string, got {}", v->type_name())};
    return v->get<std::string>();
  }

  void add_record(const json& record) {
    if (!record.is_object())
      throw Problem{"", fmt::format("expected a JSON object per row, got {}", record.type_name())};
    for (const auto& [key, value] : record.items())
      if (!mapped_.count(key)) unmapped_.insert(key);

    std::string task_id =
        map_.task.empty() ? std::to_string(line_) : id_value(record, map_.task, "task");
    Candidate cand;
    cand.text = text_value(record, map_.candidate, "candidate", true);
    if (!map_.system.empty()) {
      const json* v = field(map_.system, record);
      if (v != nullptr) cand.system = v->is_string() ? v->get<std::string>() : v->dump();
    }
    for (const auto& [dim, column] : map_.human) {
      const json* v = field(column, record);
      if (v == nullptr) continue;
      auto add = [&](const json& x, const std::string& f) {
        double d = 0;
        if (x.is_string()) {
          const std::string& s = x.get_ref<const std::string&>();
          if (unrated_text(s)) return;
          if (!text_cells_ || !data::parse_number(s, d))
            throw Problem{f, fmt::format("non-numeric rating '{}'", s)};
        } else if (x.is_number()) {
          d = x.get<double>();
          if (!std::isfinite(d)) throw Problem{f, "rating is not finite"};
        } else {
          throw Problem{f, fmt::format("non-numeric rating ({})", data::quote_json(x))};
        }
        cand.human[dim].push_back(d);
      };
      if (v->is_array()) {
        for (std::size_t i = 0; i < v->size(); ++i) add((*v)[i], fmt::format("{}[{}]", column, i));
      } else {
        add(*v, column);
      }
    }
    std::vector<Reference> refs;
    // Every reference cell blank (CSV/TSV): on a later row of a task, the first row's references.
    bool refs_blank = true;
    for (std::size_t k = 0; k < map_.references.size(); ++k) {
      const std::string& column = map_.references[k];
      const json* v = field(column, record);
      if (v == nullptr) continue;
      if (v->is_string()) {
        const bool blank = data::is_blank(v->get_ref<const std::string&>());
        refs_blank = refs_blank && text_cells_ && blank;
        // Blank cells of later reference columns are absent references, as in the CSV importer.
        if (text_cells_ && k > 0 && blank) continue;
        refs.push_back({column, v->get<std::string>()});
      } else if (v->is_array()) {
        refs_blank = false;
        for (std::size_t i = 0; i < v->size(); ++i) {
          if (!(*v)[i].is_string())
            throw Problem{fmt::format("{}[{}]", column, i),
                          fmt::format("expected a string, got {}", (*v)[i].type_name())};
          refs.push_back({fmt::format("{}_{}", column, i + 1), (*v)[i].get<std::string>()});
        }
      } else {
        throw Problem{
            column, fmt::format("expected a string or a list of strings, got {}", v->type_name())};
      }
    }
    std::string group = map_.group.empty() ? "" : text_value(record, map_.group, "group", false);
    std::string source =
        map_.source.empty() ? "" : text_value(record, map_.source, "source", false);

    auto it = task_index_.find(task_id);
    if (it == task_index_.end()) {
      Task t;
      t.task_id = task_id;
      t.line = line_;
      t.references = std::move(refs);
      t.group = std::move(group);
      t.source = std::move(source);
      it = task_index_.emplace(task_id, ds_.tasks.size()).first;
      ds_.tasks.push_back(std::move(t));
    } else {
      const Task& have = ds_.tasks[it->second];
      if (!refs.empty() && !refs_blank) {
        bool same = have.references.size() == refs.size();
        for (std::size_t i = 0; same && i < refs.size(); ++i)
          same = have.references[i].text == refs[i].text;
        if (!same)
          throw Problem{map_.references[0],
                        fmt::format("references differ from the first row of task '{}' (line {})",
                                    task_id, have.line)};
      }
      if (!source.empty() && source != have.source)
        throw Problem{map_.source, fmt::format("source differs from the first row of task '{}' "
                                               "(line {})",
                                               task_id, have.line)};
    }
    Task& task = ds_.tasks[it->second];
    std::size_t& position = positions_[task_id];
    ++position;
    if (!map_.candidate_id.empty())
      cand.id = id_value(record, map_.candidate_id, "id");
    else if (!cand.system.empty())
      cand.id = cand.system;
    else
      cand.id = fmt::format("c{}", position);
    bool fresh = true;
    for (const auto& c : task.candidates) fresh = fresh && c.id != cand.id;
    if (!fresh)
      throw Problem{map_.candidate_id.empty() ? map_.system : map_.candidate_id,
                    fmt::format("duplicate candidate id '{}' in task '{}' (first row line {})",
                                cand.id, task_id, task.line)};
    task.candidates.push_back(std::move(cand));
  }

  const ColumnMap& map_;
  std::string path_;
  ReadOptions options_;
  bool text_cells_;
  std::size_t line_ = 0;
  Dataset ds_;
  std::set<std::string> mapped_;
  std::set<std::string> unmapped_;
  std::unordered_map<std::string, std::size_t> task_index_;
  std::unordered_map<std::string, std::size_t> positions_;
};

// Lines of a text file: BOM and CR dropped, no line after a final newline; UTF-8 checked.
std::vector<std::string> read_lines(const std::string& path) {
  std::string text = read_text(path);
  if (text.rfind("\xEF\xBB\xBF", 0) == 0) text.erase(0, 3);
  std::vector<std::string> lines;
  std::size_t start = 0;
  while (start < text.size()) {
    std::size_t end = text.find('\n', start);
    if (end == std::string::npos) end = text.size();
    std::string line = text.substr(start, end - start);
    if (!line.empty() && line.back() == '\r') line.pop_back();
    if (!text::is_valid_utf8(line))
      throw InputError(path, lines.size() + 1, "",
                       fmt::format("invalid UTF-8 at byte {}", text::first_invalid_utf8(line) + 1));
    lines.push_back(std::move(line));
    start = end + 1;
  }
  return lines;
}

// File names without directory and extension ("stdin" for "-"); the paths themselves when two
// names collide.
std::vector<std::string> names_of(const std::vector<std::string>& paths) {
  std::vector<std::string> names;
  for (const auto& p : paths) names.push_back(p == "-" ? "stdin" : fs::path(p).stem().string());
  std::set<std::string> unique(names.begin(), names.end());
  if (unique.size() != names.size()) return paths;
  return names;
}

// A rating in a score file: a number, or None / blank for "not rated".
std::optional<double> score_value(const std::string& v, const std::string& path, std::size_t line,
                                  const std::string& field) {
  if (unrated_text(v)) return std::nullopt;
  double d = 0;
  if (!data::parse_number(v, d))
    throw InputError(path, line, field, fmt::format("non-numeric score '{}'", v));
  return d;
}

// A .json file that is not an array (one JSON object per line under a .json name) is JSONL.
bool is_json_array(std::string_view text) {
  if (text.rfind("\xEF\xBB\xBF", 0) == 0) text.remove_prefix(3);
  const std::size_t first = text.find_first_not_of(" \t\r\n");
  return first != std::string_view::npos && text[first] == '[';
}

Dataset parse_json_tasks(const std::string& text, const std::string& name, ReadOptions options) {
  if (!is_json_array(text)) {
    Dataset ds = parse_dataset(text, name, options);
    ds.path = name;
    return ds;
  }
  json j;
  try {
    j = util::parse_json(text);
  } catch (const json::exception& e) {
    throw InputError(name, 0, "", "malformed JSON: " + data::short_json_message(e.what()));
  }
  if (!j.is_array())
    throw InputError(name, 0, "",
                     fmt::format("expected a JSON array of tasks, got {} (a file of one JSON "
                                 "object per line is JSONL: --format jsonl)",
                                 j.type_name()));
  // Element i is read as line i of a JSONL file, so messages name it by its 1-based position.
  std::string lines;
  for (const auto& e : j) lines += e.dump() + "\n";
  Dataset ds = parse_dataset(lines, name, options);
  ds.path = name;
  return ds;
}

}  // namespace

DataFormat parse_data_format(std::string_view name) {
  const std::string n = text::ascii_lower(name);
  if (n == "auto") return DataFormat::Auto;
  if (n == "jsonl" || n == "ndjson") return DataFormat::Jsonl;
  if (n == "json") return DataFormat::Json;
  if (n == "csv") return DataFormat::Csv;
  if (n == "tsv") return DataFormat::Tsv;
  throw UsageError(fmt::format("unknown data format '{}' (formats: jsonl, json, csv, tsv)", name));
}

const char* data_format_name(DataFormat format) {
  switch (format) {
    case DataFormat::Auto:
      return "auto";
    case DataFormat::Jsonl:
      return "jsonl";
    case DataFormat::Json:
      return "json";
    case DataFormat::Csv:
      return "csv";
    case DataFormat::Tsv:
      return "tsv";
  }
  return "auto";
}

DataFormat format_of_path(std::string_view path) {
  const std::string ext = text::ascii_lower(fs::path(std::string(path)).extension().string());
  if (ext == ".csv") return DataFormat::Csv;
  if (ext == ".tsv" || ext == ".tab") return DataFormat::Tsv;
  if (ext == ".json") return DataFormat::Json;
  return DataFormat::Jsonl;
}

std::vector<std::string> ColumnMap::columns() const {
  std::vector<std::string> out;
  for (const std::string* c : {&task, &candidate, &candidate_id, &system, &source, &group})
    if (!c->empty()) out.push_back(*c);
  out.insert(out.end(), references.begin(), references.end());
  for (const auto& [dim, column] : human) out.push_back(column);
  return out;
}

ColumnMap parse_column_map(std::string_view spec, const std::string& origin) {
  ColumnMap map;
  std::size_t line = 1;
  std::size_t start = 0;
  auto entry = [&](std::string_view raw, std::size_t at) {
    std::string e = trim(raw);
    if (e.empty() || e[0] == '#') return;
    std::size_t eq = e.find('=');
    if (eq == std::string::npos)
      throw InputError(origin, at, e,
                       "expected KEY=COLUMN (keys: task, candidate, id, system, "
                       "source, group, reference, human, human:<dimension>)");
    std::string key = trim(std::string_view(e).substr(0, eq));
    std::string column = trim(std::string_view(e).substr(eq + 1));
    if (column.empty()) throw InputError(origin, at, key, "no column named");
    auto single = [&](std::string& slot) {
      if (!slot.empty())
        throw InputError(origin, at, key, fmt::format("given twice ('{}' and '{}')", slot, column));
      slot = column;
    };
    if (key == "task" || key == "task_id")
      single(map.task);
    else if (key == "candidate" || key == "text")
      single(map.candidate);
    else if (key == "id" || key == "candidate_id")
      single(map.candidate_id);
    else if (key == "system")
      single(map.system);
    else if (key == "source")
      single(map.source);
    else if (key == "group")
      single(map.group);
    else if (key == "reference" || key == "references")
      map.references.push_back(column);
    else if (key == "human")
      map.human.emplace_back(column, column);
    else if (key.rfind("human:", 0) == 0 && key.size() > 6)
      map.human.emplace_back(key.substr(6), column);
    else
      throw InputError(origin, at, key,
                       "unknown key (keys: task, candidate, id, system, source, group, "
                       "reference, human, human:<dimension>)");
  };
  for (std::size_t i = 0; i <= spec.size(); ++i) {
    if (i == spec.size() || spec[i] == ',' || spec[i] == '\n') {
      entry(spec.substr(start, i - start), origin == "--map" ? 0 : line);
      if (i < spec.size() && spec[i] == '\n') ++line;
      start = i + 1;
    }
  }
  if (map.candidate.empty())
    throw InputError(origin, 0, "candidate",
                     "the column map names no candidate column (candidate=COLUMN)");
  std::set<std::string> dims;
  for (const auto& [dim, column] : map.human)
    if (!dims.insert(dim).second)
      throw InputError(origin, 0, "human:" + dim, "human dimension named twice");
  return map;
}

ColumnMap read_column_map(const std::string& spec) {
  if (!spec.empty() && spec[0] == '@') {
    const std::string path = spec.substr(1);
    return parse_column_map(read_text(path), path);
  }
  return parse_column_map(spec, "--map");
}

Dataset parse_mapped(std::string_view text, DataFormat format, const ColumnMap& map,
                     const std::string& name, ReadOptions options,
                     const std::function<void(const std::string&)>& note) {
  if (format == DataFormat::Csv || format == DataFormat::Tsv) {
    auto rows =
        data::read_delimited(std::string(text), name, format == DataFormat::Csv ? ',' : '\t');
    if (rows.empty()) throw InputError(name, 1, "", "empty file (a header row is required)");
    const auto& header = rows[0].cells;
    std::set<std::string> seen;
    for (const auto& h : header)
      if (!h.empty() && !seen.insert(h).second)
        throw InputError(name, 1, h, "column named twice in the header");
    for (const auto& column : map.columns())
      if (!seen.count(column))
        throw InputError(name, 1, column,
                         fmt::format("column named by the column map is not in the header "
                                     "(columns: {})",
                                     fmt::join(header, ", ")));
    FlatBuilder builder(map, name, options, true);
    for (std::size_t r = 1; r < rows.size(); ++r) {
      const auto& row = rows[r];
      builder.set_line(row.line);
      if (row.cells.size() != header.size()) {
        builder.problem(
            "", fmt::format("expected {} cells, found {}", header.size(), row.cells.size()));
        continue;
      }
      json record = json::object();
      bool bad = false;
      for (std::size_t i = 0; i < header.size() && !bad; ++i) {
        if (header[i].empty() || !seen.count(header[i])) continue;
        if (!text::is_valid_utf8(row.cells[i])) {
          builder.problem(header[i], "invalid UTF-8");
          bad = true;
        }
        record[header[i]] = row.cells[i];
      }
      if (!bad) builder.add(record, row.line);
    }
    return builder.finish(note);
  }
  FlatBuilder builder(map, name, options, false);
  if (format == DataFormat::Json && is_json_array(text)) {
    json j;
    try {
      j = util::parse_json(text);
    } catch (const json::exception& e) {
      throw InputError(name, 0, "", "malformed JSON: " + data::short_json_message(e.what()));
    }
    if (!j.is_array())
      throw InputError(name, 0, "",
                       fmt::format("expected a JSON array of records, got {}", j.type_name()));
    // Records are numbered from 1 in place of lines.
    for (std::size_t i = 0; i < j.size(); ++i) builder.add(j[i], i + 1);
    return builder.finish(note);
  }
  std::size_t line_no = 0;
  std::size_t start = 0;
  while (start < text.size()) {
    std::size_t end = text.find('\n', start);
    if (end == std::string_view::npos) end = text.size();
    std::string line(text.substr(start, end - start));
    start = end + 1;
    ++line_no;
    if (line_no == 1 && line.rfind("\xEF\xBB\xBF", 0) == 0) line.erase(0, 3);
    if (!line.empty() && line.back() == '\r') line.pop_back();
    if (data::is_blank(line)) continue;
    builder.set_line(line_no);
    if (!text::is_valid_utf8(line)) {
      builder.problem("",
                      fmt::format("invalid UTF-8 at byte {}", text::first_invalid_utf8(line) + 1));
      continue;
    }
    std::string field, message;
    auto parsed = data::parse_json_line(line, field, message);
    if (!parsed) {
      builder.problem(field, message);
      continue;
    }
    builder.add(*parsed, line_no);
  }
  return builder.finish(note);
}

Dataset load_input(const std::string& path, const InputSpec& spec, ReadOptions options) {
  DataFormat format = spec.format;
  if (format == DataFormat::Auto) format = path == "-" ? DataFormat::Jsonl : format_of_path(path);
  const std::string name = display_name(path);
  if (!spec.map.empty())
    return parse_mapped(read_text(path), format, spec.map, name, options, spec.note);
  switch (format) {
    case DataFormat::Csv:
      return parse_csv_dataset(read_text(path), name, options);
    case DataFormat::Tsv:
      return data::parse_delimited_dataset(read_text(path), name, options, '\t');
    case DataFormat::Json:
      return parse_json_tasks(read_text(path), name, options);
    case DataFormat::Auto:
    case DataFormat::Jsonl:
      break;
  }
  return data::read_task_jsonl(path, options);
}

Dataset load_plain_text(const PlainTextInput& input, ReadOptions options) {
  if (input.hypotheses.empty()) throw UsageError("plain-text input needs at least one --hyp file");
  if (!input.human.empty() && input.human.size() != input.hypotheses.size())
    throw UsageError(
        fmt::format("--human is given {} time(s) for {} --hyp file(s): give one "
                    "file of scores per hypothesis file, in the same order",
                    input.human.size(), input.hypotheses.size()));
  // Standard input can be read once: by one file.
  std::size_t from_stdin = input.source == "-" ? 1 : 0;
  for (const auto* files : {&input.hypotheses, &input.references, &input.human})
    from_stdin += static_cast<std::size_t>(std::count(files->begin(), files->end(), "-"));
  if (from_stdin > 1)
    throw UsageError(fmt::format(
        "'-' (standard input) is given {} times: at most one plain-text file can be read "
        "from standard input",
        from_stdin));
  std::vector<std::vector<std::string>> hyps, refs, human;
  for (const auto& p : input.hypotheses) hyps.push_back(read_lines(p));
  for (const auto& p : input.references) refs.push_back(read_lines(p));
  for (const auto& p : input.human) human.push_back(read_lines(p));
  std::vector<std::string> source;
  if (!input.source.empty()) source = read_lines(input.source);
  const std::size_t n = hyps[0].size();
  auto check = [&](const std::vector<std::string>& lines, const std::string& path) {
    if (lines.size() != n)
      throw InputError(path, std::min(lines.size(), n) + 1, "",
                       fmt::format("{} lines, but '{}' has {}: line i of every file is segment i",
                                   lines.size(), input.hypotheses[0], n));
  };
  for (std::size_t i = 0; i < hyps.size(); ++i) check(hyps[i], input.hypotheses[i]);
  for (std::size_t i = 0; i < refs.size(); ++i) check(refs[i], input.references[i]);
  for (std::size_t i = 0; i < human.size(); ++i) check(human[i], input.human[i]);
  if (!input.source.empty()) check(source, input.source);
  if (n == 0) throw InputError(input.hypotheses[0], 0, "", "no segments (the file is empty)");

  const auto systems = names_of(input.hypotheses);
  const auto ref_ids = names_of(input.references);
  Dataset ds;
  ds.path = input.hypotheses[0];
  for (std::size_t i = 0; i < n; ++i) {
    Task t;
    t.task_id = std::to_string(i + 1);
    t.line = i + 1;
    if (!source.empty()) t.source = source[i];
    for (std::size_t r = 0; r < refs.size(); ++r) t.references.push_back({ref_ids[r], refs[r][i]});
    for (std::size_t h = 0; h < hyps.size(); ++h) {
      Candidate c;
      c.id = systems[h];
      c.system = systems[h];
      c.text = hyps[h][i];
      if (!human.empty()) {
        try {
          if (auto v = score_value(human[h][i], input.human[h], i + 1, "human"))
            c.human["human"].push_back(*v);
        } catch (const InputError& e) {
          if (!options.skip_invalid) throw;
          ds.skipped.push_back({e.file(), e.line(), e.field(), e.detail()});
          continue;
        }
      }
      t.candidates.push_back(std::move(c));
    }
    if (!t.candidates.empty()) ds.tasks.push_back(std::move(t));
  }
  if (ds.tasks.empty()) throw InputError(ds.path, 0, "", "no valid segments");
  return ds;
}

Dataset load_mtme(const std::string& dir, const std::string& lp, ReadOptions options,
                  const std::function<void(const std::string&)>& note) {
  const fs::path root(dir);
  if (!fs::is_directory(root))
    throw InputError(dir, 0, "",
                     "not a directory (expected an mt-metrics-eval test-set "
                     "directory such as mt-metrics-eval-v2/wmt22)");
  if (lp.empty()) throw UsageError("--mtme DIR needs --lp PAIR (e.g. en-de)");
  const fs::path sources = root / "sources" / (lp + ".txt");
  if (!fs::is_regular_file(sources)) {
    std::vector<std::string> lps;
    std::error_code ec;
    for (const auto& e : fs::directory_iterator(root / "sources", ec))
      if (e.path().extension() == ".txt") lps.push_back(e.path().stem().string());
    std::sort(lps.begin(), lps.end());
    throw InputError(
        sources.string(), 0, "",
        fmt::format("no such file: language pair '{}' is not in '{}' (language "
                    "pairs: {})",
                    lp, dir, lps.empty() ? "none" : fmt::format("{}", fmt::join(lps, ", "))));
  }
  const auto src = read_lines(sources.string());
  const std::size_t n = src.size();
  if (n == 0) throw InputError(sources.string(), 0, "", "no segments (the file is empty)");
  auto same_length = [&](const std::vector<std::string>& lines, const std::string& path) {
    if (lines.size() != n)
      throw InputError(path, std::min(lines.size(), n) + 1, "",
                       fmt::format("{} lines, but '{}' has {}: line i of every file is segment i",
                                   lines.size(), sources.string(), n));
  };
  // Files named <prefix><NAME><suffix> in a directory, sorted by NAME.
  auto named_files = [&](const fs::path& d, const std::string& prefix, const std::string& suffix) {
    std::vector<std::pair<std::string, std::string>> out;  // name, path
    std::error_code ec;
    for (const auto& e : fs::directory_iterator(d, ec)) {
      const std::string f = e.path().filename().string();
      if (!e.is_regular_file() || f.size() <= prefix.size() + suffix.size()) continue;
      if (f.rfind(prefix, 0) != 0 || !f.ends_with(suffix)) continue;
      out.emplace_back(f.substr(prefix.size(), f.size() - prefix.size() - suffix.size()),
                       e.path().string());
    }
    std::sort(out.begin(), out.end());
    return out;
  };

  Dataset ds;
  ds.path = dir;
  std::vector<std::string> domains(n);
  const fs::path docs = root / "documents" / (lp + ".docs");
  if (fs::is_regular_file(docs)) {
    const auto lines = read_lines(docs.string());
    same_length(lines, docs.string());
    for (std::size_t i = 0; i < n; ++i) {
      std::istringstream in(lines[i]);
      std::string domain, doc;
      if (!(in >> domain >> doc))
        throw InputError(docs.string(), i + 1, "", "expected DOMAIN DOCNAME");
      domains[i] = domain;
    }
  }
  std::vector<std::pair<std::string, std::vector<std::string>>> refs;
  for (const auto& [name, path] : named_files(root / "references", lp + ".", ".txt")) {
    auto lines = read_lines(path);
    same_length(lines, path);
    refs.emplace_back(name, std::move(lines));
  }
  std::vector<std::pair<std::string, std::vector<std::string>>> systems;
  for (const auto& [name, path] : named_files(root / "system-outputs" / lp, "", ".txt")) {
    auto lines = read_lines(path);
    same_length(lines, path);
    systems.emplace_back(name, std::move(lines));
  }
  if (systems.empty())
    throw InputError((root / "system-outputs" / lp).string(), 0, "",
                     "no system outputs (<system>.txt files)");
  std::map<std::string, std::size_t> system_index;
  for (std::size_t s = 0; s < systems.size(); ++s) system_index[systems[s].first] = s;

  // human[dimension][system][segment]
  std::map<std::string, std::vector<std::vector<std::optional<double>>>> human;
  std::vector<std::string> other_levels;
  for (const auto& [name, path] : named_files(root / "human-scores", lp + ".", ".score")) {
    const std::size_t dot = name.rfind('.');
    if (dot == std::string::npos) continue;
    const std::string dim = name.substr(0, dot), level = name.substr(dot + 1);
    if (level != "seg") {
      other_levels.push_back(fs::path(path).filename().string());
      continue;
    }
    auto& scores = human[dim];
    scores.assign(systems.size(), std::vector<std::optional<double>>());
    const auto lines = read_lines(path);
    for (std::size_t l = 0; l < lines.size(); ++l) {
      if (data::is_blank(lines[l])) continue;
      std::istringstream in(lines[l]);
      std::string sys, value, extra;
      if (!(in >> sys >> value) || (in >> extra))
        throw InputError(path, l + 1, "", "expected SYSTEM SCORE");
      auto it = system_index.find(sys);
      if (it == system_index.end())
        throw InputError(
            path, l + 1, "system",
            fmt::format("unknown system '{}' (no system-outputs/{}/{}.txt)", sys, lp, sys));
      auto& column = scores[it->second];
      if (column.size() == n)
        throw InputError(path, l + 1, "system",
                         fmt::format("more than {} scores for system '{}'", n, sys));
      column.push_back(score_value(value, path, l + 1, "score"));
    }
    for (std::size_t s = 0; s < systems.size(); ++s)
      if (!scores[s].empty() && scores[s].size() != n)
        throw InputError(path, 0, "system",
                         fmt::format("{} scores for system '{}', expected one per segment ({})",
                                     scores[s].size(), systems[s].first, n));
  }
  if (note) {
    if (!other_levels.empty())
      note(
          fmt::format("{}: read the segment-level human scores; not read: {} (probity "
                      "aggregates segment scores to systems itself)",
                      dir, fmt::join(other_levels, ", ")));
    std::vector<std::string> copies;
    for (const auto& [name, lines] : refs)
      if (system_index.count(name)) copies.push_back(name);
    if (!copies.empty())
      note(fmt::format(
          "{}: system output(s) {} are references too; score them against the "
          "other references with a metric's refs= option (e.g. bleu,refs={})",
          dir, fmt::join(copies, ", "),
          refs[0].first == copies[0] && refs.size() > 1 ? refs[1].first : refs[0].first));
  }
  (void)options;  // every file is checked whole; nothing is skipped item by item
  for (std::size_t i = 0; i < n; ++i) {
    Task t;
    t.task_id = std::to_string(i + 1);
    t.line = i + 1;
    t.source = src[i];
    t.group = domains[i];
    for (const auto& [name, lines] : refs) t.references.push_back({name, lines[i]});
    for (std::size_t s = 0; s < systems.size(); ++s) {
      Candidate c;
      c.id = systems[s].first;
      c.system = systems[s].first;
      c.text = systems[s].second[i];
      for (const auto& [dim, scores] : human)
        if (!scores[s].empty() && scores[s][i]) c.human[dim].push_back(*scores[s][i]);
      t.candidates.push_back(std::move(c));
    }
    ds.tasks.push_back(std::move(t));
  }
  return ds;
}

DataInput DataInput::memory(Dataset dataset) {
  DataInput input;
  input.kind = Kind::kMemory;
  input.dataset = std::make_shared<const Dataset>(std::move(dataset));
  return input;
}

const std::string& DataInput::name() const {
  switch (kind) {
    case Kind::kPlainText:
      if (plain.hypotheses.empty())
        throw UsageError("plain-text input needs at least one --hyp file");
      return plain.hypotheses.front();
    case Kind::kMemory:
      return dataset->path;
    case Kind::kFile:
    case Kind::kMtme:
      break;
  }
  return path;
}

bool DataInput::streams_as_task_jsonl() const {
  if (kind != Kind::kFile || path == "-" || !spec.map.empty()) return false;
  const DataFormat format = spec.format == DataFormat::Auto ? format_of_path(path) : spec.format;
  return format == DataFormat::Jsonl;
}

Dataset DataInput::load(ReadOptions options) const {
  switch (kind) {
    case Kind::kPlainText:
      return load_plain_text(plain, options);
    case Kind::kMtme:
      return load_mtme(path, lp, options, spec.note);
    case Kind::kMemory:
      return *dataset;
    case Kind::kFile:
      break;
  }
  return load_input(path, spec, options);
}

Dataset load_dataset(const std::string& path, ReadOptions options) {
  return load_input(path, InputSpec{}, options);
}

}  // namespace probity
