#include "predict/ngram_lm.hpp"

#include <gtest/gtest.h>

#include <algorithm>
#include <array>
#include <cmath>
#include <cstring>
#include <map>
#include <set>
#include <string>
#include <vector>

#include "probity/dataset.hpp"
#include "probity/text.hpp"
#include "test_paths.hpp"

using probity::predict::NgramLm;
using Sentences = std::vector<std::vector<std::string>>;

namespace {

Sentences split(const std::vector<std::string>& lines) {
  Sentences out;
  for (const auto& l : lines) {
    std::vector<std::string> tokens;
    for (auto t : probity::text::split_whitespace(l)) tokens.emplace_back(t);
    out.push_back(tokens);
  }
  return out;
}

// An independent, deliberately naive interpolated modified Kneser-Ney model over strings
// (Chen & Goodman 1999): n-grams in an ordered map, every sum by a linear scan.
class NaiveKn {
 public:
  using Gram = std::vector<std::string>;
  NaiveKn(int order, const Sentences& sentences) : n_(order) {
    for (const auto& s : sentences) {
      Gram padded = {"<s>"};
      padded.insert(padded.end(), s.begin(), s.end());
      padded.push_back("</s>");
      for (std::size_t end = 1; end < padded.size(); ++end) {
        vocab_.insert(padded[end]);
        for (int k = 1; k <= n_ && static_cast<int>(end) + 1 - k >= 0; ++k) {
          ++raw_[Gram(padded.begin() + (static_cast<long>(end) + 1 - k),
                      padded.begin() + static_cast<long>(end) + 1)];
        }
      }
    }
    vocab_.insert("<unk>");
    for (const auto& [g, c] : raw_) {
      const int k = static_cast<int>(g.size());
      long a = c;
      if (k < n_ && g[0] != "<s>") {
        a = 0;  // continuation count: distinct words seen before g
        for (const auto& [h, hc] : raw_) {
          if (static_cast<int>(h.size()) == k + 1 && std::equal(g.begin(), g.end(), h.begin() + 1))
            ++a;
        }
      }
      adjusted_[g] = a;
    }
    for (int k = 1; k <= n_; ++k) {
      std::array<double, 5> cc{};
      for (const auto& [g, a] : adjusted_) {
        if (static_cast<int>(g.size()) == k && a >= 1 && a <= 4) ++cc[static_cast<std::size_t>(a)];
      }
      std::array<double, 3> d = {0.5, 1.0, 1.5};
      if (cc[1] > 0 && cc[2] > 0) {
        const double y = cc[1] / (cc[1] + 2 * cc[2]);
        for (int j = 1; j <= 3; ++j) {
          if (cc[static_cast<std::size_t>(j)] == 0) continue;
          const double est = j - (j + 1) * y * cc[static_cast<std::size_t>(j) + 1] /
                                     cc[static_cast<std::size_t>(j)];
          if (est > 0 && est <= j) d[static_cast<std::size_t>(j) - 1] = est;
        }
      }
      d_[k] = d;
    }
  }

  double prob(const Gram& context, const std::string& w) const {
    const int k = std::min<int>(n_, static_cast<int>(context.size()) + 1);
    return p(k, Gram(context.end() - (k - 1), context.end()), w);
  }
  const std::set<std::string>& vocab() const { return vocab_; }
  double discount(int k, int c) const { return d_.at(k)[static_cast<std::size_t>(c) - 1]; }

 private:
  double p(int k, const Gram& h, const std::string& w) const {
    if (k == 0) return 1.0 / static_cast<double>(vocab_.size());
    const Gram lower_h(h.begin() + (h.empty() ? 0 : 1), h.end());
    const double lower = p(k - 1, k == 1 ? h : lower_h, w);
    double total = 0, gamma = 0, own = 0;
    for (const auto& [g, a] : adjusted_) {
      if (static_cast<int>(g.size()) != k || !std::equal(h.begin(), h.end(), g.begin())) continue;
      if (k == 1 && g[0] == "<s>") continue;
      total += static_cast<double>(a);
      gamma += discount(k, static_cast<int>(std::min<long>(a, 3)));
      if (g.back() == w)
        own = std::max(static_cast<double>(a) - discount(k, static_cast<int>(std::min<long>(a, 3))),
                       0.0);
    }
    if (total == 0) return lower;
    return (own + gamma * lower) / total;
  }

  int n_;
  std::map<Gram, long> raw_, adjusted_;
  std::set<std::string> vocab_;
  std::map<int, std::array<double, 3>> d_;
};

std::vector<std::string> words_of(const NgramLm& lm) {
  std::vector<std::string> out;
  for (NgramLm::Id id = 0; id < lm.num_ids(); ++id) {
    if (id != NgramLm::kBos) out.push_back(lm.word(id));
  }
  return out;
}

Sentences summeval_references() {
  const auto ds =
      probity::load_dataset(probity::test::data_path("summeval/summeval_sample20.jsonl"));
  Sentences out;
  for (const auto& t : ds.tasks) {
    for (const auto& r : t.references) out.push_back(probity::text::rouge_tokenize(r.text, false));
  }
  return out;
}

}  // namespace

// Order 2 on "a b", "a c", "b a", worked out by hand.
//   bigrams (raw): <s>a 2, ab 1, b</s> 1, ac 1, c</s> 1, <s>b 1, ba 1, a</s> 1
//     n1 = 7, n2 = 1 → Y = 7/9, D1 = 1 − 2Y/7 = 7/9, D2 = 2 − 0 = 2, D3+ = 1.5 (n3 = 0)
//   unigrams (continuation): a 2 {<s>,b}, b 2 {a,<s>}, c 1 {a}, </s> 3 {b,c,a}
//     n1 = 1, n2 = 2, n3 = 1, n4 = 0 → Y = 0.2, D1 = 0.2, D2 = 2 − 0.6·1/2 = 1.7, D3+ = 3
//   |V| = 5 (a b c </s> <unk>), Σa = 8, G = 0.2·1 + 1.7·2 + 3·1 = 6.6
//   p1(a) = (2 − 1.7 + 6.6/5)/8 = 0.2025, p1(c) = (1 − 0.2 + 1.32)/8 = 0.265,
//   p1(</s>) = p1(<unk>) = 1.32/8 = 0.165
//   p(b | a)   = (1 − 7/9 + 3·(7/9)·0.2025)/3            = 0.231574074…
//   p(a | <s>) = (2 − 2 + (7/9 + 2)·0.2025)/3              = 0.1875
//   p(c | b)   = (0 + 2·(7/9)·0.265)/2                       = 0.206111…
//   p(<unk> | a) = (0 + 3·(7/9)·0.165)/3                     = 0.128333…
TEST(NgramLm, HandComputedOrder2) {
  const auto lm = NgramLm::train(2, split({"a b", "a c", "b a"}));
  EXPECT_DOUBLE_EQ(lm.discount(2, 1), 7.0 / 9.0);
  EXPECT_DOUBLE_EQ(lm.discount(2, 2), 2.0);
  EXPECT_DOUBLE_EQ(lm.discount(2, 3), 1.5);
  EXPECT_DOUBLE_EQ(lm.discount(1, 1), 0.2);
  EXPECT_DOUBLE_EQ(lm.discount(1, 2), 1.7);
  EXPECT_DOUBLE_EQ(lm.discount(1, 3), 3.0);
  EXPECT_EQ(lm.vocab_size(), 5u);
  using V = std::vector<std::string>;
  EXPECT_NEAR(std::exp(lm.log_prob(V{}, "a")), 0.2025, 1e-12);
  EXPECT_NEAR(std::exp(lm.log_prob(V{}, "c")), 0.265, 1e-12);
  EXPECT_NEAR(std::exp(lm.log_prob(V{}, "</s>")), 0.165, 1e-12);
  EXPECT_NEAR(std::exp(lm.log_prob(V{"a"}, "b")), (1 - 7.0 / 9 + 3 * (7.0 / 9) * 0.2025) / 3,
              1e-12);
  EXPECT_NEAR(std::exp(lm.log_prob(V{"<s>"}, "a")), 0.1875, 1e-12);
  EXPECT_NEAR(std::exp(lm.log_prob(V{"b"}, "c")), 2 * (7.0 / 9) * 0.265 / 2, 1e-12);
  EXPECT_NEAR(std::exp(lm.log_prob(V{"a"}, "zebra")), 3 * (7.0 / 9) * 0.165 / 3, 1e-12);
  // An unseen context backs off to the unigram level.
  EXPECT_NEAR(std::exp(lm.log_prob(V{"zebra"}, "a")), 0.2025, 1e-12);
}

// Order 3 on "a b", "a b", "b a", worked out by hand.
//   trigrams (raw): <s>ab 2, ab</s> 2, <s>ba 1, ba</s> 1 → Y = 1/3, D1 = 1/3, D2 = 2, D3+ = 1.5
//   bigrams: <s>a 2, <s>b 1 (raw: start with <s>); ab, b</s>, ba, a</s> 1 (continuation)
//     n1 = 5, n2 = 1 → Y = 5/7, D1 = 5/7, D2 = 2, D3+ = 1.5
//   unigrams (continuation): a, b, </s> 2 each → n1 = 0: fallback D = 0.5, 1, 1.5
//   |V| = 4, p1(a) = p1(b) = p1(</s>) = (2 − 1 + 3/4)/6 = 7/24, p1(<unk>) = 0.75/6 = 1/8
//   p(</s> | a b) = (2 − 2 + 2·p2(</s> | b))/2 = p2(</s> | b) = (1 − 5/7 + (10/7)(7/24))/2
//                 = 59/168
//   p(a | <s>)    = (2 − 2 + (5/7 + 2)·7/24)/3 = 19/72
//   p(b | <s>)    = (1 − 5/7 + 19/24)/3 = 181/504
//   p(a | b a)    = (0 + (1/3)·p2(a | a))/1, p2(a | a) = (0 + (10/7)(7/24))/2 = 5/24 → 5/72
//   p(<unk> | a b) = p2(<unk> | b) = (10/7)(1/8)/2 = 5/56
TEST(NgramLm, HandComputedOrder3) {
  const auto lm = NgramLm::train(3, split({"a b", "a b", "b a"}));
  EXPECT_DOUBLE_EQ(lm.discount(3, 1), 1.0 / 3.0);
  EXPECT_DOUBLE_EQ(lm.discount(2, 1), 5.0 / 7.0);
  EXPECT_DOUBLE_EQ(lm.discount(1, 2), 1.0);
  using V = std::vector<std::string>;
  EXPECT_NEAR(std::exp(lm.log_prob(V{"a", "b"}, "</s>")), 59.0 / 168, 1e-12);
  EXPECT_NEAR(std::exp(lm.log_prob(V{"<s>"}, "a")), 19.0 / 72, 1e-12);
  EXPECT_NEAR(std::exp(lm.log_prob(V{"<s>"}, "b")), 181.0 / 504, 1e-12);
  EXPECT_NEAR(std::exp(lm.log_prob(V{"b", "a"}, "a")), 5.0 / 72, 1e-12);
  EXPECT_NEAR(std::exp(lm.log_prob(V{"a", "b"}, "unseen")), 5.0 / 56, 1e-12);
  // log_prob_text("a b") = log p(a | <s>) + log p(b | <s> a) + log p(</s> | a b), where
  // p(b | <s> a) = p2(b | a) = 59/168 as well (same counts as the </s> case).
  EXPECT_NEAR(lm.log_prob_text(V{"a", "b"}),
              std::log(19.0 / 72) + std::log(59.0 / 168) + std::log(59.0 / 168), 1e-12);
}

// Every probability of the model equals the naive implementation's, for orders 1 to 4, over
// every vocabulary word and a set of seen, unseen and mixed contexts.
TEST(NgramLm, MatchesNaiveImplementation) {
  const auto sentences =
      split({"the cat sat on the mat", "the dog sat on the log", "a cat and a dog", "the cat",
             "on the mat the cat sat", "dog dog dog", "the the the the", "mat", "a b c d e f",
             "the cat sat on the mat"});
  for (int order = 1; order <= 4; ++order) {
    SCOPED_TRACE("order " + std::to_string(order));
    const auto lm = NgramLm::train(order, sentences);
    const NaiveKn naive(order, sentences);
    for (int k = 1; k <= order; ++k) {
      for (int c = 1; c <= 3; ++c) EXPECT_DOUBLE_EQ(lm.discount(k, c), naive.discount(k, c));
    }
    ASSERT_EQ(lm.vocab_size(), naive.vocab().size());
    const std::vector<std::vector<std::string>> contexts = {{},
                                                            {"<s>"},
                                                            {"the"},
                                                            {"<s>", "the"},
                                                            {"the", "cat"},
                                                            {"cat", "sat", "on"},
                                                            {"zebra"},
                                                            {"the", "zebra"},
                                                            {"zebra", "the"},
                                                            {"dog", "dog", "dog"},
                                                            {"mat"},
                                                            {"<s>", "a", "b", "c"},
                                                            {"</s>"}};
    for (const auto& h : contexts) {
      for (const auto& w : words_of(lm)) {
        const double expected = naive.prob(h, w);
        EXPECT_NEAR(std::exp(lm.log_prob(h, w)), expected, 1e-13 * std::max(1.0, expected))
            << "context size " << h.size() << " word " << w;
      }
    }
  }
}

// Σ_w p(w | h) = 1 over the vocabulary, </s> and <unk>, for seen and unseen contexts.
TEST(NgramLm, DistributionsSumToOne) {
  const auto refs = summeval_references();
  for (int order : {1, 2, 3, 4}) {
    SCOPED_TRACE("order " + std::to_string(order));
    const auto lm = NgramLm::train(order, refs);
    std::vector<std::vector<NgramLm::Id>> contexts = {{}, {NgramLm::kBos}};
    for (std::size_t s = 0; s < 5; ++s) {  // prefixes of real sentences
      std::vector<NgramLm::Id> h = {NgramLm::kBos};
      for (const auto& t : refs[s * 7]) {
        h.push_back(lm.id(t));
        if (h.size() % 3 == 0) contexts.push_back(h);
      }
    }
    contexts.push_back({lm.id("the"), NgramLm::kUnk});
    contexts.push_back({NgramLm::kUnk, lm.id("the")});
    contexts.push_back({lm.id("police"), lm.id("said")});
    for (const auto& h : contexts) {
      const auto state = lm.state(h);
      double sum = 0;
      for (NgramLm::Id w = 0; w < lm.num_ids(); ++w) {
        if (w != NgramLm::kBos) sum += lm.prob(state, w);
      }
      EXPECT_NEAR(sum, 1.0, 1e-9) << "context of " << h.size() << " words";
    }
  }
}

TEST(NgramLm, UnseenWordsHaveNonZeroProbability) {
  const auto lm = NgramLm::train(3, summeval_references());
  using V = std::vector<std::string>;
  for (const V& h : {V{}, V{"<s>"}, V{"the", "police"}, V{"qqq", "zzz"}}) {
    const double lp = lm.log_prob(h, "xyzzyunseenword");
    EXPECT_TRUE(std::isfinite(lp));
    EXPECT_LT(lp, 0);
  }
  EXPECT_EQ(lm.id("xyzzyunseenword"), NgramLm::kUnk);
  // Texts made entirely of unseen words still get a finite log-probability.
  EXPECT_TRUE(std::isfinite(lm.log_prob_text(V{"qqq", "zzz", "www"})));
}

// log_prob_text = Σ log p over the tokens and </s>, histories truncated to order − 1 words.
TEST(NgramLm, TextLogProbIsSumOfTokenLogProbs) {
  const auto lm = NgramLm::train(3, summeval_references());
  const std::vector<std::string> text = {"the", "police", "said", "on", "monday", "unseenword"};
  std::vector<std::string> padded = {"<s>"};
  padded.insert(padded.end(), text.begin(), text.end());
  padded.push_back("</s>");
  double expected = 0;
  for (std::size_t i = 1; i < padded.size(); ++i) {
    const std::vector<std::string> h(padded.begin() + static_cast<long>(i >= 2 ? i - 2 : 0),
                                     padded.begin() + static_cast<long>(i));
    expected += lm.log_prob(h, padded[i]);
  }
  EXPECT_DOUBLE_EQ(lm.log_prob_text(text), expected);
  // A full-sentence history gives the same result as the truncated one.
  EXPECT_DOUBLE_EQ(lm.log_prob(std::vector<std::string>{"<s>", "the", "police", "said"}, "on"),
                   lm.log_prob(std::vector<std::string>{"police", "said"}, "on"));
}

TEST(NgramLm, TrainingIsDeterministic) {
  const auto refs = summeval_references();
  const auto a = NgramLm::train(3, refs);
  const auto b = NgramLm::train(3, refs);
  ASSERT_EQ(a.num_ids(), b.num_ids());
  for (int k = 1; k <= 3; ++k) EXPECT_EQ(a.num_ngrams(k), b.num_ngrams(k));
  for (NgramLm::Id id = 0; id < a.num_ids(); ++id) ASSERT_EQ(a.word(id), b.word(id));
  for (std::size_t s = 0; s < refs.size(); s += 3) {
    const double la = a.log_prob_text(refs[s]), lb = b.log_prob_text(refs[s]);
    EXPECT_EQ(std::memcmp(&la, &lb, sizeof la), 0);
  }
}

TEST(NgramLm, RejectsBadInput) {
  EXPECT_THROW(NgramLm::Builder(0), std::invalid_argument);
  EXPECT_THROW(NgramLm::Builder(NgramLm::kMaxOrder + 1), std::invalid_argument);
  NgramLm::Builder b(3);
  const std::vector<std::string> reserved = {"a", "</s>"};
  EXPECT_THROW(b.add(reserved), std::invalid_argument);
}

// An empty model (no training text) is the uniform distribution over </s> and <unk>.
TEST(NgramLm, EmptyModelIsUniform) {
  const auto lm = NgramLm::train(3, Sentences{});
  EXPECT_EQ(lm.vocab_size(), 2u);
  EXPECT_NEAR(lm.log_prob(std::vector<std::string>{"<s>"}, "</s>"), std::log(0.5), 1e-15);
}

namespace {

// Ids of `sentences` by an interning builder's vocabulary (shared by the models compared).
std::vector<std::vector<NgramLm::Id>> as_ids(NgramLm::Builder& vocabulary,
                                             const Sentences& sentences) {
  std::vector<std::vector<NgramLm::Id>> out;
  for (const auto& s : sentences) {
    out.emplace_back();
    for (const auto& w : s) out.back().push_back(vocabulary.intern(w));
  }
  return out;
}

}  // namespace

// A model counted over the n-gram table of more texts (the fold models of a cross-fitting
// share one) is the model of its own texts, and a text added with a count is that many copies.
TEST(NgramLm, SharedTableAndCountsGiveTheSameModel) {
  const auto refs = summeval_references();
  NgramLm::Builder vocabulary(3);
  const auto ids = as_ids(vocabulary, refs);
  const NgramLm words = std::move(vocabulary).build();  // the strings, for the vocabulary size
  const std::size_t num_ids = words.num_ids();
  NgramLm::Builder all(3, num_ids);
  for (const auto& s : ids) all.add(s);
  const auto table = std::move(all).table();
  for (const std::size_t skip : {2, 3}) {
    SCOPED_TRACE("every " + std::to_string(skip) + "th text left out");
    NgramLm::Builder own(3, num_ids), shared(table);
    for (std::size_t i = 0; i < ids.size(); ++i) {
      if (i % skip == 0) continue;
      own.add(ids[i]);
      own.add(ids[i]);
      shared.add(ids[i], 2);
    }
    const NgramLm a = std::move(own).build(), b = std::move(shared).build();
    for (int k = 1; k <= 3; ++k) {
      EXPECT_EQ(a.num_ngrams(k), b.num_ngrams(k));
      for (int c = 1; c <= 3; ++c) EXPECT_EQ(a.discount(k, c), b.discount(k, c));
    }
    for (std::size_t i = 0; i < ids.size(); i += 7) {
      const double la = a.log_prob_text(ids[i]), lb = b.log_prob_text(ids[i]);
      EXPECT_EQ(std::memcmp(&la, &lb, sizeof la), 0) << i;
    }
    EXPECT_LT(b.memory_bytes() - table->memory_bytes(), a.memory_bytes());
  }
  NgramLm::Builder other(table);
  const std::vector<NgramLm::Id> unseen = {3, 3, 3, 3, 3, 3, 3, 3};
  EXPECT_THROW(other.add(unseen), std::logic_error);
}
