#include "data/validate.hpp"

#include <fmt/format.h>

#include "probity/text.hpp"
#include "util/json_limits.hpp"

namespace probity::data {

bool is_blank(std::string_view s) {
  return text::is_blank(s);
}

std::string short_json_message(std::string_view what) {
  auto pos = what.find("] ");
  std::string_view msg = pos == std::string_view::npos ? what : what.substr(pos + 2);
  return std::string(msg);
}

std::string quote_json(const nlohmann::json& value) {
  constexpr std::size_t kMaxChars = 80;
  std::string text = value.dump(-1, ' ', false, nlohmann::json::error_handler_t::replace);
  if (text.size() <= kMaxChars) return text;
  std::size_t cut = kMaxChars;
  while (cut > 0 && (static_cast<unsigned char>(text[cut]) & 0xC0) == 0x80) --cut;
  return fmt::format("{}... ({} bytes)", text.substr(0, cut), text.size());
}

std::optional<nlohmann::json> parse_json_line(const std::string& line, std::string& field,
                                              std::string& message) {
  if (auto hazard = util::json_hazard(line)) {
    message = fmt::format("malformed JSON (byte {}): {}", hazard->byte + 1, hazard->message);
    return std::nullopt;
  }
  try {
    return nlohmann::json::parse(line);
  } catch (const nlohmann::json::parse_error& e) {
    message = fmt::format("malformed JSON (byte {}): {}", e.byte, short_json_message(e.what()));
  } catch (const nlohmann::json::out_of_range& e) {
    // "number overflow parsing '1e999'": name the number and the key it belongs to.
    const std::string what = short_json_message(e.what());
    std::string number;
    if (auto q = what.find('\''); q != std::string::npos)
      number = what.substr(q + 1, what.find('\'', q + 1) - q - 1);
    message = fmt::format("number out of range{}", number.empty() ? "" : ": " + number);
    const auto at = number.empty() ? std::string::npos : line.find(number);
    if (at != std::string::npos) {
      // The last "key": before the number.
      const auto colon = line.rfind(':', at);
      const auto close = colon == std::string::npos ? colon : line.rfind('"', colon);
      const auto open =
          close == std::string::npos || close == 0 ? std::string::npos : line.rfind('"', close - 1);
      if (open != std::string::npos) field = line.substr(open + 1, close - open - 1);
    }
  }
  return std::nullopt;
}

}  // namespace probity::data
