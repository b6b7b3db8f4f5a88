// Datasets: loading (JSONL or CSV, as the CLI), read-only access to tasks and candidates, and
// the items / human ratings views the scoring and statistics functions are aligned with.
#include <pybind11/stl_bind.h>

#include <algorithm>

#include "common.hpp"
#include "probity/audit.hpp"
#include "probity/error.hpp"
#include "probity/inputs.hpp"
#include "probity/scoring.hpp"

namespace probity::python {

namespace {

std::string join(const std::vector<std::string>& v) {
  std::string out;
  for (const auto& s : v) out += (out.empty() ? "" : ", ") + s;
  return out;
}

// The candidate at each item of `all_items(ds)`.
template <class Fn>
void for_each_item(const Dataset& ds, Fn&& fn) {
  for (const auto& t : ds.tasks)
    for (const auto& c : t.candidates) fn(t, c);
}

}  // namespace

void bind_data(py::module_& m) {
  py::class_<Reference>(m, "Reference", "A reference text of a task.")
      .def_readonly("id", &Reference::id)
      .def_readonly("text", &Reference::text)
      .def("__repr__", [](const Reference& r) {
        return "<Reference " + py::repr(py::str(r.id)).cast<std::string>() + ">";
      });

  py::class_<Candidate>(m, "Candidate", "A generated text with its human ratings.")
      .def_readonly("id", &Candidate::id)
      .def_readonly("system", &Candidate::system)
      .def_readonly("text", &Candidate::text)
      .def_readonly("human", &Candidate::human,
                    "Per-dimension annotator ratings, in annotator order.")
      .def("human_mean", &Candidate::human_mean, py::arg("dimension"),
           "Mean annotator rating of one dimension; NaN when the dimension is absent.")
      .def("__repr__", [](const Candidate& c) {
        return "<Candidate " + py::repr(py::str(c.id)).cast<std::string>() +
               " system=" + py::repr(py::str(c.system)).cast<std::string>() + ">";
      });

  py::class_<Preference>(m, "Preference", "A pairwise preference between two candidates.")
      .def_readonly("a", &Preference::a)
      .def_readonly("b", &Preference::b)
      .def_readonly("preferred", &Preference::preferred);

  py::bind_vector<std::vector<Reference>>(m, "ReferenceList", py::module_local(false));
  py::bind_vector<std::vector<Candidate>>(m, "CandidateList", py::module_local(false));

  py::class_<Task>(m, "Task", "One task: a source, its references and the candidates to score.")
      .def_readonly("task_id", &Task::task_id)
      .def_readonly("group", &Task::group)
      .def_readonly("source", &Task::source)
      .def_readonly("lang", &Task::lang,
                    "Language the dataset gives for the task's texts ('' when it does not say).")
      .def_readonly("references", &Task::references)
      .def_readonly("candidates", &Task::candidates)
      .def_readonly("pairs", &Task::pairs)
      .def_readonly("line", &Task::line, "1-based line (JSONL) or first row (CSV) of the task.")
      .def("__repr__", [](const Task& t) {
        return "<Task " + py::repr(py::str(t.task_id)).cast<std::string>() + ": " +
               std::to_string(t.references.size()) + " reference(s), " +
               std::to_string(t.candidates.size()) + " candidate(s)>";
      });
  py::bind_vector<std::vector<Task>>(m, "TaskList", py::module_local(false));

  py::class_<SkipRecord>(m, "SkipRecord", "An invalid item skipped under skip_invalid=True.")
      .def_readonly("file", &SkipRecord::file)
      .def_readonly("line", &SkipRecord::line)
      .def_readonly("field", &SkipRecord::field)
      .def_readonly("message", &SkipRecord::message)
      .def("__repr__", [](const SkipRecord& s) {
        return "<SkipRecord " + s.file + ":" + std::to_string(s.line) +
               (s.field.empty() ? "" : " field '" + s.field + "'") + ": " + s.message + ">";
      });

  py::class_<Dataset>(m, "Dataset",
                      "A dataset loaded with probity.load_dataset: tasks with references and "
                      "rated candidates. Per-item views (items, texts, references, systems, "
                      "human) follow the order of the candidates in the file, which is the order "
                      "of every per-item array probity returns.")
      .def_readonly("path", &Dataset::path)
      .def_readonly("tasks", &Dataset::tasks)
      .def_readonly("skipped", &Dataset::skipped)
      .def("num_candidates", &Dataset::num_candidates, "Number of candidates (items).")
      .def("dimensions", &Dataset::dimensions,
           "Sorted names of the human rating dimensions over all candidates.")
      .def("__len__", &Dataset::num_candidates)
      .def(
          "items",
          [](const Dataset& ds) {
            py::list out;
            for_each_item(ds, [&](const Task& t, const Candidate& c) {
              out.append(py::make_tuple(t.task_id, c.id));
            });
            return out;
          },
          "(task_id, candidate_id) of every item, in file order.")
      .def(
          "texts",
          [](const Dataset& ds) {
            py::list out;
            for_each_item(ds, [&](const Task&, const Candidate& c) { out.append(c.text); });
            return out;
          },
          "Candidate text of every item.")
      .def(
          "references",
          [](const Dataset& ds) {
            py::list out;
            for_each_item(ds, [&](const Task& t, const Candidate&) {
              py::list refs;
              for (const auto& r : t.references) refs.append(r.text);
              out.append(refs);
            });
            return out;
          },
          "Reference texts of every item's task.")
      .def(
          "systems",
          [](const Dataset& ds) {
            py::list out;
            for_each_item(ds, [&](const Task&, const Candidate& c) { out.append(c.system); });
            return out;
          },
          "System name of every item.")
      .def(
          "human",
          [](const Dataset& ds, const std::string& dimension) {
            auto dims = ds.dimensions();
            if (std::find(dims.begin(), dims.end(), dimension) == dims.end())
              throw UsageError("dimension '" + dimension + "' is not in '" + ds.path +
                               "' (dimensions: " + join(dims) + ")");
            auto items = all_items(ds);
            auto h = human_matrix(ds, items, {dimension});
            return to_array(h[0]);
          },
          py::arg("dimension"),
          "Annotator-mean rating of one dimension for every item (NaN where unrated), as a "
          "NumPy array aligned with items().")
      .def("__repr__", [](const Dataset& ds) {
        return "<probity.Dataset " + py::repr(py::str(ds.path)).cast<std::string>() + ": " +
               std::to_string(ds.tasks.size()) + " tasks, " + std::to_string(ds.num_candidates()) +
               " candidates, dimensions [" + join(ds.dimensions()) + "]>";
      });

  // Flat records (probity.Dataset.from_records / from_pandas): JSONL text, one record per line,
  // read through the column map given field by field (names may hold any character).
  m.def(
      "parse_records",
      [](const std::string& jsonl, const std::string& name, const std::string& task,
         const std::string& candidate, const std::string& candidate_id, const std::string& system,
         const std::string& source, const std::string& group,
         const std::vector<std::string>& references,
         const std::vector<std::pair<std::string, std::string>>& human, bool skip_invalid) {
        ColumnMap map;
        map.task = task;
        map.candidate = candidate;
        map.candidate_id = candidate_id;
        map.system = system;
        map.source = source;
        map.group = group;
        map.references = references;
        map.human = human;
        if (map.candidate.empty()) throw UsageError("candidate: name the column of the texts");
        py::gil_scoped_release release;
        return parse_mapped(jsonl, DataFormat::Jsonl, map, name, ReadOptions{skip_invalid});
      },
      py::arg("jsonl"), py::arg("name"), py::arg("task"), py::arg("candidate"),
      py::arg("candidate_id"), py::arg("system"), py::arg("source"), py::arg("group"),
      py::arg("references"), py::arg("human"), py::arg("skip_invalid") = false);

  m.def(
      "load_input",
      [](const std::string& path, const std::string& format, const std::string& map,
         bool skip_invalid) {
        InputSpec spec;
        spec.format = parse_data_format(format);
        if (!map.empty()) spec.map = read_column_map(map);
        py::gil_scoped_release release;
        Dataset ds = load_input(path, spec, ReadOptions{skip_invalid});
        // Not the file as load_dataset reads it: audit writes it out in the task format.
        if (!map.empty() || format != "auto") ds.path = "<" + path + ">";
        return ds;
      },
      py::arg("path"), py::arg("format"), py::arg("map"), py::arg("skip_invalid") = false);

  m.def(
      "load_dataset",
      [](const std::string& path, bool skip_invalid) {
        py::gil_scoped_release release;
        return load_dataset(path, ReadOptions{skip_invalid});
      },
      py::arg("path"), py::arg("skip_invalid") = false);
}

}  // namespace probity::python
