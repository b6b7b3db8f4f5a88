#include "predict/ngram_predictor.hpp"

#include <gtest/gtest.h>

#include <cmath>
#include <cstring>
#include <fstream>
#include <map>
#include <optional>
#include <set>
#include <span>
#include <string>
#include <vector>

#include "probity/dataset.hpp"
#include "probity/mi.hpp"
#include "test_paths.hpp"
#include "util/parallel.hpp"

using probity::Task;
using probity::predict::NgramLm;
using probity::predict::NgramPredictor;
using probity::predict::NgramPredictorOptions;

namespace {

const std::vector<Task>& sample() {
  static const auto ds =
      probity::load_dataset(probity::test::data_path("summeval/summeval_sample20.jsonl"));
  return ds.tasks;
}

const NgramPredictor& fitted_sample() {
  static const NgramPredictor p = [] {
    NgramPredictor q;
    q.fit(sample(), false);
    return q;
  }();
  return p;
}

// λ on the grid maximising the summed log-likelihood of the tasks outside `excluded`, recomputed
// from the per-task figures the predictor exposes (ties to the smaller λ).
double recompute_lambda(const NgramPredictor& p, const std::vector<Task>& tasks,
                        std::uint32_t excluded) {
  const auto& grid = NgramPredictor::cache_weight_grid();
  std::vector<double> sum(grid.size(), 0.0);
  bool any = false;
  for (std::size_t t = 0; t < tasks.size(); ++t) {
    if ((excluded >> p.fold_of_task(t)) & 1u) continue;
    any = true;
    for (std::size_t g = 0; g < grid.size(); ++g) sum[g] += p.task_log_likelihoods()[t][g];
  }
  if (!any) return NgramPredictor::kPriorCacheWeight;
  std::size_t best = 0;
  for (std::size_t g = 1; g < grid.size(); ++g) {
    if (sum[g] > sum[best]) best = g;
  }
  return grid[best];
}

std::string words(const std::string& prefix, int from, int count) {
  std::string out;
  for (int i = from; i < from + count; ++i)
    out += (out.empty() ? "" : " ") + prefix + std::to_string(i);
  return out;
}

}  // namespace

// A candidate carries information about its own task's references, not about another task's.
TEST(NgramPredictor, OwnReferenceHasHigherPmiThanOtherTask) {
  const auto& p = fitted_sample();
  const auto& tasks = sample();
  double own = 0, other = 0;
  std::size_t n_own = 0, n_other = 0, candidates = 0, candidates_ranked_right = 0;
  for (std::size_t t = 0; t < tasks.size(); ++t) {
    const Task& next = tasks[(t + 1) % tasks.size()];
    for (const auto& c : tasks[t].candidates) {
      double c_own = 0, c_other = 0;
      for (const auto& r : tasks[t].references) c_own += p.log_ratio(c.text, r.text);
      for (const auto& r : next.references) c_other += p.log_ratio(c.text, r.text);
      own += c_own;
      other += c_other;
      n_own += tasks[t].references.size();
      n_other += next.references.size();
      ++candidates;
      if (c_own / static_cast<double>(tasks[t].references.size()) >
          c_other / static_cast<double>(next.references.size()))
        ++candidates_ranked_right;
    }
  }
  own /= static_cast<double>(n_own);
  other /= static_cast<double>(n_other);
  EXPECT_GT(own, 0.0);
  EXPECT_LT(other, 0.0);
  EXPECT_GT(own - other, 10.0) << "own " << own << " other " << other;  // nats per pair
  EXPECT_EQ(candidates_ranked_right, candidates);
  // The cache is used: the fitted weight is not zero on this data.
  EXPECT_GT(p.cache_weight_without(0), 0.0);
}

// The pair (x, y) is scored with the model and the λ of the folds that contain neither.
TEST(NgramPredictor, FoldAssignmentExcludesTheScoredTask) {
  const auto& p = fitted_sample();
  const auto& tasks = sample();
  ASSERT_EQ(p.num_folds(), 5);
  for (std::size_t t = 0; t < tasks.size(); ++t) {
    EXPECT_EQ(p.fold_of_task(t), static_cast<int>(t % 5));
    const std::uint32_t bit = 1u << p.fold_of_task(t);
    const auto& c = tasks[t].candidates.front();
    for (const auto& r : tasks[t].references) {
      EXPECT_TRUE(p.fold_mask(r.text) & bit);
      const auto s = p.score(c.text, r.text);
      EXPECT_TRUE(s.excluded_folds & bit);
      EXPECT_EQ(s.cache_weight, p.cache_weight_without(s.excluded_folds));
      EXPECT_EQ(s.cache_weight, recompute_lambda(p, tasks, s.excluded_folds));
    }
    // A pair across tasks excludes both tasks' folds.
    const Task& other = tasks[(t + 1) % tasks.size()];
    const auto s = p.score(c.text, other.references.front().text);
    EXPECT_EQ(s.excluded_folds, bit | (1u << p.fold_of_task((t + 1) % tasks.size())));
  }
  // Texts unseen at fit time: the model and λ of all tasks.
  EXPECT_EQ(p.fold_mask("a sentence that is in no task"), 0u);
  const auto s = p.score("a candidate from nowhere", "a reference from nowhere");
  EXPECT_EQ(s.excluded_folds, 0u);
  EXPECT_EQ(s.cache_weight, recompute_lambda(p, tasks, 0));
}

// The model used for a task's pairs has never counted that task's words: a word that occurs only
// in task t gets exactly <unk>'s probability under the model without t's fold.
TEST(NgramPredictor, ModelOfAFoldHasNotSeenItsTasks) {
  const auto& p = fitted_sample();
  const auto& tasks = sample();
  std::map<std::string, std::set<std::size_t>> tasks_of_word;
  for (std::size_t t = 0; t < tasks.size(); ++t) {
    auto note = [&](const std::string& text) {
      for (const auto& w : p.tokenize(text)) tasks_of_word[w].insert(t);
    };
    note(tasks[t].source);
    for (const auto& r : tasks[t].references) note(r.text);
    for (const auto& c : tasks[t].candidates) note(c.text);
  }
  std::size_t checked = 0;
  for (const auto& [w, ts] : tasks_of_word) {
    if (ts.size() != 1) continue;
    const std::size_t t = *ts.begin();
    const NgramLm::Id id = p.word_id(w);
    ASSERT_NE(id, NgramLm::kUnk);
    const NgramLm& held_out = p.model(1u << p.fold_of_task(t));
    const auto empty = held_out.state({});
    EXPECT_EQ(held_out.prob(empty, id), held_out.prob(empty, NgramLm::kUnk)) << w;
    // ... while the model of all tasks has counted it.
    const NgramLm& all = p.model(0);
    EXPECT_GT(all.prob(all.state({}), id), all.prob(all.state({}), NgramLm::kUnk)) << w;
    ++checked;
  }
  EXPECT_GT(checked, 100u);
}

// Fold 0's tasks have candidates that copy the reference (the cache would help them), fold 1's
// have candidates with no word in common with it (the cache only hurts). Each fold's items must
// get the λ learned on the other fold.
TEST(NgramPredictor, CacheWeightComesFromTheOtherFolds) {
  std::vector<Task> tasks(10);
  for (int t = 0; t < 10; ++t) {
    Task& task = tasks[static_cast<std::size_t>(t)];
    task.task_id = "t" + std::to_string(t);
    // Shared function words and task-specific content words.
    const std::string ref = "the report said that " + words("w" + std::to_string(t) + "x", 0, 8);
    task.references.push_back({"r0", ref});
    task.references.push_back({"r1", "it said " + words("w" + std::to_string(t) + "x", 3, 6)});
    for (int c = 0; c < 3; ++c) {
      probity::Candidate cand;
      cand.id = "c" + std::to_string(c);
      cand.text = t % 2 == 0 ? ref + " " + words("v" + std::to_string(t) + "y", c, 1)
                             : words("z" + std::to_string(t) + "q", 4 * c, 10);
      task.candidates.push_back(cand);
    }
  }
  NgramPredictorOptions options;
  options.folds = 2;
  NgramPredictor p(options);
  p.fit(tasks, false);
  ASSERT_EQ(p.num_folds(), 2);
  const double from_fold1 = p.cache_weight_without(1u);  // fitted on the disjoint candidates
  const double from_fold0 = p.cache_weight_without(2u);  // fitted on the copying candidates
  EXPECT_EQ(from_fold1, 0.0);
  EXPECT_GT(from_fold0, 0.0);
  for (std::size_t t = 0; t < tasks.size(); ++t) {
    const auto s = p.score(tasks[t].candidates[0].text, tasks[t].references[0].text);
    EXPECT_EQ(s.cache_weight, t % 2 == 0 ? from_fold1 : from_fold0) << "task " << t;
    if (t % 2 == 0) {
      EXPECT_EQ(s.pmi, 0.0);  // λ = 0 leaves the model unadapted
    }
  }
}

// p(w | h, x) sums to 1 over the vocabulary, </s> and <unk>, whatever x and h.
TEST(NgramPredictor, AdaptedModelIsAProperDistribution) {
  const auto& p = fitted_sample();
  const auto& tasks = sample();
  const NgramLm& lm = p.model(1);
  const std::vector<std::string> xs = {
      tasks[0].candidates[0].text, tasks[3].references[2].text,
      "Police said the running runner runs; unseenwordxyz and anotherunseen token", ""};
  std::vector<std::vector<NgramLm::Id>> contexts = {{NgramLm::kBos},
                                                    {NgramLm::kBos, p.word_id("the")},
                                                    {p.word_id("police"), p.word_id("said")},
                                                    {NgramLm::kUnk, p.word_id("the")}};
  for (const auto& x : xs) {
    for (const auto& h : contexts) {
      for (std::uint32_t mask : {0u, 1u, 6u}) {
        double sum = 0;
        for (NgramLm::Id w = 0; w < lm.num_ids(); ++w) {
          if (w != NgramLm::kBos) sum += p.adapted_prob(x, h, w, 0.3, mask);
        }
        EXPECT_NEAR(sum, 1.0, 1e-9) << "x=" << x.substr(0, 30) << " mask " << mask;
      }
    }
  }
}

TEST(NgramPredictor, ScoreIsConsistent) {
  const auto& p = fitted_sample();
  const auto& tasks = sample();
  for (std::size_t t = 0; t < tasks.size(); t += 4) {
    const auto& x = tasks[t].candidates[1].text;
    for (const auto& y : {tasks[t].references[0].text, tasks[(t + 7) % 20].references[1].text}) {
      const auto s = p.score(x, y);
      EXPECT_NEAR(s.pmi, s.log_p_y_given_x - s.log_p_y, 1e-9 * std::abs(s.log_p_y));
      EXPECT_EQ(p.log_ratio(x, y), s.pmi);
      EXPECT_EQ(p.critic(x, y), s.pmi > 0 ? 1 : -1);
      EXPECT_EQ(s.tokens, p.tokenize(y).size() + 1);
      // log p(y) is the model's own text log-probability.
      std::vector<NgramLm::Id> ids;
      for (const auto& w : p.tokenize(y)) ids.push_back(p.word_id(w));
      EXPECT_NEAR(s.log_p_y, p.model(s.excluded_folds).log_prob_text(ids),
                  1e-9 * std::abs(s.log_p_y));
    }
  }
  // An empty candidate carries no information.
  EXPECT_EQ(p.log_ratio("", tasks[0].references[0].text), 0.0);
  EXPECT_EQ(p.critic("", tasks[0].references[0].text), -1);
}

// Same inputs, same bytes: refitting, and scoring from several threads.
TEST(NgramPredictor, Deterministic) {
  const auto& tasks = sample();
  NgramPredictor a, b;
  a.fit(tasks, false);
  b.fit(tasks, false);
  EXPECT_EQ(a.signature(), b.signature());
  std::vector<std::pair<const std::string*, const std::string*>> pairs;
  for (std::size_t t = 0; t < tasks.size(); ++t) {
    for (const auto& c : tasks[t].candidates) {
      pairs.emplace_back(&c.text, &tasks[t].references[t % 11].text);
      pairs.emplace_back(&c.text, &tasks[(t + 3) % 20].references[0].text);
    }
  }
  std::vector<double> serial(pairs.size()), parallel(pairs.size());
  for (std::size_t i = 0; i < pairs.size(); ++i) {
    serial[i] = a.log_ratio(*pairs[i].first, *pairs[i].second);
  }
  probity::util::parallel_for(pairs.size(), 4, [&](std::size_t i) {
    parallel[i] = b.log_ratio(*pairs[i].first, *pairs[i].second);
  });
  EXPECT_EQ(std::memcmp(serial.data(), parallel.data(), serial.size() * sizeof(double)), 0);
  for (std::size_t t = 0; t < tasks.size(); ++t) {
    EXPECT_EQ(a.task_log_likelihoods()[t], b.task_log_likelihoods()[t]);
  }
}

// `probity score` fits on a file it reads in chunks: the predictor ends exactly as fitted on the
// whole dataset (models, held-out log-likelihoods, λ and every score).
TEST(NgramPredictor, ChunkedFitEqualsTheWholeFit) {
  const auto& tasks = sample();
  for (const bool statements : {false, true}) {
    NgramPredictor whole, chunked;
    whole.fit(tasks, statements);
    chunked.begin_fit(statements);
    ASSERT_EQ(chunked.fit_passes(), std::optional<std::size_t>(1));
    for (std::size_t b = 0; b < tasks.size(); b += 7)
      chunked.fit_chunk(
          0, std::span<const Task>(tasks).subspan(b, std::min<std::size_t>(7, tasks.size() - b)));
    chunked.end_fit_pass(0);
    EXPECT_EQ(chunked.task_log_likelihoods(), whole.task_log_likelihoods());
    for (std::uint32_t mask = 0; mask < (1u << whole.num_folds()); ++mask)
      EXPECT_EQ(chunked.cache_weight_without(mask), whole.cache_weight_without(mask));
    for (std::size_t t = 0; t < tasks.size(); ++t)
      for (const auto& c : tasks[t].candidates) {
        EXPECT_EQ(chunked.log_ratio(c.text, tasks[t].references[0].text),
                  whole.log_ratio(c.text, tasks[t].references[0].text));
        EXPECT_EQ(chunked.log_ratio(c.text, tasks[(t + 1) % 20].references[1].text),
                  whole.log_ratio(c.text, tasks[(t + 1) % 20].references[1].text));
      }
  }
}

// Identical texts of a fold are kept once with their number: the model without fold 0 of a
// dataset whose tasks repeat equals one trained on every copy of its texts.
TEST(NgramPredictor, RepeatedTextsTrainAsTheirCopies) {
  std::vector<Task> repeated;
  for (int copy = 0; copy < 3; ++copy)
    for (std::size_t t = 0; t < 5; ++t) {
      Task task = sample()[t];
      task.task_id = "copy" + std::to_string(copy) + "-" + task.task_id;
      task.candidates.resize(3);
      repeated.push_back(task);  // task c·5 + t is in fold t: its copies share a fold
    }
  NgramPredictor p;
  p.fit(repeated, false);
  const NgramLm& lm = p.model(1u);
  NgramLm::Builder copies(3);
  ASSERT_EQ(p.vocabulary().size(), lm.num_ids());
  EXPECT_THROW(lm.word(NgramLm::kUnk + 1), std::logic_error);  // the predictor has the strings
  for (std::size_t w = NgramLm::kUnk + 1; w < lm.num_ids(); ++w) copies.intern(p.vocabulary()[w]);
  auto add = [&](const std::string& text) {
    const auto tokens = p.tokenize(text);
    if (!tokens.empty()) copies.add(tokens);
  };
  for (std::size_t t = 0; t < repeated.size(); ++t) {
    if (p.fold_of_task(t) == 0) continue;
    add(repeated[t].source);
    for (const auto& r : repeated[t].references) add(r.text);
    for (const auto& c : repeated[t].candidates) add(c.text);
  }
  const NgramLm expected = std::move(copies).build();
  for (int k = 1; k <= 3; ++k) EXPECT_EQ(lm.num_ngrams(k), expected.num_ngrams(k));
  for (int k = 1; k <= 3; ++k)
    for (int c = 1; c <= 3; ++c) EXPECT_EQ(lm.discount(k, c), expected.discount(k, c));
  for (const auto& text : {repeated[1].references[0].text, repeated[7].candidates[2].text}) {
    std::vector<NgramLm::Id> ids;
    for (const auto& token : p.tokenize(text)) ids.push_back(p.word_id(token));
    EXPECT_EQ(lm.log_prob_text(ids), expected.log_prob_text(ids));
  }
}

TEST(NgramPredictor, SignatureAndOptions) {
  EXPECT_EQ(NgramPredictor().signature(),
            "ar:ngram-kn|order:3|cache:cv5|stem:yes|norm:no|train:dataset-cv5");
  NgramPredictorOptions o;
  o.order = 4;
  o.cache_weight = "0.2";
  o.stem = false;
  o.normalize = true;
  EXPECT_EQ(NgramPredictor(o).signature(),
            "ar:ngram-kn|order:4|cache:0.2|stem:no|norm:yes|train:dataset-cv5");

  const std::string dir = probity::test::temp_dir("ngram_corpus");
  const std::string path = dir + "/news.txt";
  {
    std::ofstream out(path);
    out << "The zyzzyva flew over the harbour.\nA second line about zyzzyvas.\n";
  }
  NgramPredictorOptions with_corpus;
  with_corpus.corpus = path;
  NgramPredictor p(with_corpus);
  const std::string sig = p.signature();
  EXPECT_NE(sig.find("|train:dataset-cv5+corpus:news.txt@"), std::string::npos) << sig;
  p.fit(sample(), false);
  EXPECT_NE(p.word_id("zyzzyva"), NgramLm::kUnk);
  // The corpus is in every model, including those that leave folds out.
  const NgramLm& lm = p.model(1);
  EXPECT_GT(lm.prob(lm.state({}), p.word_id("zyzzyva")), lm.prob(lm.state({}), NgramLm::kUnk));
  {
    std::ofstream out(path);
    out << "different content\n";
  }
  EXPECT_NE(NgramPredictor(with_corpus).signature(), sig);

  for (const char* bad : {"", "1", "1.5", "-0.1", "abc", "0.2x"}) {
    NgramPredictorOptions b;
    b.cache_weight = bad;
    EXPECT_THROW(NgramPredictor{b}, std::invalid_argument) << bad;
  }
  NgramPredictorOptions bad_order;
  bad_order.order = 0;
  EXPECT_THROW(NgramPredictor{bad_order}, std::invalid_argument);
  NgramPredictorOptions missing;
  missing.corpus = dir + "/missing.txt";
  EXPECT_THROW(NgramPredictor{missing}, std::runtime_error);
  EXPECT_THROW(NgramPredictor().log_ratio("a", "b"), std::logic_error);
}

// A fixed cache weight is used for every pair; the cross-fitted models are still used.
TEST(NgramPredictor, FixedCacheWeight) {
  NgramPredictorOptions o;
  o.cache_weight = "0.05";
  NgramPredictor p(o);
  p.fit(sample(), false);
  const auto& t = sample()[2];
  const auto s = p.score(t.candidates[0].text, t.references[0].text);
  EXPECT_EQ(s.cache_weight, 0.05);
  EXPECT_EQ(s.excluded_folds, 1u << 2);
  EXPECT_GT(s.pmi, 0.0);
  EXPECT_TRUE(p.task_log_likelihoods().empty());
}

TEST(NgramPredictor, Tokenization) {
  NgramPredictor plain;
  EXPECT_EQ(plain.tokenize("Hello, World! It's 2.6 km -- Café."),
            (std::vector<std::string>{"hello", "world", "it", "s", "2", "6", "km", "café"}));
  NgramPredictorOptions o;
  o.normalize = true;
  NgramPredictor normalized(o);
  EXPECT_EQ(normalized.tokenize("Hello, World! It's 2.6 km -- Café."),
            (std::vector<std::string>{"hello", "world", "it's", "2.6", "km", "café"}));
}

// Statement targets: every statement of every reference is mapped to its task's fold, so it is
// scored without that fold (the decomposition itself is another module's).
TEST(NgramPredictor, StatementTargetsAreMappedToTheirFold) {
  NgramPredictor p;
  p.fit(sample(), true);
  const auto& tasks = sample();
  for (std::size_t t = 0; t < tasks.size(); t += 3) {
    const std::uint32_t bit = 1u << p.fold_of_task(t);
    for (const auto& s : probity::mi::decompose_statements(tasks[t].references[0].text)) {
      EXPECT_TRUE(p.fold_mask(s) & bit) << s;
      EXPECT_TRUE(p.score(tasks[t].candidates[0].text, s).excluded_folds & bit);
    }
  }
  EXPECT_GT(p.cache_weight_without(0), 0.0);
}

// No tasks: the models are uniform over </s> and <unk>, λ is the prior; scoring still works.
TEST(NgramPredictor, EmptyDataset) {
  NgramPredictor p;
  p.fit({}, false);
  EXPECT_EQ(p.num_folds(), 1);
  EXPECT_EQ(p.cache_weight_without(0), NgramPredictor::kPriorCacheWeight);
  const double pmi = p.log_ratio("storm hits coast", "a storm hit the coast");
  EXPECT_TRUE(std::isfinite(pmi));
  EXPECT_GT(pmi, 0.0);
}
