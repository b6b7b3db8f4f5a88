// The `_probity` extension module: exceptions, shared helpers and the registration of every
// binding. The public, documented API is the `probity` package that wraps this module.
#include <pybind11/pybind11.h>

#include <cstring>

#include "common.hpp"
#include "llm/prompts.hpp"
#include "probity/error.hpp"
#include "probity/llm.hpp"
#include "probity/metric.hpp"

namespace probity::python {

std::vector<double> to_vector(const DoubleArray& a, const char* what) {
  if (a.ndim() != 1)
    throw py::value_error(std::string(what) + ": expected a 1-D sequence of numbers, got " +
                          std::to_string(a.ndim()) + " dimension(s)");
  return std::vector<double>(a.data(), a.data() + a.size());
}

py::array_t<double> to_array(std::span<const double> v) {
  py::array_t<double> out(static_cast<py::ssize_t>(v.size()));
  if (!v.empty()) std::memcpy(out.mutable_data(), v.data(), v.size() * sizeof(double));
  return out;
}

void check_signals() {
  py::gil_scoped_acquire gil;
  if (PyErr_CheckSignals() != 0) throw py::error_already_set();
}

namespace {

// Creates an exception class `_probity.<name>` deriving from `base` (ValueError), with class
// attributes that the translator overrides per instance.
py::object make_exception(py::module_& m, const char* name, const char* doc,
                          const std::vector<const char*>& attributes,
                          PyObject* base = PyExc_ValueError) {
  py::dict dict;
  for (const char* a : attributes) dict[a] = py::none();
  std::string qualified = std::string("probity.") + name;
  PyObject* type = PyErr_NewExceptionWithDoc(qualified.c_str(), doc, base, dict.ptr());
  if (!type) throw py::error_already_set();
  py::object cls = py::reinterpret_steal<py::object>(type);
  m.attr(name) = cls;
  return cls;
}

}  // namespace

}  // namespace probity::python

PYBIND11_MODULE(_probity, m) {
  namespace py = pybind11;
  using namespace probity::python;
  m.doc() = "Bindings of the probity C++ engine; use the `probity` package instead.";
  m.attr("__version__") = probity::version();

  // Leaked on purpose: the translator may run until interpreter shutdown.
  static py::handle input_error =
      make_exception(m, "InputError",
                     "Invalid input data: the message names the file, line and field, which are "
                     "also the attributes `file`, `line` and `field` (`detail` is the message "
                     "without the location).",
                     {"file", "line", "field", "detail"})
          .release();
  static py::handle usage_error =
      make_exception(m, "UsageError",
                     "A mistake in how probity was called: an unknown metric, option or "
                     "strategy, a bad option value.",
                     {})
          .release();
  static py::handle output_error =
      make_exception(m, "OutputError",
                     "An output file could not be written completely (a full disk, a read-only "
                     "directory); `path` names it. What the file held before is unchanged.",
                     {"path"}, PyExc_OSError)
          .release();
  static py::handle batch_pending =
      make_exception(m, "BatchPending",
                     "batch=\"file\" wrote the requests the run needs to batch files: the "
                     "message names them and the commands that answer and import them; the "
                     "same call then goes on from the cache.",
                     {}, PyExc_RuntimeError)
          .release();
  static py::handle budget_exceeded =
      make_exception(m, "BudgetExceeded",
                     "A batch was not submitted: its estimated cost would take the session "
                     "past budget_usd.",
                     {}, PyExc_RuntimeError)
          .release();
  py::register_exception_translator([](std::exception_ptr p) {
    try {
      if (p) std::rethrow_exception(p);
    } catch (const probity::InputError& e) {
      py::object exc = py::reinterpret_borrow<py::object>(input_error)(e.what());
      exc.attr("file") = e.file();
      exc.attr("line") = e.line();
      exc.attr("field") = e.field();
      exc.attr("detail") = e.detail();
      PyErr_SetObject(input_error.ptr(), exc.ptr());
    } catch (const probity::UsageError& e) {
      PyErr_SetString(usage_error.ptr(), e.what());
    } catch (const probity::llm::BatchPending& e) {
      PyErr_SetString(batch_pending.ptr(), e.what());
    } catch (const probity::llm::BudgetExceeded& e) {
      PyErr_SetString(budget_exceeded.ptr(), e.what());
    } catch (const probity::llm::Interrupted&) {
      // The interrupt check already raised KeyboardInterrupt; keep it.
      if (!PyErr_Occurred()) PyErr_SetNone(PyExc_KeyboardInterrupt);
    } catch (const probity::OutputError& e) {
      py::object exc = py::reinterpret_borrow<py::object>(output_error)(e.what());
      exc.attr("path") = e.path();
      PyErr_SetObject(output_error.ptr(), exc.ptr());
    }
  });

  EngineClass engine(m, "Engine",
                     "The C++ engine: LLM session, fitted predictors and registries; "
                     "probity.Engine wraps it.");
  engine.def(py::init<>());
  m.def("prompts_dir", &probity::llm::default_prompts_dir,
        "Where the LLM prompt templates are read from ($PROBITY_PROMPTS_DIR, the installed "
        "package's prompts/, or the source tree's).");
  bind_data(m);
  bind_scoring(m, engine);
  bind_stats(m);
  bind_audit(m, engine);
  bind_llm(engine);
  bind_cache(m);
}
