// `probity significance` (sacreBLEU's --paired-bs / --paired-ar) on plain-text systems: the cells
// sacreBLEU's CLI prints (tests/golden/significance/paired.json), --json equal to sacreBLEU's
// numbers, the same bytes at any --threads, and errors naming the file and line; any metric and
// the clusters of all pairs against the NumPy reference (significance/any_metric.json).
#include <fmt/format.h>
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <fstream>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "cli_runner.hpp"
#include "llm/mock_server.hpp"
#include "test_paths.hpp"

namespace probity::test {
namespace {

const nlohmann::json& golden() {
  static const nlohmann::json j = [] {
    std::ifstream in(golden_path("significance/paired.json"));
    return nlohmann::json::parse(in);
  }();
  return j;
}

const nlohmann::json& golden_case(const std::string& name) {
  for (const auto& c : golden()["cases"])
    if (c["name"] == name) return c;
  throw std::runtime_error("no golden case " + name);
}

std::string write_lines(const std::string& path, const std::vector<std::string>& lines) {
  std::ofstream out(path, std::ios::binary);
  for (const auto& l : lines) out << l << "\n";
  return path;
}
std::string write_lines(const std::string& path, const nlohmann::json& lines) {
  return write_lines(path, lines.get<std::vector<std::string>>());
}

// --hyp per system (named as in the golden case), --ref per stream.
std::string inputs_of(const nlohmann::json& c, const std::string& dir) {
  std::string args;
  for (const auto& sys : c["systems"])
    args += " --hyp " + write_lines(dir + "/" + sys[0].get<std::string>() + ".txt", sys[1]);
  for (std::size_t r = 0; r < c["refs"].size(); ++r)
    args += " --ref " + write_lines(dir + "/ref" + std::to_string(r) + ".txt", c["refs"][r]);
  return args;
}

std::string metric_flags(const nlohmann::json& c) {
  std::string args;
  for (const auto& [name, _] : c["results"].items()) args += " -m " + name;
  return args;
}

TEST(CliSignificance, PrintsSacrebleusCellsForBothTests) {
  for (const char* name : {"summeval20_2refs_bs_seed7", "summeval20_2refs_ar_seed7"}) {
    const auto& c = golden_case(name);
    const std::string dir = temp_dir(std::string("cli_sig_") + name);
    const bool bs = c["test"] == "bs";
    const std::string n = std::to_string(c["n"].get<int>());
    const auto r =
        run_probity("significance" + inputs_of(c, dir) + metric_flags(c) +
                    (bs ? " --paired-bs --paired-bs-n " + n : " --paired-ar --paired-ar-n " + n) +
                    " --seed " + std::to_string(c["seed"].get<int>()));
    ASSERT_EQ(r.exit_code, 0) << r.err;
    for (const auto& [metric, want] : c["results"].items()) {
      for (const auto& cell : want["cells"])
        EXPECT_NE(r.out.find(cell.get<std::string>()), std::string::npos)
            << metric << ": " << cell << "\n"
            << r.out;
      EXPECT_NE(r.out.find(metric + (bs ? " (μ ± 95% CI)" : "")), std::string::npos) << r.out;
    }
    EXPECT_NE(r.out.find("Baseline: M0"), std::string::npos) << r.out;
  }
}

TEST(CliSignificance, JsonEqualsSacrebleuAndIsTheSameAtAnyThreadCount) {
  const auto& c = golden_case("summeval100_bs");
  const std::string dir = temp_dir("cli_sig_json");
  // sacreBLEU's defaults: --paired-bs-n 1000, seed 12345.
  const std::string cmd =
      "significance" + inputs_of(c, dir) + metric_flags(c) + " --paired-bs --json --threads ";
  const auto one = run_probity(cmd + "1");
  ASSERT_EQ(one.exit_code, 0) << one.err;
  const auto two = run_probity(cmd + "2");
  ASSERT_EQ(two.exit_code, 0) << two.err;
  EXPECT_EQ(one.out, two.out);
  const auto doc = nlohmann::json::parse(one.out);
  EXPECT_EQ(doc["test"], "bs");
  EXPECT_EQ(doc["samples"], 1000);
  EXPECT_EQ(doc["seed"], 12345);
  EXPECT_EQ(doc["baseline"], "M0");
  ASSERT_EQ(doc["metrics"].size(), c["results"].size());
  for (const auto& m : doc["metrics"]) {
    const auto& want = c["results"][m["metric"].get<std::string>()]["systems"];
    ASSERT_EQ(m["systems"].size(), want.size());
    for (std::size_t s = 0; s < want.size(); ++s) {
      const auto& g = m["systems"][s];
      const auto& w = want[s];
      for (const char* key : {"score", "mean", "ci"})
        EXPECT_NEAR(g[key].get<double>(), w[key].get<double>(),
                    1e-9 * std::max(1.0, std::abs(w[key].get<double>())))
            << m["metric"] << " " << s << " " << key;
      if (s == 0)
        EXPECT_TRUE(g["p_value"].is_null());
      else
        EXPECT_EQ(g["p_value"].get<double>(), w["p_value"].get<double>()) << m["metric"] << s;
    }
    EXPECT_NE(m["signature"].get<std::string>().find("|bs:1000|seed:12345"), std::string::npos);
  }
}

TEST(CliSignificance, BadInputIsAnErrorNamingFileAndLine) {
  const std::string dir = temp_dir("cli_sig_bad");
  const auto base =
      write_lines(dir + "/base.txt", std::vector<std::string>{"a b c", "d e f", "g h i"});
  const auto sys = write_lines(dir + "/sys.txt", std::vector<std::string>{"a b c", "d e"});
  const auto ref =
      write_lines(dir + "/ref.txt", std::vector<std::string>{"a b c", "d e f", "g h i"});
  auto r = run_probity("significance --hyp " + base + " --hyp " + sys + " --ref " + ref +
                       " --paired-bs");
  EXPECT_EQ(r.exit_code, 3) << r.err;
  EXPECT_NE(r.err.find("sys.txt:3"), std::string::npos) << r.err;

  // One system only; both tests; --clusters and --no-clusters.
  r = run_probity("significance --hyp " + base + " --ref " + ref + " --paired-bs");
  EXPECT_EQ(r.exit_code, 2) << r.err;
  EXPECT_NE(r.err.find("at least two systems"), std::string::npos) << r.err;
  const auto two = write_lines(dir + "/two.txt", std::vector<std::string>{"a b c", "d e f", "g h"});
  const std::string both = " --hyp " + base + " --hyp " + two + " --ref " + ref;
  r = run_probity("significance" + both + " --paired-bs --paired-ar");
  EXPECT_EQ(r.exit_code, 2) << r.err;
  r = run_probity("significance" + both + " --clusters --no-clusters");
  EXPECT_EQ(r.exit_code, 2) << r.err;
  // Neither test: approximate randomization (sacreBLEU's PairedTest default); two systems: no
  // clusters unless asked; any metric.
  r = run_probity("significance" + both + " --paired-ar-n 50 -m rouge1 --json");
  ASSERT_EQ(r.exit_code, 0) << r.err;
  auto doc = nlohmann::json::parse(r.out);
  EXPECT_EQ(doc["test"], "ar");
  EXPECT_EQ(doc["clusters"], false);
  EXPECT_EQ(doc["metrics"][0]["metric"], "rouge1.f");
  EXPECT_EQ(doc["metrics"][0]["aggregation"], "mean");
  EXPECT_TRUE(doc["metrics"][0]["clusters"].is_null());
  r = run_probity("significance" + both + " --paired-ar --paired-ar-n 50 --baseline two");
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_NE(r.out.find("Baseline: two"), std::string::npos) << r.out;
  EXPECT_EQ(r.out.find("Significance clusters"), std::string::npos) << r.out;
  r = run_probity("significance" + both + " --paired-ar-n 50 --clusters");
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_NE(r.out.find("Significance clusters"), std::string::npos) << r.out;
}

// SummEval's 16 systems with the defaults (approximate randomization, 10000 trials, seed 12345,
// every pair, Holm, alpha 0.05) on rougeL.f computed and read from a scores file: the NumPy
// reference's numbers (tests/golden/significance/any_metric.json, case rougeL_ar_holm).
TEST(CliSignificance, AnyMetricClustersEqualTheNumpyReference) {
  std::ifstream gin(golden_path("significance/any_metric.json"));
  const auto golden_any = nlohmann::json::parse(gin);
  const nlohmann::json* c = nullptr;
  for (const auto& x : golden_any["cases"])
    if (x["name"] == "rougeL_ar_holm") c = &x;
  ASSERT_NE(c, nullptr);
  const std::string data = data_path("summeval/summeval.jsonl");
  const std::string scores = "scores:" + golden_path("meta_eval/summeval_scores.jsonl") +
                             ",data=" + data + ",metric=rougeL.f";
  const auto r = run_probity("significance --data " + data + " -m rougeL.f -m '" + scores +
                             "' --json --threads 2");
  ASSERT_EQ(r.exit_code, 0) << r.err;
  const auto doc = nlohmann::json::parse(r.out);
  EXPECT_EQ(doc["test"], "ar");
  EXPECT_EQ(doc["samples"], 10000);
  EXPECT_EQ(doc["correction"], "holm");
  EXPECT_EQ(doc["systems"], (*c)["systems"]);
  const auto& want = (*c)["results"];
  ASSERT_EQ(doc["metrics"].size(), 2u);
  for (const auto& m : doc["metrics"]) {
    EXPECT_EQ(m["aggregation"], "mean");
    const std::size_t n = want["systems"].size();
    for (std::size_t s = 0; s < n; ++s) {
      const double w = want["systems"][s]["score"].get<double>();
      EXPECT_NEAR(m["systems"][s]["score"].get<double>(), w, 1e-9 * std::abs(w)) << s;
      for (std::size_t t = 0; t < n; ++t) {
        if (s == t) continue;
        EXPECT_EQ(m["clusters"]["p"][s][t].get<double>(), want["pairwise"][s][t].get<double>())
            << m["metric"] << " " << s << "," << t;
      }
    }
    for (std::size_t k = 0; k < n; ++k) {
      const auto& row = m["clusters"]["ranking"][k];
      const auto s = want["order"][k].get<std::size_t>();
      EXPECT_EQ(row["system"], (*c)["systems"][s]) << k;
      EXPECT_EQ(row["rank"], want["rank"][s]) << k;
    }
  }
  // Both named: the scores file's own record name is taken, so its spec names it.
  EXPECT_EQ(doc["metrics"][0]["metric"], "rougeL.f");
  EXPECT_NE(doc["metrics"][1]["metric"].get<std::string>().find("scores:"), std::string::npos);
}

// The text: sacreBLEU's table first, then the clusters; Holm over 120 pairs with 1000 resamples
// can separate nothing, which a warning says.
TEST(CliSignificance, ClusterTableFollowsTheBaselineTable) {
  const std::string data = data_path("summeval/summeval_sample20.jsonl");
  auto r = run_probity("significance --data " + data + " -m rougeL.f -m ter --paired-bs");
  ASSERT_EQ(r.exit_code, 0) << r.err;
  const auto table = r.out.find("Baseline: M0");
  const auto clusters = r.out.find("Significance clusters: every pair of the 16 systems");
  const auto signatures = r.out.find("Metric signatures");
  ASSERT_NE(table, std::string::npos) << r.out;
  ASSERT_NE(clusters, std::string::npos) << r.out;
  EXPECT_LT(table, clusters);
  EXPECT_LT(clusters, signatures);
  EXPECT_NE(r.out.find("Holm-adjusted p <= 0.05"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("lower is better for ter"), std::string::npos) << r.out;
  EXPECT_NE(r.err.find("warning: Holm over 120 pairs cannot separate"), std::string::npos) << r.err;
  r = run_probity("significance --data " + data + " -m rougeL.f --paired-bs --no-clusters");
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_EQ(r.out.find("Significance clusters"), std::string::npos) << r.out;
  EXPECT_EQ(r.err.find("warning"), std::string::npos) << r.err;
}

// Systems as the candidates of a dataset's tasks (the candidates' system names), and a task
// without one of them: an error naming the file and the task's line.
TEST(CliSignificance, DatasetSystemsAndAMissingCandidate) {
  auto r = run_probity("significance --data " + data_path("summeval/summeval_sample20.jsonl") +
                       " -m bleu -m ter --paired-ar --paired-ar-n 200 --baseline M1 --json");
  ASSERT_EQ(r.exit_code, 0) << r.err;
  const auto doc = nlohmann::json::parse(r.out);
  EXPECT_EQ(doc["baseline"], "M1");
  EXPECT_EQ(doc["items"], 20);
  ASSERT_EQ(doc["metrics"].size(), 2u);
  EXPECT_EQ(doc["metrics"][0]["systems"].size(), 16u);
  EXPECT_EQ(doc["metrics"][0]["systems"][0]["system"], "M1");
  EXPECT_TRUE(doc["metrics"][0]["systems"][0]["p_value"].is_null());
  EXPECT_FALSE(doc["metrics"][0]["systems"][1]["p_value"].is_null());

  const std::string dir = temp_dir("cli_sig_dataset");
  const std::string data = dir + "/tasks.jsonl";
  std::ofstream(data, std::ios::binary)
      << R"({"task_id": "a", "references": [{"id": "r", "text": "the cat sat"}], )"
      << R"("candidates": [{"id": "x", "system": "A", "text": "the cat"}, )"
      << R"({"id": "y", "system": "B", "text": "a cat sat"}]})"
      << "\n"
      << R"({"task_id": "b", "references": [{"id": "r", "text": "a dog ran"}], )"
      << R"("candidates": [{"id": "x", "system": "A", "text": "the dog ran"}]})"
      << "\n";
  r = run_probity("significance --data " + data + " --paired-bs");
  EXPECT_EQ(r.exit_code, 3) << r.err;
  EXPECT_NE(r.err.find("tasks.jsonl:2"), std::string::npos) << r.err;
  EXPECT_NE(r.err.find("task 'b' has no candidate of system 'B'"), std::string::npos) << r.err;
}

// `probity score --aggregate bootstrap`: rouge-score's BootstrapAggregator after
// np.random.seed(seed) over the ROUGE metrics in the order given
// (tests/golden/significance/rouge_bootstrap.json, case summeval300).
TEST(CliSignificance, ScoreAggregateBootstrapIsRougeScoresAggregator) {
  std::ifstream gin(golden_path("significance/rouge_bootstrap.json"));
  const auto golden_rouge = nlohmann::json::parse(gin);
  const nlohmann::json* c = nullptr;
  for (const auto& x : golden_rouge["cases"])
    if (x["name"] == "summeval300") c = &x;
  ASSERT_NE(c, nullptr);
  // Each item of lexical/sentence.jsonl after the 12 edge cases as a task (target: the first
  // reference), in the task format.
  const std::string dir = temp_dir("cli_sig_rouge");
  const std::string data = dir + "/items.jsonl";
  {
    std::ifstream in(golden_path("lexical/sentence.jsonl"));
    std::ofstream out(data, std::ios::binary);
    std::size_t i = 0;
    for (std::string line; std::getline(in, line); ++i) {
      if (i < 12 || line.empty()) continue;
      const auto item = nlohmann::json::parse(line);
      nlohmann::json task = {{"task_id", "t" + std::to_string(i)},
                             {"references", {{{"id", "r0"}, {"text", item["refs"][0]}}}},
                             {"candidates", {{{"id", "c"}, {"text", item["hyp"]}}}}};
      out << task.dump() << "\n";
    }
  }
  std::string metrics;
  for (const auto& t : (*c)["types"]) metrics += " --metric " + t.get<std::string>();
  const auto r =
      run_probity("score --data " + data + metrics +
                  " --aggregate bootstrap --bootstrap-seed 12345 --out " + dir + "/scores.jsonl");
  ASSERT_EQ(r.exit_code, 0) << r.err;
  for (const auto& t : (*c)["types"]) {
    const std::string type = t.get<std::string>();
    const auto& want = (*c)["aggregate"][type];
    const char* parts[] = {"p", "r", "f"};
    for (std::size_t m = 0; m < 3; ++m) {
      const std::string expect = fmt::format(
          "{:<24} bootstrap low {:.4f} mid {:.4f} high {:.4f}  n=300 samples=1000 "
          "confidence=0.95 seed=12345",
          type + "." + parts[m], want["low"][m].get<double>(), want["mid"][m].get<double>(),
          want["high"][m].get<double>());
      EXPECT_NE(r.out.find(expect), std::string::npos) << expect << "\n" << r.out;
    }
  }
  // Without a ROUGE metric, and with --shard: usage errors.
  auto bad = run_probity("score --data " + data + " --metric bleu --aggregate bootstrap");
  EXPECT_EQ(bad.exit_code, 2) << bad.err;
  EXPECT_NE(bad.err.find("give a ROUGE metric"), std::string::npos) << bad.err;
  bad = run_probity("score --data " + data + " --metric rouge1 --aggregate bootstrap --shard 0/2");
  EXPECT_EQ(bad.exit_code, 2) << bad.err;
}

// An LLM judge through the command's --llm-* flags: its ratings' item means, tested and clustered.
TEST(CliSignificance, LlmJudgeThroughTheLlmFlags) {
  MockServer server;
  server.set_handler([](const nlohmann::json& request) {
    const std::string prompt = request["messages"][0]["content"].get<std::string>();
    const auto b = prompt.find("CANDIDATE:\n<<<\n");
    const std::size_t length = b == std::string::npos ? 0 : prompt.find("\n>>>", b) - b;
    return nlohmann::json{{"rating", 1 + length % 5}}.dump();
  });
  const auto r =
      run_probity("significance --data " + data_path("summeval/summeval_sample20.jsonl") +
                  " -m llm-judge --llm-base-url " + server.base_url() +
                  " --llm-model m --paired-ar-n 200 --correction none --json");
  ASSERT_EQ(r.exit_code, 0) << r.err;
  // 16 systems x 20 tasks, one rating each but for texts asked already (the session's cache).
  EXPECT_GT(server.count(), 300u);
  EXPECT_LE(server.count(), 320u);
  const auto doc = nlohmann::json::parse(r.out);
  EXPECT_EQ(doc["metrics"][0]["metric"], "llm-judge");
  EXPECT_EQ(doc["metrics"][0]["aggregation"], "mean");
  EXPECT_EQ(doc["metrics"][0]["clusters"]["ranking"].size(), 16u);
  EXPECT_NE(r.err.find("requests"), std::string::npos) << r.err;  // the LLM usage table
}

}  // namespace
}  // namespace probity::test
