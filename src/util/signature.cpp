#include "probity/signature.hpp"

#include <fmt/format.h>

#include "probity/version.hpp"

namespace probity {

Signature& Signature::field(std::string_view key, std::string_view value) {
  fields_.emplace_back(std::string(key), std::string(value));
  return *this;
}

Signature& Signature::field(std::string_view key, double value) {
  return field(key, std::string_view(fmt::format("{}", value)));
}

Signature& Signature::part(std::string_view text) {
  fields_.emplace_back(std::string(), std::string(text));
  return *this;
}

std::optional<std::string> Signature::get(std::string_view key) const {
  for (const auto& [k, v] : fields_)
    if (!k.empty() && k == key) return v;
  return std::nullopt;
}

std::string Signature::format() const {
  std::string out = head_;
  for (const auto& [key, value] : fields_) {
    if (!out.empty()) out += '|';  // a headless signature (a client's) starts at its first field
    if (!key.empty()) {
      out += key;
      out += ':';
    }
    out += value;
  }
  return out;
}

std::string Signature::versioned() const {
  return format() + "|version:probity-" + version();
}

}  // namespace probity
