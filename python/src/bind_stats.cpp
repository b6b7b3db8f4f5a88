// Statistics with the C++ semantics (undefined values are NaN), plus the two meta-evaluation
// computations of `probity correlate` and `probity compare` on aligned score columns.
#include <cmath>
#include <optional>

#include "common.hpp"
#include "probity/audit.hpp"
#include "probity/error.hpp"
#include "probity/scoring.hpp"
#include "probity/stats.hpp"

namespace probity::python {

namespace {

stats::CorrelationType correlation_type(const std::string& name) {
  try {
    return stats::parse_correlation_type(name);
  } catch (const std::invalid_argument& e) {
    throw UsageError(e.what());
  }
}

stats::Alternative parse_alternative(const std::string& name) {
  if (name == "two-sided" || name == "two_sided") return stats::Alternative::kTwoSided;
  if (name == "greater") return stats::Alternative::kGreater;
  if (name == "less") return stats::Alternative::kLess;
  throw UsageError("unknown alternative '" + name + "' (two-sided, greater, less)");
}

stats::CiMethod parse_ci_method(const std::string& name) {
  if (name == "percentile") return stats::CiMethod::kPercentile;
  if (name == "bca" || name == "BCa") return stats::CiMethod::kBCa;
  throw UsageError("unknown interval method '" + name + "' (percentile, bca)");
}

py::tuple correlation_tuple(const stats::CorrelationResult& r) {
  return py::make_tuple(r.statistic, r.p_two_sided);
}

// A correlation function of two sequences, run without the GIL.
template <class Fn>
auto correlation_fn(Fn fn) {
  return [fn](const DoubleArray& x, const DoubleArray& y) {
    auto vx = to_vector(x, "x"), vy = to_vector(y, "y");
    stats::CorrelationResult r;
    {
      py::gil_scoped_release release;
      r = fn(vx, vy);
    }
    return correlation_tuple(r);
  };
}

py::tuple testing_tuple(const stats::MultipleTestingResult& r) {
  py::array_t<bool> reject(static_cast<py::ssize_t>(r.reject.size()));
  for (std::size_t i = 0; i < r.reject.size(); ++i) reject.mutable_at(i) = r.reject[i];
  return py::make_tuple(to_array(r.adjusted), reject);
}

std::vector<std::vector<double>> to_matrix(const std::vector<DoubleArray>& columns, std::size_t n) {
  std::vector<std::vector<double>> out;
  for (const auto& c : columns) {
    out.push_back(to_vector(c, "human"));
    if (out.back().size() != n)
      throw UsageError("human ratings: " + std::to_string(out.back().size()) + " values for " +
                       std::to_string(n) + " scores");
  }
  return out;
}

// The rows of `probity correlate` for one score column.
py::list human_correlations_rows(const DoubleArray& scores, const std::vector<DoubleArray>& human,
                                 const std::vector<std::string>& dimensions, std::size_t bootstrap,
                                 double confidence, std::uint64_t seed, unsigned threads) {
  auto s = to_vector(scores, "scores");
  auto h = to_matrix(human, s.size());
  if (h.size() != dimensions.size())
    throw UsageError("human ratings: one column per dimension is required");
  std::vector<CorrelationResult> rows;
  {
    py::gil_scoped_release release;
    rows = human_correlations(s, h, dimensions, {bootstrap, confidence, seed, threads});
  }
  py::list out;
  for (const auto& r : rows)
    out.append(py::make_tuple(r.dimension, r.n, r.spearman, r.spearman_lo, r.spearman_hi,
                              r.spearman_p, r.kendall, r.pearson));
  return out;
}

// The rows of `probity correlate --level --statistic` for one score column aligned with every
// candidate of `ds` (all_items order): (dimension, level, statistic, value, ci_lo, ci_hi,
// resampled, n, groups, skipped, epsilon).
py::list level_rows(const Dataset& ds, const DoubleArray& scores,
                    const std::vector<std::string>& dimensions,
                    const std::vector<std::string>& level_names,
                    const std::vector<std::string>& statistic_names, std::size_t bootstrap,
                    double confidence, std::uint64_t seed, unsigned threads,
                    const std::string& resample) {
  const auto items = all_items(ds);
  auto s = to_vector(scores, "scores");
  if (s.size() != items.size())
    throw UsageError(
        fmt::format("scores: {} values for {} candidates of the dataset", s.size(), items.size()));
  std::vector<stats::Level> levels;
  std::vector<stats::LevelStatistic> statistics;
  CorrelationOptions options{bootstrap, confidence, seed, threads};
  try {
    for (const auto& l : level_names) levels.push_back(stats::parse_level(l));
    for (const auto& st : statistic_names) statistics.push_back(stats::parse_level_statistic(st));
    options.resample = parse_resample_unit(resample);
  } catch (const std::invalid_argument& e) {
    throw UsageError(e.what());
  }
  std::vector<LevelCorrelation> rows;
  {
    py::gil_scoped_release release;
    const auto human = human_matrix(ds, items, dimensions);
    rows = level_correlations(ds, items, s, human, dimensions, levels, statistics, options);
  }
  py::list out;
  for (const auto& r : rows)
    out.append(py::make_tuple(r.dimension, std::string(stats::level_name(r.level)),
                              std::string(stats::level_statistic_name(r.statistic)), r.result.value,
                              r.ci_lo, r.ci_hi, r.unit, r.result.n, r.result.groups,
                              r.result.skipped, r.result.epsilon));
  return out;
}

// The human ceiling of every candidate of `ds` (None without several ratings per item):
// (pooled rows as human_correlations, level rows as level_correlations, agreement rows
// (dimension, raters, units, alpha_interval, alpha_ordinal)).
py::object human_ceiling_rows(const Dataset& ds, const std::vector<std::string>& dimensions,
                              const std::vector<std::string>& level_names,
                              const std::vector<std::string>& statistic_names,
                              std::size_t bootstrap, double confidence, std::uint64_t seed,
                              unsigned threads) {
  std::vector<stats::Level> levels;
  std::vector<stats::LevelStatistic> statistics;
  try {
    for (const auto& l : level_names) levels.push_back(stats::parse_level(l));
    for (const auto& st : statistic_names) statistics.push_back(stats::parse_level_statistic(st));
  } catch (const std::invalid_argument& e) {
    throw UsageError(e.what());
  }
  std::optional<MetricCorrelations> c;
  {
    py::gil_scoped_release release;
    c = human_ceiling(ds, all_items(ds), dimensions, levels, statistics,
                      {bootstrap, confidence, seed, threads});
  }
  if (!c) return py::none();
  py::list pooled, level, agreement;
  for (const auto& r : c->rows)
    pooled.append(py::make_tuple(r.dimension, r.n, r.spearman, r.spearman_lo, r.spearman_hi,
                                 r.spearman_p, r.kendall, r.pearson));
  for (const auto& r : c->levels)
    level.append(py::make_tuple(r.dimension, std::string(stats::level_name(r.level)),
                                std::string(stats::level_statistic_name(r.statistic)),
                                r.result.value, r.result.n, r.result.groups, r.result.skipped));
  for (const auto& a : c->agreement)
    agreement.append(
        py::make_tuple(a.dimension, a.raters, a.units, a.alpha_interval, a.alpha_ordinal));
  return py::make_tuple(pooled, level, agreement);
}

// The length and random baselines of every candidate of `ds`: [(name, signature, values)].
py::list baseline_columns(const Dataset& ds) {
  py::list out;
  for (auto& b : baseline_scores(ds, all_items(ds)))
    out.append(py::make_tuple(b.metric, b.signature, to_array(b.values)));
  return out;
}

// The rows of `probity compare`: per dimension, the items where both metrics and the rating are
// defined, each metric's correlation and the paired permutation test of their difference.
py::list compare_rows(const DoubleArray& a_in, const DoubleArray& b_in,
                      const std::vector<DoubleArray>& human,
                      const std::vector<std::string>& dimensions, const std::string& correlation,
                      std::size_t permutations, std::uint64_t seed, unsigned threads) {
  auto a = to_vector(a_in, "a"), b = to_vector(b_in, "b");
  if (a.size() != b.size())
    throw UsageError("compare: the two score columns differ in length (" +
                     std::to_string(a.size()) + " vs " + std::to_string(b.size()) + ")");
  auto h = to_matrix(human, a.size());
  auto type = correlation_type(correlation);
  stats::PermutationOptions po;
  po.permutations = permutations;
  po.seed = seed;
  po.threads = threads;
  struct Row {
    std::size_t n;
    double ra, rb;
    stats::PermutationResult r;
  };
  std::vector<Row> rows;
  {
    py::gil_scoped_release release;
    for (std::size_t d = 0; d < h.size(); ++d) {
      std::vector<double> x, y, hh;
      for (std::size_t i = 0; i < a.size(); ++i) {
        if (std::isfinite(a[i]) && std::isfinite(b[i]) && std::isfinite(h[d][i])) {
          x.push_back(a[i]);
          y.push_back(b[i]);
          hh.push_back(h[d][i]);
        }
      }
      rows.push_back({x.size(), stats::correlation(type, x, hh).statistic,
                      stats::correlation(type, y, hh).statistic,
                      stats::permutation_correlation_diff(x, y, hh, type, po)});
      check_signals();
    }
  }
  py::list out;
  for (std::size_t d = 0; d < rows.size(); ++d)
    out.append(py::make_tuple(dimensions.at(d), rows[d].n, rows[d].ra, rows[d].rb, rows[d].r.delta,
                              rows[d].r.p, rows[d].r.permutations));
  return out;
}

}  // namespace

void bind_stats(py::module_& m) {
  py::module_ s = m.def_submodule("stats", "Statistics of the C++ engine.");
  // rouge-score's BootstrapAggregator on (items x measures) matrices, one per score type in
  // order: [(low, mid, high)] with one value per measure each.
  s.def(
      "rouge_bootstrap_aggregate",
      [](const std::vector<py::array_t<double, py::array::c_style | py::array::forcecast>>& types,
         std::size_t n_samples, double confidence_interval, std::uint32_t seed) {
        std::vector<std::vector<double>> matrices;
        std::size_t measures = 0;
        for (const auto& a : types) {
          if (a.ndim() != 2) throw UsageError("rouge_bootstrap: each score matrix must be 2-d");
          if (measures != 0 && static_cast<std::size_t>(a.shape(1)) != measures)
            throw UsageError("rouge_bootstrap: every score matrix needs the same measures");
          measures = static_cast<std::size_t>(a.shape(1));
          matrices.emplace_back(a.data(), a.data() + a.size());
        }
        std::vector<stats::AggregateBounds> bounds;
        {
          py::gil_scoped_release release;
          try {
            bounds = stats::rouge_bootstrap_aggregate(matrices, measures, n_samples,
                                                      confidence_interval, seed);
          } catch (const std::invalid_argument& e) {
            throw UsageError(std::string("rouge_bootstrap: ") + e.what());
          }
        }
        py::list out;
        for (const auto& b : bounds) out.append(py::make_tuple(b.low, b.mid, b.high));
        return out;
      },
      py::arg("types"), py::arg("n_samples"), py::arg("confidence_interval"), py::arg("seed"));
  s.def("pearson", correlation_fn([](auto& x, auto& y) { return stats::pearson(x, y); }),
        py::arg("x"), py::arg("y"));
  s.def("spearman", correlation_fn([](auto& x, auto& y) { return stats::spearman(x, y); }),
        py::arg("x"), py::arg("y"));
  s.def("kendall_tau_b",
        correlation_fn([](auto& x, auto& y) { return stats::kendall_tau_b(x, y); }), py::arg("x"),
        py::arg("y"));
  s.def("kendall_tau_c",
        correlation_fn([](auto& x, auto& y) { return stats::kendall_tau_c(x, y); }), py::arg("x"),
        py::arg("y"));
  s.def(
      "correlation",
      [](const std::string& type, const DoubleArray& x, const DoubleArray& y) {
        auto t = correlation_type(type);
        return correlation_fn([t](auto& a, auto& b) { return stats::correlation(t, a, b); })(x, y);
      },
      py::arg("type"), py::arg("x"), py::arg("y"));
  s.def(
      "level_statistic",
      [](const std::string& statistic, const std::string& level, const DoubleArray& gold,
         const DoubleArray& metric, const std::vector<std::size_t>& task,
         const std::vector<std::size_t>& system) {
        stats::LevelData d;
        d.gold = to_vector(gold, "gold");
        d.metric = to_vector(metric, "metric");
        d.task = task;
        for (std::size_t t : task) d.num_tasks = std::max(d.num_tasks, t + 1);
        d.system = system;
        for (std::size_t v : system) d.num_systems = std::max(d.num_systems, v + 1);
        const auto st = stats::parse_level_statistic(statistic);
        const auto lv = stats::parse_level(level);
        stats::LevelResult r;
        {
          py::gil_scoped_release release;
          r = stats::level_statistic(st, lv, d);
        }
        return py::make_tuple(r.value, r.n, r.groups, r.skipped, r.epsilon);
      },
      py::arg("statistic"), py::arg("level"), py::arg("gold"), py::arg("metric"), py::arg("task"),
      py::arg("system"));
  s.def("level_correlations", &level_rows, py::arg("dataset"), py::arg("scores"),
        py::arg("dimensions"), py::arg("levels"), py::arg("statistics"), py::arg("bootstrap"),
        py::arg("confidence"), py::arg("seed"), py::arg("threads"), py::arg("resample"));
  s.def("baselines", &baseline_columns, py::arg("dataset"));
  s.def("human_ceiling", &human_ceiling_rows, py::arg("dataset"), py::arg("dimensions"),
        py::arg("levels"), py::arg("statistics"), py::arg("bootstrap"), py::arg("confidence"),
        py::arg("seed"), py::arg("threads"));
  s.def(
      "rankdata_average",
      [](const DoubleArray& x) { return to_array(stats::rankdata_average(to_vector(x, "x"))); },
      py::arg("x"));
  s.def(
      "paired_t",
      [](const DoubleArray& perturbed, const DoubleArray& original) {
        auto r =
            stats::paired_t(to_vector(perturbed, "perturbed"), to_vector(original, "original"));
        return py::make_tuple(r.n, r.mean_delta, r.sd_delta, r.t, r.df, r.p_two_sided, r.p_less,
                              r.p_greater, r.smd, r.smd_ci_half_width);
      },
      py::arg("perturbed"), py::arg("original"));
  s.def(
      "holm",
      [](const DoubleArray& p, double alpha) {
        return testing_tuple(stats::holm(to_vector(p, "p"), alpha));
      },
      py::arg("p"), py::arg("alpha") = 0.05);
  s.def(
      "benjamini_hochberg",
      [](const DoubleArray& p, double alpha) {
        return testing_tuple(stats::benjamini_hochberg(to_vector(p, "p"), alpha));
      },
      py::arg("p"), py::arg("alpha") = 0.05);
  s.def(
      "cem_ord",
      [](const DoubleArray& pred, const DoubleArray& gold, const DoubleArray& levels) {
        return stats::cem_ord(to_vector(pred, "pred"), to_vector(gold, "gold"),
                              to_vector(levels, "levels"));
      },
      py::arg("pred"), py::arg("gold"), py::arg("levels"));
  s.def(
      "bootstrap_correlation",
      [](const DoubleArray& x, const DoubleArray& y, const std::string& type, std::size_t resamples,
         double confidence, const std::string& method, std::uint64_t seed, unsigned threads,
         const std::vector<std::size_t>& clusters) {
        auto vx = to_vector(x, "x"), vy = to_vector(y, "y");
        stats::BootstrapOptions o;
        o.resamples = resamples;
        o.confidence = confidence;
        o.method = parse_ci_method(method);
        o.seed = seed;
        o.threads = threads;
        o.clusters = clusters;
        auto t = correlation_type(type);
        stats::BootstrapResult r;
        {
          py::gil_scoped_release release;
          r = stats::bootstrap_correlation(vx, vy, t, o);
        }
        return py::make_tuple(r.estimate, r.ci.low, r.ci.high, r.standard_error, r.undefined,
                              to_array(r.distribution));
      },
      py::arg("x"), py::arg("y"), py::arg("type"), py::arg("resamples"), py::arg("confidence"),
      py::arg("method"), py::arg("seed"), py::arg("threads"), py::arg("clusters"));
  s.def(
      "permutation_correlation_diff",
      [](const DoubleArray& a, const DoubleArray& b, const DoubleArray& human,
         const std::string& type, std::size_t permutations, const std::string& alternative,
         std::uint64_t seed, unsigned threads, bool add_one, bool standardize) {
        auto va = to_vector(a, "a"), vb = to_vector(b, "b"), vh = to_vector(human, "human");
        stats::PermutationOptions o;
        o.permutations = permutations;
        o.alternative = parse_alternative(alternative);
        o.seed = seed;
        o.threads = threads;
        o.add_one = add_one;
        o.standardize = standardize;
        auto t = correlation_type(type);
        stats::PermutationResult r;
        {
          py::gil_scoped_release release;
          r = stats::permutation_correlation_diff(va, vb, vh, t, o);
        }
        return py::make_tuple(r.delta, r.p, r.extreme, r.permutations);
      },
      py::arg("a"), py::arg("b"), py::arg("human"), py::arg("type"), py::arg("permutations"),
      py::arg("alternative"), py::arg("seed"), py::arg("threads"), py::arg("add_one"),
      py::arg("standardize"));
  s.def("human_correlations", &human_correlations_rows, py::arg("scores"), py::arg("human"),
        py::arg("dimensions"), py::arg("bootstrap"), py::arg("confidence"), py::arg("seed"),
        py::arg("threads"));
  s.def("compare", &compare_rows, py::arg("a"), py::arg("b"), py::arg("human"),
        py::arg("dimensions"), py::arg("correlation"), py::arg("permutations"), py::arg("seed"),
        py::arg("threads"));
}

}  // namespace probity::python
