// Benchmark construction: error injectors (one edit per step, seeded), local sequences, global
// anchoring, and `probity bench-build`.
#include <gtest/gtest.h>

#include <algorithm>
#include <fstream>
#include <nlohmann/json.hpp>
#include <sstream>

#include "cli_runner.hpp"
#include "probity/meta.hpp"
#include "test_paths.hpp"

namespace {

using namespace probity;
using probity::test::run_probity;
using json = nlohmann::json;

const Dataset& sample() {
  static const Dataset ds =
      load_dataset(probity::test::data_path("summeval/summeval_sample20.jsonl"));
  return ds;
}

const std::vector<meta::QualityDimension> kDims = {
    meta::QualityDimension::kConsistency, meta::QualityDimension::kFluency,
    meta::QualityDimension::kCoherence, meta::QualityDimension::kRelevance};

meta::InjectionContext context_of(std::size_t task) {
  const auto& ds = sample();
  meta::InjectionContext ctx;
  ctx.source = ds.tasks[task].source;
  // Off-topic material: other tasks' references.
  for (std::size_t k = 1; k <= 3; ++k)
    ctx.off_topic.push_back(ds.tasks[(task + k) % ds.tasks.size()].references[0].text);
  return ctx;
}

std::vector<std::string> split(const std::string& s) {
  std::vector<std::string> out;
  std::istringstream in(s);
  for (std::string w; in >> w;) out.push_back(w);
  return out;
}

// Outside the reported region the two token sequences are identical, and the region is one
// edit of the kind the injector names.
void expect_one_edit(const std::vector<std::string>& before, const std::vector<std::string>& after,
                     const meta::Edit& e) {
  SCOPED_TRACE(e.type + ": " + e.description);
  ASSERT_NE(before, after);
  ASSERT_GT(e.removed + e.inserted, 0u);
  ASSERT_LE(e.begin + e.removed, before.size());
  ASSERT_LE(e.begin + e.inserted, after.size());
  ASSERT_EQ(after.size() + e.removed, before.size() + e.inserted);
  for (std::size_t i = 0; i < e.begin; ++i) ASSERT_EQ(before[i], after[i]) << "token " << i;
  for (std::size_t i = 0; i < before.size() - e.begin - e.removed; ++i)
    ASSERT_EQ(before[before.size() - 1 - i], after[after.size() - 1 - i]) << "from the end " << i;
  const std::vector<std::string> old_region(
      before.begin() + static_cast<long>(e.begin),
      before.begin() + static_cast<long>(e.begin + e.removed));
  const std::vector<std::string> new_region(
      after.begin() + static_cast<long>(e.begin),
      after.begin() + static_cast<long>(e.begin + e.inserted));
  auto sorted = [](std::vector<std::string> v) {
    std::sort(v.begin(), v.end());
    return v;
  };
  if (e.type == "swap-number" || e.type == "agreement" || e.type == "swap-connective") {
    EXPECT_EQ(e.removed, 1u);
    EXPECT_EQ(e.inserted, 1u);
  } else if (e.type == "negate") {
    EXPECT_EQ(e.removed + e.inserted, 1u);
    EXPECT_EQ(e.removed == 1 ? old_region[0] : new_region[0], "not");
  } else if (e.type == "drop-word") {
    EXPECT_EQ(e.removed, 1u);
    EXPECT_EQ(e.inserted, 0u);
  } else if (e.type == "duplicate-word") {
    EXPECT_EQ(e.inserted, 1u);
    EXPECT_EQ(e.removed, 0u);
    EXPECT_EQ(new_region[0], after[e.begin - 1]);
  } else if (e.type == "word-order" || e.type == "sentence-swap") {
    EXPECT_EQ(e.removed, e.inserted);
    EXPECT_EQ(sorted(old_region), sorted(new_region));  // the same words, reordered
    EXPECT_NE(old_region, new_region);
  } else if (e.type == "unsupported-claim" || e.type == "off-topic" ||
             e.type == "repeat-sentence") {
    EXPECT_EQ(e.removed, 0u);
  } else if (e.type == "remove-key-sentence") {
    EXPECT_EQ(e.inserted, 0u);
  } else if (e.type == "wrong-connective") {
    EXPECT_EQ(e.removed, 1u);
    EXPECT_GE(e.inserted, 2u);
  } else {
    EXPECT_EQ(e.type, "swap-entity");
  }
}

TEST(BenchBuildInjectors, EveryStepOfASequenceIsExactlyOneEdit) {
  std::size_t checked = 0;
  for (auto d : kDims) {
    for (std::size_t t = 0; t < 8; ++t) {
      const auto& ds = sample();
      const auto seq = meta::build_sequence(ds.tasks[t].references[0].text, d, 8, context_of(t),
                                            meta::derive_seed(4, {ds.tasks[t].task_id}));
      ASSERT_EQ(seq.texts.size(), seq.edits.size() + 1);
      EXPECT_GE(seq.edits.size(), 3u) << meta::dimension_name(d) << " task " << t;
      for (std::size_t j = 0; j < seq.edits.size(); ++j) {
        expect_one_edit(split(seq.texts[j]), split(seq.texts[j + 1]), seq.edits[j]);
        ++checked;
      }
    }
  }
  EXPECT_GT(checked, 200u);
}

TEST(BenchBuildInjectors, EachInjectorAloneMakesOneSeededEdit) {
  for (auto d : kDims) {
    for (const auto& name : meta::injector_names(d)) {
      SCOPED_TRACE(name);
      std::size_t applied = 0;
      for (std::size_t t = 0; t < 7; ++t) {
        // Six references and one text with in-sentence connectives.
        const std::string base =
            t < 6 ? sample().tasks[t].references[0].text
                  : "The match was delayed because the pitch flooded, and fans waited for hours. "
                    "The club apologised but offered no refunds.";
        meta::EditableText text(base), again(base);
        for (std::uint64_t k = 0; k < 3; ++k) {
          const auto before = text.tokens();
          const auto e = meta::inject(name, text, context_of(t), 100 + k);
          // Same seed, same text: the same bytes.
          const auto e2 = meta::inject(name, again, context_of(t), 100 + k);
          ASSERT_EQ(e.has_value(), e2.has_value());
          ASSERT_EQ(text.render(), again.render());
          if (!e) break;
          ++applied;
          expect_one_edit(before, text.tokens(), *e);
        }
      }
      EXPECT_GT(applied, 0u) << "injector never applied";
    }
  }
  EXPECT_THROW(
      {
        meta::EditableText text("A sentence here.");
        meta::inject("no-such-injector", text, {}, 1);
      },
      std::invalid_argument);
}

TEST(BenchBuildInjectors, EditsAccumulateAndNeverUndoEachOther) {
  // Sentence swaps only add inversions, so a sequence of swaps never restores the order.
  const std::string base =
      "First one is here. Second one is here. Third one is here. Fourth one is here.";
  meta::EditableText text(base);
  std::vector<std::string> seen = {text.render()};
  for (std::uint64_t k = 0; k < 10; ++k) {
    if (!meta::inject("sentence-swap", text, {}, k)) break;
    EXPECT_EQ(std::find(seen.begin(), seen.end(), text.render()), seen.end());
    seen.push_back(text.render());
  }
  EXPECT_EQ(seen.size(), 7u);  // 4 sentences: at most 6 inversions
}

std::string dump(const meta::Benchmark& b) {
  std::ostringstream out;
  meta::write_dataset(out, b.dataset, b.meta);
  return out.str();
}

TEST(BenchBuildLocal, SameSeedSameBytesAndRatingsDecrease) {
  meta::BenchOptions o;
  o.dimension = meta::QualityDimension::kConsistency;
  o.steps = 5;
  o.sources = 6;
  o.seed = 9;
  const auto a = meta::build_local_benchmark(sample(), o);
  const auto b = meta::build_local_benchmark(sample(), o);
  EXPECT_EQ(dump(a), dump(b));
  o.seed = 10;
  EXPECT_NE(dump(a), dump(meta::build_local_benchmark(sample(), o)));
  ASSERT_EQ(a.dataset.tasks.size(), 6u);
  for (const auto& t : a.dataset.tasks) {
    EXPECT_EQ(t.references.size(), 10u);  // the edited reference is no longer a reference
    EXPECT_TRUE(t.group.ends_with("/consistency"));
    const std::size_t k = t.candidates.size() - 1;
    for (std::size_t j = 0; j <= k; ++j) {
      EXPECT_EQ(t.candidates[j].id, "step" + std::to_string(j));
      EXPECT_EQ(t.candidates[j].human.at("consistency"),
                (std::vector<double>{static_cast<double>(o.steps - j)}));
    }
  }
}

TEST(BenchBuildGlobal, AnchorLevelMinimisesViolations) {
  const std::vector<double> levels = {1, 1, 2, 2, 3, 3};
  // Beats level 1, beats one level-2 anchor and ties the other, loses to level 3.
  const std::vector<int> cmp = {1, 1, 1, 0, -1, -1};
  EXPECT_EQ(meta::anchor_level(cmp, levels), 2.0);
  EXPECT_EQ(meta::anchor_level(std::vector<int>{1, 1, 1, 1, 1, 1}, levels), 3.0);
  EXPECT_EQ(meta::anchor_level(std::vector<int>{-1, -1, -1, -1, -1, -1}, levels), 1.0);
  // Between levels 2 and 3 with no violation either way: the lower.
  EXPECT_EQ(meta::anchor_level(std::vector<int>{1, 1, 1, 1, -1, -1}, levels), 2.0);
}

// Anchors are worth their human level; an item with e errors is worth 5 − e/2.
class StubJudge final : public meta::AnchorJudge {
 public:
  std::string signature() const override { return "stub"; }
  void prepare(const Dataset& ds, std::span<const ItemRef> items) override {
    for (const auto& it : items) {
      const auto& c = ds.tasks[it.task].candidates[it.candidate];
      if (c.id.starts_with("__bench_err"))
        quality_.push_back(5.0 - 0.5 * std::stod(c.id.substr(11)));
      else
        quality_.push_back(c.human.at("coherence").front());
    }
  }
  int compare(std::size_t a, std::size_t b) const override {
    return quality_[a] > quality_[b] ? 1 : (quality_[a] < quality_[b] ? -1 : 0);
  }

 private:
  std::vector<double> quality_;
};

TEST(BenchBuildGlobal, LevelsComeFromAnchorsAndFallWithErrors) {
  meta::BenchOptions o;
  o.dimension = meta::QualityDimension::kCoherence;
  o.steps = 8;
  o.sources = 10;
  o.per_source = 3;
  o.seed = 2;
  o.max_spread = 1.0;
  StubJudge judge;
  const auto b = meta::build_global_benchmark(sample(), o, judge);
  ASSERT_EQ(b.dataset.tasks.size(), 10u);
  std::size_t items = 0;
  for (std::size_t t = 0; t < b.dataset.tasks.size(); ++t) {
    const auto& task = b.dataset.tasks[t];
    EXPECT_EQ(task.candidates.size(), 3u);
    std::vector<std::pair<double, double>> errors_level;
    double last_requested = -1;
    for (std::size_t c = 0; c < task.candidates.size(); ++c) {
      const auto meta = json::parse(b.meta[t].candidates[c]);
      const double requested = meta["errors_requested"].get<double>();
      EXPECT_GT(requested, last_requested);  // distinct counts, ascending
      last_requested = requested;
      const double errors = meta["errors"].get<double>();
      EXPECT_LE(errors, requested);
      const double level = task.candidates[c].human.at("coherence").front();
      if (errors == 0) {
        EXPECT_EQ(level, 5.0);
      }
      errors_level.emplace_back(errors, level);
      ++items;
    }
    // More errors never get a higher level.
    for (const auto& [ea, la] : errors_level)
      for (const auto& [eb, lb] : errors_level)
        if (ea < eb) {
          EXPECT_GE(la, lb);
        }
  }
  EXPECT_EQ(items, 30u);
}

TEST(BenchBuildCli, WritesLocalBenchmarkReadyForMetaLocal) {
  const std::string dir = probity::test::temp_dir("bench-cli");
  const std::string data = probity::test::data_path("summeval/summeval_sample20.jsonl");
  const std::string args =
      "bench-build --data " + data + " --dimension fluency --steps 4 --sources 5 --seed 3 --out ";
  auto r = run_probity(args + dir + "/a.jsonl");
  ASSERT_EQ(r.exit_code, 0) << r.err;
  r = run_probity(args + dir + "/b.jsonl");
  ASSERT_EQ(r.exit_code, 0) << r.err;
  const std::string a = probity::test::read_text(dir + "/a.jsonl");
  EXPECT_EQ(a, probity::test::read_text(dir + "/b.jsonl"));
  EXPECT_EQ(std::count(a.begin(), a.end(), '\n'), 5);
  r = run_probity("score --data " + dir + "/a.jsonl --metric bleu --out " + dir + "/s.jsonl");
  ASSERT_EQ(r.exit_code, 0) << r.err;
  r = run_probity("meta local --data " + dir + "/a.jsonl --scores " + dir +
                  "/s.jsonl --bootstrap 20 --json");
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_EQ(json::parse(r.out)["results"][0]["pairs"], 20);

  // Usage: unknown dimension, missing --out. Invalid input: broken data, too few references.
  EXPECT_EQ(run_probity("bench-build --data " + data + " --dimension style --out " + dir + "/x")
                .exit_code,
            2);
  EXPECT_EQ(run_probity("bench-build --data " + data + " --dimension fluency").exit_code, 2);
  std::ofstream(dir + "/broken.jsonl") << "[1, 2]\n";
  EXPECT_EQ(run_probity("bench-build --data " + dir + "/broken.jsonl --dimension fluency --out " +
                        dir + "/x")
                .exit_code,
            3);
  std::ofstream(dir + "/oneref.jsonl")
      << R"({"task_id": "t", "references": [{"id": "r", "text": "Only one reference here."}], )"
      << R"("candidates": [{"id": "c", "text": "A candidate."}]})"
      << "\n";
  r = run_probity("bench-build --data " + dir + "/oneref.jsonl --dimension fluency --out " + dir +
                  "/x");
  EXPECT_EQ(r.exit_code, 3) << r.err;
}

}  // namespace
