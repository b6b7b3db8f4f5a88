// `probity attack` (the adaptive adversary of Xu et al. 2025, §7). Two searches per metric:
//
// - per item, a black-box search under a query budget, maximising the score increase: over
//   sequences of content-free edits (greedy, beam, random or a seeded evolutionary search), or
//   over rewrites an LLM attacker proposes from the metric's feedback, each checked by an
//   information guard before it is scored (llm_attacker.hpp); descriptive: the best edits are
//   chosen on the very items they are measured on;
// - universal programs: every sequence of up to program_length operators is scored on a seeded
//   half of the tasks (the search half), the best few are then tested on the other half with the
//   audit's paired one-sided test (manipulation sense: H1 mean Δ > 0), SMD with CI and Holm over
//   the programs tested, so a reported vulnerability is a held-out, corrected finding.
//
// Every random choice is seeded from (seed, item, query) or (seed, item, program), so the same
// inputs give the same bytes at any thread count; the metric is called in batches through
// compute_stats (its threads, LLM cache and concurrency).
#include "probity/attack.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <limits>
#include <map>
#include <optional>
#include <set>

#include "audit/excerpt.hpp"
#include "audit/llm_attacker.hpp"
#include "audit/replacement_attacks.hpp"
#include "audit/request_checks.hpp"
#include "audit/suffix_search.hpp"
#include "perturb/edit_ops.hpp"
#include "probity/error.hpp"
#include "probity/stats.hpp"
#include "util/hash.hpp"
#include "util/random.hpp"

namespace probity {
namespace {

using perturb::EditOp;
constexpr double kNaN = std::numeric_limits<double>::quiet_NaN();
// Texts scored per compute_stats call: large enough to fill the threads and an LLM's batches.
constexpr std::size_t kBatch = 4096;

std::uint64_t item_key(const Dataset& ds, const ItemRef& it) {
  const Task& t = ds.tasks[it.task];
  return util::fnv1a64(t.task_id + '\x1f' + t.candidates[it.candidate].id);
}

perturb::Rng rng_for(std::uint64_t seed, std::uint64_t item, std::uint64_t stream) {
  return perturb::Rng(util::mix64(util::mix64(seed ^ 0xA77AC4ULL) ^ item) ^
                      util::mix64(stream + 0x9E3779B97F4A7C15ULL));
}

// Primary-part scores of `texts` as the candidates of `items`, in batches.
std::vector<double> score_texts(const Dataset& ds, std::span<const ItemRef> items,
                                std::span<const std::string> texts, MetricSelection& metric,
                                unsigned threads) {
  std::vector<double> out(items.size(), kNaN);
  std::vector<double> parts(metric.metric->parts().size());
  for (std::size_t begin = 0; begin < items.size(); begin += kBatch) {
    const std::size_t end = std::min(items.size(), begin + kBatch);
    std::vector<std::string_view> views(texts.begin() + static_cast<std::ptrdiff_t>(begin),
                                        texts.begin() + static_cast<std::ptrdiff_t>(end));
    ScoreOptions so;
    so.threads = threads;
    so.fit = false;
    auto stats = compute_stats(ds, items.subspan(begin, end - begin),
                               std::span<MetricSelection>(&metric, 1), so, views);
    for (std::size_t i = begin; i < end; ++i) {
      metric.metric->sentence_score(stats[0].row(i - begin), parts);
      out[i] = metric.orientation() * parts[metric.primary];
    }
  }
  return out;
}

// The program applied in order; nullopt when an operator does not apply or nothing changed.
std::optional<std::string> apply_program(std::span<const EditOp* const> ops,
                                         std::span<const std::size_t> program,
                                         std::string_view text, const Task& task,
                                         perturb::Rng& rng) {
  std::string cur(text);
  for (std::size_t k : program) {
    auto next = ops[k]->apply(cur, task, rng);
    if (!next) return std::nullopt;
    cur = std::move(*next);
  }
  if (cur == text) return std::nullopt;
  return cur;
}

// The program entry of an LLM attacker's rewrite (not an operator index).
constexpr std::size_t kLlmRewrite = std::numeric_limits<std::size_t>::max();
constexpr std::string_view kLlmRewriteName = "llm-rewrite";

std::string op_name(std::span<const EditOp* const> ops, std::size_t k) {
  return k == kLlmRewrite ? std::string(kLlmRewriteName) : ops[k]->name;
}
std::string op_family(std::span<const EditOp* const> ops, std::size_t k) {
  return k == kLlmRewrite ? std::string(kLlmRewriteName) : ops[k]->family;
}

std::vector<std::string> program_names(std::span<const EditOp* const> ops,
                                       std::span<const std::size_t> program) {
  std::vector<std::string> names;
  for (std::size_t k : program) names.push_back(op_name(ops, k));
  return names;
}

// Why an LLM attack has no finding: its attacker (or guard) gave no item anything to score.
std::string llm_attack_failure(const RewriteAccounting& w, std::size_t items) {
  const std::size_t request_failed = w.attacker_failed - w.attacker_unparseable;
  std::string out = fmt::format(
      "the LLM attacker's work failed for all {} item{}: {} attacker request{}, {} failed, {} "
      "unparseable after re-asking",
      items, items == 1 ? "" : "s", w.requests, w.requests == 1 ? "" : "s", request_failed,
      w.attacker_unparseable);
  if (!w.first_attacker_error.empty()) out += fmt::format(" (first: {})", w.first_attacker_error);
  out += fmt::format("; {} rewrite{} proposed", w.proposed, w.proposed == 1 ? "" : "s");
  if (w.guard_failed > 0)
    out += fmt::format(", {} without a verdict from the {} guard", w.guard_failed, w.guard);
  return out;
}

std::vector<std::size_t> checkpoints(std::size_t budget) {
  std::vector<std::size_t> out;
  for (std::size_t base = 1; base <= budget; base *= 10)
    for (std::size_t m : {1, 2, 5})
      if (base * m <= budget) out.push_back(base * m);
  if (out.empty() || out.back() != budget) out.push_back(budget);
  return out;
}

struct Node {
  std::string text;
  double score = kNaN;
  std::vector<std::size_t> program;
};

struct ItemSearch {
  double original = kNaN;
  Node best;                     // the best edit found (program empty: none better)
  std::vector<Node> frontier;    // greedy: one node; beam: up to `beam`
  std::size_t used = 0;          // queries spent
  std::size_t drawn = 0;         // random search: programs drawn (those that apply are queries)
  std::vector<double> at_point;  // best Δ after each checkpoint's queries
  std::size_t next_point = 0;
  bool done = false;
  // False while an LLM attacker has given the item no rewrite with an outcome (scored, judged
  // by the guard, or a repeat): its work failed, so the item was not attacked at all.
  bool attacked = true;
};

// Records a scored query of one item: the running best and the budget checkpoints.
void record(ItemSearch& s, const Node& n, std::span<const std::size_t> points) {
  ++s.used;
  if (std::isfinite(n.score) && n.score > (s.best.program.empty() ? s.original : s.best.score))
    s.best = n;
  while (s.next_point < points.size() && points[s.next_point] == s.used) {
    s.at_point[s.next_point++] = (s.best.program.empty() ? s.original : s.best.score) - s.original;
  }
}

using Proposals = std::vector<std::pair<std::size_t, Node>>;  // (item, node before scoring)

std::vector<ItemSearch> init_state(const Dataset& ds, std::span<const ItemRef> items,
                                   std::span<const double> original, std::size_t points) {
  std::vector<ItemSearch> state(items.size());
  for (std::size_t i = 0; i < items.size(); ++i) {
    state[i].original = original[i];
    state[i].at_point.assign(points, 0.0);
    const std::string& text = ds.tasks[items[i].task].candidates[items[i].candidate].text;
    state[i].frontier.push_back({text, original[i], {}});
    state[i].done = !std::isfinite(original[i]);
  }
  return state;
}

// Scores every proposal in one batch and records it in its item's search.
void score_and_record(const Dataset& ds, std::span<const ItemRef> items, MetricSelection& metric,
                      const AttackOptions& o, std::span<const std::size_t> points,
                      std::vector<ItemSearch>& state, Proposals& proposals) {
  std::vector<ItemRef> q_items;
  std::vector<std::string> q_texts;
  for (const auto& [i, n] : proposals) {
    q_items.push_back(items[i]);
    q_texts.push_back(n.text);
  }
  const auto scores = score_texts(ds, q_items, q_texts, metric, o.threads);
  for (std::size_t p = 0; p < proposals.size(); ++p) {
    auto& [i, n] = proposals[p];
    n.score = scores[p];
    record(state[i], n, points);
  }
}

// Checkpoints past the queries an item spent hold its final best.
void finish(std::vector<ItemSearch>& state, std::size_t points) {
  for (auto& s : state)
    for (std::size_t p = s.next_point; p < points; ++p)
      s.at_point[p] = (s.best.program.empty() ? s.original : s.best.score) - s.original;
}

// A random program of 1..steps operators.
std::vector<std::size_t> random_program(perturb::Rng& rng, std::size_t ops, std::size_t steps) {
  std::vector<std::size_t> program(1 + rng.below(std::max<std::size_t>(steps, 1)));
  for (auto& k : program) k = rng.below(ops);
  return program;
}

// Greedy, beam and random search over operator sequences, all items at once (every round is
// one batch).
std::vector<ItemSearch> search_items(const Dataset& ds, std::span<const ItemRef> items,
                                     std::span<const double> original, MetricSelection& metric,
                                     std::span<const EditOp* const> ops, const AttackOptions& o) {
  const auto points = checkpoints(o.budget);
  auto state = init_state(ds, items, original, points.size());
  const bool random = o.strategy == "random";
  const std::size_t width = o.strategy == "beam" ? std::max<std::size_t>(o.beam, 1) : 1;
  // Random search: rounds of up to `per_round` random programs per item from the original.
  const std::size_t per_round =
      std::max<std::size_t>(1, kBatch / std::max<std::size_t>(items.size(), 1));
  for (std::size_t round = 0;; ++round) {
    if (!random && round >= o.steps) break;
    Proposals proposals;
    for (std::size_t i = 0; i < items.size(); ++i) {
      ItemSearch& s = state[i];
      if (s.done) continue;
      const Task& task = ds.tasks[items[i].task];
      std::size_t planned = 0;
      if (random) {
        // A draw that does not apply spends its stream but no query; 10 x budget draws at most.
        for (std::size_t r = 0;
             r < per_round && s.used + planned < o.budget && s.drawn < 10 * o.budget; ++r) {
          perturb::Rng rng = rng_for(o.seed, item_key(ds, items[i]), s.drawn++);
          auto program = random_program(rng, ops.size(), o.steps);
          auto text = apply_program(ops, program, s.frontier[0].text, task, rng);
          if (!text) continue;
          proposals.push_back({i, {std::move(*text), kNaN, std::move(program)}});
          ++planned;
        }
        if (s.used + planned >= o.budget || s.drawn >= 10 * o.budget) s.done = true;
        continue;
      }
      for (const Node& from : s.frontier) {
        for (std::size_t k = 0; k < ops.size(); ++k) {
          if (s.used + planned >= o.budget) break;
          perturb::Rng rng =
              rng_for(o.seed, item_key(ds, items[i]), (round << 32) ^ (planned * 131 + k));
          auto text = ops[k]->apply(from.text, task, rng);
          if (!text || *text == from.text) continue;
          std::vector<std::size_t> program = from.program;
          program.push_back(k);
          proposals.push_back({i, {std::move(*text), kNaN, std::move(program)}});
          ++planned;
        }
      }
      if (planned == 0) s.done = true;
    }
    if (proposals.empty()) break;
    score_and_record(ds, items, metric, o, points, state, proposals);
    if (random) {
      if (std::all_of(state.begin(), state.end(), [](const ItemSearch& s) { return s.done; }))
        break;
      continue;
    }
    std::map<std::size_t, std::vector<Node>> next;
    for (auto& [i, n] : proposals)
      if (std::isfinite(n.score)) next[i].push_back(std::move(n));
    for (std::size_t i = 0; i < items.size(); ++i) {
      ItemSearch& s = state[i];
      if (s.done) continue;
      auto& cands = next[i];
      std::stable_sort(cands.begin(), cands.end(),
                       [](const Node& a, const Node& b) { return a.score > b.score; });
      // Greedy keeps climbing only while an edit improves on the current text.
      if (cands.empty() || (width == 1 && !(cands[0].score > s.frontier[0].score))) {
        s.done = true;
        continue;
      }
      if (cands.size() > width) cands.resize(width);
      s.frontier = std::move(cands);
    }
  }
  finish(state, points.size());
  return state;
}

// A seeded (mu + lambda) evolutionary search per item: a population of `beam` programs (up to
// `steps` operators, applied to the original), each generation `beam` children by tournament
// selection, one-point crossover (half of the children) and one mutation (replace, insert or
// delete an operator); the best `beam` of parents and children survive.
std::vector<ItemSearch> search_items_evolution(const Dataset& ds, std::span<const ItemRef> items,
                                               std::span<const double> original,
                                               MetricSelection& metric,
                                               std::span<const EditOp* const> ops,
                                               const AttackOptions& o) {
  const auto points = checkpoints(o.budget);
  auto state = init_state(ds, items, original, points.size());
  const std::size_t population = std::max<std::size_t>(o.beam, 2);
  const std::size_t steps = std::max<std::size_t>(o.steps, 1);
  std::vector<std::set<std::string>> seen(items.size());  // texts already scored per item
  for (std::size_t generation = 0;; ++generation) {
    Proposals proposals;
    for (std::size_t i = 0; i < items.size(); ++i) {
      ItemSearch& s = state[i];
      if (s.done) continue;
      const Task& task = ds.tasks[items[i].task];
      const std::string& text = task.candidates[items[i].candidate].text;
      // The first generation is drawn at random; later ones breed from the population.
      const bool breed = generation > 0 && !s.frontier.front().program.empty();
      std::size_t planned = 0;
      for (std::size_t draw = 0;
           draw < 8 * population && planned < population && s.used + planned < o.budget; ++draw) {
        perturb::Rng rng =
            rng_for(o.seed, item_key(ds, items[i]), (generation << 32) ^ (draw + 0xE7u));
        std::vector<std::size_t> program;
        if (!breed) {
          program = random_program(rng, ops.size(), steps);
        } else {
          auto tournament = [&]() -> const Node& {
            const Node& a = s.frontier[rng.below(s.frontier.size())];
            const Node& b = s.frontier[rng.below(s.frontier.size())];
            return a.score >= b.score ? a : b;
          };
          program = tournament().program;
          if (rng.below(2) == 0) {  // crossover: a prefix of one parent, a suffix of another
            const auto& other = tournament().program;
            const std::size_t cut_a = rng.below(program.size() + 1);
            const std::size_t cut_b = rng.below(other.size() + 1);
            program.resize(cut_a);
            program.insert(program.end(), other.begin() + static_cast<std::ptrdiff_t>(cut_b),
                           other.end());
          }
          const std::size_t kind = rng.below(3);
          if (program.empty() || (kind == 1 && program.size() < steps)) {
            // Draws in a fixed order: the order of evaluating arguments is unspecified.
            const std::size_t at = rng.below(program.size() + 1);
            const std::size_t op = rng.below(ops.size());
            program.insert(program.begin() + static_cast<std::ptrdiff_t>(at), op);
          } else if (kind == 2 && program.size() > 1) {
            program.erase(program.begin() + static_cast<std::ptrdiff_t>(rng.below(program.size())));
          } else {
            const std::size_t at = rng.below(program.size());
            program[at] = rng.below(ops.size());
          }
          if (program.size() > steps) program.resize(steps);
        }
        auto edited = apply_program(ops, program, text, task, rng);
        if (!edited || !seen[i].insert(*edited).second) continue;
        proposals.push_back({i, {std::move(*edited), kNaN, std::move(program)}});
        ++planned;
      }
      if (planned == 0 || s.used + planned >= o.budget) s.done = true;
    }
    if (proposals.empty()) break;
    score_and_record(ds, items, metric, o, points, state, proposals);
    std::map<std::size_t, std::vector<Node>> children;
    for (auto& [i, n] : proposals)
      if (std::isfinite(n.score)) children[i].push_back(std::move(n));
    for (auto& [i, kids] : children) {
      auto& pop = state[i].frontier;
      if (pop.size() == 1 && pop.front().program.empty()) pop.clear();  // the original
      pop.insert(pop.end(), std::make_move_iterator(kids.begin()),
                 std::make_move_iterator(kids.end()));
      std::stable_sort(pop.begin(), pop.end(),
                       [](const Node& a, const Node& b) { return a.score > b.score; });
      if (pop.size() > population) pop.resize(population);
    }
  }
  finish(state, points.size());
  return state;
}

// The LLM attacker: `steps` rounds per item, each asking for `proposals` rewrites of the
// original given the best earlier tries and their scores; a rewrite is scored only when the
// guard passes it.
std::vector<ItemSearch> search_items_llm(const Dataset& ds, std::span<const ItemRef> items,
                                         std::span<const double> original, MetricSelection& metric,
                                         const attack::LlmAttacker& llm,
                                         const attack::InformationGuard& guard,
                                         const AttackOptions& o, RewriteAccounting& acct) {
  constexpr std::size_t kHistory = 4;  // earlier tries shown to the attacker
  const auto points = checkpoints(o.budget);
  auto state = init_state(ds, items, original, points.size());
  for (auto& s : state) s.attacked = false;
  std::vector<std::vector<std::pair<std::string, double>>> tried(items.size());
  std::vector<std::set<std::string>> seen(items.size());
  for (std::size_t round = 0; round < std::max<std::size_t>(o.steps, 1); ++round) {
    std::vector<attack::AttackerQuery> queries;
    std::vector<std::size_t> asked;
    for (std::size_t i = 0; i < items.size(); ++i) {
      ItemSearch& s = state[i];
      if (s.done || s.used >= o.budget) continue;
      attack::AttackerQuery q;
      q.original = ds.tasks[items[i].task].candidates[items[i].candidate].text;
      q.original_score = s.original;
      q.tried.assign(tried[i].begin(), tried[i].begin() + static_cast<std::ptrdiff_t>(
                                                              std::min(tried[i].size(), kHistory)));
      q.count = std::min(std::max<std::size_t>(o.proposals, 1), o.budget - s.used);
      q.seed = static_cast<std::int64_t>(
          util::mix64(util::mix64(o.seed ^ 0xA77AC4E2ULL) ^ item_key(ds, items[i]) ^ round) >> 1);
      queries.push_back(std::move(q));
      asked.push_back(i);
    }
    if (queries.empty()) break;
    acct.requests += queries.size();
    const auto answers = llm.propose(queries);
    std::vector<std::pair<std::string, std::string>> pairs;
    std::vector<std::size_t> pair_item;
    for (std::size_t k = 0; k < answers.size(); ++k) {
      const std::size_t i = asked[k];
      if (!answers[k].ok) {
        ++acct.attacker_failed;
        acct.attacker_unparseable += answers[k].unparseable;
        if (acct.first_attacker_error.empty()) acct.first_attacker_error = answers[k].error;
        continue;
      }
      for (const auto& r : answers[k].rewrites) {
        ++acct.proposed;
        if (r == queries[k].original || !seen[i].insert(r).second) {
          ++acct.duplicates;
          state[i].attacked = true;
          continue;
        }
        pairs.emplace_back(queries[k].original, r);
        pair_item.push_back(i);
      }
    }
    const auto verdicts = guard.check(pairs);
    Proposals proposals;
    std::vector<std::size_t> planned(items.size(), 0);
    for (std::size_t p = 0; p < pairs.size(); ++p) {
      const std::size_t i = pair_item[p];
      if (!verdicts[p].failed) state[i].attacked = true;
      if (!verdicts[p].passed) {
        ++(verdicts[p].failed ? acct.guard_failed : acct.rejected);
        if (acct.rejected_examples.size() < 3) {
          const Task& t = ds.tasks[items[i].task];
          acct.rejected_examples.push_back({t.task_id, t.candidates[items[i].candidate].id,
                                            pairs[p].second, verdicts[p].reason});
        }
        continue;
      }
      if (state[i].used + planned[i]++ >= o.budget) {
        ++acct.over_budget;
        continue;
      }
      proposals.push_back({i, {pairs[p].second, kNaN, {kLlmRewrite}}});
    }
    acct.scored += proposals.size();
    score_and_record(ds, items, metric, o, points, state, proposals);
    for (auto& [i, n] : proposals)
      if (std::isfinite(n.score)) tried[i].emplace_back(n.text, n.score);
    for (auto& t : tried)
      std::stable_sort(t.begin(), t.end(),
                       [](const auto& a, const auto& b) { return a.second > b.second; });
  }
  finish(state, points.size());
  return state;
}

// Every program of 1..length distinct operators, in a fixed order; above `cap` a seeded sample.
std::vector<std::vector<std::size_t>> all_programs(std::size_t n, std::size_t length,
                                                   std::uint64_t seed, std::size_t cap = 5000) {
  std::vector<std::vector<std::size_t>> out;
  std::vector<std::vector<std::size_t>> level = {{}};
  for (std::size_t l = 1; l <= length; ++l) {
    std::vector<std::vector<std::size_t>> grown;
    for (const auto& p : level)
      for (std::size_t k = 0; k < n; ++k) {
        if (std::find(p.begin(), p.end(), k) != p.end()) continue;
        auto q = p;
        q.push_back(k);
        grown.push_back(std::move(q));
      }
    out.insert(out.end(), grown.begin(), grown.end());
    level = std::move(grown);
    if (out.size() > 4 * cap) break;
  }
  if (out.size() > cap) {
    perturb::Rng rng(util::mix64(seed ^ 0x5EA4C4ULL));
    for (std::size_t i = 0; i < cap; ++i) std::swap(out[i], out[i + rng.below(out.size() - i)]);
    out.resize(cap);
  }
  return out;
}

// Scores of one program applied to `items`: perturbed score (NaN where not applied), statuses.
struct ProgramRun {
  std::vector<double> scores;
  std::vector<PerturbResult::Status> status;
};

std::vector<ProgramRun> run_programs(const Dataset& ds, std::span<const ItemRef> items,
                                     const std::vector<std::vector<std::size_t>>& programs,
                                     MetricSelection& metric, std::span<const EditOp* const> ops,
                                     const AttackOptions& o) {
  std::vector<ProgramRun> runs(programs.size());
  std::vector<ItemRef> q_items;
  std::vector<std::string> q_texts;
  std::vector<std::pair<std::size_t, std::size_t>> where;  // (program, item)
  auto flush = [&] {
    const auto scores = score_texts(ds, q_items, q_texts, metric, o.threads);
    for (std::size_t k = 0; k < where.size(); ++k)
      runs[where[k].first].scores[where[k].second] = scores[k];
    q_items.clear();
    q_texts.clear();
    where.clear();
  };
  for (std::size_t p = 0; p < programs.size(); ++p) {
    runs[p].scores.assign(items.size(), kNaN);
    runs[p].status.assign(items.size(), PerturbResult::Status::kNotApplicable);
    const std::uint64_t program_key = util::fnv1a64(fmt::format("{}", fmt::join(programs[p], ",")));
    for (std::size_t i = 0; i < items.size(); ++i) {
      const Task& task = ds.tasks[items[i].task];
      perturb::Rng rng = rng_for(o.seed, item_key(ds, items[i]), program_key);
      auto text =
          apply_program(ops, programs[p], task.candidates[items[i].candidate].text, task, rng);
      if (!text) continue;
      runs[p].status[i] = PerturbResult::Status::kApplied;
      q_items.push_back(items[i]);
      q_texts.push_back(std::move(*text));
      where.emplace_back(p, i);
    }
    if (q_items.size() >= kBatch) flush();
  }
  if (!q_items.empty()) flush();
  return runs;
}

// Why `search` cannot run on `metric` ("" when it can). logprob-search climbs the small changes
// of a verdict probability: a score that moves in whole rating steps gives it nothing to climb.
std::string suffix_search_refusal(SuffixSearch search, const MetricSelection& metric) {
  if (search != SuffixSearch::kLogprobSearch) return {};
  const auto design = metric.metric->judge_design();
  if (design && design->probability_weighted) return {};
  return fmt::format(
      "logprob-search needs a judge scored from its verdict token's top log-probabilities "
      "(llm-judge,mode=geval on a server that returns top_logprobs); '{}' is not one",
      metric.oriented_name());
}

// The universal suffix searches on the search half, each suffix then tested on the held-out half
// (and on the transfer metric's, when there is one) like the universal programs.
std::vector<UniversalSuffix> suffix_attacks(const Dataset& ds, std::span<const ItemRef> items,
                                            std::span<const double> original,
                                            const std::vector<bool>& in_search,
                                            std::span<const SuffixSearch> searches,
                                            MetricSelection& metric, MetricSelection* transfer,
                                            const std::string& name, const AttackOptions& o) {
  std::vector<ItemRef> search, held;
  std::vector<std::string> search_texts, held_texts;
  std::vector<double> search_original, held_original;
  for (std::size_t i = 0; i < items.size(); ++i) {
    const bool s = in_search[items[i].task];
    (s ? search : held).push_back(items[i]);
    (s ? search_texts : held_texts)
        .push_back(ds.tasks[items[i].task].candidates[items[i].candidate].text);
    (s ? search_original : held_original).push_back(original[i]);
  }
  const auto scorer = [&](MetricSelection& m) {
    return [&](std::span<const ItemRef> its, std::span<const std::string> texts) {
      return score_texts(ds, its, texts, m, o.threads);
    };
  };
  const auto held_out_test = [&](MetricSelection& m, std::span<const double> before,
                                 const std::string& suffix, const std::string& code) {
    std::vector<std::string> texts;
    std::vector<PerturbResult::Status> status;
    for (const auto& t : held_texts) {
      texts.push_back(attack::with_suffix(t, suffix));
      status.push_back(suffix.empty() ? PerturbResult::Status::kUnchanged
                                      : PerturbResult::Status::kApplied);
    }
    const auto after = score_texts(ds, held, texts, m, o.threads);
    StrategyTest t = test_strategy(
        StrategyKind::kManipulation, before, after, status, o.alpha, o.bootstrap, o.confidence,
        o.seed ^ util::fnv1a64(name + '\x1f' + code), o.threads, o.min_applied, o.margin);
    t.dataset = "held-out";
    t.metric = m.oriented_name();
    t.code = t.name = code;
    return t;
  };
  std::vector<UniversalSuffix> out;
  for (SuffixSearch kind : searches) {
    UniversalSuffix u;
    u.search = kind;
    const std::string code(suffix_search_name(kind));
    if (auto why = suffix_search_refusal(kind, metric);
        !why.empty() || search.empty() || held.empty()) {
      u.searched = false;
      u.untestable = !why.empty() ? why : "the search or the held-out half has no items";
      u.search_mean_delta = kNaN;
      u.held_out.testable = u.transfer.testable = false;
      u.held_out.untestable = u.transfer.untestable = u.untestable;
      out.push_back(std::move(u));
      continue;
    }
    const std::uint64_t seed = o.seed ^ util::fnv1a64(name + '\x1f' + code);
    const auto found =
        kind == SuffixSearch::kUniversalPhrase
            ? attack::greedy_phrase(search, search_texts, search_original, scorer(metric),
                                    o.phrase_words, o.phrase_candidates, seed)
            : attack::random_suffix(search, search_texts, search_original, scorer(metric),
                                    o.suffix_words, o.suffix_iterations, seed);
    u.text = found.text;
    u.trajectory = found.trajectory;
    u.queries = found.queries;
    u.search_mean_delta = found.search_mean_delta;
    if (u.text.empty()) {  // nothing to test: the search found no suffix that helps
      u.held_out.testable = u.transfer.testable = false;
      u.held_out.untestable = u.transfer.untestable =
          "the search found no suffix that raises the score on the search half";
      out.push_back(std::move(u));
      continue;
    }
    u.held_out = held_out_test(metric, held_original, u.text, code);
    if (transfer) {
      u.transfer_metric = transfer->spec;
      const auto before = score_texts(ds, held, held_texts, *transfer, o.threads);
      u.transfer = held_out_test(*transfer, before, u.text, code);
    } else {
      u.transfer.testable = false;
      u.transfer.untestable = "no --transfer-endpoint";
    }
    out.push_back(std::move(u));
  }
  return out;
}

}  // namespace

std::string_view suffix_search_name(SuffixSearch search) {
  return search == SuffixSearch::kUniversalPhrase ? "universal-phrase" : "logprob-search";
}

std::optional<SuffixSearch> parse_suffix_search(std::string_view family) {
  if (family == "universal-phrase") return SuffixSearch::kUniversalPhrase;
  if (family == "logprob-search") return SuffixSearch::kLogprobSearch;
  return std::nullopt;
}

std::string_view replacement_family_name(ReplacementFamily family) {
  return family == ReplacementFamily::kMasterKey ? "master-key" : "null-model";
}

std::optional<ReplacementFamily> parse_replacement_family(std::string_view family) {
  if (family == "master-key") return ReplacementFamily::kMasterKey;
  if (family == "null-model") return ReplacementFamily::kNullModel;
  return std::nullopt;
}

std::string transfer_spec(const std::string& spec, const std::string& role) {
  const MetricSpec parsed = MetricSpec::parse(spec);
  std::string out = parsed.base();
  if (!parsed.part().empty()) out += "." + parsed.part();
  const MetricSpec moved = parsed.with_option("llm", role);
  for (const auto& [k, v] : moved.options()) out += "," + k + "=" + v;
  return out;
}

std::string unattackable_reason(const MetricSelection& metric) {
  return fmt::format(
      "'{}' holds scores of fixed texts and cannot score an edited one; to attack your own "
      "scorer, run it as a metric that scores any text: exec:COMMAND (JSON lines on stdin and "
      "stdout), http:URL (a scoring endpoint; both docs/external-scorers.md) or, from Python, a "
      "callable (probity.attack)",
      metric.oriented_name());
}

void require_attackable(std::span<const MetricSelection> metrics) {
  for (const auto& m : metrics)
    if (!m.metric->scores_new_texts()) throw UsageError("attack: " + unattackable_reason(m));
}

AttackReport run_attack(const Dataset& ds, std::span<const ItemRef> items,
                        std::vector<MetricSelection>& metrics, const AttackOptions& o,
                        const perturb::EditOpRegistry& registry,
                        std::shared_ptr<llm::Session> session,
                        std::span<MetricSelection> transfer) {
  if (o.strategy != "greedy" && o.strategy != "beam" && o.strategy != "random" &&
      o.strategy != "evolution" && o.strategy != "llm")
    throw UsageError(
        fmt::format("--strategy {}: greedy, beam, random, evolution or llm", o.strategy));
  audit::check_request(o);
  // The universal suffix searches are families of their own; the edit search runs unless only
  // they were named.
  std::vector<std::string> edit_families;
  std::vector<SuffixSearch> searches;
  std::vector<ReplacementFamily> replacements;
  for (const auto& f : o.families)
    if (auto s = parse_suffix_search(f)) {
      if (std::find(searches.begin(), searches.end(), *s) == searches.end()) searches.push_back(*s);
    } else if (auto r = parse_replacement_family(f)) {
      if (std::find(replacements.begin(), replacements.end(), *r) == replacements.end())
        replacements.push_back(*r);
    } else {
      edit_families.push_back(f);
    }
  const bool edit_search = !edit_families.empty() || (searches.empty() && replacements.empty());
  if (!transfer.empty() && transfer.size() != metrics.size())
    throw std::logic_error("run_attack: one transfer metric per metric");
  std::vector<const EditOp*> ops;
  if (edit_search) {
    try {
      ops = registry.select(edit_families, o.include_content);
    } catch (const std::invalid_argument& e) {
      throw UsageError(e.what());
    }
    if (ops.empty()) throw UsageError("attack: no edit operator selected");
  }
  AttackReport report;
  report.options = o;
  for (const EditOp* op : ops) report.operators.push_back(op->name);

  std::vector<std::string> task_ids;
  for (const auto& t : ds.tasks) task_ids.push_back(t.task_id);
  const auto in_search = stats::split_tasks(task_ids, o.split, o.seed);
  std::vector<ItemRef> search, held;
  std::vector<std::size_t> search_pos, held_pos;
  for (std::size_t i = 0; i < items.size(); ++i) {
    (in_search[items[i].task] ? search : held).push_back(items[i]);
    (in_search[items[i].task] ? search_pos : held_pos).push_back(i);
  }
  for (bool b : in_search) (b ? report.search_tasks : report.held_out_tasks) += 1;
  const auto points = checkpoints(o.budget);

  // The LLM attacker and its guard exist once per run; the guard is fitted on the dataset.
  std::optional<attack::LlmAttacker> attacker;
  std::unique_ptr<attack::InformationGuard> guard;
  if (o.strategy == "llm") {
    attacker.emplace(session);
    guard = attack::make_guard(o.guard, ds.tasks, o.seed, session);
    report.attacker = attacker->signature();
    report.guard = guard->signature();
  }

  for (auto& m : metrics) require_references(ds, items, m);
  if (o.fit) {
    for (auto& m : metrics) m.metric->fit(ds.tasks);
    for (auto& m : transfer) m.metric->fit(ds.tasks);
  }
  for (std::size_t mi = 0; mi < metrics.size(); ++mi) {
    auto& metric = metrics[mi];
    MetricAttack a;
    a.metric = metric.oriented_name();
    a.signature = metric.metric->signature();
    if (!metric.metric->scores_new_texts()) {
      // Never "0% attacked": an edited text has no score here, so nothing was tried.
      a.testable = false;
      a.untestable = unattackable_reason(metric);
      a.success_rate = a.mean_best_delta = kNaN;
      a.best_edits.testable = false;
      a.best_edits.untestable = a.untestable;
      report.metrics.push_back(std::move(a));
      continue;
    }
    std::vector<std::string> texts;
    for (const auto& it : items) texts.push_back(ds.tasks[it.task].candidates[it.candidate].text);
    const auto original = score_texts(ds, items, texts, metric, o.threads);
    if (!replacements.empty()) {
      std::vector<bool> item_in_search;
      for (const auto& it : items) item_in_search.push_back(in_search[it.task]);
      const attack::ScoreTexts score = [&](std::span<const ItemRef> its,
                                           std::span<const std::string> answers) {
        return score_texts(ds, its, answers, metric, o.threads);
      };
      for (ReplacementFamily f : replacements)
        a.replacements.push_back(attack::replacement_attack(f, items, original, item_in_search,
                                                            score, o.confidence, o.tolerance));
    }
    if (!searches.empty())
      a.suffixes = suffix_attacks(ds, items, original, in_search, searches, metric,
                                  transfer.empty() ? nullptr : &transfer[mi], a.metric, o);
    if (!edit_search) {
      // Only suffix searches were asked for: no per-item edit search, and the table says so.
      a.testable = false;
      a.untestable = "no edit family selected (only replacement or suffix families)";
      a.success_rate = a.mean_best_delta = kNaN;
      a.best_edits.testable = false;
      a.best_edits.untestable = a.untestable;
      report.metrics.push_back(std::move(a));
      continue;
    }

    // Per-item search.
    const auto start = std::chrono::steady_clock::now();
    const auto state =
        o.strategy == "llm"
            ? search_items_llm(ds, items, original, metric, *attacker, *guard, o, a.rewrites)
        : o.strategy == "evolution" ? search_items_evolution(ds, items, original, metric, ops, o)
                                    : search_items(ds, items, original, metric, ops, o);
    a.rewrites.guard = o.strategy == "llm" ? guard->name() : "";
    a.seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
    // Every item with a defined score is in the test of the best edits; an item whose search
    // found nothing better keeps its original (Δ = 0), so d is not inflated by leaving it out.
    std::vector<double> best(items.size(), kNaN);
    std::vector<PerturbResult::Status> status(items.size(), PerturbResult::Status::kUnchanged);
    std::map<std::string, std::size_t> families;
    std::size_t successes = 0;
    double sum = 0;
    for (std::size_t i = 0; i < items.size(); ++i) {
      const auto& s = state[i];
      a.queries += s.used;
      if (!std::isfinite(s.original)) continue;
      if (!s.attacked) {  // no Δ = 0 for an item the attacker never reached
        ++a.not_attacked;
        status[i] = PerturbResult::Status::kFailed;
        continue;
      }
      ++a.items;
      const double gain = s.best.program.empty() ? 0.0 : s.best.score - s.original;
      sum += gain;
      successes += gain > o.delta;
      best[i] = s.best.program.empty() ? s.original : s.best.score;
      status[i] = PerturbResult::Status::kApplied;
      if (!s.best.program.empty()) ++families[op_family(ops, s.best.program.front())];
    }
    if (a.items > 0) {
      a.success_rate = static_cast<double>(successes) / static_cast<double>(a.items);
      a.mean_best_delta = sum / static_cast<double>(a.items);
    } else if (a.not_attacked > 0) {
      a.testable = false;
      a.untestable = llm_attack_failure(a.rewrites, a.not_attacked);
      a.success_rate = a.mean_best_delta = kNaN;
    }
    for (const auto& [f, n] : families) a.families.emplace_back(f, n);
    std::stable_sort(a.families.begin(), a.families.end(),
                     [](const auto& x, const auto& y) { return x.second > y.second; });
    a.best_edits =
        test_strategy(StrategyKind::kManipulation, original, best, status, o.alpha, o.bootstrap,
                      o.confidence, o.seed ^ util::fnv1a64(a.metric), o.threads, 2, o.margin);
    if (!a.testable) a.best_edits.untestable = a.untestable;
    for (std::size_t p = 0; p < points.size() && a.testable; ++p) {
      BudgetPoint bp;
      bp.queries = points[p];
      std::size_t ok = 0;
      double total = 0;
      for (const auto& s : state) {
        if (!std::isfinite(s.original) || !s.attacked) continue;
        ok += s.at_point[p] > o.delta;
        total += s.at_point[p];
      }
      if (a.items > 0) {
        bp.success_rate = static_cast<double>(ok) / static_cast<double>(a.items);
        bp.mean_best_delta = total / static_cast<double>(a.items);
      }
      a.budget_curve.push_back(bp);
    }
    std::vector<std::size_t> order(items.size());
    for (std::size_t i = 0; i < order.size(); ++i) order[i] = i;
    std::stable_sort(order.begin(), order.end(), [&](std::size_t x, std::size_t y) {
      const double gx = state[x].best.program.empty() ? 0 : state[x].best.score - state[x].original;
      const double gy = state[y].best.program.empty() ? 0 : state[y].best.score - state[y].original;
      return gx > gy;
    });
    for (std::size_t k = 0; k < order.size() && a.examples.size() < o.examples; ++k) {
      const auto& s = state[order[k]];
      if (s.best.program.empty()) break;
      const Task& t = ds.tasks[items[order[k]].task];
      auto shown = audit::excerpt_edit(t.candidates[items[order[k]].candidate].text, s.best.text);
      a.examples.push_back({t.task_id, t.candidates[items[order[k]].candidate].id,
                            program_names(ops, s.best.program), std::move(shown.original),
                            std::move(shown.edited), s.original, s.best.score});
    }

    // Universal programs: chosen on the search half, tested on the held-out half.
    if (!search.empty() && !held.empty() && o.programs > 0) {
      const auto programs = all_programs(ops.size(), o.program_length, o.seed);
      a.programs_searched = programs.size();
      std::vector<double> search_original, held_original;
      for (std::size_t i : search_pos) search_original.push_back(original[i]);
      for (std::size_t i : held_pos) held_original.push_back(original[i]);
      const auto runs = run_programs(ds, search, programs, metric, ops, o);
      std::vector<std::pair<double, std::size_t>> ranked;  // (mean Δ, program)
      const std::size_t need = std::min(o.min_applied, search.size());
      for (std::size_t p = 0; p < programs.size(); ++p) {
        double total = 0;
        std::size_t n = 0;
        for (std::size_t i = 0; i < search.size(); ++i) {
          if (!std::isfinite(runs[p].scores[i]) || !std::isfinite(search_original[i])) continue;
          total += runs[p].scores[i] - search_original[i];
          ++n;
        }
        if (n >= std::max<std::size_t>(need, 1))
          ranked.emplace_back(total / static_cast<double>(n), p);
      }
      std::stable_sort(ranked.begin(), ranked.end(),
                       [](const auto& x, const auto& y) { return x.first > y.first; });
      if (ranked.size() > o.programs) ranked.resize(o.programs);
      std::vector<std::vector<std::size_t>> chosen;
      for (const auto& r : ranked) chosen.push_back(programs[r.second]);
      const auto tested = run_programs(ds, held, chosen, metric, ops, o);
      std::vector<StrategyTest> tests;
      for (std::size_t c = 0; c < chosen.size(); ++c) {
        StrategyTest t = test_strategy(
            StrategyKind::kManipulation, held_original, tested[c].scores, tested[c].status, o.alpha,
            o.bootstrap, o.confidence,
            o.seed ^ util::fnv1a64(a.metric + fmt::format("{}", fmt::join(chosen[c], ","))),
            o.threads, o.min_applied, o.margin);
        t.dataset = "held-out";
        t.metric = a.metric;
        t.code = fmt::format("{}", fmt::join(program_names(ops, chosen[c]), "+"));
        t.name = t.code;
        tests.push_back(std::move(t));
      }
      apply_holm(tests, o.alpha);
      for (std::size_t c = 0; c < chosen.size(); ++c) {
        UniversalProgram u;
        u.program = program_names(ops, chosen[c]);
        u.search_mean_delta = ranked[c].first;
        u.search_applied = static_cast<std::size_t>(
            std::count(runs[ranked[c].second].status.begin(), runs[ranked[c].second].status.end(),
                       PerturbResult::Status::kApplied));
        u.held_out = tests[c];
        a.universal.push_back(std::move(u));
      }
    }
    report.metrics.push_back(std::move(a));
  }
  return report;
}

}  // namespace probity
