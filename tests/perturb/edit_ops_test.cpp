// The content-free edit operators of `probity attack` (perturb/edit_ops.cpp): casing in every
// direction, spacing, formatting added and removed, and the injection kinds, each on a fixed text.
#include "perturb/edit_ops.hpp"

#include <gtest/gtest.h>

#include <string>

namespace probity::test {
namespace {

using perturb::EditOpRegistry;

std::optional<std::string> edit(const std::string& op, std::string_view text) {
  static const auto registry = EditOpRegistry::builtin();
  const auto* e = registry.find(op);
  EXPECT_NE(e, nullptr) << op;
  Task task;
  task.lang = "en";
  perturb::Rng rng(3);
  return e->apply(text, task, rng);
}

const std::string kText = "The cat sat. It was happy! Dogs ran away?";

TEST(EditOps, CasingGoesEveryWay) {
  EXPECT_EQ(edit("lowercase", kText), "the cat sat. it was happy! dogs ran away?");
  EXPECT_EQ(edit("uppercase", kText), "THE CAT SAT. IT WAS HAPPY! DOGS RAN AWAY?");
  EXPECT_EQ(edit("sentence-case", "THE CAT SAT. IT WAS HAPPY"), "The cat sat. It was happy");
  EXPECT_EQ(edit("title-case", kText), "The Cat Sat. It Was Happy! Dogs Ran Away?");
  EXPECT_EQ(edit("sentence-case", "The cat sat."), std::nullopt);  // nothing to change
}

TEST(EditOps, SpacingIsAddedAndRemoved) {
  EXPECT_EQ(edit("collapse-spacing", "a  b\n\nc "), "a b c");
  EXPECT_EQ(edit("double-spacing", kText), "The cat sat.  It was happy!  Dogs ran away?");
  EXPECT_EQ(edit("line-breaks", kText), "The cat sat.\nIt was happy!\nDogs ran away?");
  EXPECT_EQ(edit("collapse-spacing", "a b"), std::nullopt);
}

TEST(EditOps, FormattingIsAddedAndRemoved) {
  const auto bulleted = edit("bullets", kText);
  ASSERT_TRUE(bulleted);
  EXPECT_EQ(edit("unformat", *bulleted), "The cat sat.\nIt was happy!\nDogs ran away?");
  EXPECT_EQ(edit("unformat", "## Summary\n**The cat** sat, *happy*."),
            "Summary\nThe cat sat, happy.");
  EXPECT_EQ(edit("unformat", kText), std::nullopt);
}

TEST(EditOps, EveryInjectionKindAddsItsInstructionAfterTheAnswer) {
  for (const char* op :
       {"inject-authority", "inject-criteria", "inject-rationale", "inject-verdict",
        "inject-escape", "inject-ignore", "inject-homoglyph", "inject-zero-width"}) {
    const auto out = edit(op, kText);
    ASSERT_TRUE(out) << op;
    EXPECT_TRUE(out->starts_with(kText + "\n\n")) << op << ": " << *out;
    EXPECT_GT(out->size(), kText.size() + 5) << op;
  }
  // The obfuscated ones hide the words from a keyword filter but keep their length in letters.
  const auto homo = edit("inject-homoglyph", kText);
  EXPECT_EQ(homo->find("evaluator"), std::string::npos);
  EXPECT_NE(homo->find("\u0435"), std::string::npos);  // Cyrillic e
  const auto zw = edit("inject-zero-width", kText);
  EXPECT_NE(zw->find("\u200b"), std::string::npos);
  const auto registry = EditOpRegistry::builtin();
  std::size_t injections = 0;
  for (const auto* op : registry.select({"injection"}, false)) injections += op != nullptr;
  EXPECT_EQ(injections, 10u);  // inject, inject-delimited and the eight kinds above
}

}  // namespace
}  // namespace probity::test
