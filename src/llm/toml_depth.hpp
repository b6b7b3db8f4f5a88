#pragma once
// A bound on how deep a TOML document nests, checked before toml++ parses it: toml++ limits
// nested inline tables and arrays (256), but not dotted keys (`a.b.c...` or `[a.b.c...]`), and
// builds, walks and destroys its tables recursively, so 100k dotted components overflow the stack.
#include <cstddef>
#include <string_view>

namespace probity::llm::detail {

// Deeper than any probity.toml needs ([llm.<role>.extra_body] and a few levels of body).
inline constexpr std::size_t kMaxTomlDepth = 128;

// The 1-based line where brackets, braces and dotted-key components (counted outside strings
// and comments) reach more than `max_depth` levels, or 0 when they never do. A conservative
// lexical count: a document it passes nests at most about twice `max_depth` deep (a table
// header and the dotted keys under it are counted apart), whatever toml++ then makes of it.
std::size_t toml_too_deep(std::string_view text, std::size_t max_depth = kMaxTomlDepth);

}  // namespace probity::llm::detail
