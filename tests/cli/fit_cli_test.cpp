// `probity fit` and `--metric M,fit=FILE` as a user runs them: a pair's score record is the same
// bytes whether it is scored alone or inside a bigger dataset once the metric is frozen, and
// differs without fit= (the effect of a metric fitted on what it scores).
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <nlohmann/json.hpp>
#include <sstream>

#include "cli_runner.hpp"
#include "test_paths.hpp"

namespace {

using probity::test::read_text;
using probity::test::run_probity;

std::string sample() {
  return probity::test::data_path("summeval/summeval_sample20.jsonl");
}

// The first task of the sample with its first candidate only.
std::string write_alone(const std::string& dir) {
  std::ifstream in(sample());
  std::string line;
  std::getline(in, line);
  auto task = nlohmann::json::parse(line);
  task["candidates"] = nlohmann::json::array({task["candidates"][0]});
  const std::string path = dir + "/alone.jsonl";
  std::ofstream(path) << task.dump() << "\n";
  return path;
}

// The score record of the sample's first candidate, as written.
std::string first_record(const std::string& scores) {
  std::istringstream in(read_text(scores));
  std::string line;
  std::getline(in, line);
  return line;
}

std::string score(const std::string& data, const std::string& metric, const std::string& out) {
  auto r = run_probity("score -q --data " + data + " --metric '" + metric + "' --out " + out);
  EXPECT_EQ(r.exit_code, 0) << r.err;
  return first_record(out);
}

void expect_fixed(const std::string& metric) {
  const std::string dir = probity::test::temp_dir("fit-cli");
  const std::string alone = write_alone(dir);
  const std::string model = dir + "/m.model";
  auto fit = run_probity("fit --metric '" + metric + "' --data " + sample() + " --out " + model);
  ASSERT_EQ(fit.exit_code, 0) << fit.err;
  EXPECT_NE(fit.out.find("fitted"), std::string::npos) << fit.out;
  EXPECT_NE(fit.out.find("on 20 tasks"), std::string::npos) << fit.out;
  // Without fit=: the pair's record differs with what else is scored.
  EXPECT_NE(score(alone, metric, dir + "/a.jsonl"), score(sample(), metric, dir + "/b.jsonl"));
  // Frozen: the same bytes.
  const std::string frozen = metric + ",fit=" + model;
  const std::string a = score(alone, frozen, dir + "/fa.jsonl");
  EXPECT_EQ(a, score(sample(), frozen, dir + "/fb.jsonl"));
  EXPECT_NE(a.find("fit:sha256-"), std::string::npos) << a;
}

TEST(FitCli, FrozenGemScoresAPairTheSameWhateverElseIsScored) {
  expect_fixed("gem");
}

TEST(FitCli, FrozenOfflineBertScoreScoresAPairTheSameWhateverElseIsScored) {
  expect_fixed("bertscore,idf=true,ft_dim=10,ft_epoch=2,ft_cache=none");
}

TEST(FitCli, RefusesTooSmallACorpusAndAMetricWithNothingToFit) {
  const std::string dir = probity::test::temp_dir("fit-cli-refuse");
  const std::string alone = write_alone(dir);
  auto r = run_probity("fit --metric gem --data " + alone + " --out " + dir + "/m.model");
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_NE(r.err.find("at least 10 tasks"), std::string::npos) << r.err;
  EXPECT_FALSE(std::filesystem::exists(dir + "/m.model"));
  r = run_probity("fit --metric chrf --data " + sample() + " --out " + dir + "/m.model");
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_NE(r.err.find("does not fit on data"), std::string::npos) << r.err;
  // A corrupted model is an input error naming the file.
  std::ofstream(dir + "/bad.model") << "{\"format\":\"probity-model\"}\n";
  r = run_probity("score --data " + alone + " --metric gem,fit=" + dir + "/bad.model");
  EXPECT_EQ(r.exit_code, 2) << r.err;  // no format_version: not a file of this format version
  EXPECT_NE(r.err.find(dir + "/bad.model"), std::string::npos) << r.err;
}

TEST(FitCli, IsListedInTheHelp) {
  auto r = run_probity("--help");
  EXPECT_NE(r.out.find("fit"), std::string::npos);
  r = run_probity("fit --help");
  EXPECT_EQ(r.exit_code, 0);
  EXPECT_NE(r.out.find("--out"), std::string::npos) << r.out;
}

}  // namespace
