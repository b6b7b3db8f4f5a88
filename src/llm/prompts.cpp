#include "llm/prompts.hpp"

#include <fmt/format.h>

#include <fstream>
#include <set>
#include <sstream>
#include <stdexcept>

#include "probity/error.hpp"
#include "probity/llm.hpp"

#ifndef PROBITY_PROMPTS_DIR
#error "PROBITY_PROMPTS_DIR must name the prompts/ directory (set by CMake)"
#endif

namespace probity::llm {

// ---- Prompt templates --------------------------------------------------------------------------

std::string PromptTemplate::render(const std::map<std::string, std::string>& values) const {
  // One pass over the template: inserted values are never rescanned, so a candidate that
  // contains "{target}" stays as written.
  std::string out;
  std::set<std::string> used;
  std::size_t from = 0;
  while (true) {
    const auto open = text.find('{', from);
    if (open == std::string::npos) break;
    const auto close = text.find('}', open + 1);
    if (close == std::string::npos) break;
    auto it = values.find(text.substr(open + 1, close - open - 1));
    if (it == values.end()) {
      out.append(text, from, open + 1 - from);
      from = open + 1;
      continue;
    }
    out.append(text, from, open - from);
    out += it->second;
    used.insert(it->first);
    from = close + 1;
  }
  out.append(text, from);
  for (const auto& [key, value] : values)
    if (!used.count(key))
      throw std::invalid_argument(
          fmt::format("prompt template '{}' has no placeholder {{{}}}", name, key));
  return out;
}

PromptTemplate load_prompt(const std::string& name, const std::string& dir) {
  const std::string base = dir.empty() ? std::string(PROBITY_PROMPTS_DIR) : dir;
  const std::string path = base + "/" + name + ".txt";
  std::ifstream in(path, std::ios::binary);
  if (!in) throw UsageError(fmt::format("prompt template not found: {}", path));
  std::ostringstream s;
  s << in.rdbuf();
  PromptTemplate t;
  t.name = name;
  t.text = s.str();
  t.sha256 = sha256_hex(t.text);
  return t;
}

}  // namespace probity::llm
