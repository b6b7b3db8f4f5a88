#pragma once
// What the BLEU and chrF tests share: sacreBLEU 2.6.0 golden values (tests/golden/lexical), the
// tolerance they are checked with, and the thread-safety check of item_stats.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstddef>
#include <fstream>
#include <nlohmann/json.hpp>
#include <span>
#include <string>
#include <thread>
#include <vector>

#include "probity/metric.hpp"
#include "test_paths.hpp"

namespace probity::test::lexical {

// Golden scores are floats printed by Python: compared up to a relative 1e-9 (absolute below 1).
inline void expect_close(double actual, double expected, const std::string& what) {
  EXPECT_NEAR(actual, expected, 1e-9 * std::max(1.0, std::abs(expected))) << what;
}

// sentence.jsonl: one case a line, {"hyp", "refs", then the golden values of each metric}.
inline const std::vector<nlohmann::json>& sentence_cases() {
  static const std::vector<nlohmann::json> cases = [] {
    std::vector<nlohmann::json> out;
    std::ifstream in(golden_path("lexical/sentence.jsonl"));
    std::string line;
    while (std::getline(in, line))
      if (!line.empty()) out.push_back(nlohmann::json::parse(line));
    return out;
  }();
  return cases;
}

// corpus.json: the SummEval summaries ("hyps"), their reference streams and corpus-level values.
inline const nlohmann::json& corpus_golden() {
  static const nlohmann::json j = [] {
    std::ifstream in(golden_path("lexical/corpus.json"));
    return nlohmann::json::parse(in);
  }();
  return j;
}

inline MetricInput input_of(const nlohmann::json& c) {
  MetricInput in;
  in.candidate = c["hyp"].get_ref<const std::string&>();
  for (const auto& r : c["refs"]) in.references.push_back(r.get_ref<const std::string&>());
  return in;
}

// item_stats keeps its scratch per thread: two threads give the sequential statistics.
inline void expect_concurrent_stats_match_sequential(const Metric& metric) {
  const auto& cases = sentence_cases();
  const std::size_t k = metric.num_stats();
  std::vector<double> seq(cases.size() * k), par(cases.size() * k);
  for (std::size_t i = 0; i < cases.size(); ++i)
    metric.item_stats(input_of(cases[i]), std::span<double>(seq).subspan(i * k, k));
  auto work = [&](std::size_t first) {
    for (std::size_t i = first; i < cases.size(); i += 2)
      metric.item_stats(input_of(cases[i]), std::span<double>(par).subspan(i * k, k));
  };
  std::thread other(work, 1);
  work(0);
  other.join();
  EXPECT_EQ(seq, par);
}

}  // namespace probity::test::lexical
