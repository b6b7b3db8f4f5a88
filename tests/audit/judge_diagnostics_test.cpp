// The judge bias battery (audit/judge_diagnostics.cpp). Judges with planted biases answer through
// a test server that speaks as vLLM does: one that always prefers the response shown first, one
// that prefers the longer response, and a pointwise one that rates by length; each is caught by
// `probity audit`. A judge without bias, simulated over 100 seeds, raises findings no more often
// than alpha allows.
#include "audit/judge_diagnostics.hpp"

#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <iostream>
#include <map>
#include <nlohmann/json.hpp>
#include <random>
#include <sstream>

#include "cli_runner.hpp"
#include "llm/fakes/fake_server.hpp"
#include "test_paths.hpp"

namespace probity::test {
namespace {

using nlohmann::json;

std::string marked(const std::string& prompt, const std::string& label) {
  const std::size_t start = prompt.find(label + ":\n<<<\n") + label.size() + 6;
  return prompt.substr(start, prompt.find("\n>>>", start) - start);
}

std::size_t words(const std::string& s) {
  std::istringstream in(s);
  std::size_t n = 0;
  for (std::string w; in >> w;) ++n;
  return n;
}

enum class Planted { kAlwaysFirst, kLonger, kRatesLength, kConstant };

std::string answer(const json& request, Planted judge) {
  if (judge == Planted::kConstant) return R"({"rating": 3})";
  const std::string prompt = request["messages"].front()["content"];
  if (judge == Planted::kRatesLength) {
    const std::string text = marked(prompt, "CANDIDATE");
    return json{{"rating", std::min<std::size_t>(5, 1 + words(text) / 15)}}.dump();
  }
  if (judge == Planted::kAlwaysFirst) return R"({"winner": "A"})";
  const std::string a = marked(prompt, "RESPONSE A"), b = marked(prompt, "RESPONSE B");
  return json{{"winner", a.size() >= b.size() ? "A" : "B"}}.dump();
}

struct Fake {
  explicit Fake(Planted judge) {
    FakeOptions o;
    o.flavour = Flavour::kVllm;
    o.reply = [judge](const json& r) { return answer(r, judge); };
    server = std::make_unique<FakeServer>(o);
  }
  std::string flags() const {
    return " --llm-base-url " + server->base_url() + " --llm-model fake-model";
  }
  std::unique_ptr<FakeServer> server;
};

// The candidates' texts of `items`, as the battery reads them.
std::vector<std::string_view> candidate_texts(const Dataset& ds, std::span<const ItemRef> items) {
  std::vector<std::string_view> texts;
  for (const auto& it : items) texts.push_back(ds.tasks[it.task].candidates[it.candidate].text);
  return texts;
}

// Pairwise statistics laid out as the judge metric writes them: the combined verdict, failures,
// then the candidate's verdict shown first and shown second.
JudgeDesign pairwise_design() {
  JudgeDesign design;
  design.mode = JudgeMode::kPairwise;
  design.candidate_first = 2;
  design.candidate_second = 3;
  return design;
}

// The audit's judge diagnostics of `metric` on the SummEval sample, by name.
std::map<std::string, json> diagnose(const Fake& fake, const std::string& metric,
                                     const std::string& name) {
  const auto out = std::filesystem::path(temp_dir(name));
  std::filesystem::remove_all(out);
  const auto r = run_probity(
      "audit --data " + data_path("summeval/summeval_sample20.jsonl") + " --metric " + metric +
      " --degrade none --manipulate none --bootstrap 200 --out " + out.string() + fake.flags());
  EXPECT_EQ(r.exit_code, 0) << r.err;
  const json report = json::parse(read_text((out / "report.json").string()));
  std::map<std::string, json> values;
  EXPECT_EQ(report["judge_diagnostics"].size(), 1u) << report.dump();
  for (const auto& v : report["judge_diagnostics"][0]["values"]) values[v["name"]] = v;
  // Every renderer shows the table.
  EXPECT_NE(read_text((out / "report.md").string()).find("Judge diagnostics"), std::string::npos);
  EXPECT_NE(r.out.find("Judge diagnostics"), std::string::npos) << r.out;
  std::filesystem::remove_all(out);
  return values;
}

TEST(JudgeDiagnostics, AnAlwaysFirstJudgeIsCaught) {
  Fake fake(Planted::kAlwaysFirst);
  auto v = diagnose(fake, "llm-judge,mode=pairwise", "probity_judge_first");
  EXPECT_LE(v["position.consistency"]["value"].get<double>(), 0.05);
  EXPECT_GE(v["position.prefer_first"]["value"].get<double>(), 0.95);
  EXPECT_TRUE(v["position.bias"]["finding"].get<bool>());
  // Its two orders always disagree: every combined verdict is a tie, which the length shares
  // cannot use, and the report says that rather than only "0 pairs".
  const std::string cause = v["length.prefer_longer"]["untested"];
  EXPECT_NE(cause.find("320 of 320 verdicts are ties"), std::string::npos) << cause;
}

TEST(JudgeDiagnostics, ALengthPreferringPairwiseJudgeIsCaught) {
  Fake fake(Planted::kLonger);
  auto v = diagnose(fake, "llm-judge,mode=pairwise", "probity_judge_longer");
  // Only responses of equal length get "A" in both orders.
  EXPECT_GE(v["position.consistency"]["value"].get<double>(), 0.99);
  EXPECT_FALSE(v["position.bias"]["finding"].get<bool>());
  EXPECT_EQ(v["length.prefer_longer"]["value"].get<double>(), 1.0);
  EXPECT_TRUE(v["length.prefer_longer"]["finding"].get<bool>());
  // Verdicts that follow length exactly leave the length-controlled win rate without a finite
  // fit: each system's row says why instead of showing a number.
  std::size_t lc_rows = 0;
  for (const auto& [name, value] : v) {
    if (name.rfind("length.lc_", 0) != 0) continue;
    ++lc_rows;
    const std::string cause = value["untested"];
    EXPECT_TRUE(cause.find("no finite fit") != std::string::npos) << name << ": " << cause;
  }
  EXPECT_EQ(lc_rows, 2u * 16u);  // two rows for each of SummEval's 16 systems
}

// A judge that rewards length (P(win) = logistic(3 tanh(delta / sd))) on a system no better than
// the reference at equal length whose answers are longer on average: its raw win rate is
// inflated, the length-controlled one is near even, and the shift is a finding.
TEST(JudgeDiagnostics, LengthControlTakesBackWhatLengthWon) {
  Dataset ds;
  std::mt19937_64 rng(7);
  std::normal_distribution<double> extra(12, 20);  // words the candidate has over the reference
  std::uniform_real_distribution<double> u(0, 1);
  MetricStats stats;
  stats.num_stats = 4;
  for (std::size_t t = 0; t < 200; ++t) {
    Task task;
    task.task_id = "t" + std::to_string(t);
    const int ref_words = 40 + static_cast<int>(rng() % 20);
    const int cand_words = std::max(1, ref_words + static_cast<int>(std::lround(extra(rng))));
    Reference ref;
    for (int w = 0; w < ref_words; ++w) ref.text += "word ";
    task.references.push_back(ref);
    Candidate c;
    c.id = "c" + std::to_string(t);
    c.system = "S";
    for (int w = 0; w < cand_words; ++w) c.text += "word ";
    task.candidates.push_back(c);
    ds.tasks.push_back(task);
    // Characters: 5 per word; sd of the difference about 100.
    const double delta = 5.0 * (cand_words - ref_words);
    const double win = u(rng) < 1 / (1 + std::exp(-3 * std::tanh(delta / 100))) ? 1.0 : 0.0;
    stats.stats.insert(stats.stats.end(), {win, 0.0, win, win});
  }
  const auto items = all_items(ds);
  const auto texts = candidate_texts(ds, items);
  const JudgeDesign design = pairwise_design();
  stats::BootstrapOptions boot;
  boot.resamples = 300;
  boot.seed = 1;
  const auto d = audit::judge_diagnostics(ds, items, texts, stats, design, {}, boot);
  std::map<std::string, JudgeDiagnostic> v;
  for (const auto& x : d.values) v[x.name] = x;
  const auto& lc = v.at("length.lc_win_rate[S]");
  const auto& shift = v.at("length.lc_shift[S]");
  ASSERT_TRUE(lc.untested.empty()) << lc.untested;
  const double raw = lc.value - shift.value;
  EXPECT_GT(raw, 0.65);
  EXPECT_LT(std::abs(lc.value - 0.5), 0.1) << lc.value;
  EXPECT_TRUE(shift.finding) << shift.low << " " << shift.high;
  EXPECT_LT(shift.high, 0.0);
}

TEST(JudgeDiagnostics, ALengthRatingPointwiseJudgeIsCaught) {
  Fake fake(Planted::kRatesLength);
  auto v = diagnose(fake, "llm-judge", "probity_judge_rates_length");
  const json& p = v["length.partial_correlation"];
  EXPECT_GT(p["value"].get<double>(), 0.5) << p.dump();
  EXPECT_TRUE(p["finding"].get<bool>()) << p.dump();
}

// The real tiny llama.cpp model (a 264k-parameter llama2.c checkpoint) rated every item alike: the
// partial correlation and the ICC are then undefined, and the report says why rather than
// "undefined on these items".
TEST(JudgeDiagnostics, AJudgeWithOneRatingIsUntestedWithItsCause) {
  Fake fake(Planted::kConstant);
  auto v = diagnose(fake, "llm-judge,samples=2", "probity_judge_constant");
  EXPECT_EQ(v["length.partial_correlation"]["untested"],
            "the judge gave every item the same rating")
      << v["length.partial_correlation"].dump();
  EXPECT_EQ(v["self_consistency.icc"]["untested"],
            "every rating is the same (no variance to share out)")
      << v["self_consistency.icc"].dump();
  EXPECT_FALSE(v["length.partial_correlation"]["finding"].get<bool>());
}

// The first `n` tasks of LFQA-E (Chinese), with their expert pairs, as a file.
std::string lfqa_head(std::size_t n, const std::string& name) {
  const auto path = std::filesystem::path(temp_dir(name)) / "lfqa.jsonl";
  std::filesystem::create_directories(path.parent_path());
  std::ifstream in(data_path("lfqa_e/lfqa_e_zh.jsonl"));
  std::ofstream out(path);
  std::string line;
  for (std::size_t i = 0; i < n && std::getline(in, line); ++i) out << line << "\n";
  return path.string();
}

// What the length-preferring fake must agree with: per decisive expert pair, 1 when the longer
// answer is the preferred one, 0 when the shorter is, 0.5 for equal lengths (its two orders then
// disagree and ties=disagree makes a tie).
double longer_agreement(const std::string& data) {
  std::ifstream in(data);
  double sum = 0;
  std::size_t n = 0;
  for (std::string line; std::getline(in, line);) {
    const json t = json::parse(line);
    std::map<std::string, std::size_t> size;
    for (const auto& c : t["candidates"]) size[c["id"]] = c["text"].get<std::string>().size();
    for (const auto& p : t["pairs"]) {
      if (p["preferred"] == "tie") continue;
      const std::size_t a = size.at(p["a"]), b = size.at(p["b"]);
      const double score_a = a > b ? 1.0 : a < b ? 0.0 : 0.5;
      sum += p["preferred"] == "a" ? score_a : 1.0 - score_a;
      ++n;
    }
  }
  return sum / static_cast<double>(n);
}

std::map<std::string, json> diagnose_pairs(const Fake& fake, const std::string& data,
                                           const std::string& name) {
  const auto out = std::filesystem::path(temp_dir(name)) / "out";
  const auto r = run_probity("audit --data " + data +
                             " --metric llm-judge,mode=pairwise --degrade none --manipulate none"
                             " --bootstrap 200 --out " +
                             out.string() + fake.flags());
  EXPECT_EQ(r.exit_code, 0) << r.err;
  const json report = json::parse(read_text((out / "report.json").string()));
  std::map<std::string, json> values;
  for (const auto& v : report["judge_diagnostics"][0]["values"]) values[v["name"]] = v;
  EXPECT_NE(r.out.find("human_pairs.agreement"), std::string::npos) << r.out;
  return values;
}

// The pairwise judge is also asked about the experts' own pairs (candidate against candidate):
// a judge that prefers the longer answer agrees with the experts exactly as often as the longer
// answer is the one they preferred; an always-first judge calls every pair a tie.
TEST(JudgeDiagnostics, APairwiseJudgeIsMeasuredOnTheHumanPairs) {
  const std::string data = lfqa_head(40, "probity_judge_pairs");
  {
    Fake fake(Planted::kLonger);
    auto v = diagnose_pairs(fake, data, "probity_judge_pairs_longer");
    const json& a = v["human_pairs.agreement"];
    ASSERT_TRUE(a.contains("value")) << a.dump();
    EXPECT_NEAR(a["value"].get<double>(), longer_agreement(data), 1e-12) << a.dump();
    EXPECT_GT(a["n"].get<int>(), 50) << a.dump();
    EXPECT_LE(a["low"].get<double>(), a["value"].get<double>()) << a.dump();
    EXPECT_GE(a["high"].get<double>(), a["value"].get<double>()) << a.dump();
    EXPECT_GE(v["human_pairs.position_consistency"]["value"].get<double>(), 0.95);
    std::cout << "prefers-longer judge on " << a["n"] << " expert pairs: agreement " << a["value"]
              << " [" << a["low"] << ", " << a["high"] << "]\n";
  }
  {
    Fake fake(Planted::kAlwaysFirst);
    auto v = diagnose_pairs(fake, data, "probity_judge_pairs_first");
    EXPECT_EQ(v["human_pairs.agreement"]["value"].get<double>(), 0.5);
    EXPECT_EQ(v["human_pairs.position_consistency"]["value"].get<double>(), 0.0);
    EXPECT_EQ(v["human_pairs.tie_rate"]["value"].get<double>(), 1.0);
  }
  std::filesystem::remove_all(std::filesystem::path(data).parent_path());
}

// A dataset without human pairs has no human_pairs values at all.
TEST(JudgeDiagnostics, NoHumanPairsNoHumanPairValues) {
  Fake fake(Planted::kAlwaysFirst);
  auto v = diagnose(fake, "llm-judge,mode=pairwise", "probity_judge_no_pairs");
  EXPECT_FALSE(v.contains("human_pairs.agreement"));
}

// G-Eval with sampled ratings is read as a pointwise judge: the length rating is caught, and its
// samples give the self-consistency values (the fake answers alike each time: no flips).
TEST(JudgeDiagnostics, AGevalJudgeIsReadAsPointwise) {
  Fake fake(Planted::kRatesLength);
  auto v = diagnose(fake, "llm-judge,mode=geval,estimate=samples,samples=2",
                    "probity_judge_geval_length");
  const json& p = v["length.partial_correlation"];
  EXPECT_GT(p["value"].get<double>(), 0.5) << p.dump();
  EXPECT_TRUE(p["finding"].get<bool>()) << p.dump();
  ASSERT_TRUE(v.contains("self_consistency.flip_rate"));
  EXPECT_EQ(v["self_consistency.flip_rate"]["value"].get<double>(), 0.0);
  EXPECT_FALSE(v.contains("position.consistency"));
}

// A pairwise judge without bias: each verdict a fair coin, whatever the order and the lengths.

TEST(JudgeDiagnostics, AnUnbiasedJudgeRaisesNoFindingBeyondAlpha) {
  const Dataset ds = load_dataset(data_path("summeval/summeval_sample20.jsonl"));
  const auto items = all_items(ds);
  const auto texts = candidate_texts(ds, items);
  const JudgeDesign design = pairwise_design();
  std::map<std::string, int> findings, untested;
  const int runs = 100;
  for (int seed = 0; seed < runs; ++seed) {
    std::mt19937_64 rng(static_cast<std::uint64_t>(seed));
    MetricStats stats;
    stats.num_stats = 4;
    for (std::size_t i = 0; i < items.size(); ++i) {
      const double first = static_cast<double>(rng() & 1), second = static_cast<double>(rng() & 1);
      const double score = first == second ? first : 0.5;
      stats.stats.insert(stats.stats.end(), {score, 0.0, first, second});
    }
    stats::BootstrapOptions boot;
    boot.resamples = 200;
    boot.seed = static_cast<std::uint64_t>(seed);
    boot.threads = 1;
    const auto d = audit::judge_diagnostics(ds, items, texts, stats, design, {}, boot);
    for (const auto& v : d.values) {
      if (v.finding) ++findings[v.name];
      if (!v.untested.empty()) ++untested[v.name];
    }
  }
  // At alpha = 0.05, 100 runs give 5 false findings on average; 12 or more has probability
  // below 0.5% for an unbiased procedure.
  for (const char* name : {"position.bias", "length.prefer_longer", "length.prefer_lists"}) {
    std::cout << name << ": " << findings[name] << " findings in " << runs << " runs ("
              << untested[name] << " untested)\n";
    EXPECT_LE(findings[name], 11) << name;
  }
  // The length-controlled shift of each of the 16 systems (20 tasks each): 1,600 tests.
  int shift_findings = 0, shift_untested = 0;
  for (const auto& [name, count] : findings)
    if (name.rfind("length.lc_shift[", 0) == 0) shift_findings += count;
  for (const auto& [name, count] : untested)
    if (name.rfind("length.lc_shift[", 0) == 0) shift_untested += count;
  std::cout << "length.lc_shift: " << shift_findings << " findings in " << 16 * runs << " ("
            << shift_untested << " untested)\n";
  EXPECT_LE(shift_findings, 16 * runs / 10);
}

}  // namespace
}  // namespace probity::test
