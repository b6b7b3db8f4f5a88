// refs=<id> picks references by id for every metric, and tasks without
// references are valid for reference-free metrics only.
#include <gtest/gtest.h>

#include <array>
#include <cmath>
#include <filesystem>
#include <fstream>

#include "cli_runner.hpp"
#include "probity/engine.hpp"
#include "probity/error.hpp"
#include "probity/scoring.hpp"
#include "test_paths.hpp"

namespace probity::test {
namespace {

// Two references per task (ids A and B, like WMT's ref-A and ref-B); `only` keeps one id.
Dataset wmt_like(const std::string& only = "") {
  const std::vector<std::array<std::string, 4>> rows = {
      {"the cat sat on the mat", "a cat was sitting on the mat", "the cat is on the mat",
       "a cat sat on a mat"},
      {"he went home early", "he left for home early", "he went early home", "early he went"},
      {"prices rose sharply in may", "in may prices went up a lot", "prices rose in may",
       "may saw sharp price rises"},
  };
  Dataset ds;
  ds.path = "<test>";
  for (std::size_t t = 0; t < rows.size(); ++t) {
    Task task;
    task.task_id = "t" + std::to_string(t);
    task.group = "g";
    task.line = t + 1;
    if (only.empty() || only == "A") task.references.push_back({"A", rows[t][0]});
    if (only.empty() || only == "B") task.references.push_back({"B", rows[t][1]});
    task.candidates.push_back({"c1", "s1", rows[t][2], {}});
    task.candidates.push_back({"c2", "s2", rows[t][3], {}});
    ds.tasks.push_back(std::move(task));
  }
  return ds;
}

struct Scored {
  std::vector<double> items;
  double corpus = 0;
  std::string signature;
  std::string reason;  // undefined_reason of the first undefined item
};

Scored score(const Dataset& ds, const std::string& spec) {
  Engine engine;
  MetricSelection sel = select_metric(spec, engine);
  const auto items = all_items(ds);
  auto stats = compute_stats(ds, items, std::span<MetricSelection>(&sel, 1), {});
  Scored out;
  std::vector<double> parts(sel.metric->parts().size());
  for (std::size_t i = 0; i < items.size(); ++i) {
    sel.metric->sentence_score(stats[0].row(i), parts);
    out.items.push_back(parts[sel.primary]);
    if (std::isnan(parts[sel.primary]) && out.reason.empty())
      out.reason = sel.metric->undefined_reason(stats[0].row(i));
  }
  out.corpus = corpus_score(*sel.metric, stats[0].stats)[sel.primary];
  out.signature = sel.metric->signature();
  return out;
}

TEST(ReferenceSelection, ScoresAsIfTheDataHeldOnlyTheChosenReferences) {
  // The unselected scores of single-reference data are sacreBLEU's and rouge-score's (their
  // goldens); refs=<id> on two-reference data must give exactly those numbers.
  for (const std::string metric : {"bleu", "chrf", "rougeL", "rouge2,stem=true", "gem", "tvd-mi"}) {
    for (const std::string id : {"A", "B"}) {
      SCOPED_TRACE(metric + " refs=" + id);
      const Scored chosen = score(wmt_like(), metric + ",refs=" + id);
      const Scored alone = score(wmt_like(id), metric);
      ASSERT_EQ(chosen.items.size(), alone.items.size());
      for (std::size_t i = 0; i < chosen.items.size(); ++i)
        EXPECT_EQ(chosen.items[i], alone.items[i]) << i;
      EXPECT_EQ(chosen.corpus, alone.corpus);
      // The family uses every chosen reference (its own refs=all), then the selection.
      EXPECT_EQ(chosen.signature,
                score(wmt_like(id), metric + ",refs=all").signature + "|refs:" + id);
    }
  }
}

TEST(ReferenceSelection, SeveralIdsAreAllOfThem) {
  const Scored both = score(wmt_like(), "bleu,refs=id:A|id:B");
  const Scored all = score(wmt_like(), "bleu");
  EXPECT_EQ(both.items, all.items);
  EXPECT_EQ(both.corpus, all.corpus);
  EXPECT_EQ(both.signature, all.signature + "|refs:A+B");
  // The family's own all|first keep their meaning and signature.
  EXPECT_EQ(score(wmt_like(), "bleu,refs=first").items, score(wmt_like("A"), "bleu").items);
  // A family without refs=all|first (llm-judge, ...) takes ids too; a reference-free one does not.
  Engine engine;
  EXPECT_THROW(select_metric("length,refs=A", engine), UsageError);
  EXPECT_THROW(select_metric("bleu,refs=A||B", engine), UsageError);
}

TEST(ReferenceSelection, ATaskWithoutTheIdIsUndefinedAndAMisspeltIdIsAnError) {
  Dataset ds = wmt_like();
  ds.tasks[1].references.pop_back();  // task t1 has only A
  const Scored b = score(ds, "chrf,refs=B");
  EXPECT_FALSE(std::isnan(b.items[0]));
  EXPECT_TRUE(std::isnan(b.items[2]));
  EXPECT_TRUE(std::isnan(b.items[3]));
  EXPECT_FALSE(std::isnan(b.items[4]));
  EXPECT_EQ(b.reason, "the task has no reference with id B");
  EXPECT_TRUE(std::isnan(b.corpus));  // never a corpus score over a silently smaller set
  try {
    score(ds, "chrf,refs=ref-B");
    FAIL() << "no error";
  } catch (const UsageError& e) {
    EXPECT_NE(std::string(e.what()).find("reference ids in the data: A, B"), std::string::npos)
        << e.what();
  }
}

TEST(ReferenceSelection, NegativesComeFromTheChosenIds) {
  const Dataset ds = wmt_like();
  const NegativeSampler sampler(ds);
  const std::vector<std::string> b{"B"};
  for (std::size_t t = 0; t < ds.tasks.size(); ++t) {
    for (auto text : sampler.sample(t, 2, 7, b)) {
      bool is_b = false;
      for (const auto& task : ds.tasks) is_b |= task.references[1].text == text;
      EXPECT_TRUE(is_b) << text;
    }
    EXPECT_EQ(sampler.sample(t, 2, 7).size(), 2u);
  }
}

TEST(ReferenceFree, TasksWithoutReferencesLoadAndOnlyReferenceFreeMetricsScoreThem) {
  const auto dir = std::filesystem::path(probity::test::temp_dir("probity_reference_free"));
  std::filesystem::create_directories(dir);
  const auto jsonl = (dir / "utility.jsonl").string();
  {
    std::ofstream out(jsonl);
    out << R"({"task_id": "p1", "candidates": [{"id": "a", "text": "one two three", "human": {"utility": 3}}]})"
        << "\n"
        << R"({"task_id": "p2", "references": [], "candidates": [{"id": "a", "text": "one", "human": {"utility": 1}}]})"
        << "\n";
  }
  const auto csv = (dir / "utility.csv").string();
  {
    std::ofstream out(csv);
    out << "task_id,candidate_id,candidate,utility\np1,a,one two three,3\np2,a,one,1\n";
  }
  for (const auto& path : {jsonl, csv}) {
    SCOPED_TRACE(path);
    const Dataset ds = load_dataset(path);
    ASSERT_EQ(ds.tasks.size(), 2u);
    EXPECT_TRUE(ds.tasks[0].references.empty());
    const Scored length = score(ds, "length");
    EXPECT_EQ(length.items, (std::vector<double>{13, 3}));
    try {
      score(ds, "bleu");
      FAIL() << "no error";
    } catch (const InputError& e) {
      EXPECT_EQ(e.file(), path);
      EXPECT_EQ(e.line(), path == csv ? 2u : 1u);
      EXPECT_EQ(e.field(), "references");
      EXPECT_NE(std::string(e.what()).find("task 'p1' has no references, and metric 'bleu'"),
                std::string::npos)
          << e.what();
    }
  }
  // The command line: score and correlate with the length baseline; bleu exits 3 (bad input).
  const auto scores = (dir / "scores.jsonl").string();
  auto ok = run_probity("score --data " + jsonl + " --metric length --out " + scores);
  EXPECT_EQ(ok.exit_code, 0) << ok.err;
  auto bad = run_probity("score --data " + jsonl + " --metric bleu --out " + scores + ".bad");
  EXPECT_EQ(bad.exit_code, 3) << bad.err;
  EXPECT_NE(bad.err.find("utility.jsonl:1: field 'references'"), std::string::npos) << bad.err;
}

}  // namespace
}  // namespace probity::test
