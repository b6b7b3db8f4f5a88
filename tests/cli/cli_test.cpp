#include <gtest/gtest.h>

#include <fstream>

#include "cli_runner.hpp"
#include "test_paths.hpp"

namespace {

using probity::test::run_probity;

std::string sample() {
  return probity::test::data_path("summeval/summeval_sample20.jsonl");
}

TEST(Cli, UsageErrorsExitTwo) {
  EXPECT_EQ(run_probity("").exit_code, 2);
  EXPECT_EQ(run_probity("frobnicate").exit_code, 2);
  auto r = run_probity("score --data " + sample() + " --metric no-such-metric");
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_NE(r.err.find("unknown metric 'no-such-metric'"), std::string::npos) << r.err;
  r = run_probity("score --data " + sample() + " --metric bleu,colour=blue");
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_NE(r.err.find("unknown option 'colour'"), std::string::npos) << r.err;
  r = run_probity("score --data " + sample() + " --metric rougeL.q");
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_NE(r.err.find("has no part 'q'"), std::string::npos) << r.err;
}

TEST(Cli, InvalidInputExitsThreeNamingFileLineField) {
  std::string dir = probity::test::temp_dir("cli-bad");
  std::string path = dir + "/bad.jsonl";
  std::ofstream(path)
      << R"({"task_id": "t", "references": [{"text": "x"}], "candidates": [{"id": "c", "text": "ok"}]})"
      << "\n"
      << R"({"task_id": "u", "references": [{"text": "x"}], "candidates": [{"id": "c", "text": ""}]})"
      << "\n";
  auto r = run_probity("score --data " + path + " --metric bleu");
  EXPECT_EQ(r.exit_code, 3);
  EXPECT_NE(r.err.find(path + ":2: field 'candidates[0].text': empty text"), std::string::npos)
      << r.err;

  r = run_probity("score --data " + path + " --metric bleu --skip-invalid");
  EXPECT_EQ(r.exit_code, 0) << r.err;
  EXPECT_NE(r.err.find("skipped 1 invalid item(s)"), std::string::npos) << r.err;
  EXPECT_NE(r.err.find(":2: field 'candidates[0].text': empty text"), std::string::npos) << r.err;
}

TEST(Cli, MetricsListsRegistry) {
  auto r = run_probity("metrics");
  EXPECT_EQ(r.exit_code, 0);
  for (const char* name : {"bleu", "chrf", "chrf++", "rouge1", "rouge2", "rougeL", "rougeLsum"})
    EXPECT_NE(r.out.find(name), std::string::npos) << name;
}

}  // namespace
