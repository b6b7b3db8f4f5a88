// Bring your own metric as scores files: `probity perturb` writes the texts, an outside
// metric scores them, and the audit reads those scores: the verdicts equal those of the same
// metric computed inside probity.
#include <gtest/gtest.h>
#include <sys/wait.h>

#include <cstdlib>
#include <filesystem>
#include <map>
#include <nlohmann/json.hpp>

#include "cli_runner.hpp"
#include "test_paths.hpp"

namespace {

using probity::test::read_text;
using probity::test::run_probity;

TEST(ByoMetric, AuditFromAScoresFileEqualsTheBuiltInMetric) {
  std::string dir = probity::test::temp_dir("byo");
  std::string data = probity::test::data_path("summeval/summeval_sample20.jsonl");
  auto p = run_probity("perturb --data " + data + " --degrade S,R --manipulate M --seed 4 --out " +
                       dir + "/perturbed.jsonl");
  ASSERT_EQ(p.exit_code, 0) << p.err;
  // Stand-in for an outside metric: rougeL.f computed over the perturbed file.
  ASSERT_EQ(run_probity("score --data " + dir + "/perturbed.jsonl --metric rougeL.f --out " + dir +
                        "/mine.jsonl")
                .exit_code,
            0);
  auto a =
      run_probity("audit --data " + data + " --metric 'scores:" + dir + "/mine.jsonl,data=" + dir +
                  "/perturbed.jsonl,name=mine' --metric rougeL.f --degrade S,R --manipulate M "
                  "--seed 4 --bootstrap 100 --out " +
                  dir + "/audit");
  ASSERT_EQ(a.exit_code, 0) << a.err;
  auto j = nlohmann::json::parse(read_text(dir + "/audit/report.json"));
  std::map<std::string, nlohmann::json> by_metric;  // "kind/code" -> test, for each metric
  std::size_t compared = 0, t_outcomes_match = 0;
  for (const auto& t : j["tests"]) {
    std::string key = t["kind"].get<std::string>() + "/" + t["code"].get<std::string>();
    if (t["metric"].get<std::string>() == "rougeL.f") by_metric[key] = t;
  }
  for (const auto& t : j["tests"]) {
    if (t["metric"].get<std::string>() == "rougeL.f") continue;
    EXPECT_EQ(t["metric"], "mine");  // name= replaces the spec in every table
    const auto& ref =
        by_metric.at(t["kind"].get<std::string>() + "/" + t["code"].get<std::string>());
    EXPECT_EQ(t["applied"], ref["applied"]);
    EXPECT_EQ(t["undefined"].get<int>(), 0);
    EXPECT_DOUBLE_EQ(t["mean_delta"].get<double>(), ref["mean_delta"].get<double>());
    EXPECT_EQ(t["passed"], ref["passed"]);
    t_outcomes_match += t["outcome_holm"] == ref["outcome_holm"];
    ++compared;
  }
  EXPECT_EQ(compared, 3u);
  // The correlation with humans is the same too (after the `humans` ceiling row: the sample
  // has three experts per summary).
  ASSERT_TRUE(j["correlations"][0].value("humans", false));
  EXPECT_EQ(j["correlations"][1]["rows"][0]["spearman"],
            j["correlations"][2]["rows"][0]["spearman"]);
  EXPECT_EQ(t_outcomes_match, compared);
}

// A scores file's metric is named by its record name (not by the whole spec), and scores of
// several metrics may come from several files, or from standard input.
TEST(ByoMetric, ScoresFilesNameTheirMetricAndMayBeGivenSeveralTimes) {
  std::string dir = probity::test::temp_dir("byo-files");
  std::string data = probity::test::data_path("summeval/summeval_sample20.jsonl");
  for (const char* m : {"bleu", "chrf"})
    ASSERT_EQ(run_probity("score --data " + data + " --metric " + m + " --out " + dir + "/" + m +
                          ".jsonl")
                  .exit_code,
              0);
  ASSERT_EQ(run_probity("score --data " + data + " --metric bleu --metric chrf --out " + dir +
                        "/both.jsonl")
                .exit_code,
            0);
  const std::string cmp = "compare --data " + data + " --metric bleu --metric chrf --json ";
  auto one = run_probity(cmp + "--scores " + dir + "/both.jsonl");
  auto two = run_probity(cmp + "--scores " + dir + "/bleu.jsonl --scores " + dir + "/chrf.jsonl");
  // Standard input: run_probity gives /dev/null, so this one runs through a pipe.
  probity::test::RunResult piped;
  piped.exit_code = WEXITSTATUS(std::system(
      ("cat " + dir + "/chrf.jsonl | COLUMNS= " + probity::test::probity_binary() + " " + cmp +
       "--scores " + dir + "/bleu.jsonl --scores - >" + dir + "/piped.out 2>" + dir + "/piped.err")
          .c_str()));
  piped.out = read_text(dir + "/piped.out");
  piped.err = read_text(dir + "/piped.err");
  ASSERT_EQ(one.exit_code, 0) << one.err;
  ASSERT_EQ(two.exit_code, 0) << two.err;
  ASSERT_EQ(piped.exit_code, 0) << piped.err;
  const auto results = [](const std::string& out) { return nlohmann::json::parse(out)["results"]; };
  EXPECT_EQ(results(one.out), results(two.out));
  EXPECT_EQ(results(one.out), results(piped.out));
  // The same metric in two files is ambiguous.
  auto twice = run_probity(cmp + "--scores " + dir + "/both.jsonl --scores " + dir + "/chrf.jsonl");
  EXPECT_EQ(twice.exit_code, 2);
  EXPECT_NE(twice.err.find("has scores in both"), std::string::npos) << twice.err;
  // In an audit, scores:FILE is named after the file's record name unless name= says otherwise.
  ASSERT_EQ(run_probity("perturb --data " + data +
                        " --degrade S --manipulate none --seed 1 --out " + dir + "/perturbed.jsonl")
                .exit_code,
            0);
  ASSERT_EQ(run_probity("score --data " + dir + "/perturbed.jsonl --metric chrf --out " + dir +
                        "/mine.jsonl")
                .exit_code,
            0);
  auto a = run_probity(
      "audit --data " + data + " --metric 'scores:" + dir + "/mine.jsonl,data=" + dir +
      "/perturbed.jsonl' --degrade S --manipulate none --bootstrap 20 --out " + dir + "/audit");
  ASSERT_EQ(a.exit_code, 0) << a.err;
  auto j = nlohmann::json::parse(read_text(dir + "/audit/report.json"));
  EXPECT_EQ(j["metrics"], nlohmann::json::array({"chrf"}));
}

TEST(ByoMetric, ScoresMetricNeedsItsDataset) {
  auto r =
      run_probity("score --data " + probity::test::data_path("summeval/summeval_sample20.jsonl") +
                  " --metric scores:x.jsonl");
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_NE(r.err.find("data=DATASET is required"), std::string::npos) << r.err;
}

}  // namespace

namespace {

// TER is an edit rate (lower is better): the audit negates it, so that a degradation that adds
// edits is caught as a drop, and says so in the name. A scores file of TER with better=lower is
// audited the same way.
TEST(LowerIsBetter, TerIsAuditedNegated) {
  std::string dir = probity::test::temp_dir("ter-audit");
  std::string data = probity::test::data_path("summeval/summeval_sample20.jsonl");
  // R only (TER is slow: the other strategies would add a minute, more under the sanitizers).
  auto p = run_probity("perturb --data " + data + " --degrade R --manipulate none --seed 4 --out " +
                       dir + "/perturbed.jsonl");
  ASSERT_EQ(p.exit_code, 0) << p.err;
  ASSERT_EQ(run_probity("score --data " + dir + "/perturbed.jsonl --metric ter --out " + dir +
                        "/ter.jsonl")
                .exit_code,
            0);
  auto a = run_probity("audit --data " + data + " --metric ter --metric 'scores:" + dir +
                       "/ter.jsonl,data=" + dir +
                       "/perturbed.jsonl,better=lower,name=myter' --degrade R --manipulate none "
                       "--seed 4 "
                       "--bootstrap 50 --out " +
                       dir + "/audit");
  ASSERT_EQ(a.exit_code, 0) << a.err;
  auto j = nlohmann::json::parse(read_text(dir + "/audit/report.json"));
  EXPECT_EQ(j["metrics"], nlohmann::json::array({"-ter", "-myter"}));
  std::vector<nlohmann::json> r;
  for (const auto& t : j["tests"])
    if (t["code"] == "R" && t["kind"] == "degradation") r.push_back(t);
  ASSERT_EQ(r.size(), 2u);
  for (const auto& t : r) {
    // Random replacement adds edits: TER rises, so -TER falls and the test passes.
    EXPECT_LT(t["mean_delta"].get<double>(), 0) << t.dump();
    EXPECT_EQ(t["passed"], true) << t.dump();
  }
  EXPECT_DOUBLE_EQ(r[0]["mean_delta"].get<double>(), r[1]["mean_delta"].get<double>());
}

}  // namespace

// A scores file holds scores of fixed texts: an attack on it would read "0% attacked" after
// trying nothing. `probity attack` refuses it, naming the routes that can attack a user's own
// scorer; the audit's attack section says why it is untested.
TEST(ByoMetric, AScoresFileCannotBeAttackedAndSaysWhy) {
  const std::string dir = probity::test::temp_dir("byo_attack");
  const std::string data = probity::test::data_path("summeval/summeval_sample20.jsonl");
  ASSERT_EQ(run_probity("score --data " + data + " --metric rougeL.f --out " + dir + "/mine.jsonl")
                .exit_code,
            0);
  const std::string scores = " --metric 'scores:" + dir + "/mine.jsonl,data=" + data + "'";
  auto r = run_probity("attack --data " + data + scores + " --budget 5 --out " + dir + "/atk");
  EXPECT_EQ(r.exit_code, 2) << r.err;
  EXPECT_NE(r.err.find("cannot score an edited one"), std::string::npos) << r.err;
  EXPECT_NE(r.err.find("exec:COMMAND"), std::string::npos) << r.err;
  EXPECT_NE(r.err.find("http:URL"), std::string::npos) << r.err;
  r = run_probity(
      "audit --data " + data + scores +
      " --degrade none --manipulate none --attack --attack-budget 5 --bootstrap 50 --out " + dir +
      "/audit");
  ASSERT_EQ(r.exit_code, 0) << r.err;
  const auto j = nlohmann::json::parse(read_text(dir + "/audit/report.json"));
  ASSERT_EQ(j["attacks"].size(), 1u);
  EXPECT_FALSE(j["attacks"][0]["testable"].get<bool>());
  EXPECT_NE(j["attacks"][0]["untestable"].get<std::string>().find("fixed texts"),
            std::string::npos);
  EXPECT_EQ(r.out.find("0.0%"), std::string::npos) << r.out;
  std::filesystem::remove_all(dir);
}
