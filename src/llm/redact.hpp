#pragma once
// Removing secrets (the API key, header values) from what a server sent back, before anything is
// parsed, cached, reported or logged. A server may echo a key in any of JSON's escapes ("\/",
// "\u002f", "\"", "\\"), and a model's answer is often JSON inside a JSON string, so matching
// the raw bytes is not enough: the match is made on decoded text.
#include <string>
#include <string_view>
#include <vector>

namespace probity::llm::detail {

// Secrets shorter than this are placeholders ("EMPTY" for a local vLLM) or common words;
// replacing them would garble text without protecting anything.
inline constexpr std::size_t kMinSecretSize = 8;

// `text` with every occurrence of a secret replaced by "[redacted]". An occurrence may spell any
// of its characters as a JSON escape (one level: "\/", "\u00e9", a surrogate pair).
std::string redact_text(std::string_view text, const std::vector<std::string>& secrets);

// A server's answer with the secrets removed: from the raw bytes, and from every decoded string
// (and object name) of the JSON, which is then re-encoded; a body that is not JSON keeps only
// the first step. Unchanged when it held no secret.
std::string redact_body(std::string body, const std::vector<std::string>& secrets);

}  // namespace probity::llm::detail
