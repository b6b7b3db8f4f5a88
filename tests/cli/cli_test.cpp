#include <gtest/gtest.h>

#include <fstream>
#include <nlohmann/json.hpp>

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
      << R"({"task_id": "u", "references": [{"text": "x"}], "candidates": [{"id": "c", "text": ["ok"]}]})"
      << "\n";
  auto r = run_probity("score --data " + path + " --metric bleu");
  EXPECT_EQ(r.exit_code, 3);
  EXPECT_NE(r.err.find(path + ":2: field 'candidates[0].text': expected a string"),
            std::string::npos)
      << r.err;

  r = run_probity("score --data " + path + " --metric bleu --skip-invalid");
  EXPECT_EQ(r.exit_code, 0) << r.err;
  EXPECT_NE(r.err.find("skipped 1 invalid item(s)"), std::string::npos) << r.err;
  EXPECT_NE(r.err.find(":2: field 'candidates[0].text': expected a string"), std::string::npos)
      << r.err;
}

TEST(Cli, MetricsListsRegistry) {
  auto r = run_probity("metrics");
  EXPECT_EQ(r.exit_code, 0);
  for (const char* name : {"bleu", "chrf", "chrf++", "rouge1", "rouge2", "rougeL", "rougeLsum"})
    EXPECT_NE(r.out.find(name), std::string::npos) << name;
}

}  // namespace

namespace {

TEST(CliScore, WritesOneRecordPerCandidateAndPartWithSignature) {
  std::string dir = probity::test::temp_dir("cli-score");
  auto r = run_probity("score --data " + sample() + " --metric bleu --metric rougeL --out " + dir +
                       "/s.jsonl");
  ASSERT_EQ(r.exit_code, 0) << r.err;
  std::string text = probity::test::read_text(dir + "/s.jsonl");
  std::size_t lines = 0, bleu = 0, rouge_f = 0;
  for (std::size_t pos = 0; (pos = text.find('\n', pos)) != std::string::npos; ++pos) ++lines;
  for (std::size_t pos = 0; (pos = text.find("\"metric\": \"bleu\"", pos)) != std::string::npos;
       ++pos)
    ++bleu;
  for (std::size_t pos = 0; (pos = text.find("\"metric\": \"rougeL.f\"", pos)) != std::string::npos;
       ++pos)
    ++rouge_f;
  EXPECT_EQ(bleu, 320u);
  EXPECT_EQ(rouge_f, 320u);
  EXPECT_EQ(lines, 320u * 4 + 1);  // bleu + rougeL.p/.r/.f, then the end record
  // The end record says what the file covers, so readers can refuse a cut or foreign file.
  const auto last = nlohmann::json::parse(text.substr(text.rfind('\n', text.size() - 2) + 1));
  ASSERT_TRUE(last.contains("probity_scores")) << last.dump();
  EXPECT_EQ(last["probity_scores"]["records"], 1280);
  EXPECT_EQ(last["probity_scores"]["shard"], nlohmann::json::array({0, 1}));
  EXPECT_EQ(last["probity_scores"]["data"][0]["items"], 320);
  EXPECT_EQ(last["probity_scores"]["data"][0]["digest"].get<std::string>().size(), 64u);
  EXPECT_EQ(last["probity_scores"]["metrics"].size(), 4u);
  EXPECT_NE(
      text.find(
          "\"signature\": \"bleu|nrefs:all|case:mixed|eff:yes|tok:13a|smooth:exp|version:probity-"),
      std::string::npos);
  EXPECT_NE(r.out.find("corpus"), std::string::npos);  // corpus summary table
}

TEST(CliScore, SameResultWhateverTheThreadCount) {
  std::string dir = probity::test::temp_dir("cli-threads");
  ASSERT_EQ(run_probity("score --data " + sample() +
                        " --metric chrf --metric rouge2.f --threads 1 --out " + dir + "/a")
                .exit_code,
            0);
  ASSERT_EQ(run_probity("score --data " + sample() +
                        " --metric chrf --metric rouge2.f --threads 2 --out " + dir + "/b")
                .exit_code,
            0);
  EXPECT_EQ(probity::test::read_text(dir + "/a"), probity::test::read_text(dir + "/b"));
}

TEST(CliCorrelate, TableJsonAndErrors) {
  std::string dir = probity::test::temp_dir("cli-corr");
  std::string scores = dir + "/s.jsonl";
  ASSERT_EQ(
      run_probity("score --data " + sample() + " --metric bleu --metric rouge1.f --out " + scores)
          .exit_code,
      0);
  auto r = run_probity("correlate --data " + sample() + " --scores " + scores +
                       " --bootstrap 200 --seed 3");
  ASSERT_EQ(r.exit_code, 0) << r.err;
  for (const char* s :
       {"coherence", "consistency", "fluency", "relevance", "mean", "spearman", "95% CI"})
    EXPECT_NE(r.out.find(s), std::string::npos) << s;
  auto j = run_probity("correlate --data " + sample() + " --scores " + scores +
                       " --bootstrap 200 --seed 3 --json --dimension relevance --metric bleu");
  ASSERT_EQ(j.exit_code, 0) << j.err;
  EXPECT_NE(j.out.find("\"dimension\": \"relevance\""), std::string::npos);
  EXPECT_EQ(j.out.find("coherence"), std::string::npos);
  // Same seed, same output.
  EXPECT_EQ(j.out,
            run_probity("correlate --data " + sample() + " --scores " + scores +
                        " --bootstrap 200 --seed 3 --json --dimension relevance --metric bleu")
                .out);

  auto bad =
      run_probity("correlate --data " + sample() + " --scores " + scores + " --dimension taste");
  EXPECT_EQ(bad.exit_code, 2);
  EXPECT_NE(bad.err.find("dimension 'taste'"), std::string::npos) << bad.err;

  std::ofstream(dir + "/bad.jsonl")
      << R"({"task_id": "nope", "candidate_id": "M0", "metric": "x", "score": 1})"
      << "\n";
  auto unknown = run_probity("correlate --data " + sample() + " --scores " + dir + "/bad.jsonl");
  EXPECT_EQ(unknown.exit_code, 3);
  EXPECT_NE(unknown.err.find("bad.jsonl:1: field 'task_id': task 'nope' is not in the dataset"),
            std::string::npos)
      << unknown.err;
}

TEST(CliCompare, MetricAgainstItselfHasPOne) {
  std::string dir = probity::test::temp_dir("cli-cmp");
  std::string scores = dir + "/s.jsonl";
  ASSERT_EQ(
      run_probity("score --data " + sample() + " --metric bleu --metric rouge1.f --out " + scores)
          .exit_code,
      0);
  // A copy of bleu under another name: identical scores, in a file without an end record as
  // another tool would write it (complete, so it is read).
  std::string text = probity::test::read_text(scores), copy;
  text.resize(text.rfind('\n', text.size() - 2) + 1);  // drop the end record
  std::ofstream(scores, std::ios::trunc) << text;
  for (std::size_t pos = 0, end; (end = text.find('\n', pos)) != std::string::npos; pos = end + 1) {
    std::string line = text.substr(pos, end - pos);
    if (line.find("\"metric\": \"bleu\"") == std::string::npos) continue;
    line.replace(line.find("\"metric\": \"bleu\""), 16, "\"metric\": \"bleu2\"");
    copy += line + "\n";
  }
  std::ofstream(scores, std::ios::app) << copy;
  auto same = run_probity("compare --data " + sample() + " --scores " + scores +
                          " --metric bleu --metric bleu2 --permutations 200 --json");
  ASSERT_EQ(same.exit_code, 0) << same.err;
  EXPECT_NE(same.out.find("\"p_two_sided\": 1.0"), std::string::npos) << same.out;
  auto diff = run_probity("compare --data " + sample() + " --scores " + scores +
                          " --metric bleu --metric rouge1.f --permutations 200");
  ASSERT_EQ(diff.exit_code, 0) << diff.err;
  EXPECT_NE(diff.out.find("relevance"), std::string::npos);
}

}  // namespace
