// probity-lexical-bench: CPU time per scored item of the lexical metrics (BLEU, chrF, ROUGE) on
// SummEval, one thread, in three orders:
//   first ref, dataset order   each candidate x its task's first reference, in file order (the
//                              16 candidates of a task share that reference one after another);
//   first ref, interleaved     the same pairs, task by task for candidate 0, then 1, ...: every
//                              pair's reference differs from the previous pair's (and from the
//                              99 before it), so nothing prepared for a reference is reused;
//   all refs, dataset order    each candidate x all 11 references of its task.
// Each figure is the median over passes of the thread's CPU time (user + sys), never the best.
// Usage: probity-lexical-bench [passes] [--only=file|interleaved|all] [metric ...]
// (--only runs one order, e.g. under valgrind --tool=callgrind for an instruction count).
#include <fmt/format.h>

#include <algorithm>
#include <cstdlib>
#include <ctime>
#include <string>
#include <vector>

#include "probity/dataset.hpp"
#include "probity/engine.hpp"
#include "probity/metric.hpp"

namespace {

// User + system CPU time of the calling thread.
double thread_cpu_seconds() {
  timespec ts{};
  clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
  return static_cast<double>(ts.tv_sec) + static_cast<double>(ts.tv_nsec) * 1e-9;
}

double median(std::vector<double> v) {
  std::sort(v.begin(), v.end());
  const std::size_t n = v.size();
  return n % 2 ? v[n / 2] : (v[n / 2 - 1] + v[n / 2]) / 2;
}

}  // namespace

int main(int argc, char** argv) {
  const int passes = argc > 1 ? std::atoi(argv[1]) : 9;
  std::vector<std::string> specs;
  std::string only;
  for (int i = 2; i < argc; ++i) {
    const std::string arg = argv[i];
    if (arg.rfind("--only=", 0) == 0) {
      only = arg.substr(7);
    } else {
      specs.push_back(arg);
    }
  }
  if (specs.empty())
    specs = {"bleu",     "chrf", "rouge1,stem=true", "rouge2,stem=true", "rougeL,stem=true",
             "rougeLsum"};
  const auto ds =
      probity::load_dataset(std::string(PROBITY_SOURCE_DIR) + "/data/summeval/summeval.jsonl");

  std::vector<probity::MetricInput> dataset_first, interleaved_first, all_refs;
  std::size_t max_candidates = 0;
  for (const auto& t : ds.tasks) {
    max_candidates = std::max(max_candidates, t.candidates.size());
    for (const auto& c : t.candidates) {
      probity::MetricInput in;
      in.candidate = c.text;
      in.references = {t.references[0].text};
      dataset_first.push_back(in);
      in.references.clear();
      for (const auto& r : t.references) in.references.push_back(r.text);
      all_refs.push_back(in);
    }
  }
  for (std::size_t c = 0; c < max_candidates; ++c)
    for (const auto& t : ds.tasks)
      if (c < t.candidates.size()) {
        probity::MetricInput in;
        in.candidate = t.candidates[c].text;
        in.references = {t.references[0].text};
        interleaved_first.push_back(in);
      }

  fmt::print("{:<20} {:>22} {:>22} {:>22}   (items/s of CPU time, median of {} passes)\n",
             "metric (1 thread)", "first ref, file order", "first ref, interleaved",
             "all refs, file order", passes);
  for (const auto& spec : specs) {
    const auto metric = probity::make_metric(spec);
    std::vector<double> stats(metric->num_stats()), parts(metric->parts().size());
    volatile double sink = 0;
    auto rate = [&](const std::vector<probity::MetricInput>& inputs, const char* order) {
      if (!only.empty() && only != order) return 0.0;
      std::vector<double> seconds;
      for (int p = 0; p < passes; ++p) {
        const double t0 = thread_cpu_seconds();
        for (const auto& in : inputs) {
          metric->item_stats(in, stats);
          metric->sentence_score(stats, parts);
          sink = sink + parts[metric->primary_part()];
        }
        seconds.push_back(thread_cpu_seconds() - t0);
      }
      return static_cast<double>(inputs.size()) / median(seconds);
    };
    const double a = rate(dataset_first, "file"), b = rate(interleaved_first, "interleaved"),
                 c = rate(all_refs, "all");
    fmt::print("{:<20} {:>22.0f} {:>22.0f} {:>22.0f}\n", spec, a, b, c);
  }
  return 0;
}
