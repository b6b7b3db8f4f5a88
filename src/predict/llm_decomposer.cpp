#include "predict/llm_decomposer.hpp"

#include <fmt/format.h>

#include <unordered_set>

#include "llm/schema.hpp"
#include "llm/structured.hpp"
#include "probity/signature.hpp"

namespace probity::predict {

LlmDecomposer::LlmDecomposer(LlmDecomposerOptions options, std::shared_ptr<llm::Session> session)
    : options_(std::move(options)),
      session_(std::move(session)),
      client_(&session_->client(options_.role)),
      prompt_(llm::load_prompt(options_.prompt, options_.prompts_dir)) {}

std::string LlmDecomposer::signature() const {
  return Signature("llm")
      .field("role", options_.role)
      .part(client_->signature())
      .field("reasks", options_.reasks)
      .field("prompt", prompt_.id())
      .format();
}

std::vector<mi::Decomposition> LlmDecomposer::decompose(std::span<const std::string> texts) const {
  std::vector<std::string> todo;
  {
    std::lock_guard lock(mutex_);
    std::unordered_set<std::string_view> seen;
    for (const auto& t : texts)
      if (!t.empty() && !memo_.count(t) && seen.insert(t).second) todo.push_back(t);
  }
  if (!todo.empty()) {
    std::vector<std::string> prompts;
    prompts.reserve(todo.size());
    for (const auto& t : todo) prompts.push_back(prompt_.render({{"text", t}}));
    auto parser = [](std::size_t, const nlohmann::json& j,
                     std::string& error) -> std::optional<nlohmann::json> {
      auto it = j.find("statements");
      if (it == j.end() || !it->is_array() || it->empty()) {
        error = "the JSON object needs a non-empty \"statements\" list";
        return std::nullopt;
      }
      nlohmann::json out = nlohmann::json::array();
      for (const auto& s : *it) {
        const std::string text = s.is_string() ? llm::trim(s.get<std::string>()) : "";
        if (text.empty()) {
          error = "every statement must be a non-empty string";
          return std::nullopt;
        }
        out.push_back(text);
      }
      return out;
    };
    const auto schema = [](std::size_t) {
      return llm::schema::object(
          {{"statements", llm::schema::array(llm::schema::string(400), 1, 64)}});
    };
    auto answers = llm::ask_structured(*client_, prompts, schema, parser, options_.reasks);
    std::lock_guard lock(mutex_);
    for (std::size_t i = 0; i < todo.size(); ++i) {
      mi::Decomposition d;
      if (answers[i].ok)
        d.statements = answers[i].value.get<std::vector<std::string>>();
      else
        d.error = answers[i].error;
      memo_.emplace(todo[i], std::move(d));
    }
  }
  std::vector<mi::Decomposition> out;
  out.reserve(texts.size());
  std::lock_guard lock(mutex_);
  for (const auto& t : texts) out.push_back(t.empty() ? mi::Decomposition{} : memo_.at(t));
  return out;
}

}  // namespace probity::predict
