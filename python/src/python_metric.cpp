#include "python_metric.hpp"

#include <cmath>

namespace probity::python {

std::vector<double> PythonScorer::call(std::span<const MetricInput> inputs) const {
  py::gil_scoped_acquire gil;
  py::list candidates, references, sources;
  for (const auto& in : inputs) {
    candidates.append(py::str(in.candidate.data(), in.candidate.size()));
    sources.append(py::str(in.source.data(), in.source.size()));
    py::list refs;
    for (const auto& r : in.references) refs.append(py::str(r.data(), r.size()));
    references.append(refs);
  }
  py::object result = fn_(candidates, references, sources);
  py::array values = py::module_::import("numpy").attr("asarray")(result, "float64");
  if (values.ndim() != 1 || static_cast<std::size_t>(values.size()) != inputs.size())
    throw py::value_error("Python metric '" + name_ + "' returned " +
                          (values.ndim() == 1
                               ? std::to_string(values.size()) + " values"
                               : "an array of " + std::to_string(values.ndim()) + " dimensions") +
                          " for " + std::to_string(inputs.size()) +
                          " candidates (expected one number per candidate)");
  auto view = values.cast<py::array_t<double, py::array::c_style | py::array::forcecast>>();
  return std::vector<double>(view.data(), view.data() + view.size());
}

std::string PythonScorer::key(const MetricInput& input) {
  std::string k(input.candidate);
  k += '\x1f';
  k += input.source;
  for (const auto& r : input.references) {
    k += '\x1e';
    k += r;
  }
  return k;
}

void PythonScorer::prefetch(std::span<const MetricInput> inputs) {
  auto values = call(inputs);
  std::lock_guard lock(mutex_);
  memo_.clear();
  for (std::size_t i = 0; i < inputs.size(); ++i) memo_[key(inputs[i])] = values[i];
}

double PythonScorer::lookup(const MetricInput& input) {
  {
    std::lock_guard lock(mutex_);
    if (auto it = memo_.find(key(input)); it != memo_.end()) return it->second;
  }
  return call(std::span<const MetricInput>(&input, 1))[0];
}

MetricSelection python_metric_selection(py::handle fn, const std::string& spec,
                                        const std::string& signature, std::size_t batch) {
  MetricSelection sel;
  sel.spec = spec;
  sel.parsed = MetricSpec::parse(spec);
  sel.metric = std::make_unique<PythonMetric>(spec, signature,
                                              std::make_shared<PythonScorer>(fn, spec), batch);
  sel.primary = sel.metric->primary_part();
  sel.parts = {sel.primary};
  return sel;
}

AuditOptions::ExtraMetric python_extra_metric(py::handle fn, const std::string& spec,
                                              const std::string& signature) {
  auto scorer = std::make_shared<PythonScorer>(fn, spec);
  AuditOptions::ExtraMetric e;
  e.spec = spec;
  e.make = [scorer, spec, signature] {
    return std::make_unique<PythonMetric>(spec, signature, scorer);
  };
  e.prefetch = [scorer](std::span<const MetricInput> inputs) { scorer->prefetch(inputs); };
  return e;
}

}  // namespace probity::python
