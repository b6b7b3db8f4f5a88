// Which statistics the judge bias battery reports, on which items, and with which CI. The
// formulas are in src/stats/judge_bias.cpp.
//
// Pairwise judges (the candidate against the task's reference, both orders):
//   position.consistency, position.prefer_first, position.prefer_second (JudgeLM), and
//   position.bias = prefer_first - prefer_second (JudgeLM's delta_bias with its sign; 0 without
//   position bias);
//   length.prefer_longer and length.prefer_lists (AlpacaEval) on the judge's combined verdicts,
//   the candidate as output_1 and the reference as output_2;
//   length.lc_win_rate[SYSTEM], AlpacaEval's length-controlled win rate of each system against
//   the reference (src/stats/length_control.cpp), and length.lc_shift[SYSTEM] = LC win rate -
//   raw win rate (0 for a judge whose verdicts do not follow length).
// Pointwise judges: length.partial_correlation, the partial Pearson correlation of the rating with
//   the candidate's length in words given the human rating (the mean over the audited
//   dimensions): what the judge rewards in length beyond what the humans do.
// Both, with samples >= 2: self_consistency.flip_rate, .mean_sd and .icc.
// A finding is a CI that excludes the value an unbiased judge has. Items whose verdict failed are
// left out; a value that cannot be computed says why.
#include "audit/judge_diagnostics.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <map>
#include <numeric>
#include <set>

#include "probity/text.hpp"
#include "text/utf8.hpp"
#include "util/hash.hpp"

namespace probity::audit {
namespace {

constexpr double kNaN = std::numeric_limits<double>::quiet_NaN();
// Fewest counted pairs for a prefer_longer or prefer_lists share.
constexpr std::size_t kMinPairs = 10;

// Items kept for a statistic and the cluster (task) of each, for the bootstrap.
struct Sample {
  std::vector<std::size_t> items;     // indices into the audited items
  std::vector<std::size_t> clusters;  // task index of each
};

class Battery {
 public:
  Battery(std::span<const ItemRef> items, const stats::BootstrapOptions& bootstrap)
      : items_(items), bootstrap_(bootstrap) {}

  Sample sample(const std::function<bool(std::size_t)>& keep) const {
    Sample s;
    std::map<std::size_t, std::size_t> cluster_of_task;
    for (std::size_t i = 0; i < items_.size(); ++i) {
      if (!keep(i)) continue;
      s.items.push_back(i);
      s.clusters.push_back(
          cluster_of_task.emplace(items_[i].task, cluster_of_task.size()).first->second);
    }
    return s;
  }

  // `statistic` of the sample's items (given as positions in the sample) with its CI.
  JudgeDiagnostic value(std::string name, const Sample& s,
                        const std::function<double(std::span<const std::size_t>)>& statistic,
                        std::optional<double> unbiased) const {
    JudgeDiagnostic d;
    d.name = std::move(name);
    d.n = s.items.size();
    d.unbiased = unbiased;
    if (s.items.size() < 2) {
      d.untested = fmt::format("{} usable items (needs 2)", s.items.size());
      return d;
    }
    auto options = bootstrap_;
    options.clusters = s.clusters;
    options.seed = bootstrap_.seed ^ util::fnv1a64(d.name);
    const auto r = stats::bootstrap(s.items.size(), statistic, options);
    d.value = r.estimate;
    d.low = r.ci.low;
    d.high = r.ci.high;
    if (std::isnan(d.value)) {
      d.untested = "undefined on these items";
      return d;
    }
    if (unbiased && std::isfinite(d.low) && std::isfinite(d.high))
      d.finding = *unbiased < d.low || *unbiased > d.high;
    return d;
  }

 private:
  std::span<const ItemRef> items_;
  stats::BootstrapOptions bootstrap_;
};

template <typename F>
std::vector<double> gather(const Sample& s, std::span<const std::size_t> positions, F of) {
  std::vector<double> out;
  out.reserve(positions.size());
  for (std::size_t p : positions) out.push_back(of(s.items[p]));
  return out;
}

std::string system_of(const Dataset& ds, const ItemRef& item) {
  return ds.tasks[item.task].candidates[item.candidate].system;
}

double words(std::string_view text) {
  return static_cast<double>(text::split_whitespace(text).size());
}

}  // namespace

JudgeDiagnostics judge_diagnostics(const Dataset& ds, std::span<const ItemRef> items,
                                   std::span<const std::string_view> texts,
                                   const MetricStats& stats, const JudgeDesign& design,
                                   const std::vector<std::vector<double>>& human,
                                   const stats::BootstrapOptions& bootstrap) {
  JudgeDiagnostics out;
  out.mode = design.mode;
  out.items = items.size();
  const Battery battery(items, bootstrap);
  auto stat = [&](std::size_t i, std::size_t k) { return stats.row(i)[k]; };
  // Whether the sampled items' statistics [first, first + count) all hold one rating: then a
  // correlation or ICC is undefined because the judge did not vary, which the report says.
  auto one_rating = [&](const Sample& s, std::size_t first, std::size_t count) {
    if (s.items.empty()) return false;
    for (std::size_t i : s.items)
      for (std::size_t k = first; k < first + count; ++k)
        if (stat(i, k) != stat(s.items[0], first)) return false;
    return true;
  };

  if (design.mode == JudgeMode::kPairwise) {
    const Sample s = battery.sample([&](std::size_t i) {
      return !std::isnan(stat(i, design.candidate_first)) &&
             !std::isnan(stat(i, design.candidate_second)) && !std::isnan(stat(i, 0));
    });
    auto position = [&](std::span<const std::size_t> p) {
      return stats::position_bias(
          gather(s, p, [&](std::size_t i) { return stat(i, design.candidate_first); }),
          gather(s, p, [&](std::size_t i) { return stat(i, design.candidate_second); }));
    };
    out.values.push_back(battery.value(
        "position.consistency", s,
        [&](std::span<const std::size_t> p) { return position(p).consistency; }, std::nullopt));
    out.values.push_back(battery.value(
        "position.prefer_first", s,
        [&](std::span<const std::size_t> p) { return position(p).prefer_first; }, std::nullopt));
    out.values.push_back(battery.value(
        "position.prefer_second", s,
        [&](std::span<const std::size_t> p) { return position(p).prefer_second; }, std::nullopt));
    out.values.push_back(battery.value(
        "position.bias", s,
        [&](std::span<const std::size_t> p) {
          const auto b = position(p);
          return b.prefer_first - b.prefer_second;
        },
        0.0));
    // AlpacaEval's preference from the combined verdict (1 the candidate, 2 the reference),
    // each pair's part computed once; a resample's share is its preferred pairs over its counted
    // ones.
    auto shares = [&](const char* name, auto pair, const char* what) {
      std::vector<stats::PairPreference> parts(s.items.size());
      std::size_t counted = 0;
      std::set<std::size_t> tasks;
      for (std::size_t k = 0; k < s.items.size(); ++k) {
        const std::size_t i = s.items[k];
        parts[k] = pair(texts[i], ds.tasks[items[i].task].references[0].text, 2.0 - stat(i, 0));
        if (!parts[k].counted) continue;
        ++counted;
        tasks.insert(items[i].task);
      }
      auto d = battery.value(
          name, s,
          [&](std::span<const std::size_t> p) {
            std::size_t preferred = 0, total = 0;
            for (std::size_t pos : p) {
              if (!parts[pos].counted) continue;
              ++total;
              preferred += parts[pos].preferred ? 1 : 0;
            }
            return total == 0 ? kNaN : static_cast<double>(preferred) / static_cast<double>(total);
          },
          0.5);
      d.n = counted;
      // A share of a handful of pairs, or of pairs from a handful of tasks, carries no verdict:
      // its bootstrap CI over tasks collapses (too narrow to hold its confidence).
      if (counted < kMinPairs || tasks.size() < kMinPairs) {
        // A tie has no better output and never counts: say so when ties are what is missing.
        std::size_t ties = 0;
        for (std::size_t i : s.items) ties += stat(i, 0) == 0.5 ? 1 : 0;
        d.untested = fmt::format("{} pairs from {} tasks {} (needs {} of each){}", counted,
                                 tasks.size(), what, kMinPairs,
                                 ties == 0 ? std::string()
                                           : fmt::format("; {} of {} verdicts are ties, which "
                                                         "never count",
                                                         ties, s.items.size()));
        d.finding = false;
      }
      out.values.push_back(std::move(d));
    };
    shares(
        "length.prefer_longer",
        [](std::string_view a, std::string_view b, double p) {
          return stats::length_preference(a, b, p);
        },
        "differ in length by more than 30 characters");
    shares("length.prefer_lists", stats::list_preference, "where exactly one response has a list");
    // AlpacaEval's length-controlled win rate of each system against the reference, and how far
    // it moves the raw win rate: what the judge's verdicts would be with no length difference.
    std::set<std::string> systems;
    for (std::size_t i : s.items) systems.insert(system_of(ds, items[i]));
    for (const auto& system : systems) {
      const Sample sys = battery.sample([&](std::size_t i) {
        return system_of(ds, items[i]) == system && !std::isnan(stat(i, design.candidate_first)) &&
               !std::isnan(stat(i, design.candidate_second)) && !std::isnan(stat(i, 0));
      });
      std::vector<double> delta(sys.items.size());
      for (std::size_t k = 0; k < sys.items.size(); ++k) {
        const std::size_t i = sys.items[k];
        delta[k] =
            static_cast<double>(text::code_points(texts[i])) -
            static_cast<double>(text::code_points(ds.tasks[items[i].task].references[0].text));
      }
      auto fit = [&](std::span<const std::size_t> p) {
        std::vector<double> pref, d;
        for (std::size_t pos : p) {
          pref.push_back(stat(sys.items[pos], 0));
          d.push_back(delta[pos]);
        }
        return stats::length_controlled_win_rate(pref, d);
      };
      const std::set<std::size_t> tasks(sys.clusters.begin(), sys.clusters.end());
      std::vector<std::size_t> all(sys.items.size());
      std::iota(all.begin(), all.end(), std::size_t{0});
      const auto full = fit(all);
      std::string cause;
      if (sys.items.size() < kMinPairs || tasks.size() < kMinPairs)
        cause = fmt::format("{} pairs from {} tasks (needs {} of each)", sys.items.size(),
                            tasks.size(), kMinPairs);
      else if (std::all_of(delta.begin(), delta.end(), [&](double v) { return v == delta[0]; }))
        cause = "every pair differs in length by the same amount";
      else if (!full.defined && (full.win_rate == 0 || full.win_rate == 1))
        cause = fmt::format("the system {} every pair (the GLM has no finite fit)",
                            full.win_rate == 1 ? "won" : "lost");
      else if (!full.defined)
        cause = "the verdicts are separated by length (the GLM has no finite fit)";
      const std::string label = system.empty() ? std::string("(no system)") : system;
      const std::string lc_name = fmt::format("length.lc_win_rate[{}]", label);
      const std::string shift_name = fmt::format("length.lc_shift[{}]", label);
      if (!cause.empty()) {  // no bootstrap of a value that has none
        for (const std::string* name : {&lc_name, &shift_name}) {
          JudgeDiagnostic d;
          d.name = *name;
          d.n = sys.items.size();
          if (name == &shift_name) d.unbiased = 0.0;
          d.untested = cause;
          out.values.push_back(std::move(d));
        }
        continue;
      }
      out.values.push_back(battery.value(
          lc_name, sys, [&](std::span<const std::size_t> p) { return fit(p).lc_win_rate; },
          std::nullopt));
      out.values.push_back(battery.value(
          shift_name, sys,
          [&](std::span<const std::size_t> p) {
            const auto r = fit(p);
            return r.lc_win_rate - r.win_rate;
          },
          0.0));
    }
  } else {
    // Pointwise and G-Eval: a rating per item. The human rating of an item: the mean over the
    // audited dimensions it has.
    std::vector<double> rating(items.size(), kNaN);
    for (std::size_t i = 0; i < items.size(); ++i) {
      double sum = 0;
      std::size_t n = 0;
      for (const auto& dim : human)
        if (!std::isnan(dim[i])) {
          sum += dim[i];
          ++n;
        }
      if (n > 0) rating[i] = sum / static_cast<double>(n);
    }
    const Sample s = battery.sample(
        [&](std::size_t i) { return !std::isnan(stat(i, 0)) && !std::isnan(rating[i]); });
    auto partial = battery.value(
        "length.partial_correlation", s,
        [&](std::span<const std::size_t> p) {
          return stats::partial_correlation(
              gather(s, p, [&](std::size_t i) { return stat(i, 0); }),
              gather(s, p, [&](std::size_t i) { return words(texts[i]); }),
              gather(s, p, [&](std::size_t i) { return rating[i]; }));
        },
        0.0);
    if (human.empty()) {
      partial.untested = "no human ratings in the dataset";
    } else if (one_rating(s, 0, 1)) {
      partial.untested = "the judge gave every item the same rating";
    }
    out.values.push_back(std::move(partial));
  }

  if (design.samples >= 2) {
    // Pairwise verdicts are averaged over samples in the statistics: the battery reads the
    // repeated ratings of pointwise and G-Eval (estimate=samples) judges only.
    if (design.mode != JudgeMode::kPairwise) {
      const Sample s = battery.sample([&](std::size_t i) {
        for (std::size_t k = 0; k < design.samples; ++k)
          if (std::isnan(stat(i, design.first_sample + k))) return false;
        return true;
      });
      auto consistency = [&](std::span<const std::size_t> p) {
        std::vector<double> ratings;
        for (std::size_t pos : p)
          for (std::size_t k = 0; k < design.samples; ++k)
            ratings.push_back(stat(s.items[pos], design.first_sample + k));
        return stats::self_consistency(ratings, design.samples);
      };
      out.values.push_back(battery.value(
          "self_consistency.flip_rate", s,
          [&](std::span<const std::size_t> p) { return consistency(p).flip_rate; }, std::nullopt));
      out.values.push_back(battery.value(
          "self_consistency.mean_sd", s,
          [&](std::span<const std::size_t> p) { return consistency(p).mean_sd; }, std::nullopt));
      auto icc = battery.value(
          "self_consistency.icc", s,
          [&](std::span<const std::size_t> p) { return consistency(p).icc; }, std::nullopt);
      if (std::isnan(icc.value) && one_rating(s, design.first_sample, design.samples))
        icc.untested = "every rating is the same (no variance to share out)";
      out.values.push_back(std::move(icc));
    }
  }
  return out;
}

}  // namespace probity::audit
