#include <gtest/gtest.h>

#include "perturb/perturb_fixtures.hpp"
#include "perturb/strategies.hpp"
#include "probity/error.hpp"
#include "probity/perturb.hpp"

namespace {

using probity::PerturbationRegistry;
using probity::PerturbResult;
using probity::StrategyKind;

std::vector<std::string> codes(StrategyKind kind) {
  std::vector<std::string> out;
  for (const auto* info : probity::test::builtin_strategies().list(kind)) out.push_back(info->code);
  return out;
}

TEST(PerturbRegistry, PaperOrder) {
  EXPECT_EQ(codes(StrategyKind::kDegradation),
            (std::vector<std::string>{"R", "S", "D", "P", "U", "O"}));
  EXPECT_EQ(codes(StrategyKind::kManipulation),
            (std::vector<std::string>{"R", "M", "P", "N", "H", "S"}));
}

TEST(PerturbRegistry, CreateByCodeOrName) {
  auto& registry = probity::test::builtin_strategies();
  auto by_code = registry.create(StrategyKind::kDegradation, "S");
  auto by_name = registry.create(StrategyKind::kDegradation, "sentence-deletion");
  EXPECT_EQ(by_code->name(), "sentence-deletion");
  EXPECT_EQ(by_name->code(), "S");
  EXPECT_EQ(by_code->kind(), StrategyKind::kDegradation);
  // The same letter means different strategies in the two kinds.
  EXPECT_EQ(registry.create(StrategyKind::kManipulation, "S")->name(), "strong-shift");
  EXPECT_EQ(registry.create(StrategyKind::kManipulation, "r")->name(), "rephrase");
  EXPECT_THROW(registry.create(StrategyKind::kDegradation, "M"), probity::UsageError);
  EXPECT_THROW(registry.create(StrategyKind::kManipulation, "nonsense"), probity::UsageError);
}

TEST(PerturbRegistry, SignaturesAreDistinctAndVersioned) {
  std::set<std::string> seen;
  for (auto kind : {StrategyKind::kDegradation, StrategyKind::kManipulation}) {
    for (const auto* info : probity::test::builtin_strategies().list(kind)) {
      auto strategy = info->factory();
      EXPECT_EQ(strategy->name(), info->name);
      EXPECT_FALSE(strategy->description().empty());
      const std::string sig = strategy->signature();
      EXPECT_NE(sig.find(info->name), std::string::npos) << sig;
      EXPECT_NE(sig.find("rules-v1"), std::string::npos) << sig;
      EXPECT_TRUE(seen.insert(sig).second) << sig;
    }
  }
}

TEST(PerturbRegistry, Names) {
  EXPECT_EQ(probity::kind_name(StrategyKind::kDegradation), "degradation");
  EXPECT_EQ(probity::kind_name(StrategyKind::kManipulation), "manipulation");
  EXPECT_EQ(probity::status_name(PerturbResult::Status::kApplied), "applied");
  EXPECT_EQ(probity::status_name(PerturbResult::Status::kNotApplicable), "not_applicable");
  EXPECT_EQ(probity::status_name(PerturbResult::Status::kUnchanged), "unchanged");
  EXPECT_EQ(probity::status_name(PerturbResult::Status::kFailed), "failed");
}

TEST(PerturbItemSeed, StableAcrossBuildsAndOrder) {
  // A fixed value: FNV-1a + SplitMix64 finalizer, independent of std::hash and the platform.
  const auto a = probity::item_seed(13, "sentence-deletion", "task-1", "M0");
  EXPECT_EQ(a, 0x225D6E8AD2BB00DFULL);
  EXPECT_NE(a, probity::item_seed(14, "sentence-deletion", "task-1", "M0"));
  EXPECT_NE(a, probity::item_seed(13, "deletion-completion", "task-1", "M0"));
  EXPECT_NE(a, probity::item_seed(13, "sentence-deletion", "task-2", "M0"));
  EXPECT_NE(a, probity::item_seed(13, "sentence-deletion", "task-1", "M1"));
  // Part boundaries matter: ("ab", "c") is not ("a", "bc").
  EXPECT_NE(probity::item_seed(0, "x", "ab", "c"), probity::item_seed(0, "x", "a", "bc"));
}

TEST(PerturbContext, InvalidContextFails) {
  auto strategy = probity::test::builtin_strategies().create(StrategyKind::kDegradation, "S");
  const auto ds = probity::test::single_task({"One. Two."});
  EXPECT_EQ(strategy->apply({nullptr, 0, 0, 1}).status, PerturbResult::Status::kFailed);
  EXPECT_EQ(strategy->apply({&ds, 3, 0, 1}).status, PerturbResult::Status::kFailed);
  EXPECT_EQ(strategy->apply({&ds, 0, 5, 1}).status, PerturbResult::Status::kFailed);
}

}  // namespace

// Regression (ASan, scripts/sanitize.sh): the last word's parts were read after the chunk they
// view was replaced; a word longer than the small-string buffer made that a use after free.
TEST(PerturbEndSentence, LongLastWordWithPunctuationEndsTheSentence) {
  std::vector<probity::perturb::Chunk> chunks =
      probity::perturb::to_chunks("The committee approved the (internationalisation-related), ");
  probity::perturb::end_sentence(chunks, false);
  std::string text;
  for (const auto& c : chunks) text += c.text + c.space;
  EXPECT_EQ(text, "The committee approved the (internationalisation-related.");
}
