// Scoring: the metric registry, scoring of datasets (the numbers of `probity score`) and of
// in-memory texts, and the perturbation strategies.
#include <fmt/format.h>
#include <xxhash.h>

#include <optional>
#include <unordered_map>

#include "common.hpp"
#include "metrics/option_json.hpp"
#include "perturb/llm_strategies.hpp"
#include "probity/error.hpp"
#include "probity/metric.hpp"
#include "probity/perturb.hpp"
#include "probity/score_run.hpp"
#include "probity/scoring.hpp"
#include "probity/significance.hpp"
#include "util/parallel.hpp"

namespace probity::metrics::detail {
// src/metrics/bleu.cpp: [score, bp, precisions...] of sacreBLEU's BLEU.compute_bleu.
std::vector<double> bleu_breakdown(std::span<const double> stats, std::size_t max_order,
                                   std::string_view smooth, double smooth_value,
                                   bool effective_order);
}  // namespace probity::metrics::detail

namespace probity::python {

namespace {

// Statistics of every metric for `items`, computed chunk by chunk so that Ctrl-C is noticed
// and progress reported between chunks. Metrics are fitted on the whole dataset first, as
// compute_stats does, so the numbers equal a single compute_stats call. Called without the GIL.
// `texts`, when not empty, replaces each item's candidate text (as in compute_stats);
// `negatives`, when not empty, replaces the sampled negative references of each item.
std::vector<MetricStats> score_items(const Dataset& ds, std::span<const ItemRef> items,
                                     std::span<MetricSelection> metrics, unsigned threads,
                                     const py::object& progress,
                                     std::span<const std::string_view> texts = {},
                                     const std::vector<std::vector<std::string>>& negatives = {}) {
  for (auto& m : metrics) m.metric->fit(ds.tasks);
  std::vector<MetricStats> out(metrics.size());
  for (std::size_t m = 0; m < metrics.size(); ++m) {
    out[m].num_stats = metrics[m].metric->num_stats();
    out[m].stats.assign(items.size() * out[m].num_stats, 0.0);
  }
  for (std::size_t begin = 0; begin < items.size(); begin += kChunk) {
    const std::size_t end = std::min(items.size(), begin + kChunk);
    const auto chunk_texts = texts.empty() ? texts : texts.subspan(begin, end - begin);
    if (negatives.empty()) {
      ScoreOptions so;
      so.threads = threads;
      so.fit = false;
      auto chunk = compute_stats(ds, items.subspan(begin, end - begin), metrics, so, chunk_texts);
      for (std::size_t m = 0; m < metrics.size(); ++m)
        std::copy(chunk[m].stats.begin(), chunk[m].stats.end(),
                  out[m].stats.begin() + static_cast<std::ptrdiff_t>(begin * out[m].num_stats));
    } else {
      util::parallel_for(end - begin, threads, [&](std::size_t j) {
        const std::size_t i = begin + j;
        const Task& task = ds.tasks[items[i].task];
        MetricInput input;
        set_input(
            input, task,
            texts.empty() ? std::string_view(task.candidates[items[i].candidate].text) : texts[i]);
        for (const auto& n : negatives[i]) input.negatives.push_back(n);
        for (std::size_t m = 0; m < metrics.size(); ++m) {
          auto row =
              std::span<double>(out[m].stats).subspan(i * out[m].num_stats, out[m].num_stats);
          metrics[m].metric->item_stats(input, row);
        }
      });
    }
    py::gil_scoped_acquire gil;
    if (PyErr_CheckSignals() != 0) throw py::error_already_set();
    if (!progress.is_none()) progress(end, items.size());
  }
  return out;
}

// The UTF-8 bytes of a str (or the bytes of a bytes object), valid while the object lives.
std::string_view text_view(const py::handle& h, const char* what) {
  if (PyUnicode_Check(h.ptr())) {
    Py_ssize_t n = 0;
    const char* p = PyUnicode_AsUTF8AndSize(h.ptr(), &n);
    if (!p) throw py::error_already_set();
    return {p, static_cast<std::size_t>(n)};
  }
  if (PyBytes_Check(h.ptr())) {
    char* p = nullptr;
    Py_ssize_t n = 0;
    if (PyBytes_AsStringAndSize(h.ptr(), &p, &n) != 0) throw py::error_already_set();
    return {p, static_cast<std::size_t>(n)};
  }
  throw py::type_error(
      fmt::format("{}: expected str, got {}", what, py::str(py::type::of(h)).cast<std::string>()));
}

// Sentence scores of one selected part for every item.
std::vector<double> part_values(const MetricSelection& sel, const MetricStats& stats,
                                std::size_t part, std::size_t n) {
  std::vector<double> parts(sel.metric->parts().size()), values(n);
  for (std::size_t i = 0; i < n; ++i) {
    sel.metric->sentence_score(stats.row(i), parts);
    values[i] = parts[part];
  }
  return values;
}

// Per metric, (record name, signature, values) of every selected part.
py::list score_dataset(PyEngine& e, const Dataset& ds, const std::vector<std::string>& specs,
                       unsigned threads, const py::object& progress) {
  std::vector<MetricSelection> metrics;
  const auto items = all_items(ds);
  std::vector<MetricStats> stats;
  {
    py::gil_scoped_release release;
    std::lock_guard lock(e.mutex);
    for (const auto& s : specs) metrics.push_back(select_metric(s, e.engine));
    check_distinct_names(metrics);
    stats = score_items(ds, items, metrics, threads, progress);
  }
  py::list out;
  for (std::size_t m = 0; m < metrics.size(); ++m) {
    const std::string sig = metrics[m].metric->signature();
    py::list records;
    for (std::size_t p : metrics[m].parts)
      records.append(py::make_tuple(metrics[m].record_name(p), sig,
                                    to_array(part_values(metrics[m], stats[m], p, items.size()))));
    out.append(records);
  }
  return out;
}

// The library's score run over a file (probity/score_run.hpp): a task-format JSONL file is read
// in chunks, as `probity score` reads it. Keeps each item's ids and each selected part's sentence
// scores; notices Ctrl-C and reports progress between chunks (done, items read so far).
class CollectingSink final : public ScoreSink {
 public:
  explicit CollectingSink(const py::object& progress) : progress_(progress) {}

  void begin(std::span<const MetricSelection> metrics) override {
    for (const auto& m : metrics) values_.emplace_back(m.parts.size());
  }
  void scored(const ScoredChunk& chunk) override {
    std::vector<double> parts;
    for (const auto& it : chunk.items) {
      const Task& task = chunk.tasks.tasks[it.task];
      items_.emplace_back(task.task_id, task.candidates[it.candidate].id);
    }
    for (std::size_t m = 0; m < chunk.metrics.size(); ++m) {
      const MetricSelection& sel = chunk.metrics[m];
      parts.assign(sel.metric->parts().size(), 0.0);
      for (std::size_t i = 0; i < chunk.items.size(); ++i) {
        sel.metric->sentence_score(chunk.stats[m].row(i), parts);
        for (std::size_t k = 0; k < sel.parts.size(); ++k)
          values_[m][k].push_back(parts[sel.parts[k]]);
      }
    }
    py::gil_scoped_acquire gil;
    if (PyErr_CheckSignals() != 0) throw py::error_already_set();
    if (!progress_.is_none()) progress_(items_.size(), items_.size());
  }

  std::vector<std::pair<std::string, std::string>> items_;
  std::vector<std::vector<std::vector<double>>> values_;  // [metric][selected part][item]

 private:
  const py::object& progress_;
};

// A dict of record name -> corpus score of one group.
py::dict corpus_dict(const ScoreRun& run, const CorpusGroup& group) {
  py::dict out;
  for (std::size_t m = 0; m < run.metrics.size(); ++m) {
    const auto parts = group.metrics[m].score();
    for (std::size_t p : run.metrics[m].parts)
      out[py::str(run.metrics[m].record_name(p))] = parts[p];
  }
  return out;
}

// (items, per metric (record name, signature, values) of every selected part, corpus scores
// {"pooled": {record: score}, "systems": {system: {record: score}}}).
py::tuple score_file(PyEngine& e, const std::string& path, const std::vector<std::string>& specs,
                     unsigned threads, bool skip_invalid, const py::object& progress) {
  ScoreRequest request;
  request.data.emplace_back(path);
  request.metrics = specs;
  request.threads = threads;
  request.skip_invalid = skip_invalid;
  CollectingSink sink(progress);
  std::optional<ScoreRun> run;
  {
    py::gil_scoped_release release;
    std::lock_guard lock(e.mutex);
    run.emplace(run_score(request, e.engine, sink));
    require_scored(*run, request);
  }
  py::list items;
  for (const auto& [task, candidate] : sink.items_) items.append(py::make_tuple(task, candidate));
  py::list records;
  for (std::size_t m = 0; m < run->metrics.size(); ++m) {
    const MetricSelection& sel = run->metrics[m];
    const std::string sig = sel.metric->signature();
    py::list parts;
    for (std::size_t k = 0; k < sel.parts.size(); ++k)
      parts.append(
          py::make_tuple(sel.record_name(sel.parts[k]), sig, to_array(sink.values_[m][k])));
    records.append(parts);
  }
  py::dict systems;
  for (const auto& g : run->systems) systems[py::str(g.system)] = corpus_dict(*run, g);
  py::dict corpus;
  corpus["pooled"] = corpus_dict(*run, run->pooled);
  corpus["systems"] = systems;
  return py::make_tuple(items, records, corpus);
}

// Scores texts given in memory. Candidates with the same source and references become one
// task (as in a dataset file), so that metrics fitted on the data (MI) and negative sampling see
// the same structure as they would in a file. The texts are read in place (views of the Python
// strings, which `keep` holds while the GIL is released); a task's references are copied once,
// and candidates only when the metric is fitted on the data.
py::dict score_texts(PyEngine& e, const std::string& spec, const py::sequence& candidates,
                     const py::sequence& references,
                     const std::optional<std::vector<std::string>>& sources,
                     const std::optional<std::vector<std::vector<std::string>>>& negatives,
                     unsigned threads) {
  const std::size_t n = candidates.size();
  if (references.size() != n)
    throw UsageError(fmt::format("references: {} entries for {} candidates", references.size(), n));
  if (sources && sources->size() != n)
    throw UsageError(fmt::format("sources: {} entries for {} candidates", sources->size(), n));
  if (negatives && negatives->size() != n)
    throw UsageError(fmt::format("negatives: {} entries for {} candidates", negatives->size(), n));
  MetricSelection sel;
  {
    py::gil_scoped_release release;
    std::lock_guard lock(e.mutex);
    sel = select_metric(spec, e.engine);
  }

  std::vector<py::object> keep;  // the strings viewed
  keep.reserve(2 * n);
  std::vector<std::string_view> texts(n);
  std::vector<std::string_view> refs;     // every item's references, one after another
  std::vector<std::size_t> ref_begin{0};  // item i has refs[ref_begin[i], ref_begin[i + 1])
  for (std::size_t i = 0; i < n; ++i) {
    py::object c = candidates[i];
    texts[i] = text_view(c, "candidates");
    keep.push_back(std::move(c));
    py::object r = references[i];
    if (PyUnicode_Check(r.ptr()) || PyBytes_Check(r.ptr())) {
      refs.push_back(text_view(r, "references"));
    } else {
      for (const auto& x : py::reinterpret_borrow<py::sequence>(r))
        refs.push_back(text_view(x, "references"));
    }
    keep.push_back(std::move(r));
    ref_begin.push_back(refs.size());
  }

  Dataset ds;
  ds.path = "<memory>";
  std::vector<ItemRef> items(n);
  const bool fitted = sel.metric->needs_fit();
  {
    py::gil_scoped_release release;
    // Tasks by a hash of the source and references (sizes and bytes); equal texts are checked.
    std::unordered_map<std::uint64_t, std::vector<std::size_t>> tasks_of;
    std::string key;
    for (std::size_t i = 0; i < n; ++i) {
      const std::string_view source = sources ? std::string_view((*sources)[i]) : "";
      const auto item_refs = std::span(refs).subspan(ref_begin[i], ref_begin[i + 1] - ref_begin[i]);
      if (item_refs.empty() && sel.metric->needs_references())
        throw UsageError(
            fmt::format("references[{}]: metric '{}' needs at least one reference", i, spec));
      // Fast path: the previous item's very strings (candidates of a task listed together).
      if (i > 0 && (!sources || (*sources)[i] == (*sources)[i - 1])) {
        const auto prev =
            std::span(refs).subspan(ref_begin[i - 1], ref_begin[i] - ref_begin[i - 1]);
        if (std::equal(item_refs.begin(), item_refs.end(), prev.begin(), prev.end(),
                       [](std::string_view a, std::string_view b) {
                         return a.data() == b.data() && a.size() == b.size();
                       })) {
          Task& t = ds.tasks[items[i - 1].task];
          items[i] = {items[i - 1].task, t.candidates.size()};
          Candidate& c = t.candidates.emplace_back();
          if (fitted) {
            c.id = fmt::format("c{}", i);
            c.text = std::string(texts[i]);
          }
          continue;
        }
      }
      std::uint64_t h = XXH3_64bits_withSeed(source.data(), source.size(), item_refs.size());
      for (std::string_view r : item_refs)
        h = XXH3_64bits_withSeed(r.data(), r.size(), h ^ r.size());
      auto& same_hash = tasks_of[h];
      std::size_t task = ds.tasks.size();
      for (std::size_t t : same_hash) {
        const Task& other = ds.tasks[t];
        if (other.source == source && other.references.size() == item_refs.size() &&
            std::equal(item_refs.begin(), item_refs.end(), other.references.begin(),
                       [](std::string_view a, const Reference& b) { return a == b.text; })) {
          task = t;
          break;
        }
      }
      if (task == ds.tasks.size()) {
        same_hash.push_back(task);
        Task t;
        t.task_id = fmt::format("t{}", task);
        t.source = std::string(source);
        // Empty references are scored as the reference tools score them (as the CLI does).
        for (std::size_t r = 0; r < item_refs.size(); ++r)
          t.references.push_back({fmt::format("ref{}", r), std::string(item_refs[r])});
        t.line = i + 1;
        ds.tasks.push_back(std::move(t));
      }
      Task& t = ds.tasks[task];
      items[i] = {task, t.candidates.size()};
      Candidate& c = t.candidates.emplace_back();
      if (fitted) {  // fit() reads candidates; scoring reads `texts`
        c.id = fmt::format("c{}", i);
        c.text = std::string(texts[i]);
      }
    }
  }

  std::vector<MetricStats> stats;
  const py::object no_progress = py::none();
  {
    py::gil_scoped_release release;
    std::lock_guard lock(e.mutex);
    stats = score_items(ds, items, std::span<MetricSelection>(&sel, 1), threads, no_progress, texts,
                        negatives ? *negatives : std::vector<std::vector<std::string>>{});
  }
  const auto corpus = corpus_score(*sel.metric, stats[0].stats);
  py::list names, values, corpus_values;
  std::size_t primary = 0;
  for (std::size_t k = 0; k < sel.parts.size(); ++k) {
    const std::size_t p = sel.parts[k];
    if (p == sel.primary) primary = k;
    names.append(sel.record_name(p));
    values.append(to_array(part_values(sel, stats[0], p, n)));
    corpus_values.append(corpus[p]);
  }
  py::dict out;
  out["names"] = names;
  out["values"] = values;
  out["corpus"] = corpus_values;
  out["primary"] = primary;
  out["signature"] = sel.metric->signature();
  // The item statistics, one row per candidate (paired_test reads them).
  const std::size_t k = stats[0].num_stats;
  py::array_t<double> raw({static_cast<py::ssize_t>(n), static_cast<py::ssize_t>(k)});
  std::copy(stats[0].stats.begin(), stats[0].stats.end(), raw.mutable_data());
  out["stats"] = raw;
  return out;
}

py::object optional_value(const std::optional<double>& v) {
  return v ? py::object(py::float_(*v)) : py::object(py::none());
}

// sacreBLEU's paired test of one metric on the systems' item statistics (score_texts "stats"),
// of the metric's primary part (or the part its name selects).
py::dict paired(PyEngine& e, const std::string& spec, const std::vector<DoubleArray>& systems,
                const std::string& test, std::size_t samples, std::uint64_t seed,
                unsigned threads) {
  PairedTestOptions options;
  options.kind = parse_paired_test_kind(test);
  options.samples = samples;
  options.seed = seed;
  options.threads = threads;
  std::vector<std::vector<double>> stats;
  for (const auto& a : systems) stats.push_back(to_vector(a, "stats"));
  PairedTestResult r;
  {
    py::gil_scoped_release release;
    MetricSelection sel;
    {
      std::lock_guard lock(e.mutex);
      sel = select_metric(spec, e.engine);
    }
    r = paired_test(*sel.metric, stats, options, sel.primary);
  }
  py::list rows;
  for (const auto& s : r.systems) {
    py::dict d;
    d["score"] = s.score;
    d["p_value"] = optional_value(s.p_value);
    d["mean"] = optional_value(s.mean);
    d["ci"] = optional_value(s.ci);
    rows.append(d);
  }
  py::dict out;
  out["signature"] = r.signature;
  out["samples"] = r.samples;
  out["aggregation"] = std::string(paired_aggregation_name(r.aggregation));
  out["systems"] = rows;
  return out;
}

StrategyKind parse_kind(const std::string& kind) {
  if (kind == "degradation" || kind == "degrade") return StrategyKind::kDegradation;
  if (kind == "manipulation" || kind == "manipulate") return StrategyKind::kManipulation;
  throw UsageError(
      fmt::format("unknown strategy kind '{}' (kinds: degradation, manipulation)", kind));
}

// (status, text, note) of one strategy applied to every item of the dataset.
py::list perturb(PyEngine& e, const Dataset& ds, const std::string& kind, const std::string& code,
                 std::uint64_t seed, unsigned threads) {
  const StrategyKind k = parse_kind(kind);
  const auto items = all_items(ds);
  std::vector<PerturbResult> results(items.size());
  {
    py::gil_scoped_release release;
    std::lock_guard lock(e.mutex);
    auto strategy = perturb::create_strategy(k, code, e.engine.strategies());
    for (std::size_t begin = 0; begin < items.size(); begin += kChunk) {
      const std::size_t end = std::min(items.size(), begin + kChunk);
      if (strategy->batched()) {
        // Model-backed: the chunk's requests go out as one batch (as in `probity perturb`).
        std::vector<PerturbContext> contexts;
        for (std::size_t i = begin; i < end; ++i)
          contexts.push_back(PerturbContext{&ds, items[i].task, items[i].candidate, seed});
        auto chunk = strategy->apply_many(contexts);
        for (std::size_t i = begin; i < end; ++i) results[i] = std::move(chunk[i - begin]);
      } else {
        util::parallel_for(end - begin, threads, [&](std::size_t j) {
          const ItemRef& it = items[begin + j];
          results[begin + j] = strategy->apply(PerturbContext{&ds, it.task, it.candidate, seed});
        });
      }
      check_signals();
    }
  }
  py::list out;
  for (const auto& r : results)
    out.append(py::make_tuple(std::string(status_name(r.status)), r.text, r.note));
  return out;
}

}  // namespace

void bind_scoring(py::module_& m, EngineClass& engine) {
  m.def(
      "_bleu_from_stats",
      [](const std::vector<double>& correct, const std::vector<double>& total, double sys_len,
         double ref_len, const std::string& smooth, double smooth_value, bool effective_order) {
        if (correct.size() != total.size() || correct.empty() || correct.size() > 64)
          throw UsageError(fmt::format(
              "bleu_from_stats: correct and total need the same length, 1..64 ({} and {})",
              correct.size(), total.size()));
        std::vector<double> stats{sys_len, ref_len};
        stats.insert(stats.end(), correct.begin(), correct.end());
        stats.insert(stats.end(), total.begin(), total.end());
        return metrics::detail::bleu_breakdown(stats, correct.size(), smooth, smooth_value,
                                               effective_order);
      },
      py::arg("correct"), py::arg("total"), py::arg("sys_len"), py::arg("ref_len"),
      py::arg("smooth"), py::arg("smooth_value"), py::arg("effective_order"));
  engine.def("metrics", [](PyEngine& e) {
    py::list out;
    for (const auto& info : e.engine.metrics().list()) {
      py::dict d;
      d["name"] = info.name;
      d["description"] = info.description;
      d["options"] = to_python(metrics::options_json(info));  // as `probity metrics --json`
      out.append(d);
    }
    return out;
  });
  engine.def(
      "signature",
      [](PyEngine& e, const std::string& spec) {
        py::gil_scoped_release release;
        std::lock_guard lock(e.mutex);
        return select_metric(spec, e.engine).metric->signature();
      },
      py::arg("metric"));
  engine.def("score_dataset", &score_dataset, py::arg("dataset"), py::arg("metrics"),
             py::arg("threads") = 0, py::arg("progress") = py::none());
  engine.def("score_file", &score_file, py::arg("path"), py::arg("metrics"), py::arg("threads") = 0,
             py::arg("skip_invalid") = false, py::arg("progress") = py::none());
  engine.def("score_texts", &score_texts, py::arg("metric"), py::arg("candidates"),
             py::arg("references"), py::arg("sources") = py::none(),
             py::arg("negatives") = py::none(), py::arg("threads") = 0);
  engine.def("paired_test", &paired, py::arg("metric"), py::arg("stats"), py::arg("test"),
             py::arg("samples"), py::arg("seed"), py::arg("threads"));
  engine.def("perturb", &perturb, py::arg("dataset"), py::arg("kind"), py::arg("code"),
             py::arg("seed") = 0, py::arg("threads") = 0);
  engine.def("strategies", [](PyEngine& e) {
    py::list out;
    for (auto kind : {StrategyKind::kDegradation, StrategyKind::kManipulation}) {
      for (const auto* info : e.engine.strategies().list(kind)) {
        py::dict d;
        d["kind"] = std::string(kind_name(kind));
        d["code"] = info->code;
        d["name"] = info->name;
        d["description"] = info->description;
        out.append(d);
      }
    }
    return out;
  });
}

}  // namespace probity::python
