// The LLM realisations of the strategies (prompts v2 follow the papers; v1 stays loadable),
// against the mock server: what each prompt shows the model, how answers are checked.
#include "perturb/llm_strategies.hpp"

#include <gtest/gtest.h>

#include <mutex>

#include "llm/llm_test_util.hpp"
#include "probity/error.hpp"

namespace probity::test {
namespace {

using nlohmann::json;

std::string prompt_of(const json& request) {
  return request["messages"][0]["content"].get<std::string>();
}

std::string between(const std::string& prompt) {
  const auto open = prompt.find("<<<\n") + 4;
  return prompt.substr(open, prompt.find("\n>>>", open) - open);
}

Dataset news(std::size_t n = 3) {
  Dataset ds;
  for (std::size_t t = 0; t < n; ++t) {
    Task task;
    task.task_id = "t" + std::to_string(t);
    task.group = "cnndm";
    task.source =
        "Storm hits coast. Thousands lose power in the night. "
        "Officials said repairs would take a week. Schools stay closed on Monday. "
        "The mayor blamed the utility for slow work. A later detail only the full "
        "article has: 1,204 trees fell.";
    task.references.push_back({"r", "A storm cut power to thousands."});
    task.candidates.push_back(
        {"c",
         "A",
         "A storm hit the coast. Power failed for thousands. Repairs take a week. "
         "Schools close. The mayor is angry.",
         {}});
    ds.tasks.push_back(std::move(task));
  }
  return ds;
}

struct Recorder {
  std::mutex mutex;
  std::vector<std::string> prompts;  // the first message of each request
  std::vector<std::string> last;     // its last message (a re-ask says why)
  std::function<std::string(const std::string&, int)> answer;  // (prompt, ask number)
  std::string operator()(const json& request) {
    const std::string p = prompt_of(request);
    int asks = static_cast<int>(request["messages"].size() + 1) / 2;
    std::lock_guard lock(mutex);
    prompts.push_back(p);
    last.push_back(request["messages"].back()["content"].get<std::string>());
    return answer(p, asks);
  }
};

std::unique_ptr<Perturbation> create(StrategyKind kind, const std::string& name) {
  auto list = perturb::create_strategies(kind, {name}, probity::test::engine().strategies());
  return std::move(list.front());
}

TEST(LlmStrategies, CommandLineNamesPickTheRealisationAndVersion) {
  const auto registry = PerturbationRegistry::builtin();
  const auto canonical_strategy_name = [&](StrategyKind kind, std::string_view name) {
    return perturb::canonical_strategy_name(kind, name, registry);
  };
  EXPECT_EQ(canonical_strategy_name(StrategyKind::kDegradation, "llm:D"), "llm-D");
  EXPECT_EQ(canonical_strategy_name(StrategyKind::kDegradation, "llm:surface-report"), "llm-P");
  EXPECT_EQ(canonical_strategy_name(StrategyKind::kDegradation, "llm:S@v1"), "llm-S@v1");
  EXPECT_EQ(canonical_strategy_name(StrategyKind::kManipulation, "llm:R"), "llm-R");
  EXPECT_EQ(canonical_strategy_name(StrategyKind::kDegradation, "S"), "S");
  try {
    canonical_strategy_name(StrategyKind::kDegradation, "llm:R");
    FAIL();
  } catch (const UsageError& e) {
    EXPECT_NE(std::string(e.what()).find("samples another task's response"), std::string::npos)
        << e.what();
    EXPECT_NE(std::string(e.what()).find("llm:R@v1"), std::string::npos);
  }
  EXPECT_THROW(canonical_strategy_name(StrategyKind::kDegradation, "llm:S"), UsageError);
  EXPECT_THROW(canonical_strategy_name(StrategyKind::kDegradation, "llm:D@v3"), UsageError);
  // The registry's own names are taken too, with the same checks.
  EXPECT_EQ(canonical_strategy_name(StrategyKind::kDegradation, "llm-D@v1"), "llm-D@v1");
  EXPECT_THROW(canonical_strategy_name(StrategyKind::kDegradation, "llm-R"), UsageError);
}

// The papers' hardest degradation: regenerated from weak context only. The model must never see
// the original answer or the rest of the source.
TEST(LlmStrategies, SurfaceReportSeesOnlyTheWeakContext) {
  MockServer server;
  Recorder rec;
  rec.answer = [](const std::string&, int) {
    return json{{"text", "A storm hit and power went out."}}.dump();
  };
  server.set_handler([&](const json& r) { return rec(r); });
  SessionGuard guard(mock_session(server));
  const auto ds = news(1);
  auto p = create(StrategyKind::kDegradation, "llm:P");
  const auto r = p->apply({&ds, 0, 0, 1});
  ASSERT_EQ(r.status, PerturbResult::Status::kApplied) << r.note;
  ASSERT_EQ(rec.prompts.size(), 1u);
  const std::string& prompt = rec.prompts[0];
  EXPECT_NE(prompt.find("Storm hits coast."), std::string::npos) << prompt;   // the lead
  EXPECT_EQ(prompt.find("1,204 trees"), std::string::npos) << prompt;         // not the rest
  EXPECT_EQ(prompt.find("The mayor is angry"), std::string::npos) << prompt;  // nor the answer
  EXPECT_NE(prompt.find("lead of the source"), std::string::npos);
  EXPECT_NE(prompt.find("summary"), std::string::npos);
}

TEST(LlmStrategies, DeletionAndCompletionFillsGapsLeftByTheRules) {
  MockServer server;
  Recorder rec;
  rec.answer = [](const std::string& prompt, int asks) {
    std::string text = between(prompt);
    // First a reply that leaves a gap open: re-asked with the reason.
    if (asks == 1) return json{{"text", text}}.dump();
    for (auto at = text.find("[GAP]"); at != std::string::npos; at = text.find("[GAP]"))
      text.replace(at, 5, "It was bad.");
    return json{{"text", text}}.dump();
  };
  server.set_handler([&](const json& r) { return rec(r); });
  SessionGuard guard(mock_session(server));
  const auto ds = news(1);
  auto d = create(StrategyKind::kDegradation, "llm:D");
  const auto r = d->apply({&ds, 0, 0, 1});
  ASSERT_EQ(r.status, PerturbResult::Status::kApplied) << r.note;
  EXPECT_EQ(r.text,
            "A storm hit the coast. It was bad. Repairs take a week. It was bad. The mayor is "
            "angry.");
  ASSERT_EQ(rec.prompts.size(), 2u);
  // The model saw the kept sentences with the deleted ones marked, never the deleted ones.
  EXPECT_NE(rec.prompts[0].find("A storm hit the coast. [GAP] Repairs take a week. [GAP] The "
                                "mayor is angry."),
            std::string::npos)
      << rec.prompts[0];
  EXPECT_EQ(rec.prompts[0].find("Power failed"), std::string::npos);
  EXPECT_NE(rec.last[1].find("every [GAP] must be replaced"), std::string::npos) << rec.last[1];
}

TEST(LlmStrategies, UltraConciseIsHeldToItsCap) {
  MockServer server;
  Recorder rec;
  rec.answer = [](const std::string&, int asks) {
    return json{{"text", asks == 1 ? "A storm hit the coast and power failed for thousands."
                                   : "Storm, outage."}}
        .dump();
  };
  server.set_handler([&](const json& r) { return rec(r); });
  SessionGuard guard(mock_session(server));
  const auto ds = news(1);
  const auto r = create(StrategyKind::kDegradation, "llm:U")->apply({&ds, 0, 0, 1});
  ASSERT_EQ(r.status, PerturbResult::Status::kApplied) << r.note;
  EXPECT_EQ(r.text, "Storm, outage.");
  EXPECT_NE(rec.prompts[0].find("at most 2 words"), std::string::npos) << rec.prompts[0];
}

// Meaningless elongation as the papers define it: the same filler for every candidate, written
// once.
TEST(LlmStrategies, ElongationAppendsOneFillerWrittenOnce) {
  MockServer server;
  Recorder rec;
  rec.answer = [](const std::string&, int) {
    return json{{"text", "This is worth noting in general terms."}}.dump();
  };
  server.set_handler([&](const json& r) { return rec(r); });
  SessionGuard guard(mock_session(server));
  const auto ds = news(5);
  auto m = create(StrategyKind::kManipulation, "llm:M");
  std::vector<PerturbContext> contexts;
  for (std::size_t t = 0; t < ds.tasks.size(); ++t) contexts.push_back({&ds, t, 0, 9});
  const auto results = m->apply_many(contexts);
  EXPECT_EQ(rec.prompts.size(), 1u);
  for (const auto& r : results)
    EXPECT_EQ(r.text, ds.tasks[0].candidates[0].text + " This is worth noting in general terms.");
  EXPECT_EQ(rec.prompts[0].find("storm"), std::string::npos);  // the filler sees no candidate
}

TEST(LlmStrategies, OpinionShiftsMoveTheStanceAndV1StaysLoadable) {
  MockServer server;
  Recorder rec;
  rec.answer = [](const std::string&, int) { return json{{"text", "Great news."}}.dump(); };
  server.set_handler([&](const json& r) { return rec(r); });
  SessionGuard guard(mock_session(server));
  const auto ds = news(1);
  create(StrategyKind::kManipulation, "llm:P")->apply({&ds, 0, 0, 1});
  EXPECT_NE(rec.prompts.back().find("shifting its stance"), std::string::npos);
  create(StrategyKind::kManipulation, "llm:S")->apply({&ds, 0, 0, 1});
  EXPECT_NE(rec.prompts.back().find("Amplify all of its claims"), std::string::npos);
  create(StrategyKind::kManipulation, "llm:R")->apply({&ds, 0, 0, 1});
  EXPECT_NE(rec.prompts.back().find("reorganise"), std::string::npos);
  // v1 reproduces earlier runs, with its own prompt in the signature.
  auto v1 = create(StrategyKind::kManipulation, "llm:P@v1");
  v1->apply({&ds, 0, 0, 1});
  EXPECT_NE(rec.prompts.back().find("more positive, enthusiastic tone"), std::string::npos);
  EXPECT_NE(v1->signature().find("perturb_manipulation_P.v1="), std::string::npos);
  EXPECT_EQ(v1->code(), "llm-P@v1");
}

}  // namespace
}  // namespace probity::test
