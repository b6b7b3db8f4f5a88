#include "llm/schema.hpp"

namespace probity::llm::schema {

json object(std::initializer_list<std::pair<std::string, json>> properties) {
  json props = json::object();
  json required = json::array();
  for (const auto& [name, s] : properties) {
    props[name] = s;
    required.push_back(name);
  }
  return {{"type", "object"},
          {"properties", std::move(props)},
          {"required", std::move(required)},
          {"additionalProperties", false}};
}

json boolean() {
  return {{"type", "boolean"}};
}

json string(std::size_t max_length) {
  json s = {{"type", "string"}};
  if (max_length > 0) s["maxLength"] = max_length;
  return s;
}

json string_enum(const std::vector<std::string>& values) {
  return {{"type", "string"}, {"enum", values}};
}

json integer(int lo, int hi) {
  // Enumerated, a grammar allows exactly these numbers; bounds are read by fewer decoders.
  if (hi >= lo && hi - lo <= 20) {
    json values = json::array();
    for (int v = lo; v <= hi; ++v) values.push_back(v);
    return {{"type", "integer"}, {"enum", std::move(values)}};
  }
  return {{"type", "integer"}, {"minimum", lo}, {"maximum", hi}};
}

json array(json items, std::size_t min_items, std::size_t max_items) {
  json a = {{"type", "array"}, {"items", std::move(items)}};
  if (min_items > 0) a["minItems"] = min_items;
  if (max_items > 0) a["maxItems"] = max_items;
  return a;
}

json nullable(json s) {
  return {{"anyOf", json::array({std::move(s), {{"type", "null"}}})}};
}

}  // namespace probity::llm::schema

namespace probity::llm {
std::size_t rewrite_chars(std::string_view text) {
  return 2 * text.size() + 500;
}
}  // namespace probity::llm
