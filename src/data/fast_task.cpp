// The reader's fast path (fast_task.hpp): the rules of TaskReader's full parse, for valid tasks.
#include "data/fast_task.hpp"

#include <fmt/format.h>
#include <simdjson.h>

#include <atomic>
#include <cmath>
#include <string>
#include <unordered_set>
#include <utility>
#include <vector>

namespace probity::data {
namespace {

using simdjson::dom::element;
using Type = simdjson::dom::element_type;

std::atomic<bool> fast_parsing{true};

// The fields of a JSON object, or none when a key repeats (the full reader keeps the last).
class Fields {
 public:
  bool read(const element& e) {
    simdjson::dom::object obj;
    if (e.get_object().get(obj) != simdjson::SUCCESS) return false;
    fields_.clear();
    for (auto field : obj) {
      for (const auto& [key, value] : fields_)
        if (key == field.key) return false;
      fields_.emplace_back(field.key, field.value);
    }
    return true;
  }
  // The field's value; null when absent.
  const element* find(std::string_view key) const {
    for (const auto& [k, v] : fields_)
      if (k == key) return &v;
    return nullptr;
  }

 private:
  std::vector<std::pair<std::string_view, element>> fields_;
};

bool is_null(const element* e) {
  return e == nullptr || e->type() == Type::NULL_VALUE;
}

// A required string field.
bool get_string(const element* e, std::string& out) {
  std::string_view s;
  if (e == nullptr || e->get_string().get(s) != simdjson::SUCCESS) return false;
  out.assign(s);
  return true;
}

// An optional string field: absent or null is empty.
bool get_optional_string(const element* e, std::string& out) {
  if (is_null(e)) {
    out.clear();
    return true;
  }
  return get_string(e, out);
}

// A rating as the full reader reads it: nlohmann's number converted to double.
bool get_rating(const element& e, std::vector<double>& out) {
  double d = 0;
  switch (e.type()) {
    case Type::INT64:
      d = static_cast<double>(e.get_int64().value_unsafe());
      break;
    case Type::UINT64:
      d = static_cast<double>(e.get_uint64().value_unsafe());
      break;
    case Type::DOUBLE:
      d = e.get_double().value_unsafe();
      break;
    default:
      return false;
  }
  if (!std::isfinite(d)) return false;
  out.push_back(d);
  return true;
}

bool get_human(const element& e, std::map<std::string, std::vector<double>>& out) {
  Fields dims;
  if (!dims.read(e)) return false;
  simdjson::dom::object obj = e.get_object().value_unsafe();
  for (auto field : obj) {
    std::vector<double> ratings;
    if (field.value.type() == Type::ARRAY) {
      simdjson::dom::array values = field.value.get_array().value_unsafe();
      for (auto v : values)
        if (!get_rating(v, ratings)) return false;
      if (ratings.empty()) return false;
    } else if (!get_rating(field.value, ratings)) {
      return false;
    }
    out.emplace(std::string(field.key), std::move(ratings));
  }
  return true;
}

bool get_candidate(const element& e, Fields& fields, Candidate& cand) {
  if (!fields.read(e)) return false;
  if (!get_string(fields.find("id"), cand.id) || cand.id.empty()) return false;
  if (!get_optional_string(fields.find("system"), cand.system)) return false;
  if (!get_string(fields.find("text"), cand.text)) return false;
  const element* human = fields.find("human");
  return is_null(human) || get_human(*human, cand.human);
}

}  // namespace

struct FastTaskParser::Impl {
  simdjson::dom::parser parser;
  Fields root, item;
  std::unordered_set<std::string> ids;
};

FastTaskParser::FastTaskParser() : impl_(new Impl) {}

FastTaskParser::~FastTaskParser() {
  delete impl_;
}

std::optional<Task> FastTaskParser::parse(std::string_view line) {
  // simdjson stops at a NUL byte, accepting the task before it and ignoring the rest: the full
  // reader reports the byte.
  if (line.find('\0') != std::string_view::npos) return std::nullopt;
  Impl& m = *impl_;
  element doc;
  if (m.parser.parse(line.data(), line.size()).get(doc) != simdjson::SUCCESS) return std::nullopt;
  if (!m.root.read(doc)) return std::nullopt;
  Task task;
  if (!get_string(m.root.find("task_id"), task.task_id) || task.task_id.empty())
    return std::nullopt;
  if (!get_optional_string(m.root.find("group"), task.group)) return std::nullopt;
  if (!get_optional_string(m.root.find("source"), task.source)) return std::nullopt;
  if (!get_optional_string(m.root.find("lang"), task.lang)) return std::nullopt;

  if (const element* refs = m.root.find("references"); !is_null(refs)) {
    simdjson::dom::array array;
    if (refs->get_array().get(array) != simdjson::SUCCESS) return std::nullopt;
    m.ids.clear();
    std::size_t i = 0;
    for (auto r : array) {
      Reference ref;
      if (r.type() == Type::STRING) {
        ref.text.assign(r.get_string().value_unsafe());
      } else {
        if (!m.item.read(r)) return std::nullopt;
        if (!get_optional_string(m.item.find("id"), ref.id)) return std::nullopt;
        if (!get_string(m.item.find("text"), ref.text)) return std::nullopt;
      }
      if (ref.id.empty()) ref.id = fmt::format("ref{}", i);
      if (!m.ids.insert(ref.id).second) return std::nullopt;
      task.references.push_back(std::move(ref));
      ++i;
    }
  }

  simdjson::dom::array cands;
  const element* cands_field = m.root.find("candidates");
  if (cands_field == nullptr || cands_field->get_array().get(cands) != simdjson::SUCCESS)
    return std::nullopt;
  m.ids.clear();
  for (auto c : cands) {
    Candidate cand;
    if (!get_candidate(c, m.item, cand) || !m.ids.insert(cand.id).second) return std::nullopt;
    task.candidates.push_back(std::move(cand));
  }
  if (task.candidates.empty()) return std::nullopt;

  if (const element* pairs = m.root.find("pairs"); !is_null(pairs)) {
    simdjson::dom::array array;
    if (pairs->get_array().get(array) != simdjson::SUCCESS) return std::nullopt;
    for (auto p : array) {
      Preference pref;
      if (!m.item.read(p) || !get_string(m.item.find("a"), pref.a) ||
          !get_string(m.item.find("b"), pref.b) ||
          !get_string(m.item.find("preferred"), pref.preferred))
        return std::nullopt;
      if (!m.ids.count(pref.a) || !m.ids.count(pref.b)) return std::nullopt;
      if (pref.preferred != "a" && pref.preferred != "b" && pref.preferred != "tie")
        return std::nullopt;
      task.pairs.push_back(std::move(pref));
    }
  }
  return task;
}

void set_fast_task_parsing(bool on) {
  fast_parsing = on;
}

bool fast_task_parsing() {
  return fast_parsing;
}

bool valid_utf8(std::string_view s) {
  return simdjson::validate_utf8(s.data(), s.size());
}

}  // namespace probity::data
