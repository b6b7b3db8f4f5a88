// Automatic meta-evaluation benchmarks (arXiv:2502.12052, ACL 2025): local sequences by cumulative
// one-error-per-step injection into a reference, and global items levelled by anchoring.
#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <map>
#include <nlohmann/json.hpp>
#include <numeric>
#include <stdexcept>

#include "probity/engine.hpp"
#include "probity/error.hpp"
#include "probity/meta.hpp"
#include "probity/signature.hpp"
#include "probity/text.hpp"
#include "util/random.hpp"

namespace probity::meta {
namespace {

using json = nlohmann::ordered_json;

// Tasks in a seeded order (independent of file order), keeping those with an editable base
// reference and at least one other reference.
std::vector<std::size_t> seeded_task_order(const Dataset& ds, std::uint64_t seed) {
  std::vector<std::pair<std::uint64_t, std::size_t>> keyed;
  for (std::size_t t = 0; t < ds.tasks.size(); ++t)
    keyed.emplace_back(derive_seed(seed, {"source-order", ds.tasks[t].task_id}), t);
  std::sort(keyed.begin(), keyed.end());
  std::vector<std::size_t> out;
  for (const auto& [key, t] : keyed) out.push_back(t);
  return out;
}

// Off-topic material for a task: the sentences of the base references of up to 8 other tasks of
// the same group, drawn with the seed.
std::vector<std::string> off_topic_pool(const Dataset& ds, std::size_t task,
                                        const std::vector<std::size_t>& order, std::size_t base_ref,
                                        std::uint64_t seed) {
  std::vector<std::size_t> others;
  for (std::size_t t : order)
    if (t != task && ds.tasks[t].group == ds.tasks[task].group &&
        ds.tasks[t].references.size() > base_ref)
      others.push_back(t);
  util::SplitMix64 rng(derive_seed(seed, {"off-topic", ds.tasks[task].task_id}));
  const std::size_t take = std::min<std::size_t>(8, others.size());
  for (std::size_t i = 0; i < take; ++i)
    std::swap(others[i], others[i + rng.below(others.size() - i)]);
  std::vector<std::string> out;
  for (std::size_t i = 0; i < take; ++i)
    for (auto& s : text::split_sentences(ds.tasks[others[i]].references[base_ref].text))
      out.push_back(std::move(s));
  return out;
}

json edit_json(const Edit& e) {
  return {{"type", e.type},
          {"description", e.description},
          {"begin", e.begin},
          {"removed", e.removed},
          {"inserted", e.inserted}};
}

void count_edit(BenchStats& stats, const std::string& type) {
  for (auto& [name, n] : stats.injector_counts) {
    if (name == type) {
      ++n;
      return;
    }
  }
  stats.injector_counts.emplace_back(type, 1);
}

// Failed steps and early stops of a built sequence, into the statistics.
void count_stop(BenchStats& stats, const BuiltSequence& seq) {
  stats.rejected_answers += seq.rejected_answers;
  if (seq.stop_reason == "not-applicable") ++stats.inapplicable_stops;
  if (!seq.failed()) return;
  ++stats.failed_steps;
  for (auto& [reason, n] : stats.step_failures) {
    if (reason == seq.stop_reason) {
      ++n;
      return;
    }
  }
  stats.step_failures.emplace_back(seq.stop_reason, 1);
}

bool usable(const Task& t, std::size_t base_ref) {
  return t.references.size() > base_ref && t.references.size() >= 2;
}

Task reduced_task(const Task& t, std::size_t base_ref, std::string_view dim) {
  Task out;
  out.task_id = fmt::format("{}#{}", t.task_id, dim);
  out.group = fmt::format("{}/{}", t.group, dim);
  out.source = t.source;
  out.lang = t.lang;
  for (std::size_t r = 0; r < t.references.size(); ++r)
    if (r != base_ref) out.references.push_back(t.references[r]);
  return out;
}

}  // namespace

Benchmark build_local_benchmark(const Dataset& ds, const BenchOptions& options) {
  auto rules = make_rule_injector();
  return build_local_benchmark(ds, options, *rules);
}

Benchmark build_local_benchmark(const Dataset& ds, const BenchOptions& options,
                                Injector& injector) {
  Benchmark b;
  b.stats.injector = injector.signature();
  const std::string dim(dimension_name(options.dimension));
  const auto order = seeded_task_order(ds, options.seed);
  // Rounds: the next sources still needed (in the seeded order) are built in one call, so a
  // model-backed injector batches their steps; a source without an edit is replaced by the next
  // one in the following round. This visits exactly the sources a one-at-a-time loop would.
  std::size_t next = 0;
  while (next < order.size() && (options.sources == 0 || b.stats.sources < options.sources)) {
    const std::size_t want =
        options.sources == 0 ? order.size() : options.sources - b.stats.sources;
    std::vector<std::size_t> tasks;
    for (; next < order.size() && tasks.size() < want; ++next) {
      if (usable(ds.tasks[order[next]], options.base_reference)) {
        tasks.push_back(order[next]);
      } else {
        ++b.stats.skipped_sources;
      }
    }
    // Pools first, then the contexts viewing them (their strings must not move).
    std::vector<std::vector<std::string>> pools;
    for (std::size_t t : tasks)
      pools.push_back(off_topic_pool(ds, t, order, options.base_reference, options.seed));
    std::vector<InjectionContext> contexts(tasks.size());
    std::vector<SequenceSpec> specs;
    for (std::size_t i = 0; i < tasks.size(); ++i) {
      const Task& task = ds.tasks[tasks[i]];
      contexts[i].source = task.source;
      for (const auto& s : pools[i]) contexts[i].off_topic.push_back(s);
      specs.push_back({task.references[options.base_reference].text, options.steps, &contexts[i],
                       derive_seed(options.seed, {"local", task.task_id, dim})});
    }
    auto built = injector.build(options.dimension, specs);
    for (std::size_t i = 0; i < tasks.size(); ++i) {
      const Task& task = ds.tasks[tasks[i]];
      auto& seq = built[i];
      count_stop(b.stats, seq);
      if (seq.texts.size() < 2) {
        ++b.stats.skipped_sources;
        continue;
      }
      const auto& base = task.references[options.base_reference];
      Task out = reduced_task(task, options.base_reference, dim);
      TaskMeta meta;
      const std::size_t k = seq.texts.size() - 1;
      json tm = {{"benchmark", "local"},      {"dimension", dim}, {"source_task", task.task_id},
                 {"base_reference", base.id}, {"steps", k},       {"seed", options.seed}};
      // Model-backed injection only (rule-based output is unchanged): the injector and why a
      // sequence ended early.
      if (b.stats.injector != "rules") tm["injector"] = b.stats.injector;
      if (seq.failed()) tm["stopped"] = {{"reason", seq.stop_reason}, {"detail", seq.stop_detail}};
      meta.task = tm.dump();
      for (std::size_t j = 0; j <= k; ++j) {
        Candidate c;
        c.id = fmt::format("step{}", j);
        c.system = c.id;
        c.text = seq.texts[j];
        // Rating = steps − errors: higher is better, and the same number of errors gets the
        // same rating in every sequence (a sequence that stopped early keeps its scale).
        c.human[dim] = {static_cast<double>(options.steps - j)};
        out.candidates.push_back(std::move(c));
        json cm = {{"step", j}, {"errors", j}};
        cm["edit"] = j == 0 ? json(nullptr) : edit_json(seq.edits[j - 1]);
        meta.candidates.push_back(cm.dump());
        if (j > 0) count_edit(b.stats, seq.edits[j - 1].type);
      }
      b.stats.items += k + 1;
      b.stats.full_length += k == options.steps ? 1 : 0;
      ++b.stats.sources;
      b.dataset.tasks.push_back(std::move(out));
      b.meta.push_back(std::move(meta));
    }
  }
  return b;
}

double anchor_level(std::span<const int> comparisons, std::span<const double> anchor_levels) {
  if (comparisons.size() != anchor_levels.size())
    throw std::invalid_argument("anchor_level: one comparison per anchor");
  std::vector<double> levels(anchor_levels.begin(), anchor_levels.end());
  std::sort(levels.begin(), levels.end());
  levels.erase(std::unique(levels.begin(), levels.end()), levels.end());
  if (levels.empty()) throw std::invalid_argument("anchor_level: no anchors");
  // Per level: share of anchors the item fails to beat, and share it fails to lose to.
  const std::size_t nl = levels.size();
  std::vector<double> not_beaten(nl, 0.0), not_lost(nl, 0.0), count(nl, 0.0);
  for (std::size_t a = 0; a < comparisons.size(); ++a) {
    const auto l = static_cast<std::size_t>(
        std::lower_bound(levels.begin(), levels.end(), anchor_levels[a]) - levels.begin());
    count[l] += 1.0;
    const int c = comparisons[a];
    not_beaten[l] += c > 0 ? 0.0 : (c == 0 ? 0.5 : 1.0);
    not_lost[l] += c < 0 ? 0.0 : (c == 0 ? 0.5 : 1.0);
  }
  std::vector<double> cost(nl, 0.0);
  for (std::size_t l = 0; l < nl; ++l) {
    for (std::size_t k = 0; k < l; ++k) cost[l] += not_beaten[k] / count[k];
    for (std::size_t k = l + 1; k < nl; ++k) cost[l] += not_lost[k] / count[k];
  }
  const double best = *std::min_element(cost.begin(), cost.end());
  std::vector<std::size_t> ties;
  for (std::size_t l = 0; l < nl; ++l)
    if (cost[l] <= best + 1e-12) ties.push_back(l);
  return levels[ties[(ties.size() - 1) / 2]];
}

namespace {

class MetricAnchorJudge final : public AnchorJudge {
 public:
  MetricAnchorJudge(const std::string& spec, unsigned threads, Engine& engine) : threads_(threads) {
    metric_.push_back(select_metric(spec, engine));
  }
  std::string signature() const override {
    return Signature("metric:" + metric_[0].primary_name())
        .part(metric_[0].metric->signature())
        .format();
  }
  void prepare(const Dataset& ds, std::span<const ItemRef> items) override {
    ScoreOptions so;
    so.threads = threads_;
    auto stats = compute_stats(ds, items, metric_, so);
    const Metric& m = *metric_[0].metric;
    scores_.assign(items.size(), 0.0);
    std::vector<double> parts(m.parts().size());
    for (std::size_t i = 0; i < items.size(); ++i) {
      m.sentence_score(stats[0].row(i), parts);
      scores_[i] = parts[metric_[0].primary];
    }
  }
  int compare(std::size_t a, std::size_t b) const override {
    const double x = scores_[a], y = scores_[b];
    if (!std::isfinite(x) || !std::isfinite(y) || x == y) return 0;
    return x > y ? 1 : -1;
  }

 private:
  unsigned threads_;
  std::vector<MetricSelection> metric_;
  std::vector<double> scores_;
};

}  // namespace

std::unique_ptr<AnchorJudge> make_metric_anchor_judge(const std::string& metric_spec,
                                                      Engine& engine, unsigned threads) {
  return std::make_unique<MetricAnchorJudge>(metric_spec, threads, engine);
}

Benchmark build_global_benchmark(const Dataset& ds, const BenchOptions& options,
                                 AnchorJudge& judge) {
  auto rules = make_rule_injector();
  return build_global_benchmark(ds, options, judge, *rules);
}

Benchmark build_global_benchmark(const Dataset& ds, const BenchOptions& options, AnchorJudge& judge,
                                 Injector& injector) {
  Benchmark b;
  b.stats.injector = injector.signature();
  const std::string dim(dimension_name(options.dimension));
  const auto order = seeded_task_order(ds, options.seed);

  // The judging dataset: every task with the base reference removed, so anchors and items are
  // judged against the same references; generated items are appended to their source task.
  Dataset judging;
  judging.path = ds.path;
  for (const auto& t : ds.tasks) {
    Task r = t;
    if (usable(t, options.base_reference))
      r.references.erase(r.references.begin() +
                         static_cast<std::ptrdiff_t>(options.base_reference));
    judging.tasks.push_back(std::move(r));
  }

  // Anchors: consensus candidates per level, a seeded sample of each level.
  std::map<double, std::vector<std::pair<std::uint64_t, ItemRef>>> by_level;
  for (std::size_t t = 0; t < ds.tasks.size(); ++t) {
    for (std::size_t c = 0; c < ds.tasks[t].candidates.size(); ++c) {
      const auto& cand = ds.tasks[t].candidates[c];
      auto it = cand.human.find(dim);
      if (it == cand.human.end()) continue;
      auto level = consensus_level(it->second, options.max_spread);
      if (!level) continue;
      by_level[*level].emplace_back(
          derive_seed(options.seed, {"anchor", ds.tasks[t].task_id, cand.id}), ItemRef{t, c});
    }
  }
  if (by_level.size() < 2)
    throw InputError(
        ds.path, 0, "human." + dim,
        fmt::format("anchoring needs consensus items at two or more levels of '{}'", dim));
  std::vector<ItemRef> refs;
  std::vector<double> anchor_levels;
  for (auto& [level, list] : by_level) {
    std::sort(list.begin(), list.end(),
              [](const auto& x, const auto& y) { return x.first < y.first; });
    const std::size_t take = options.anchors_per_level == 0
                                 ? list.size()
                                 : std::min(options.anchors_per_level, list.size());
    for (std::size_t i = 0; i < take; ++i) {
      refs.push_back(list[i].second);
      anchor_levels.push_back(level);
    }
    b.stats.anchors.emplace_back(level, take);
  }
  const std::size_t num_anchors = refs.size();

  // Items: distinct error counts per source, each an independent seeded draw of errors.
  struct Pending {
    std::size_t task;  // index in ds
    std::size_t errors_wanted;
    BuiltSequence seq;
  };
  std::vector<Pending> pending;
  std::vector<std::size_t> sources;
  for (std::size_t t : order) {
    if (options.sources > 0 && sources.size() == options.sources) break;
    if (!usable(ds.tasks[t], options.base_reference)) {
      ++b.stats.skipped_sources;
      continue;
    }
    sources.push_back(t);
  }
  // Pools first, then the contexts viewing them (their strings must not move).
  std::vector<std::vector<std::string>> pools;
  for (std::size_t t : sources)
    pools.push_back(off_topic_pool(ds, t, order, options.base_reference, options.seed));
  std::vector<InjectionContext> contexts(sources.size());
  std::vector<SequenceSpec> specs;
  for (std::size_t i = 0; i < sources.size(); ++i) {
    const std::size_t t = sources[i];
    const Task& task = ds.tasks[t];
    InjectionContext& ctx = contexts[i];
    ctx.source = task.source;
    for (const auto& s : pools[i]) ctx.off_topic.push_back(s);
    std::vector<std::size_t> counts(options.steps + 1);
    std::iota(counts.begin(), counts.end(), std::size_t{0});
    util::SplitMix64 rng(derive_seed(options.seed, {"global-counts", task.task_id, dim}));
    const std::size_t take = std::min(options.per_source, counts.size());
    for (std::size_t k = 0; k < take; ++k)
      std::swap(counts[k], counts[k + rng.below(counts.size() - k)]);
    counts.resize(take);
    std::sort(counts.begin(), counts.end());
    for (std::size_t e : counts) {
      specs.push_back(
          {task.references[options.base_reference].text, e, &ctx,
           derive_seed(options.seed, {"global", task.task_id, dim, std::to_string(e)})});
      pending.push_back({t, e, {}});
    }
  }
  auto built = injector.build(options.dimension, specs);
  for (std::size_t p = 0; p < pending.size(); ++p) {
    pending[p].seq = std::move(built[p]);
    count_stop(b.stats, pending[p].seq);
    auto& jt = judging.tasks[pending[p].task].candidates;
    Candidate c;
    c.id = fmt::format("__bench_err{}", pending[p].errors_wanted);
    c.text = pending[p].seq.texts.back();
    jt.push_back(std::move(c));
    refs.push_back({pending[p].task, jt.size() - 1});
  }
  judge.prepare(judging, refs);
  {
    std::vector<std::pair<std::size_t, std::size_t>> pairs;
    pairs.reserve(pending.size() * num_anchors);
    for (std::size_t p = 0; p < pending.size(); ++p)
      for (std::size_t a = 0; a < num_anchors; ++a) pairs.emplace_back(num_anchors + p, a);
    judge.prefetch(pairs);
  }

  // Level each item by anchoring and write one task per source.
  std::map<std::size_t, std::size_t> task_slot;
  for (std::size_t p = 0; p < pending.size(); ++p) {
    const auto& item = pending[p];
    std::vector<int> cmp(num_anchors);
    for (std::size_t a = 0; a < num_anchors; ++a) cmp[a] = judge.compare(num_anchors + p, a);
    const double level = anchor_level(cmp, anchor_levels);
    const Task& task = ds.tasks[item.task];
    auto [it, added] = task_slot.emplace(item.task, b.dataset.tasks.size());
    if (added) {
      b.dataset.tasks.push_back(reduced_task(task, options.base_reference, dim));
      TaskMeta tm;
      json tj = {{"benchmark", "global"},
                 {"dimension", dim},
                 {"source_task", task.task_id},
                 {"base_reference", task.references[options.base_reference].id},
                 {"anchor_judge", judge.signature()},
                 {"seed", options.seed}};
      if (b.stats.injector != "rules") tj["injector"] = b.stats.injector;
      tm.task = tj.dump();
      b.meta.push_back(std::move(tm));
    }
    const std::size_t errors = item.seq.edits.size();
    Candidate c;
    // Named by the requested error count (distinct per source); meta has the applied count.
    c.id = fmt::format("e{}", item.errors_wanted);
    c.system = c.id;
    c.text = item.seq.texts.back();
    c.human[dim] = {level};
    b.dataset.tasks[it->second].candidates.push_back(std::move(c));
    json edits = json::array();
    for (const auto& e : item.seq.edits) {
      edits.push_back(edit_json(e));
      count_edit(b.stats, e.type);
    }
    // Per anchor level: wins, ties and losses of the item against that level's anchors.
    json votes = json::object();
    for (std::size_t a = 0; a < num_anchors; ++a) {
      auto& v = votes[fmt::format("{}", anchor_levels[a])];
      if (v.is_null()) v = json::array({0, 0, 0});
      const std::size_t slot = cmp[a] > 0 ? 0 : (cmp[a] == 0 ? 1 : 2);
      v[slot] = v[slot].get<int>() + 1;
    }
    json cm = {{"errors", errors},
               {"errors_requested", item.errors_wanted},
               {"edits", edits},
               {"anchor_votes_win_tie_loss", votes}};
    if (item.seq.failed())
      cm["stopped"] = {{"reason", item.seq.stop_reason}, {"detail", item.seq.stop_detail}};
    b.meta[it->second].candidates.push_back(cm.dump());
    ++b.stats.items;
  }
  b.stats.sources = b.dataset.tasks.size();
  b.stats.judge_counters = judge.counters();
  return b;
}

void write_dataset(std::ostream& out, const Dataset& ds, std::span<const TaskMeta> meta) {
  for (std::size_t t = 0; t < ds.tasks.size(); ++t) {
    const Task& task = ds.tasks[t];
    const TaskMeta* tm = t < meta.size() ? &meta[t] : nullptr;
    json j;
    j["task_id"] = task.task_id;
    j["group"] = task.group;
    if (!task.source.empty()) j["source"] = task.source;
    if (!task.lang.empty()) j["lang"] = task.lang;
    j["references"] = json::array();
    for (const auto& r : task.references)
      j["references"].push_back({{"id", r.id}, {"text", r.text}});
    j["candidates"] = json::array();
    for (std::size_t c = 0; c < task.candidates.size(); ++c) {
      const auto& cand = task.candidates[c];
      json jc = {{"id", cand.id}};
      if (!cand.system.empty()) jc["system"] = cand.system;
      jc["text"] = cand.text;
      if (!cand.human.empty()) {
        jc["human"] = json::object();
        for (const auto& [d, v] : cand.human) {
          json list = json::array();
          // Integral ratings are written as integers, as in the shared datasets.
          for (double x : v) {
            if (std::isfinite(x) && x == std::round(x) && std::fabs(x) < 1e15)
              list.push_back(static_cast<long long>(x));
            else
              list.push_back(x);
          }
          jc["human"][d] = std::move(list);
        }
      }
      if (tm && c < tm->candidates.size() && !tm->candidates[c].empty())
        jc["meta"] = json::parse(tm->candidates[c]);
      j["candidates"].push_back(std::move(jc));
    }
    if (tm && !tm->task.empty()) j["meta"] = json::parse(tm->task);
    out << j.dump() << '\n';
  }
}

}  // namespace probity::meta
