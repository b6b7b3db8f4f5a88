// BLEU against sacreBLEU 2.6.0 golden values (tests/golden/lexical) and hand-checked cases.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <nlohmann/json.hpp>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "metrics/golden_lexical.hpp"
#include "probity/engine.hpp"
#include "probity/error.hpp"
#include "probity/metric.hpp"

// Defined in src/metrics/bleu.cpp: [score, bp, precisions...] of sacreBLEU's compute_bleu.
namespace probity::metrics::detail {
std::vector<double> bleu_breakdown(std::span<const double> stats, std::size_t max_order,
                                   std::string_view smooth, double smooth_value,
                                   bool effective_order);
}  // namespace probity::metrics::detail

namespace {

using nlohmann::json;
using probity::MetricInput;
using probity::test::lexical::corpus_golden;
using probity::test::lexical::expect_close;
using probity::test::lexical::input_of;
using probity::test::lexical::sentence_cases;

// Checks statistics, score, brevity penalty and precisions of one sentence against sacreBLEU.
void check_sentence(const probity::Metric& metric, const json& c, const json& g,
                    const std::string& what) {
  std::vector<double> stats(metric.num_stats());
  metric.item_stats(input_of(c), stats);
  ASSERT_EQ(stats.size(), 10u);
  EXPECT_EQ(stats[0], g["sys_len"].get<double>()) << what;
  EXPECT_EQ(stats[1], g["ref_len"].get<double>()) << what;
  for (std::size_t n = 0; n < 4; ++n) {
    EXPECT_EQ(stats[2 + n], g["counts"][n].get<double>()) << what << " order " << n + 1;
    EXPECT_EQ(stats[6 + n], g["totals"][n].get<double>()) << what << " order " << n + 1;
  }
  std::vector<double> parts(1);
  metric.sentence_score(stats, parts);
  expect_close(parts[0], g["score"].get<double>(), what + " score");
  auto breakdown = probity::metrics::detail::bleu_breakdown(stats, 4, "exp", 0.0, true);
  expect_close(breakdown[0], g["score"].get<double>(), what + " breakdown score");
  expect_close(breakdown[1], g["bp"].get<double>(), what + " bp");
  for (std::size_t n = 0; n < 4; ++n)
    expect_close(breakdown[2 + n], g["precisions"][n].get<double>(), what + " precision");
}

TEST(BleuGolden, SentenceFirstReference) {
  auto metric = probity::make_metric("bleu,refs=first");
  ASSERT_EQ(sentence_cases().size(), 312u);
  for (std::size_t i = 0; i < sentence_cases().size(); ++i) {
    const json& c = sentence_cases()[i];
    check_sentence(*metric, c, c["sentence_bleu_1ref"], "case " + std::to_string(i));
  }
}

TEST(BleuGolden, SentenceAllReferences) {
  auto metric = probity::make_metric("bleu");
  for (std::size_t i = 0; i < sentence_cases().size(); ++i) {
    const json& c = sentence_cases()[i];
    check_sentence(*metric, c, c["sentence_bleu_allrefs"], "case " + std::to_string(i));
  }
}

// Corpus BLEU over the 300 SummEval summaries with the first `n_streams` reference streams.
void check_corpus(std::size_t n_streams, const json& g) {
  const json& j = corpus_golden();
  const auto& hyps = j["hyps"];
  const auto& streams = j["refs_streams"];
  auto metric = probity::make_metric("bleu");
  const std::size_t k = metric->num_stats();
  std::vector<double> all(hyps.size() * k);
  for (std::size_t i = 0; i < hyps.size(); ++i) {
    MetricInput in;
    in.candidate = hyps[i].get_ref<const std::string&>();
    for (std::size_t s = 0; s < n_streams; ++s)
      in.references.push_back(streams[s][i].get_ref<const std::string&>());
    metric->item_stats(in, std::span<double>(all).subspan(i * k, k));
  }
  std::vector<double> sum(k, 0.0);
  for (std::size_t i = 0; i < hyps.size(); ++i)
    for (std::size_t s = 0; s < k; ++s) sum[s] += all[i * k + s];
  EXPECT_EQ(sum[0], g["sys_len"].get<double>());
  EXPECT_EQ(sum[1], g["ref_len"].get<double>());
  for (std::size_t n = 0; n < 4; ++n) {
    EXPECT_EQ(sum[2 + n], g["counts"][n].get<double>());
    EXPECT_EQ(sum[6 + n], g["totals"][n].get<double>());
  }
  auto parts = probity::corpus_score(*metric, all);
  expect_close(parts[0], g["score"].get<double>(), "corpus score");
  auto breakdown = probity::metrics::detail::bleu_breakdown(sum, 4, "exp", 0.0, false);
  expect_close(breakdown[1], g["bp"].get<double>(), "corpus bp");
  for (std::size_t n = 0; n < 4; ++n)
    expect_close(breakdown[2 + n], g["precisions"][n].get<double>(), "corpus precision");
}

TEST(BleuGolden, CorpusOneReference) {
  check_corpus(1, corpus_golden()["bleu_1ref"]);
}

TEST(BleuGolden, CorpusElevenReferences) {
  ASSERT_EQ(corpus_golden()["refs_streams"].size(), 11u);
  check_corpus(11, corpus_golden()["bleu_allrefs"]);
}

TEST(BleuMetric, IdenticalTextScores100) {
  auto metric = probity::make_metric("bleu");
  for (std::string_view s : {"The quick brown fox jumps over the lazy dog.", "Two words",
                             "Один два три четыре пять.", "x"}) {
    MetricInput in;
    in.candidate = s;
    in.references = {s};
    expect_close(metric->score(in)[0], 100.0, std::string(s));
  }
}

TEST(BleuMetric, CorpusScoreHasNoEffectiveOrder) {
  // Three tokens give no 4-grams: sentence BLEU averages three orders, corpus BLEU four and is 0.
  auto metric = probity::make_metric("bleu");
  MetricInput in;
  in.candidate = "Same text.";
  in.references = {"Same text."};
  std::vector<double> stats(metric->num_stats());
  metric->item_stats(in, stats);
  std::vector<double> parts(1);
  metric->sentence_score(stats, parts);
  expect_close(parts[0], 100.0, "sentence");
  metric->corpus_score(stats, parts);
  EXPECT_LT(parts[0], 1e-100);
}

TEST(BleuMetric, SmoothingMethods) {
  // sys 5, ref 6: bp = exp(1 - 6/5); precisions 3/5, 1/4, then no 3- or 4-gram match.
  const std::vector<double> stats = {5, 6, 3, 1, 0, 0, 5, 4, 3, 2};
  const double bp = std::exp(1.0 - 6.0 / 5.0);
  auto geo = [](std::vector<double> p) {
    double s = 0;
    for (double x : p) s += std::log(x);
    return std::exp(s / static_cast<double>(p.size()));
  };
  using probity::metrics::detail::bleu_breakdown;
  expect_close(bleu_breakdown(stats, 4, "exp", 0, false)[0],
               bp * geo({60, 25, 100.0 / (2 * 3), 100.0 / (4 * 2)}), "exp");
  expect_close(bleu_breakdown(stats, 4, "floor", 0.1, false)[0],
               bp * geo({60, 25, 100 * 0.1 / 3, 100 * 0.1 / 2}), "floor");
  expect_close(bleu_breakdown(stats, 4, "add-k", 1, false)[0],
               bp * geo({60, 100.0 * 2 / 5, 100.0 * 1 / 4, 100.0 * 1 / 3}), "add-k");
  EXPECT_LT(bleu_breakdown(stats, 4, "none", 0, false)[0], 1e-100);
  // Signatures name the smoothing value as sacreBLEU does.
  EXPECT_NE(probity::make_metric("bleu,smooth=floor")->signature().find("smooth:floor[0.10]"),
            std::string::npos);
  EXPECT_NE(probity::make_metric("bleu,smooth=add-k,smooth_value=2")
                ->signature()
                .find("smooth:add-k[2.00]"),
            std::string::npos);
}

TEST(BleuMetric, Signature) {
  EXPECT_EQ(
      probity::make_metric("bleu")->signature(),
      "bleu|nrefs:all|case:mixed|eff:yes|tok:13a|smooth:exp|version:probity-" + probity::version());
  EXPECT_EQ(
      probity::make_metric("bleu,refs=first,lowercase=true,tokenize=intl")->signature(),
      "bleu|nrefs:first|case:lc|eff:yes|tok:intl|smooth:exp|version:probity-" + probity::version());
  EXPECT_EQ(probity::make_metric("bleu,refs=first")->name(), "bleu,refs=first");
}

TEST(BleuMetric, RejectsBadOptions) {
  EXPECT_THROW(probity::make_metric("bleu,colour=red"), probity::UsageError);
  EXPECT_THROW(probity::make_metric("bleu,tokenize=ko-mecab"), probity::UsageError);
  EXPECT_THROW(probity::make_metric("bleu,smooth=magic"), probity::UsageError);
  EXPECT_THROW(probity::make_metric("bleu,refs="), probity::UsageError);
  EXPECT_THROW(probity::make_metric("bleu,max_ngram_order=0"), probity::UsageError);
}

TEST(BleuMetric, OptionsChangeStatistics) {
  MetricInput in;
  in.candidate = "Hello, World!";
  in.references = {"hello , world !"};
  // 13a splits the punctuation; case matters unless lowercased.
  EXPECT_EQ(probity::make_metric("bleu")->score(in)[0] < 100.0, true);
  expect_close(probity::make_metric("bleu,lowercase=true")->score(in)[0], 100.0, "lowercase");
  expect_close(probity::make_metric("bleu,lowercase=true,tokenize=intl")->score(in)[0], 100.0,
               "intl");
  // Without tokenization "Hello," and "hello" differ: only "World!" vs "world" ... nothing matches.
  expect_close(probity::make_metric("bleu,lowercase=true,tokenize=none")->score(in)[0], 0.0,
               "none");
  // refs=all clips by the best reference, refs=first ignores the second one.
  MetricInput two;
  two.candidate = "a b c d";
  two.references = {"w x y z", "a b c d"};
  expect_close(probity::make_metric("bleu")->score(two)[0], 100.0, "all");
  expect_close(probity::make_metric("bleu,refs=first")->score(two)[0], 0.0, "first");
}

TEST(BleuMetric, HighOrders) {
  // 20-grams over a 7-word vocabulary: n-gram ids are built order by order.
  auto metric = probity::make_metric("bleu,max_ngram_order=20");
  EXPECT_EQ(metric->num_stats(), 42u);
  std::string text;
  for (int i = 0; i < 30; ++i) {
    text += 'w';
    text += std::to_string(i % 7);
    text += ' ';
  }
  MetricInput in;
  in.candidate = text;
  in.references = {text};
  std::vector<double> stats(metric->num_stats());
  metric->item_stats(in, stats);
  for (std::size_t n = 1; n <= 20; ++n) {
    EXPECT_EQ(stats[1 + n], 31.0 - static_cast<double>(n));
    EXPECT_EQ(stats[21 + n], 31.0 - static_cast<double>(n));
  }
  // A reference differing in one token loses exactly the n-grams that cover it.
  std::string other = text;
  other.replace(0, 2, "zz");
  in.references = {other};
  metric->item_stats(in, stats);
  EXPECT_EQ(stats[2], 29.0);   // "w0" still occurs 4 more times in the reference: 30 - 1
  EXPECT_EQ(stats[21], 10.0);  // 20-grams: the 11 starting at 0..10 minus the one at 0
}

TEST(BleuMetric, LargeVocabularyUsesHashedNgramIds) {
  // 1,500 distinct words: the (n-1)-gram x word grid would be too large, so n-gram ids come
  // from the hash table. One replaced word removes the n n-grams that cover it.
  const std::size_t len = 1500;
  std::string hyp, ref;
  for (std::size_t i = 0; i < len; ++i) {
    const std::string word = std::to_string(i);
    hyp += 'w';
    hyp += word;
    hyp += ' ';
    ref += i == len / 2 ? std::string("other") : 'w' + word;
    ref += ' ';
  }
  auto metric = probity::make_metric("bleu");
  MetricInput in;
  in.candidate = hyp;
  in.references = {ref};
  std::vector<double> stats(metric->num_stats());
  metric->item_stats(in, stats);
  EXPECT_EQ(stats[0], static_cast<double>(len));
  for (std::size_t n = 1; n <= 4; ++n) {
    EXPECT_EQ(stats[1 + n], static_cast<double>(len - n + 1 - n)) << "order " << n;
    EXPECT_EQ(stats[5 + n], static_cast<double>(len - n + 1)) << "order " << n;
  }
}

TEST(BleuMetric, NeedsAReference) {
  auto metric = probity::make_metric("bleu");
  MetricInput in;
  in.candidate = "text";
  std::vector<double> stats(metric->num_stats());
  EXPECT_THROW(metric->item_stats(in, stats), std::invalid_argument);
}

TEST(BleuMetric, ConcurrentItemStatsMatchSequential) {
  probity::test::lexical::expect_concurrent_stats_match_sequential(*probity::make_metric("bleu"));
}

}  // namespace
