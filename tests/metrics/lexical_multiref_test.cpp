// BLEU, chrF and ROUGE with several references against sacreBLEU 2.6.0 and rouge-score
// (tests/golden/lexical/multiref.jsonl): SummEval candidates with their 11 references as given,
// reversed, rotated, duplicated, and mixed with empty and whitespace-only references, plus
// hand-made ties and empty references. Statistics exactly, scores to 1e-9.
#include <gtest/gtest.h>

#include <fstream>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "metrics/golden_lexical.hpp"
#include "probity/engine.hpp"
#include "probity/metric.hpp"
#include "test_paths.hpp"

namespace {

using nlohmann::json;
using probity::MetricInput;
using probity::test::lexical::expect_close;

const std::vector<json>& cases() {
  static const std::vector<json> out = [] {
    std::vector<json> v;
    std::ifstream in(probity::test::golden_path("lexical/multiref.jsonl"));
    for (std::string line; std::getline(in, line);)
      if (!line.empty()) v.push_back(json::parse(line));
    return v;
  }();
  return out;
}

MetricInput input_of(const json& c) {
  MetricInput in;
  in.candidate = c["hyp"].get_ref<const std::string&>();
  for (const auto& r : c["refs"]) in.references.push_back(r.get_ref<const std::string&>());
  return in;
}

// Statistics equal to the golden ones and the sentence score within the golden tolerance.
void expect_stats(const probity::Metric& metric, const json& c, const std::string& key) {
  std::vector<double> stats(metric.num_stats()), parts(metric.parts().size());
  metric.item_stats(input_of(c), stats);
  const auto& want = c[key]["stats"];
  ASSERT_EQ(stats.size(), want.size()) << key;
  for (std::size_t i = 0; i < stats.size(); ++i)
    EXPECT_EQ(stats[i], want[i].get<double>()) << c["name"] << " " << key << " stat " << i;
  metric.sentence_score(stats, parts);
  expect_close(parts[0], c[key]["score"].get<double>(), c["name"].get<std::string>() + " " + key);
}

TEST(LexicalMultiRef, GoldenCasesCoverTheVariants) {
  ASSERT_GE(cases().size(), 400u);
  std::size_t empty = 0;
  for (const auto& c : cases())
    for (const auto& r : c["refs"]) empty += r.get<std::string>().empty();
  EXPECT_GT(empty, 100u);
}

TEST(LexicalMultiRef, BleuAsSacreBleu) {
  const auto bleu = probity::make_metric("bleu");
  for (const auto& c : cases()) expect_stats(*bleu, c, "bleu");
}

TEST(LexicalMultiRef, ChrfAsSacreBleu) {
  const auto chrf = probity::make_metric("chrf");
  const auto chrfpp = probity::make_metric("chrf++");
  for (const auto& c : cases()) {
    expect_stats(*chrf, c, "chrf2");
    expect_stats(*chrfpp, c, "chrf2pp");
  }
}

TEST(LexicalMultiRef, RougeAsRougeScore) {
  for (const bool stem : {false, true}) {
    for (const std::string kind : {"rouge1", "rouge2", "rougeL", "rougeLsum"}) {
      const auto metric = probity::make_metric(kind + (stem ? ",stem=true" : ""));
      std::vector<double> stats(metric->num_stats()), parts(3);
      for (const auto& c : cases()) {
        metric->item_stats(input_of(c), stats);
        metric->sentence_score(stats, parts);
        const auto& want = c[stem ? "rouge_stem" : "rouge"][kind];
        for (std::size_t j = 0; j < 3; ++j)
          expect_close(parts[j], want[j].get<double>(),
                       c["name"].get<std::string>() + " " + kind + " part " + std::to_string(j));
      }
    }
  }
}

}  // namespace
