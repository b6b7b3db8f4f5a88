#include <fmt/format.h>

#include <algorithm>
#include <atomic>
#include <chrono>
#include <mutex>
#include <thread>

#include "probity/error.hpp"
#include "probity/scoring.hpp"

namespace probity {

std::string MetricSelection::record_name(std::size_t part) const {
  MetricSpec s = MetricSpec::parse(spec);
  std::string base = s.base();
  if (auto dot = base.find('.'); dot != std::string::npos) base.resize(dot);
  std::string name = base;
  const std::string& p = metric->parts()[part];
  if (!p.empty()) name += "." + p;
  if (!s.arg().empty()) name += ":" + s.arg();
  for (const auto& [k, v] : s.options()) name += fmt::format(",{}={}", k, v);
  return name;
}

MetricSelection select_metric(const std::string& spec) {
  MetricSelection sel;
  sel.spec = spec;
  // A part may be named after the base: "rougeL.f[:arg][,options]".
  MetricSpec parsed = MetricSpec::parse(spec);
  std::string base = parsed.base();
  std::string part;
  if (auto dot = base.find('.'); dot != std::string::npos) {
    part = base.substr(dot + 1);
    base.resize(dot);
  }
  std::string without_part = spec;
  if (!part.empty()) without_part.erase(base.size(), part.size() + 1);
  sel.metric = make_metric(without_part);
  const auto names = sel.metric->parts();
  if (part.empty()) {
    for (std::size_t i = 0; i < names.size(); ++i) sel.parts.push_back(i);
    sel.primary = sel.metric->primary_part();
  } else {
    auto it = std::find(names.begin(), names.end(), part);
    if (it == names.end())
      throw UsageError(fmt::format("metric '{}' has no part '{}' (parts: {})", base, part,
                                   fmt::join(names, ", ")));
    sel.primary = static_cast<std::size_t>(it - names.begin());
    sel.parts.push_back(sel.primary);
  }
  return sel;
}

std::vector<ItemRef> all_items(const Dataset& ds) {
  std::vector<ItemRef> items;
  for (std::size_t t = 0; t < ds.tasks.size(); ++t)
    for (std::size_t c = 0; c < ds.tasks[t].candidates.size(); ++c) items.push_back({t, c});
  return items;
}

std::vector<MetricStats> compute_stats(const Dataset& ds, std::span<const ItemRef> items,
                                       std::span<MetricSelection> metrics,
                                       const ScoreOptions& options) {
  for (auto& m : metrics) m.metric->fit(ds.tasks);
  std::vector<MetricStats> out(metrics.size());
  for (std::size_t m = 0; m < metrics.size(); ++m) {
    out[m].num_stats = metrics[m].metric->num_stats();
    out[m].stats.assign(items.size() * out[m].num_stats, 0.0);
  }
  unsigned threads =
      options.threads ? options.threads : std::max(1u, std::thread::hardware_concurrency());
  threads =
      static_cast<unsigned>(std::min<std::size_t>(threads, std::max<std::size_t>(1, items.size())));

  // Items are handed out in small chunks; every item writes only its own rows, so the result
  // does not depend on the thread count or the schedule.
  constexpr std::size_t kChunk = 16;
  std::atomic<std::size_t> next{0};
  std::atomic<std::size_t> done{0};
  std::exception_ptr failure;
  std::atomic<bool> failed{false};
  std::mutex failure_mutex;
  auto work = [&] {
    MetricInput input;
    try {
      for (;;) {
        std::size_t begin = next.fetch_add(kChunk);
        if (begin >= items.size()) break;
        std::size_t end = std::min(items.size(), begin + kChunk);
        for (std::size_t i = begin; i < end; ++i) {
          const Task& task = ds.tasks[items[i].task];
          input.candidate = task.candidates[items[i].candidate].text;
          input.references.clear();
          for (const auto& r : task.references) input.references.push_back(r.text);
          input.source = task.source;
          for (std::size_t m = 0; m < metrics.size(); ++m) {
            auto row =
                std::span<double>(out[m].stats).subspan(i * out[m].num_stats, out[m].num_stats);
            metrics[m].metric->item_stats(input, row);
          }
        }
        done.fetch_add(end - begin);
      }
    } catch (...) {
      std::lock_guard lock(failure_mutex);
      if (!failure) failure = std::current_exception();
      failed.store(true);
      next.store(items.size());
    }
  };
  std::vector<std::thread> pool;
  for (unsigned t = 1; t < threads; ++t) pool.emplace_back(work);
  if (options.progress) {
    // The calling thread reports progress while the pool works.
    std::thread last(work);
    while (done.load() < items.size() && !failed.load()) {
      options.progress(done.load(), items.size());
      std::this_thread::sleep_for(std::chrono::milliseconds(100));
    }
    last.join();
    options.progress(done.load(), items.size());
  } else {
    work();
  }
  for (auto& t : pool) t.join();
  if (failure) std::rethrow_exception(failure);
  return out;
}

}  // namespace probity
