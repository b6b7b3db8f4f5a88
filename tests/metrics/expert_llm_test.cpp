// ExPerT's LLM realisation (`expert,llm=<role>`) against the in-process mock server, which answers
// the four prompts by a transparent rule:
//   extraction: one aspect per sentence (title = evidence = the sentence);
//   matching:   the other aspect sharing the most words with the aspect's title, when they cover
//               at least half of its words (the first on ties), else null;
//   content:    aligned iff the two pieces of evidence have the same content words (4+ letters,
//               or holding a digit);
//   style:      aligned iff the two pieces of evidence end with the same punctuation mark.
// So every score can be checked by hand.
#include "metrics/expert_llm.hpp"

#include <fmt/format.h>
#include <gtest/gtest.h>
#include <unistd.h>

#include <cctype>
#include <cmath>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <nlohmann/json.hpp>
#include <set>
#include <sstream>

#include "cli_runner.hpp"
#include "llm/llm_test_util.hpp"
#include "llm/prompts.hpp"
#include "llm/session.hpp"
#include "llm/structured.hpp"
#include "metrics/expert.hpp"
#include "probity/engine.hpp"
#include "probity/error.hpp"
#include "probity/scoring.hpp"

namespace {

using namespace probity;
using namespace probity::metrics::expert;
using json = nlohmann::json;
using probity::test::mock_session;
using probity::test::MockServer;
using probity::test::SessionGuard;
using probity::test::temp_path;

// ---- the mock's rule ----------------------------------------------------------------------------

std::set<std::string> words(std::string_view s) {
  std::set<std::string> out;
  std::string cur;
  for (char c : std::string(s) + " ") {
    if (std::isalnum(static_cast<unsigned char>(c))) {
      cur += static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
    } else if (!cur.empty()) {
      out.insert(cur);
      cur.clear();
    }
  }
  return out;
}

std::set<std::string> content_words(std::string_view s) {
  std::set<std::string> out;
  for (const auto& w : words(s)) {
    bool digit = false;
    for (char c : w) digit |= std::isdigit(static_cast<unsigned char>(c)) != 0;
    if (w.size() >= 4 || digit) out.insert(w);
  }
  return out;
}

// The text between the n-th "<<<\n" and the following "\n>>>".
std::string delimited(const std::string& prompt, int n) {
  std::size_t pos = 0;
  for (int i = 0; i <= n; ++i) pos = prompt.find("<<<\n", pos) + 4;
  return prompt.substr(pos, prompt.find("\n>>>", pos) - pos);
}

std::vector<std::string> sentences(const std::string& text) {
  std::vector<std::string> out;
  std::string cur;
  for (std::size_t i = 0; i < text.size(); ++i) {
    cur += text[i];
    const bool end = text[i] == '.' || text[i] == '!' || text[i] == '?';
    if (end && (i + 1 == text.size() || text[i + 1] == ' ')) {
      while (!cur.empty() && cur.front() == ' ') cur.erase(cur.begin());
      out.push_back(cur);
      cur.clear();
    }
  }
  return out;
}

// "title\nevidence: E" → E.
std::string evidence_of(const std::string& block) {
  const auto at = block.find("evidence: ");
  return at == std::string::npos ? block : block.substr(at + 10);
}

enum class Kind { kExtract, kMatch, kContent, kStyle };

Kind kind_of(const std::string& prompt) {
  if (prompt.find("\"aspects\"") != std::string::npos) return Kind::kExtract;
  if (prompt.find("ASPECTS OF THE SECOND TEXT:") != std::string::npos) return Kind::kMatch;
  if (prompt.find("PASSAGE 1:") != std::string::npos) return Kind::kStyle;
  return Kind::kContent;
}

json rule_json(const std::string& prompt) {
  switch (kind_of(prompt)) {
    case Kind::kExtract: {
      json list = json::array();
      for (const auto& s : sentences(delimited(prompt, 0)))
        list.push_back({{"title", s}, {"evidence", s}});
      return {{"aspects", list}};
    }
    case Kind::kMatch: {
      const std::string block = delimited(prompt, 0);
      const auto mine = words(block.substr(0, block.find('\n')));
      std::istringstream in(prompt.substr(prompt.find("ASPECTS OF THE SECOND TEXT:\n") + 28));
      std::string line;
      int number = 0;
      json best = nullptr;
      std::size_t best_shared = 0;
      while (std::getline(in, line)) {
        if (line.empty() || !std::isdigit(static_cast<unsigned char>(line[0]))) {
          if (line.empty() && number > 0) break;
          continue;
        }
        ++number;
        std::size_t shared = 0;
        for (const auto& w : words(line.substr(line.find(". ") + 2))) shared += mine.count(w);
        if (2 * shared >= mine.size() && shared > best_shared) {
          best_shared = shared;
          best = number;
        }
      }
      return {{"match", best}, {"rationale", fmt::format("{} shared words", best_shared)}};
    }
    case Kind::kContent: {
      const auto a = evidence_of(delimited(prompt, 0)), b = evidence_of(delimited(prompt, 1));
      return {{"aligned", content_words(a) == content_words(b)},
              {"rationale", "compared the content words"}};
    }
    case Kind::kStyle: {
      const auto a = delimited(prompt, 0), b = delimited(prompt, 1);
      return {{"aligned", !a.empty() && !b.empty() && a.back() == b.back()},
              {"rationale", "compared the final punctuation"}};
    }
  }
  return nullptr;
}

std::string prompt_of(const json& request) {
  return request["messages"][0]["content"].get<std::string>();
}

std::string rule_answer(const json& request) {
  return rule_json(prompt_of(request)).dump();
}

// ---- set-up
// ---------------------------------------------------------------------------------------

std::shared_ptr<LlmAspectJudge> llm_judge(const std::shared_ptr<llm::Session>& session,
                                          int reasks = 2) {
  LlmJudgeOptions o;
  o.reasks = reasks;
  auto judge = std::dynamic_pointer_cast<LlmAspectJudge>(make_llm_aspect_judge(o, session));
  EXPECT_TRUE(judge);
  return judge;
}

// Reference aspects R1..R4, candidate aspects C1..C3 (one per sentence).
//   R1 ↔ C1: same content, '.' vs '!' (content yes, style no)
//   R2 ↔ C2: 5 vs 7 percent, both '.' (content no, style yes)
//   R3: nothing in the candidate shares half its words (no match)
//   R4 ↔ C3: same content, '.' vs '!' (content yes, style no)
const std::string kReference =
    "The council approved the budget. Taxes will rise by 5 percent. Schools get new funding. "
    "Shops open early.";
const std::string kCandidate =
    "The council approved the budget! Taxes will rise by 7 percent. Shops open early!";

Dataset two_tasks() {
  Dataset ds;
  const char* refs[] = {"The council approved the budget. Taxes will rise by 5 percent.",
                        "The river flooded the village. Residents were evacuated by boat."};
  const char* good[] = {"The council approved the budget. Taxes will rise by 5 percent.",
                        "The river flooded the village! Residents were evacuated by boat."};
  const char* bad[] = {"The council approved something else entirely.", "It rained."};
  for (int t = 0; t < 2; ++t) {
    Task task;
    task.task_id = "t" + std::to_string(t);
    task.group = "g";
    task.references.push_back({"r", refs[t]});
    task.candidates.push_back({"good", "A", good[t], {}});
    task.candidates.push_back({"bad", "B", bad[t], {}});
    ds.tasks.push_back(std::move(task));
  }
  return ds;
}

std::vector<std::vector<double>> stats_rows(const Dataset& ds, MetricSelection sel) {
  auto items = all_items(ds);
  std::vector<MetricSelection> m;
  m.push_back(std::move(sel));
  auto stats = compute_stats(ds, items, m);
  std::vector<std::vector<double>> out;
  for (std::size_t i = 0; i < items.size(); ++i) {
    auto row = stats[0].row(i);
    out.emplace_back(row.begin(), row.end());
  }
  return out;
}

std::vector<std::vector<double>> stats_rows(const Dataset& ds, const std::string& spec) {
  return stats_rows(ds, probity::test::engine_select_metric(spec));
}

// ---- tests --------------------------------------------------------------------------------------

TEST(ExpertLlm, HandCheckedScoresForEveryAggregation) {
  MockServer server;
  server.set_handler(rule_answer);
  auto judge = llm_judge(mock_session(server));
  const Analysis a = analyze(*judge, kCandidate, kReference);
  ASSERT_EQ(a.failed_steps, 0u) << a.failure;
  ASSERT_EQ(a.reference_aspects.size(), 4u);
  ASSERT_EQ(a.candidate_aspects.size(), 3u);
  EXPECT_EQ(a.reference_aspects[2].title, "Schools get new funding.");
  EXPECT_EQ(a.reference_aspects[2].sentence, 2u);  // located in the text
  EXPECT_FALSE(a.recall_side[2].match.partner.has_value());
  EXPECT_EQ(a.recall_side[1].match.partner, std::optional<std::size_t>(1));
  EXPECT_EQ(a.recall_side[1].match.rationale, "5 shared words");
  EXPECT_EQ(a.recall_side[0].content.rationale, "compared the content words");
  // Recall over R1..R4: (c, s) = (1, 0), (0, 1), unmatched, (1, 0).
  // Precision over C1..C3: C1 → R1 (1, 0), C2 → R2 (0, 1), C3 → R4 (1, 0).
  struct Expected {
    Aggregation agg;
    double r, p, f;
  };
  const std::vector<Expected> expected = {
      {Aggregation::kContent, 2.0 / 4, 2.0 / 3, 4.0 / 7},
      {Aggregation::kStyle, 1.0 / 4, 1.0 / 3, 2.0 / 7},
      {Aggregation::kAnd, 0.0, 0.0, 0.0},
      {Aggregation::kOr, 3.0 / 4, 1.0, 6.0 / 7},
      {Aggregation::kAverage, 1.5 / 4, 1.5 / 3, 3.0 / 7},
  };
  for (const auto& e : expected) {
    SCOPED_TRACE(std::string(aggregation_name(e.agg)));
    const auto g = static_cast<std::size_t>(e.agg);
    EXPECT_NEAR(a.recall[g], e.r, 1e-12);
    EXPECT_NEAR(a.precision[g], e.p, 1e-12);
    EXPECT_NEAR(a.f[g], e.f, 1e-12);
  }
  // 2 extractions + 7 matchings + 2 judgments for each of the 6 matched aspects; each one
  // request (no re-asks), every request distinct.
  EXPECT_EQ(a.steps, 21u);
  EXPECT_EQ(a.model_calls, 21u);
  EXPECT_EQ(server.count(), 21u);

  // The same text on both sides: everything matches itself and agrees.
  const Analysis same = analyze(*judge, kReference, kReference);
  for (std::size_t g = 0; g < kAggregations; ++g) EXPECT_DOUBLE_EQ(same.f[g], 1.0);
  // Both extractions come from the judge's memo; each side asks 4 matchings and 4 × 2
  // judgments (the sides' prompts are equal, but without a response cache both are sent).
  EXPECT_EQ(same.model_calls, 2u + 2 * 12);
  EXPECT_EQ(server.count(), 21u + 24);
  // Nothing in common: no match, every aggregation 0.
  const Analysis other = analyze(*judge, "Parks stay closed.", kReference);
  for (std::size_t g = 0; g < kAggregations; ++g) EXPECT_EQ(other.f[g], 0.0);

  // Through the metric: agg=or gives (p, r, f) = (1, 3/4, 6/7); model calls in the statistics.
  ExpertConfig cfg;
  cfg.aggregation = Aggregation::kOr;
  ExpertMetric metric(cfg, judge);
  MetricInput in;
  in.candidate = kCandidate;
  in.references = {kReference};
  const auto parts = metric.score(in);
  EXPECT_NEAR(parts[0], 1.0, 1e-12);
  EXPECT_NEAR(parts[1], 0.75, 1e-12);
  EXPECT_NEAR(parts[2], 6.0 / 7, 1e-12);
  std::vector<double> stats(metric.num_stats());
  metric.item_stats(in, stats);
  EXPECT_EQ(stats[3], 21.0);
  EXPECT_EQ(stats[4], 0.0);
  const auto doc = json::parse(metric.explain(in));
  EXPECT_EQ(doc["model_calls"], 21);
  EXPECT_FALSE(doc.contains("failed_steps"));
  EXPECT_EQ(doc["references"][0]["recall_side"][1]["match"], "C2");
  EXPECT_EQ(doc["references"][0]["recall_side"][1]["content_rationale"],
            "compared the content words");
  EXPECT_EQ(judge->failure_count(), 0u);
}

TEST(ExpertLlm, FencedPythonStyleAnswersAreRepairedWithoutReasking) {
  MockServer server;
  server.set_handler([](const json& request) {
    const std::string prompt = prompt_of(request);
    json j = rule_json(prompt);
    if (kind_of(prompt) == Kind::kContent || kind_of(prompt) == Kind::kStyle)
      return fmt::format(
          "Here is my judgment:\n```json\n{{'aligned': {}, 'rationale': "
          "'{}'}}\n```",
          j["aligned"].get<bool>() ? "True" : "False", j["rationale"].get<std::string>());
    if (kind_of(prompt) == Kind::kMatch && j["match"].is_number())
      j["match"] = std::to_string(j["match"].get<int>());  // a numeric string
    return "```\n" + j.dump() + "\n```";
  });
  auto judge = llm_judge(mock_session(server));
  const Analysis a = analyze(*judge, kCandidate, kReference);
  ASSERT_EQ(a.failed_steps, 0u) << a.failure;
  EXPECT_NEAR(a.f[static_cast<std::size_t>(Aggregation::kContent)], 4.0 / 7, 1e-12);
  EXPECT_NEAR(a.f[static_cast<std::size_t>(Aggregation::kAverage)], 3.0 / 7, 1e-12);
  EXPECT_EQ(server.count(), 21u);
  for (const auto& call : server.calls())
    EXPECT_EQ(json::parse(call.body)["messages"].size(), 1u);  // nothing was re-asked
}

TEST(ExpertLlm, UnparseableAnswerMakesTheItemUndefinedNeverADefault) {
  MockServer server;
  // Matching answers are prose the parser cannot use; everything else follows the rule.
  server.set_handler([](const json& request) {
    const std::string prompt = prompt_of(request);
    if (kind_of(prompt) == Kind::kMatch) return std::string("They look rather similar to me.");
    return rule_answer(request);
  });
  auto judge = llm_judge(mock_session(server), /*reasks=*/1);
  ExpertMetric metric(ExpertConfig{}, judge);
  MetricInput in;
  in.candidate = kCandidate;
  in.references = {kReference};
  std::vector<double> stats(metric.num_stats());
  metric.item_stats(in, stats);
  for (std::size_t k = 0; k < 3; ++k) EXPECT_TRUE(std::isnan(stats[k])) << k;
  EXPECT_EQ(stats[4], 1.0);  // one failed step
  EXPECT_EQ(stats[3], 3.0);  // two extractions and the failed matching were asked
  const auto parts = metric.score(in);
  for (double p : parts) EXPECT_TRUE(std::isnan(p));
  EXPECT_NE(metric.undefined_reason(stats).find("ExPerT model step"), std::string::npos);
  EXPECT_EQ(judge->failure_count(), 1u);
  // The analysis stopped at the failed step: 2 extractions + the matching asked twice.
  EXPECT_EQ(server.count(), 4u);
  std::size_t reasked = 0;
  for (const auto& call : server.calls()) {
    const auto body = json::parse(call.body);
    if (body["messages"].size() == 3) {
      ++reasked;
      EXPECT_NE(body["messages"][2]["content"].get<std::string>().find("could not be used"),
                std::string::npos);
    }
  }
  EXPECT_EQ(reasked, 1u);
  const auto doc = json::parse(metric.explain(in));
  EXPECT_TRUE(doc["f"].is_null());
  EXPECT_EQ(doc["failed_steps"], 1);
  const std::string failure = doc["references"][0]["failure"].get<std::string>();
  EXPECT_NE(failure.find("matching of R1 failed"), std::string::npos) << failure;
  EXPECT_NE(failure.find("unparseable answer"), std::string::npos) << failure;
  EXPECT_TRUE(doc["references"][0]["recall_side"].empty());  // no pair stands in for it

  // A judgment that is not a boolean fails the same way, and so does an empty extraction.
  MockServer server2;
  server2.set_handler([](const json& request) {
    const std::string prompt = prompt_of(request);
    if (kind_of(prompt) == Kind::kStyle)
      return std::string("{\"aligned\": \"somewhat\", \"rationale\": \"hard to say\"}");
    return rule_answer(request);
  });
  auto judge2 = llm_judge(mock_session(server2), 0);
  const Analysis a = analyze(*judge2, kCandidate, kReference);
  EXPECT_EQ(a.failed_steps, 1u);
  EXPECT_NE(a.failure.find("style judgment of R1 and C1 failed"), std::string::npos) << a.failure;
  EXPECT_TRUE(std::isnan(a.f[0]));
  MockServer server3;
  server3.set_handler([](const json&) { return std::string("{\"aspects\": []}"); });
  auto judge3 = llm_judge(mock_session(server3), 1);
  const Analysis b = analyze(*judge3, kCandidate, kReference);
  EXPECT_EQ(b.failed_steps, 1u);
  EXPECT_NE(b.failure.find("extraction of the reference's aspects failed"), std::string::npos)
      << b.failure;
  EXPECT_TRUE(b.reference_aspects.empty());
  EXPECT_EQ(server3.count(), 2u);
  // A blank text is not asked: no aspects, no request, F 0.
  const Analysis blank = analyze(*judge, "   ", kReference);
  EXPECT_EQ(blank.failed_steps, 0u);
  EXPECT_TRUE(blank.candidate_aspects.empty());
  EXPECT_EQ(blank.model_calls, 1u);  // the reference's extraction (memoized, no request)
  EXPECT_EQ(blank.f[4], 0.0);
}

TEST(ExpertLlm, RegistrySignatureOptionsAndSharedAnalyses) {
  MockServer server;
  server.set_handler(rule_answer);
  EXPECT_THROW(probity::test::engine_select_metric("expert,llm=judge"), UsageError);  // no session
  SessionGuard guard(mock_session(server));
  auto sel = probity::test::engine_select_metric("expert,llm=judge,agg=content");
  const std::string sig = sel.metric->signature();
  EXPECT_NE(sig.find("judge:llm|role:judge|model:mock-model|temp:0"), std::string::npos) << sig;
  EXPECT_NE(sig.find("calls:llm"), std::string::npos) << sig;
  EXPECT_NE(sig.find("reasks:2"), std::string::npos) << sig;
  for (const char* name :
       {"expert_extract.v1", "expert_match.v1", "expert_content.v1", "expert_style.v1"}) {
    const auto t = llm::load_prompt(name);
    EXPECT_NE(sig.find(std::string(name) + "=" + t.sha256.substr(0, 16)), std::string::npos) << sig;
  }
  EXPECT_NE(probity::test::engine_select_metric("expert,llm=judge,reasks=0")
                .metric->signature()
                .find("reasks:0"),
            std::string::npos);
  EXPECT_THROW(probity::test::engine_select_metric("expert,llm=judge,calib_seed=1"),
               UsageError);                                                          // offline only
  EXPECT_THROW(probity::test::engine_select_metric("expert,reasks=1"), UsageError);  // LLM only
  EXPECT_THROW(probity::test::engine_select_metric("expert,llm="), UsageError);
  EXPECT_THROW(probity::test::engine_select_metric("expert,llm=judge,reasks=11"), UsageError);
  EXPECT_THROW(probity::test::engine_select_metric("expert,llm=judge,prompts=/nonexistent"),
               UsageError);

  // Two aggregation variants share one judge and analysis cache (while one of them is alive):
  // the second costs no request.
  const Dataset ds = two_tasks();
  auto content_sel = probity::test::engine_select_metric("expert,llm=judge,agg=content");
  auto average_sel = probity::test::engine_select_metric("expert,llm=judge");
  const auto content = stats_rows(ds, std::move(content_sel));
  const auto after_first = server.count();
  EXPECT_GT(after_first, 0u);
  const auto average = stats_rows(ds, std::move(average_sel));
  EXPECT_EQ(server.count(), after_first);
  // Task 0's good candidate is its reference: F 1 under every aggregation. Task 1's good
  // candidate ends its first sentence with '!': content F 1, average F 3/4.
  EXPECT_DOUBLE_EQ(content[0][2], 1.0);
  EXPECT_DOUBLE_EQ(average[0][2], 1.0);
  EXPECT_DOUBLE_EQ(content[2][2], 1.0);
  EXPECT_DOUBLE_EQ(average[2][2], 0.75);
  // "It rained." matches nothing: F 0, and the item's model calls: 2 extractions, 1 matching
  // of the candidate's aspect, 2 of the reference's.
  EXPECT_EQ(content[3][2], 0.0);
  EXPECT_EQ(content[3][3], 5.0);
  for (const auto& row : content) EXPECT_EQ(row[4], 0.0);
}

TEST(ExpertLlm, SecondRunIsServedFromTheCache) {
  MockServer server;
  server.set_handler(rule_answer);
  const std::string cache = temp_path("cache.sqlite");
  const Dataset ds = two_tasks();
  std::vector<std::vector<double>> first, second;
  {
    SessionGuard guard(mock_session(server, cache));
    first = stats_rows(ds, "expert,llm=judge");
  }
  EXPECT_GT(server.count(), 0u);
  server.reset();
  server.set_handler(rule_answer);
  {
    auto session = mock_session(server, cache);
    SessionGuard guard(session);
    second = stats_rows(ds, "expert,llm=judge");
    EXPECT_GT(session->accounting().total().cache_hits, 0u);
  }
  EXPECT_EQ(server.count(), 0u);
  EXPECT_EQ(first, second);  // model calls included: they count judgments, not requests
  std::filesystem::remove(cache);
}

TEST(ExpertLlm, ItemsAreAnalysedConcurrentlyWithOneScoringThread) {
  // One scoring thread: without Metric::prefetch each analysis would ask one step at a time.
  MockServer server;
  server.set_handler(rule_answer);
  server.set_latency_ms(20);
  SessionGuard guard(mock_session(server));
  Dataset ds;
  for (int t = 0; t < 24; ++t) {
    Task task;
    task.task_id = "t" + std::to_string(t);
    task.references.push_back({"r", fmt::format("Village {} was flooded. Boats came.", t)});
    task.candidates.push_back({"c", "A", fmt::format("Village {} was flooded!", t), {}});
    ds.tasks.push_back(std::move(task));
  }
  auto items = all_items(ds);
  std::vector<MetricSelection> m;
  m.push_back(probity::test::engine_select_metric("expert,llm=judge,agg=content"));
  ScoreOptions so;
  so.threads = 1;
  auto stats = compute_stats(ds, items, m, so);
  EXPECT_GE(server.max_in_flight(), 8);
  // Each item: R1 and C1 match with the same content; R2 has no partner: r 1/2, p 1, F 2/3.
  for (std::size_t i = 0; i < items.size(); ++i) {
    EXPECT_NEAR(stats[0].row(i)[2], 2.0 / 3, 1e-12) << i;
    EXPECT_EQ(stats[0].row(i)[3], 2.0 + 3 + 4) << i;  // extractions, matchings, judgments
  }
}

TEST(ExpertLlm, ApiKeyNeverAppearsInExplainOrSignature) {
  const std::string secret = "sk-expert-secret-0123456789";
  setenv("PROBITY_TEST_EXPERT_KEY", secret.c_str(), 1);
  MockServer::Options so;
  so.api_key = secret;  // other Authorization headers get 401
  MockServer server(so);
  // A model that echoes the key in its rationales.
  server.set_handler([secret](const json& request) {
    json j = rule_json(prompt_of(request));
    if (j.contains("rationale")) j["rationale"] = "the key is " + secret;
    return j.dump();
  });
  auto judge = llm_judge(mock_session(server, "", "PROBITY_TEST_EXPERT_KEY"));
  ExpertMetric metric(ExpertConfig{}, judge);
  MetricInput in;
  in.candidate = kCandidate;
  in.references = {kReference};
  const std::string explain = metric.explain(in);
  const auto doc = json::parse(explain);
  EXPECT_EQ(doc["model_calls"], 21);  // the key was accepted: every step answered
  EXPECT_FALSE(doc.contains("failed_steps")) << explain;
  EXPECT_EQ(explain.find(secret), std::string::npos);
  EXPECT_NE(explain.find("[redacted]"), std::string::npos);
  EXPECT_EQ(metric.signature().find(secret), std::string::npos);
  for (const auto& call : server.calls()) EXPECT_EQ(call.authorization, "Bearer " + secret);
  unsetenv("PROBITY_TEST_EXPERT_KEY");
}

TEST(ExpertLlmCli, ScoreAndExplainAgainstAnEndpointThenFromTheCache) {
  MockServer::Options so;
  const std::string secret = "sk-expert-cli-secret-98765";
  so.api_key = secret;
  MockServer server(so);
  server.set_handler(rule_answer);
  setenv("PROBITY_TEST_EXPERT_CLI_KEY", secret.c_str(), 1);
  const std::string dir = temp_path("cli");
  std::filesystem::create_directories(dir);
  {
    std::ofstream out(dir + "/data.jsonl");
    for (const auto& t : two_tasks().tasks) {
      json j{{"task_id", t.task_id}, {"group", t.group}, {"source", "A source."}};
      j["references"] = json::array({json{{"id", "r"}, {"text", t.references[0].text}}});
      j["candidates"] = json::array();
      for (const auto& c : t.candidates)
        j["candidates"].push_back(json{{"id", c.id}, {"system", c.system}, {"text", c.text}});
      out << j.dump() << "\n";
    }
  }
  const std::string cmd = "score --data " + dir + "/data.jsonl --metric expert,llm=judge,agg=or" +
                          " --out " + dir + "/s.jsonl --explain " + dir + "/e.jsonl" +
                          " --llm-base-url " + server.base_url() +
                          " --llm-model mock-model --llm-api-key-env PROBITY_TEST_EXPERT_CLI_KEY" +
                          " --cache " + dir + "/cache.sqlite";
  auto r = probity::test::run_probity(cmd);
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_NE(r.err.find("LLM usage"), std::string::npos) << r.err;
  const auto requests = server.count();
  EXPECT_GT(requests, 0u);
  const std::string scores = probity::test::read_text(dir + "/s.jsonl");
  const std::string explain = probity::test::read_text(dir + "/e.jsonl");
  EXPECT_EQ(std::count(explain.begin(), explain.end(), '\n'), 4);
  const auto first = json::parse(explain.substr(0, explain.find('\n')));
  EXPECT_EQ(first["metric"], "expert.f,llm=judge,agg=or");
  EXPECT_GT(first["explain"]["model_calls"].get<int>(), 2);
  EXPECT_EQ(first["explain"]["f"], 1.0);
  EXPECT_NE(scores.find("judge:llm"), std::string::npos);
  EXPECT_EQ(scores.find(secret), std::string::npos);
  EXPECT_EQ(explain.find(secret), std::string::npos);
  EXPECT_EQ(r.err.find(secret), std::string::npos);
  // The same command again: every answer from the cache, the same records.
  r = probity::test::run_probity(cmd);
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_EQ(server.count(), requests);
  EXPECT_EQ(probity::test::read_text(dir + "/s.jsonl"), scores);
  EXPECT_EQ(probity::test::read_text(dir + "/e.jsonl"), explain);
  unsetenv("PROBITY_TEST_EXPERT_CLI_KEY");
  std::filesystem::remove_all(dir);
}

}  // namespace
