// The names of the requests' own enums (probity/requests.hpp), declared once for the flags that
// take them and the outputs that print them.
#include "probity/requests.hpp"

#include <array>

#include "util/enum_names.hpp"

namespace probity {
namespace {

constexpr auto kAlternatives = std::to_array<util::EnumName<stats::Alternative>>({
    {stats::Alternative::kGreater, "greater"},
    {stats::Alternative::kTwoSided, "two-sided"},
    {stats::Alternative::kLess, "less"},
});
constexpr auto kBenchKinds = std::to_array<util::EnumName<BenchKind>>({
    {BenchKind::kLocal, "local"},
    {BenchKind::kGlobal, "global"},
});
constexpr auto kInjectors = std::to_array<util::EnumName<BenchRealisation>>({
    {BenchRealisation::kOffline, "rules"},
    {BenchRealisation::kLlm, "llm"},
});
constexpr auto kAnchorJudges = std::to_array<util::EnumName<BenchRealisation>>({
    {BenchRealisation::kOffline, "metric"},
    {BenchRealisation::kLlm, "llm"},
});

}  // namespace

std::string_view alternative_name(stats::Alternative alternative) {
  return util::name_of(kAlternatives, alternative);
}
std::string_view bench_kind_name(BenchKind kind) {
  return util::name_of(kBenchKinds, kind);
}
std::string_view injector_name(BenchRealisation realisation) {
  return util::name_of(kInjectors, realisation);
}
std::string_view anchor_judge_name(BenchRealisation realisation) {
  return util::name_of(kAnchorJudges, realisation);
}

}  // namespace probity
