// The audit (`probity audit`) with registry metrics and Python callables, and the report
// renderings.
#include "common.hpp"
#include "probity/audit.hpp"
#include "probity/error.hpp"
#include "probity/report.hpp"
#include "python_metric.hpp"

namespace probity::python {

namespace {

// Runs the audit and returns report.json's text; writes the report files into `out` when
// `write` is set. `extra` holds (record name, signature, callable) of Python metrics.
std::string audit(const std::vector<std::string>& data, const std::vector<std::string>& metrics,
                  const std::vector<py::tuple>& extra, const std::vector<std::string>& degradations,
                  const std::vector<std::string>& manipulations, std::size_t sample,
                  std::uint64_t seed, std::size_t bootstrap, double alpha, double confidence,
                  const std::string& out, unsigned threads, bool skip_invalid,
                  const py::object& progress, bool write) {
  AuditOptions opts;
  opts.data = data;
  opts.metrics = metrics;
  opts.degradations = degradations;
  opts.manipulations = manipulations;
  opts.sample = sample;
  opts.seed = seed;
  opts.bootstrap = bootstrap;
  opts.alpha = alpha;
  opts.confidence = confidence;
  opts.out_dir = out;
  opts.threads = threads;
  opts.skip_invalid = skip_invalid;
  for (const auto& e : extra)
    opts.extra_metrics.push_back(
        python_extra_metric(e[2], e[0].cast<std::string>(), e[1].cast<std::string>()));
  // Called between chunks of work on this thread: Ctrl-C and the caller's progress function.
  opts.progress = [&progress](std::string_view stage, std::size_t done, std::size_t total) {
    py::gil_scoped_acquire gil;
    if (PyErr_CheckSignals() != 0) throw py::error_already_set();
    if (!progress.is_none()) progress(std::string(stage), done, total);
  };
  std::string json;
  {
    py::gil_scoped_release release;
    std::lock_guard lock(engine_mutex());
    AuditReport report = run_audit(opts);
    if (write) report::write_all(report, out);
    json = report::to_json(report);
  }
  return json;
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

void bind_audit(py::module_& m) {
  m.def("audit", &audit, py::arg("data"), py::arg("metrics"), py::arg("extra"),
        py::arg("degradations"), py::arg("manipulations"), py::arg("sample"), py::arg("seed"),
        py::arg("bootstrap"), py::arg("alpha"), py::arg("confidence"), py::arg("out"),
        py::arg("threads"), py::arg("skip_invalid"), py::arg("progress"), py::arg("write"));
  m.def("render_report", &render, py::arg("json"), py::arg("format"), py::arg("unicode") = true);
  m.def(
      "write_report",
      [](const std::string& json, const std::string& dir) {
        report::write_all(report::from_json(json), dir);
      },
      py::arg("json"), py::arg("dir"));
}

}  // namespace probity::python
