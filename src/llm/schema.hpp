#pragma once
// JSON Schema builders for the answers of structured questions. The shapes stay inside what every
// constrained decoder reads (OpenAI strict mode, llama.cpp's grammar compiler, vLLM's and
// SGLang's backends, Ollama's format): objects list every property as required and allow no
// others, small integer ranges are enums.
#include <cstddef>
#include <initializer_list>
#include <nlohmann/json.hpp>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

namespace probity::llm::schema {

using nlohmann::json;

// An object with exactly these properties, all required.
json object(std::initializer_list<std::pair<std::string, json>> properties);
json boolean();
// A string of at most max_length characters (0: unbounded). The bound closes the string in a
// grammar when a small model would write on to max_tokens; OpenAI's strict mode does not read it
// (it is left out there).
json string(std::size_t max_length = 0);
// One of these strings.
json string_enum(const std::vector<std::string>& values);
// An integer from lo to hi (an enum of the values when the range is small).
json integer(int lo, int hi);
// An array of `items`, with min_items..max_items of them (max 0: no upper bound).
json array(json items, std::size_t min_items = 0, std::size_t max_items = 0);
// `s` or null.
json nullable(json s);

}  // namespace probity::llm::schema

namespace probity::llm {
// The longest rewrite of `text` an answer's schema allows: twice its length plus 500 characters
// (room for any honest rewrite, a stop for a model that never closes the string).
std::size_t rewrite_chars(std::string_view text);
}  // namespace probity::llm
