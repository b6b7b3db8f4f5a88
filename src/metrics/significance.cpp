// Paired significance tests as sacreBLEU 2.6.0's significance.py, over any metric's corpus
// aggregation (probity/significance.hpp).
#include "probity/significance.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <array>
#include <cmath>
#include <limits>
#include <string>
#include <utility>
#include <vector>

#include "metrics/corpus_signature.hpp"
#include "metrics/numpy_resampled.hpp"
#include "probity/error.hpp"
#include "util/enum_names.hpp"
#include "util/numpy_random.hpp"
#include "util/parallel.hpp"

namespace probity {
namespace {

// Rows (resamples or trials) drawn at once, then scored in parallel: the draws are one
// sequential stream, the scores of a row depend on that row only.
constexpr std::size_t kRowsPerBlock = 64;

constexpr auto kKinds = std::to_array<util::EnumName<PairedTestKind>>({
    {PairedTestKind::kBootstrap, "bs"},
    {PairedTestKind::kRandomization, "ar"},
});

// _compute_p_value: (#{stats > real_difference} + 1) / (len(stats) + 1).
double p_of_count(std::size_t count, std::size_t samples) {
  return static_cast<double>(count + 1) / static_cast<double>(samples + 1);
}

// The systems as one aggregation scores them: the actual corpus score, a bootstrap resample's
// score, and a randomization trial's pseudo-system.
class Aggregate {
 public:
  Aggregate(const Metric& metric, PairedAggregation aggregation,
            std::span<const std::vector<double>> systems, std::size_t part)
      : metric_(metric), aggregation_(aggregation), systems_(systems), part_(part) {
    k_ = metric.num_stats();
    n_ = systems[0].size() / k_;
    if (aggregation == PairedAggregation::kSacrebleu) {
      resampled_ = dynamic_cast<const metrics::NumpyResampled*>(&metric);
      for (const auto& s : systems) stats32_.emplace_back(s.begin(), s.end());
    }
    if (aggregation == PairedAggregation::kItemMean) {
      std::vector<double> parts(metric.parts().size());
      for (const auto& s : systems) {
        std::vector<double> scores(n_);
        for (std::size_t i = 0; i < n_; ++i) {
          metric.sentence_score(std::span(s).subspan(i * k_, k_), parts);
          scores[i] = parts[part];
        }
        item_scores_.push_back(std::move(scores));
      }
    }
  }

  std::size_t items() const { return n_; }

  bool has_undefined() const {
    const auto nan = [](double v) { return std::isnan(v); };
    if (aggregation_ == PairedAggregation::kItemMean)
      return std::any_of(item_scores_.begin(), item_scores_.end(),
                         [&](const auto& s) { return std::any_of(s.begin(), s.end(), nan); });
    return std::any_of(systems_.begin(), systems_.end(),
                       [&](const auto& s) { return std::any_of(s.begin(), s.end(), nan); });
  }

  // The corpus score: the score of the summed statistics, or NumPy's mean of the item scores.
  double actual(std::size_t s) const {
    if (aggregation_ == PairedAggregation::kItemMean) return util::numpy_mean(item_scores_[s]);
    return corpus_score(metric_, systems_[s])[part_];
  }

  // _bootstrap_resample's score of one row of rng.choice: sacreBLEU sums float32 statistics
  // (stats_np[idxs].sum(0)); float64 sums in the same order otherwise; the item mean takes
  // NumPy's pairwise mean of the drawn items' scores (scores[idxs].mean(axis=1)).
  double resample(std::size_t s, const std::int64_t* draw) const {
    if (aggregation_ == PairedAggregation::kItemMean) {
      std::vector<double> row(n_);
      for (std::size_t i = 0; i < n_; ++i)
        row[i] = item_scores_[s][static_cast<std::size_t>(draw[i])];
      return util::numpy_mean(row);
    }
    if (aggregation_ == PairedAggregation::kSacrebleu) {
      std::vector<float> sum(k_, 0.0f);
      for (std::size_t i = 0; i < n_; ++i) {
        const float* item = stats32_[s].data() + static_cast<std::size_t>(draw[i]) * k_;
        for (std::size_t j = 0; j < k_; ++j) sum[j] += item[j];
      }
      return resampled_->resample_score(sum);
    }
    std::vector<double> sum(k_, 0.0);
    for (std::size_t i = 0; i < n_; ++i) {
      const double* item = systems_[s].data() + static_cast<std::size_t>(draw[i]) * k_;
      for (std::size_t j = 0; j < k_; ++j) sum[j] += item[j];
    }
    return score_of_sum(sum);
  }

  // _paired_ar_test's pseudo-system: item i of x where sel[i], of y elsewhere. Statistics are
  // summed in item order (sacreBLEU's pos_sel @ stats, exact for its whole-number statistics);
  // item scores are averaged as np.where(sel, x, y).mean(): a BLAS product would round real
  // numbers in an order of its own.
  double swapped(std::size_t x, std::size_t y, const std::uint8_t* sel) const {
    if (aggregation_ == PairedAggregation::kItemMean) {
      std::vector<double> row(n_);
      for (std::size_t i = 0; i < n_; ++i) row[i] = (sel[i] ? item_scores_[x] : item_scores_[y])[i];
      return util::numpy_mean(row);
    }
    std::vector<double> sum(k_, 0.0);
    const double* a = systems_[x].data();
    const double* b = systems_[y].data();
    for (std::size_t i = 0; i < n_; ++i) {
      const double* item = (sel[i] ? a : b) + i * k_;
      for (std::size_t j = 0; j < k_; ++j) sum[j] += item[j];
    }
    return score_of_sum(sum);
  }

 private:
  double score_of_sum(std::span<const double> sum) const {
    std::vector<double> parts(metric_.parts().size());
    metric_.corpus_score(sum, parts);
    return parts[part_];
  }

  const Metric& metric_;
  PairedAggregation aggregation_;
  std::span<const std::vector<double>> systems_;
  std::size_t part_ = 0, k_ = 0, n_ = 0;
  const metrics::NumpyResampled* resampled_ = nullptr;
  std::vector<std::vector<float>> stats32_;       // kSacrebleu
  std::vector<std::vector<double>> item_scores_;  // kItemMean
};

// The pairs tested: (0, s) for each other system, or every i < j.
std::vector<std::pair<std::size_t, std::size_t>> pairs_of(std::size_t n_sys, bool all) {
  std::vector<std::pair<std::size_t, std::size_t>> pairs;
  for (std::size_t i = 0; i < (all ? n_sys : 1); ++i)
    for (std::size_t j = i + 1; j < n_sys; ++j) pairs.emplace_back(i, j);
  return pairs;
}

}  // namespace

std::string_view paired_test_kind_name(PairedTestKind kind) {
  return util::name_of(kKinds, kind, "bs");
}

PairedTestKind parse_paired_test_kind(std::string_view name) {
  if (const auto k = util::parse_enum(kKinds, name)) return *k;
  throw UsageError(
      fmt::format("unknown paired test '{}' (bs: paired bootstrap resampling, ar: "
                  "approximate randomization)",
                  name));
}

std::string_view paired_aggregation_name(PairedAggregation a) {
  switch (a) {
    case PairedAggregation::kSacrebleu:
      return "sacrebleu";
    case PairedAggregation::kSummedStats:
      return "stats";
    case PairedAggregation::kItemMean:
      return "mean";
  }
  return "mean";
}

PairedAggregation paired_aggregation_of(const Metric& metric) {
  if (metric.corpus_aggregation() == CorpusAggregation::kMeanScores)
    return PairedAggregation::kItemMean;
  if (dynamic_cast<const metrics::NumpyResampled*>(&metric) != nullptr)
    return PairedAggregation::kSacrebleu;
  return PairedAggregation::kSummedStats;
}

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
                             const PairedTestOptions& options, std::size_t part) {
  if (systems.size() < 2)
    throw UsageError("a paired test needs a baseline and at least one other system");
  if (part >= metric.parts().size())
    throw UsageError(fmt::format("{}: the metric has no part {}", metric.name(), part));
  const std::size_t k = metric.num_stats();
  const std::size_t n = systems[0].size() / k;
  if (n == 0) throw UsageError("a paired test needs at least one item");
  for (const auto& s : systems)
    if (s.size() != n * k)
      throw UsageError("paired test: the systems' statistics cover different numbers of items");
  const PairedAggregation aggregation = paired_aggregation_of(metric);
  const Aggregate agg(metric, aggregation, systems, part);
  if (agg.has_undefined())
    throw UsageError(
        fmt::format("{}: an item's score is undefined (no reference?)", metric.name()));
  const bool bootstrap = options.kind == PairedTestKind::kBootstrap;
  const std::size_t samples =
      options.samples > 0 ? options.samples : default_paired_samples(options.kind);
  const std::size_t n_sys = systems.size();

  PairedTestResult result;
  result.samples = samples;
  result.aggregation = aggregation;
  // The test's fields before the version, which stays last (as in sacreBLEU's signatures).
  std::string signature = metrics::corpus_signature_of(metric);
  const std::size_t version = std::min(signature.rfind("|version:"), signature.size());
  signature.insert(version, fmt::format("|{}:{}|seed:{}", paired_test_kind_name(options.kind),
                                        samples, options.seed));
  result.signature = std::move(signature);
  result.systems.resize(n_sys);
  for (std::size_t s = 0; s < n_sys; ++s) result.systems[s].score = agg.actual(s);

  const auto pairs = pairs_of(n_sys, options.all_pairs);
  std::vector<double> p(pairs.size());
  const auto real_difference = [&](std::size_t pair) {
    return std::abs(result.systems[pairs[pair].first].score -
                    result.systems[pairs[pair].second].score);
  };

  if (bootstrap) {
    // _paired_bs_test: idxs = rng.choice(n, size=(samples, n), replace=True), the same for every
    // system (each test seeds its own default_rng), so each system's resample scores serve all
    // of its pairs.
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
            scores[s][first + row] = agg.resample(s, idx.data() + row * n);
          },
          1);
    }
    for (std::size_t s = 0; s < n_sys; ++s) {
      const MeanCi m = sacrebleu_estimate_ci(scores[s]);
      result.systems[s].mean = m.mean;
      result.systems[s].ci = m.ci;
    }
    // sample_diffs = abs(scores_sys - scores_bl), centred on its mean; c counts those above the
    // actual difference.
    std::vector<double> diffs(samples);
    for (std::size_t q = 0; q < pairs.size(); ++q) {
      const auto [i, j] = pairs[q];
      for (std::size_t r = 0; r < samples; ++r) diffs[r] = std::abs(scores[j][r] - scores[i][r]);
      const double mean = util::numpy_mean(diffs);
      const double real = real_difference(q);
      std::size_t c = 0;
      for (double d : diffs) c += d - mean > real ? 1 : 0;
      p[q] = p_of_count(c, samples);
    }
  } else {
    // _paired_ar_test: pos_sel = rng.integers(2, size=(samples, n), dtype=bool), the same for
    // every pair; trial t's pseudo-systems take system i's items where pos_sel is true (a) or
    // false (b), system j's elsewhere; c counts the trials with |a - b| above the actual
    // difference.
    util::Pcg64 rng(options.seed);
    util::Pcg64::BoolBuffer buffer;
    std::vector<std::uint8_t> pos(kRowsPerBlock * n);
    std::vector<double> delta(kRowsPerBlock * pairs.size());
    std::vector<std::size_t> count(pairs.size(), 0);
    for (std::size_t first = 0; first < samples; first += kRowsPerBlock) {
      const std::size_t rows = std::min(kRowsPerBlock, samples - first);
      rng.booleans(std::span(pos).first(rows * n), buffer);
      util::parallel_for(
          rows * pairs.size(), options.threads,
          [&](std::size_t job) {
            const std::size_t row = job / pairs.size(), q = job % pairs.size();
            const auto [i, j] = pairs[q];
            const std::uint8_t* sel = pos.data() + row * n;
            delta[job] = std::abs(agg.swapped(i, j, sel) - agg.swapped(j, i, sel));
          },
          1);
      for (std::size_t job = 0; job < rows * pairs.size(); ++job)
        count[job % pairs.size()] += delta[job] > real_difference(job % pairs.size()) ? 1 : 0;
    }
    for (std::size_t q = 0; q < pairs.size(); ++q) p[q] = p_of_count(count[q], samples);
  }

  if (options.all_pairs)
    result.pairwise.assign(n_sys,
                           std::vector<double>(n_sys, std::numeric_limits<double>::quiet_NaN()));
  for (std::size_t q = 0; q < pairs.size(); ++q) {
    const auto [i, j] = pairs[q];
    if (i == 0) result.systems[j].p_value = p[q];
    if (options.all_pairs) result.pairwise[i][j] = result.pairwise[j][i] = p[q];
  }
  return result;
}

}  // namespace probity
