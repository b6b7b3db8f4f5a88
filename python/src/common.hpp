#pragma once
// Shared pieces of the `_probity` extension: NumPy conversions, the GIL and Ctrl-C discipline of
// long calls, and the registration functions of each binding file.
#include <pybind11/functional.h>
#include <pybind11/numpy.h>
#include <pybind11/pybind11.h>
#include <pybind11/stl.h>

#include <mutex>
#include <nlohmann/json.hpp>
#include <span>
#include <string>
#include <vector>

#include "probity/dataset.hpp"
#include "probity/engine.hpp"

// Task lists are exposed by reference (bind_vector), not copied into Python lists on access.
PYBIND11_MAKE_OPAQUE(std::vector<probity::Task>)
PYBIND11_MAKE_OPAQUE(std::vector<probity::Candidate>)
PYBIND11_MAKE_OPAQUE(std::vector<probity::Reference>)

namespace probity::python {

namespace py = pybind11;

// Any sequence of numbers (list, tuple, NumPy array of any numeric dtype) as doubles.
using DoubleArray = py::array_t<double, py::array::c_style | py::array::forcecast>;

// A 1-D sequence as a vector; `what` names the argument in the ValueError.
std::vector<double> to_vector(const DoubleArray& a, const char* what);
// A copy of `v` as a new 1-D float64 NumPy array.
py::array_t<double> to_array(std::span<const double> v);

// Raises the pending Python signal exception (KeyboardInterrupt on Ctrl-C) as a C++ exception.
// Called with the GIL released, between chunks of work; takes the GIL briefly.
void check_signals();

// A probity.Engine: the C++ engine (LLM session, predictors, registries) and the lock that
// serialises calls that fit or score with it (its predictors are shared by its metrics and
// refitted per dataset). Take the lock only after releasing the GIL. Recursive so that a Python
// metric may itself call probity with the same engine. Two engines run in parallel.
struct PyEngine {
  Engine engine;
  std::recursive_mutex mutex;
};
using EngineClass = py::class_<PyEngine>;

// A JSON value (report.json, the option tables) as Python objects: dict, list, str, int, float,
// bool, None.
template <class Json>
py::object to_python(const Json& j) {
  switch (j.type()) {
    case Json::value_t::object: {
      py::dict d;
      for (const auto& [k, v] : j.items()) d[py::str(k)] = to_python(v);
      return d;
    }
    case Json::value_t::array: {
      py::list l;
      for (const auto& v : j) l.append(to_python(v));
      return l;
    }
    case Json::value_t::string:
      // Invalid UTF-8 in a text field (a corrupt candidate) is replaced, as in report.json.
      return py::reinterpret_steal<py::object>(PyUnicode_DecodeUTF8(
          j.template get_ref<const std::string&>().data(),
          static_cast<Py_ssize_t>(j.template get_ref<const std::string&>().size()), "replace"));
    case Json::value_t::boolean:
      return py::bool_(j.template get<bool>());
    case Json::value_t::number_integer:
      return py::int_(j.template get<std::int64_t>());
    case Json::value_t::number_unsigned:
      return py::int_(j.template get<std::uint64_t>());
    case Json::value_t::number_float:
      return py::float_(j.template get<double>());
    default:
      return py::none();
  }
}

// Items are processed in chunks of this many between signal checks.
constexpr std::size_t kChunk = 256;

void bind_data(py::module_& m);
void bind_scoring(py::module_& m, EngineClass& engine);
void bind_stats(py::module_& m);
void bind_audit(py::module_& m, EngineClass& engine);
void bind_llm(EngineClass& engine);
void bind_cache(py::module_& m);  // probity cache: stats, batches, import, export, merge

}  // namespace probity::python
