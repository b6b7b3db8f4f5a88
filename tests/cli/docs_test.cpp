// docs/cli.md is generated from the tool itself; this keeps it in sync with the flags and the
// metric registry (regenerate with scripts/gen-cli-reference.sh).
#include <gtest/gtest.h>

#include <filesystem>

#include "cli_runner.hpp"
#include "probity/llm.hpp"
#include "test_paths.hpp"

namespace {

TEST(CliDocs, ReferenceMatchesTheBuiltTool) {
  const std::string doc =
      probity::test::read_text(std::string(PROBITY_SOURCE_DIR) + "/docs/cli.md");
  ASSERT_FALSE(doc.empty()) << "docs/cli.md is missing";
  for (const char* cmd :
       {"--help", "score --help", "correlate --help", "compare --help", "significance --help",
        "audit --help", "perturb --help", "merge --help", "select --help", "meta global --help",
        "meta local --help", "bench-build --help", "metrics --help", "metrics"}) {
    auto r = probity::test::run_probity(cmd);
    ASSERT_EQ(r.exit_code, 0) << cmd;
    EXPECT_NE(doc.find("```text\n" + r.out + "```"), std::string::npos)
        << "docs/cli.md is stale for `probity " << cmd << "`: run scripts/gen-cli-reference.sh";
  }
}

// Every probity.toml shown in the documentation is one probity reads without an error (a
// cluster example once put `cache` where it was never read).
TEST(CliDocs, EveryConfigurationExampleParses) {
  namespace fs = std::filesystem;
  std::vector<fs::path> files = {fs::path(PROBITY_SOURCE_DIR) / "README.md"};
  for (const auto& e : fs::directory_iterator(fs::path(PROBITY_SOURCE_DIR) / "docs"))
    if (e.path().extension() == ".md") files.push_back(e.path());
  std::size_t examples = 0;
  for (const auto& file : files) {
    const std::string doc = probity::test::read_text(file.string());
    for (auto at = doc.find("```toml\n"); at != std::string::npos; at = doc.find("```toml\n", at)) {
      at += 8;
      const std::string toml = doc.substr(at, doc.find("```", at) - at);
      EXPECT_NO_THROW(probity::llm::parse_config(toml, file.filename().string())) << file << ":\n"
                                                                                  << toml;
      ++examples;
    }
  }
  EXPECT_GE(examples, 5u);
}

}  // namespace
