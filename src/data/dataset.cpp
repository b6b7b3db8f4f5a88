// JSONL task reader with validation. Errors name file, line and field.
#include "probity/dataset.hpp"

#include <fmt/format.h>
#include <fmt/ranges.h>
#include <openssl/evp.h>

#include <cmath>
#include <fstream>
#include <iostream>
#include <nlohmann/json.hpp>
#include <set>
#include <sstream>
#include <unordered_set>

#include "data/fast_task.hpp"
#include "data/validate.hpp"
#include "probity/error.hpp"
#include "probity/text.hpp"
#include "text/language.hpp"
#include "text/utf8.hpp"

namespace probity {

using json = nlohmann::json;

InputError::InputError(std::string file, std::size_t line, std::string field,
                       const std::string& message)
    // Line 0: about the whole file (no valid items, a file that does not cover its dataset).
    : std::runtime_error(fmt::format("{}{}: {}{}", file, line ? fmt::format(":{}", line) : "",
                                     field.empty() ? "" : fmt::format("field '{}': ", field),
                                     message)),
      file_(std::move(file)),
      line_(line),
      field_(std::move(field)),
      detail_(message) {}

double Candidate::human_mean(const std::string& dimension) const {
  auto it = human.find(dimension);
  if (it == human.end() || it->second.empty()) return std::nan("");
  double sum = 0;
  for (double v : it->second) sum += v;
  return sum / static_cast<double>(it->second.size());
}

std::size_t Dataset::num_candidates() const {
  std::size_t n = 0;
  for (const auto& t : tasks) n += t.candidates.size();
  return n;
}

void set_default_language(Dataset& dataset, const std::string& lang) {
  if (lang.empty()) return;
  // An unknown language would silently turn every rule-based perturbation not applicable.
  if (auto problem = text::unknown_language(lang)) throw UsageError(*problem);
  for (auto& t : dataset.tasks)
    if (t.lang.empty()) t.lang = lang;
}

std::vector<std::string> Dataset::dimensions() const {
  std::set<std::string> dims;
  for (const auto& t : tasks)
    for (const auto& c : t.candidates)
      for (const auto& [d, v] : c.human) dims.insert(d);
  return {dims.begin(), dims.end()};
}

namespace {

// Thrown inside one task's parse; converted to InputError (or a skip) with the line number.
struct FieldError {
  std::string field;
  std::string message;
};

const char* type_name(const json& v) {
  return v.type_name();
}

const json& require(const json& obj, const char* key, const std::string& path) {
  auto it = obj.find(key);
  if (it == obj.end()) throw FieldError{path + key, "missing required field"};
  return *it;
}

std::string require_string(const json& obj, const char* key, const std::string& path) {
  const json& v = require(obj, key, path);
  if (!v.is_string())
    throw FieldError{path + key, fmt::format("expected a string, got {}", type_name(v))};
  return v.get<std::string>();
}

std::string optional_string(const json& obj, const char* key, const std::string& path) {
  auto it = obj.find(key);
  if (it == obj.end() || it->is_null()) return {};
  if (!it->is_string())
    throw FieldError{path + key, fmt::format("expected a string, got {}", type_name(*it))};
  return it->get<std::string>();
}

// A text field: required and a string, but it may be empty. An empty candidate is a legitimate
// (bad) output that sacreBLEU and rouge-score score 0; an empty reference is scored the same way.
std::string require_text(const json& obj, const char* key, const std::string& path) {
  return require_string(obj, key, path);
}

std::map<std::string, std::vector<double>> parse_human(const json& h, const std::string& path) {
  if (!h.is_object())
    throw FieldError{path, fmt::format("expected an object of ratings, got {}", type_name(h))};
  std::map<std::string, std::vector<double>> out;
  for (const auto& [dim, value] : h.items()) {
    std::string field = path + "." + dim;
    std::vector<double> ratings;
    auto add = [&](const json& v, const std::string& f) {
      if (!v.is_number())
        throw FieldError{f, fmt::format("non-numeric rating ({})", data::quote_json(v))};
      double d = v.get<double>();
      if (!std::isfinite(d)) throw FieldError{f, "rating is not finite"};
      ratings.push_back(d);
    };
    if (value.is_array()) {
      if (value.empty()) throw FieldError{field, "empty list of ratings"};
      for (std::size_t i = 0; i < value.size(); ++i) add(value[i], fmt::format("{}[{}]", field, i));
    } else {
      add(value, field);
    }
    out.emplace(dim, std::move(ratings));
  }
  return out;
}

Candidate parse_candidate(const json& c, const std::string& path) {
  if (!c.is_object())
    throw FieldError{path, fmt::format("expected an object, got {}", type_name(c))};
  Candidate cand;
  cand.id = require_string(c, "id", path + ".");
  if (cand.id.empty()) throw FieldError{path + ".id", "empty id"};
  cand.system = optional_string(c, "system", path + ".");
  cand.text = require_text(c, "text", path + ".");
  if (auto it = c.find("human"); it != c.end() && !it->is_null())
    cand.human = parse_human(*it, path + ".human");
  return cand;
}

}  // namespace

struct TaskReader::Impl {
  std::string path;
  ReadOptions options;
  std::unique_ptr<std::istream> in;
  std::size_t line_no = 0;
  std::uint64_t bytes = 0;
  std::vector<SkipRecord> skipped;
  std::unordered_set<std::string> task_ids;
  data::FastTaskParser fast;

  // Records a problem: throws unless skipping.
  void problem(const std::string& field, const std::string& message) {
    if (!options.skip_invalid) throw InputError(path, line_no, field, message);
    skipped.push_back({path, line_no, field, message});
  }

  // Parses one line into `task`; false if the task was skipped.
  bool parse_line(const std::string& line, Task& task) {
    // simdjson's check first: the same rules, many times faster.
    if (!data::valid_utf8(line) && !text::is_valid_utf8(line)) {
      problem("", fmt::format("invalid UTF-8 at byte {}", text::first_invalid_utf8(line) + 1));
      return false;
    }
    if (data::fast_task_parsing()) {
      // A plainly valid task; anything else is judged below, with the messages that name it.
      if (auto parsed = fast.parse(line); parsed && !task_ids.count(parsed->task_id)) {
        task = std::move(*parsed);
        task.line = line_no;
        task_ids.insert(task.task_id);
        return true;
      }
    }
    std::string field, message;
    auto parsed = data::parse_json_line(line, field, message);
    if (!parsed) {
      problem(field, message);
      return false;
    }
    json j = std::move(*parsed);
    task = Task{};
    task.line = line_no;
    try {
      if (!j.is_object())
        throw FieldError{"", fmt::format("expected a JSON object per line, got {}", type_name(j))};
      if (!j.contains("candidates")) {
        // A flat record (one candidate per line, as Hugging Face datasets write them) rather
        // than a task: say how to read it.
        std::vector<std::string> keys;
        for (const auto& [key, value] : j.items()) keys.push_back(key);
        throw FieldError{
            j.contains("task_id") ? "candidates" : "task_id",
            fmt::format("missing required field: a line of the task format is a task with "
                        "task_id and a list of candidates; this line has the fields [{}]. Read "
                        "one-candidate-per-line records with a column map: --map "
                        "task=ID,candidate=TEXT,reference=REF,human=SCORE (Dataset.from_records "
                        "in Python; docs/dataset-format.md)",
                        fmt::join(keys, ", "))};
      }
      task.task_id = require_string(j, "task_id", "");
      if (task.task_id.empty()) throw FieldError{"task_id", "empty id"};
      if (task_ids.count(task.task_id))
        throw FieldError{"task_id", fmt::format("duplicate task id '{}'", task.task_id)};
      task.group = optional_string(j, "group", "");
      task.source = optional_string(j, "source", "");
      task.lang = optional_string(j, "lang", "");

      // Absent, null or [] references: a reference-free task, which only reference-free
      // metrics score (require_references names the task to any other metric).
      static const json kNoReferences = json::array();
      auto found = j.find("references");
      const json& refs = found == j.end() || found->is_null() ? kNoReferences : *found;
      if (!refs.is_array())
        throw FieldError{"references", fmt::format("expected an array, got {}", type_name(refs))};
      std::unordered_set<std::string> ref_ids;
      for (std::size_t i = 0; i < refs.size(); ++i) {
        std::string p = fmt::format("references[{}]", i);
        const json& r = refs[i];
        Reference ref;
        if (r.is_string()) {  // a bare string is accepted as a reference text
          ref.text = r.get<std::string>();
        } else if (r.is_object()) {
          ref.id = optional_string(r, "id", p + ".");
          ref.text = require_text(r, "text", p + ".");
        } else {
          throw FieldError{p, fmt::format("expected an object, got {}", type_name(r))};
        }
        if (ref.id.empty()) ref.id = fmt::format("ref{}", i);
        if (!ref_ids.insert(ref.id).second)
          throw FieldError{p + ".id", fmt::format("duplicate reference id '{}'", ref.id)};
        task.references.push_back(std::move(ref));
      }

      const json& cands = require(j, "candidates", "");
      if (!cands.is_array())
        throw FieldError{"candidates", fmt::format("expected an array, got {}", type_name(cands))};
      std::unordered_set<std::string> cand_ids;
      for (std::size_t i = 0; i < cands.size(); ++i) {
        std::string p = fmt::format("candidates[{}]", i);
        Candidate cand;
        try {
          cand = parse_candidate(cands[i], p);
          if (!cand_ids.insert(cand.id).second)
            throw FieldError{p + ".id", fmt::format("duplicate candidate id '{}'", cand.id)};
        } catch (const FieldError& e) {
          // A bad candidate loses only itself when skipping.
          problem(e.field, e.message);
          continue;
        }
        task.candidates.push_back(std::move(cand));
      }
      if (task.candidates.empty()) {
        // Skipped candidates were already recorded; only an empty list is a new problem.
        if (cands.empty()) throw FieldError{"candidates", "at least one candidate is required"};
        return false;
      }

      if (auto it = j.find("pairs"); it != j.end() && !it->is_null()) {
        if (!it->is_array())
          throw FieldError{"pairs", fmt::format("expected an array, got {}", type_name(*it))};
        for (std::size_t i = 0; i < it->size(); ++i) {
          std::string p = fmt::format("pairs[{}]", i);
          const json& pj = (*it)[i];
          if (!pj.is_object()) throw FieldError{p, "expected an object"};
          Preference pref{require_string(pj, "a", p + "."), require_string(pj, "b", p + "."),
                          require_string(pj, "preferred", p + ".")};
          if (!cand_ids.count(pref.a))
            throw FieldError{p + ".a", fmt::format("unknown candidate id '{}'", pref.a)};
          if (!cand_ids.count(pref.b))
            throw FieldError{p + ".b", fmt::format("unknown candidate id '{}'", pref.b)};
          if (pref.preferred != "a" && pref.preferred != "b" && pref.preferred != "tie")
            throw FieldError{
                p + ".preferred",
                fmt::format("expected \"a\", \"b\" or \"tie\", got '{}'", pref.preferred)};
          task.pairs.push_back(std::move(pref));
        }
      }
    } catch (const FieldError& e) {
      problem(e.field, e.message);
      return false;
    }
    task_ids.insert(task.task_id);
    return true;
  }
};

TaskReader::TaskReader(const std::string& path, ReadOptions options) : impl_(new Impl) {
  impl_->path = path;
  impl_->options = options;
  if (path == "-") {  // standard input, read once
    impl_->path = "<stdin>";
    impl_->in = std::make_unique<std::istream>(std::cin.rdbuf());
    return;
  }
  impl_->in = std::make_unique<std::ifstream>(path, std::ios::binary);
  if (!*impl_->in) {
    delete impl_;
    throw InputError(path, 0, "", "cannot open file");
  }
}

TaskReader::TaskReader(std::unique_ptr<std::istream> in, const std::string& name,
                       ReadOptions options)
    : impl_(new Impl) {
  impl_->path = name;
  impl_->options = options;
  impl_->in = std::move(in);
}

TaskReader::~TaskReader() {
  delete impl_;
}

bool TaskReader::next(Task& task) {
  std::string line;
  while (std::getline(*impl_->in, line)) {
    ++impl_->line_no;
    impl_->bytes += line.size() + (impl_->in->eof() ? 0 : 1);
    if (impl_->line_no == 1 && line.rfind("\xEF\xBB\xBF", 0) == 0) line.erase(0, 3);  // BOM
    if (!line.empty() && line.back() == '\r') line.pop_back();
    if (data::is_blank(line)) continue;
    if (impl_->parse_line(line, task)) return true;
  }
  return false;
}

std::uint64_t TaskReader::bytes_read() const {
  return impl_->bytes;
}

const std::vector<SkipRecord>& TaskReader::skipped() const {
  return impl_->skipped;
}

namespace {
Dataset read_all(TaskReader& reader, const std::string& path) {
  Dataset ds;
  ds.path = path;
  Task task;
  while (reader.next(task)) ds.tasks.push_back(std::move(task));
  ds.skipped = reader.skipped();
  if (ds.tasks.empty()) throw InputError(path, 0, "", "no valid tasks in file");
  return ds;
}
}  // namespace

Dataset data::read_task_jsonl(const std::string& path, ReadOptions options) {
  TaskReader reader(path, options);
  return read_all(reader, path == "-" ? "<stdin>" : path);
}

Dataset parse_dataset(std::string_view jsonl, const std::string& name, ReadOptions options) {
  TaskReader reader(std::make_unique<std::istringstream>(std::string(jsonl)), name, options);
  return read_all(reader, name);
}

ItemsDigest::ItemsDigest() : ctx_(EVP_MD_CTX_new()) {
  if (!ctx_ || EVP_DigestInit_ex(static_cast<EVP_MD_CTX*>(ctx_), EVP_sha256(), nullptr) != 1)
    throw std::runtime_error("SHA-256 is not available");
}

ItemsDigest::~ItemsDigest() {
  EVP_MD_CTX_free(static_cast<EVP_MD_CTX*>(ctx_));
}

void ItemsDigest::add(const Task& task) {
  auto* ctx = static_cast<EVP_MD_CTX*>(ctx_);
  // Separators that cannot occur in valid UTF-8 text keep ("ab", "c") apart from ("a", "bc").
  auto put = [&](std::string_view s, char end) {
    EVP_DigestUpdate(ctx, s.data(), s.size());
    EVP_DigestUpdate(ctx, &end, 1);
  };
  put(task.task_id, '\xff');
  for (const auto& c : task.candidates) {
    put(c.id, '\xfe');
    put(c.text, '\xfd');
    ++items_;
  }
}

std::string ItemsDigest::hex() {
  unsigned char digest[EVP_MAX_MD_SIZE];
  unsigned int length = 0;
  EVP_DigestFinal_ex(static_cast<EVP_MD_CTX*>(ctx_), digest, &length);
  static const char* digits = "0123456789abcdef";
  std::string out(2 * length, '0');
  for (unsigned int i = 0; i < length; ++i) {
    out[2 * i] = digits[digest[i] >> 4];
    out[2 * i + 1] = digits[digest[i] & 15];
  }
  return out;
}

std::string items_digest(const Dataset& dataset) {
  ItemsDigest d;
  for (const auto& t : dataset.tasks) d.add(t);
  return d.hex();
}

}  // namespace probity
