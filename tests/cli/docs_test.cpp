// docs/cli.md is generated from the tool itself; this keeps it in sync with the flags and the
// metric registry (regenerate with scripts/gen-cli-reference.sh).
#include <gtest/gtest.h>

#include "cli_runner.hpp"
#include "test_paths.hpp"

namespace {

TEST(CliDocs, ReferenceMatchesTheBuiltTool) {
  const std::string doc =
      probity::test::read_text(std::string(PROBITY_SOURCE_DIR) + "/docs/cli.md");
  ASSERT_FALSE(doc.empty()) << "docs/cli.md is missing";
  for (const char* cmd :
       {"--help", "score --help", "correlate --help", "compare --help", "audit --help",
        "perturb --help", "merge --help", "select --help", "meta global --help",
        "meta local --help", "bench-build --help", "metrics --help", "metrics"}) {
    auto r = probity::test::run_probity(cmd);
    ASSERT_EQ(r.exit_code, 0) << cmd;
    EXPECT_NE(doc.find("```text\n" + r.out + "```"), std::string::npos)
        << "docs/cli.md is stale for `probity " << cmd << "`: run scripts/gen-cli-reference.sh";
  }
}

}  // namespace
