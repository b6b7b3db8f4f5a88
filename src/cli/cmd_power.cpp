// `probity power`: the sample size a paired test or a correlation comparison needs, the effect
// it can detect, or its power (plan_power); per test of a pilot audit with --report.
#include <fmt/format.h>

#include <cmath>
#include <fstream>
#include <nlohmann/json.hpp>
#include <sstream>

#include "cli/command.hpp"
#include "cli/flags.hpp"
#include "cli/output.hpp"
#include "probity/dataset.hpp"
#include "probity/error.hpp"
#include "probity/report.hpp"
#include "probity/requests.hpp"

namespace probity::cli {
namespace {

int run_power(const PowerRequest& args) {
  std::optional<AuditReport> pilot;
  if (!args.report.empty()) {
    std::ifstream in(args.report, std::ios::binary);
    std::ostringstream text;
    text << in.rdbuf();
    if (!in) throw InputError(args.report, 0, "", "cannot read the report");
    try {
      pilot = report::from_json(text.str());
    } catch (const std::exception& e) {
      throw InputError(args.report, 0, "", e.what());
    }
  }
  const auto rows = plan_power(args, pilot ? &*pilot : nullptr);
  if (args.json) {
    json out = json::array();
    for (const auto& r : rows)
      out.push_back({{"what", r.what},
                     {"solved", r.solved},
                     {"n", number(r.n)},
                     {"effect", number(r.effect)},
                     {"power", number(r.power)},
                     {"note", r.note}});
    json doc = {
        {"alpha", args.alpha}, {"alternative", alternative_name(args.alternative)}, {"rows", out}};
    fmt::print("{}\n", doc.dump(2));
    return kExitOk;
  }
  std::vector<std::vector<std::string>> table;
  table.push_back({"test", "n", "effect", "power", "solved for", "note"});
  for (const auto& r : rows)
    table.push_back({r.what, fixed(r.solved == "n" ? std::ceil(r.n) : r.n, 0), fixed(r.effect, 4),
                     fixed(r.power, 4), r.solved, r.note});
  print_table(table, 1);
  fmt::print(
      "\n{} paired t-test (statsmodels TTestPower) at alpha {:g}{}; a solved n is rounded up to "
      "whole items (--json: the exact value).\n",
      alternative_name(pilot ? stats::Alternative::kGreater : args.alternative), args.alpha,
      pilot ? ", each test in its direction as the audit runs it" : "");
  return kExitOk;
}

}  // namespace

void add_power_command(CLI::App& app, Commands& commands) {
  auto request = std::make_shared<PowerRequest>();
  PowerRequest& p = *request;
  auto* pc = app.add_subcommand(
      "power",
      "Items needed to detect an effect, the effect n items can detect, or the power: for the "
      "audit's paired tests (from a pilot report.json) and for a correlation difference");
  pc->add_option("--effect", p.effect,
                 "Effect to detect: the audit's d with --sd-delta/--pooled-sd or a --report, "
                 "else mean/sd of the differences")
      ->check(real({-100.0, 100.0}));
  pc->add_option("--n", p.n, "Items (paired items, or items per correlation)")
      ->check(real({2.0, 1e12}));
  pc->add_option("--power", p.power, "Target power (default 0.8)")->check(real(kOpenUnit));
  pc->add_option("--alpha", p.alpha, "Significance level")
      ->check(real(kOpenUnit))
      ->capture_default_str();
  one_of(pc->add_option("--alternative", p.alternative, "Direction of the test"),
         {stats::Alternative::kGreater, stats::Alternative::kTwoSided, stats::Alternative::kLess},
         alternative_name)
      ->default_str(std::string(alternative_name(p.alternative)));
  pc->add_option("--sd-delta", p.sd_delta, "Pilot: sd of the paired differences")
      ->check(real({0.0, 1e12}));
  pc->add_option("--pooled-sd", p.pooled_sd, "Pilot: pooled sd of the two score sets (d's unit)")
      ->check(real({0.0, 1e12}));
  auto* corr = pc->add_option_function<std::vector<double>>(
      "--correlation",
      [request](const std::vector<double>& r) {
        request->r1 = r.at(0);
        request->r2 = r.at(1);
      },
      "Two correlations with the humans, r1,r2: the test of their difference (Fisher z)");
  corr->delimiter(',')->expected(2)->check(real({-1.0, 1.0, true, true}));
  pc->add_option("--report", p.report,
                 "A pilot audit's report.json: per test its detectable effect and the n that "
                 "finds --effect (default: the report's margin)")
      ->check(CLI::ExistingFile);
  pc->add_flag("--json", p.json, "Print JSON instead of a table");
  commands.push_back({pc, [request](RunContext&) { return run_power(*request); }});
}

}  // namespace probity::cli
