// `probity score` reads a file in chunks of 512 tasks even for metrics that need the whole file
// (fitted on it, negatives from all its tasks): it fits them in passes over the file, then
// scores chunk by chunk. The output must be byte-identical to scoring the loaded
// file, which a pipe forces (it cannot be read twice).
#include <fcntl.h>
#include <gtest/gtest.h>
#include <sys/stat.h>
#include <unistd.h>

#include <atomic>
#include <cerrno>
#include <chrono>
#include <csignal>
#include <filesystem>
#include <fstream>
#include <nlohmann/json.hpp>
#include <string>
#include <thread>
#include <vector>

#include "cli_runner.hpp"
#include "test_paths.hpp"

namespace probity::test {
namespace {

// `tasks` tasks made from the SummEval sample with new ids, `candidates` candidates each, in
// three groups plus one task alone (no negatives: its variational items are undefined).
std::string make_dataset(const std::string& path, std::size_t tasks, std::size_t candidates,
                         const std::string& prefix) {
  std::ifstream in(data_path("summeval/summeval_sample20.jsonl"));
  std::vector<nlohmann::ordered_json> sample;
  for (std::string line; std::getline(in, line);)
    sample.push_back(nlohmann::ordered_json::parse(line));
  std::ofstream out(path);
  for (std::size_t t = 0; t < tasks; ++t) {
    auto task = sample[t % sample.size()];
    task["task_id"] = prefix + std::to_string(t) + "-" + task["task_id"].get<std::string>();
    task["group"] = t == 7 ? std::string("alone") : "g" + std::to_string(t % 3);
    auto& cands = task["candidates"];
    cands.erase(cands.begin() + static_cast<std::ptrdiff_t>(candidates), cands.end());
    out << task.dump() << '\n';
  }
  return path;
}

// Runs `probity score` with every --data file given through a named pipe (so it is loaded
// whole), writing each file into its pipe from a thread; the trailer then names the pipes,
// which are replaced by the files' paths.
RunResult score_through_pipes(const std::vector<std::string>& files, const std::string& args,
                              const std::string& out, const std::string& dir) {
  std::signal(SIGPIPE, SIG_IGN);  // a run that fails early closes its pipes
  std::vector<std::string> pipes;
  std::string data;
  for (std::size_t i = 0; i < files.size(); ++i) {
    pipes.push_back(dir + "/pipe" + std::to_string(i));
    EXPECT_EQ(mkfifo(pipes.back().c_str(), 0600), 0);
    data += " --data " + pipes.back();
  }
  std::atomic<bool> done{false};
  std::vector<std::thread> writers;
  for (std::size_t i = 0; i < files.size(); ++i)
    writers.emplace_back([&, i] {
      int fd = -1;
      while (fd < 0 && !done) {  // no reader yet: ENXIO
        fd = open(pipes[i].c_str(), O_WRONLY | O_NONBLOCK);
        if (fd < 0) std::this_thread::sleep_for(std::chrono::milliseconds(5));
      }
      if (fd < 0) return;
      fcntl(fd, F_SETFL, fcntl(fd, F_GETFL) & ~O_NONBLOCK);
      const std::string text = read_text(files[i]);
      for (std::size_t at = 0; at < text.size();) {
        const ssize_t n = write(fd, text.data() + at, text.size() - at);
        if (n <= 0) break;
        at += static_cast<std::size_t>(n);
      }
      close(fd);
    });
  RunResult r = run_probity("score" + data + " " + args + " --out " + out);
  done = true;
  for (auto& w : writers) w.join();
  std::string text = read_text(out);
  for (std::size_t i = 0; i < files.size(); ++i)
    for (std::size_t at; (at = text.find(pipes[i])) != std::string::npos;)
      text.replace(at, pipes[i].size(), files[i]);
  std::ofstream(out, std::ios::binary) << text;
  return r;
}

// Streamed and loaded runs write the same bytes and print the same summary.
void expect_streamed_equals_loaded(const std::vector<std::string>& files, const std::string& args,
                                   const std::string& dir, const std::string& name) {
  SCOPED_TRACE(name + ": " + args);
  std::string data;
  for (const auto& f : files) data += " --data " + f;
  const std::string streamed = dir + "/" + name + "-streamed.jsonl";
  const std::string loaded = dir + "/" + name + "-loaded.jsonl";
  const RunResult s = run_probity("score" + data + " " + args + " --out " + streamed);
  ASSERT_EQ(s.exit_code, 0) << s.err;
  const std::string pipes = dir + "/" + name + "-pipes";
  std::filesystem::create_directories(pipes);
  const RunResult l = score_through_pipes(files, args, loaded, pipes);
  ASSERT_EQ(l.exit_code, 0) << l.err;
  const std::string text = read_text(streamed);
  EXPECT_GT(text.size(), 1000u);
  EXPECT_TRUE(text == read_text(loaded)) << "streamed and loaded outputs differ";
  EXPECT_EQ(s.out, l.out);
}

class ScoreStreaming : public ::testing::Test {
 protected:
  static void SetUpTestSuite() {
    dir_ = new std::string(temp_dir("score-streaming"));
    // Two chunks each: one candidate per task, or two (more calibration pairs than it keeps).
    big1_ = new std::string(make_dataset(*dir_ + "/big1.jsonl", 530, 1, "b"));
    big_ = new std::string(make_dataset(*dir_ + "/big.jsonl", 530, 2, "b"));
    small_ = new std::string(make_dataset(*dir_ + "/small.jsonl", 30, 3, "s"));
  }
  static void TearDownTestSuite() {
    delete dir_;
    delete big1_;
    delete big_;
    delete small_;
  }
  static std::string* dir_;
  static std::string* big1_;
  static std::string* big_;
  static std::string* small_;
};
std::string* ScoreStreaming::dir_ = nullptr;
std::string* ScoreStreaming::big1_ = nullptr;
std::string* ScoreStreaming::big_ = nullptr;
std::string* ScoreStreaming::small_ = nullptr;

TEST_F(ScoreStreaming, EachMiPresetWritesTheBytesOfTheLoadedFile) {
  for (const char* preset : {"gem", "gppm-j", "tvd-mi", "stmt-tv"})
    expect_streamed_equals_loaded({*big1_}, std::string("--metric ") + preset, *dir_, preset);
}

TEST_F(ScoreStreaming, PresetsTogetherShardsAndSeveralFiles) {
  const std::string all =
      "--metric gem --metric gppm-j --metric tvd-mi --metric stmt-tv --metric bleu";
  expect_streamed_equals_loaded({*big_}, all, *dir_, "all");
  expect_streamed_equals_loaded({*big_}, all + " --shard 1/3", *dir_, "shard");
  // Each file is fitted on by itself.
  expect_streamed_equals_loaded({*small_, *big_}, all, *dir_, "files");
}

}  // namespace
}  // namespace probity::test
