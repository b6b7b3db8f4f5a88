// The model behind probity_fake_servers' LLM fakes, shared with the tests that run the probity
// executable against in-process fakes.
#include "llm/fakes/fake_models.hpp"

#include "llm/fakes/judge_models.hpp"

namespace probity::test {

using nlohmann::json;

namespace {

std::string prompt_text(const json& request) {
  std::string out;
  if (request.contains("messages") && request["messages"].is_array())
    for (const auto& m : request["messages"])
      if (m.contains("content") && m["content"].is_string()) out += m["content"].get<std::string>();
  if (request.contains("prompt") && request["prompt"].is_string())
    out += request["prompt"].get<std::string>();
  return out;
}

// The first code points of `text` (a schema's maxLength counts characters).
std::string cut(const std::string& text, const json& schema) {
  if (!schema.contains("maxLength") || !schema["maxLength"].is_number_integer()) return text;
  auto left = schema["maxLength"].get<std::size_t>();
  std::size_t i = 0;
  for (; i < text.size() && left > 0; --left)
    for (++i; i < text.size() && (static_cast<unsigned char>(text[i]) & 0xC0) == 0x80;) ++i;
  return text.substr(0, i);
}

// An instance of `schema` whose strings hold `text` and whose arrays of strings hold its
// sentences (within minItems..maxItems); everything else as schema_instance() makes it.
json fill(const json& schema, json value, const std::string& text) {
  // A constrained server writes only an enum's or a const's values there.
  if (schema.contains("enum") || schema.contains("const")) return value;
  if (value.is_string()) return cut(text, schema);
  if (value.is_object() && schema.contains("properties") && schema["properties"].is_object()) {
    for (auto& [name, sub] : value.items())
      if (schema["properties"].contains(name)) sub = fill(schema["properties"][name], sub, text);
    return value;
  }
  if (value.is_array() && !value.empty() && value[0].is_string() && schema.contains("items")) {
    const auto lo = schema.value("minItems", std::size_t{1});
    const auto hi = schema.value("maxItems", std::size_t{0});
    json list = json::array();
    for (std::size_t from = 0; from < text.size() && (hi == 0 || list.size() < hi);) {
      auto end = text.find(". ", from);
      end = end == std::string::npos ? text.size() : end + 1;
      list.push_back(cut(text.substr(from, end - from), schema["items"]));
      from = end + 1;
    }
    if (list.size() < lo) return value;
    return list;
  }
  return value;
}

}  // namespace

// The model behind the LLM fakes (a real server answers with whatever its model writes): a
// structured question gets the schema's smallest instance (schema_reply(), as the fakes answer
// by default) with its strings filled from the first <<<quoted>>> text of the prompt, which is
// how probity's prompts show the text to work on (a decomposition gets that text's sentences, a
// rewrite the text itself); anything else gets the fakes' "ok".
std::string copy_model(const json& request) {
  const auto schema = request_schema(request);
  if (!schema) return "ok";
  const std::string prompt = prompt_text(request);
  const auto open = prompt.find("<<<\n");
  const auto close = prompt.find("\n>>>", open == std::string::npos ? 0 : open);
  if (open == std::string::npos || close == std::string::npos)
    return schema_instance(*schema).dump();
  const std::string text = prompt.substr(open + 4, close - open - 4);
  return fill(*schema, schema_instance(*schema), text).dump();
}

// The options of the vLLM-flavour fake serving `model` (--llm and --run-batch); nullopt for an
// unknown judge behaviour.
std::optional<FakeOptions> fake_llm_options(const std::string& model) {
  FakeOptions o;
  o.flavour = Flavour::kVllm;
  o.model = model;
  o.reply = copy_model;
  if (model.starts_with("judge-")) {
    const auto behaviour = judge_behaviour_named(model.substr(6));
    if (!behaviour) return std::nullopt;
    o.reply = [b = *behaviour](const json& request) {
      return judge_answer(request, b).value_or(copy_model(request));
    };
  }
  return o;
}

}  // namespace probity::test
