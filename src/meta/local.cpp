// Local perspective (arXiv:2502.12052, ACL 2025): adjacent comparison accuracy over
// quality-decreasing sequences.
#include <algorithm>
#include <cmath>
#include <limits>
#include <numeric>

#include "probity/meta.hpp"
#include "util/hash.hpp"

namespace probity::meta {
namespace {

constexpr double kNaN = std::numeric_limits<double>::quiet_NaN();

double accuracy_of(const LocalCounts& c) {
  return c.pairs == 0 ? kNaN : static_cast<double>(c.correct) / static_cast<double>(c.pairs);
}

}  // namespace

LocalCounts& LocalCounts::operator+=(const LocalCounts& o) {
  pairs += o.pairs;
  correct += o.correct;
  ties += o.ties;
  wrong += o.wrong;
  undefined += o.undefined;
  return *this;
}

std::vector<Sequence> sequences_from_dataset(const Dataset& ds, std::span<const ItemRef> items,
                                             const std::vector<std::string>& dimensions,
                                             std::size_t* skipped_ties) {
  std::size_t ties = 0;
  std::vector<Sequence> out;
  // Items of each task, in item-list order.
  std::vector<std::vector<std::size_t>> by_task(ds.tasks.size());
  for (std::size_t i = 0; i < items.size(); ++i) by_task[items[i].task].push_back(i);
  for (const auto& dim : dimensions) {
    for (std::size_t t = 0; t < ds.tasks.size(); ++t) {
      Sequence seq;
      seq.id = ds.tasks[t].task_id;
      seq.dimension = dim;
      std::vector<double> rating;
      for (std::size_t i : by_task[t]) {
        const double h = ds.tasks[t].candidates[items[i].candidate].human_mean(dim);
        if (!std::isfinite(h)) continue;
        seq.items.push_back(i);
        rating.push_back(h);
      }
      if (seq.items.size() < 2) continue;
      std::vector<std::size_t> order(seq.items.size());
      std::iota(order.begin(), order.end(), std::size_t{0});
      std::stable_sort(order.begin(), order.end(),
                       [&](std::size_t a, std::size_t b) { return rating[a] > rating[b]; });
      std::vector<std::size_t> sorted;
      for (std::size_t k : order) sorted.push_back(seq.items[k]);
      seq.comparable.assign(sorted.size() - 1, true);
      for (std::size_t j = 0; j + 1 < order.size(); ++j) {
        if (rating[order[j]] == rating[order[j + 1]]) {
          seq.comparable[j] = false;
          ++ties;
        }
      }
      seq.items = std::move(sorted);
      out.push_back(std::move(seq));
    }
  }
  if (skipped_ties) *skipped_ties = ties;
  return out;
}

LocalCounts adjacent_counts(std::span<const double> scores, const Sequence& sequence) {
  LocalCounts c;
  for (std::size_t j = 0; j + 1 < sequence.items.size(); ++j) {
    if (!sequence.comparable.empty() && !sequence.comparable[j]) continue;
    const double a = scores[sequence.items[j]];
    const double b = scores[sequence.items[j + 1]];
    if (!std::isfinite(a) || !std::isfinite(b)) {
      ++c.undefined;
      continue;
    }
    ++c.pairs;
    if (a > b) {
      ++c.correct;
    } else if (a == b) {
      ++c.ties;
    } else {
      ++c.wrong;
    }
  }
  return c;
}

std::vector<LocalResult> local_accuracy(std::span<const double> scores,
                                        std::span<const Sequence> sequences,
                                        const LocalOptions& options) {
  std::vector<std::string> dims;
  for (const auto& s : sequences)
    if (std::find(dims.begin(), dims.end(), s.dimension) == dims.end()) dims.push_back(s.dimension);
  std::vector<LocalCounts> per_seq;
  per_seq.reserve(sequences.size());
  for (const auto& s : sequences) per_seq.push_back(adjacent_counts(scores, s));

  auto row = [&](const std::string& name, const std::vector<std::size_t>& members) {
    LocalResult r;
    r.dimension = name;
    r.sequences = members.size();
    for (std::size_t m : members) r.counts += per_seq[m];
    r.accuracy = accuracy_of(r.counts);
    r.tie_rate = r.counts.pairs == 0
                     ? kNaN
                     : static_cast<double>(r.counts.ties) / static_cast<double>(r.counts.pairs);
    r.ci = {kNaN, kNaN};
    if (options.bootstrap > 0 && members.size() >= 2) {
      stats::BootstrapOptions bo;
      bo.resamples = options.bootstrap;
      bo.confidence = options.confidence;
      // Each row gets its own stream so adding a dimension never changes another's CI.
      bo.seed = options.seed ^ util::fnv1a64(name);
      bo.threads = options.threads;
      // Sequences are the resampling unit: pairs of one sequence share a source and errors.
      auto boot = stats::bootstrap(
          members.size(),
          [&](std::span<const std::size_t> idx) {
            LocalCounts c;
            for (std::size_t k : idx) c += per_seq[members[k]];
            return accuracy_of(c);
          },
          bo);
      r.ci = boot.ci;
    }
    return r;
  };

  std::vector<LocalResult> out;
  for (const auto& d : dims) {
    std::vector<std::size_t> members;
    for (std::size_t s = 0; s < sequences.size(); ++s)
      if (sequences[s].dimension == d) members.push_back(s);
    out.push_back(row(d, members));
  }
  if (dims.size() > 1) {
    std::vector<std::size_t> all(sequences.size());
    std::iota(all.begin(), all.end(), std::size_t{0});
    out.push_back(row("overall", all));
  }
  return out;
}

}  // namespace probity::meta
