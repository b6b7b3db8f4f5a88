// `probity score`'s corpus table as sacreBLEU prints it: a row per system (several --hyp files)
// and the pooled row labelled as such, BLEU's breakdown, nrefs:<count>, -m and -b, and '-'
// (standard input) for the plain-text input flags.
#include <gtest/gtest.h>

#include <cstdlib>
#include <fstream>
#include <nlohmann/json.hpp>
#include <sstream>
#include <string>
#include <vector>

#include "cli_runner.hpp"
#include "test_paths.hpp"

namespace probity::test {
namespace {

// The sacreBLEU 2.6.0 golden: 300 hypotheses, 11 reference streams, corpus BLEU of the first
// stream and of all eleven with the statistics behind them.
const nlohmann::json& golden() {
  static const nlohmann::json g = [] {
    std::ifstream in(golden_path("lexical/corpus.json"));
    return nlohmann::json::parse(in);
  }();
  return g;
}

std::string write_lines(const std::string& path, const nlohmann::json& lines, std::size_t begin,
                        std::size_t end) {
  std::ofstream out(path, std::ios::binary);
  for (std::size_t i = begin; i < end; ++i) out << lines[i].get<std::string>() << '\n';
  return path;
}

std::vector<std::string> lines_of(const std::string& text) {
  std::vector<std::string> out;
  std::istringstream in(text);
  for (std::string line; std::getline(in, line);) out.push_back(line);
  return out;
}

// The corpus lines of a run (on stderr when the records go to stdout).
std::vector<std::string> corpus_lines(const std::string& text) {
  std::vector<std::string> out;
  for (const auto& l : lines_of(text))
    if (l.find(" corpus ") != std::string::npos) out.push_back(l);
  return out;
}

TEST(ScoreCorpus, BleuBreakdownAndReferenceCountAsSacrebleu) {
  const std::string dir = temp_dir("score_corpus_breakdown");
  const auto& g = golden();
  const auto hyp = write_lines(dir + "/sys.txt", g["hyps"], 0, 300);
  std::string refs;
  for (std::size_t r = 0; r < g["refs_streams"].size(); ++r)
    refs += " --ref " +
            write_lines(dir + "/ref" + std::to_string(r) + ".txt", g["refs_streams"][r], 0, 300);

  auto r = run_probity("score --hyp " + hyp + " --ref " + dir + "/ref0.txt -m bleu --out " + dir +
                       "/one.jsonl");
  ASSERT_EQ(r.exit_code, 0) << r.err;
  auto lines = corpus_lines(r.out);
  ASSERT_EQ(lines.size(), 1u) << r.out;
  EXPECT_NE(lines[0].find("corpus     9.7209  n=300  bleu|nrefs:1|case:mixed|eff:no|tok:13a"),
            std::string::npos)
      << lines[0];
  // sacreBLEU: BLEU = 9.72 30.7/11.2/6.4/4.1 (BP = 1.000 ratio = 1.307 hyp_len = 19303 ...)
  EXPECT_NE(lines[0].find(
                "  30.7/11.2/6.4/4.1 (BP = 1.000 ratio = 1.307 hyp_len = 19303 ref_len = 14764)"),
            std::string::npos)
      << lines[0];

  r = run_probity("score --hyp " + hyp + refs + " -m bleu --out " + dir + "/all.jsonl");
  ASSERT_EQ(r.exit_code, 0) << r.err;
  lines = corpus_lines(r.out);
  ASSERT_EQ(lines.size(), 1u) << r.out;
  EXPECT_NE(lines[0].find("corpus    22.3867  n=300  bleu|nrefs:11|"), std::string::npos)
      << lines[0];
  EXPECT_NE(lines[0].find("63.3/29.7/15.5/8.7 (BP = 1.000 ratio = 1.079 hyp_len = 19303 "
                          "ref_len = 17895)"),
            std::string::npos)
      << lines[0];
  // The records keep the metric's own signature.
  EXPECT_NE(read_text(dir + "/all.jsonl").find("bleu|nrefs:all|"), std::string::npos);
}

TEST(ScoreCorpus, ReferenceCountThatVariesIsVar) {
  const std::string dir = temp_dir("score_corpus_var");
  std::ofstream(dir + "/d.jsonl")
      << R"({"task_id": "a", "references": ["the cat sat"], "candidates": [{"id": "x", "text": "the cat"}]})"
      << '\n'
      << R"({"task_id": "b", "references": ["a dog ran", "the dog ran"], "candidates": [{"id": "x", "text": "a dog"}]})"
      << '\n';
  auto r = run_probity("score --data " + dir + "/d.jsonl -m chrf --out " + dir + "/s.jsonl");
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_NE(r.out.find("chrf|nrefs:var|"), std::string::npos) << r.out;
}

TEST(ScoreCorpus, OneRowPerSystemAndThePooledRowLabelled) {
  const std::string dir = temp_dir("score_corpus_systems");
  const auto& g = golden();
  const auto ref = write_lines(dir + "/ref.txt", g["refs_streams"][0], 0, 100);
  std::vector<std::string> systems;
  for (std::size_t s = 0; s < 3; ++s)
    systems.push_back(write_lines(dir + "/M" + std::to_string(s) + ".hyp.txt", g["hyps"], 100 * s,
                                  100 * s + 100));

  std::string hyps;
  for (const auto& s : systems) hyps += " --hyp " + s;
  auto r = run_probity("score" + hyps + " --ref " + ref + " -m bleu chrf");
  ASSERT_EQ(r.exit_code, 0) << r.err;
  const auto lines = corpus_lines(r.err);  // records on stdout, the table on stderr
  ASSERT_EQ(lines.size(), 8u) << r.err;    // (3 systems + pooled) x 2 metrics
  for (std::size_t m = 0; m < 2; ++m) {
    for (std::size_t s = 0; s < 3; ++s) {
      const std::string& line = lines[4 * m + s];
      EXPECT_NE(line.find(" M" + std::to_string(s) + ".hyp "), std::string::npos) << line;
      EXPECT_NE(line.find("n=100 "), std::string::npos) << line;
    }
    EXPECT_NE(lines[4 * m + 3].find("(pooled: 3 systems)"), std::string::npos) << lines[4 * m + 3];
    EXPECT_NE(lines[4 * m + 3].find("n=300 "), std::string::npos) << lines[4 * m + 3];
  }

  // Each system's row is that system scored alone; -b prints the systems' scores in the table's
  // order and, as sacreBLEU -b, no unlabelled pooled line after them.
  r = run_probity("score" + hyps + " --ref " + ref + " -m bleu -b");
  ASSERT_EQ(r.exit_code, 0) << r.err;
  const auto table = lines_of(r.out);
  ASSERT_EQ(table.size(), 3u) << r.out;
  for (std::size_t s = 0; s < 3; ++s) {
    auto alone = run_probity("score --hyp " + systems[s] + " --ref " + ref + " -m bleu -b");
    ASSERT_EQ(alone.exit_code, 0) << alone.err;
    EXPECT_EQ(alone.out, table[s] + "\n");
  }
}

TEST(ScoreCorpus, ScoreOnlyPrintsJustTheNumberAndNoRecords) {
  const std::string dir = temp_dir("score_corpus_b");
  const auto& g = golden();
  const auto hyp = write_lines(dir + "/h.txt", g["hyps"], 0, 300);
  const auto ref = write_lines(dir + "/r.txt", g["refs_streams"][0], 0, 300);
  auto r = run_probity("score --hyp " + hyp + " --ref " + ref + " --metrics bleu --score-only");
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_EQ(r.out, "9.7209\n");
  // With --out the records are written there.
  r = run_probity("score --hyp " + hyp + " --ref " + ref + " -m bleu -b --out " + dir + "/s.jsonl");
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_EQ(r.out, "9.7209\n");
  EXPECT_EQ(lines_of(read_text(dir + "/s.jsonl")).size(), 301u);  // 300 records, the end record
}

TEST(ScoreCorpus, StandardInputForHypOrRef) {
  const std::string dir = temp_dir("score_corpus_stdin");
  const auto& g = golden();
  const auto hyp = write_lines(dir + "/h.txt", g["hyps"], 0, 300);
  const auto ref = write_lines(dir + "/r.txt", g["refs_streams"][0], 0, 300);
  const std::string bin = probity_binary();
  auto run = [&](const std::string& cmd) {
    const int code = std::system((cmd + " >" + dir + "/out 2>" + dir + "/err").c_str());
    return std::make_pair(code, read_text(dir + "/out") + read_text(dir + "/err"));
  };
  auto [code, out] =
      run("cat " + hyp + " | " + bin + " score --hyp - --ref " + ref + " -m bleu -b");
  EXPECT_EQ(code, 0) << out;
  EXPECT_EQ(out, "9.7209\n");
  std::tie(code, out) =
      run("cat " + ref + " | " + bin + " score --hyp " + hyp + " --ref - -m bleu -b");
  EXPECT_EQ(code, 0) << out;
  EXPECT_EQ(out, "9.7209\n");
  std::tie(code, out) = run("cat " + ref + " | " + bin + " score --hyp - --ref - -m bleu -b");
  EXPECT_NE(code, 0) << out;
  EXPECT_NE(out.find("at most one plain-text file can be read from standard input"),
            std::string::npos)
      << out;
}

}  // namespace
}  // namespace probity::test
