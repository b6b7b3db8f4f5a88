// The audit (the statistical and strategic alignment tests of Xu et al. 2025): human correlation,
// degradation sensitivity and manipulation robustness. Perturbed texts and metric statistics go
// through the resume cache, so a re-run recomputes nothing and a killed run resumes with its
// finished chunks.
#include "probity/audit.hpp"

#include <fmt/format.h>

#include <chrono>
#include <cmath>
#include <filesystem>
#include <numeric>
#include <set>

#include "audit/cache.hpp"
#include "audit/excerpt.hpp"
#include "audit/judge_diagnostics.hpp"
#include "audit/judge_pairs.hpp"
#include "audit/request_checks.hpp"
#include "llm/session.hpp"
#include "perturb/edit_ops.hpp"
#include "perturb/llm_strategies.hpp"
#include "perturb/suites.hpp"
#include "probity/attack.hpp"
#include "probity/engine.hpp"
#include "probity/error.hpp"
#include "probity/scoring.hpp"
#include "probity/stats.hpp"
#include "util/hash.hpp"
#include "util/output_file.hpp"
#include "util/parallel.hpp"
#include "util/random.hpp"

namespace probity {
namespace {

// Items scored per batch: what a model-backed metric sees at once (and what a kill can lose of
// its answers); other metrics take larger batches, whose cache writes overlap the next batch.
constexpr std::size_t kModelBatch = 256;
constexpr std::size_t kBatch = 4096;

const double kNaN = std::nan("");

// Each dataset's name in the report, its tables and the files exported from it: the file's stem,
// widened with its parent folders where stems collide ("a/summ", "b/summ"), so that no dataset's
// rows or figures replace another's.
std::vector<std::string> dataset_names(const std::vector<std::string>& paths) {
  namespace fs = std::filesystem;
  for (std::size_t i = 0; i < paths.size(); ++i)
    for (std::size_t j = 0; j < i; ++j)
      if (util::same_file(paths[i], paths[j]))
        throw UsageError(fmt::format("audit: the dataset '{}' is given twice (--data '{}')",
                                     paths[i], paths[j]));
  // Each path's components from the stem up: "/x/a/summ.jsonl" is {summ, a, x}.
  std::vector<std::vector<std::string>> up(paths.size());
  for (std::size_t i = 0; i < paths.size(); ++i) {
    const fs::path p = fs::absolute(paths[i]).lexically_normal();
    up[i].push_back(p.stem().string());
    for (fs::path dir = p.parent_path(); dir.has_filename(); dir = dir.parent_path())
      up[i].push_back(dir.filename().string());
  }
  const auto last = [&](std::size_t i, std::size_t k) {
    std::string name = up[i][0];
    for (std::size_t c = 1; c < std::min(k, up[i].size()); ++c) name = up[i][c] + "/" + name;
    return name;
  };
  std::vector<std::string> names(paths.size());
  for (std::size_t i = 0; i < paths.size(); ++i) {
    const auto clashes = [&](std::size_t k) {
      for (std::size_t j = 0; j < paths.size(); ++j)
        if (j != i && last(j, k) == last(i, k)) return true;
      return false;
    };
    std::size_t k = 1;
    while (k < up[i].size() && clashes(k)) ++k;
    // Only the extensions differ ("summ.csv", "summ.jsonl"): the whole path tells them apart.
    names[i] = clashes(k) ? fs::absolute(paths[i]).lexically_normal().generic_string() : last(i, k);
  }
  return names;
}

// The names an audit writes in its output directory: its cache (with SQLite's side files), the
// reports (report::write_all), the exports (report::write_exports) and the CLI's LLM usage.
const std::vector<std::string> kAuditOutputNames = {"cache.sqlite*", "report.json", "report.md",
                                                    "report.html",   "fig-*.svg",   "table-*.tex",
                                                    "llm_usage.json"};

// The cache file --import names: the file, or cache.sqlite in a directory.
std::filesystem::path import_file(const std::string& path) {
  std::filesystem::path file(path);
  if (std::filesystem::is_directory(file)) file /= "cache.sqlite";
  return file;
}

bool is_own_cache(const std::string& import, const std::string& out_dir) {
  const auto own = std::filesystem::path(out_dir.empty() ? "." : out_dir) / "cache.sqlite";
  return util::same_file(import_file(import).string(), own.string()) ||
         util::same_file(import, out_dir.empty() ? "." : out_dir);
}

// Refuses an output directory that would overwrite what the audit reads: its datasets, the caches
// it imports, files its metrics name (scores files, corpora) and the LLM response cache.
void refuse_outputs_over_inputs(const AuditOptions& options, const Engine& engine) {
  std::vector<util::NamedInput> inputs;
  for (const auto& d : options.data)
    if (d.kind != DataInput::Kind::kMemory) inputs.push_back({d.name(), "--data"});
  for (const auto& p : options.import_caches) {
    // Importing the output's own cache (a shard finishing in its own directory) is no copy.
    if (is_own_cache(p, options.out_dir)) continue;
    inputs.push_back({p, "--import"});
    inputs.push_back({(std::filesystem::path(p) / "cache.sqlite").string(), "--import"});
  }
  for (const auto& text : options.metrics)
    for (const auto& file : MetricSpec::parse(text).named_files())
      inputs.push_back({file, "--metric " + text});
  if (const auto& session = engine.llm_or_null()) {
    inputs.push_back({session->config().cache_path, "--cache"});
    inputs.push_back({session->config().path, "--config"});
  }
  const util::PlannedOutput out{options.out_dir.empty() ? "." : options.out_dir, "--out",
                                kAuditOutputNames};
  util::refuse_overwriting_inputs(inputs, std::span(&out, 1));
}

// Creates the output directory; what stops it is an output error naming the directory.
void create_output_directory(const std::string& dir) {
  std::error_code ec;
  std::filesystem::create_directories(dir.empty() ? "." : dir, ec);
  if (ec) throw OutputError(dir, "cannot create the output directory: " + ec.message());
}

// The identity of what an item's computations depend on besides its candidate text: the task's
// id, references (ids and texts) and source, hashed once per task, and the candidate's id.
struct ItemIdentity {
  std::vector<std::uint64_t> task;  // per task of the dataset
  std::vector<std::uint64_t> item;  // per audited item: task hash and candidate id
};

ItemIdentity item_identity(const Dataset& ds, std::span<const ItemRef> items) {
  ItemIdentity id;
  id.task.resize(ds.tasks.size());
  util::parallel_for(ds.tasks.size(), 0, [&](std::size_t t) {
    const Task& task = ds.tasks[t];
    std::uint64_t h = util::xxh3_64(task.task_id, 0x7461736bULL);
    for (const auto& r : task.references)
      h = util::xxh3_64(r.text, util::xxh3_64(r.id, h ^ 0x1fULL));
    id.task[t] = util::xxh3_64(task.source, h ^ 0x1eULL);
  });
  id.item.resize(items.size());
  for (std::size_t i = 0; i < items.size(); ++i)
    id.item[i] = util::xxh3_64(ds.tasks[items[i].task].candidates[items[i].candidate].id,
                               id.task[items[i].task]);
  return id;
}

// The key of an item's row in a stage: its identity and the text computed on.
audit::CacheKey item_key(std::uint64_t stage, std::uint64_t identity, std::string_view text) {
  return {stage, util::key128(std::array<std::uint64_t, 2>{identity, util::xxh3_64(text)})};
}

using Prefetch = std::function<void(std::span<const MetricInput>)>;

// The correlation section of one dataset (docs/meta-eval.md): the pooled table, the
// --level rows and the preference agreement of each metric, and the rankings.
class CorrelationSection {
 public:
  CorrelationSection(const Dataset& ds, std::span<const ItemRef> items,
                     const std::vector<std::vector<double>>& human,
                     const std::vector<std::string>& dimensions, const AuditOptions& options)
      : ds_(ds), items_(items), human_(human), dimensions_(dimensions), options_(options) {
    corr_ = {options.bootstrap, options.confidence, options.seed, options.threads};
    statistics_ = options.level_statistics;
    if (statistics_.empty()) statistics_ = {stats::LevelStatistic::kKendallB};
    has_pairs_ = std::any_of(ds.tasks.begin(), ds.tasks.end(),
                             [](const Task& t) { return !t.pairs.empty(); });
  }

  MetricCorrelations of(const std::string& dataset, const std::string& metric,
                        std::span<const double> scores, bool baseline = false) const {
    MetricCorrelations c;
    c.dataset = dataset;
    c.metric = metric;
    c.baseline = baseline;
    c.rows = human_correlations(scores, human_, dimensions_, corr_);
    if (!options_.levels.empty())
      c.levels = level_correlations(ds_, items_, scores, human_, dimensions_, options_.levels,
                                    statistics_, corr_);
    if (has_pairs_) c.preference = preference_agreement(ds_, items_, scores, corr_);
    return c;
  }

  // The human ceiling (several ratings per item), shown above the metrics.
  std::optional<MetricCorrelations> humans(const std::string& dataset) const {
    auto c = human_ceiling(ds_, items_, dimensions_, options_.levels, statistics_, corr_);
    if (c) c->dataset = dataset;
    return c;
  }

  // At each level (the item level when none is given), for the first statistic.
  std::vector<MetricRanking> rank(std::span<const NamedScores> columns) const {
    RankOptions ro;
    ro.statistic = statistics_.front();
    ro.permutations = options_.rank_permutations;
    ro.correction = options_.rank_correction;
    ro.alpha = options_.alpha;
    ro.seed = options_.seed;
    ro.threads = options_.threads;
    std::vector<MetricRanking> out;
    std::vector<stats::Level> levels = options_.levels;
    if (levels.empty()) levels.push_back(stats::Level::kItem);
    for (stats::Level level : levels) {
      ro.level = level;
      for (auto& r : rank_metrics(ds_, items_, columns, human_, dimensions_, ro))
        out.push_back(std::move(r));
    }
    return out;
  }

 private:
  const Dataset& ds_;
  std::span<const ItemRef> items_;
  const std::vector<std::vector<double>>& human_;
  const std::vector<std::string>& dimensions_;
  const AuditOptions& options_;
  CorrelationOptions corr_;
  std::vector<stats::LevelStatistic> statistics_;
  bool has_pairs_ = false;
};

// Progress across the stages of an audit (AuditOptions::overall_progress): a stage's items are
// planned when its dataset is loaded, counted as done as the stage reports them, and the stage's
// share is complete when it ends (items a stage skips, such as unapplied perturbations, too).
class OverallProgress {
 public:
  explicit OverallProgress(const AuditOptions& options) : options_(options) {}
  void plan(std::size_t stages, std::size_t items) {
    stages_ += stages;
    total_ += items;
    ++dataset_;
  }
  // A stage of `expected` items, of which `share` are planned (share >= expected).
  void begin(const std::string& name, std::size_t expected, std::size_t share) {
    name_ = name;
    ++stage_;
    base_ = done_;
    expected_ = expected;
    share_ = share;
    emit(done_);
  }
  // From the stage: `done` of the `missing` items it computes (the others were cached).
  void update(std::size_t done, std::size_t missing) {
    emit(base_ + std::min(expected_, expected_ - std::min(missing, expected_) + done));
  }
  void end() {
    done_ = base_ + share_;
    emit(done_);
  }

 private:
  void emit(std::size_t done) const {
    if (!options_.overall_progress) return;
    AuditOptions::Overall o;
    o.stage = name_;
    o.stage_index = stage_;
    o.stages = stages_;
    o.done = std::min(done, total_);
    o.total = total_;
    o.dataset = dataset_;
    o.datasets = options_.data.size();
    options_.overall_progress(o);
  }
  const AuditOptions& options_;
  std::string name_;
  std::size_t stages_ = 0, total_ = 0, dataset_ = 0, stage_ = 0;
  std::size_t done_ = 0, base_ = 0, expected_ = 0, share_ = 0;
};

class Auditor {
 public:
  Auditor(const AuditOptions& options, audit::AuditCache& cache, OverallProgress& overall)
      : options_(options), cache_(cache), overall_(overall) {}

  // Primary-part scores of one metric for `items` with candidate texts `texts`: the original
  // candidates (`strategy` empty) or a strategy's perturbations ("degradation R"). `identity`
  // holds item_identity(...).item for these items. `prefetch`: see AuditOptions::ExtraMetric.
  std::vector<double> scores(const Dataset& ds, std::span<const ItemRef> items,
                             std::span<const std::uint64_t> identity,
                             std::span<const std::string_view> texts, MetricSelection& metric,
                             const std::string& strategy, const Prefetch& prefetch) {
    // The strategy is not needed to identify a score (the text is), but keeps its rows together.
    const std::uint64_t stage = util::xxh3_64(fmt::format(
        "score\x1f{}\x1f{}\x1f{}", metric.metric->signature(), metric.primary, strategy));
    const std::string stage_name =
        "score " + metric.primary_name() + (strategy.empty() ? "" : " " + strategy);
    std::vector<audit::CacheKey> keys(items.size());
    util::parallel_for(
        items.size(), options_.threads,
        [&](std::size_t i) { keys[i] = item_key(stage, identity[i], texts[i]); }, 256);
    std::vector<double> out(items.size(), kNaN);
    std::vector<std::size_t> missing;
    if (cache_.has_stage(stage)) {
      std::vector<std::optional<double>> found;
      cache_.get_scores(keys, found);
      for (std::size_t i = 0; i < items.size(); ++i) {
        // An undefined score is recomputed: caches of earlier versions stored the NaN of a failed
        // or unusable LLM rating, which a re-run must ask again.
        if (found[i] && !std::isnan(*found[i])) {
          out[i] = *found[i];
        } else {
          missing.push_back(i);
        }
      }
    } else {
      cache_.count_skipped_lookups(items.size());
      missing.resize(items.size());
      std::iota(missing.begin(), missing.end(), std::size_t{0});
    }
    const bool model = prefetch || metric.metric->batch_size() > 0;
    const std::size_t batch = model ? kModelBatch : kBatch;
    for (std::size_t begin = 0; begin < missing.size(); begin += batch) {
      const std::size_t end = std::min(missing.size(), begin + batch);
      std::vector<ItemRef> batch_items;
      std::vector<std::string_view> batch_texts;
      for (std::size_t j = begin; j < end; ++j) {
        batch_items.push_back(items[missing[j]]);
        batch_texts.push_back(texts[missing[j]]);
      }
      if (prefetch) {  // extra metrics (AuditOptions::extra_metrics): the batch at once
        std::vector<MetricInput> inputs(batch_items.size());
        for (std::size_t j = 0; j < inputs.size(); ++j)
          set_input(inputs[j], ds.tasks[batch_items[j].task], batch_texts[j]);
        prefetch(inputs);
      }
      ScoreOptions so;
      so.threads = options_.threads;
      so.fit = false;
      auto computed =
          compute_stats(ds, batch_items, std::span<MetricSelection>(&metric, 1), so, batch_texts);
      util::parallel_for(
          end - begin, options_.threads,
          [&](std::size_t j) {
            thread_local std::vector<double> parts;
            parts.resize(metric.metric->parts().size());
            metric.metric->sentence_score(computed[0].row(j), parts);
            out[missing[begin + j]] = parts[metric.primary];
          },
          256);
      // Undefined scores are not stored: a model-backed metric gives NaN for a failed request or
      // an unusable answer, which the next run must ask again (other metrics' undefined items are
      // few and cheap to recompute).
      std::vector<std::pair<audit::CacheKey, double>> rows;
      for (std::size_t j = begin; j < end; ++j)
        if (!std::isnan(out[missing[j]])) rows.emplace_back(keys[missing[j]], out[missing[j]]);
      cache_.put_scores(std::move(rows));  // committed by the writer while the next batch runs
      if (options_.progress) options_.progress(stage_name, end, missing.size());
      overall_.update(end, missing.size());
    }
    if (metric.orientation() < 0)  // the cache keeps the metric's own values
      for (double& v : out) v = -v;
    return out;
  }

  // Model-backed strategies' results go through the cache (their answers are the expensive
  // part); rule-based ones are recomputed on a re-run, which costs less than storing their texts.
  std::vector<PerturbResult> perturb(const Dataset& ds, const std::string& name,
                                     std::span<const ItemRef> items,
                                     std::span<const std::uint64_t> identity,
                                     const Perturbation& strategy) {
    std::vector<PerturbResult> results(items.size());
    const std::string stage_name =
        fmt::format("perturb {} {}", kind_name(strategy.kind()), strategy.code());
    auto apply = [&](std::size_t i) {
      results[i] = strategy.apply({&ds, items[i].task, items[i].candidate, options_.seed});
    };
    if (!strategy.batched()) {
      util::parallel_for(items.size(), options_.threads, apply, 16);
      if (options_.progress) options_.progress(stage_name, items.size(), items.size());
      overall_.update(items.size(), items.size());
      return results;
    }
    const std::uint64_t stage = util::xxh3_64(
        fmt::format("perturb\x1f{}\x1f{}\x1f{}", strategy.signature(), options_.seed, name));
    std::vector<audit::CacheKey> keys(items.size());
    for (std::size_t i = 0; i < items.size(); ++i)
      keys[i] =
          item_key(stage, identity[i], ds.tasks[items[i].task].candidates[items[i].candidate].text);
    std::vector<std::optional<PerturbResult>> found;
    cache_.get_perturbations(keys, found);
    std::vector<std::size_t> missing;
    for (std::size_t i = 0; i < items.size(); ++i) {
      // Failures are asked again (caches of earlier versions stored them).
      if (found[i] && found[i]->status != PerturbResult::Status::kFailed) {
        results[i] = std::move(*found[i]);
      } else {
        missing.push_back(i);
      }
    }
    for (std::size_t begin = 0; begin < missing.size(); begin += kModelBatch) {
      const std::size_t end = std::min(missing.size(), begin + kModelBatch);
      std::vector<PerturbContext> contexts;
      for (std::size_t j = begin; j < end; ++j)
        contexts.push_back(
            {&ds, items[missing[j]].task, items[missing[j]].candidate, options_.seed});
      auto done = strategy.apply_many(contexts);
      std::vector<std::pair<audit::CacheKey, PerturbResult>> rows;
      for (std::size_t j = begin; j < end; ++j) {
        results[missing[j]] = std::move(done[j - begin]);
        // A failure (a request that failed, an answer that could not be used) is not stored:
        // the next run asks again.
        if (results[missing[j]].status != PerturbResult::Status::kFailed)
          rows.emplace_back(keys[missing[j]], results[missing[j]]);
      }
      cache_.put_perturbations(std::move(rows));
      if (options_.progress) options_.progress(stage_name, end, missing.size());
      overall_.update(end, missing.size());
    }
    return results;
  }

 private:
  const AuditOptions& options_;
  audit::AuditCache& cache_;
  OverallProgress& overall_;
};

double mean_of(std::span<const double> v) {
  double s = 0;
  for (double x : v) s += x;
  return v.empty() ? kNaN : s / static_cast<double>(v.size());
}

}  // namespace

StrategyTest test_strategy(StrategyKind kind, std::span<const double> orig_all,
                           std::span<const double> pert_all,
                           std::span<const PerturbResult::Status> status, double alpha,
                           std::size_t bootstrap, double confidence, std::uint64_t seed,
                           unsigned threads, std::size_t min_applied, double margin,
                           PairedTest test) {
  StrategyTest t;
  t.kind = kind;
  t.margin = margin;
  t.considered = status.size();
  std::vector<double> orig, pert;
  for (std::size_t i = 0; i < status.size(); ++i) {
    switch (status[i]) {
      case PerturbResult::Status::kNotApplicable:
        ++t.not_applicable;
        continue;
      case PerturbResult::Status::kUnchanged:
        ++t.unchanged;
        continue;
      case PerturbResult::Status::kFailed:
        ++t.failed;
        continue;
      case PerturbResult::Status::kApplied:
        break;
    }
    if (!std::isfinite(orig_all[i]) || !std::isfinite(pert_all[i])) {
      ++t.undefined;
      continue;
    }
    ++t.applied;
    orig.push_back(orig_all[i]);
    pert.push_back(pert_all[i]);
  }
  // All of a small dataset's items, never fewer than two.
  const std::size_t needed = std::max<std::size_t>(2, std::min(min_applied, t.considered));
  t.testable = t.applied >= needed;
  if (!t.testable) {
    t.reason = NotTestable::kTooFewApplied;
    t.untestable = fmt::format("{} applied item{}, fewer than {}", t.applied,
                               t.applied == 1 ? "" : "s", needed);
  }
  t.mean_original = mean_of(orig);
  t.mean_perturbed = mean_of(pert);
  auto r = t.testable ? stats::paired_t(pert, orig) : stats::PairedTResult{};
  if (t.testable && !std::isfinite(r.smd)) {
    // Scores that do not vary (up to rounding): no scale to measure a change in, no verdict.
    t.testable = false;
    t.reason = NotTestable::kConstantScores;
    t.untestable = "constant scores (the pooled sd is zero)";
  }
  if (!t.testable) {
    t.mean_delta = t.sd_delta = t.pooled_sd = t.t = t.df = t.p = t.p_holm = t.p_equiv =
        t.p_equiv_holm = kNaN;
    t.d = t.d_lo = t.d_hi = t.d_boot_lo = t.d_boot_hi = kNaN;
    return t;
  }
  const bool degradation = kind == StrategyKind::kDegradation;
  t.mean_delta = r.mean_delta;
  t.sd_delta = r.sd_delta;
  t.pooled_sd = r.pooled_sd;
  t.t = r.t;
  t.df = r.df;
  t.test = test;
  const stats::Alternative direction =
      degradation ? stats::Alternative::kLess : stats::Alternative::kGreater;
  // The equivalence test is the same test of the differences shifted by the margin (in score
  // units), in the other direction: a drop of margin or more (degradation), a rise (manipulation).
  const double bound = margin * r.pooled_sd;
  std::vector<double> delta(orig.size()), shifted(orig.size());
  for (std::size_t i = 0; i < delta.size(); ++i) {
    delta[i] = pert[i] - orig[i];
    shifted[i] = delta[i] + (degradation ? bound : -bound);
  }
  const stats::Alternative within =
      degradation ? stats::Alternative::kGreater : stats::Alternative::kLess;
  switch (test) {
    case PairedTest::kT: {
      t.p = degradation ? r.p_less : r.p_greater;
      const auto equivalence = stats::paired_equivalence(r, margin);
      t.p_equiv = degradation ? equivalence.p_above_lower : equivalence.p_below_upper;
      break;
    }
    case PairedTest::kWilcoxon:
      // SciPy's defaults: zeros dropped ("wilcox"), exact for small n without ties.
      t.p = stats::wilcoxon(delta, stats::WilcoxonZeroMethod::kWilcox, false, direction).p;
      t.p_equiv = stats::wilcoxon(shifted, stats::WilcoxonZeroMethod::kWilcox, false, within).p;
      break;
    case PairedTest::kSign:
      t.p = stats::sign_test(delta, direction).p;
      t.p_equiv = stats::sign_test(shifted, within).p;
      break;
  }
  // A degradation passes when the metric detects the drop; a manipulation fails when the metric
  // rewards it. An undefined p (no variance in Δ) is no evidence either way.
  const bool significant = std::isfinite(t.p) && t.p < alpha;
  t.passed = degradation ? significant : !significant;
  t.passed_holm = t.passed;
  t.p_holm = t.p;
  t.p_equiv_holm = t.p_equiv;
  t.outcome = t.outcome_holm = decide_outcome(kind, t.p, t.p_equiv, alpha);
  // The effect this test finds with 80% power, in the units of d (TTestPower's effect size is
  // mean Δ / sd(Δ)).
  t.mde =
      stats::ttest_mde(static_cast<double>(r.n), kMdePower, alpha, stats::Alternative::kGreater) *
      r.sd_delta / r.pooled_sd;
  t.d = r.smd;
  t.d_lo = r.smd - r.smd_ci_half_width;
  t.d_hi = r.smd + r.smd_ci_half_width;
  t.d_boot_lo = t.d_boot_hi = kNaN;
  if (bootstrap > 0) {
    stats::BootstrapOptions bo;
    bo.resamples = bootstrap;
    bo.confidence = confidence;
    bo.seed = seed;
    bo.threads = threads;
    auto b = stats::bootstrap_smd(pert, orig, bo);
    t.d_boot_lo = b.ci.low;
    t.d_boot_hi = b.ci.high;
  }
  return t;
}

// Holm within each family: the tests of one dataset, metric and kind.
void apply_holm(std::vector<StrategyTest>& tests, double alpha) {
  std::vector<bool> done(tests.size(), false);
  for (std::size_t i = 0; i < tests.size(); ++i) {
    if (done[i]) continue;
    std::vector<std::size_t> family;
    for (std::size_t j = i; j < tests.size(); ++j) {
      if (tests[j].dataset == tests[i].dataset && tests[j].metric == tests[i].metric &&
          tests[j].kind == tests[i].kind) {
        family.push_back(j);
        done[j] = true;
      }
    }
    std::vector<double> p, p_equiv;
    for (std::size_t j : family) {
      p.push_back(tests[j].testable ? tests[j].p : kNaN);
      p_equiv.push_back(tests[j].testable ? tests[j].p_equiv : kNaN);
    }
    // Both families of hypotheses are corrected: a verdict of robustness from many equivalence
    // tests needs the same protection as a finding from many effect tests.
    const auto adj = stats::holm(p, alpha);
    const auto adj_equiv = stats::holm(p_equiv, alpha);
    for (std::size_t k = 0; k < family.size(); ++k) {
      StrategyTest& t = tests[family[k]];
      t.p_holm = adj.adjusted[k];
      t.p_equiv_holm = adj_equiv.adjusted[k];
      if (!t.testable) continue;
      const bool significant = std::isfinite(t.p_holm) && t.p_holm < alpha;
      t.passed_holm = t.kind == StrategyKind::kDegradation ? significant : !significant;
      t.outcome_holm = decide_outcome(t.kind, t.p_holm, t.p_equiv_holm, alpha);
    }
  }
}

bool in_shard(std::string_view task_id, std::size_t index, std::size_t count) {
  return count <= 1 || util::mix64(util::fnv1a64(task_id)) % count == index;
}

AuditReport run_audit(const AuditOptions& options) {
  Engine engine;
  return run_audit(options, engine);
}

std::vector<std::size_t> choose_sample(std::size_t n, std::size_t k, std::uint64_t seed,
                                       const std::string& name) {
  std::vector<std::size_t> idx(n);
  std::iota(idx.begin(), idx.end(), 0);
  if (k == 0 || k >= n) return idx;
  util::Rng rng(seed, util::fnv1a64(name));
  for (std::size_t i = 0; i < k; ++i) {  // partial Fisher-Yates
    std::size_t j = i + rng.below(static_cast<std::uint32_t>(n - i));
    std::swap(idx[i], idx[j]);
  }
  idx.resize(k);
  std::sort(idx.begin(), idx.end());
  return idx;
}

namespace {

bool is_none(const std::vector<std::string>& list) {
  return list.empty() || (list.size() == 1 && list.front() == "none");
}

bool is_all(const std::vector<std::string>& list) {
  return list.size() == 1 && list.front() == "all";
}

// The protocol's rules, once for every front end: "none" lists, what a suite chooses, what a
// shard computes, and what the attack section takes from the audit.
AuditOptions with_protocol(const AuditOptions& request) {
  AuditOptions o = request;
  if (!o.suite.empty()) {
    if (!is_all(o.degradations) || !is_all(o.manipulations))
      throw UsageError(
          "audit: --suite chooses the strategies; give it without --degrade/--manipulate");
    o.degradations.clear();
    o.manipulations.clear();
    if (!o.sample) o.sample = perturb::SuitePlan{}.sample;
  }
  for (auto* list : {&o.degradations, &o.manipulations})
    if (is_none(*list)) list->clear();
  if (!o.sample) o.sample = 0;
  if (o.shard_count > 1) o.bootstrap = 0;  // a shard reports no statistics
  AttackOptions& a = o.attack_options;
  a.seed = o.seed;
  a.alpha = o.alpha;
  a.margin = o.margin;
  a.bootstrap = o.bootstrap;
  a.min_applied = o.min_applied;
  a.threads = o.threads;
  return o;
}

}  // namespace

AuditReport run_audit(const AuditOptions& request, Engine& engine) {
  auto start = std::chrono::steady_clock::now();
  const AuditOptions options = with_protocol(request);
  if (options.data.empty()) throw UsageError("audit: at least one --data file is required");
  if (options.metrics.empty() && options.extra_metrics.empty())
    throw UsageError("audit: at least one --metric is required");
  if (options.out_dir.empty()) throw UsageError("audit: --out DIR is required");
  audit::check_request(options);

  std::vector<MetricSelection> metrics;
  for (const auto& m : options.metrics) metrics.push_back(select_metric(m, engine));
  std::vector<Prefetch> prefetch(metrics.size());
  for (const auto& e : options.extra_metrics) {  // metrics given as objects
    MetricSelection sel;
    sel.spec = e.spec;
    sel.parsed = MetricSpec::parse(e.spec);
    sel.metric = e.make();
    sel.primary = sel.metric->primary_part();
    sel.parts = {sel.primary};
    metrics.push_back(std::move(sel));
    prefetch.push_back(e.prefetch);
  }
  check_distinct_names(metrics);
  auto make_strategies = [&engine](const std::vector<std::string>& degradations,
                                   const std::vector<std::string>& manipulations) {
    const auto& registry = engine.strategies();
    auto out = perturb::create_strategies(StrategyKind::kDegradation, degradations, registry);
    for (auto& s : perturb::create_strategies(StrategyKind::kManipulation, manipulations, registry))
      out.push_back(std::move(s));
    return out;
  };
  std::vector<std::unique_ptr<Perturbation>> strategies;
  if (options.suite.empty())
    strategies = make_strategies(options.degradations, options.manipulations);

  refuse_outputs_over_inputs(options, engine);
  std::vector<std::string> paths;
  for (const auto& d : options.data) paths.push_back(d.name());
  const std::vector<std::string> names = dataset_names(paths);
  create_output_directory(options.out_dir);
  if (options.shard_count == 0 || options.shard_index >= options.shard_count)
    throw UsageError(fmt::format("audit: shard {}/{} does not exist (index 0..count-1)",
                                 options.shard_index, options.shard_count));
  const auto cache_path = std::filesystem::path(options.out_dir) / "cache.sqlite";
  audit::AuditCache cache(cache_path.string());
  if (cache.reset_from_old_format() && options.note)
    options.note(fmt::format(
        "{} was written by an earlier probity in a format this one does not read; it was emptied "
        "and this run recomputes everything",
        cache_path.string()));
  for (const auto& path : options.import_caches) {
    if (is_own_cache(path, options.out_dir)) continue;
    const auto file = import_file(path);
    if (!std::filesystem::exists(file))
      throw UsageError(fmt::format("audit: no cache to import at '{}'", file.string()));
    cache.import(file.string());
  }
  OverallProgress overall(options);
  Auditor auditor(options, cache, overall);

  AuditReport report;
  report.version = version();
  report.seed = options.seed;
  report.sample = *options.sample;
  report.bootstrap = options.bootstrap;
  report.min_applied = options.min_applied;
  report.alpha = options.alpha;
  report.margin = options.margin;
  report.test = options.test;
  report.confidence = options.confidence;
  for (stats::Level level : options.levels) report.levels.emplace_back(stats::level_name(level));
  auto list_strategies = [&](const std::vector<std::unique_ptr<Perturbation>>& list) {
    for (const auto& s : list) {
      const bool known = std::any_of(
          report.strategies.begin(), report.strategies.end(),
          [&](const StrategyInfo& i) { return i.kind == s->kind() && i.code == s->code(); });
      if (!known)
        report.strategies.push_back(
            {s->kind(), s->code(), s->name(), s->description(), s->signature()});
    }
  };
  list_strategies(strategies);

  for (std::size_t d = 0; d < options.data.size(); ++d) {
    const std::string& path = paths[d];
    Dataset ds = options.data[d].load({options.skip_invalid});
    set_default_language(ds, options.lang);
    // Detected once per task here instead of by every rule strategy for every candidate (the
    // detector reads the task's texts: a third of a lexical audit's CPU when run per item).
    util::parallel_for(
        ds.tasks.size(), options.threads,
        [&](std::size_t t) {
          if (ds.tasks[t].lang.empty()) ds.tasks[t].lang = task_language(ds.tasks[t]);
        },
        16);
    const std::string& name = names[d];
    if (ds.num_candidates() == 0)
      throw InputError(path, 0, "",
                       ds.skipped.empty()
                           ? std::string("no valid items: the dataset holds no candidates")
                           : fmt::format("no valid items: all {} were skipped", ds.skipped.size()));
    if (!options.suite.empty()) {
      // The suite's strategies for this kind of dataset, against one ground-truth reference.
      const auto plan = perturb::resolve_suite(options.suite, ds);
      strategies = make_strategies(plan.degradations, plan.manipulations);
      list_strategies(strategies);
      if (plan.single_reference)
        for (auto& task : ds.tasks)
          if (const Reference* gt = perturb::ground_truth_reference(task)) task.references = {*gt};
    }
    auto all = all_items(ds);
    auto chosen = choose_sample(all.size(), *options.sample, options.seed, name);
    std::vector<ItemRef> items;
    // The shard filter comes after sampling, so the shards partition the unsharded run's items.
    for (std::size_t i : chosen)
      if (in_shard(ds.tasks[all[i].task].task_id, options.shard_index, options.shard_count))
        items.push_back(all[i]);
    std::vector<std::string_view> texts;
    for (const auto& it : items) texts.push_back(ds.tasks[it.task].candidates[it.candidate].text);

    DatasetSummary summary{
        name,      path, ds.tasks.size(), ds.num_candidates(), items.size(), ds.dimensions(),
        ds.skipped};
    if (!options.dimensions.empty()) {
      for (const auto& dim : options.dimensions)
        if (std::find(summary.dimensions.begin(), summary.dimensions.end(), dim) ==
            summary.dimensions.end())
          throw UsageError(fmt::format("audit: dimension '{}' is not in '{}' (dimensions: {})", dim,
                                       path, fmt::join(summary.dimensions, ", ")));
      summary.dimensions = options.dimensions;
    }
    report.datasets.push_back(summary);

    const bool wants_systems = std::find(options.levels.begin(), options.levels.end(),
                                         stats::Level::kSystem) != options.levels.end();
    if (wants_systems && std::none_of(items.begin(), items.end(), [&](const ItemRef& it) {
          return !ds.tasks[it.task].candidates[it.candidate].system.empty();
        }))
      throw UsageError(fmt::format(
          "audit: --level system needs candidates that name their system (the `system` field); "
          "'{}' has none",
          path));
    for (const auto& m : metrics) require_references(ds, items, m);
    for (auto& m : metrics) m.metric->fit(ds.tasks);
    const std::vector<std::uint64_t> identity = item_identity(ds, items).item;
    const auto human = human_matrix(ds, items, summary.dimensions);
    const CorrelationSection section(ds, items, human, summary.dimensions, options);
    if (auto humans = section.humans(name)) report.correlations.push_back(std::move(*humans));
    std::vector<std::vector<double>> original(metrics.size());
    std::vector<NamedScores> ranked;
    // Stages: each metric on the originals, then per strategy its perturbation and each metric.
    const std::size_t n = items.size(), nm = metrics.size(), ns = strategies.size();
    overall.plan(nm + ns * (1 + nm), n * nm + ns * n * (1 + nm));
    for (std::size_t m = 0; m < metrics.size(); ++m) {
      overall.begin("score " + metrics[m].primary_name(), n, n);
      original[m] = auditor.scores(ds, items, identity, texts, metrics[m], "", prefetch[m]);
      overall.end();
      report.correlations.push_back(section.of(name, metrics[m].oriented_name(), original[m]));
      ranked.push_back({metrics[m].oriented_name(), original[m]});
      if (const auto design = metrics[m].metric->judge_design()) {
        // The verdicts behind the scores: the judge keeps its answers, so this asks nothing
        // again in the same run (a resumed run whose scores came from the cache asks its
        // LLM cache).
        ScoreOptions so;
        so.threads = options.threads;
        so.fit = false;
        const auto stats =
            compute_stats(ds, items, std::span<MetricSelection>(&metrics[m], 1), so, texts);
        stats::BootstrapOptions boot;
        boot.resamples = options.bootstrap;
        boot.confidence = options.confidence;
        boot.seed = options.seed;
        boot.threads = options.threads;
        auto diagnostics =
            audit::judge_diagnostics(ds, items, texts, stats[0], *design, human, boot);
        for (auto& v : audit::human_pair_diagnostics(ds, items, metrics[m], *design, boot))
          diagnostics.values.push_back(std::move(v));
        diagnostics.dataset = name;
        diagnostics.metric = metrics[m].oriented_name();
        report.judge_diagnostics.push_back(std::move(diagnostics));
      }
    }
    std::vector<BaselineScores> baselines;
    if (options.baselines) baselines = baseline_scores(ds, items);
    for (const auto& b : baselines) {
      report.correlations.push_back(section.of(name, b.metric, b.values, true));
      ranked.push_back({b.metric, b.values, true});
    }
    if (options.rank && ranked.size() >= 2 && !summary.dimensions.empty())
      for (auto& r : section.rank(ranked)) {
        r.dataset = name;
        report.rankings.push_back(std::move(r));
      }

    for (const auto& strategy : strategies) {
      overall.begin(fmt::format("perturb {} {}", kind_name(strategy->kind()), strategy->code()), n,
                    n);
      auto results = auditor.perturb(ds, name, items, identity, *strategy);
      overall.end();
      std::vector<PerturbResult::Status> statuses;
      // Items the strategy has no rules for in their language, and which languages.
      std::size_t wrong_language = 0;
      std::set<std::string> languages;
      for (std::size_t i = 0; i < results.size(); ++i) {
        const auto& r = results[i];
        statuses.push_back(r.status);
        if (r.status == PerturbResult::Status::kNotApplicable && is_language_note(r.note)) {
          ++wrong_language;
          languages.insert(task_language(ds.tasks[items[i].task]));
        }
      }
      // Only applied perturbations are scored; the others are counted by the test and left
      // out of it, never scored as Δ = 0.
      std::vector<ItemRef> applied_items;
      std::vector<std::uint64_t> applied_identity;
      std::vector<std::string_view> applied_texts;
      std::vector<std::size_t> applied_pos;
      for (std::size_t i = 0; i < items.size(); ++i) {
        if (results[i].status != PerturbResult::Status::kApplied) continue;
        applied_items.push_back(items[i]);
        applied_identity.push_back(identity[i]);
        applied_texts.push_back(results[i].text);
        applied_pos.push_back(i);
      }
      if (!applied_pos.empty()) {
        const auto& r = results[applied_pos.front()];
        const auto& it = items[applied_pos.front()];
        const Task& task = ds.tasks[it.task];
        auto shown = audit::excerpt_edit(texts[applied_pos.front()], r.text);
        report.examples.push_back({name, task.task_id, task.candidates[it.candidate].id,
                                   strategy->kind(), strategy->code(), std::move(shown.original),
                                   std::move(shown.edited)});
      }
      for (std::size_t m = 0; m < metrics.size(); ++m) {
        std::vector<double> perturbed(items.size(), kNaN);
        overall.begin(fmt::format("score {} {} {}", metrics[m].primary_name(),
                                  kind_name(strategy->kind()), strategy->code()),
                      applied_items.size(), n);
        auto applied_scores = auditor.scores(
            ds, applied_items, applied_identity, applied_texts, metrics[m],
            fmt::format("{} {}", kind_name(strategy->kind()), strategy->code()), prefetch[m]);
        overall.end();
        for (std::size_t j = 0; j < applied_pos.size(); ++j)
          perturbed[applied_pos[j]] = applied_scores[j];
        std::uint64_t boot_seed =
            options.seed ^ util::fnv1a64(name + strategy->name() + metrics[m].primary_name());
        StrategyTest t =
            test_strategy(strategy->kind(), original[m], perturbed, statuses, options.alpha,
                          options.bootstrap, options.confidence, boot_seed, options.threads,
                          options.min_applied, options.margin, options.test);
        // Untestable mostly because of the language: say so ("n/a (language)")
        // asks, rather than "too few applied items".
        if (!t.testable && wrong_language > 0 && 2 * wrong_language >= t.considered) {
          t.reason = NotTestable::kLanguage;
          t.untestable = fmt::format("language ({}: {} of {} items)", fmt::join(languages, ", "),
                                     wrong_language, t.considered);
        }
        t.dataset = name;
        t.metric = metrics[m].oriented_name();
        t.code = strategy->code();
        t.name = strategy->name();
        report.tests.push_back(std::move(t));
      }
    }
    if (options.attack) {
      AttackOptions ao = options.attack_options;
      ao.fit = false;  // fitted above
      const auto registry = perturb::EditOpRegistry::builtin();
      for (auto& a : run_attack(ds, items, metrics, ao, registry, engine.llm_or_null()).metrics) {
        a.dataset = name;
        report.attacks.push_back(std::move(a));
      }
    }
  }
  apply_holm(report.tests, options.alpha);
  report.replicability = replicability(report.tests, options.alpha);
  for (const auto& m : metrics) {
    report.metrics.push_back(m.oriented_name());
    report.signatures.push_back(m.metric->signature());
  }
  if (const auto& session = engine.llm_or_null())
    report.llm_usage = session->accounting().to_json();
  cache.flush();  // every score is committed before the report says the run is complete
  report.cache_hits = cache.hits();
  report.cache_misses = cache.misses();
  report.seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  return report;
}

}  // namespace probity
