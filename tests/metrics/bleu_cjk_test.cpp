// BLEU with sacreBLEU's zh, char and ja-mecab tokenizers against sacreBLEU 2.6.0 on Chinese and
// Japanese corpora (tests/golden/lexical/bleu_cjk.json, written by gen/cjk_tokenizers.py).
#include <gtest/gtest.h>

#include <fstream>
#include <nlohmann/json.hpp>
#include <span>
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

const json& golden() {
  static const json j = [] {
    std::ifstream in(probity::test::golden_path("lexical/bleu_cjk.json"));
    return json::parse(in);
  }();
  return j;
}

void expect_stats(std::span<const double> stats, const json& g, const std::string& what) {
  EXPECT_EQ(stats[0], g["sys_len"].get<double>()) << what;
  EXPECT_EQ(stats[1], g["ref_len"].get<double>()) << what;
  for (std::size_t n = 0; n < 4; ++n) {
    EXPECT_EQ(stats[2 + n], g["counts"][n].get<double>()) << what << " order " << n + 1;
    EXPECT_EQ(stats[6 + n], g["totals"][n].get<double>()) << what << " order " << n + 1;
  }
}

// Corpus statistics of `metric` with the first `streams` reference streams.
std::vector<double> corpus_stats(const probity::Metric& metric, const json& corpus,
                                 std::size_t streams) {
  const auto& hyps = corpus["hyps"];
  const std::size_t k = metric.num_stats();
  std::vector<double> all(hyps.size() * k);
  for (std::size_t i = 0; i < hyps.size(); ++i) {
    MetricInput in;
    in.candidate = hyps[i].get_ref<const std::string&>();
    for (std::size_t s = 0; s < streams; ++s)
      in.references.push_back(corpus["refs"][s][i].get_ref<const std::string&>());
    metric.item_stats(in, std::span<double>(all).subspan(i * k, k));
  }
  return all;
}

TEST(BleuCjkGolden, SentenceAndCorpusScores) {
  const json& g = golden();
  ASSERT_EQ(g["bleu"].size(), 8u);
  for (const auto& [key, values] : g["bleu"].items()) {
    const std::string corpus_name = key.substr(0, key.find('/'));
    const std::string tok = key.substr(key.find('/') + 1);
    const json& corpus = g["corpora"][corpus_name];
    auto metric = probity::make_metric("bleu,tokenize=" + tok);
    const std::size_t k = metric->num_stats();
    const std::size_t streams = corpus["refs"].size();
    const auto all = corpus_stats(*metric, corpus, streams);
    for (std::size_t i = 0; i < corpus["hyps"].size(); ++i) {
      const std::string what = key + " item " + std::to_string(i);
      const auto stats = std::span<const double>(all).subspan(i * k, k);
      const json& s = values["sentence"][i];
      expect_stats(stats, s, what);
      std::vector<double> parts(1);
      metric->sentence_score(stats, parts);
      expect_close(parts[0], s["score"].get<double>(), what);
    }
    for (const auto& [name, n] : {std::pair<std::string, std::size_t>{"corpus", streams},
                                  std::pair<std::string, std::size_t>{"corpus_1ref", 1}}) {
      const auto stats = corpus_stats(*metric, corpus, n);
      std::vector<double> sum(k, 0.0);
      for (std::size_t i = 0; i < stats.size(); ++i) sum[i % k] += stats[i];
      expect_stats(sum, values[name], key + " " + name);
      expect_close(probity::corpus_score(*metric, stats)[0], values[name]["score"].get<double>(),
                   key + " " + name);
    }
    // The tokenizer as sacreBLEU's signature names it.
    const std::string sig = values["corpus"]["signature"].get<std::string>();
    const std::string tok_field =
        sig.substr(sig.find("|tok:"), sig.find("|smooth") - sig.find("|tok:"));
    EXPECT_NE(metric->signature().find(tok_field + "|"), std::string::npos) << metric->signature();
  }
}

}  // namespace
