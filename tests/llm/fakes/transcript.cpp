#include "llm/fakes/transcript.hpp"

#include <algorithm>
#include <cmath>
#include <fstream>
#include <set>
#include <stdexcept>

namespace probity::test {

using json = nlohmann::json;
using ojson = nlohmann::ordered_json;

namespace {

std::string without_query(const std::string& path) {
  return path.substr(0, path.find('?'));
}

// 1.0 and 1 are the same value to a server's JSON parser; Python and C++ clients print them
// differently.
void integral_floats_to_ints(json& j) {
  if (j.is_object() || j.is_array()) {
    for (auto& v : j) integral_floats_to_ints(v);
  } else if (j.is_number_float()) {
    const double d = j.get<double>();
    if (std::isfinite(d) && d == std::floor(d) && std::fabs(d) < 9.0e15)
      j = static_cast<std::int64_t>(d);
  }
}

std::string shorten(const std::string& s, std::size_t n) {
  return s.size() <= n ? s : s.substr(0, n) + "…(" + std::to_string(s.size()) + " bytes)";
}

}  // namespace

std::string RecordedExchange::request_body() const {
  if (request_text) return *request_text;
  return request.is_null() ? std::string() : request.dump();
}

std::string RecordedExchange::response_body() const {
  return response_text ? *response_text : response.dump();
}

std::string RecordedExchange::content_type() const {
  auto it = headers.find("content-type");
  if (it != headers.end()) return it->second;
  return response_text ? "text/plain" : "application/json";
}

std::shared_ptr<Transcript> Transcript::load(const std::string& path,
                                             std::vector<std::string> ignored_request_fields) {
  std::shared_ptr<Transcript> t(new Transcript());
  t->path_ = path;
  t->ignored_ = std::move(ignored_request_fields);
  std::ifstream in(path);
  if (!in) throw std::runtime_error("transcript: cannot open " + path);
  std::string line;
  for (std::size_t n = 1; std::getline(in, line); ++n) {
    if (line.find_first_not_of(" \t\r") == std::string::npos) continue;
    auto where = [&] { return path + ":" + std::to_string(n) + ": "; };
    ojson j = ojson::parse(line, nullptr, false);
    if (j.is_discarded() || !j.is_object()) throw std::runtime_error(where() + "not a JSON object");
    if (j.contains("meta")) {
      t->meta_ = json::parse(j["meta"].dump());
      continue;
    }
    RecordedExchange e;
    e.line = n;
    try {
      e.method = j.at("method").get<std::string>();
      e.path = j.at("path").get<std::string>();
      e.status = j.at("status").get<int>();
      e.probe = j.value("probe", "");
      if (j.contains("request_text")) {
        e.request_text = j["request_text"].get<std::string>();
      } else {
        e.request = j.value("request", ojson());
      }
      if (j.contains("response_text")) {
        e.response_text = j["response_text"].get<std::string>();
      } else {
        e.response = j.at("response");
      }
      const ojson headers = j.value("headers", ojson::object());
      for (const auto& [k, v] : headers.items()) {
        std::string name = k;
        std::transform(name.begin(), name.end(), name.begin(),
                       [](unsigned char c) { return static_cast<char>(std::tolower(c)); });
        e.headers[name] = v.get<std::string>();
      }
    } catch (const std::exception& ex) {
      throw std::runtime_error(where() + ex.what());
    }
    t->by_key_[t->key(e.method, e.path, e.request_body())].push_back(t->exchanges_.size());
    t->exchanges_.push_back(std::move(e));
  }
  t->served_.assign(t->exchanges_.size(), false);
  return t;
}

const RecordedExchange& Transcript::probe(const std::string& name) const {
  for (const auto& e : exchanges_)
    if (e.probe == name) return e;
  throw std::runtime_error("transcript " + path_ + " has no probe '" + name + "'");
}

json Transcript::canonical(const std::string& body, bool& is_json) const {
  is_json = true;
  if (body.empty()) return nullptr;
  json j = json::parse(body, nullptr, false);
  if (j.is_discarded()) {
    is_json = false;
    return body;
  }
  for (const auto& field : ignored_) {
    if (!field.empty() && field[0] == '/') {
      const json::json_pointer ptr(field);
      if (!j.contains(ptr)) continue;
      if (ptr.parent_pointer().empty()) {
        j.erase(ptr.back());
      } else if (auto& parent = j.at(ptr.parent_pointer()); parent.is_object()) {
        parent.erase(ptr.back());
      }
    } else if (j.is_object()) {
      j.erase(field);
    }
  }
  integral_floats_to_ints(j);
  return j;
}

std::string Transcript::key(const std::string& method, const std::string& path,
                            const std::string& body) const {
  bool is_json = true;
  const json c = canonical(body, is_json);
  return method + ' ' + without_query(path) + '\n' +
         (is_json ? "j" + c.dump() : "t" + c.get<std::string>());
}

const RecordedExchange* Transcript::serve(const std::string& method, const std::string& path,
                                          const std::string& body) {
  const std::string k = key(method, path, body);
  auto it = by_key_.find(k);
  if (it == by_key_.end()) return nullptr;
  std::lock_guard lock(mutex_);
  std::size_t& next = cursor_[k];
  const std::size_t index = it->second[std::min(next, it->second.size() - 1)];
  ++next;
  served_[index] = true;
  return &exchanges_[index];
}

std::string Transcript::mismatch(const std::string& method, const std::string& path,
                                 const std::string& body) const {
  std::string out =
      "no recorded exchange in " + path_ + " for " + method + " " + path + " " + shorten(body, 300);
  bool is_json = true;
  const json request = canonical(body, is_json);
  const RecordedExchange* best = nullptr;
  json best_patch;
  for (const auto& e : exchanges_) {
    if (e.method != method || without_query(e.path) != without_query(path)) continue;
    bool recorded_json = true;
    const json recorded = canonical(e.request_body(), recorded_json);
    const json patch = recorded_json && is_json
                           ? json::diff(recorded, request)
                           : json::array({{{"op", "replace"}, {"path", ""}, {"value", body}}});
    if (best == nullptr || patch.size() < best_patch.size()) {
      best = &e;
      best_patch = patch;
    }
  }
  if (best != nullptr) {
    out += "; closest recording (line " + std::to_string(best->line) + ") differs by " +
           std::to_string(best_patch.size()) + " JSON Patch operation(s) from it to this request:";
    std::size_t shown = 0;
    for (const auto& op : best_patch) {
      if (++shown > 5) {
        out += " …";
        break;
      }
      out += " " + op.value("op", "") + " " + op.value("path", "");
      if (op.contains("value")) out += " = " + shorten(op["value"].dump(), 80);
      out += ";";
    }
    return out;
  }
  std::set<std::string> recorded;
  for (const auto& e : exchanges_) recorded.insert(e.method + " " + without_query(e.path));
  out += "; nothing recorded for that method and path (recorded:";
  for (const auto& r : recorded) out += " " + r + ";";
  return out + ")";
}

std::vector<const RecordedExchange*> Transcript::unserved() const {
  std::lock_guard lock(mutex_);
  std::vector<const RecordedExchange*> out;
  for (std::size_t i = 0; i < exchanges_.size(); ++i)
    if (!served_[i]) out.push_back(&exchanges_[i]);
  return out;
}

void Transcript::reset() {
  std::lock_guard lock(mutex_);
  cursor_.clear();
  served_.assign(exchanges_.size(), false);
}

}  // namespace probity::test
