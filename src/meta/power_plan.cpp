// `probity power`: how many items a paired test or a correlation comparison needs, or what it
// can detect, from the power functions of stats (statsmodels' TTestPower, NormalIndPower).
#include <fmt/format.h>

#include <cmath>

#include "probity/error.hpp"
#include "probity/requests.hpp"
#include "probity/stats.hpp"

namespace probity {

namespace {

constexpr double kDefaultPower = kMdePower;

// TTestPower's effect size (mean Δ / sd Δ) of an audit d (mean Δ / pooled sd).
double dz_of(double d, double sd_delta, double pooled_sd) {
  return d * pooled_sd / sd_delta;
}

PowerRow paired_row(const PowerRequest& r) {
  PowerRow row;
  row.what = "paired t-test";
  const bool sds = r.sd_delta && r.pooled_sd;
  if (sds && !(*r.sd_delta > 0 && *r.pooled_sd > 0))
    throw UsageError("power: --sd-delta and --pooled-sd must be positive");
  // Effects are given and reported as the audit's d when the sds are known, else as dz.
  const double to_dz = sds ? *r.pooled_sd / *r.sd_delta : 1.0;
  if (sds)
    row.note = fmt::format("d = dz * {:g} (sd of the differences {:g}, pooled sd {:g})",
                           1.0 / to_dz, *r.sd_delta, *r.pooled_sd);
  else
    row.note = "effect = mean of the differences / their sd (dz)";
  if (r.effect && r.n) {
    row.solved = "power";
    row.effect = *r.effect;
    row.n = *r.n;
    row.power = stats::ttest_power(*r.effect * to_dz, *r.n, r.alpha, r.alternative);
  } else if (r.effect) {
    row.solved = "n";
    row.effect = *r.effect;
    row.power = r.power.value_or(kDefaultPower);
    row.n = stats::ttest_nobs(*r.effect * to_dz, row.power, r.alpha, r.alternative);
  } else if (r.n) {
    row.solved = "effect";
    row.n = *r.n;
    row.power = r.power.value_or(kDefaultPower);
    row.effect = stats::ttest_mde(*r.n, row.power, r.alpha, r.alternative) / to_dz;
  } else {
    throw UsageError("power: give --effect, --n or both (or --report, or --correlation)");
  }
  return row;
}

PowerRow correlation_row(const PowerRequest& r) {
  PowerRow row;
  row.what = fmt::format("correlation difference {:g} vs {:g}", *r.r1, *r.r2);
  row.effect = std::atanh(*r.r1) - std::atanh(*r.r2);
  row.note = "effect = atanh(r1) - atanh(r2) (Fisher z); n items per correlation";
  if (r.n) {
    row.solved = "power";
    row.n = *r.n;
    row.power = stats::correlation_difference_power(*r.r1, *r.r2, *r.n, r.alpha, r.alternative);
  } else {
    row.solved = "n";
    row.power = r.power.value_or(kDefaultPower);
    row.n = stats::correlation_difference_nobs(*r.r1, *r.r2, row.power, r.alpha, r.alternative);
  }
  return row;
}

// Per testable test of a pilot: its MDE at its n, and the n that finds `effect` (the margin by
// default) in the test's direction at the requested power.
std::vector<PowerRow> pilot_rows(const PowerRequest& r, const AuditReport& pilot) {
  const double target = r.effect.value_or(pilot.margin);
  const double power = r.power.value_or(kDefaultPower);
  std::vector<PowerRow> rows;
  auto add = [&](const StrategyTest& t) {
    if (!t.testable) return;
    PowerRow row;
    row.what = fmt::format("{} {} {} {}", t.dataset, t.metric, kind_name(t.kind), t.code);
    row.solved = "n";
    row.effect = target;
    row.power = power;
    if (!(t.pooled_sd > 0)) {
      row.n = std::nan("");
      row.note = "no pooled sd in the report (written before it was recorded): rerun the audit";
    } else if (!(t.sd_delta > 0)) {
      row.n = std::nan("");
      row.note = "the differences do not vary: any change is found";
    } else {
      row.n = stats::ttest_nobs(dz_of(target, t.sd_delta, t.pooled_sd), power, pilot.alpha,
                                stats::Alternative::kGreater);
      const double mde = stats::ttest_mde(static_cast<double>(t.applied), power, pilot.alpha,
                                          stats::Alternative::kGreater) *
                         t.sd_delta / t.pooled_sd;
      row.note = fmt::format("now n = {}, detectable |d| = {:.3f}", t.applied, mde);
    }
    rows.push_back(std::move(row));
  };
  for (const auto& t : pilot.tests) add(t);
  if (rows.empty()) throw UsageError("power: the report has no testable test");
  return rows;
}

}  // namespace

std::vector<PowerRow> plan_power(const PowerRequest& request, const AuditReport* pilot) {
  const PowerRequest& r = request;
  if (!(r.alpha > 0 && r.alpha < 1)) throw UsageError("power: --alpha must be in (0, 1)");
  if (r.power && !(*r.power > r.alpha && *r.power < 1))
    throw UsageError("power: --power must be between --alpha and 1");
  if (r.n && !(*r.n > 1)) throw UsageError("power: --n must be at least 2");
  if (r.sd_delta.has_value() != r.pooled_sd.has_value())
    throw UsageError("power: give --sd-delta and --pooled-sd together");
  if (pilot) return pilot_rows(r, *pilot);
  if (r.r1.has_value() != r.r2.has_value())
    throw UsageError("power: --correlation takes two values, r1,r2");
  if (r.r1) {
    if (!(std::abs(*r.r1) < 1 && std::abs(*r.r2) < 1) || *r.r1 == *r.r2)
      throw UsageError("power: the two correlations must differ and lie in (-1, 1)");
    if (r.effect) throw UsageError("power: --correlation gives the effect; leave out --effect");
    return {correlation_row(r)};
  }
  return {paired_row(r)};
}

}  // namespace probity
