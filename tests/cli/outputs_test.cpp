// What a command writes never destroys what it reads, links stay links, and an output directory
// that cannot be made is an output error (found by a red team).
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <regex>

#include "cli_runner.hpp"
#include "test_paths.hpp"

namespace probity::test {
namespace {

namespace fs = std::filesystem;

std::string sample() {
  return data_path("summeval/summeval_sample20.jsonl");
}

void write(const std::string& path, const std::string& text) {
  std::ofstream(path, std::ios::binary) << text;
}

// The first `n` tasks of the sample, as a JSON array (a dataset format the audit reads).
std::string sample_as_array(std::size_t n) {
  std::ifstream in(sample());
  std::string line, out = "[";
  for (std::size_t i = 0; i < n && std::getline(in, line); ++i) out += (i ? "," : "") + line;
  return out + "]";
}

// 1: the audit used to replace a dataset named out/report.json with its report, exit 0.
TEST(Outputs, AnAuditRefusesAnOutputDirectoryThatHoldsItsInputUnderANameItWrites) {
  const std::string dir = temp_dir("out-audit-input");
  fs::create_directories(dir + "/out");
  const std::string data = dir + "/out/report.json";
  write(data, sample_as_array(3));
  const std::string before = read_text(data);
  auto r = run_probity("audit --data " + data + " --metric bleu --sample 5 --out " + dir + "/out");
  EXPECT_EQ(r.exit_code, 2) << r.err;
  EXPECT_NE(r.err.find("would overwrite the input '" + data + "' (--data) with its report.json"),
            std::string::npos)
      << r.err;
  EXPECT_EQ(read_text(data), before);
  EXPECT_FALSE(fs::exists(dir + "/out/cache.sqlite"));  // refused before anything was written
  // Through a link: out2/report.md leads to the dataset.
  fs::create_directories(dir + "/out2");
  fs::create_symlink(data, dir + "/out2/report.md");
  r = run_probity("audit --data " + data + " --metric bleu --sample 5 --out " + dir + "/out2");
  EXPECT_EQ(r.exit_code, 2) << r.err;
  EXPECT_NE(r.err.find("with its report.md"), std::string::npos) << r.err;
  EXPECT_EQ(read_text(data), before);
  // The attack's attack.json, a scores file a metric names, the figures of --export.
  fs::copy_file(data, dir + "/out/attack.json");
  r = run_probity("attack --data " + dir + "/out/attack.json --metric bleu --sample 2 --budget 5 " +
                  "--out " + dir + "/out");
  EXPECT_EQ(r.exit_code, 2) << r.err;
  const std::string scores = dir + "/s.jsonl";
  write(scores, "{}\n");
  r = run_probity("score --data " + sample() + " --metric scores:" + scores + " --out " + scores);
  EXPECT_EQ(r.exit_code, 2) << r.err;
  EXPECT_NE(r.err.find("(--metric scores:" + scores + ")"), std::string::npos) << r.err;
  EXPECT_EQ(read_text(scores), "{}\n");
  fs::copy_file(data, dir + "/out/fig-x.svg");
  r = run_probity("audit --data " + dir + "/out/fig-x.svg --metric bleu --out " + dir + "/out");
  EXPECT_EQ(r.exit_code, 2) << r.err;
  // A dataset in the output directory under a name the audit does not write is fine.
  fs::create_directories(dir + "/out3");
  write(dir + "/out3/data.json", sample_as_array(3));
  r = run_probity("audit --data " + dir + "/out3/data.json --metric bleu --sample 5 --degrade R " +
                  "--manipulate none --out " + dir + "/out3");
  EXPECT_EQ(r.exit_code, 0) << r.err;
}

// A shard finished "with the same command without --shard, adding --import DIR", as the shard
// run says, imports its own output directory: that is no overwrite, and nothing to copy.
TEST(Outputs, AShardFinishedInItsOwnDirectoryImportsNothingAndIsNotRefused) {
  const std::string dir = temp_dir("out-own-import");
  const std::string args = "audit --data " + sample() +
                           " --metric bleu --sample 6 --degrade R --manipulate none --out " + dir;
  ASSERT_EQ(run_probity(args + " --shard 0/1").exit_code, 0);
  auto r = run_probity(args + " --import " + dir);
  EXPECT_EQ(r.exit_code, 0) << r.err;
  EXPECT_TRUE(fs::exists(dir + "/report.json"));
  r = run_probity(args + " --import " + dir + "/cache.sqlite");
  EXPECT_EQ(r.exit_code, 0) << r.err;
}

// 14: an output directory that cannot be made (a file, under /proc) exits 4 naming it.
TEST(Outputs, AnOutputDirectoryThatCannotBeMadeIsAnOutputError) {
  const std::string dir = temp_dir("out-dir-file");
  write(dir + "/file", "x");
  for (const std::string& out : {dir + "/file", dir + "/file/sub", std::string("/proc/probity")}) {
    auto r = run_probity("audit --data " + sample() + " --metric bleu --sample 5 --out " + out);
    EXPECT_EQ(r.exit_code, 4) << out << ": " << r.err;
    EXPECT_NE(r.err.find("cannot write '" + out + "': cannot create the output directory"),
              std::string::npos)
        << r.err;
    r = run_probity("attack --data " + sample() + " --metric bleu --sample 2 --budget 5 --out " +
                    out);
    EXPECT_EQ(r.exit_code, 4) << out << ": " << r.err;
  }
  EXPECT_EQ(read_text(dir + "/file"), "x");
}

// 8: two datasets named summ.jsonl in different folders used to share one name: the second's
// correlation vanished from the tables and its figures replaced the first's.
TEST(Outputs, DatasetsWithTheSameFileNameKeepTheirOwnRowsAndFigures) {
  const std::string dir = temp_dir("out-collide");
  fs::create_directories(dir + "/a");
  fs::create_directories(dir + "/b");
  fs::copy_file(sample(), dir + "/a/summ.jsonl");
  {
    std::ifstream in(sample());
    std::ofstream out(dir + "/b/summ.jsonl");
    std::string line;
    for (int i = 0; i < 10 && std::getline(in, line); ++i) out << line << "\n";
  }
  auto r = run_probity("audit --data " + dir + "/a/summ.jsonl --data " + dir +
                       "/b/summ.jsonl --metric bleu --sample 8 --degrade R --manipulate none " +
                       "--export svg,latex --out " + dir + "/out");
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_TRUE(fs::exists(dir + "/out/fig-correlation-a_summ.svg"));
  EXPECT_TRUE(fs::exists(dir + "/out/fig-correlation-b_summ.svg"));
  const std::string json = read_text(dir + "/out/report.json");
  EXPECT_NE(json.find("\"a/summ\""), std::string::npos);
  EXPECT_NE(json.find("\"b/summ\""), std::string::npos);
  EXPECT_NE(r.out.find("a/summ"), std::string::npos);
  EXPECT_NE(r.out.find("b/summ"), std::string::npos);
  // The same file twice is a mistake, whatever its spelling.
  r = run_probity("audit --data " + dir + "/a/summ.jsonl --data " + dir +
                  "/b/../a/summ.jsonl --metric bleu --out " + dir + "/out2");
  EXPECT_EQ(r.exit_code, 2) << r.err;
  EXPECT_NE(r.err.find("is given twice"), std::string::npos) << r.err;
}

// 16: a cell starting with '[' after a row's "\\" was read by LaTeX as an optional argument.
TEST(Outputs, LatexTablesNeverFollowARowEndWithABracket) {
  const std::string dir = temp_dir("out-latex");
  auto r = run_probity("audit --data " + sample() +
                       " --metric 'bleu,name=[evil]' --metric 'chrf,name=]x[' --sample 8 "
                       "--degrade R --manipulate none --export latex --out " +
                       dir);
  ASSERT_EQ(r.exit_code, 0) << r.err;
  std::size_t tables = 0;
  const std::regex row_end_then_bracket(R"(\\\\\s*\[)");
  for (const auto& e : fs::directory_iterator(dir)) {
    if (e.path().extension() != ".tex") continue;
    ++tables;
    const std::string tex = read_text(e.path().string());
    EXPECT_FALSE(std::regex_search(tex, row_end_then_bracket)) << e.path();
  }
  EXPECT_GT(tables, 0u);
  EXPECT_NE(read_text(dir + "/table-scorecard.tex").find("{[}evil{]}"), std::string::npos);
}

// 17: --out naming a link replaced the link with a file and left the target as it was.
TEST(Outputs, AnOutputThatIsALinkIsWrittenThroughToItsTarget) {
  const std::string dir = temp_dir("out-link");
  fs::create_directories(dir + "/real");
  write(dir + "/real/scores.jsonl", "old\n");
  fs::create_symlink("real/scores.jsonl", dir + "/link.jsonl");  // relative, as users make them
  auto r = run_probity("score --data " + sample() + " --metric bleu --out " + dir + "/link.jsonl");
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_TRUE(fs::is_symlink(dir + "/link.jsonl"));
  const std::string written = read_text(dir + "/real/scores.jsonl");
  EXPECT_NE(written.find("\"metric\""), std::string::npos);
  // A dangling link: the write creates its target.
  fs::create_symlink("real/new.jsonl", dir + "/dangling.jsonl");
  r = run_probity("score --data " + sample() + " --metric bleu --out " + dir + "/dangling.jsonl");
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_TRUE(fs::is_symlink(dir + "/dangling.jsonl"));
  EXPECT_EQ(read_text(dir + "/real/new.jsonl"), written);
  // The report files of an audit too.
  fs::create_directories(dir + "/audit");
  write(dir + "/real/report.md", "old\n");
  fs::create_symlink("../real/report.md", dir + "/audit/report.md");
  r = run_probity("audit --data " + sample() + " --metric bleu --sample 5 --degrade R " +
                  "--manipulate none --out " + dir + "/audit");
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_TRUE(fs::is_symlink(dir + "/audit/report.md"));
  EXPECT_NE(read_text(dir + "/real/report.md").find("# "), std::string::npos);
}

}  // namespace
}  // namespace probity::test
