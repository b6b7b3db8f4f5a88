#include "llm/prompts.hpp"

#include <dlfcn.h>
#include <fmt/format.h>

#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <set>
#include <sstream>
#include <stdexcept>

#include "probity/error.hpp"
#include "probity/llm.hpp"

#ifndef PROBITY_PROMPTS_DIR
#error "PROBITY_PROMPTS_DIR must name the source tree's prompts/ directory (set by CMake)"
#endif
#ifndef PROBITY_INSTALL_PROMPTS_SUBDIR
#define PROBITY_INSTALL_PROMPTS_SUBDIR "share/probity/prompts"
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

std::string default_prompts_dir() {
  namespace fs = std::filesystem;
  if (const char* env = std::getenv("PROBITY_PROMPTS_DIR"); env != nullptr && *env != '\0')
    return env;
  // The file this code runs from: the Python module (a shared object) or the executable.
  fs::path self;
  Dl_info info{};
  if (dladdr(reinterpret_cast<void*>(&default_prompts_dir), &info) != 0 &&
      info.dli_fname != nullptr && fs::path(info.dli_fname).extension() == ".so")
    self = info.dli_fname;
  std::error_code ec;
  if (self.empty()) self = fs::read_symlink("/proc/self/exe", ec);
  if (!ec && !self.empty()) {
    const fs::path dir = fs::weakly_canonical(self, ec).parent_path();
    // <prefix>/bin/probity -> <prefix>/share/probity/prompts; a Python package's own prompts/.
    for (const fs::path& candidate :
         {dir.parent_path() / PROBITY_INSTALL_PROMPTS_SUBDIR, dir / "prompts"})
      if (fs::is_directory(candidate, ec)) return candidate.string();
  }
  return PROBITY_PROMPTS_DIR;  // a build tree: the sources' prompts/
}

PromptTemplate load_prompt(const std::string& name, const std::string& dir) {
  const std::string base = dir.empty() ? default_prompts_dir() : dir;
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

std::string prompt_ids(std::initializer_list<const PromptTemplate*> prompts) {
  std::string out;
  for (const PromptTemplate* p : prompts) {
    if (!out.empty()) out += ',';
    out += p->id();
  }
  return out;
}

}  // namespace probity::llm
