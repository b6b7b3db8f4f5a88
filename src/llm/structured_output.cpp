// How a structured question asks each server for its answer's shape: the modes and server kinds
// by name, the request fields per (mode, server), and which error answers reject those fields.
#include <fmt/format.h>

#include <array>
#include <nlohmann/json.hpp>

#include "llm/internal.hpp"
#include "probity/llm.hpp"
#include "util/enum_names.hpp"

namespace probity::llm {

namespace {
constexpr auto kModes = std::to_array<util::EnumName<StructuredMode>>({
    {StructuredMode::kSchema, "schema"},
    {StructuredMode::kJson, "json"},
    {StructuredMode::kOff, "off"},
});
constexpr auto kServers = std::to_array<util::EnumName<ServerKind>>({
    {ServerKind::kAuto, "auto"},
    {ServerKind::kOpenAi, "openai"},
    {ServerKind::kVllm, "vllm"},
    {ServerKind::kSglang, "sglang"},
    {ServerKind::kLlamaCpp, "llamacpp"},
    {ServerKind::kOllama, "ollama"},
});
}  // namespace

StructuredMode parse_structured_mode(std::string_view name) {
  if (const auto mode = util::parse_enum(kModes, name)) return *mode;
  throw UsageError(fmt::format("unknown structured-output mode '{}' (expected {})", name,
                               util::listed_names(kModes, " or ")));
}

std::string_view structured_mode_name(StructuredMode mode) {
  return util::name_of(kModes, mode, "unknown");
}

ServerKind parse_server_kind(std::string_view name) {
  if (const auto kind = util::parse_enum(kServers, name)) return *kind;
  throw UsageError(
      fmt::format("unknown server '{}' (expected {})", name, util::listed_names(kServers, " or ")));
}

std::string_view server_kind_name(ServerKind kind) {
  return util::name_of(kServers, kind, "unknown");
}

namespace detail {

std::vector<std::string_view> structured_output_fields() {
  // What each server reads: OpenAI-style response_format (all); llama.cpp's json_schema and
  // grammar; vLLM's guided_json/structured_outputs; Ollama's native format.
  return {"response_format", "json_schema",        "grammar",
          "guided_json",     "structured_outputs", "format"};
}

nlohmann::json structured_output_body(const EndpointConfig& config, const nlohmann::json& schema) {
  nlohmann::json fields = nlohmann::json::object();
  switch (config.structured) {
    case StructuredMode::kOff:
      break;
    case StructuredMode::kJson:
      fields["response_format"] = {{"type", "json_object"}};
      break;
    case StructuredMode::kSchema:
      if (config.server == ServerKind::kLlamaCpp) {
        // The server's own field: a grammar compiled from the schema, on /completions too.
        fields["json_schema"] = schema;
      } else {
        // Every server kind reads this: OpenAI and vLLM/SGLang natively, Ollama's /v1 turns it
        // into its `format`, llama.cpp into its grammar. `strict` is what OpenAI needs to
        // constrain decoding; the others ignore it.
        fields["response_format"] = {
            {"type", "json_schema"},
            {"json_schema", {{"name", "answer"}, {"strict", true}, {"schema", schema}}}};
      }
      break;
  }
  return fields;
}

bool rejects_structured_output(int status, std::string_view message) {
  if (status != 400 && status != 422) return false;
  for (std::string_view field : structured_output_fields())
    if (message.find(field) != std::string_view::npos) return true;
  // llama.cpp's grammar compiler and vLLM's guided-decoding backends name the schema instead.
  for (std::string_view word : {"schema", "Schema", "grammar", "Grammar"})
    if (message.find(word) != std::string_view::npos) return true;
  return false;
}

}  // namespace detail
}  // namespace probity::llm
