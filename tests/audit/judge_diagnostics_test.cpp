// The judge bias battery (audit/judge_diagnostics.cpp). Judges with planted biases answer through
// a test server that speaks as vLLM does: one that always prefers the response shown first, one
// that prefers the longer response, and a pointwise one that rates by length; each is caught by
// `probity audit`. A judge without bias, simulated over 100 seeds, raises findings no more often
// than alpha allows.
#include "audit/judge_diagnostics.hpp"

#include <gtest/gtest.h>

#include <filesystem>
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
}

TEST(JudgeDiagnostics, ALengthPreferringPairwiseJudgeIsCaught) {
  Fake fake(Planted::kLonger);
  auto v = diagnose(fake, "llm-judge,mode=pairwise", "probity_judge_longer");
  // Only responses of equal length get "A" in both orders.
  EXPECT_GE(v["position.consistency"]["value"].get<double>(), 0.99);
  EXPECT_FALSE(v["position.bias"]["finding"].get<bool>());
  EXPECT_EQ(v["length.prefer_longer"]["value"].get<double>(), 1.0);
  EXPECT_TRUE(v["length.prefer_longer"]["finding"].get<bool>());
}

TEST(JudgeDiagnostics, ALengthRatingPointwiseJudgeIsCaught) {
  Fake fake(Planted::kRatesLength);
  auto v = diagnose(fake, "llm-judge", "probity_judge_rates_length");
  const json& p = v["length.partial_correlation"];
  EXPECT_GT(p["value"].get<double>(), 0.5) << p.dump();
  EXPECT_TRUE(p["finding"].get<bool>()) << p.dump();
}

// The real llama.cpp model of issue 20 rated every item alike: the partial correlation and the ICC
// are then undefined, and the report says why rather than "undefined on these items".
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
  std::vector<std::string_view> texts;
  for (const auto& it : items) texts.push_back(ds.tasks[it.task].candidates[it.candidate].text);
  JudgeDesign design;
  design.mode = JudgeMode::kPairwise;
  design.candidate_first = 2;
  design.candidate_second = 3;
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
}

}  // namespace
}  // namespace probity::test
