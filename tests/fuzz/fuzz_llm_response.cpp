// What servers send back: answer bodies of every endpoint, structured answers, and the token
// texts the span alignment places in a prompt. Any bytes give a result or a reported failure.
#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "llm/internal.hpp"
#include "llm/structured.hpp"
#include "predict/llm_lm.hpp"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  if (size == 0) return 0;
  const std::uint8_t mode = data[0];
  const std::string body(reinterpret_cast<const char*>(data) + 1, size - 1);
  namespace llm = probity::llm;
  llm::Request request;
  switch (mode % 4) {
    case 0:
      request.endpoint = llm::Endpoint::kChat;
      break;
    case 1:
      request.endpoint = llm::Endpoint::kCompletion;
      request.prompt = "Restatement: A";
      request.echo = true;
      request.logprobs = 1;
      break;
    case 2:
      request.endpoint = llm::Endpoint::kCompletion;
      request.prompt_tokens = {1, 2, 3};
      request.prompt_logprobs = 0;
      break;
    default:
      request.endpoint = llm::Endpoint::kTokenize;
      request.prompt = "x";
      break;
  }
  llm::Response response;
  if (llm::detail::parse_success(request, body, response) != response.ok) __builtin_trap();
  (void)llm::detail::error_message(body);
  std::string error;
  (void)llm::parse_json_answer(body, error);
  // Token texts: the body split at NUL bytes, placed in a prompt made of their concatenation
  // with a few bytes dropped or added.
  std::vector<std::string> tokens;
  std::string prompt;
  std::size_t from = 0;
  for (std::size_t i = 0; i <= body.size(); ++i)
    if (i == body.size() || body[i] == '\0') {
      tokens.push_back(body.substr(from, i - from));
      prompt += tokens.back();
      from = i + 1;
    }
  if (mode & 4) prompt = prompt.substr(0, prompt.size() / 2);
  if (mode & 8) prompt += " tail";
  auto start = probity::predict::detail::target_start_by_text(tokens, prompt, mode % 7, error);
  if (start && start->index >= tokens.size()) __builtin_trap();
  return 0;
}
