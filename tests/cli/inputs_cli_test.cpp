// Any common data shape in: --map/--format for flat rows, --data - for standard
// input, --hyp/--ref/--human plain-text files and --mtme/--lp on every command that reads data.
#include <gtest/gtest.h>

#include <cstdlib>
#include <fstream>
#include <map>
#include <nlohmann/json.hpp>
#include <sstream>
#include <string>

#include "cli_runner.hpp"
#include "test_paths.hpp"

namespace probity::test {
namespace {

std::string write(const std::string& dir, const std::string& name, const std::string& content) {
  const std::string path = dir + "/" + name;
  std::ofstream(path, std::ios::binary) << content;
  return path;
}

// (task_id, candidate_id, metric) -> score of a score file.
std::map<std::string, double> scores_of(const std::string& path) {
  std::map<std::string, double> out;
  std::ifstream in(path);
  for (std::string line; std::getline(in, line);) {
    auto j = nlohmann::json::parse(line);
    if (!j.contains("metric")) continue;
    out[j["task_id"].get<std::string>() + "/" + j["candidate_id"].get<std::string>() + "/" +
        j["metric"].get<std::string>()] = j["score"].is_null() ? -1.0 : j["score"].get<double>();
  }
  return out;
}

const std::string kMtme = golden_path("inputs/mtme");

TEST(CliInputs, CsvWithAnExtraColumnNeedsAMapThenLoads) {
  const std::string dir = temp_dir("cli_inputs_csv");
  const auto csv = write(dir, "rows.csv",
                         "doc,model,output,gold,lang,quality\n"
                         "d1,m1,the cat sat on the mat,the cat sat on the mat,en,5\n"
                         "d1,m2,a dog,the cat sat on the mat,en,1\n"
                         "d2,m1,hello world,hello there world,en,3\n");
  auto r = run_probity("score --data " + csv + " --metric bleu");
  EXPECT_EQ(r.exit_code, 3);
  EXPECT_NE(r.err.find("rows.csv:1: field 'task_id': missing required column"), std::string::npos)
      << r.err;
  EXPECT_NE(r.err.find("--map"), std::string::npos) << r.err;

  const std::string map = "task=doc,candidate=output,reference=gold,human=quality,system=model";
  r = run_probity("score --data " + csv + " --map " + map + " --metric bleu --out " + dir +
                  "/s.jsonl");
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_NE(r.err.find("note: " + csv + ": ignored 1 column(s) not named by the column map: lang"),
            std::string::npos)
      << r.err;
  auto s = scores_of(dir + "/s.jsonl");
  ASSERT_EQ(s.size(), 3u);
  EXPECT_NEAR(s["d1/m1/bleu"], 100.0, 1e-9);

  // The same rows as TSV by extension, and a map file; correlate reads them the same way.
  const auto tsv = write(dir, "rows.tsv",
                         "doc\tmodel\toutput\tgold\tlang\tquality\n"
                         "d1\tm1\tthe cat sat on the mat\tthe cat sat on the mat\ten\t5\n"
                         "d1\tm2\ta dog\tthe cat sat on the mat\ten\t1\n"
                         "d2\tm1\thello world\thello there world\ten\t3\n");
  const auto map_file = write(dir, "columns.map",
                              "# our export\ntask=doc\ncandidate=output\n"
                              "reference=gold\nhuman=quality\nsystem=model\n");
  r = run_probity("score --data " + tsv + " --map @" + map_file + " --metric bleu --out " + dir +
                  "/t.jsonl");
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_EQ(scores_of(dir + "/t.jsonl"), s);
  r = run_probity("correlate --data " + tsv + " --map @" + map_file + " --scores " + dir +
                  "/t.jsonl --bootstrap 0");
  EXPECT_EQ(r.exit_code, 0) << r.err;
  EXPECT_NE(r.out.find("quality"), std::string::npos) << r.out;

  // Bad map entries are usage errors naming the entry.
  r = run_probity("score --data " + csv + " --map task=doc,output --metric bleu");
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_NE(r.err.find("expected KEY=COLUMN"), std::string::npos) << r.err;
  r = run_probity("score --data " + csv + " --map candidate=nope --metric bleu");
  EXPECT_EQ(r.exit_code, 3);
  EXPECT_NE(r.err.find("rows.csv:1: field 'nope': column named by the column map is not in the "
                       "header"),
            std::string::npos)
      << r.err;
}

TEST(CliInputs, FlatJsonlOnStandardInput) {
  const std::string dir = temp_dir("cli_inputs_stdin");
  const auto flat = write(dir, "flat.jsonl",
                          R"({"prediction": "the cat sat", "reference": "the cat sat", "score": 4})"
                          "\n"
                          R"({"prediction": "dog", "reference": "the cat sat", "score": 1})"
                          "\n");
  auto r = run_probity("score --data " + flat + " --metric bleu");
  EXPECT_EQ(r.exit_code, 3);
  EXPECT_NE(r.err.find("flat.jsonl:1: field 'task_id'"), std::string::npos) << r.err;
  EXPECT_NE(r.err.find("--map"), std::string::npos) << r.err;

  const std::string cmd = "cat " + flat + " | " + probity_binary() +
                          " score --data - --map candidate=prediction,reference=reference,"
                          "human=score --metric bleu --out " +
                          dir + "/s.jsonl 2>" + dir + "/err";
  ASSERT_EQ(std::system(cmd.c_str()), 0) << read_text(dir + "/err");
  auto s = scores_of(dir + "/s.jsonl");
  ASSERT_EQ(s.size(), 2u);
  EXPECT_NEAR(s["1/c1/bleu"], 100.0, 1e-9);  // task id = line, candidate id by position
  EXPECT_LT(s["2/c1/bleu"], 100.0);

  // A task-format file on standard input, and a TSV there with --format.
  const std::string sample = data_path("summeval/summeval_sample20.jsonl");
  const std::string piped = "cat " + sample + " | " + probity_binary() +
                            " score --data - --metric bleu --out " + dir + "/p.jsonl 2>" + dir +
                            "/err";
  ASSERT_EQ(std::system(piped.c_str()), 0) << read_text(dir + "/err");
  r = run_probity("score --data " + sample + " --metric bleu --out " + dir + "/f.jsonl");
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_EQ(scores_of(dir + "/p.jsonl"), scores_of(dir + "/f.jsonl"));
}

TEST(CliInputs, PlainTextFilesAsSacrebleuTakesThem) {
  const std::string dir = temp_dir("cli_inputs_plain");
  const std::string outputs = kMtme + "/system-outputs/en-de/";
  auto r = run_probity("score --hyp " + outputs + "sysA.txt --ref " + kMtme +
                       "/references/en-de.refA.txt --metric bleu --out " + dir + "/s.jsonl");
  ASSERT_EQ(r.exit_code, 0) << r.err;
  auto s = scores_of(dir + "/s.jsonl");
  ASSERT_EQ(s.size(), 4u);
  EXPECT_NEAR(s["1/sysA/bleu"], 100.0, 1e-9);  // segment 1 equals the reference

  // With human scores, correlate reads the same plain-text data.
  const auto ha = write(dir, "a.score", "0\n-0.5\n-1\nNone\n");
  const auto hb = write(dir, "b.score", "-10\n-8\n-5\n-6\n");
  const std::string data = "--hyp " + outputs + "sysA.txt --hyp " + outputs + "sysB.txt --ref " +
                           kMtme + "/references/en-de.refA.txt --human " + ha + " --human " + hb;
  r = run_probity("score " + data + " --metric chrf --out " + dir + "/c.jsonl");
  ASSERT_EQ(r.exit_code, 0) << r.err;
  r = run_probity("correlate " + data + " --scores " + dir + "/c.jsonl --bootstrap 0");
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_NE(r.out.find("human"), std::string::npos) << r.out;

  r = run_probity("score --ref " + kMtme + "/references/en-de.refA.txt --metric bleu");
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_NE(r.err.find("go with --hyp"), std::string::npos) << r.err;
  r = run_probity("score --metric bleu");
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_NE(r.err.find("--data"), std::string::npos) << r.err;
  const auto short_ref = write(dir, "short.txt", "one\n");
  r = run_probity("score --hyp " + outputs + "sysA.txt --ref " + short_ref + " --metric bleu");
  EXPECT_EQ(r.exit_code, 3);
  EXPECT_NE(r.err.find("short.txt:2: 1 lines"), std::string::npos) << r.err;
}

TEST(CliInputs, MtMetricsEvalDirectory) {
  const std::string dir = temp_dir("cli_inputs_mtme");
  auto r = run_probity("score --mtme " + kMtme + " --lp en-de --metric bleu,refs=refA --out " +
                       dir + "/s.jsonl");
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_NE(r.err.find("en-de.mqm.sys.score"), std::string::npos) << r.err;
  auto s = scores_of(dir + "/s.jsonl");
  ASSERT_EQ(s.size(), 12u);  // 4 segments x 3 systems
  EXPECT_NEAR(s["1/sysA/bleu,refs=refA"], 100.0, 1e-9);
  r = run_probity("correlate --mtme " + kMtme + " --lp en-de --scores " + dir +
                  "/s.jsonl --bootstrap 0");
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_NE(r.out.find("mqm"), std::string::npos) << r.out;

  r = run_probity("score --mtme " + kMtme + " --lp xx-yy --metric bleu");
  EXPECT_EQ(r.exit_code, 3);
  EXPECT_NE(r.err.find("language pairs: en-de"), std::string::npos) << r.err;
  r = run_probity("score --mtme " + kMtme + " --metric bleu");
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_NE(r.err.find("--lp"), std::string::npos) << r.err;
}

}  // namespace
}  // namespace probity::test
