// The names of the MI design space's axes (F, E, R, Π) as mi:<F>/<E>/<R>/<Π> spells them; each
// table's first spelling of a value is the printed one, the others are accepted aliases.
#include <array>
#include <stdexcept>
#include <string>

#include "probity/mi.hpp"
#include "util/enum_names.hpp"

namespace probity::mi {
namespace {

constexpr auto kMeasures = std::to_array<util::EnumName<Measure>>({
    {Measure::kTV, "tv"},
    {Measure::kKL, "kl"},
    {Measure::kReverseKL, "rkl"},
    {.value = Measure::kReverseKL, .name = "reverse-kl", .printed = false, .listed = false},
    {Measure::kPearson, "chi2"},
    {.value = Measure::kPearson, .name = "pearson", .printed = false, .listed = false},
    {Measure::kHellinger, "hellinger"},
    {.value = Measure::kHellinger, .name = "h2", .printed = false, .listed = false},
});
constexpr auto kEstimators = std::to_array<util::EnumName<Estimator>>({
    {Estimator::kDirect, "direct"},
    {Estimator::kVariational, "fvar"},
    {.value = Estimator::kVariational, .name = "f-var", .printed = false, .listed = false},
    {.value = Estimator::kVariational, .name = "variational", .printed = false, .listed = false},
});
constexpr auto kRepresentations = std::to_array<util::EnumName<Representation>>({
    {Representation::kToken, "token"},
    {Representation::kReport, "report"},
    {.value = Representation::kReport, .name = "full", .printed = false, .listed = false},
    {Representation::kStatement, "statement"},
});
// `exact` (the exact predictor of the tests) is not offered in the message.
constexpr auto kMechanisms = std::to_array<util::EnumName<Mechanism>>({
    {Mechanism::kAutoregression, "ar"},
    {.value = Mechanism::kAutoregression,
     .name = "autoregression",
     .printed = false,
     .listed = false},
    {Mechanism::kOracle, "oracle"},
    {.value = Mechanism::kExact, .name = "exact", .listed = false},
});

template <class E, std::size_t N>
E parse(const std::array<util::EnumName<E>, N>& table, std::string_view name,
        std::string_view what) {
  if (const auto value = util::parse_enum(table, name)) return *value;
  throw std::invalid_argument("unknown " + std::string(what) + " '" + std::string(name) + "' (" +
                              util::listed_names(table) + ")");
}

}  // namespace

Measure parse_measure(std::string_view name) {
  return parse(kMeasures, name, "information measure");
}
std::string_view measure_name(Measure m) {
  return util::name_of(kMeasures, m);
}

Estimator parse_estimator(std::string_view name) {
  return parse(kEstimators, name, "estimator");
}
std::string_view estimator_name(Estimator e) {
  return util::name_of(kEstimators, e);
}

Representation parse_representation(std::string_view name) {
  return parse(kRepresentations, name, "representation");
}
std::string_view representation_name(Representation r) {
  return util::name_of(kRepresentations, r);
}

Mechanism parse_mechanism(std::string_view name) {
  return parse(kMechanisms, name, "prediction mechanism");
}
std::string_view mechanism_name(Mechanism m) {
  return util::name_of(kMechanisms, m);
}

}  // namespace probity::mi
