// --suite paper: the paper's protocol in one audit (rules for R, S, M; an LLM for the rest;
// its strategies per kind of dataset; one ground-truth reference; LLM statement decomposition)
// against a test server that answers as vLLM does.
#include <gtest/gtest.h>

#include <atomic>
#include <filesystem>
#include <nlohmann/json.hpp>
#include <set>

#include "cli_runner.hpp"
#include "llm/fakes/fake_server.hpp"
#include "llm/session.hpp"
#include "perturb/suites.hpp"
#include "probity/audit.hpp"
#include "probity/engine.hpp"
#include "probity/error.hpp"
#include "probity/llm.hpp"
#include "probity/report.hpp"
#include "test_paths.hpp"

namespace probity::test {
namespace {

using nlohmann::json;

Dataset with_group(const std::string& group) {
  Dataset ds;
  Task t;
  t.task_id = "t";
  t.group = group;
  t.references = {{"a", "first"}, {"gt", "the ground truth"}};
  ds.tasks.push_back(t);
  return ds;
}

TEST(Suite, PaperChoosesTheStrategiesThePaperRanPerKindOfDataset) {
  auto s = perturb::resolve_suite("paper", with_group("cnndm"));
  EXPECT_EQ(s.name, "paper:summarization");
  EXPECT_EQ(s.degradations, (std::vector<std::string>{"R", "S", "llm:D", "llm:P", "llm:U"}));
  EXPECT_EQ(s.manipulations, (std::vector<std::string>{"M", "llm:R"}));
  EXPECT_EQ(s.sample, 200u);
  EXPECT_TRUE(s.single_reference);
  s = perturb::resolve_suite("paper:peer-review", with_group("whatever"));
  EXPECT_EQ(s.degradations.size(), 6u);
  EXPECT_EQ(s.manipulations,
            (std::vector<std::string>{"M", "llm:R", "llm:P", "llm:N", "llm:H", "llm:S"}));
  s = perturb::resolve_suite("paper", with_group("lfqa_e"));
  EXPECT_EQ(s.manipulations, (std::vector<std::string>{"M", "llm:H", "llm:S", "llm:R"}));
  try {
    perturb::resolve_suite("paper", with_group("misc"));
    FAIL();
  } catch (const UsageError& e) {
    EXPECT_NE(std::string(e.what()).find("paper:summarization"), std::string::npos);
  }
  EXPECT_THROW(perturb::resolve_suite("paper:poetry", with_group("x")), UsageError);
  EXPECT_THROW(perturb::resolve_suite("fast", with_group("x")), UsageError);
  EXPECT_EQ(perturb::ground_truth_reference(with_group("x").tasks[0])->id, "gt");
}

std::string between(const std::string& prompt, std::size_t n = 0) {
  std::size_t pos = 0;
  for (std::size_t i = 0; i <= n; ++i) pos = prompt.find("<<<\n", pos) + 4;
  return prompt.substr(pos, prompt.find("\n>>>", pos) - pos);
}

std::set<std::string> words(const std::string& text) {
  std::set<std::string> out;
  std::string w;
  for (char c : text + " ") {
    if (std::isalnum(static_cast<unsigned char>(c))) {
      w += static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
    } else if (!w.empty()) {
      out.insert(w);
      w.clear();
    }
  }
  return out;
}

bool supports(const std::string& text, const std::string& claim) {
  const auto t = words(text), c = words(claim);
  std::size_t shared = 0;
  for (const auto& w : c) shared += t.count(w);
  return !c.empty() && 2 * shared >= c.size();
}

// A model for every prompt of the suite: decompositions (sentences), oracle questions (word
// overlap), perturbations (a mechanical edit of what the prompt shows).
std::string answer(const json& request, std::atomic<int>& decompositions) {
  const std::string prompt = request["messages"][0]["content"].get<std::string>();
  if (prompt.find("{\"statements\":") != std::string::npos) {
    ++decompositions;
    const std::string text = between(prompt);
    json list = json::array();
    for (std::size_t from = 0; from < text.size();) {
      auto end = text.find(". ", from);
      end = end == std::string::npos ? text.size() : end + 1;
      list.push_back(text.substr(from, end - from));
      from = end + 1;
    }
    return json{{"statements", list}}.dump();
  }
  if (prompt.find("CLAIMS:") != std::string::npos) {
    const std::string text = between(prompt);
    json list = json::array();
    const auto start = prompt.find("CLAIMS:\n") + 8;
    std::istringstream in(prompt.substr(start));
    for (std::string line; std::getline(in, line) && !line.empty();)
      list.push_back(supports(text, line.substr(line.find(". ") + 2)));
    return json{{"supported", list}}.dump();
  }
  if (prompt.find("{\"supported\"") != std::string::npos)
    return json{{"supported", supports(between(prompt), between(prompt, 1))}}.dump();
  if (prompt.find("{\"text\"") != std::string::npos) {
    std::string text = between(prompt);
    for (auto at = text.find("[GAP]"); at != std::string::npos; at = text.find("[GAP]"))
      text.replace(at, 5, "This was reported.");
    if (prompt.find("at most") != std::string::npos) text = text.substr(0, text.find(' '));
    return json{
        {"text", text + (prompt.find("different style") != std::string::npos ? " Indeed." : "")}}
        .dump();
  }
  return "{}";
}

TEST(Suite, PaperRunsTheMixOfRulesAndLlmStrategiesInOneAuditWithLlmDecomposition) {
  std::atomic<int> decompositions{0};
  FakeOptions o;
  o.flavour = Flavour::kVllm;
  o.reply = [&](const json& r) { return answer(r, decompositions); };
  o.threads = 32;
  FakeServer server(o);
  const std::string out = temp_dir("suite_paper");
  const std::string data = data_path("summeval/summeval_sample20.jsonl");
  auto r = run_probity("audit --data " + data +
                       " --metric bleu --metric stmt-tv,predictor=llm --suite paper "
                       "--bootstrap 50 --llm-base-url " +
                       server.base_url() + " --llm-model fake-model --out " + out);
  ASSERT_EQ(r.exit_code, 0) << r.err;
  const json report = json::parse(read_text(out + "/report.json"));
  std::vector<std::string> codes;
  for (const auto& s : report["strategies"]) codes.push_back(s["code"]);
  EXPECT_EQ(codes, (std::vector<std::string>{"R", "S", "llm-D", "llm-P", "llm-U", "M", "llm-R"}));
  // Rules where the paper used rules, prompts v2 for the rest.
  for (const auto& s : report["strategies"]) {
    const std::string sig = s["signature"];
    if (s["code"].get<std::string>().starts_with("llm-"))
      EXPECT_NE(sig.find(".v2="), std::string::npos) << sig;
    else
      EXPECT_NE(sig.find("rules-v1"), std::string::npos) << sig;
  }
  EXPECT_EQ(report["datasets"][0]["audited"], 200);  // the paper's ~200 items per test
  const std::string stmt_sig = report["signatures"][1];
  EXPECT_NE(stmt_sig.find("|stmt:llm|role:oracle|"), std::string::npos) << stmt_sig;
  // One ground-truth reference per task: 20 decompositions, not 20 x 11.
  EXPECT_EQ(decompositions.load(), 20);
  std::size_t llm_applied = 0;
  for (const auto& t : report["tests"]) {
    EXPECT_EQ(t["failed"], 0) << t["metric"] << " " << t["code"];
    if (t["code"].get<std::string>().starts_with("llm-")) llm_applied += t["applied"].get<int>();
  }
  EXPECT_GT(llm_applied, 0u);
  // The same request filled by another front end (the Python module fills these fields): the
  // library applies the suite's rules itself, so the report is the CLI's.
  {
    AuditOptions request;
    request.data = {data};
    request.metrics = {"bleu", "stmt-tv,predictor=llm"};
    request.suite = "paper";
    request.bootstrap = 50;
    request.out_dir = temp_dir("suite_paper_library");
    llm::LlmConfig config;
    llm::CliOverrides overrides;
    overrides.base_url = server.base_url();
    overrides.model = "fake-model";
    llm::apply_cli_overrides(config, overrides);
    Engine engine;
    engine.set_llm(std::make_shared<llm::Session>(std::move(config)));
    json library = json::parse(report::to_json(run_audit(request, engine)));
    json cli = report;
    for (const char* field : {"seconds", "cache_hits", "cache_misses", "llm_usage"}) {
      library.erase(field);
      cli.erase(field);
    }
    EXPECT_EQ(library, cli);
    EXPECT_EQ(library["sample"], 200);
    std::filesystem::remove_all(request.out_dir);
  }
  // A suite chooses the strategies itself.
  r = run_probity("audit --data " + data + " --metric bleu --suite paper --degrade S --out " + out);
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_NE(r.err.find("--suite chooses the strategies"), std::string::npos) << r.err;
  std::filesystem::remove_all(out);
}

}  // namespace
}  // namespace probity::test
