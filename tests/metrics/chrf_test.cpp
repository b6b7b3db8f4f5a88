// chrF and chrF++ against sacreBLEU 2.6.0 golden values (tests/golden/lexical).
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <nlohmann/json.hpp>
#include <span>
#include <string>
#include <vector>

#include "metrics/golden_lexical.hpp"
#include "probity/engine.hpp"
#include "probity/error.hpp"
#include "probity/metric.hpp"

namespace {

using nlohmann::json;
using probity::MetricInput;
using probity::test::lexical::corpus_golden;
using probity::test::lexical::expect_close;
using probity::test::lexical::input_of;
using probity::test::lexical::sentence_cases;

void check_sentences(const std::string& spec, const std::string& field) {
  auto metric = probity::make_metric(spec);
  ASSERT_EQ(sentence_cases().size(), 312u);
  for (std::size_t i = 0; i < sentence_cases().size(); ++i) {
    const json& c = sentence_cases()[i];
    expect_close(metric->score(input_of(c))[0], c[field].get<double>(),
                 spec + " case " + std::to_string(i));
  }
}

TEST(ChrfGolden, SentenceFirstReference) {
  check_sentences("chrf,refs=first", "chrf2_1ref");
}
TEST(ChrfGolden, SentencePlusPlusFirstReference) {
  check_sentences("chrf++,refs=first", "chrf2pp_1ref");
}
TEST(ChrfGolden, SentenceAllReferences) {
  check_sentences("chrf", "chrf2_allrefs");
}

void check_corpus(const std::string& spec, double expected) {
  const json& j = corpus_golden();
  const auto& hyps = j["hyps"];
  const auto& refs = j["refs_streams"][0];
  auto metric = probity::make_metric(spec);
  const std::size_t k = metric->num_stats();
  std::vector<double> all(hyps.size() * k);
  for (std::size_t i = 0; i < hyps.size(); ++i) {
    MetricInput in;
    in.candidate = hyps[i].get_ref<const std::string&>();
    in.references = {refs[i].get_ref<const std::string&>()};
    metric->item_stats(in, std::span<double>(all).subspan(i * k, k));
  }
  expect_close(probity::corpus_score(*metric, all)[0], expected, spec);
}

TEST(ChrfGolden, CorpusOneReference) {
  const json& j = corpus_golden();
  check_corpus("chrf", j["chrf2_1ref"].get<double>());
  check_corpus("chrf++", j["chrf2pp_1ref"].get<double>());
}

TEST(ChrfMetric, IdenticalTextScores100) {
  for (const char* spec : {"chrf", "chrf++", "chrf,whitespace=true", "chrf,lowercase=true"}) {
    auto metric = probity::make_metric(spec);
    for (std::string_view s : {"The quick brown fox.", "東京は日本の首都です。", "ab"}) {
      MetricInput in;
      in.candidate = s;
      in.references = {s};
      expect_close(metric->score(in)[0], 100.0, std::string(spec) + " " + std::string(s));
    }
  }
}

TEST(ChrfMetric, Statistics) {
  // "ab c" vs "abd": whitespace is dropped, so hyp "abc", ref "abd".
  auto metric = probity::make_metric("chrf,char_order=3");
  MetricInput in;
  in.candidate = "ab c";
  in.references = {"abd"};
  std::vector<double> stats(metric->num_stats());
  metric->item_stats(in, stats);
  EXPECT_EQ(stats, (std::vector<double>{3, 3, 2, 2, 2, 1, 1, 1, 0}));
  // Precision = recall = (2/3 + 1/2 + 0) / 3.
  expect_close(metric->score(in)[0], 100.0 * (2.0 / 3 + 0.5) / 3, "score");
  // An order the reference is too short for counts no hypothesis n-grams either.
  in.references = {"ab"};
  metric->item_stats(in, stats);
  EXPECT_EQ(stats, (std::vector<double>{3, 2, 2, 2, 1, 1, 0, 0, 0}));
}

TEST(ChrfMetric, PlusPlusSplitsPunctuation) {
  // Words lose one trailing, else one leading, punctuation character: "(hi)" becomes "(hi" and
  // ")" (sacreBLEU issue #124), "x," becomes "x" and ",".
  auto metric = probity::make_metric("chrf++,char_order=1");
  MetricInput in;
  in.candidate = "(hi) x,";
  in.references = {"(hi) x ,"};
  std::vector<double> stats(metric->num_stats());
  metric->item_stats(in, stats);
  // Word unigrams and bigrams: [hyp, ref, match] after the character unigrams.
  EXPECT_EQ(std::vector<double>(stats.begin() + 3, stats.end()),
            (std::vector<double>{4, 4, 4, 3, 3, 3}));
  // Reference words "(", "hi", ")", "x", ",": unigrams ")", "x", ",", bigrams ") x", "x ," match.
  in.references = {"( hi ) x ,"};
  metric->item_stats(in, stats);
  EXPECT_EQ(std::vector<double>(stats.begin() + 3, stats.end()),
            (std::vector<double>{4, 5, 3, 3, 4, 2}));
}

TEST(ChrfMetric, BestReferenceWins) {
  auto metric = probity::make_metric("chrf");
  MetricInput in;
  in.candidate = "the cat sat on the mat";
  in.references = {"a dog ran", "the cat sat on a mat"};
  MetricInput best = in;
  best.references = {in.references[1]};
  expect_close(metric->score(in)[0], metric->score(best)[0], "best");
  auto first = probity::make_metric("chrf,refs=first");
  MetricInput only_first = in;
  only_first.references = {in.references[0]};
  expect_close(first->score(in)[0], metric->score(only_first)[0], "first");
}

TEST(ChrfMetric, HighOrders) {
  // 40-character n-grams: ids are built order by order.
  auto metric = probity::make_metric("chrf,char_order=40");
  MetricInput in;
  in.candidate = "abcdefghijklmnopqrstuvwxyz0123456789ABCDEFGHIJ";
  in.references = {in.candidate};
  expect_close(metric->score(in)[0], 100.0, "identical");
  std::vector<double> stats(metric->num_stats());
  in.references = {"abcdefghijklmnopqrstuvwxyz0123456789ABCDEFGHIj"};
  metric->item_stats(in, stats);
  EXPECT_EQ(stats[3 * 39 + 2], 6.0);  // 46 - 40 + 1 = 7 40-grams, the last one differs
}

TEST(ChrfMetric, LargeAlphabetUsesHashedNgramIds) {
  // 2,000 distinct CJK characters: the (n-1)-gram x character grid would be too large, so n-gram
  // ids come from the hash table. One replaced character removes the n n-grams that cover it.
  const std::size_t len = 2000;
  std::string hyp, ref;
  auto append = [](std::string& s, char32_t cp) {
    s += static_cast<char>(0xE0 | (cp >> 12));
    s += static_cast<char>(0x80 | ((cp >> 6) & 0x3F));
    s += static_cast<char>(0x80 | (cp & 0x3F));
  };
  for (std::size_t i = 0; i < len; ++i) {
    append(hyp, static_cast<char32_t>(0x4E00 + i));
    append(ref, static_cast<char32_t>(i == len / 2 ? 0x9000 : 0x4E00 + i));
  }
  auto metric = probity::make_metric("chrf");
  MetricInput in;
  in.candidate = hyp;
  in.references = {ref};
  std::vector<double> stats(metric->num_stats());
  metric->item_stats(in, stats);
  for (std::size_t n = 1; n <= 6; ++n) {
    const auto count = static_cast<double>(len - n + 1);
    EXPECT_EQ(stats[3 * (n - 1)], count);
    EXPECT_EQ(stats[3 * (n - 1) + 1], count);
    EXPECT_EQ(stats[3 * (n - 1) + 2], count - static_cast<double>(n)) << "order " << n;
  }
}

TEST(ChrfMetric, SignatureAndOptions) {
  EXPECT_EQ(probity::make_metric("chrf")->signature(),
            "chrf|nrefs:all|case:mixed|eff:yes|nc:6|nw:0|space:no|beta:2|version:probity-" +
                probity::version());
  EXPECT_EQ(probity::make_metric("chrf++,refs=first")->signature(),
            "chrf++|nrefs:first|case:mixed|eff:yes|nc:6|nw:2|space:no|beta:2|version:probity-" +
                probity::version());
  EXPECT_EQ(probity::make_metric("chrf++")->num_stats(), 24u);
  EXPECT_THROW(probity::make_metric("chrf,order=3"), probity::UsageError);
  EXPECT_THROW(probity::make_metric("chrf,refs=a||b"), probity::UsageError);
  EXPECT_THROW(probity::make_metric("chrf,char_order=0"), probity::UsageError);
  EXPECT_THROW(probity::make_metric("chrf,beta=x"), probity::UsageError);
}

TEST(ChrfMetric, LowercaseAndWhitespace) {
  MetricInput in;
  in.candidate = "ÀB C";
  in.references = {"àb c"};
  EXPECT_LT(probity::make_metric("chrf")->score(in)[0], 100.0);
  expect_close(probity::make_metric("chrf,lowercase=true")->score(in)[0], 100.0, "lowercase");
  // With whitespace kept, "ab c" and "abc" differ in their 2-grams and longer.
  MetricInput ws;
  ws.candidate = "ab c";
  ws.references = {"abc"};
  expect_close(probity::make_metric("chrf")->score(ws)[0], 100.0, "no whitespace");
  EXPECT_LT(probity::make_metric("chrf,whitespace=true")->score(ws)[0], 100.0);
}

TEST(ChrfMetric, ConcurrentItemStatsMatchSequential) {
  probity::test::lexical::expect_concurrent_stats_match_sequential(*probity::make_metric("chrf++"));
}

}  // namespace
