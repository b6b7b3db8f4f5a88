#pragma once
// What the commands' flags have in common: bounded numbers, library enums by their names, the
// thread, shard, language and LLM flags. Every numeric flag declares its bounds with whole() or
// real(); require_bounds() fails the tool at start-up on one that does not.
#include <fmt/format.h>
#include <fmt/ranges.h>

#include <CLI/CLI.hpp>
#include <cstdint>
#include <initializer_list>
#include <map>
#include <string>
#include <string_view>
#include <type_traits>
#include <vector>

#include "cli/input_options.hpp"
#include "probity/limits.hpp"
#include "probity/stats.hpp"
#include "util/number_check.hpp"

namespace probity::cli {

struct LlmFlags;

// The level statistics in the order the help lists them.
inline constexpr std::initializer_list<stats::LevelStatistic> kLevelStatistics = {
    stats::LevelStatistic::kPearson,     stats::LevelStatistic::kSpearman,
    stats::LevelStatistic::kKendallB,    stats::LevelStatistic::kKendallC,
    stats::LevelStatistic::kPairwiseAcc, stats::LevelStatistic::kAccEq,
    stats::LevelStatistic::kSpa,         stats::LevelStatistic::kPdp,
    stats::LevelStatistic::kKendallLike};
// Their names (stats::level_statistic_name), for a flag that takes more than these.
std::vector<std::string> level_statistic_names();

// The name of the validator every numeric flag carries (require_bounds checks that it does).
inline constexpr const char* kBoundsName = "bounds";

// A whole-number flag (count, seed, index) from `min` to `max`, checked when parsed: CLI11 alone
// would wrap "-1" into a 64-bit seed and saturate 99999999999999999999 into a count that never
// ends.
CLI::Validator whole(std::uint64_t min,
                     std::uint64_t max = std::numeric_limits<std::uint64_t>::max());
// A real-number flag (share, level, threshold): finite, within `b` (NaN passes every comparison
// CLI::Range makes).
CLI::Validator real(const util::RealBounds& b);
// An existing file, or "-" for standard input.
CLI::Validator file_or_stdin();

inline const util::RealBounds kUnit{0.0, 1.0};
inline const util::RealBounds kOpenUnit{0.0, 1.0, true, true};
inline const util::RealBounds kNonNegative{0.0};
inline const util::RealBounds kFinite{};

void add_threads(CLI::App* cmd, unsigned& threads);

// Binds a flag to a library enum: its values by the library's names, listed in the help as
// TEXT:{a,b,c} in the order given.
template <class E>
CLI::Option* one_of(CLI::Option* option, std::initializer_list<E> values,
                    std::string_view (*name)(E)) {
  std::vector<std::string_view> names;
  std::map<std::string, E, std::less<>> by_name;
  for (E v : values) {
    names.push_back(name(v));
    by_name.emplace(std::string(name(v)), v);
  }
  const std::string listed = fmt::format("{{{}}}", fmt::join(names, ","));
  // CLI11 stores an enum from its number: the name becomes that number here.
  auto to_number = [by_name = std::move(by_name), listed](std::string& text) -> std::string {
    const auto it = by_name.find(text);
    if (it == by_name.end()) return fmt::format("{} not in {}", text, listed);
    text = std::to_string(static_cast<std::underlying_type_t<E>>(it->second));
    return {};
  };
  return option->transform(CLI::Validator(to_number, ""))->type_name("TEXT:" + listed);
}

// The library's enums as flag values.
CLI::Option* levels(CLI::Option* option);
CLI::Option* level_statistics(CLI::Option* option);
CLI::Option* rank_corrections(CLI::Option* option);
CLI::Option* perm_tests(CLI::Option* option);

// The LLM endpoint flags of commands whose metrics may call a model (they override
// [llm.default] of the --config file).
void add_llm_flags(CLI::App* cmd, LlmFlags& flags);

// --lang is checked when parsed, as the library checks it (set_default_language): an unknown
// language would make every rule-based perturbation not applicable.
CLI::Validator known_language();
// --lang of the commands that perturb (perturb, audit, attack).
inline constexpr const char* kLangHelp =
    "Language of the tasks without a 'lang' field (ISO 639-1: en, de, ...); default: detected per "
    "task";

// Parses "I/N" (0 <= I < N) of --shard; throws UsageError otherwise.
void parse_shard(const std::string& text, std::size_t& index, std::size_t& count);

// Every numeric flag of every command declares its bounds with whole() or real(): one without
// them is a bug that fails every run (std::logic_error), so that no count or share escapes the
// checks.
void require_bounds(CLI::App& app);

}  // namespace probity::cli
