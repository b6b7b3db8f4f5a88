// The run's own tables: item accounting, datasets, LLM usage, signatures, strategies, every
// test, skipped records, the summary line and how to read the report.
#include <fmt/format.h>

#include <cmath>
#include <nlohmann/json.hpp>

#include "report/format.hpp"
#include "util/json_limits.hpp"

namespace probity::report::detail {

Table accounting_table(const TestIndex& index, StrategyKind kind, const Symbols& sym) {
  Table t;
  t.title = fmt::format("Item accounting {} {}, over metrics", sym.dash(),
                        kind == StrategyKind::kDegradation ? "degradations" : "manipulations");
  t.header = {"dataset",   "code",   "considered", "applied", "not appl.",
              "unchanged", "failed", "undefined",  "testable"};
  t.align = {Align::kLeft,  Align::kCenter, Align::kRight, Align::kRight, Align::kRight,
             Align::kRight, Align::kRight,  Align::kRight, Align::kRight};
  for (const auto& ds : index.datasets())
    for (const auto& s : index.strategies_on(ds, kind)) {
      std::vector<const StrategyTest*> tests;
      for (const auto& m : index.metrics())
        if (const StrategyTest* st = index.find(ds, m, kind, s.code)) tests.push_back(st);
      auto range = [&](std::size_t StrategyTest::*field) {
        std::size_t lo = tests.front()->*field, hi = lo;
        for (const auto* st : tests) {
          lo = std::min(lo, st->*field);
          hi = std::max(hi, st->*field);
        }
        Cell c;
        c.text = fmt_count_range(lo, hi, sym);
        if (lo != hi) c.title = "differs between metrics";
        return c;
      };
      std::size_t testable = static_cast<std::size_t>(std::count_if(
          tests.begin(), tests.end(), [](const StrategyTest* st) { return st->testable; }));
      Cell code{s.code};
      code.title = s.name;
      Cell tc;
      tc.text = fmt::format("{}/{}", testable, tests.size());
      tc.tone = testable == tests.size() ? Tone::kNone : Tone::kNa;
      tc.title = fmt::format(
          "metrics with at least {} applied items (all items of a smaller dataset) whose scores "
          "vary",
          index.report().min_applied);
      t.rows.push_back({{ds},
                        code,
                        range(&StrategyTest::considered),
                        range(&StrategyTest::applied),
                        range(&StrategyTest::not_applicable),
                        range(&StrategyTest::unchanged),
                        range(&StrategyTest::failed),
                        range(&StrategyTest::undefined),
                        tc});
    }
  t.note = fmt::format(
      "considered = applied + not applicable + unchanged (the perturbation left the text as it "
      "was) + failed (perturbation error) + undefined (metric score undefined); a range a{}b "
      "differs between metrics. testable = metrics with at least {} applied items (all items of "
      "a smaller dataset, --min-applied) whose scores vary.",
      sym.range(), index.report().min_applied);
  return t;
}

Table dataset_table(const AuditReport& report) {
  Table t;
  t.title = "Datasets";
  t.header = {"dataset", "path", "tasks", "candidates", "audited", "dimensions", "skipped"};
  t.align = {Align::kLeft,  Align::kLeft, Align::kRight, Align::kRight,
             Align::kRight, Align::kLeft, Align::kRight};
  for (const auto& d : report.datasets) {
    Cell path{d.path};
    path.mono = true;
    t.rows.push_back({{d.name},
                      path,
                      {std::to_string(d.tasks)},
                      {std::to_string(d.candidates)},
                      {std::to_string(d.audited)},
                      {join(d.dimensions, ", ")},
                      {std::to_string(d.skipped.size())}});
  }
  return t;
}

Table llm_usage_table(const AuditReport& report) {
  Table t;
  t.title = "LLM usage";
  t.header = {"endpoint", "model",    "answers",   "requests",   "cached",  "retries",
              "failed",   "unparsed", "tokens in", "tokens out", "cost USD"};
  t.align.assign(t.header.size(), Align::kRight);
  t.align[0] = t.align[1] = Align::kLeft;
  if (report.llm_usage.empty()) return t;
  const auto j = util::parse_json_or_discarded(report.llm_usage);
  if (!j.is_object() || !j.contains("endpoints") || !j["endpoints"].is_array()) return t;
  auto count = [](const nlohmann::json& u, const char* key) {
    return std::to_string(u.value(key, std::uint64_t{0}));
  };
  std::vector<std::string> failures, examples, unstructured, batched;
  for (const auto& u : j["endpoints"]) {
    if (!u.is_object()) continue;
    const std::string endpoint = u.value("endpoint", std::string());
    if (auto b = u.find("batch"); b != u.end() && b->is_object())
      batched.push_back(fmt::format(
          "{}: {} answered through {} batch{} ({} polls), {} USD at the batch prices, {} USD "
          "online",
          endpoint, count(*b, "requests"), count(*b, "batches"),
          b->value("batches", std::uint64_t{0}) == 1 ? "" : "es", count(*b, "polls"),
          fmt_num(b->value("cost_usd", 0.0), 4), fmt_num(b->value("online_cost_usd", 0.0), 4)));
    if (const auto n = u.value("unstructured", std::uint64_t{0}); n > 0)
      unstructured.push_back(fmt::format("{}: {} request{} ({})", endpoint, n, n == 1 ? "" : "s",
                                         u.value("structured_rejection", std::string())));
    t.rows.push_back({{endpoint},
                      {u.value("model", std::string())},
                      {count(u, "answers")},
                      {count(u, "requests")},
                      {count(u, "cache_hits")},
                      {count(u, "retries")},
                      {count(u, "failed")},
                      {count(u, "unparsed")},
                      {count(u, "tokens_in")},
                      {count(u, "tokens_out")},
                      {fmt_num(u.value("cost_usd", 0.0), 4)}});
    if (auto f = u.find("failures"); f != u.end() && f->is_object())
      for (const auto& [kind, n] : f->items())
        failures.push_back(fmt::format("{} {}: {}", endpoint, kind, n.dump()));
    if (auto e = u.find("failure_examples"); e != u.end() && e->is_object())
      for (const auto& [kind, messages] : e->items())
        for (const auto& m : messages)
          if (m.is_string())
            examples.push_back(fmt::format("{} {}: {}", endpoint, kind, m.get<std::string>()));
  }
  t.note =
      "failed = requests that failed after retries (by kind below); unparsed = structured "
      "answers still unusable after re-asking. Both are recorded as failed items (undefined "
      "scores, failed perturbations), never replaced by defaults. answers = answers handed to the "
      "run: "
      "requests answered, cache hits, and repeats of a request within one batch (sent once).";
  if (!batched.empty()) t.note += " Batches (--batch): " + join(batched, "; ") + ".";
  if (!unstructured.empty())
    t.note += " Sent without structured output after the server rejected it: " +
              join(unstructured, "; ") + ".";
  if (!failures.empty()) t.note += " Failures: " + join(failures, "; ") + ".";
  if (!examples.empty()) t.note += " First messages: " + join(examples, "; ") + ".";
  return t;
}

Table signature_table(const AuditReport& report) {
  Table t;
  t.title = "Metrics";
  t.header = {"metric", "signature"};
  t.align = {Align::kLeft, Align::kLeft};
  for (std::size_t i = 0; i < report.metrics.size(); ++i) {
    Cell sig{i < report.signatures.size() ? report.signatures[i] : std::string()};
    sig.mono = true;
    t.rows.push_back({{report.metrics[i]}, sig});
  }
  return t;
}

Table strategy_table(const AuditReport& report) {
  Table t;
  t.title = "Strategies";
  t.header = {"kind", "code", "name", "description", "signature"};
  t.align = {Align::kLeft, Align::kCenter, Align::kLeft, Align::kLeft, Align::kLeft};
  for (const auto& s : report.strategies) {
    Cell sig{s.signature};
    sig.mono = true;
    t.rows.push_back({{std::string(kind_name(s.kind))}, {s.code}, {s.name}, {s.description}, sig});
  }
  return t;
}

Table tests_table(const TestIndex& index, const Symbols& sym) {
  const AuditReport& r = index.report();
  Table t;
  t.title = "All tests";
  t.header = {"dataset",
              "metric",
              "kind",
              "code",
              "applied",
              std::string("mean ") + std::string(sym.delta()),
              std::string("sd ") + std::string(sym.delta()),
              "t",
              "df",
              "p",
              "p Holm",
              "p equiv",
              "raw",
              "Holm",
              "d",
              fmt_percent(r.confidence) + " CI",
              "bootstrap CI",
              "MDE"};
  t.align = {Align::kLeft,  Align::kLeft,  Align::kLeft,   Align::kCenter, Align::kRight,
             Align::kRight, Align::kRight, Align::kRight,  Align::kRight,  Align::kRight,
             Align::kRight, Align::kRight, Align::kCenter, Align::kCenter, Align::kRight,
             Align::kRight, Align::kRight, Align::kRight};
  for (StrategyKind kind : kKinds)
    for (const auto& ds : index.datasets())
      for (const auto& m : index.metrics())
        for (const auto& s : index.strategies(kind)) {
          const StrategyTest* st = index.find(ds, m, kind, s.code);
          if (!st) continue;
          Verdict raw = raw_verdict(st), holm = holm_verdict(st);
          bool ok = st->testable;
          auto num = [&](double v, int decimals) {
            return ok ? fmt_num(v, decimals) : std::string(sym.dash());
          };
          Cell raw_cell{outcome_word(*st, false)}, holm_cell{outcome_word(*st, true)};
          raw_cell.tone = tone_of(raw);
          holm_cell.tone = tone_of(holm);
          holm_cell.marked = holm_changes(st);
          t.rows.push_back(
              {{ds},
               {m},
               {std::string(kind_name(kind))},
               {s.code},
               {std::to_string(st->applied)},
               {num(st->mean_delta, 4)},
               {num(st->sd_delta, 4)},
               {num(st->t, 2)},
               {num(st->df, 0)},
               {ok ? fmt_p(st->p) : std::string(sym.dash())},
               {ok ? fmt_p(st->p_holm) : std::string(sym.dash())},
               {ok ? fmt_p(st->p_equiv) : std::string(sym.dash())},
               raw_cell,
               holm_cell,
               {num(st->d, 2)},
               {ok ? fmt_ci(st->d_lo, st->d_hi, 2) : std::string(sym.dash())},
               {ok ? fmt_ci(st->d_boot_lo, st->d_boot_hi, 2) : std::string(sym.dash())},
               {num(st->mde, 2)}});
        }
  return t;
}

std::size_t skipped_count(const AuditReport& report) {
  std::size_t n = 0;
  for (const auto& d : report.datasets) n += d.skipped.size();
  return n;
}

Table skipped_table(const AuditReport& report, std::size_t limit) {
  Table t;
  t.title = "Skipped input";
  t.header = {"dataset", "file", "line", "field", "message"};
  t.align = {Align::kLeft, Align::kLeft, Align::kRight, Align::kLeft, Align::kLeft};
  for (const auto& d : report.datasets)
    for (const auto& s : d.skipped) {
      if (t.rows.size() == limit) break;
      Cell file{s.file};
      file.mono = true;
      t.rows.push_back({{d.name}, file, {std::to_string(s.line)}, {s.field}, {s.message}});
    }
  std::size_t total = skipped_count(report);
  if (total > t.rows.size())
    t.note = fmt::format("First {} of {} skipped records; report.json lists them all.",
                         t.rows.size(), total);
  return t;
}

std::string run_summary(const AuditReport& report, const Symbols& sym) {
  std::vector<std::string> parts;
  parts.push_back("probity " + report.version);
  parts.push_back(fmt::format("seed {}", report.seed));
  parts.push_back(fmt::format("{} = {:g}", sym.alpha(), report.alpha));
  parts.push_back(fmt_percent(report.confidence) + " CIs");
  parts.push_back(fmt::format("{} bootstrap resamples", report.bootstrap));
  parts.push_back(report.sample == 0 ? std::string("all candidates")
                                     : fmt::format("sample {} per dataset", report.sample));
  parts.push_back(fmt::format("{:.1f} s", report.seconds));
  parts.push_back(fmt::format("cache {} hits / {} misses", report.cache_hits, report.cache_misses));
  if (!report.llm_usage.empty()) parts.push_back("LLM usage in report.json (llm_usage)");
  std::string out;
  for (std::size_t i = 0; i < parts.size(); ++i) {
    if (i) out += sym.dot();
    out += parts[i];
  }
  return out;
}

std::vector<std::string> how_to_read(const TestIndex& index, const Symbols& sym) {
  const AuditReport& r = index.report();
  std::vector<std::string> out;
  out.push_back(fmt::format(
      "Human correlation: Spearman {} between each metric and the mean human rating of each "
      "dimension, with a {} bootstrap CI ({} resamples).",
      sym.rho(), fmt_percent(r.confidence), r.bootstrap));
  if (!index.strategies(StrategyKind::kDegradation).empty())
    out.push_back(fmt::format(
        "Degradations make an answer worse ({}). A metric detects a degradation when it scores "
        "the degraded answers significantly lower (one-sided paired t-test on {} = perturbed - "
        "original, p < {} = {:g}) and misses it when a drop of |d| >= {:g} is ruled out (the "
        "one-sided equivalence test, p < {}); a test that shows neither is inconclusive.",
        strategy_list(index, StrategyKind::kDegradation), sym.delta(), sym.alpha(), r.alpha,
        r.margin, sym.alpha()));
  if (!index.strategies(StrategyKind::kManipulation).empty())
    out.push_back(fmt::format(
        "Manipulations try to raise the score without adding content ({}). A metric is fooled "
        "when it scores the manipulated answers significantly higher (one-sided p < {}) and "
        "resists only when a rise of d >= {:g} is ruled out; a test that shows neither is "
        "inconclusive: too few items or too noisy scores are no evidence of robustness.",
        strategy_list(index, StrategyKind::kManipulation), sym.alpha(), r.margin));
  out.push_back(fmt::format(
      "In the grids, {} means every test on that dataset passed, letters name the failed "
      "strategies and ?:X the inconclusive ones. n/a marks a strategy with too few applied items "
      "(or constant scores) to test; "
      "it never counts as "
      "a pass. {} marks a verdict that Holm's adjustment (within dataset {} metric {} kind) "
      "changes. d is the standardised mean of {} with its {} CI; MDE (All tests) is the |d| the "
      "test finds with 80% power at its n and sd of {}: a test whose MDE is above the effects "
      "that matter cannot find them (plan a larger sample with `probity power`).",
      sym.pass(), sym.holm(), sym.unicode ? "\u00d7" : "x", sym.unicode ? "\u00d7" : "x",
      sym.delta(), fmt_percent(r.confidence), sym.delta()));
  return out;
}

}  // namespace probity::report::detail
