#include <fmt/format.h>

#include <algorithm>
#include <atomic>
#include <chrono>
#include <condition_variable>
#include <mutex>
#include <optional>
#include <stdexcept>
#include <thread>
#include <unordered_map>

#include "probity/engine.hpp"
#include "probity/error.hpp"
#include "probity/scoring.hpp"
#include "util/hash.hpp"
#include "util/parallel.hpp"
#include "util/random.hpp"

namespace probity {

std::string MetricSelection::record_name(std::size_t part) const {
  const std::string p = metric->parts()[part];
  const std::string& shown = display.empty() ? default_display : display;
  if (!shown.empty()) return parts.size() > 1 && !p.empty() ? shown + "." + p : shown;
  std::string name = parsed.base();
  if (!p.empty()) name += "." + p;
  if (!parsed.arg().empty()) name += ":" + parsed.arg();
  for (const auto& [k, v] : parsed.options()) name += fmt::format(",{}={}", k, v);
  return name;
}

void check_distinct_names(std::span<MetricSelection> metrics) {
  for (auto& m : metrics) {
    if (m.default_display.empty()) continue;
    const bool taken = std::any_of(metrics.begin(), metrics.end(), [&](MetricSelection& other) {
      if (&other == &m) return false;
      for (std::size_t part : other.parts)
        for (std::size_t own : m.parts)
          if (other.record_name(part) == m.record_name(own)) return true;
      return false;
    });
    if (taken) m.default_display.clear();
  }
  std::unordered_map<std::string, const MetricSelection*> seen;
  for (const auto& m : metrics)
    for (std::size_t part : m.parts) {
      auto [it, added] = seen.emplace(m.record_name(part), &m);
      if (!added)
        throw UsageError(fmt::format(
            "metrics '{}' and '{}' would both be written as '{}'{}", it->second->spec, m.spec,
            it->first,
            m.display.empty() && it->second->display.empty() ? "" : " (give each its own name=)"));
    }
}

MetricSelection select_metric(const std::string& spec, Engine& engine) {
  MetricSelection sel;
  sel.spec = spec;
  sel.parsed = MetricSpec::parse(spec);
  if (const std::string* name = sel.parsed.given("name")) {
    if (name->empty() || name->find_first_of(" \t\n") != std::string::npos)
      throw UsageError(fmt::format("metric '{}': name= must be a non-empty word", spec));
    sel.display = *name;
  }
  // A part may be named after the base: "rougeL.f[:arg][,options]".
  const std::string part = sel.parsed.part();
  sel.metric = engine.metrics().create(sel.parsed.without_part(), engine.metric_context());
  sel.default_display = sel.metric->default_display_name();
  const auto names = sel.metric->parts();
  if (part.empty()) {
    for (std::size_t i = 0; i < names.size(); ++i) sel.parts.push_back(i);
    sel.primary = sel.metric->primary_part();
  } else {
    auto it = std::find(names.begin(), names.end(), part);
    if (it == names.end())
      throw UsageError(fmt::format("metric '{}' has no part '{}' (parts: {})", sel.parsed.base(),
                                   part, fmt::join(names, ", ")));
    sel.primary = static_cast<std::size_t>(it - names.begin());
    sel.parts.push_back(sel.primary);
  }
  return sel;
}

void set_input(MetricInput& input, const Task& task, std::string_view candidate) {
  input.candidate = candidate;
  input.references.clear();
  input.reference_ids.clear();
  for (const auto& r : task.references) {
    input.references.push_back(r.text);
    input.reference_ids.push_back(r.id);
  }
  input.source = task.source;
}

NegativeSampler::NegativeSampler(const Dataset& ds) : ds_(&ds) {
  for (const Task& task : ds.tasks) add(task);
}

NegativeSampler::NegativeSampler(std::span<const MetricSelection> metrics) {
  for (const auto& m : metrics) {
    const auto neg = m.metric->negatives();
    if (neg.count > 0 &&
        std::find(choices_.begin(), choices_.end(), neg.reference_ids) == choices_.end())
      choices_.push_back(neg.reference_ids);
  }
  drawn_.resize(choices_.size());
}

void NegativeSampler::add(const Task& task) {
  const std::size_t t = group_of_.size();
  auto [it, added] =
      group_index_.try_emplace(task.group, static_cast<std::uint32_t>(group_tasks_.size()));
  if (added) group_tasks_.emplace_back();
  group_tasks_[it->second].push_back(t);
  group_of_.push_back(it->second);
  id_hash_.push_back(util::fnv1a64(task.task_id));
  if (ds_) return;  // drawn from the dataset itself
  for (std::size_t c = 0; c < choices_.size(); ++c) {
    const auto& ids = choices_[c];
    const auto& refs = task.references;
    auto ref = refs.begin();
    if (!ids.empty())
      ref = std::find_if(refs.begin(), refs.end(), [&](const Reference& r) {
        return std::find(ids.begin(), ids.end(), r.id) != ids.end();
      });
    drawn_[c].push_back(ref == refs.end() ? nullptr : &*texts_.insert(ref->text).first);
  }
}

const std::string* NegativeSampler::drawn(std::size_t t,
                                          std::span<const std::string> reference_ids) const {
  if (ds_) {
    const auto& refs = ds_->tasks[t].references;
    auto it = refs.begin();
    if (!reference_ids.empty())
      it = std::find_if(refs.begin(), refs.end(), [&](const Reference& r) {
        return std::find(reference_ids.begin(), reference_ids.end(), r.id) != reference_ids.end();
      });
    return it == refs.end() ? nullptr : &it->text;
  }
  for (std::size_t c = 0; c < choices_.size(); ++c)
    if (std::equal(choices_[c].begin(), choices_[c].end(), reference_ids.begin(),
                   reference_ids.end()))
      return drawn_[c][t];
  throw std::logic_error("NegativeSampler: negatives asked for that no metric draws");
}

std::vector<std::string_view> NegativeSampler::sample(
    std::size_t task, std::size_t k, std::uint64_t seed,
    std::span<const std::string> reference_ids) const {
  const auto& group = group_tasks_[group_of_[task]];
  const std::size_t others = group.size() - 1;
  const std::size_t take = std::min(k, others);
  util::Rng rng(seed, id_hash_[task]);
  std::vector<std::size_t> chosen;
  if (others <= 4 * take) {
    // Small group: partial Fisher-Yates over the other tasks.
    std::vector<std::size_t> pool;
    for (std::size_t t : group)
      if (t != task) pool.push_back(t);
    for (std::size_t i = 0; i < take; ++i) {
      std::size_t j = i + rng.below(static_cast<std::uint32_t>(pool.size() - i));
      std::swap(pool[i], pool[j]);
      chosen.push_back(pool[i]);
    }
  } else {
    // Large group: rejection sampling avoids an O(group) pass per item.
    while (chosen.size() < take) {
      std::size_t t = group[rng.below(static_cast<std::uint32_t>(group.size()))];
      if (t != task && std::find(chosen.begin(), chosen.end(), t) == chosen.end())
        chosen.push_back(t);
    }
  }
  std::vector<std::string_view> out;
  for (std::size_t t : chosen)
    if (const std::string* text = drawn(t, reference_ids)) out.push_back(*text);
  // a task without the ids gives none
  return out;
}

std::vector<std::string_view> NegativeSampler::for_metric(std::size_t task,
                                                          const Metric& metric) const {
  const auto neg = metric.negatives();
  if (neg.count == 0) return {};
  return sample(task, neg.count, neg.seed, neg.reference_ids);
}

void require_references(const Dataset& ds, std::span<const ItemRef> items,
                        const MetricSelection& metric) {
  if (!metric.metric->needs_references()) return;
  for (const ItemRef& item : items) {
    const Task& task = ds.tasks[item.task];
    if (task.references.empty())
      throw InputError(ds.path, task.line, "references",
                       fmt::format("task '{}' has no references, and metric '{}' needs them "
                                   "(reference-free: length, random, scores:FILE)",
                                   task.task_id, metric.spec));
  }
}

std::vector<ItemRef> all_items(const Dataset& ds) {
  std::vector<ItemRef> items;
  for (std::size_t t = 0; t < ds.tasks.size(); ++t)
    for (std::size_t c = 0; c < ds.tasks[t].candidates.size(); ++c) items.push_back({t, c});
  return items;
}

std::vector<MetricStats> compute_stats(const Dataset& ds, std::span<const ItemRef> items,
                                       std::span<MetricSelection> metrics,
                                       const ScoreOptions& options,
                                       std::span<const std::string_view> texts) {
  if (!texts.empty() && texts.size() != items.size())
    throw std::invalid_argument("compute_stats: one text per item is required");
  for (const auto& m : metrics) require_references(ds, items, m);
  if (options.fit)
    for (auto& m : metrics) m.metric->fit(ds.tasks);
  std::vector<MetricStats> out(metrics.size());
  for (std::size_t m = 0; m < metrics.size(); ++m) {
    out[m].num_stats = metrics[m].metric->num_stats();
    out[m].stats.assign(items.size() * out[m].num_stats, 0.0);
  }
  std::atomic<std::size_t> done{0};
  // The reporter wakes every 100 ms, or at once when scoring ends (a plain sleep would hold
  // the end of every call back by up to 100 ms).
  std::mutex finished_mutex;
  std::condition_variable finished_cv;
  bool finished = false;
  auto finish = [&] {
    {
      std::lock_guard lock(finished_mutex);
      finished = true;
    }
    finished_cv.notify_all();
  };
  std::thread reporter;
  if (options.progress) {
    reporter = std::thread([&] {
      std::unique_lock lock(finished_mutex);
      while (!finished) {
        lock.unlock();
        options.progress(done.load(), items.size());
        lock.lock();
        finished_cv.wait_for(lock, std::chrono::milliseconds(100), [&] { return finished; });
      }
    });
  }
  std::optional<NegativeSampler> own_sampler;
  const NegativeSampler& sampler = options.negatives ? *options.negatives : own_sampler.emplace(ds);
  auto fill_input = [&](std::size_t i, MetricInput& input) {
    const Task& task = ds.tasks[items[i].task];
    set_input(
        input, task,
        texts.empty() ? std::string_view(task.candidates[items[i].candidate].text) : texts[i]);
  };
  auto fill_negatives = [&](std::size_t i, const Metric& metric, MetricInput& input) {
    input.negatives = sampler.for_metric(options.first_task + items[i].task, metric);
  };
  auto score_item = [&](std::size_t i) {
    thread_local MetricInput input;
    fill_input(i, input);
    for (std::size_t m = 0; m < metrics.size(); ++m) {
      fill_negatives(i, *metrics[m].metric, input);
      auto row = std::span<double>(out[m].stats).subspan(i * out[m].num_stats, out[m].num_stats);
      metrics[m].metric->item_stats(input, row);
    }
    done.fetch_add(1, std::memory_order_relaxed);
  };
  // Model-backed metrics see each chunk of items first as one batch (Metric::prefetch).
  std::size_t chunk = items.size();
  for (const auto& m : metrics)
    if (const std::size_t b = m.metric->batch_size(); b > 0) chunk = std::min(chunk, b);
  try {
    for (std::size_t begin = 0; begin < items.size(); begin += std::max<std::size_t>(chunk, 1)) {
      const std::size_t end = std::min(items.size(), begin + std::max<std::size_t>(chunk, 1));
      for (const auto& m : metrics) {
        if (m.metric->batch_size() == 0) continue;
        std::vector<MetricInput> inputs(end - begin);
        for (std::size_t i = begin; i < end; ++i) {
          fill_input(i, inputs[i - begin]);
          fill_negatives(i, *m.metric, inputs[i - begin]);
        }
        m.metric->prefetch(inputs);
      }
      util::parallel_for(
          end - begin, options.threads, [&](std::size_t j) { score_item(begin + j); }, 16);
    }
  } catch (...) {
    finish();
    if (reporter.joinable()) reporter.join();
    throw;
  }
  finish();
  if (reporter.joinable()) reporter.join();
  if (options.progress) options.progress(items.size(), items.size());
  return out;
}

}  // namespace probity
