#pragma once
// The names of an enum's values, declared once as a table and read both ways: the printed name of
// a value (name_of), the value of an accepted spelling (parse_enum), and the spellings an error
// message lists (listed_names). A table is a std::array of EnumName, e.g.
//   constexpr auto kLevels = std::to_array<util::EnumName<Level>>(
//       {{Level::kItem, "item"}, {Level::kTask, "task"}, {Level::kSystem, "system"}});
#include <array>
#include <cstddef>
#include <optional>
#include <string>
#include <string_view>

namespace probity::util {

template <class E>
struct EnumName {
  E value;
  std::string_view name;
  // False for an alias: accepted when parsing, never printed. The printed name of a value is
  // its first printed entry.
  bool printed = true;
  // False for a spelling that error messages do not list (accepted all the same).
  bool listed = true;
};

// The printed name of `value`; `fallback` for a value the table does not name.
template <class E, std::size_t N>
constexpr std::string_view name_of(const std::array<EnumName<E>, N>& table, E value,
                                   std::string_view fallback = "?") {
  for (const auto& entry : table)
    if (entry.value == value && entry.printed) return entry.name;
  return fallback;
}

// The value spelled `text` (any entry, printed or alias), or nullopt.
template <class E, std::size_t N>
constexpr std::optional<E> parse_enum(const std::array<EnumName<E>, N>& table,
                                      std::string_view text) {
  for (const auto& entry : table)
    if (entry.name == text) return entry.value;
  return std::nullopt;
}

// The listed spellings in table order, separated by ", ", with `last` before the final one
// ("a, b or c" with last = " or ").
template <class E, std::size_t N>
std::string listed_names(const std::array<EnumName<E>, N>& table, std::string_view last = ", ") {
  std::size_t count = 0;
  for (const auto& entry : table) count += entry.listed ? 1 : 0;
  std::string out;
  std::size_t k = 0;
  for (const auto& entry : table) {
    if (!entry.listed) continue;
    if (k > 0) out += k + 1 == count ? last : std::string_view(", ");
    out += entry.name;
    ++k;
  }
  return out;
}

}  // namespace probity::util
