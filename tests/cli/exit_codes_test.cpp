// Mistakes in what a command is given exit with the documented codes (2 usage, 3 invalid input),
// never 1 ("internal error"), and name the file.
#include <gtest/gtest.h>

#include <fstream>

#include "cli_runner.hpp"
#include "test_paths.hpp"

namespace probity::test {
namespace {

std::string sample() {
  return data_path("summeval/summeval_sample20.jsonl");
}

TEST(ExitCodes, ACorpusOptionNamingAMissingFileIsAUsageError) {
  const std::string missing = temp_dir("exit-corpus") + "/nope.txt";
  auto r = run_probity("score --data " + sample() + " --metric gem,corpus=" + missing +
                       " --out /dev/null");
  EXPECT_EQ(r.exit_code, 2) << r.err;
  EXPECT_NE(r.err.find("corpus=" + missing + ": no such file"), std::string::npos) << r.err;
  r = run_probity("score --data " + sample() + " --metric gem,corpus=/tmp --out /dev/null");
  EXPECT_EQ(r.exit_code, 2) << r.err;
  EXPECT_NE(r.err.find("not a regular file"), std::string::npos) << r.err;
}

TEST(ExitCodes, AnEmptyScoresFileIsInvalidInputNamingIt) {
  const std::string empty = temp_dir("exit-empty") + "/empty.jsonl";
  std::ofstream(empty) << "\n\n";
  auto r = run_probity("correlate --data " + sample() + " --scores " + empty);
  EXPECT_EQ(r.exit_code, 3) << r.err;
  EXPECT_NE(r.err.find(empty + ": no score records"), std::string::npos) << r.err;
  r = run_probity("audit --data " + sample() + " --metric scores:" + empty + ",data=" + sample() +
                  " --out " + temp_dir("exit-empty-audit"));
  EXPECT_EQ(r.exit_code, 3) << r.err;
}

}  // namespace
}  // namespace probity::test
