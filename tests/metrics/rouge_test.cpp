#include "metrics/rouge.hpp"

#include <fmt/format.h>
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <fstream>
#include <memory>
#include <nlohmann/json.hpp>
#include <random>
#include <string>
#include <thread>
#include <vector>

#include "probity/engine.hpp"
#include "probity/error.hpp"
#include "probity/metric.hpp"
#include "probity/text.hpp"
#include "test_paths.hpp"

namespace {

using probity::make_metric;
using probity::MetricInput;

struct GoldenCase {
  std::string hyp;
  std::vector<std::string> refs;
  nlohmann::json rouge, rouge_stem;
};

std::vector<GoldenCase> load_golden() {
  std::ifstream in(probity::test::golden_path("lexical/sentence.jsonl"));
  std::vector<GoldenCase> cases;
  std::string line;
  while (std::getline(in, line)) {
    if (line.empty()) continue;
    auto j = nlohmann::json::parse(line);
    cases.push_back({j.at("hyp").get<std::string>(), j.at("refs").get<std::vector<std::string>>(),
                     j.at("rouge_1ref"), j.at("rouge_stem_1ref")});
  }
  return cases;
}

bool close(double got, double want) {
  return got == want || std::fabs(got - want) <= 1e-9 * std::max(std::fabs(got), std::fabs(want));
}

std::vector<double> score(const probity::Metric& m, const std::string& hyp,
                          const std::vector<std::string>& refs) {
  MetricInput in;
  in.candidate = hyp;
  for (const auto& r : refs) in.references.emplace_back(r);
  return m.score(in);
}

const char* const kTypes[] = {"rouge1", "rouge2", "rougeL", "rougeLsum"};

}  // namespace

// rouge-score (NLTK 3.8 Porter) on 12 edge cases and 300 SummEval summaries, target = refs[0].
TEST(RougeGolden, MatchesRougeScoreWithAndWithoutStemming) {
  const auto cases = load_golden();
  ASSERT_EQ(cases.size(), 312u);
  std::size_t checked = 0, passed_cases = 0;
  for (bool stem : {false, true}) {
    for (const char* type : kTypes) {
      auto metric = make_metric(fmt::format("{},stem={}", type, stem));
      for (std::size_t i = 0; i < cases.size(); ++i) {
        const auto& c = cases[i];
        const auto& want = (stem ? c.rouge_stem : c.rouge).at(type);
        const auto got = score(*metric, c.hyp, {c.refs.at(0)});
        ++checked;
        const bool ok = close(got[0], want.at("precision").get<double>()) &&
                        close(got[1], want.at("recall").get<double>()) &&
                        close(got[2], want.at("fmeasure").get<double>());
        if (ok) {
          ++passed_cases;
        } else {
          ADD_FAILURE() << type << " stem=" << stem << " case " << i << ": got p/r/f " << got[0]
                        << " " << got[1] << " " << got[2] << ", want " << want.dump();
        }
      }
    }
  }
  EXPECT_EQ(checked, 312u * 8);
  EXPECT_EQ(passed_cases, checked);
}

// refs=first scores only the first of the 11 SummEval references: same golden values.
TEST(RougeGolden, RefsFirstUsesOnlyTheFirstReference) {
  const auto cases = load_golden();
  auto metric = make_metric("rougeL,stem=true,refs=first");
  for (std::size_t i = 0; i < cases.size(); ++i) {
    const auto got = score(*metric, cases[i].hyp, cases[i].refs);
    const auto& want = cases[i].rouge_stem.at("rougeL");
    EXPECT_TRUE(close(got[2], want.at("fmeasure").get<double>())) << "case " << i;
  }
}

TEST(RougeMetric, IdenticalTextsScoreOne) {
  const std::string text = "The cats were sitting on the mat.\nThen they ran away, quickly!";
  for (const char* type : kTypes) {
    for (const char* opts : {"", ",stem=true", ",tokenizer=unicode"}) {
      auto metric = make_metric(std::string(type) + opts);
      const auto s = score(*metric, text, {text});
      EXPECT_EQ(s, (std::vector<double>{1.0, 1.0, 1.0})) << type << opts;
    }
  }
}

TEST(RougeMetric, EmptyTextsScoreZero) {
  for (const char* type : kTypes) {
    auto metric = make_metric(type);
    const std::vector<double> zero{0.0, 0.0, 0.0};
    EXPECT_EQ(score(*metric, "", {"a reference"}), zero) << type;
    EXPECT_EQ(score(*metric, "a hypothesis", {""}), zero) << type;
    EXPECT_EQ(score(*metric, "", {""}), zero) << type;
    EXPECT_EQ(score(*metric, "?!", {"..."}), zero) << type;
  }
}

TEST(RougeMetric, NoReferenceIsUndefined) {
  auto metric = make_metric("rouge1");
  const auto s = score(*metric, "some text", {});
  ASSERT_EQ(s.size(), 3u);
  for (double v : s) EXPECT_TRUE(std::isnan(v));
  std::vector<double> stats(metric->num_stats());
  metric->item_stats(MetricInput{"some text", {}, {}, {}}, stats);
  EXPECT_FALSE(metric->undefined_reason(stats).empty());
}

TEST(RougeMetric, NonLatinScoresZeroByDefaultAndPositiveWithUnicodeTokenizer) {
  const std::string hyp = "Москва — столица России.";
  const std::string ref = "Столица России — город Москва.";
  for (const char* type : {"rouge1", "rougeL", "rougeLsum"}) {
    auto def = make_metric(type);
    EXPECT_EQ(score(*def, hyp, {ref})[2], 0.0) << type;
    auto uni = make_metric(std::string(type) + ",tokenizer=unicode");
    EXPECT_GT(score(*uni, hyp, {ref})[2], 0.0) << type;
  }
  // 3 of 3 hypothesis words occur among the 4 reference words ("столица" matches "Столица").
  auto uni = make_metric("rouge1,tokenizer=unicode");
  const auto s = score(*uni, hyp, {ref});
  EXPECT_DOUBLE_EQ(s[0], 1.0);
  EXPECT_DOUBLE_EQ(s[1], 0.75);
}

TEST(RougeMetric, MultiMaxKeepsTheReferenceWithTheBestF) {
  auto max = make_metric("rouge1");
  auto mean = make_metric("rouge1,multi=mean");
  auto first = make_metric("rouge1,refs=first");
  const std::vector<std::string> refs{"a dog ran home", "the cat sat"};
  EXPECT_EQ(score(*max, "the cat sat", refs), (std::vector<double>{1.0, 1.0, 1.0}));
  EXPECT_EQ(score(*first, "the cat sat", refs), (std::vector<double>{0.0, 0.0, 0.0}));
  EXPECT_EQ(score(*mean, "the cat sat", refs), (std::vector<double>{0.5, 0.5, 0.5}));
  // Equal F (2/3) with different p/r: the first such reference wins, like np.argmax.
  const std::vector<std::string> tie{"a b", "a b c d e f g h"};
  EXPECT_EQ(score(*max, "a b c d", tie), (std::vector<double>{0.5, 1.0, 2.0 / 3.0}));
  const std::vector<std::string> tie_swapped{tie[1], tie[0]};
  EXPECT_EQ(score(*max, "a b c d", tie_swapped), (std::vector<double>{1.0, 0.5, 2.0 / 3.0}));
}

// rougeLsum: union LCS per reference sentence over all candidate sentences.
TEST(RougeMetric, LsumUsesSummaryLevelUnionLcs) {
  auto l = make_metric("rougeL");
  auto lsum = make_metric("rougeLsum");
  // Whole-text LCS is "a b c" (3 of 5); per sentence every token is matched.
  for (double v : score(*l, "d e\na b c", {"a b c\nd e"})) EXPECT_DOUBLE_EQ(v, 0.6);
  EXPECT_EQ(score(*lsum, "d e\na b c", {"a b c\nd e"}), (std::vector<double>{1.0, 1.0, 1.0}));
  // Hits are capped by the remaining counts: 'a' occurs once in the candidate, so the second
  // reference sentence's 'a' is not counted again (p = 1/1, r = 1/3).
  const auto capped = score(*lsum, "a", {"a a\na"});
  EXPECT_EQ(capped[0], 1.0);
  EXPECT_EQ(capped[1], 1.0 / 3.0);
  // Ref "a b a" vs candidate sentences "a b" and "b a": union of indices {0,1} and {1,2}.
  const auto u = score(*lsum, "a b\nb a", {"a b a"});
  EXPECT_EQ(u[0], 0.75);
  EXPECT_EQ(u[1], 1.0);
  // Blank and punctuation-only lines are not sentences with tokens.
  EXPECT_EQ(score(*lsum, "\n\na b c\n...\n", {"a b c"}), (std::vector<double>{1.0, 1.0, 1.0}));
}

TEST(RougeMetric, StemmingConflatesInflections) {
  auto plain = make_metric("rouge1");
  auto stem = make_metric("rouge1,stem=true");
  EXPECT_EQ(score(*plain, "cats running", {"cat runs"})[2], 0.0);
  EXPECT_EQ(score(*stem, "cats running", {"cat runs"})[2], 1.0);
  // Tokens of 3 characters or fewer are not stemmed: "its" stays "its".
  EXPECT_EQ(score(*stem, "its", {"it"})[2], 0.0);
}

TEST(RougeMetric, MakeMetricNameSignatureAndParts) {
  auto m = make_metric("rougeL,stem=true,refs=first");
  EXPECT_EQ(m->name(), "rougeL,stem=true,refs=first");
  EXPECT_EQ(m->signature(), "rougeL|stem:yes|multi:max|refs:first|tok:default|version:probity-" +
                                probity::version());
  EXPECT_EQ(m->parts(), (std::vector<std::string>{"p", "r", "f"}));
  EXPECT_EQ(m->primary_part(), 2u);
  EXPECT_EQ(m->corpus_aggregation(), probity::CorpusAggregation::kMeanScores);
  EXPECT_EQ(make_metric("rouge2,multi=mean,tokenizer=unicode")->signature(),
            "rouge2|stem:no|multi:mean|refs:all|tok:unicode|version:probity-" + probity::version());
}

TEST(RougeMetric, RejectsBadOptions) {
  EXPECT_THROW(make_metric("rouge1,multi=median"), probity::UsageError);
  EXPECT_THROW(make_metric("rouge1,refs=id:"), probity::UsageError);
  EXPECT_THROW(make_metric("rouge1,tokenizer=icu"), probity::UsageError);
  EXPECT_THROW(make_metric("rouge1,stem=maybe"), probity::UsageError);
  EXPECT_THROW(make_metric("rougeL,n=3"), probity::UsageError);
}

TEST(RougeMetric, StatsRecomputeScoresAndCorpusIsMeanOfItems) {
  const auto cases = load_golden();
  auto metric = make_metric("rouge2,stem=true");
  const std::size_t k = metric->num_stats();
  std::vector<double> all(cases.size() * k);
  double mean_f = 0;
  for (std::size_t i = 0; i < cases.size(); ++i) {
    MetricInput in;
    in.candidate = cases[i].hyp;
    in.references.emplace_back(cases[i].refs[0]);
    metric->item_stats(in, std::span<double>(all).subspan(i * k, k));
    mean_f += cases[i].rouge_stem.at("rouge2").at("fmeasure").get<double>();
  }
  mean_f /= static_cast<double>(cases.size());
  const auto corpus = probity::corpus_score(*metric, all);
  EXPECT_NEAR(corpus[2], mean_f, 1e-12);
}

TEST(RougeMetric, ItemStatsIsThreadSafe) {
  const auto cases = load_golden();
  auto metric = make_metric("rougeLsum,stem=true");
  std::vector<double> serial(cases.size());
  for (std::size_t i = 0; i < cases.size(); ++i)
    serial[i] = score(*metric, cases[i].hyp, cases[i].refs)[2];
  std::vector<std::vector<double>> parallel(4, std::vector<double>(cases.size()));
  std::vector<std::thread> threads;
  for (std::size_t t = 0; t < parallel.size(); ++t) {
    threads.emplace_back([&, t] {
      for (std::size_t i = 0; i < cases.size(); ++i) {
        const std::size_t j = (i + t * 37) % cases.size();
        parallel[t][j] = score(*metric, cases[j].hyp, cases[j].refs)[2];
      }
    });
  }
  for (auto& th : threads) th.join();
  for (const auto& p : parallel) EXPECT_EQ(p, serial);
}

TEST(RougeTokenizer, MatchesRougeScoreRules) {
  using probity::text::rouge_tokenize;
  using V = std::vector<std::string>;
  EXPECT_EQ(rouge_tokenize("Hello, World! It's 3.5% -- OK", false),
            (V{"hello", "world", "it", "s", "3", "5", "ok"}));
  EXPECT_EQ(rouge_tokenize("Cats running quickly, its ran", true),
            (V{"cat", "run", "quickli", "its", "ran"}));
  // Non-ASCII separates tokens, except the two characters whose Python lower case is ASCII.
  EXPECT_EQ(rouge_tokenize("café naïve", false), (V{"caf", "na", "ve"}));
  EXPECT_EQ(rouge_tokenize("İstanbul 5\u212A", false), (V{"i", "stanbul", "5k"}));
  EXPECT_EQ(rouge_tokenize("東京は日本", false), V{});
  EXPECT_EQ(rouge_tokenize("", true), V{});
  // Invalid UTF-8 bytes separate tokens.
  EXPECT_EQ(rouge_tokenize("ab\xff"
                           "cd",
                           false),
            (V{"ab", "cd"}));
}

TEST(RougeTokenizer, UnicodeAwareKeepsLettersOfEveryScript) {
  using probity::text::rouge_tokenize;
  using V = std::vector<std::string>;
  EXPECT_EQ(rouge_tokenize("Ünïcode STRASSE, ДОМ 42! हिन्दी", false, true),
            (V{"ünïcode", "strasse", "дом", "42", "हिन्दी"}));
  // Only ASCII tokens are stemmed.
  EXPECT_EQ(rouge_tokenize("running бегущий", true, true), (V{"run", "бегущий"}));
}

TEST(RougeLcs, BitParallelLengthEqualsDynamicProgramming) {
  std::mt19937 rng(12345);
  auto dp = [](const std::vector<std::uint32_t>& a, const std::vector<std::uint32_t>& b) {
    std::vector<std::size_t> row(b.size() + 1, 0);
    for (std::size_t i = 1; i <= a.size(); ++i) {
      std::size_t diag = 0;
      for (std::size_t j = 1; j <= b.size(); ++j) {
        const std::size_t up = row[j];
        row[j] = a[i - 1] == b[j - 1] ? diag + 1 : std::max(row[j], row[j - 1]);
        diag = up;
      }
    }
    return row[b.size()];
  };
  for (int trial = 0; trial < 400; ++trial) {
    auto draw = [&](std::uint32_t n) { return static_cast<std::uint32_t>(rng() % n); };
    const std::size_t na = draw(200), nb = draw(200);
    const std::uint32_t alphabet = 1 + draw(12);
    std::vector<std::uint32_t> a(na), b(nb);
    for (auto& x : a) x = draw(alphabet);
    for (auto& x : b) x = draw(alphabet + 3);
    ASSERT_EQ(probity::metrics::detail::lcs_length(a, b), dp(a, b))
        << "trial " << trial << " sizes " << na << "x" << nb;
  }
}
