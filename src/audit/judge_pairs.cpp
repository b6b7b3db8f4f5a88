// The pairwise judge on the dataset's human pairs (see judge_pairs.hpp).
#include "audit/judge_pairs.hpp"

#include <fmt/format.h>

#include <cmath>
#include <map>
#include <set>

#include "util/hash.hpp"

namespace probity::audit {
namespace {

constexpr double kNaN = std::numeric_limits<double>::quiet_NaN();

struct JudgedPair {
  std::size_t task = 0;
  char preferred = 't';  // the human's: 'a', 'b' or 't' (tie)
  double score = kNaN;   // the judge's for `a`: 1 preferred, 0.5 tie, 0 not (NaN: failed)
  double first = kNaN, second = kNaN;  // a's verdict shown first and shown second
};

const Candidate* find_candidate(const Task& t, const std::string& id) {
  for (const auto& c : t.candidates)
    if (c.id == id) return &c;
  return nullptr;
}

JudgeDiagnostic value(std::string name, const std::vector<const JudgedPair*>& pairs,
                      double (*of)(const JudgedPair&), const stats::BootstrapOptions& bootstrap) {
  JudgeDiagnostic d;
  d.name = std::move(name);
  d.n = pairs.size();
  if (pairs.size() < 2) {
    d.untested = fmt::format("{} human pair{} with a judge verdict (needs 2)", pairs.size(),
                             pairs.size() == 1 ? "" : "s");
    return d;
  }
  std::vector<double> x;
  std::map<std::size_t, std::size_t> cluster_of_task;
  auto options = bootstrap;
  options.clusters.clear();
  for (const JudgedPair* p : pairs) {
    x.push_back(of(*p));
    options.clusters.push_back(
        cluster_of_task.emplace(p->task, cluster_of_task.size()).first->second);
  }
  options.seed = bootstrap.seed ^ util::fnv1a64(d.name);
  const auto r = stats::bootstrap(
      x.size(),
      [&](std::span<const std::size_t> idx) {
        double sum = 0;
        for (std::size_t i : idx) sum += x[i];
        return sum / static_cast<double>(idx.size());
      },
      options);
  d.value = r.estimate;
  d.low = r.ci.low;
  d.high = r.ci.high;
  return d;
}

}  // namespace

std::vector<JudgeDiagnostic> human_pair_diagnostics(const Dataset& ds,
                                                    std::span<const ItemRef> items,
                                                    MetricSelection& judge,
                                                    const JudgeDesign& design,
                                                    const stats::BootstrapOptions& bootstrap) {
  std::size_t human_pairs = 0;
  for (const auto& t : ds.tasks) human_pairs += t.pairs.size();
  if (human_pairs == 0 || design.mode != JudgeMode::kPairwise) return {};

  std::set<std::pair<std::size_t, std::string>> audited;
  for (const auto& it : items)
    audited.emplace(it.task, ds.tasks[it.task].candidates[it.candidate].id);
  std::vector<JudgedPair> judged;
  std::vector<MetricInput> inputs;
  for (std::size_t ti = 0; ti < ds.tasks.size(); ++ti) {
    const Task& t = ds.tasks[ti];
    for (const auto& p : t.pairs) {
      if (!audited.contains({ti, p.a}) || !audited.contains({ti, p.b})) continue;
      const Candidate* a = find_candidate(t, p.a);
      const Candidate* b = find_candidate(t, p.b);
      if (a == nullptr || b == nullptr) continue;
      JudgedPair j;
      j.task = ti;
      j.preferred = p.preferred == "a" ? 'a' : p.preferred == "b" ? 'b' : 't';
      judged.push_back(j);
      MetricInput in;
      in.candidate = a->text;
      in.references = {b->text};
      in.reference_ids = {b->id};
      in.source = t.source;
      inputs.push_back(std::move(in));
    }
  }

  const std::vector<std::string> names = {
      "human_pairs.agreement", "human_pairs.position_consistency", "human_pairs.tie_rate"};
  std::vector<JudgeDiagnostic> out;
  if (judged.empty()) {
    for (const auto& name : names) {
      JudgeDiagnostic d;
      d.name = name;
      d.untested = fmt::format(
          "none of the dataset's {} human pairs has both candidates among the audited items",
          human_pairs);
      out.push_back(std::move(d));
    }
    return out;
  }

  // Asked in the judge's batches (its prefetch sends a whole batch concurrently); the verdicts
  // then come from its memo.
  const Metric& m = *judge.metric;
  const std::size_t batch = std::max<std::size_t>(m.batch_size(), 1);
  std::vector<double> stats(m.num_stats());
  for (std::size_t begin = 0; begin < inputs.size(); begin += batch) {
    const std::size_t end = std::min(inputs.size(), begin + batch);
    m.prefetch(std::span<const MetricInput>(inputs).subspan(begin, end - begin));
    for (std::size_t i = begin; i < end; ++i) {
      m.item_stats(inputs[i], stats);
      JudgedPair& j = judged[i];
      if (stats.size() > 1 && stats[1] > 0) continue;  // the verdict failed
      j.score = stats[0];
      j.first = stats[design.candidate_first];
      j.second = stats[design.candidate_second];
    }
  }

  std::vector<const JudgedPair*> decisive, verdicts;
  for (const auto& j : judged) {
    if (std::isnan(j.score)) continue;
    verdicts.push_back(&j);
    if (j.preferred != 't') decisive.push_back(&j);
  }
  out.push_back(value(
      names[0], decisive,
      [](const JudgedPair& j) { return j.preferred == 'a' ? j.score : 1.0 - j.score; }, bootstrap));
  out.push_back(value(
      names[1], verdicts, [](const JudgedPair& j) { return j.first == j.second ? 1.0 : 0.0; },
      bootstrap));
  out.push_back(value(
      names[2], verdicts, [](const JudgedPair& j) { return j.score == 0.5 ? 1.0 : 0.0; },
      bootstrap));
  return out;
}

}  // namespace probity::audit
