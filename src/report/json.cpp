// report.json: every field of AuditReport, objects in declaration order (ordered_json) so that
// diffs between runs stay readable. JSON has no NaN or infinity: both are written as null and
// read back as NaN.
#include <algorithm>
#include <cmath>
#include <concepts>
#include <limits>
#include <nlohmann/json.hpp>
#include <optional>
#include <stdexcept>
#include <type_traits>

#include "probity/report.hpp"
#include "report/format.hpp"
#include "report/json_value.hpp"
#include "util/json_limits.hpp"

namespace probity::report {

namespace {

using ojson = nlohmann::ordered_json;

ojson num(double v) {
  return std::isfinite(v) ? ojson(v) : ojson(nullptr);
}

ojson kind_json(StrategyKind kind) {
  return std::string(kind_name(kind));
}

// The flat objects of report.json, each declared once for the writer and the reader: `fields`
// lists the members in the file's key order, `f(key, member)` for each and `f.unless_default`
// for one written only when it differs from its default. `Obj` is T or const T.
template <class Fields, class Obj>
requires std::same_as<std::remove_const_t<Obj>, StrategyTest>
void fields(Fields& f, Obj& t) {
  f("dataset", t.dataset);
  f("metric", t.metric);
  f("kind", t.kind);
  f("code", t.code);
  f("name", t.name);
  f("considered", t.considered);
  f("applied", t.applied);
  f("not_applicable", t.not_applicable);
  f("unchanged", t.unchanged);
  f("failed", t.failed);
  f("undefined", t.undefined);
  f("testable", t.testable);
  f.unless_default("untestable", t.untestable);
  f.unless_default("untestable_reason", t.reason);
  f("mean_original", t.mean_original);
  f("mean_perturbed", t.mean_perturbed);
  f("mean_delta", t.mean_delta);
  f("sd_delta", t.sd_delta);
  f("pooled_sd", t.pooled_sd);
  f("t", t.t);
  f("df", t.df);
  f("p", t.p);
  f("p_holm", t.p_holm);
  f("passed", t.passed);
  f("passed_holm", t.passed_holm);
  f("margin", t.margin);
  f("p_equiv", t.p_equiv);
  f("p_equiv_holm", t.p_equiv_holm);
  f("outcome", t.outcome);
  f("outcome_holm", t.outcome_holm);
  f("test", t.test);
  f("mde", t.mde);
  f("d", t.d);
  f("d_lo", t.d_lo);
  f("d_hi", t.d_hi);
  f("d_boot_lo", t.d_boot_lo);
  f("d_boot_hi", t.d_boot_hi);
}

template <class Fields, class Obj>
requires std::same_as<std::remove_const_t<Obj>, Replicability>
void fields(Fields& f, Obj& x) {
  f("metric", x.metric);
  f("kind", x.kind);
  f("code", x.code);
  f("name", x.name);
  f("datasets", x.datasets);
  f("p_fail", x.p_fail);
  f("failing", x.failing);
  f("p_at_least", x.p_at_least);
}

template <class Fields, class Obj>
requires std::same_as<std::remove_const_t<Obj>, RaterAgreement>
void fields(Fields& f, Obj& a) {
  f("dimension", a.dimension);
  f("raters", a.raters);
  f("units", a.units);
  f("alpha_interval", a.alpha_interval);
  f("alpha_ordinal", a.alpha_ordinal);
}

template <class Fields, class Obj>
requires std::same_as<std::remove_const_t<Obj>, SkipRecord>
void fields(Fields& f, Obj& s) {
  f("file", s.file);
  f("line", s.line);
  f("field", s.field);
  f("message", s.message);
}

template <class Fields, class Obj>
requires std::same_as<std::remove_const_t<Obj>, StrategyInfo>
void fields(Fields& f, Obj& s) {
  f("kind", s.kind);
  f("code", s.code);
  f("name", s.name);
  f("description", s.description);
  f("signature", s.signature);
}

template <class Fields, class Obj>
requires std::same_as<std::remove_const_t<Obj>, CorrelationResult>
void fields(Fields& f, Obj& c) {
  f("dimension", c.dimension);
  f("n", c.n);
  f("spearman", c.spearman);
  f("spearman_lo", c.spearman_lo);
  f("spearman_hi", c.spearman_hi);
  f("spearman_p", c.spearman_p);
  f("kendall", c.kendall);
  f("pearson", c.pearson);
}

template <class Fields, class Obj>
requires std::same_as<std::remove_const_t<Obj>, MetricRanking::Test>
void fields(Fields& f, Obj& t) {
  f("better", t.better);
  f("worse", t.worse);
  f("p", t.p);
  f("p_adjusted", t.p_adjusted);
}

template <class Fields, class Obj>
requires std::same_as<std::remove_const_t<Obj>, PerturbationExample>
void fields(Fields& f, Obj& e) {
  f("dataset", e.dataset);
  f("task_id", e.task_id);
  f("candidate_id", e.candidate_id);
  f("kind", e.kind);
  f("code", e.code);
  f("original", e.original);
  f("perturbed", e.perturbed);
}

// Writes fields by type: NaN and infinities as null, enums by name.
struct FieldWriter {
  ojson& j;
  void operator()(const char* key, const std::string& v) { j[key] = v; }
  void operator()(const char* key, std::size_t v) { j[key] = v; }
  void operator()(const char* key, bool v) { j[key] = v; }
  void operator()(const char* key, double v) { j[key] = num(v); }
  void operator()(const char* key, StrategyKind v) { j[key] = kind_json(v); }
  void operator()(const char* key, NotTestable v) { j[key] = not_testable_name(v); }
  void operator()(const char* key, Outcome v) { j[key] = outcome_name(v); }
  void operator()(const char* key, PairedTest v) { j[key] = paired_test_name(v); }
  void operator()(const char* key, const std::vector<std::string>& v) { j[key] = v; }
  void operator()(const char* key, const std::vector<double>& v) {
    ojson a = ojson::array();
    for (double x : v) a.push_back(num(x));
    j[key] = std::move(a);
  }
  template <class T>
  void unless_default(const char* key, const T& v) {
    if (v != T{}) (*this)(key, v);
  }
};

// An object of `fields(obj)`.
template <class T>
ojson fields_json(const T& obj) {
  ojson j = ojson::object();
  FieldWriter f{j};
  fields(f, obj);
  return j;
}

ojson skip_json(const SkipRecord& s) {
  return fields_json(s);
}

ojson dataset_json(const DatasetSummary& d) {
  ojson j = ojson::object();
  j["name"] = d.name;
  j["path"] = d.path;
  j["tasks"] = d.tasks;
  j["candidates"] = d.candidates;
  j["audited"] = d.audited;
  j["dimensions"] = d.dimensions;
  j["skipped"] = ojson::array();
  for (const auto& s : d.skipped) j["skipped"].push_back(skip_json(s));
  return j;
}

ojson strategy_json(const StrategyInfo& s) {
  return fields_json(s);
}

ojson correlation_json(const MetricCorrelations& c) {
  ojson j = ojson::object();
  j["dataset"] = c.dataset;
  j["metric"] = c.metric;
  j["rows"] = ojson::array();
  for (const auto& r : c.rows) j["rows"].push_back(fields_json(r));
  if (c.baseline) j["baseline"] = true;
  if (c.humans) {
    j["humans"] = true;
    j["agreement"] = ojson::array();
    for (const auto& a : c.agreement) j["agreement"].push_back(fields_json(a));
  }
  if (!c.levels.empty()) {
    j["levels"] = ojson::array();
    for (const auto& l : c.levels) {
      ojson row = ojson::object();
      row["dimension"] = l.dimension;
      row["level"] = std::string(stats::level_name(l.level));
      row["statistic"] = std::string(stats::level_statistic_name(l.statistic));
      row["value"] = num(l.result.value);
      row["ci_lo"] = num(l.ci_lo);
      row["ci_hi"] = num(l.ci_hi);
      row["resampled"] = l.unit;
      row["resamples"] = l.resamples;
      row["n"] = l.result.n;
      row["groups"] = l.result.groups;
      row["skipped_groups"] = l.result.skipped;
      if (l.statistic == stats::LevelStatistic::kAccEq) row["epsilon"] = num(l.result.epsilon);
      j["levels"].push_back(std::move(row));
    }
  }
  if (c.preference) {
    const PreferenceAgreement& p = *c.preference;
    ojson pref = ojson::object();
    pref["accuracy"] = num(p.result.accuracy);
    pref["ci_lo"] = num(p.ci_lo);
    pref["ci_hi"] = num(p.ci_hi);
    pref["pairs"] = p.result.pairs;
    pref["strict"] = p.result.strict;
    pref["metric_ties"] = p.result.metric_ties;
    pref["human_ties"] = p.result.human_ties;
    pref["tie_agreement"] = num(p.result.tie_agreement);
    pref["tasks"] = p.tasks;
    j["preference"] = std::move(pref);
  }
  return j;
}

ojson ranking_json(const MetricRanking& r) {
  ojson j = ojson::object();
  j["dataset"] = r.dataset;
  j["dimension"] = r.dimension;
  j["level"] = std::string(stats::level_name(r.level));
  j["statistic"] = std::string(stats::level_statistic_name(r.statistic));
  j["permutations"] = r.permutations;
  j["correction"] = std::string(stats::rank_correction_name(r.correction));
  j["alpha"] = num(r.alpha);
  j["ranking"] = ojson::array();
  for (const auto& e : r.ranking) {
    ojson row = ojson::object();
    row["metric"] = e.metric;
    if (e.baseline) row["baseline"] = true;
    row["rank"] = e.rank;
    row["value"] = num(e.value);
    j["ranking"].push_back(std::move(row));
  }
  j["tests"] = ojson::array();
  for (const auto& t : r.tests) j["tests"].push_back(fields_json(t));
  return j;
}

ojson test_json(const StrategyTest& t) {
  return fields_json(t);
}

}  // namespace

namespace {

ojson judge_diagnostics_json(const JudgeDiagnostics& d) {
  ojson j = {{"dataset", d.dataset},
             {"metric", d.metric},
             {"mode", judge_mode_name(d.mode)},
             {"items", d.items},
             {"values", ojson::array()}};
  for (const auto& v : d.values) {
    ojson row = {{"name", v.name},
                 {"value", num(v.value)},
                 {"low", num(v.low)},
                 {"high", num(v.high)},
                 {"n", v.n}};
    row["unbiased"] = v.unbiased ? num(*v.unbiased) : ojson(nullptr);
    row["finding"] = v.finding;
    if (!v.untested.empty()) row["untested"] = v.untested;
    j["values"].push_back(std::move(row));
  }
  return j;
}

}  // namespace

nlohmann::ordered_json attack_json(const MetricAttack& a) {
  ojson j = ojson::object();
  if (!a.dataset.empty()) j["dataset"] = a.dataset;
  j["metric"] = a.metric;
  j["signature"] = a.signature;
  j["items"] = a.items;
  j["queries"] = a.queries;
  j["seconds"] = num(a.seconds);
  j["testable"] = a.testable;
  if (!a.untestable.empty()) j["untestable"] = a.untestable;
  j["not_attacked"] = a.not_attacked;
  j["success_rate"] = num(a.success_rate);
  j["mean_best_delta"] = num(a.mean_best_delta);
  j["best_edits"] = test_json(a.best_edits);
  j["families"] = ojson::array();  // most frequent first
  for (const auto& [f, n] : a.families) j["families"].push_back({{"family", f}, {"items", n}});
  j["budget_curve"] = ojson::array();
  for (const auto& p : a.budget_curve)
    j["budget_curve"].push_back({{"queries", p.queries},
                                 {"success_rate", num(p.success_rate)},
                                 {"mean_best_delta", num(p.mean_best_delta)}});
  j["programs_searched"] = a.programs_searched;
  j["universal"] = ojson::array();
  for (const auto& u : a.universal) {
    ojson row = ojson::object();
    row["program"] = u.program;
    row["search_applied"] = u.search_applied;
    row["search_mean_delta"] = num(u.search_mean_delta);
    // A manipulation test "passes" when the metric resists: a finding is the opposite.
    row["vulnerable"] = u.held_out.testable && !u.held_out.passed_holm;
    row["held_out"] = test_json(u.held_out);
    j["universal"].push_back(std::move(row));
  }
  j["replacements"] = ojson::array();
  const auto answer_json = [](const ReplacementAnswer& x) {
    return ojson{{"text", x.text},
                 {"n", x.n},
                 {"hits", x.hits},
                 {"rate", num(x.rate)},
                 {"rate_lo", num(x.rate_lo)},
                 {"rate_hi", num(x.rate_hi)},
                 {"mean_score", num(x.mean_score)}};
  };
  for (const auto& x : a.replacements) {
    ojson row = ojson::object();
    row["family"] = replacement_family_name(x.family);
    row["testable"] = x.testable;
    if (!x.untestable.empty()) row["untestable"] = x.untestable;
    row["candidates_mean"] = num(x.candidates_mean);
    row["floor_mean"] = num(x.floor_mean);
    row["answers"] = ojson::array();
    for (const auto& ans : x.answers) row["answers"].push_back(answer_json(ans));
    row["held_out"] = answer_json(x.held_out);
    row["tolerance"] = num(x.tolerance);
    row["vulnerable"] = x.vulnerable;
    j["replacements"].push_back(std::move(row));
  }
  j["suffixes"] = ojson::array();
  for (const auto& u : a.suffixes) {
    ojson row = ojson::object();
    row["search"] = suffix_search_name(u.search);
    row["searched"] = u.searched;
    if (!u.untestable.empty()) row["untestable"] = u.untestable;
    row["text"] = u.text;
    row["trajectory"] = ojson::array();
    for (double v : u.trajectory) row["trajectory"].push_back(num(v));
    row["queries"] = u.queries;
    row["search_mean_delta"] = num(u.search_mean_delta);
    row["vulnerable"] = u.held_out.testable && !u.held_out.passed_holm;
    row["held_out"] = test_json(u.held_out);
    if (!u.transfer_metric.empty()) {
      row["transfer_metric"] = u.transfer_metric;
      row["transfer_vulnerable"] = u.transfer.testable && !u.transfer.passed_holm;
      row["transfer"] = test_json(u.transfer);
    }
    j["suffixes"].push_back(std::move(row));
  }
  j["examples"] = ojson::array();
  for (const auto& e : a.examples)
    j["examples"].push_back({{"task_id", e.task_id},
                             {"candidate_id", e.candidate_id},
                             {"program", e.program},
                             {"before", num(e.before)},
                             {"after", num(e.after)},
                             {"original", e.original},
                             {"attacked", e.attacked}});
  if (const auto& w = a.rewrites; !w.guard.empty()) {
    ojson r = {{"guard", w.guard},
               {"requests", w.requests},
               {"attacker_failed", w.attacker_failed},
               {"attacker_request_failed", w.attacker_failed - w.attacker_unparseable},
               {"attacker_unparseable", w.attacker_unparseable},
               {"proposed", w.proposed},
               {"scored", w.scored},
               {"duplicates", w.duplicates},
               {"rejected", w.rejected},
               {"guard_failed", w.guard_failed},
               {"over_budget", w.over_budget},
               {"first_attacker_error", w.first_attacker_error},
               {"rejected_examples", ojson::array()}};
    for (const auto& e : w.rejected_examples)
      r["rejected_examples"].push_back({{"task_id", e.task_id},
                                        {"candidate_id", e.candidate_id},
                                        {"rewrite", e.rewrite},
                                        {"reason", e.reason}});
    j["llm_rewrites"] = std::move(r);
  }
  return j;
}

nlohmann::ordered_json attack_document(const AttackRun& run) {
  const AttackReport& r = run.report;
  const AttackOptions& o = r.options;
  ojson doc = {{"schema", "probity.attack/1"},
               {"data", run.data},
               {"items", run.items},
               {"search_tasks", r.search_tasks},
               {"held_out_tasks", r.held_out_tasks},
               {"operators", r.operators},
               {"options",
                {{"strategy", o.strategy},
                 {"budget", o.budget},
                 {"steps", o.steps},
                 {"beam", o.beam},
                 {"proposals", o.proposals},
                 {"guard", o.guard},
                 {"families", o.families},
                 {"delta", o.delta},
                 {"program_length", o.program_length},
                 {"programs", o.programs},
                 {"split", o.split},
                 {"alpha", o.alpha},
                 {"margin", o.margin},
                 {"bootstrap", o.bootstrap},
                 {"confidence", o.confidence},
                 {"min_applied", o.min_applied},
                 {"tolerance", o.tolerance},
                 {"phrase_words", o.phrase_words},
                 {"phrase_candidates", o.phrase_candidates},
                 {"suffix_words", o.suffix_words},
                 {"suffix_iterations", o.suffix_iterations},
                 {"transfer_endpoint",
                  o.transfer_endpoint.empty() ? ojson(nullptr) : ojson(o.transfer_endpoint)},
                 {"fit", o.fit},
                 {"seed", o.seed},
                 {"copy_source", o.include_content}}},
               {"attacker", r.attacker.empty() ? ojson(nullptr) : ojson(r.attacker)},
               {"guard", r.guard.empty() ? ojson(nullptr) : ojson(r.guard)},
               {"metrics", ojson::array()}};
  for (const auto& a : r.metrics) doc["metrics"].push_back(attack_json(a));
  // The session's accounting, as the audit's report.json has it: an attack whose LLM work
  // failed says so in its own file too.
  doc["llm_usage"] = run.llm_usage.empty() ? ojson(nullptr) : ojson::parse(run.llm_usage);
  return doc;
}

namespace {

ojson example_json(const PerturbationExample& e) {
  return fields_json(e);
}

// ---- reading -----------------------------------------------------------------------------

using json = nlohmann::json;

[[noreturn]] void fail(const std::string& where, const std::string& what) {
  throw std::invalid_argument("report JSON: " + where + ": " + what);
}

// Reads fields of one object; missing keys keep their defaults so that reports written by
// earlier minor versions of the schema still load.
class Reader {
 public:
  Reader(const json& j, std::string where) : j_(j), where_(std::move(where)) {
    if (!j_.is_object()) fail(where_, "expected an object");
  }

  const json* get(const char* key) const {
    auto it = j_.find(key);
    return it == j_.end() ? nullptr : &*it;
  }
  std::string path(const char* key) const { return where_.empty() ? key : where_ + "." + key; }

  void str(const char* key, std::string& out) const {
    if (const json* v = get(key)) {
      if (!v->is_string()) fail(path(key), "expected a string");
      out = v->get<std::string>();
    }
  }
  void strings(const char* key, std::vector<std::string>& out) const {
    if (const json* v = get(key)) {
      if (!v->is_array()) fail(path(key), "expected an array of strings");
      out.clear();
      for (const auto& e : *v) {
        if (!e.is_string()) fail(path(key), "expected an array of strings");
        out.push_back(e.get<std::string>());
      }
    }
  }
  template <class U>
  void unsigned_int(const char* key, U& out) const {
    if (const json* v = get(key)) {
      if (!v->is_number_unsigned()) fail(path(key), "expected a non-negative integer");
      out = v->get<U>();
    }
  }
  void number(const char* key, double& out) const {
    if (const json* v = get(key)) {
      if (v->is_null())
        out = std::numeric_limits<double>::quiet_NaN();
      else if (v->is_number())
        out = v->get<double>();
      else
        fail(path(key), "expected a number or null");
    }
  }
  void numbers(const char* key, std::vector<double>& out) const {
    if (const json* v = get(key)) {
      if (!v->is_array()) fail(path(key), "expected an array");
      out.clear();
      for (const auto& e : *v) {
        if (!e.is_null() && !e.is_number()) fail(path(key), "expected an array of numbers");
        out.push_back(e.is_null() ? std::numeric_limits<double>::quiet_NaN() : e.get<double>());
      }
    }
  }
  void boolean(const char* key, bool& out) const {
    if (const json* v = get(key)) {
      if (!v->is_boolean()) fail(path(key), "expected true or false");
      out = v->get<bool>();
    }
  }
  void kind(const char* key, StrategyKind& out) const {
    if (const json* v = get(key)) {
      std::string s = v->is_string() ? v->get<std::string>() : std::string();
      if (s == "degradation")
        out = StrategyKind::kDegradation;
      else if (s == "manipulation")
        out = StrategyKind::kManipulation;
      else
        fail(path(key), "expected \"degradation\" or \"manipulation\"");
    }
  }
  // A name parsed by `parse` (std::invalid_argument for an unknown one).
  template <class T, class Parse>
  void name(const char* key, T& out, Parse parse) const {
    if (const json* v = get(key)) {
      if (!v->is_string()) fail(path(key), "expected a string");
      try {
        out = parse(v->get<std::string>());
      } catch (const std::invalid_argument& e) {
        fail(path(key), e.what());
      }
    }
  }
  // An optional object: read when present and not null.
  template <class T, class F>
  void object(const char* key, std::optional<T>& out, F read_one) const {
    if (const json* v = get(key); v && !v->is_null()) {
      Reader item(*v, path(key));
      T value;
      read_one(item, value);
      out = std::move(value);
    }
  }
  template <class T, class F>
  void objects(const char* key, std::vector<T>& out, F read_one) const {
    if (const json* v = get(key)) {
      if (!v->is_array()) fail(path(key), "expected an array");
      out.clear();
      for (std::size_t i = 0; i < v->size(); ++i) {
        Reader item((*v)[i], path(key) + "[" + std::to_string(i) + "]");
        T value;
        read_one(item, value);
        out.push_back(std::move(value));
      }
    }
  }

 private:
  const json& j_;
  std::string where_;
};

// Reads fields by type (the inverse of FieldWriter).
struct FieldReader {
  const Reader& r;
  void operator()(const char* key, std::string& v) const { r.str(key, v); }
  void operator()(const char* key, std::size_t& v) const { r.unsigned_int(key, v); }
  void operator()(const char* key, bool& v) const { r.boolean(key, v); }
  void operator()(const char* key, double& v) const { r.number(key, v); }
  void operator()(const char* key, StrategyKind& v) const { r.kind(key, v); }
  void operator()(const char* key, NotTestable& v) const { r.name(key, v, parse_not_testable); }
  void operator()(const char* key, Outcome& v) const { r.name(key, v, parse_outcome); }
  void operator()(const char* key, PairedTest& v) const { r.name(key, v, parse_paired_test); }
  void operator()(const char* key, std::vector<std::string>& v) const { r.strings(key, v); }
  void operator()(const char* key, std::vector<double>& v) const { r.numbers(key, v); }
  template <class T>
  void unless_default(const char* key, T& v) const {
    (*this)(key, v);
  }
};

// Reads the members `fields` lists: read_fields is the reader of every flat object.
template <class T>
void read_fields(const Reader& r, T& obj) {
  const FieldReader f{r};
  fields(f, obj);
}

// A paired test. Reports written before the three-way verdict have no "outcome": it is taken
// from the effect test alone, which cannot show robustness (no equivalence test was run).
void read_test(const Reader& r, StrategyTest& t) {
  read_fields(r, t);
  const bool degradation = t.kind == StrategyKind::kDegradation;
  auto from_effect = [&](bool passed) {
    if (!t.testable) return Outcome::kUntestable;
    if (degradation) return passed ? Outcome::kDetects : Outcome::kInconclusive;
    return passed ? Outcome::kInconclusive : Outcome::kFooled;
  };
  if (!r.get("outcome")) t.outcome = from_effect(t.passed);
  if (!r.get("outcome_holm")) t.outcome_holm = from_effect(t.passed_holm);
}

void read_dataset(const Reader& r, DatasetSummary& d) {
  r.str("name", d.name);
  r.str("path", d.path);
  r.unsigned_int("tasks", d.tasks);
  r.unsigned_int("candidates", d.candidates);
  r.unsigned_int("audited", d.audited);
  r.strings("dimensions", d.dimensions);
  r.objects("skipped", d.skipped, read_fields<SkipRecord>);
}

void read_level_row(const Reader& r, LevelCorrelation& l) {
  r.str("dimension", l.dimension);
  r.name("level", l.level, stats::parse_level);
  r.name("statistic", l.statistic, stats::parse_level_statistic);
  r.number("value", l.result.value);
  r.number("ci_lo", l.ci_lo);
  r.number("ci_hi", l.ci_hi);
  r.str("resampled", l.unit);
  r.unsigned_int("resamples", l.resamples);
  r.unsigned_int("n", l.result.n);
  r.unsigned_int("groups", l.result.groups);
  r.unsigned_int("skipped_groups", l.result.skipped);
  r.number("epsilon", l.result.epsilon);
}

void read_preference(const Reader& r, PreferenceAgreement& p) {
  r.number("accuracy", p.result.accuracy);
  r.number("ci_lo", p.ci_lo);
  r.number("ci_hi", p.ci_hi);
  r.unsigned_int("pairs", p.result.pairs);
  r.unsigned_int("strict", p.result.strict);
  r.unsigned_int("metric_ties", p.result.metric_ties);
  r.unsigned_int("human_ties", p.result.human_ties);
  r.number("tie_agreement", p.result.tie_agreement);
  r.unsigned_int("tasks", p.tasks);
}

void read_correlation(const Reader& r, MetricCorrelations& c) {
  r.str("dataset", c.dataset);
  r.str("metric", c.metric);
  r.boolean("baseline", c.baseline);
  r.boolean("humans", c.humans);
  r.objects("agreement", c.agreement, read_fields<RaterAgreement>);
  r.objects("rows", c.rows, read_fields<CorrelationResult>);
  r.objects("levels", c.levels, read_level_row);
  r.object("preference", c.preference, read_preference);
}

void read_ranking_entry(const Reader& r, MetricRanking::Entry& e) {
  r.str("metric", e.metric);
  r.boolean("baseline", e.baseline);
  r.unsigned_int("rank", e.rank);
  r.number("value", e.value);
}

void read_ranking(const Reader& r, MetricRanking& m) {
  r.str("dataset", m.dataset);
  r.str("dimension", m.dimension);
  r.name("level", m.level, stats::parse_level);
  r.name("statistic", m.statistic, stats::parse_level_statistic);
  r.unsigned_int("permutations", m.permutations);
  r.name("correction", m.correction, stats::parse_rank_correction);
  r.number("alpha", m.alpha);
  r.objects("ranking", m.ranking, read_ranking_entry);
  r.objects("tests", m.tests, read_fields<MetricRanking::Test>);
}

void read_judge_diagnostics(const Reader& r, JudgeDiagnostics& d) {
  r.str("dataset", d.dataset);
  r.str("metric", d.metric);
  r.name("mode", d.mode, parse_judge_mode);
  r.unsigned_int("items", d.items);
  r.objects("values", d.values, [](const Reader& p, JudgeDiagnostic& v) {
    p.str("name", v.name);
    p.number("value", v.value);
    p.number("low", v.low);
    p.number("high", v.high);
    p.unsigned_int("n", v.n);
    double unbiased = std::numeric_limits<double>::quiet_NaN();
    p.number("unbiased", unbiased);
    if (!std::isnan(unbiased)) v.unbiased = unbiased;
    p.boolean("finding", v.finding);
    p.str("untested", v.untested);
  });
}

void read_attack(const Reader& r, MetricAttack& a) {
  r.str("dataset", a.dataset);
  r.str("metric", a.metric);
  r.str("signature", a.signature);
  r.unsigned_int("items", a.items);
  r.unsigned_int("queries", a.queries);
  r.number("seconds", a.seconds);
  r.boolean("testable", a.testable);
  r.str("untestable", a.untestable);
  r.unsigned_int("not_attacked", a.not_attacked);
  r.number("success_rate", a.success_rate);
  r.number("mean_best_delta", a.mean_best_delta);
  std::optional<StrategyTest> best;
  r.object("best_edits", best, read_test);
  if (best) a.best_edits = *best;
  r.objects("families", a.families, [](const Reader& p, std::pair<std::string, std::size_t>& f) {
    p.str("family", f.first);
    p.unsigned_int("items", f.second);
  });
  r.objects("budget_curve", a.budget_curve, [](const Reader& p, BudgetPoint& b) {
    p.unsigned_int("queries", b.queries);
    p.number("success_rate", b.success_rate);
    p.number("mean_best_delta", b.mean_best_delta);
  });
  r.unsigned_int("programs_searched", a.programs_searched);
  r.objects("universal", a.universal, [](const Reader& p, UniversalProgram& u) {
    p.strings("program", u.program);
    p.unsigned_int("search_applied", u.search_applied);
    p.number("search_mean_delta", u.search_mean_delta);
    std::optional<StrategyTest> t;
    p.object("held_out", t, read_test);
    if (t) u.held_out = *t;
  });
  const auto read_answer = [](const Reader& p, ReplacementAnswer& x) {
    p.str("text", x.text);
    p.unsigned_int("n", x.n);
    p.unsigned_int("hits", x.hits);
    p.number("rate", x.rate);
    p.number("rate_lo", x.rate_lo);
    p.number("rate_hi", x.rate_hi);
    p.number("mean_score", x.mean_score);
  };
  r.objects("replacements", a.replacements, [&](const Reader& p, ReplacementAttack& x) {
    p.name("family", x.family, [](const std::string& n) {
      if (auto f = parse_replacement_family(n)) return *f;
      throw std::invalid_argument("expected \"master-key\" or \"null-model\"");
    });
    p.boolean("testable", x.testable);
    p.str("untestable", x.untestable);
    p.number("candidates_mean", x.candidates_mean);
    p.number("floor_mean", x.floor_mean);
    p.objects("answers", x.answers, read_answer);
    std::optional<ReplacementAnswer> h;
    p.object("held_out", h, read_answer);
    if (h) x.held_out = *h;
    p.number("tolerance", x.tolerance);
    p.boolean("vulnerable", x.vulnerable);
  });
  r.objects("suffixes", a.suffixes, [](const Reader& p, UniversalSuffix& u) {
    p.name("search", u.search, [](const std::string& n) {
      if (auto k = parse_suffix_search(n)) return *k;
      throw std::invalid_argument("expected \"universal-phrase\" or \"logprob-search\"");
    });
    p.boolean("searched", u.searched);
    p.str("untestable", u.untestable);
    p.str("text", u.text);
    p.numbers("trajectory", u.trajectory);
    p.unsigned_int("queries", u.queries);
    p.number("search_mean_delta", u.search_mean_delta);
    std::optional<StrategyTest> t;
    p.object("held_out", t, read_test);
    if (t) u.held_out = *t;
    p.str("transfer_metric", u.transfer_metric);
    std::optional<StrategyTest> x;
    p.object("transfer", x, read_test);
    if (x) u.transfer = *x;
  });
  r.objects("examples", a.examples, [](const Reader& p, AttackExample& e) {
    p.str("task_id", e.task_id);
    p.str("candidate_id", e.candidate_id);
    p.strings("program", e.program);
    p.number("before", e.before);
    p.number("after", e.after);
    p.str("original", e.original);
    p.str("attacked", e.attacked);
  });
  std::optional<RewriteAccounting> w;
  r.object("llm_rewrites", w, [](const Reader& p, RewriteAccounting& x) {
    p.str("guard", x.guard);
    p.unsigned_int("requests", x.requests);
    p.unsigned_int("proposed", x.proposed);
    p.unsigned_int("scored", x.scored);
    p.unsigned_int("duplicates", x.duplicates);
    p.unsigned_int("rejected", x.rejected);
    p.unsigned_int("guard_failed", x.guard_failed);
    p.unsigned_int("over_budget", x.over_budget);
    p.unsigned_int("attacker_failed", x.attacker_failed);
    p.unsigned_int("attacker_unparseable", x.attacker_unparseable);
    x.attacker_unparseable = std::min(x.attacker_unparseable, x.attacker_failed);
    p.str("first_attacker_error", x.first_attacker_error);
    p.objects("rejected_examples", x.rejected_examples, [](const Reader& q, RejectedRewrite& e) {
      q.str("task_id", e.task_id);
      q.str("candidate_id", e.candidate_id);
      q.str("rewrite", e.rewrite);
      q.str("reason", e.reason);
    });
  });
  if (w) a.rewrites = std::move(*w);
}

}  // namespace

namespace {

// The scorecard (detail::scorecard): one verdict per metric and dataset, derived from "tests".
ojson summary_json(const AuditReport& report) {
  const detail::TestIndex index(report);
  ojson out = ojson::array();
  for (const auto& line : detail::scorecard(index)) {
    ojson j = ojson::object();
    j["dataset"] = line.dataset;
    j["metric"] = line.metric;
    if (line.correlation) {
      const CorrelationResult& c = *line.correlation;
      ojson h = ojson::object();
      h["dimension"] = c.dimension;
      h["n"] = c.n;
      h["spearman"] = num(c.spearman);
      h["spearman_lo"] = num(c.spearman_lo);
      h["spearman_hi"] = num(c.spearman_hi);
      j["human"] = std::move(h);
    } else {
      j["human"] = nullptr;
    }
    for (StrategyKind kind : detail::kKinds) {
      const auto& tally = line.kinds[kind == StrategyKind::kDegradation ? 0 : 1];
      ojson k = ojson::object();
      // Counts after Holm's adjustment, by three-way outcome (as every rendering shows them).
      k[kind == StrategyKind::kDegradation ? "detected" : "resisted"] = tally.passed;
      k["tested"] = tally.tested;
      k["not_testable"] = tally.untestable;
      k[kind == StrategyKind::kDegradation ? "missed" : "fooled"] = ojson::array();
      for (const auto& s : tally.failed)
        k[kind == StrategyKind::kDegradation ? "missed" : "fooled"].push_back(s.code);
      k["inconclusive"] = ojson::array();
      for (const auto& s : tally.inconclusive) k["inconclusive"].push_back(s.code);
      k["holm_changes"] = tally.holm;
      j[kind == StrategyKind::kDegradation ? "degradations" : "manipulations"] = std::move(k);
    }
    j["signal"] = line.signal == detail::SignalProblem::kNoSignal ? "no_signal"
                  : line.signal == detail::SignalProblem::kNoBetterThanLength
                      ? "no_better_than_length"
                      : "ok";
    j["attack_findings"] = line.attack_findings;
    j["robust"] = line.robust;
    j["verdict"] = line.verdict;
    out.push_back(std::move(j));
  }
  return out;
}

}  // namespace

nlohmann::ordered_json to_json_value(const AuditReport& report) {
  ojson j = ojson::object();
  j["schema"] = std::string(detail::kSchema);
  j["version"] = report.version;
  j["seed"] = report.seed;
  j["sample"] = report.sample;
  j["bootstrap"] = report.bootstrap;
  j["min_applied"] = report.min_applied;
  j["alpha"] = num(report.alpha);
  j["margin"] = num(report.margin);
  j["test"] = std::string(paired_test_name(report.test));
  j["confidence"] = num(report.confidence);
  j["summary"] = summary_json(report);
  j["datasets"] = ojson::array();
  for (const auto& d : report.datasets) j["datasets"].push_back(dataset_json(d));
  j["metrics"] = report.metrics;
  j["signatures"] = report.signatures;
  j["strategies"] = ojson::array();
  for (const auto& s : report.strategies) j["strategies"].push_back(strategy_json(s));
  j["correlations"] = ojson::array();
  for (const auto& c : report.correlations) j["correlations"].push_back(correlation_json(c));
  if (!report.levels.empty()) j["levels"] = report.levels;
  if (!report.rankings.empty()) {
    j["rankings"] = ojson::array();
    for (const auto& r : report.rankings) j["rankings"].push_back(ranking_json(r));
  }
  j["tests"] = ojson::array();
  for (const auto& t : report.tests) j["tests"].push_back(test_json(t));
  if (!report.replicability.empty()) {
    j["replicability"] = ojson::array();
    for (const auto& x : report.replicability) j["replicability"].push_back(fields_json(x));
  }
  if (!report.attacks.empty()) {
    j["attacks"] = ojson::array();
    for (const auto& a : report.attacks) j["attacks"].push_back(attack_json(a));
  }
  if (!report.judge_diagnostics.empty()) {
    j["judge_diagnostics"] = ojson::array();
    for (const auto& d : report.judge_diagnostics)
      j["judge_diagnostics"].push_back(judge_diagnostics_json(d));
  }
  j["examples"] = ojson::array();
  for (const auto& e : report.examples) j["examples"].push_back(example_json(e));
  j["cache_hits"] = report.cache_hits;
  j["cache_misses"] = report.cache_misses;
  j["seconds"] = num(report.seconds);
  j["llm_usage"] = report.llm_usage.empty() ? ojson(nullptr) : ojson::parse(report.llm_usage);
  return j;
}

std::string to_json(const AuditReport& report) {
  const ojson j = to_json_value(report);
  // Invalid UTF-8 in a text field (a corrupt candidate) must not abort the whole report.
  return j.dump(2, ' ', false, ojson::error_handler_t::replace) + "\n";
}

AuditReport from_json(const std::string& text) {
  json j;
  try {
    j = util::parse_json(text);
  } catch (const json::parse_error& e) {
    throw std::invalid_argument(std::string("report JSON: malformed: ") + e.what());
  }
  Reader r(j, "");
  std::string schema;
  r.str("schema", schema);
  if (schema != detail::kSchema)
    fail("schema", schema.empty() ? "missing (expected \"" + std::string(detail::kSchema) + "\")"
                                  : "unsupported \"" + schema + "\"");
  AuditReport report;
  r.str("version", report.version);
  r.unsigned_int("seed", report.seed);
  r.unsigned_int("sample", report.sample);
  r.unsigned_int("bootstrap", report.bootstrap);
  r.unsigned_int("min_applied", report.min_applied);
  r.number("alpha", report.alpha);
  r.number("margin", report.margin);
  r.name("test", report.test, parse_paired_test);
  r.number("confidence", report.confidence);
  r.objects("datasets", report.datasets, read_dataset);
  r.strings("metrics", report.metrics);
  r.strings("signatures", report.signatures);
  r.objects("strategies", report.strategies, read_fields<StrategyInfo>);
  r.objects("correlations", report.correlations, read_correlation);
  r.strings("levels", report.levels);
  r.objects("rankings", report.rankings, read_ranking);
  r.objects("tests", report.tests, read_test);
  r.objects("replicability", report.replicability, read_fields<Replicability>);
  r.objects("attacks", report.attacks, read_attack);
  r.objects("judge_diagnostics", report.judge_diagnostics, read_judge_diagnostics);
  r.objects("examples", report.examples, read_fields<PerturbationExample>);
  r.unsigned_int("cache_hits", report.cache_hits);
  r.unsigned_int("cache_misses", report.cache_misses);
  r.number("seconds", report.seconds);
  if (auto it = j.find("llm_usage"); it != j.end() && it->is_object())
    report.llm_usage = it->dump();
  return report;
}

}  // namespace probity::report
