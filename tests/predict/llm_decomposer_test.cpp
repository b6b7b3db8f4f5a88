// Statement decomposition by an LLM (decompose=llm), the papers' Ψ, against the mock server.
#include <gtest/gtest.h>

#include <atomic>
#include <cmath>
#include <filesystem>
#include <mutex>
#include <set>

#include "llm/llm_test_util.hpp"
#include "probity/engine.hpp"
#include "probity/scoring.hpp"

namespace probity::test {
namespace {

using nlohmann::json;

Dataset tasks3() {
  Dataset ds;
  const char* refs[] = {"The council approved the budget. Taxes will rise.",
                        "The river flooded the village. Residents left by boat.",
                        "The team won the final. The captain scored twice."};
  for (int t = 0; t < 3; ++t) {
    Task task;
    task.task_id = "t" + std::to_string(t);
    task.group = "g";
    task.references.push_back({"r", refs[t]});
    task.candidates.push_back({"a", "A", std::string(refs[t]) + " More.", {}});
    task.candidates.push_back({"b", "B", "Something else happened.", {}});
    ds.tasks.push_back(std::move(task));
  }
  return ds;
}

std::string between(const std::string& prompt, int n) {
  std::size_t pos = 0;
  for (int i = 0; i <= n; ++i) pos = prompt.find("<<<\n", pos) + 4;
  return prompt.substr(pos, prompt.find("\n>>>", pos) - pos);
}

bool is_decomposition(const std::string& prompt) {
  return prompt.find("{\"statements\":") != std::string::npos;
}

// Decomposes "A. B." into ["(1) A.", "(2) B."] (so its statements are recognisable in the
// oracle's prompts) and supports a statement when the candidate contains its sentence.
struct Model {
  std::mutex mutex;
  std::multiset<std::string> decomposed;  // texts asked to decompose
  std::set<std::string> statements_seen;  // statements the oracle was asked about
  std::string fail_on;                    // a reference whose decomposition is garbage

  std::string answer(const json& request) {
    const std::string prompt = request["messages"][0]["content"].get<std::string>();
    const std::string text = between(prompt, 0);
    if (is_decomposition(prompt)) {
      std::lock_guard lock(mutex);
      decomposed.insert(text);
      if (text == fail_on) return "I cannot do that.";
      json list = json::array();
      std::size_t from = 0;
      for (int k = 1; from < text.size(); ++k) {
        auto end = text.find(". ", from);
        end = end == std::string::npos ? text.size() : end + 1;
        list.push_back("(" + std::to_string(k) + ") " + text.substr(from, end - from));
        from = end + 1;
      }
      return json{{"statements", list}}.dump();
    }
    const std::string claim = between(prompt, 1);
    {
      std::lock_guard lock(mutex);
      statements_seen.insert(claim);
    }
    const std::string sentence = claim.substr(claim.find(") ") + 2);
    const bool yes = text.find(sentence) != std::string::npos;
    if (prompt.find("\"level\"") != std::string::npos) return json{{"level", yes ? 3 : -3}}.dump();
    return json{{"supported", yes}}.dump();
  }
};

std::vector<double> scores(const Dataset& ds, const std::string& spec, std::string* sig = nullptr,
                           std::vector<std::string>* reasons = nullptr) {
  auto items = all_items(ds);
  std::vector<MetricSelection> m;
  m.push_back(probity::test::engine_select_metric(spec));
  if (sig) *sig = m[0].metric->signature();
  auto stats = compute_stats(ds, items, m);
  std::vector<double> out, parts(m[0].metric->parts().size());
  for (std::size_t i = 0; i < items.size(); ++i) {
    m[0].metric->sentence_score(stats[0].row(i), parts);
    out.push_back(parts[m[0].primary]);
    if (reasons && std::isnan(parts[0]))
      reasons->push_back(m[0].metric->undefined_reason(stats[0].row(i)));
  }
  return out;
}

TEST(LlmDecomposer, IsTheDefaultWithAnLlmOracleAndOneCallPerText) {
  MockServer server;
  Model model;
  server.set_handler([&](const json& r) { return model.answer(r); });
  SessionGuard guard(mock_session(server));
  std::string sig;
  const auto s = scores(tasks3(), "stmt-tv,predictor=llm,batch=false", &sig);
  EXPECT_NE(sig.find("|stmt:llm|role:oracle|model:mock-model|"), std::string::npos) << sig;
  EXPECT_NE(sig.find("prompt:decompose_statements.v1="), std::string::npos) << sig;
  // Each reference decomposed once, although it is a positive for two items and a negative for
  // four.
  EXPECT_EQ(model.decomposed.size(), 3u);
  EXPECT_EQ(std::set<std::string>(model.decomposed.begin(), model.decomposed.end()).size(), 3u);
  // The oracle was asked about the model's statements, not the rules'.
  EXPECT_TRUE(model.statements_seen.count("(1) The council approved the budget."));
  EXPECT_TRUE(model.statements_seen.count("(2) Taxes will rise."));
  for (std::size_t t = 0; t < 3; ++t) {
    EXPECT_DOUBLE_EQ(s[2 * t], 1.0) << t;  // supports both own statements, no negative one
    EXPECT_DOUBLE_EQ(s[2 * t + 1], 0.0) << t;
  }
  // Rules on request, and offline: the signature says so (unchanged offline signature).
  scores(tasks3(), "stmt-tv,predictor=llm,decompose=rules", &sig);
  EXPECT_NE(sig.find("|stmt:rules-v1|agg:mean|"), std::string::npos) << sig;
  scores(tasks3(), "stmt-tv", &sig);
  EXPECT_NE(sig.find("|stmt:rules-v1|agg:mean|"), std::string::npos) << sig;
  // Another template and role.
  scores(tasks3(), "gppm-j,predictor=llm,batch=false,decompose_prompt=decompose_summary.v1", &sig);
  EXPECT_NE(sig.find("prompt:decompose_summary.v1="), std::string::npos) << sig;
  EXPECT_THROW(probity::test::engine_select_metric("stmt-tv,predictor=llm,decompose=magic"),
               UsageError);
  EXPECT_THROW(probity::test::engine_select_metric("gem,decompose=llm"),
               UsageError);  // no statements in gem
}

// Three tasks of three references each; the first is the one the default refs=first reads.
Dataset tasks3_with_three_references() {
  Dataset ds = tasks3();
  for (auto& t : ds.tasks) {
    const std::string first = t.references[0].text;
    t.references.push_back({"r2", "Officials said little. " + first});
    t.references.push_back({"r3", first + " Nobody commented."});
  }
  return ds;
}

TEST(LlmDecomposer, OnlyTheReferencesTheMetricUsesAreDecomposed) {
  MockServer server;
  Model model;
  server.set_handler([&](const json& r) { return model.answer(r); });
  SessionGuard guard(mock_session(server));
  const Dataset ds = tasks3_with_three_references();
  // The default first reference: one decomposition per task, positives and negatives alike.
  scores(ds, "gppm-j,predictor=llm,batch=false,decompose_llm=decomposer");
  EXPECT_EQ(model.decomposed.size(), 3u);
  for (const auto& t : ds.tasks) EXPECT_EQ(model.decomposed.count(t.references[0].text), 1u);
  // The f-variational cell's negatives are other tasks' first references: nothing more.
  model.decomposed.clear();
  scores(ds, "stmt-tv,predictor=llm,batch=false,decompose_llm=decomposer");
  EXPECT_EQ(model.decomposed.size(), 3u);
  // refs=all reads every reference: all nine.
  model.decomposed.clear();
  scores(ds, "gppm-j,predictor=llm,batch=false,decompose_llm=decomposer,refs=all");
  EXPECT_EQ(model.decomposed.size(), 9u);
}

TEST(LlmDecomposer, AFailedDecompositionMakesTheItemsThatNeedItUndefined) {
  MockServer server;
  Model model;
  const auto ds = tasks3();
  model.fail_on = ds.tasks[1].references[0].text;
  server.set_handler([&](const json& r) { return model.answer(r); });
  SessionGuard guard(mock_session(server));
  std::vector<std::string> reasons;
  // Direct estimator: only the own reference matters.
  const auto s = scores(ds, "gppm-j,predictor=llm,batch=false", nullptr, &reasons);
  EXPECT_TRUE(std::isnan(s[2]) && std::isnan(s[3]));
  EXPECT_FALSE(std::isnan(s[0]) || std::isnan(s[1]) || std::isnan(s[4]) || std::isnan(s[5]));
  ASSERT_EQ(reasons.size(), 2u);
  EXPECT_NE(reasons[0].find("statement decomposition"), std::string::npos) << reasons[0];
  // Re-asked before giving up (1 + 2 re-asks), and counted as unparsed.
  EXPECT_EQ(model.decomposed.count(model.fail_on), 3u);
}

TEST(LlmDecomposer, ARerunFromTheCacheMakesNoRequest) {
  const std::string cache = temp_path("decompose.sqlite");
  MockServer server;
  Model model;
  server.set_handler([&](const json& r) { return model.answer(r); });
  std::vector<double> first;
  {
    SessionGuard guard(mock_session(server, cache));
    first = scores(tasks3(), "stmt-tv,predictor=llm,batch=false");
  }
  for (double v : first) EXPECT_FALSE(std::isnan(v));
  const auto before = server.count();
  {
    SessionGuard guard(mock_session(server, cache));
    EXPECT_EQ(scores(tasks3(), "stmt-tv,predictor=llm,batch=false"), first);
  }
  EXPECT_EQ(server.count(), before);
  std::filesystem::remove(cache);
}

}  // namespace
}  // namespace probity::test
