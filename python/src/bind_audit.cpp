// The audit (`probity audit`) and the attack (`probity attack`) with registry metrics and Python
// callables, the report renderings, and the systems' significance (`probity significance`).
#include <stdexcept>

#include "common.hpp"
#include "probity/attack.hpp"
#include "probity/audit.hpp"
#include "probity/engine.hpp"
#include "probity/error.hpp"
#include "probity/report.hpp"
#include "probity/requests.hpp"
#include "probity/significance.hpp"
#include "probity/wmt.hpp"
#include "python_metric.hpp"
#include "report/json_value.hpp"
#include "report/wmt_report.hpp"

namespace probity::python {

namespace {

// Runs the audit with the engine's metrics, strategies and LLM session; returns report.json's
// content as a dict, and writes the report files into `out` when `write` is set.
// `python_metrics` are probity.PythonMetric objects: callable, with `record_name` and
// `full_signature(run_id)`.
// Each of `data` is a file name or a (Dataset, name) pair: a dataset audited as it is in memory,
// named in the report as a file of that name would be.
std::vector<DataInput> inputs(const std::vector<py::object>& data) {
  std::vector<DataInput> out;
  for (const auto& d : data) {
    if (py::isinstance<py::tuple>(d)) {
      const auto pair = d.cast<py::tuple>();
      Dataset ds = pair[0].cast<Dataset>();
      ds.path = pair[1].cast<std::string>();
      out.push_back(DataInput::memory(std::move(ds)));
    } else {
      out.emplace_back(d.cast<std::string>());
    }
  }
  return out;
}

py::object audit(PyEngine& e, const std::vector<py::object>& data,
                 const std::vector<std::string>& metrics, const py::list& python_metrics,
                 const std::vector<std::string>& degradations,
                 const std::vector<std::string>& manipulations, const std::string& suite,
                 const std::vector<std::string>& dimensions, std::optional<std::size_t> sample,
                 std::uint64_t seed, std::size_t bootstrap, std::size_t min_applied, double alpha,
                 double margin, const std::string& test, double confidence, const std::string& out,
                 unsigned threads, bool skip_invalid, const std::string& run_id,
                 const py::object& progress, bool write) {
  AuditOptions opts;
  opts.data = inputs(data);
  opts.metrics = metrics;
  opts.degradations = degradations;
  opts.manipulations = manipulations;
  opts.suite = suite;
  opts.dimensions = dimensions;
  opts.sample = sample;
  opts.seed = seed;
  opts.bootstrap = bootstrap;
  opts.min_applied = min_applied;
  opts.alpha = alpha;
  opts.margin = margin;
  try {
    opts.test = parse_paired_test(test);
  } catch (const std::invalid_argument& error) {
    throw UsageError(error.what());
  }
  opts.confidence = confidence;
  opts.out_dir = out;
  opts.threads = threads;
  opts.skip_invalid = skip_invalid;
  for (const auto& m : python_metrics)
    opts.extra_metrics.push_back(
        python_extra_metric(m, m.attr("record_name").cast<std::string>(),
                            m.attr("full_signature")(run_id).cast<std::string>()));
  // Called between chunks of work on this thread: Ctrl-C and the caller's progress function.
  opts.progress = [&progress](std::string_view stage, std::size_t done, std::size_t total) {
    py::gil_scoped_acquire gil;
    if (PyErr_CheckSignals() != 0) throw py::error_already_set();
    if (!progress.is_none()) progress(std::string(stage), done, total);
  };
  nlohmann::ordered_json json;
  {
    py::gil_scoped_release release;
    std::lock_guard lock(e.mutex);
    AuditReport report = run_audit(opts, e.engine);
    if (write) report::write_all(report, out);
    json = report::to_json_value(report);
  }
  return to_python(json);
}

// `probity attack` on one dataset with registry metrics and Python callables (probity.PythonMetric
// objects, scored in batches of `batch`); returns what attack.json holds about the run, as a
// dict, and its text tables. The options are the CLI's AttackOptions.
py::object attack(PyEngine& e, const py::object& data, const std::vector<std::string>& metrics,
                  const py::list& python_metrics, const AttackOptions& options, std::size_t sample,
                  bool skip_invalid, const std::string& lang, std::size_t batch,
                  const std::string& run_id) {
  AttackRequest request;
  request.data = inputs({data}).front();
  request.metrics = metrics;
  request.options = options;
  request.sample = sample;
  request.skip_invalid = skip_invalid;
  request.lang = lang;
  nlohmann::ordered_json json;
  std::string text;
  {
    // Everything that calls into Python below takes the GIL itself.
    std::vector<MetricSelection> selected;
    for (const auto& m : python_metrics)
      selected.push_back(
          python_metric_selection(m, m.attr("record_name").cast<std::string>(),
                                  m.attr("full_signature")(run_id).cast<std::string>(), batch));
    py::gil_scoped_release release;
    std::lock_guard lock(e.mutex);
    const AttackRun run = run_attack(request, e.engine, std::move(selected));
    json = report::attack_document(run);
    text = report::attack_to_text(run, {});
  }
  // attack.json's content and the tables `probity attack` prints (rendered while the run is
  // at hand: attack.json is not read back).
  return py::make_tuple(to_python(json), text);
}

// `probity power`: the request as the command line fills it, the pilot report as its JSON text.
py::object wmt_rank(const WmtRankRequest& request) {
  nlohmann::ordered_json json;
  {
    py::gil_scoped_release release;
    json = report::wmt_rank_document(run_wmt_protocol(request), request);
  }
  return to_python(json);
}

py::list power(const PowerRequest& request, const std::string& report_json) {
  std::optional<AuditReport> pilot;
  if (!report_json.empty()) pilot = report::from_json(report_json);
  py::list out;
  for (const auto& r : plan_power(request, pilot ? &*pilot : nullptr)) {
    py::dict row;
    row["what"] = r.what;
    row["solved"] = r.solved;
    row["n"] = r.n;
    row["effect"] = r.effect;
    row["power"] = r.power;
    row["note"] = r.note;
    out.append(row);
  }
  return out;
}

// `probity significance` on one dataset: what `--json` prints, as a dict. The names of the test
// and the correction are the command line's.
py::object significance(PyEngine& e, const py::object& data,
                        const std::vector<std::string>& metrics, const std::string& test,
                        std::size_t samples, std::uint64_t seed, const std::string& baseline,
                        std::optional<bool> clusters, const std::string& correction, double alpha,
                        unsigned threads, bool skip_invalid) {
  SignificanceRequest request;
  request.data = inputs({data}).front();
  request.metrics = metrics;
  request.options.kind = parse_paired_test_kind(test);
  request.options.samples = samples;
  request.options.seed = seed;
  request.options.threads = threads;
  request.baseline = baseline;
  request.clusters = clusters;
  try {
    request.correction = stats::parse_rank_correction(correction);
  } catch (const std::invalid_argument& error) {
    throw UsageError(std::string("significance: ") + error.what());
  }
  request.alpha = alpha;
  request.skip_invalid = skip_invalid;
  nlohmann::ordered_json json;
  {
    py::gil_scoped_release release;
    std::lock_guard lock(e.mutex);
    json = report::significance_document(run_significance(request, e.engine));
  }
  return to_python(json);
}

std::string render(const std::string& json, const std::string& format, bool unicode) {
  AuditReport report = report::from_json(json);
  if (format == "text") return report::to_text(report, unicode);
  if (format == "markdown" || format == "md") return report::to_markdown(report);
  if (format == "html") return report::to_html(report);
  if (format == "json") return report::to_json(report);
  throw UsageError("unknown report format '" + format + "' (text, markdown, html, json)");
}

}  // namespace

void bind_audit(py::module_& m, EngineClass& engine) {
  // Keyword arguments only, with the command line's defaults (probity audit --help).
  const AuditOptions d;
  engine.def("audit", &audit, py::arg("data"), py::arg("metrics"), py::kw_only(),
             py::arg("python_metrics") = py::list(), py::arg("degradations") = d.degradations,
             py::arg("manipulations") = d.manipulations, py::arg("suite") = d.suite,
             py::arg("dimensions") = d.dimensions, py::arg("sample") = py::none(),
             py::arg("seed") = d.seed, py::arg("bootstrap") = d.bootstrap,
             py::arg("min_applied") = d.min_applied, py::arg("alpha") = d.alpha,
             py::arg("margin") = d.margin, py::arg("test") = std::string(paired_test_name(d.test)),
             py::arg("confidence") = d.confidence, py::arg("out") = "",
             py::arg("threads") = d.threads, py::arg("skip_invalid") = d.skip_invalid,
             py::arg("run_id") = "", py::arg("progress") = py::none(), py::arg("write") = true);
  const AttackOptions a;
  py::class_<AttackOptions>(m, "AttackOptions",
                            "The options of `probity attack` (the library's defaults)")
      .def(py::init<>())
      .def_readwrite("strategy", &AttackOptions::strategy)
      .def_readwrite("budget", &AttackOptions::budget)
      .def_readwrite("steps", &AttackOptions::steps)
      .def_readwrite("beam", &AttackOptions::beam)
      .def_readwrite("proposals", &AttackOptions::proposals)
      .def_readwrite("guard", &AttackOptions::guard)
      .def_readwrite("families", &AttackOptions::families)
      .def_readwrite("include_content", &AttackOptions::include_content)
      .def_readwrite("delta", &AttackOptions::delta)
      .def_readwrite("program_length", &AttackOptions::program_length)
      .def_readwrite("programs", &AttackOptions::programs)
      .def_readwrite("split", &AttackOptions::split)
      .def_readwrite("alpha", &AttackOptions::alpha)
      .def_readwrite("margin", &AttackOptions::margin)
      .def_readwrite("bootstrap", &AttackOptions::bootstrap)
      .def_readwrite("confidence", &AttackOptions::confidence)
      .def_readwrite("min_applied", &AttackOptions::min_applied)
      .def_readwrite("seed", &AttackOptions::seed)
      .def_readwrite("threads", &AttackOptions::threads)
      .def_readwrite("examples", &AttackOptions::examples)
      .def_readwrite("tolerance", &AttackOptions::tolerance)
      .def_readwrite("phrase_words", &AttackOptions::phrase_words)
      .def_readwrite("phrase_candidates", &AttackOptions::phrase_candidates)
      .def_readwrite("suffix_words", &AttackOptions::suffix_words)
      .def_readwrite("suffix_iterations", &AttackOptions::suffix_iterations)
      .def_readwrite("transfer_endpoint", &AttackOptions::transfer_endpoint)
      .def_readwrite("fit", &AttackOptions::fit);
  engine.def("attack", &attack, py::arg("data"), py::arg("metrics"), py::kw_only(),
             py::arg("python_metrics") = py::list(), py::arg("options") = a, py::arg("sample") = 0,
             py::arg("skip_invalid") = false, py::arg("lang") = "", py::arg("batch") = 256,
             py::arg("run_id") = "");
  const SignificanceRequest sr;  // the library's defaults, as the command line's
  engine.def("significance", &significance, py::arg("data"), py::arg("metrics") = sr.metrics,
             py::kw_only(), py::arg("test") = std::string(paired_test_kind_name(sr.options.kind)),
             py::arg("samples") = sr.options.samples, py::arg("seed") = sr.options.seed,
             py::arg("baseline") = sr.baseline, py::arg("clusters") = sr.clusters,
             py::arg("correction") = std::string(stats::rank_correction_name(sr.correction)),
             py::arg("alpha") = sr.alpha, py::arg("threads") = sr.options.threads,
             py::arg("skip_invalid") = sr.skip_invalid);
  m.def("render_report", &render, py::arg("json"), py::arg("format"), py::arg("unicode") = true);
  py::class_<PowerRequest>(m, "PowerRequest", "The request of `probity power`")
      .def(py::init<>())
      .def_readwrite("effect", &PowerRequest::effect)
      .def_readwrite("n", &PowerRequest::n)
      .def_readwrite("power", &PowerRequest::power)
      .def_readwrite("alpha", &PowerRequest::alpha)
      .def_property(
          "alternative",
          [](const PowerRequest& r) { return std::string(alternative_name(r.alternative)); },
          [](PowerRequest& r, const std::string& name) {
            for (auto alt : {stats::Alternative::kGreater, stats::Alternative::kTwoSided,
                             stats::Alternative::kLess})
              if (alternative_name(alt) == name) {
                r.alternative = alt;
                return;
              }
            throw UsageError("power: alternative '" + name + "' (greater, two-sided, less)");
          })
      .def_readwrite("sd_delta", &PowerRequest::sd_delta)
      .def_readwrite("pooled_sd", &PowerRequest::pooled_sd)
      .def_readwrite("r1", &PowerRequest::r1)
      .def_readwrite("r2", &PowerRequest::r2);
  m.def("power", &power, py::arg("request"), py::arg("report_json") = "");
  py::class_<WmtRankRequest>(m, "WmtRankRequest", "The request of `probity rank --protocol`")
      .def(py::init<>())
      .def_property(
          "protocol",
          [](const WmtRankRequest& r) { return std::string(wmt_protocol_name(r.protocol)); },
          [](WmtRankRequest& r, const std::string& name) {
            try {
              r.protocol = parse_wmt_protocol(name);
            } catch (const std::invalid_argument& e) {
              throw UsageError(e.what());
            }
          })
      .def_readwrite("test_set_dir", &WmtRankRequest::test_set_dir)
      .def_readwrite("lps", &WmtRankRequest::lps)
      .def_readwrite("extra", &WmtRankRequest::extra)
      .def_readwrite("primary_only", &WmtRankRequest::primary_only)
      .def_readwrite("permutations", &WmtRankRequest::permutations)
      .def_readwrite("seed", &WmtRankRequest::seed)
      .def_readwrite("alpha", &WmtRankRequest::alpha)
      .def_readwrite("mtme_stream", &WmtRankRequest::mtme_stream)
      .def_readwrite("mqm_weights", &WmtRankRequest::mqm_weights)
      .def_readwrite("mqm_ratings", &WmtRankRequest::mqm_ratings)
      .def_readwrite("threads", &WmtRankRequest::threads);
  m.def("wmt_rank", &wmt_rank, py::arg("request"));
  m.def(
      "write_report",
      [](const std::string& json, const std::string& dir) {
        report::write_all(report::from_json(json), dir);
      },
      py::arg("json"), py::arg("dir"));
}

}  // namespace probity::python
