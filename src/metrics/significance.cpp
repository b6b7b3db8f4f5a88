// Paired significance tests as sacreBLEU 2.6.0's significance.py (probity/significance.hpp).
#include "probity/significance.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <string>
#include <vector>

#include "metrics/corpus_signature.hpp"
#include "metrics/numpy_resampled.hpp"
#include "probity/error.hpp"
#include "util/numpy_random.hpp"
#include "util/parallel.hpp"

namespace probity {
namespace {

// Rows (resamples or trials) drawn at once, then scored in parallel: the draws are one
// sequential stream, the scores of a row depend on that row only.
constexpr std::size_t kRowsPerBlock = 64;

// _compute_p_value: (#{stats > real_difference} + 1) / (len(stats) + 1).
double p_value(std::span<const double> stats, double real_difference) {
  std::size_t c = 0;
  for (double s : stats) c += s > real_difference ? 1 : 0;
  return static_cast<double>(c + 1) / static_cast<double>(stats.size() + 1);
}

double actual_score(const Metric& metric, const std::vector<double>& stats) {
  return corpus_score(metric, stats)[0];
}

}  // namespace

std::size_t default_paired_samples(PairedTestKind kind) {
  return kind == PairedTestKind::kBootstrap ? 1000 : 10000;
}

MeanCi sacrebleu_estimate_ci(std::span<const double> scores) {
  std::vector<double> sorted(scores.begin(), scores.end());
  std::sort(sorted.begin(), sorted.end());
  const std::size_t n = sorted.size();
  const std::size_t lower = n / 40, upper = n - lower - 1;
  return {util::numpy_mean(sorted), 0.5 * (sorted[upper] - sorted[lower])};
}

PairedTestResult paired_test(const Metric& metric, std::span<const std::vector<double>> systems,
                             const PairedTestOptions& options) {
  const auto* resampled = dynamic_cast<const metrics::NumpyResampled*>(&metric);
  if (resampled == nullptr || metric.corpus_aggregation() != CorpusAggregation::kSumStats)
    throw UsageError(fmt::format(
        "{}: paired tests are sacreBLEU's, for its corpus metrics bleu, chrf, chrf++ and ter",
        metric.name()));
  if (systems.size() < 2)
    throw UsageError("a paired test needs a baseline and at least one other system");
  const std::size_t k = metric.num_stats();
  const std::size_t n = systems[0].size() / k;
  if (n == 0) throw UsageError("a paired test needs at least one item");
  for (const auto& s : systems) {
    if (s.size() != n * k)
      throw UsageError("paired test: the systems' statistics cover different numbers of items");
    if (std::any_of(s.begin(), s.end(), [](double v) { return std::isnan(v); }))
      throw UsageError(
          fmt::format("{}: an item's score is undefined (no reference?)", metric.name()));
  }
  const bool bootstrap = options.kind == PairedTestKind::kBootstrap;
  const std::size_t samples =
      options.samples > 0 ? options.samples : default_paired_samples(options.kind);
  const std::size_t n_sys = systems.size();

  PairedTestResult result;
  result.samples = samples;
  // The test's fields before the version, which stays last (as in sacreBLEU's signatures).
  std::string signature = metrics::corpus_signature_of(metric);
  const std::size_t version = std::min(signature.rfind("|version:"), signature.size());
  signature.insert(version,
                   fmt::format("|{}:{}|seed:{}", bootstrap ? "bs" : "ar", samples, options.seed));
  result.signature = std::move(signature);
  result.systems.resize(n_sys);
  for (std::size_t s = 0; s < n_sys; ++s)
    result.systems[s].score = actual_score(metric, systems[s]);

  if (bootstrap) {
    // _paired_bs_test: idxs = rng.choice(n, size=(samples, n), replace=True), the same for every
    // system (each test seeds its own default_rng); stats as float32, summed per resample.
    std::vector<std::vector<float>> stats32(n_sys);
    for (std::size_t s = 0; s < n_sys; ++s) stats32[s].assign(systems[s].begin(), systems[s].end());
    std::vector<std::vector<double>> scores(n_sys, std::vector<double>(samples));
    util::Pcg64 rng(options.seed);
    std::vector<std::int64_t> idx(kRowsPerBlock * n);
    for (std::size_t first = 0; first < samples; first += kRowsPerBlock) {
      const std::size_t rows = std::min(kRowsPerBlock, samples - first);
      rng.integers(n, std::span(idx).first(rows * n));
      util::parallel_for(
          rows * n_sys, options.threads,
          [&](std::size_t job) {
            const std::size_t row = job / n_sys, s = job % n_sys;
            std::vector<float> sum(k, 0.0f);
            const std::int64_t* draw = idx.data() + row * n;
            for (std::size_t i = 0; i < n; ++i) {
              const float* item = stats32[s].data() + static_cast<std::size_t>(draw[i]) * k;
              for (std::size_t j = 0; j < k; ++j) sum[j] += item[j];
            }
            scores[s][first + row] = resampled->resample_score(sum);
          },
          1);
    }
    const MeanCi base = sacrebleu_estimate_ci(scores[0]);
    result.systems[0].mean = base.mean;
    result.systems[0].ci = base.ci;
    std::vector<double> diffs(samples);
    for (std::size_t s = 1; s < n_sys; ++s) {
      const MeanCi m = sacrebleu_estimate_ci(scores[s]);
      result.systems[s].mean = m.mean;
      result.systems[s].ci = m.ci;
      for (std::size_t r = 0; r < samples; ++r) diffs[r] = std::abs(scores[s][r] - scores[0][r]);
      const double mean = util::numpy_mean(diffs);
      for (auto& d : diffs) d -= mean;
      result.systems[s].p_value =
          p_value(diffs, std::abs(result.systems[0].score - result.systems[s].score));
    }
    return result;
  }

  // _paired_ar_test: pos_sel = rng.integers(2, size=(samples, n), dtype=bool), the same for every
  // system; trial t's pseudo-systems take the baseline's statistics where pos_sel is true (a) or
  // false (b), the system's elsewhere, summed exactly (whole numbers; numpy's matmul), and are
  // scored as corpus scores.
  const std::size_t n_parts = metric.parts().size();
  std::vector<std::vector<double>> delta(n_sys, std::vector<double>(samples));
  util::Pcg64 rng(options.seed);
  util::Pcg64::BoolBuffer buffer;
  std::vector<std::uint8_t> pos(kRowsPerBlock * n);
  for (std::size_t first = 0; first < samples; first += kRowsPerBlock) {
    const std::size_t rows = std::min(kRowsPerBlock, samples - first);
    rng.booleans(std::span(pos).first(rows * n), buffer);
    util::parallel_for(
        rows * (n_sys - 1), options.threads,
        [&](std::size_t job) {
          const std::size_t row = job / (n_sys - 1), s = 1 + job % (n_sys - 1);
          std::vector<double> a(k, 0.0), b(k, 0.0), pa(n_parts), pb(n_parts);
          const std::uint8_t* sel = pos.data() + row * n;
          const double* base = systems[0].data();
          const double* other = systems[s].data();
          for (std::size_t i = 0; i < n; ++i) {
            const double* x = (sel[i] ? base : other) + i * k;
            const double* y = (sel[i] ? other : base) + i * k;
            for (std::size_t j = 0; j < k; ++j) {
              a[j] += x[j];
              b[j] += y[j];
            }
          }
          metric.corpus_score(a, pa);
          metric.corpus_score(b, pb);
          delta[s][first + row] = std::abs(pa[0] - pb[0]);
        },
        1);
  }
  for (std::size_t s = 1; s < n_sys; ++s)
    result.systems[s].p_value =
        p_value(delta[s], std::abs(result.systems[0].score - result.systems[s].score));
  return result;
}

}  // namespace probity
