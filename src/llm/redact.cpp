#include "llm/redact.hpp"

#include <cstdint>
#include <functional>
#include <nlohmann/json.hpp>
#include <optional>

#include "text/utf8.hpp"
#include "util/json_limits.hpp"

namespace probity::llm::detail {
namespace {

constexpr std::string_view kRedacted = "[redacted]";

// A code point and where the next one starts. Bytes that are not UTF-8 come back as values no
// code point has, so that they match only themselves.
struct Decoded {
  std::uint32_t cp;
  std::size_t next;
};

Decoded utf8_at(std::string_view s, std::size_t i) {
  char32_t cp = 0;
  const std::size_t n = text::decode_utf8(s.substr(i), cp);
  if (n == 0) return {0x110000u + static_cast<unsigned char>(s[i]), i + 1};
  return {cp, i + n};
}

std::optional<std::uint32_t> hex4(std::string_view s, std::size_t i) {
  if (i + 4 > s.size()) return std::nullopt;
  std::uint32_t v = 0;
  for (std::size_t k = i; k < i + 4; ++k) {
    const char c = s[k];
    v <<= 4;
    if (c >= '0' && c <= '9')
      v |= static_cast<std::uint32_t>(c - '0');
    else if (c >= 'a' && c <= 'f')
      v |= static_cast<std::uint32_t>(c - 'a' + 10);
    else if (c >= 'A' && c <= 'F')
      v |= static_cast<std::uint32_t>(c - 'A' + 10);
    else
      return std::nullopt;
  }
  return v;
}

// The character at i, reading a JSON escape as the character it stands for.
Decoded char_at(std::string_view s, std::size_t i) {
  if (s[i] != '\\' || i + 1 >= s.size()) return utf8_at(s, i);
  switch (s[i + 1]) {
    case '/':
    case '"':
    case '\\':
      return {static_cast<unsigned char>(s[i + 1]), i + 2};
    case 'b':
      return {'\b', i + 2};
    case 'f':
      return {'\f', i + 2};
    case 'n':
      return {'\n', i + 2};
    case 'r':
      return {'\r', i + 2};
    case 't':
      return {'\t', i + 2};
    case 'u': {
      const auto unit = hex4(s, i + 2);
      if (!unit) break;
      if (*unit >= 0xD800 && *unit < 0xDC00 && i + 12 <= s.size() && s[i + 6] == '\\' &&
          s[i + 7] == 'u')
        if (const auto low = hex4(s, i + 8); low && *low >= 0xDC00 && *low < 0xE000)
          return {0x10000u + ((*unit - 0xD800u) << 10) + (*low - 0xDC00u), i + 12};
      return {*unit, i + 6};
    }
    default:
      break;
  }
  return utf8_at(s, i);
}

std::vector<std::uint32_t> code_points(std::string_view s) {
  std::vector<std::uint32_t> out;
  for (std::size_t i = 0; i < s.size();) {
    const Decoded d = utf8_at(s, i);
    out.push_back(d.cp);
    i = d.next;
  }
  return out;
}

// Where an occurrence of secret[k..] starting at i ends, if one does. A backslash is read both
// as the start of an escape and as itself (a key may hold "\\n" literally).
std::optional<std::size_t> match_at(std::string_view s, std::size_t i,
                                    const std::vector<std::uint32_t>& secret, std::size_t k = 0) {
  for (; k < secret.size(); ++k) {
    if (i >= s.size()) return std::nullopt;
    const Decoded d = char_at(s, i);
    if (s[i] == '\\' && d.next != i + 1 && secret[k] == '\\')
      if (auto end = match_at(s, i + 1, secret, k + 1)) return end;
    if (d.cp != secret[k]) return std::nullopt;
    i = d.next;
  }
  return i;
}

}  // namespace

std::string redact_text(std::string_view text, const std::vector<std::string>& secrets) {
  std::string out(text);
  for (const std::string& secret : secrets) {
    if (secret.size() < kMinSecretSize) continue;
    const auto wanted = code_points(secret);
    std::string next;
    next.reserve(out.size());
    bool found = false;
    for (std::size_t i = 0; i < out.size();) {
      if (auto end = match_at(out, i, wanted)) {
        next += kRedacted;
        i = *end;
        found = true;
      } else {
        next += out[i++];
      }
    }
    if (found) out = std::move(next);
  }
  return out;
}

std::string redact_body(std::string body, const std::vector<std::string>& secrets) {
  body = redact_text(body, secrets);
  if (secrets.empty() || body.find('\\') == std::string::npos) return body;
  // Depth-bounded: the walk below recurses.
  nlohmann::json j = util::parse_json_or_discarded(body);
  if (j.is_discarded()) return body;
  bool changed = false;
  auto clean = [&](const std::string& s) {
    std::string r = redact_text(s, secrets);
    if (r != s) changed = true;
    return r;
  };
  std::function<void(nlohmann::json&)> walk = [&](nlohmann::json& v) {
    if (v.is_string()) {
      v = clean(v.get_ref<const std::string&>());
    } else if (v.is_object()) {
      nlohmann::json renamed = nlohmann::json::object();
      for (auto& [name, child] : v.items()) {
        walk(child);
        renamed[clean(name)] = std::move(child);
      }
      v = std::move(renamed);
    } else if (v.is_array()) {
      for (auto& child : v) walk(child);
    }
  };
  walk(j);
  return changed ? j.dump(-1, ' ', false, nlohmann::json::error_handler_t::replace) : body;
}

}  // namespace probity::llm::detail
