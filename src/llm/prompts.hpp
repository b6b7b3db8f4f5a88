#pragma once
// Versioned prompt templates (prompts/<name>.v<N>.txt): text with {name} placeholders whose
// SHA-256 goes into every signature that uses them.
#include <initializer_list>
#include <map>
#include <string>

namespace probity::llm {

// A prompt template: text with {name} placeholders (other braces are left alone).
struct PromptTemplate {
  std::string name;  // file stem, e.g. "oracle_ordinal.v1"
  std::string text;
  std::string sha256;  // of text; goes into every signature that uses the template

  // How a signature cites the template: "<name>=<first 16 hex digits of sha256>".
  std::string id() const { return name + "=" + sha256.substr(0, 16); }

  // Replaces every {key} of `values`; throws std::invalid_argument for a {key} of `values` that
  // the template lacks (a template/version mismatch).
  std::string render(const std::map<std::string, std::string>& values) const;
};

// Where the prompt templates are: $PROBITY_PROMPTS_DIR when set; else next to the running
// program when it is installed (<prefix>/share/probity/prompts for <prefix>/bin/probity, the
// Python package's prompts/ for its module), so that a copied install tree finds its own; else
// the source tree's prompts/ (a build tree).
std::string default_prompts_dir();

// The ids of several templates, comma-separated (a signature's "prompts:" field).
std::string prompt_ids(std::initializer_list<const PromptTemplate*> prompts);

// Reads `<dir>/<name>.txt`; `dir` empty: default_prompts_dir(). Throws UsageError when the file
// is missing.
PromptTemplate load_prompt(const std::string& name, const std::string& dir = "");

}  // namespace probity::llm
