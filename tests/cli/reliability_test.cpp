// Output is complete or absent: atomic writes, checked writes, inputs never overwritten, files
// that are cut or foreign refused by the readers.
#include <gtest/gtest.h>
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <filesystem>
#include <fstream>
#include <nlohmann/json.hpp>
#include <thread>

#include "cli_runner.hpp"
#include "llm/mock_server.hpp"
#include "test_paths.hpp"

namespace probity::test {
namespace {

namespace fs = std::filesystem;

std::string sample() {
  return data_path("summeval/summeval_sample20.jsonl");
}

std::vector<std::string> files_in(const std::string& dir) {
  std::vector<std::string> out;
  for (const auto& e : fs::directory_iterator(dir)) out.push_back(e.path().filename().string());
  std::sort(out.begin(), out.end());
  return out;
}

// 1: `score --out` named like its input used to empty the dataset before reading it.
TEST(Reliability, AnOutputThatIsAlsoAnInputIsAUsageError) {
  const std::string dir = temp_dir("rel-same");
  const std::string x = dir + "/x.jsonl";
  fs::copy_file(sample(), x);
  const std::string before = read_text(x);
  auto r = run_probity("score --data " + x + " --metric bleu --out " + x);
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_NE(r.err.find("is also an input"), std::string::npos) << r.err;
  EXPECT_EQ(read_text(x), before);
  // The same file under another name too.
  r = run_probity("score --data " + x + " --metric bleu --out " + dir + "/../" +
                  fs::path(dir).filename().string() + "/x.jsonl");
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_EQ(run_probity("perturb --data " + x + " --out " + x).exit_code, 2);
  EXPECT_EQ(read_text(x), before);
}

// A failed run leaves the previous output as it was, and no temporary behind.
TEST(Reliability, AFailedRunLeavesThePreviousOutputUntouched) {
  const std::string dir = temp_dir("rel-fail");
  const std::string out = dir + "/scores.jsonl";
  ASSERT_EQ(run_probity("score --data " + sample() + " --metric bleu --out " + out).exit_code, 0);
  const std::string good = read_text(out);
  // Invalid input on line 5 (reproduction 3: it used to leave the first chunk's records).
  std::string text = read_text(sample());
  std::size_t pos = 0;
  for (int i = 0; i < 4; ++i) pos = text.find('\n', pos) + 1;
  text.insert(pos, "{\"task_id\": 3}\n");
  std::ofstream(dir + "/bad.jsonl") << text;
  auto r = run_probity("score --data " + dir + "/bad.jsonl --metric bleu --out " + out);
  EXPECT_EQ(r.exit_code, 3);
  EXPECT_NE(r.err.find("bad.jsonl:5"), std::string::npos) << r.err;
  EXPECT_EQ(read_text(out), good);
  EXPECT_EQ(files_in(dir), (std::vector<std::string>{"bad.jsonl", "scores.jsonl"}));
}

// 2: write errors used to be ignored (exit 0 on /dev/full, a file cut mid-line on a full disk).
TEST(Reliability, WriteErrorsExitFourWithThePathAndTheReason) {
  for (const std::string& cmd : std::vector<std::string>{
           "score --data " + sample() + " --metric bleu --out /dev/full",
           "score --data " + sample() + " --metric bleu --metric expert --explain /dev/full",
           "perturb --data " + sample() + " --degrade S --manipulate none --out /dev/full"}) {
    auto r = run_probity(cmd);
    EXPECT_EQ(r.exit_code, 4) << cmd << "\n" << r.err;
    EXPECT_NE(r.err.find("No space left on device"), std::string::npos) << cmd << "\n" << r.err;
  }
  // Standard output too (records, tables, help).
  const std::string err = temp_dir("rel-stdout") + "/err";
  for (const std::string& args : std::vector<std::string>{
           "score --data " + sample() + " --metric bleu", "metrics", "--help"}) {
    const int status =
        std::system((probity_binary() + " " + args + " >/dev/full 2>" + err).c_str());
    EXPECT_EQ(WEXITSTATUS(status), 4) << args;
    EXPECT_NE(read_text(err).find("No space left on device"), std::string::npos)
        << args << ": " << read_text(err);
  }
  // A file-size limit is a full disk that arrives mid-file: the target keeps its old content.
  const std::string dir = temp_dir("rel-full");
  const std::string out = dir + "/big.jsonl";
  std::ofstream(out) << "previous\n";
  const std::string cmd = "sh -c 'trap \"\" XFSZ; ulimit -f 40; " + probity_binary() +
                          " score --data " + data_path("summeval/summeval.jsonl") +
                          " --metric bleu --metric rougeL --out " + out + "' 2>" + dir + "/err";
  const int status = std::system(cmd.c_str());
  EXPECT_EQ(WEXITSTATUS(status), 4);
  EXPECT_NE(read_text(dir + "/err").find("File too large"), std::string::npos);
  EXPECT_EQ(read_text(out), "previous\n");
  EXPECT_EQ(files_in(dir), (std::vector<std::string>{"big.jsonl", "err"}));
}

// 3: a killed run leaves no partial file for `correlate` to accept.
TEST(Reliability, AnInterruptedRunLeavesNoPartialFile) {
  MockServer server;
  server.set_latency_ms(150);
  server.set_handler([](const nlohmann::json&) { return std::string("{\"rating\": 3}"); });
  const std::string dir = temp_dir("rel-kill");
  const std::string out = dir + "/scores.jsonl";
  const pid_t pid = fork();
  if (pid == 0) {
    const std::string args = "score --data " + sample() + " --metric llm-judge --llm-base-url " +
                             server.base_url() + " --llm-model m --llm-concurrency 2 --out " + out +
                             " 2>/dev/null";
    execl("/bin/sh", "sh", "-c", ("exec " + probity_binary() + " " + args).c_str(), nullptr);
    _exit(127);
  }
  // Let it write a while (the temporary exists), then stop it as Ctrl-C or a scheduler would.
  for (int i = 0; i < 100 && server.count() < 4; ++i)
    std::this_thread::sleep_for(std::chrono::milliseconds(20));
  ASSERT_GE(server.count(), 1u);
  kill(pid, SIGINT);
  int status = 0;
  waitpid(pid, &status, 0);
  EXPECT_TRUE(WIFSIGNALED(status) && WTERMSIG(status) == SIGINT) << status;
  EXPECT_TRUE(files_in(dir).empty()) << fs::path(dir).string();
}

// Readers refuse files that do not cover their dataset (a run cut short, another dataset).
TEST(Reliability, ReadersRefuseIncompleteOrForeignScoreFiles) {
  const std::string dir = temp_dir("rel-read");
  const std::string scores = dir + "/s.jsonl";
  ASSERT_EQ(run_probity("score --data " + sample() + " --metric bleu --out " + scores).exit_code,
            0);
  const std::string text = read_text(scores);
  // The first 100 records only, as a cut file would be.
  std::string cut;
  std::size_t pos = 0;
  for (int i = 0; i < 100; ++i) {
    const auto end = text.find('\n', pos) + 1;
    cut += text.substr(pos, end - pos);
    pos = end;
  }
  std::ofstream(dir + "/cut.jsonl") << cut;
  auto r = run_probity("correlate --data " + sample() + " --scores " + dir + "/cut.jsonl");
  EXPECT_EQ(r.exit_code, 3);
  EXPECT_NE(r.err.find("scores 100 of the dataset's 320 items"), std::string::npos) << r.err;
  EXPECT_NE(r.err.find("no end record"), std::string::npos) << r.err;
  r = run_probity("correlate --allow-missing --bootstrap 20 --data " + sample() + " --scores " +
                  dir + "/cut.jsonl");
  EXPECT_EQ(r.exit_code, 0) << r.err;
  EXPECT_NE(r.err.find("220 of 320 items have no score of 'bleu'"), std::string::npos) << r.err;
  // A record edited away under an intact end record.
  std::string edited = text;
  edited.erase(0, edited.find('\n') + 1);
  std::ofstream(dir + "/edited.jsonl") << edited;
  r = run_probity("correlate --allow-missing --data " + sample() + " --scores " + dir +
                  "/edited.jsonl");
  EXPECT_EQ(r.exit_code, 3);
  EXPECT_NE(r.err.find("holds 319 records but its end record says 320"), std::string::npos)
      << r.err;
  // Scores of another dataset (the same ids, one text changed).
  std::string other = read_text(sample());
  other.replace(other.find("\"text\": \"", other.find("\"candidates\"")) + 9, 3, "XYZ");
  std::ofstream(dir + "/other.jsonl") << other;
  r = run_probity("correlate --data " + dir + "/other.jsonl --scores " + scores);
  EXPECT_EQ(r.exit_code, 3);
  EXPECT_NE(r.err.find("these are the scores of"), std::string::npos) << r.err;
  // `audit --metric scores:...` and `compare` check the same way.
  r = run_probity("compare --data " + sample() + " --scores " + dir +
                  "/cut.jsonl --metric bleu --metric bleu");
  EXPECT_EQ(r.exit_code, 3) << r.err;
  r = run_probity("audit --data " + sample() + " --metric scores:" + dir + "/cut.jsonl,data=" +
                  sample() + " --degrade none --manipulate none --out " + dir + "/audit");
  EXPECT_EQ(r.exit_code, 3) << r.err;
}

}  // namespace
}  // namespace probity::test
