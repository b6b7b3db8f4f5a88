// CSV import: one row per candidate (RFC 4180 quoting, header row required).
#include <fmt/format.h>
#include <fmt/ranges.h>

#include <charconv>
#include <cmath>
#include <fstream>
#include <sstream>
#include <unordered_map>
#include <unordered_set>

#include "data/validate.hpp"
#include "probity/dataset.hpp"
#include "probity/text.hpp"

namespace probity {
namespace data {

// Splits CSV (or TSV: `separator` '\t') text into rows; quoted cells may span lines.
std::vector<Row> read_delimited(std::string s, const std::string& path, char separator) {
  if (s.rfind("\xEF\xBB\xBF", 0) == 0) s.erase(0, 3);
  std::vector<Row> rows;
  Row row{1, {}};
  std::string cell;
  std::size_t line = 1, line_start = 0;  // line_start: the byte where the physical line begins
  bool quoted = false, cell_started = false;
  auto end_row = [&] {
    row.cells.push_back(std::move(cell));
    cell.clear();
    bool blank = row.cells.size() == 1 && row.cells[0].empty();
    if (!blank) rows.push_back(std::move(row));
    row = Row{line, {}};
    cell_started = false;
  };
  for (std::size_t i = 0; i < s.size(); ++i) {
    char c = s[i];
    if (quoted) {
      if (c == '"') {
        if (i + 1 < s.size() && s[i + 1] == '"') {
          cell += '"';
          ++i;
        } else {
          quoted = false;
          // RFC 4180: a quoted cell ends at its closing quote. Reading `"ab"c` as `abc` would
          // hide a quoting mistake (an unescaped quote inside the cell, most often).
          if (i + 1 < s.size() && s[i + 1] != separator && s[i + 1] != '\n' && s[i + 1] != '\r') {
            const std::size_t index = row.cells.size();
            const bool named = !rows.empty() && index < rows[0].cells.size();
            throw InputError(path, line, named ? rows[0].cells[index] : "",
                             fmt::format("text after the closing quote of a quoted cell (column "
                                         "{}, cell {}): write the quotes inside a quoted cell "
                                         "twice (\"\")",
                                         i + 2 - line_start, index + 1));
          }
        }
      } else {
        if (c == '\n') {
          ++line;
          line_start = i + 1;
        }
        cell += c;
      }
      continue;
    }
    if (c == '"' && !cell_started) {
      quoted = true;
      cell_started = true;
    } else if (c == separator) {
      row.cells.push_back(std::move(cell));
      cell.clear();
      cell_started = false;
    } else if (c == '\n' || c == '\r') {
      if (c == '\r' && i + 1 < s.size() && s[i + 1] == '\n') ++i;
      ++line;
      line_start = i + 1;
      end_row();
    } else {
      cell += c;
      cell_started = true;
    }
  }
  if (quoted) throw InputError(path, row.line, "", "unterminated quoted cell");
  if (!cell.empty() || !row.cells.empty()) end_row();
  return rows;
}

bool parse_number(const std::string& s, double& out) {
  std::string_view v = s;
  while (!v.empty() && v.front() == ' ') v.remove_prefix(1);
  while (!v.empty() && v.back() == ' ') v.remove_suffix(1);
  if (v.empty()) return false;
  auto [p, ec] = std::from_chars(v.data(), v.data() + v.size(), out);
  return ec == std::errc() && p == v.data() + v.size() && std::isfinite(out);
}

}  // namespace data

Dataset load_csv_dataset(const std::string& path, ReadOptions options) {
  std::ifstream in(path, std::ios::binary);
  if (!in) throw InputError(path, 0, "", "cannot open file");
  std::stringstream buf;
  buf << in.rdbuf();
  return parse_csv_dataset(buf.str(), path, options);
}

Dataset parse_csv_dataset(std::string_view text, const std::string& path, ReadOptions options) {
  return data::parse_delimited_dataset(text, path, options, ',');
}

Dataset data::parse_delimited_dataset(std::string_view text, const std::string& path,
                                      ReadOptions options, char separator) {
  using data::Row;
  std::vector<Row> rows = data::read_delimited(std::string(text), path, separator);
  if (rows.empty()) throw InputError(path, 1, "", "empty CSV file (a header row is required)");
  const Row& header = rows[0];

  int col_task = -1, col_cand = -1, col_text = -1, col_group = -1, col_system = -1, col_source = -1,
      col_lang = -1;
  std::vector<std::pair<int, std::string>> ref_cols;    // column, reference id
  std::vector<std::pair<int, std::string>> human_cols;  // column, dimension
  // Two columns for one thing (`candidate` twice, or `candidate` and `text`; `human:q` and `q`)
  // are an error: reading one of them silently would score the wrong text.
  std::unordered_map<std::string, std::size_t> claimed;  // what a column holds -> its index
  auto claim = [&](std::size_t i, const std::string& what) {
    auto [it, fresh] = claimed.emplace(what, i);
    if (!fresh)
      throw InputError(
          path, 1, header.cells[i],
          fmt::format("columns {} ('{}') and {} ('{}') both hold the {}", it->second + 1,
                      header.cells[it->second], i + 1, header.cells[i], what));
  };
  for (std::size_t i = 0; i < header.cells.size(); ++i) {
    const std::string& h = header.cells[i];
    int c = static_cast<int>(i);
    if (h == "task_id") {
      claim(i, "task id");
      col_task = c;
    } else if (h == "candidate_id" || h == "id") {
      claim(i, "candidate id");
      col_cand = c;
    } else if (h == "candidate" || h == "candidate_text" || h == "text") {
      claim(i, "candidate text");
      col_text = c;
    } else if (h == "group") {
      claim(i, "group");
      col_group = c;
    } else if (h == "system") {
      claim(i, "system");
      col_system = c;
    } else if (h == "source") {
      claim(i, "source");
      col_source = c;
    } else if (h == "lang") {
      claim(i, "language");
      col_lang = c;
    } else if (h == "reference" || h.rfind("reference_", 0) == 0) {
      const std::string id = h == "reference" ? "ref0" : "ref" + h.substr(10);
      claim(i, fmt::format("reference '{}'", id));
      ref_cols.emplace_back(c, id);
    } else if (h.rfind("human:", 0) == 0) {
      claim(i, fmt::format("ratings of '{}'", h.substr(6)));
      human_cols.emplace_back(c, h.substr(6));
    } else if (!h.empty()) {
      claim(i, fmt::format("ratings of '{}'", h));
      human_cols.emplace_back(c, h);
    }
  }
  auto need = [&](int col, const char* name) {
    if (col < 0)
      throw InputError(path, 1, name,
                       fmt::format("missing required column '{}' (the header has: {}; name the "
                                   "columns to read with --map, e.g. --map task=ID_COLUMN,"
                                   "candidate=TEXT_COLUMN,reference=REF_COLUMN)",
                                   name, fmt::join(header.cells, ", ")));
  };
  need(col_task, "task_id");
  need(col_cand, "candidate_id");
  need(col_text, "candidate");
  // No reference column: reference-free tasks (require_references guards the metrics).

  Dataset ds;
  ds.path = path;
  std::unordered_map<std::string, std::size_t> task_index;
  std::unordered_map<std::string, std::unordered_set<std::string>> seen_candidates;
  for (std::size_t r = 1; r < rows.size(); ++r) {
    const Row& row = rows[r];
    auto problem = [&](const std::string& field, const std::string& message) {
      if (!options.skip_invalid) throw InputError(path, row.line, field, message);
      ds.skipped.push_back({path, row.line, field, message});
    };
    {
      if (row.cells.size() != header.cells.size()) {
        problem("",
                fmt::format("expected {} cells, found {}", header.cells.size(), row.cells.size()));
        continue;
      }
      bool bad = false;
      for (std::size_t i = 0; i < row.cells.size() && !bad; ++i) {
        if (!text::is_valid_utf8(row.cells[i])) {
          problem(header.cells[i], "invalid UTF-8");
          bad = true;
        }
      }
      if (bad) continue;
      auto cell = [&](int c) -> const std::string& {
        return row.cells[static_cast<std::size_t>(c)];
      };
      const std::string& task_id = cell(col_task);
      if (task_id.empty()) {
        problem("task_id", "empty id");
        continue;
      }
      Candidate cand;
      cand.id = cell(col_cand);
      if (cand.id.empty()) {
        problem("candidate_id", "empty id");
        continue;
      }
      cand.text = cell(col_text);  // may be empty: an empty output is scored, not dropped
      if (col_system >= 0) cand.system = cell(col_system);
      for (const auto& [c, dim] : human_cols) {
        const std::string& v = cell(c);
        if (data::is_blank(v)) continue;  // not rated on this dimension
        double d = 0;
        if (!data::parse_number(v, d)) {
          const std::string& column = header.cells[static_cast<std::size_t>(c)];
          problem(
              column,
              fmt::format(
                  "non-numeric rating '{}' (without a column map every column "
                  "that is not a known name is read as a rating; map the columns "
                  "to read and ignore the rest: --map task=task_id,candidate={},"
                  "reference={}... on the command line, Dataset.from_pandas in "
                  "Python; docs/dataset-format.md)",
                  v, col_text >= 0 ? header.cells[static_cast<std::size_t>(col_text)] : "TEXT",
                  ref_cols.empty() ? "REF"
                                   : header.cells[static_cast<std::size_t>(ref_cols[0].first)]));
          bad = true;
          break;
        }
        cand.human[dim].push_back(d);
      }
      if (bad) continue;
      // Blank cells of reference_2..k are absent references (rows have different numbers of
      // them); the first reference column always holds one, possibly empty.
      std::vector<Reference> refs;
      bool refs_blank = true;
      for (std::size_t k = 0; k < ref_cols.size(); ++k) {
        const auto& [c, id] = ref_cols[k];
        refs_blank = refs_blank && data::is_blank(cell(c));
        if (k == 0 || !data::is_blank(cell(c))) refs.push_back({id, cell(c)});
      }

      auto it = task_index.find(task_id);
      if (it == task_index.end()) {
        Task t;
        t.task_id = task_id;
        t.line = row.line;
        t.references = std::move(refs);
        if (col_group >= 0) t.group = cell(col_group);
        if (col_source >= 0) t.source = cell(col_source);
        if (col_lang >= 0) t.lang = cell(col_lang);
        it = task_index.emplace(task_id, ds.tasks.size()).first;
        ds.tasks.push_back(std::move(t));
      } else if (!refs_blank) {
        // A later row of a task may leave its reference cells blank: the first row's
        // references (docs/dataset-format.md). Any it gives must be the same.
        const auto& have = ds.tasks[it->second].references;
        bool same = have.size() == refs.size();
        for (std::size_t i = 0; same && i < refs.size(); ++i) same = have[i].text == refs[i].text;
        if (!same) {
          problem(header.cells[static_cast<std::size_t>(ref_cols[0].first)],
                  fmt::format("references differ from the first row of task '{}' (line {})",
                              task_id, ds.tasks[it->second].line));
          continue;
        }
      }
      if (!seen_candidates[task_id].insert(cand.id).second) {
        problem("candidate_id",
                fmt::format("duplicate candidate id '{}' in task '{}'", cand.id, task_id));
        continue;
      }
      ds.tasks[it->second].candidates.push_back(std::move(cand));
    }
  }
  if (ds.tasks.empty()) throw InputError(path, 0, "", "no valid rows in file");
  return ds;
}

}  // namespace probity
