// The LLM oracle predictor, the judge metric and structured-answer parsing against the mock
// server. The mock answers by a transparent rule: a claim is supported iff every content word
// (4+ letters) of the claim occurs in the candidate text.
#include <gtest/gtest.h>

#include <atomic>
#include <cctype>
#include <cmath>
#include <filesystem>
#include <fstream>
#include <nlohmann/json.hpp>
#include <numbers>
#include <set>
#include <sstream>

#include "cli_runner.hpp"
#include "llm/llm_test_util.hpp"
#include "llm/prompts.hpp"
#include "llm/session.hpp"
#include "llm/structured.hpp"
#include "perturb/llm_strategies.hpp"
#include "predict/llm_oracle.hpp"
#include "probity/audit.hpp"
#include "probity/engine.hpp"
#include "probity/error.hpp"
#include "probity/mi.hpp"
#include "probity/perturb.hpp"
#include "probity/scoring.hpp"

namespace {

using nlohmann::json;
using probity::test::mock_session;
using probity::test::MockServer;
using probity::test::SessionGuard;
using probity::test::temp_path;

std::set<std::string> content_words(std::string_view text) {
  std::set<std::string> out;
  std::istringstream in{std::string(text)};
  std::string w;
  while (in >> w) {
    std::string clean;
    for (char c : w)
      if (std::isalpha(static_cast<unsigned char>(c)))
        clean += static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
    if (clean.size() >= 4) out.insert(clean);
  }
  return out;
}

bool supports(std::string_view candidate, std::string_view claim) {
  auto have = content_words(candidate);
  for (const auto& w : content_words(claim))
    if (!have.count(w)) return false;
  return true;
}

// The text between the n-th "<<<\n" and the following "\n>>>".
std::string delimited(const std::string& prompt, int n) {
  std::size_t pos = 0;
  for (int i = 0; i <= n; ++i) pos = prompt.find("<<<\n", pos) + 4;
  return prompt.substr(pos, prompt.find("\n>>>", pos) - pos);
}

std::vector<std::string> claims(const std::string& prompt) {
  std::vector<std::string> out;
  auto start = prompt.find("CLAIMS:\n") + 8;
  std::istringstream in(prompt.substr(start));
  std::string line;
  while (std::getline(in, line) && !line.empty()) out.push_back(line.substr(line.find(". ") + 2));
  return out;
}

// A decomposition by the rule: one statement per sentence.
json sentence_statements(const std::string& text) {
  json out = json::array();
  std::size_t from = 0;
  while (from < text.size()) {
    auto end = text.find(". ", from);
    end = end == std::string::npos ? text.size() : end + 1;
    out.push_back(text.substr(from, end - from));
    from = end + (end < text.size() ? 1 : 0);
  }
  return out;
}

// Answers every oracle and decomposition prompt by the rule, in the shape the prompt asks for.
std::string rule_answer(const json& request) {
  const std::string prompt = request["messages"][0]["content"].get<std::string>();
  const std::string text = delimited(prompt, 0);
  if (prompt.find("{\"statements\":") != std::string::npos)
    return json{{"statements", sentence_statements(text)}}.dump();
  if (prompt.find("CLAIMS:") != std::string::npos) {
    json list = json::array();
    const bool levels = prompt.find("\"levels\"") != std::string::npos;
    for (const auto& c : claims(prompt)) {
      if (levels) {
        list.push_back(supports(text, c) ? 3 : -3);
      } else {
        list.push_back(supports(text, c));
      }
    }
    return json{{levels ? "levels" : "supported", list}}.dump();
  }
  const std::string target = delimited(prompt, 1);
  if (prompt.find("\"level\"") != std::string::npos)
    return json{{"level", supports(text, target) ? 3 : -3}}.dump();
  if (prompt.find("\"same\"") != std::string::npos)
    return json{{"same", supports(text, target)}}.dump();
  // A model that wraps its answer in a fence with Python literals: repaired, not re-asked.
  return supports(text, target) ? "```json\n{'supported': True}\n```" : "{\"supported\": false}";
}

probity::Dataset three_tasks() {
  probity::Dataset ds;
  const char* refs[] = {"The council approved the budget. Taxes will rise next year.",
                        "The river flooded the village. Residents were evacuated by boat.",
                        "The team won the final. Their captain scored twice."};
  const char* good[] = {"The council approved the budget and taxes will rise next year.",
                        "Residents were evacuated by boat after the river flooded the village.",
                        "Their captain scored twice as the team won the final."};
  const char* bad[] = {"The council approved something.", "It rained.",
                       "The final was played on Sunday."};
  for (int t = 0; t < 3; ++t) {
    probity::Task task;
    task.task_id = "t" + std::to_string(t);
    task.group = "g";
    task.references.push_back({"r", refs[t]});
    task.candidates.push_back({"good", "A", good[t], {}});
    task.candidates.push_back({"bad", "B", bad[t], {}});
    ds.tasks.push_back(std::move(task));
  }
  return ds;
}

std::vector<double> primary_scores(const probity::Dataset& ds, const std::string& spec) {
  auto items = probity::all_items(ds);
  std::vector<probity::MetricSelection> m;
  m.push_back(probity::test::engine_select_metric(spec));
  auto stats = probity::compute_stats(ds, items, m);
  std::vector<double> out;
  std::vector<double> parts(m[0].metric->parts().size());
  for (std::size_t i = 0; i < items.size(); ++i) {
    m[0].metric->sentence_score(stats[0].row(i), parts);
    out.push_back(parts[m[0].primary]);
  }
  return out;
}

TEST(LlmPredict, StmtTvRunsEndToEndAndBatchedEqualsPerStatement) {
  MockServer server;
  server.set_handler(rule_answer);
  SessionGuard guard(mock_session(server));
  const auto ds = three_tasks();
  auto single = primary_scores(ds, "stmt-tv,predictor=llm,batch=false");
  const auto single_calls = server.count();
  server.reset();
  server.set_handler(rule_answer);
  auto batched = primary_scores(ds, "stmt-tv,predictor=llm,batch=true");
  const auto batched_calls = server.count();
  ASSERT_EQ(single.size(), 6u);
  EXPECT_EQ(single, batched);
  EXPECT_LT(batched_calls, single_calls);
  for (std::size_t t = 0; t < 3; ++t) {
    EXPECT_TRUE(std::isfinite(single[2 * t]));
    // A good candidate supports both of its reference's statements: critic +½, every negative
    // statement unsupported (−½, f*(−½) = −½ for TV): ½ − (−½) = 1.
    EXPECT_DOUBLE_EQ(single[2 * t], 1.0) << t;
    EXPECT_LT(single[2 * t + 1], single[2 * t]) << t;
  }
}

TEST(LlmPredict, OrdinalOracleGivesLevelTimesLn2) {
  MockServer server;
  server.set_handler(rule_answer);
  SessionGuard guard(mock_session(server));
  const auto ds = three_tasks();
  auto scores = primary_scores(ds, "gppm-j,predictor=llm");
  // Good candidates support both statements: level 3 each → mean log r = 3 ln 2.
  for (std::size_t t = 0; t < 3; ++t) EXPECT_NEAR(scores[2 * t], 3 * std::numbers::ln2, 1e-12) << t;
  // "It rained." supports neither statement of its reference.
  EXPECT_NEAR(scores[3], -3 * std::numbers::ln2, 1e-12);
}

TEST(LlmPredict, SecondRunIsServedFromTheCache) {
  MockServer server;
  server.set_handler(rule_answer);
  const std::string cache = temp_path("cache.sqlite");
  const auto ds = three_tasks();
  std::vector<double> first, second;
  {
    SessionGuard guard(mock_session(server, cache));
    first = primary_scores(ds, "tvd-mi,predictor=llm");
  }
  EXPECT_GT(server.count(), 0u);
  server.reset();
  server.set_handler(rule_answer);
  {
    auto session = mock_session(server, cache);
    SessionGuard guard(session);
    second = primary_scores(ds, "tvd-mi,predictor=llm");
    EXPECT_GT(session->accounting().total().cache_hits, 0u);
  }
  EXPECT_EQ(server.count(), 0u);
  EXPECT_EQ(first, second);
  std::filesystem::remove(cache);
}

TEST(LlmPredict, UnparseableAnswersAreReaskedThenRecordedAsFailed) {
  MockServer server;
  server.set_handler([](const json&) { return std::string("I would rather not say."); });
  auto session = mock_session(server);
  SessionGuard guard(session);
  const auto ds = three_tasks();
  auto items = probity::all_items(ds);
  std::vector<probity::MetricSelection> m;
  m.push_back(
      probity::test::engine_select_metric("mi:tv/fvar/report/oracle,predictor=llm,reasks=1,k=1"));
  auto stats = probity::compute_stats(ds, items, m);
  const auto& metric = *m[0].metric;
  ASSERT_EQ(metric.num_stats(), 3u);  // score, failed, empty reference
  std::vector<double> parts(1);
  for (std::size_t i = 0; i < items.size(); ++i) {
    metric.sentence_score(stats[0].row(i), parts);
    EXPECT_TRUE(std::isnan(parts[0])) << i;  // never a default value
    EXPECT_NE(metric.undefined_reason(stats[0].row(i)).find("failed"), std::string::npos);
  }
  // Every distinct question was asked twice (one re-ask with the parse error).
  for (const auto& call : server.calls()) {
    auto body = json::parse(call.body);
    if (body["messages"].size() > 1) {
      EXPECT_NE(body["messages"][2]["content"].get<std::string>().find("could not be used"),
                std::string::npos);
    }
  }
  std::size_t first_asks = 0, reasks = 0;
  for (const auto& call : server.calls())
    (json::parse(call.body)["messages"].size() == 1 ? first_asks : reasks) += 1;
  EXPECT_EQ(first_asks, reasks);
  // The accounting holds the same counts: every question unusable after its one re-ask.
  const auto total = session->accounting().total();
  EXPECT_GT(total.questions, 0u);
  EXPECT_EQ(total.reasks, reasks);
  EXPECT_EQ(total.unparsed, total.questions);
  EXPECT_NE(session->accounting().summary().find("unparsed"), std::string::npos);
}

TEST(LlmPredict, ConstructingWithoutSessionIsAUsageError) {
  EXPECT_THROW(probity::test::engine_select_metric("stmt-tv,predictor=llm"), probity::UsageError);
  EXPECT_THROW(probity::test::engine_select_metric("llm-judge"), probity::UsageError);
}

TEST(LlmPredict, SignatureHoldsPromptHashesAndModel) {
  MockServer server;
  SessionGuard guard(mock_session(server));
  auto sel = probity::test::engine_select_metric("stmt-tv,predictor=llm");
  const auto sig = sel.metric->signature();
  const auto hash = probity::llm::load_prompt("oracle_critic_statement.v1").sha256.substr(0, 16);
  EXPECT_NE(sig.find(hash), std::string::npos) << sig;
  EXPECT_NE(sig.find("mock-model"), std::string::npos) << sig;
  EXPECT_NE(sig.find("batch:true"), std::string::npos) << sig;
}

TEST(LlmPredict, JsonAnswersAreRepaired) {
  std::string err;
  auto j = probity::llm::parse_json_answer("Sure! ```json\n{\"level\": 2}\n``` Hope it helps", err);
  ASSERT_TRUE(j) << err;
  EXPECT_EQ((*j)["level"], 2);
  j = probity::llm::parse_json_answer("Here it is: {'supported': False}. Done.", err);
  ASSERT_TRUE(j) << err;
  EXPECT_EQ(probity::llm::get_bool_field(*j, "supported", err), false);
  j = probity::llm::parse_json_answer("Yes.", err);
  ASSERT_TRUE(j) << err;
  EXPECT_EQ(probity::llm::get_bool_field(*j, "supported", err), true);
  j = probity::llm::parse_json_answer("{\"supported\": \"YES\"}", err);
  EXPECT_EQ(probity::llm::get_bool_field(*j, "supported", err), true);
  EXPECT_FALSE(probity::llm::parse_json_answer("maybe", err));
  EXPECT_FALSE(probity::llm::parse_json_answer("{\"level\": ", err));
  j = probity::llm::parse_json_answer("{\"level\": 4}", err);
  EXPECT_FALSE(probity::llm::get_int_field(*j, "level", -3, 3, err));
  j = probity::llm::parse_json_answer("{\"level\": \"-2\"}", err);
  EXPECT_EQ(probity::llm::get_int_field(*j, "level", -3, 3, err), -2);
}

TEST(LlmPredict, TemplatesRenderAndRejectUnknownPlaceholders) {
  auto t = probity::llm::load_prompt("oracle_ordinal.v1");
  EXPECT_EQ(t.sha256, probity::llm::sha256_hex(t.text));
  auto text = t.render({{"candidate", "A {target} text"}, {"target", "claim"}});
  EXPECT_NE(text.find("A {target} text"), std::string::npos);  // values are not rescanned
  EXPECT_THROW(t.render({{"nonexistent", "x"}}), std::invalid_argument);
  EXPECT_THROW(probity::llm::load_prompt("no_such_prompt.v1"), probity::UsageError);
}

// ---- LLM-as-a-Judge ---------------------------------------------------------------------------

TEST(LlmJudge, RatesAndAveragesSamples) {
  MockServer server;
  server.set_handler([](const json& r) {
    const std::string prompt = r["messages"][0]["content"].get<std::string>();
    const std::string cand = delimited(prompt, 1);
    const bool good = supports(cand, delimited(prompt, 0));
    // Sample-dependent answers show that samples are distinct requests: seeds differ.
    const int seed = r.contains("seed") ? r["seed"].get<int>() : 0;
    return json{{"rating", good ? 4 + (seed % 2) : 2}}.dump();
  });
  SessionGuard guard(mock_session(server));
  const auto ds = three_tasks();
  auto one = primary_scores(ds, "llm-judge");
  for (std::size_t t = 0; t < 3; ++t) {
    EXPECT_EQ(one[2 * t + 1], 2.0);
    EXPECT_GE(one[2 * t], 4.0);
  }
  server.reset();
  server.set_handler([](const json&) { return std::string("{\"rating\": 3}"); });
  auto three = primary_scores(ds, "llm-judge,samples=3,scale=1-10");
  for (double v : three) EXPECT_EQ(v, 3.0);
  EXPECT_EQ(server.count(), 18u);  // 6 items × 3 samples
  auto sel = probity::test::engine_select_metric("llm-judge,samples=3,scale=1-10");
  EXPECT_NE(sel.metric->signature().find("scale:1-10|samples:3"), std::string::npos);
}

TEST(LlmJudge, OutOfScaleRatingsFailInsteadOfDefaulting) {
  MockServer server;
  server.set_handler([](const json&) { return std::string("{\"rating\": 9}"); });
  SessionGuard guard(mock_session(server));
  const auto ds = three_tasks();
  auto scores = primary_scores(ds, "llm-judge,reasks=2");
  for (double v : scores) EXPECT_TRUE(std::isnan(v));
  EXPECT_EQ(server.count(), 18u);  // 6 items × (1 ask + 2 re-asks)
  EXPECT_THROW(probity::test::engine_select_metric("llm-judge,scale=5-1"), probity::UsageError);
}

TEST(LlmJudge, ItemsAreAskedInBatchesNotOneScoringThreadAtATime) {
  // One scoring thread: without Metric::prefetch only one request would be in flight.
  MockServer server;
  server.set_latency_ms(20);
  SessionGuard guard(mock_session(server));
  probity::Dataset ds;
  for (int t = 0; t < 40; ++t) {
    probity::Task task;
    task.task_id = "t" + std::to_string(t);
    task.references.push_back({"r", "The river flooded village number " + std::to_string(t)});
    task.candidates.push_back({"c", "A", "A flood hit village " + std::to_string(t), {}});
    ds.tasks.push_back(std::move(task));
  }
  for (const std::string spec : {"llm-judge", "stmt-tv,predictor=llm"}) {
    server.reset();
    server.set_latency_ms(20);
    if (spec == "llm-judge")
      server.set_handler([](const json&) { return std::string("{\"rating\": 3}"); });
    else
      server.set_handler(rule_answer);
    auto items = probity::all_items(ds);
    std::vector<probity::MetricSelection> m;
    m.push_back(probity::test::engine_select_metric(spec));
    probity::ScoreOptions so;
    so.threads = 1;
    auto stats = probity::compute_stats(ds, items, m, so);
    EXPECT_GE(server.max_in_flight(), 8) << spec;
    std::vector<double> parts(m[0].metric->parts().size());
    for (std::size_t i = 0; i < items.size(); ++i) {
      m[0].metric->sentence_score(stats[0].row(i), parts);
      EXPECT_FALSE(std::isnan(parts[0])) << spec << " item " << i;
    }
  }
}

// ---- Style normalisation (style=llm on any metric) ----------------------------------------------

std::string style_rule(const std::string& text) {
  std::string lower;
  for (char c : text) lower += static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  return "The text states " + lower;
}

// Answers style prompts by style_rule, with a list marker, an empty line and a line without the
// prefix that the cleaning must drop; a text containing "rained" gets no usable line.
std::string style_answer(const json& request) {
  const std::string prompt = request["messages"].back()["content"].get<std::string>();
  const std::string text = delimited(request["messages"][0]["content"].get<std::string>(), 0);
  if (text.find("rained") != std::string::npos) return R"({"lines": ["Nothing to say."]})";
  (void)prompt;
  return json{{"lines", {"- " + style_rule(text), " ", "Also some chatter."}}}.dump();
}

TEST(StyleNormalization, MetricScoresTheModelsRewritesOfEveryText) {
  MockServer server;
  server.set_handler(style_answer);
  SessionGuard guard(mock_session(server));
  auto ds = three_tasks();
  ds.tasks[1].candidates[1].text = "It was sunny.";  // no failure in this test
  auto rewritten = ds;
  for (auto& t : rewritten.tasks) {
    for (auto& r : t.references) r.text = style_rule(r.text);
    for (auto& c : t.candidates) c.text = style_rule(c.text);
  }
  for (const std::string spec : {"gem", "rougeL", "tvd-mi"}) {
    const auto expected = primary_scores(rewritten, spec);
    const auto got = primary_scores(ds, spec + ",style=llm");
    ASSERT_EQ(got.size(), expected.size());
    for (std::size_t i = 0; i < got.size(); ++i) EXPECT_DOUBLE_EQ(got[i], expected[i]) << spec;
    EXPECT_NE(got, primary_scores(ds, spec)) << spec << ": the rewrite must matter";
  }
  const auto sel = probity::test::engine_select_metric("gem,style=llm");
  EXPECT_NE(sel.metric->signature().find("|style:llm|role:perturber|"), std::string::npos);
  EXPECT_NE(sel.metric->signature().find("prompt:style_normalize.v1="), std::string::npos);
  EXPECT_THROW(probity::test::engine_select_metric("gem,style=fancy"), probity::UsageError);
  EXPECT_THROW(probity::test::engine_select_metric("bleu,style_llm=judge"),
               probity::UsageError);  // unused
}

TEST(StyleNormalization, AFailedRewriteMakesTheItemUndefinedNotRaw) {
  MockServer server;
  server.set_handler(style_answer);
  auto session = mock_session(server);
  SessionGuard guard(session);
  const auto ds = three_tasks();  // task 1's second candidate is "It rained."
  auto items = probity::all_items(ds);
  std::vector<probity::MetricSelection> m;
  m.push_back(probity::test::engine_select_metric("rougeL,style=llm,style_reasks=1"));
  auto stats = probity::compute_stats(ds, items, m);
  std::vector<double> parts(m[0].metric->parts().size());
  for (std::size_t i = 0; i < items.size(); ++i) {
    m[0].metric->sentence_score(stats[0].row(i), parts);
    const bool failing =
        ds.tasks[items[i].task].candidates[items[i].candidate].text == "It rained.";
    EXPECT_EQ(std::isnan(parts[m[0].primary]), failing) << i;
    if (failing) {
      EXPECT_NE(m[0].metric->undefined_reason(stats[0].row(i)).find("style normalisation"),
                std::string::npos);
    }
  }
  EXPECT_EQ(session->accounting().total().unparsed, 1u);
  EXPECT_EQ(session->accounting().total().reasks, 1u);
}

TEST(StyleNormalization, SecondRunIsServedFromTheCache) {
  MockServer server;
  server.set_handler(style_answer);
  const std::string cache = temp_path("style-cache.sqlite");
  const auto ds = three_tasks();
  std::vector<double> first, second;
  {
    SessionGuard guard(mock_session(server, cache));
    first = primary_scores(ds, "gem,style=llm");
  }
  EXPECT_GT(server.count(), 0u);
  server.reset();
  // Usable answers are served from the cache; the one that stayed unusable ("It rained.") was
  // not kept, so it alone is asked again.
  std::atomic<int> others{0};
  server.set_handler([&](const json& request) {
    const std::string text = delimited(request["messages"][0]["content"].get<std::string>(), 0);
    if (text.find("rained") == std::string::npos) ++others;
    return style_answer(request);
  });
  {
    SessionGuard guard(mock_session(server, cache));
    second = primary_scores(ds, "gem,style=llm");
  }
  EXPECT_GT(server.count(), 0u);
  EXPECT_EQ(others.load(), 0);
  ASSERT_EQ(first.size(), second.size());
  for (std::size_t i = 0; i < first.size(); ++i)
    if (!std::isnan(first[i])) {
      EXPECT_EQ(first[i], second[i]);
    }
  std::filesystem::remove(cache);
}

}  // namespace

// ---- Autoregression from prompt log-probabilities ---------------------------------------------

namespace {

// log p(y | prefix) under the mock's token model: y's words after the prefix's words.
double mock_log_prob(const std::string& prefix, const std::string& y) {
  const auto prefix_words = MockServer::words(prefix);
  const auto all = MockServer::words(prefix + y);
  double sum = 0;
  for (std::size_t i = prefix_words.size(); i < all.size(); ++i) sum += MockServer::logprob(all, i);
  return sum;
}

void expect_hand_computed_pmi(MockServer& server, const std::string& spec) {
  const auto ds = three_tasks();
  auto scores = primary_scores(ds, spec);
  const auto cond = probity::llm::load_prompt("lm_conditional.v1");
  const auto bare = probity::llm::load_prompt("lm_unconditional.v1").text;
  std::size_t i = 0;
  for (const auto& t : ds.tasks) {
    for (const auto& c : t.candidates) {
      const auto& y = t.references[0].text;
      const double pmi =
          mock_log_prob(cond.render({{"context", c.text}}), y) - mock_log_prob(bare, y);
      EXPECT_DOUBLE_EQ(scores[i], pmi) << spec << " item " << i;
      ++i;
    }
  }
  EXPECT_GT(server.count(), 0u);
}

}  // namespace

TEST(LlmPredict, AutoregressionPmiEqualsTheMockModelsHandComputedValue) {
  MockServer server;
  SessionGuard guard(mock_session(server));
  expect_hand_computed_pmi(server, "gem,predictor=llm");
  EXPECT_GT(server.count("/tokenize"), 0u);
}

TEST(LlmPredict, AutoregressionFindsTheSpanByTextWithoutTokenize) {
  MockServer server;
  // A server without /tokenize (its body is the only one without a prompt to complete).
  server.set_fault_rule([](const json& body) -> std::optional<probity::test::MockFault> {
    if (!body.contains("echo")) return probity::test::MockFault::http(404);
    return std::nullopt;
  });
  SessionGuard guard(mock_session(server));
  expect_hand_computed_pmi(server, "gem,predictor=llm");
  // The 404 of the /tokenize probe answered the capability question: no failure is counted.
  for (const auto& e : guard.engine.llm()->accounting().endpoints())
    EXPECT_TRUE(e.failures.empty()) << e.endpoint;
}

// /tokenize answering 5xx on the first batch (the capability check) is a failure, counted as
// every failed request is (so that the command's --max-failed exit sees it), not the answer "no
// /tokenize here" that a 404 or a refused request gives.
TEST(LlmPredict, AServerErrorOnTheTokenizeProbeIsCountedAsAFailure) {
  MockServer server;
  server.set_fault_rule([](const json& body) -> std::optional<probity::test::MockFault> {
    if (!body.contains("echo") && !body.contains("messages") && !body.contains("prompt_logprobs"))
      return probity::test::MockFault::http(500);
    return std::nullopt;
  });
  SessionGuard guard(mock_session(server));
  const auto scores = primary_scores(three_tasks(), "gem,predictor=llm");
  EXPECT_GT(server.count("/tokenize"), 0u);
  std::uint64_t failed = 0;
  for (const auto& e : guard.engine.llm()->accounting().endpoints())
    for (const auto& [kind, n] : e.failures) failed += n;
  EXPECT_GT(failed, 0u);
  for (double s : scores) EXPECT_TRUE(std::isnan(s));
}

TEST(LlmPredict, AutoregressionWithVllmPromptLogprobs) {
  MockServer server;
  SessionGuard guard(mock_session(server));
  expect_hand_computed_pmi(server, "mi:kl/direct/token/ar,llm=lm,prompt_logprobs=true");
}

TEST(LlmPredict, ServerWithoutPromptLogprobsGetsAClearErrorNamingTheLimitation) {
  // Like the current llama.cpp server: echo is accepted with HTTP 200 and answered with the
  // log-probabilities of the generated token only; prompt_logprobs is ignored.
  probity::test::MockServer::Options options;
  options.scores_prompts = false;
  for (const std::string spec :
       {"gem,predictor=llm", "mi:kl/direct/token/ar,llm=lm,prompt_logprobs=true"}) {
    MockServer server(options);
    SessionGuard guard(mock_session(server));
    try {
      primary_scores(three_tasks(), spec);
      ADD_FAILURE() << spec << ": no error";
    } catch (const probity::UsageError& e) {
      const std::string what = e.what();
      EXPECT_NE(what.find("no prompt log-probabilities"), std::string::npos) << what;
      EXPECT_NE(what.find("llama.cpp's server does not score prompts"), std::string::npos) << what;
      EXPECT_NE(what.find("vLLM"), std::string::npos) << what;
      // What the server did, not a refusal it never made.
      EXPECT_EQ(what.find("refused"), std::string::npos) << what;
      if (spec.starts_with("gem"))
        EXPECT_NE(what.find("answered echo with log-probs for the 1 generated token only, not "
                            "the prompt"),
                  std::string::npos)
            << what;
      else
        EXPECT_NE(what.find("answered prompt_logprobs without any log-probabilities"),
                  std::string::npos)
            << what;
    }
    // Found from the first answer: one completion, and no /tokenize for a server that cannot
    // score a prompt anyway.
    EXPECT_EQ(server.count("/v1/completions"), 1u) << spec;
    EXPECT_EQ(server.count("/tokenize"), 0u) << spec;
  }
}

TEST(LlmPredict, AServerRefusingEchoIsNamedAsRefusingIt) {
  // The older llama.cpp server: HTTP 500 "Only no echo is supported", never retried.
  MockServer server;
  server.set_fault_rule([](const json& r) -> std::optional<probity::test::MockFault> {
    if (r.value("echo", false))
      return probity::test::MockFault::rejection(500, "Only no echo is supported");
    return std::nullopt;
  });
  SessionGuard guard(mock_session(server));
  try {
    primary_scores(three_tasks(), "gem,predictor=llm");
    ADD_FAILURE() << "no error";
  } catch (const probity::UsageError& e) {
    const std::string what = e.what();
    EXPECT_NE(what.find("the server refused echo (HTTP 500: Only no echo is supported)"),
              std::string::npos)
        << what;
  }
  EXPECT_EQ(server.count("/v1/completions"), 1u);
  EXPECT_EQ(server.count("/tokenize"), 0u);
}

// ---- LLM perturbations and a whole audit --------------------------------------------------------

namespace {

// Oracle and judge prompts by the rule; perturbation prompts answered by dropping the text's
// second half (degradations) or appending a filler sentence (manipulations).
std::string audit_answer(const json& request) {
  const std::string prompt = request["messages"][0]["content"].get<std::string>();
  if (prompt.find("{\"text\"") != std::string::npos) {
    const std::string text = delimited(prompt, prompt.find("INPUT:") != std::string::npos ? 1 : 0);
    if (prompt.find("Paraphrase") != std::string::npos)
      return json{{"text", text + " Indeed."}}.dump();
    auto words = MockServer::words(text);
    std::string half;
    for (std::size_t i = 0; i < (words.size() + 1) / 2; ++i) half += (i ? " " : "") + words[i];
    return json{{"text", half}}.dump();
  }
  if (prompt.find("\"rating\"") != std::string::npos)
    return json{{"rating", supports(delimited(prompt, 1), delimited(prompt, 0)) ? 5 : 2}}.dump();
  return rule_answer(request);
}

std::string write_dataset(const probity::Dataset& ds, const std::string& path) {
  std::ofstream out(path);
  double rating = 1;
  for (const auto& t : ds.tasks) {
    json j{{"task_id", t.task_id}, {"group", t.group}, {"source", "A source text."}};
    j["references"] = json::array({json{{"id", "r"}, {"text", t.references[0].text}}});
    j["candidates"] = json::array();
    for (const auto& c : t.candidates) {
      j["candidates"].push_back(json{{"id", c.id},
                                     {"system", c.system},
                                     {"text", c.text},
                                     {"human", {{"overall", {rating}}}}});
      rating = rating >= 5 ? 1 : rating + 1.5;
    }
    out << j.dump() << "\n";
  }
  return path;
}

}  // namespace

TEST(LlmPerturb, StrategiesAreRegisteredWithPromptsAndFailInsteadOfNoOp) {
  MockServer server;
  server.set_handler([](const json&) { return std::string("Sorry, I cannot do that."); });
  // An engine has the LLM strategies exactly when it has a session.
  probity::Engine offline;
  EXPECT_EQ(offline.strategies().list(probity::StrategyKind::kDegradation).size(), 6u);
  EXPECT_THROW(probity::perturb::create_strategy(probity::StrategyKind::kDegradation, "llm:D",
                                                 offline.strategies()),
               probity::UsageError);
  SessionGuard guard(mock_session(server));
  probity::PerturbationRegistry registry = guard.engine.strategies();
  probity::perturb::register_llm_strategies(registry, guard.engine.llm());  // idempotent
  // The six rule-based ones, v2 for every strategy but random replacement and sentence deletion
  // (rules in the papers), v1 for all twelve.
  EXPECT_EQ(registry.list(probity::StrategyKind::kDegradation).size(), 6u + 4u + 6u);
  EXPECT_EQ(registry.list(probity::StrategyKind::kManipulation).size(), 6u + 6u + 6u);
  EXPECT_EQ(
      probity::perturb::llm_strategy_names(probity::StrategyKind::kDegradation, {"all"}, registry),
      (std::vector<std::string>{"R", "S", "llm-D", "llm-P", "llm-U", "llm-O"}));
  EXPECT_EQ(
      probity::perturb::llm_strategy_names(probity::StrategyKind::kManipulation, {"all"}, registry),
      (std::vector<std::string>{"llm-R", "llm-M", "llm-P", "llm-N", "llm-H", "llm-S"}));
  // "all" stays the rule-based strategies.
  EXPECT_EQ(registry.resolve(probity::StrategyKind::kDegradation, {"all"}).size(), 6u);
  const auto ds = three_tasks();
  auto s = registry.create(probity::StrategyKind::kDegradation, "llm-S@v1");
  EXPECT_NE(s->signature().find("perturb_degradation_S.v1="), std::string::npos);
  probity::PerturbContext ctx{&ds, 0, 0, 7};
  auto r = s->apply(ctx);
  EXPECT_EQ(r.status, probity::PerturbResult::Status::kFailed);
  EXPECT_NE(r.note.find("unparseable"), std::string::npos) << r.note;
  EXPECT_EQ(server.count(), 3u);  // one ask and two re-asks
  server.reset();
  server.set_handler(audit_answer);
  r = s->apply(ctx);
  EXPECT_EQ(r.status, probity::PerturbResult::Status::kApplied);
  EXPECT_LT(r.text.size(), ds.tasks[0].candidates[0].text.size());
  // Surface report needs the task's source; the three tasks have none.
  auto p = registry.create(probity::StrategyKind::kDegradation, "llm-P");
  EXPECT_NE(p->signature().find("perturb_degradation_P.v2="), std::string::npos);
  EXPECT_EQ(p->apply(ctx).status, probity::PerturbResult::Status::kNotApplicable);
}

TEST(LlmPerturb, ApplyManySendsTheItemsAsOneBatchWithTheSameResultsAsApply) {
  MockServer server;
  server.set_handler(audit_answer);
  SessionGuard guard(mock_session(server));
  const auto& registry = guard.engine.strategies();
  probity::Dataset ds;
  for (int t = 0; t < 30; ++t) {
    probity::Task task;
    task.task_id = "t" + std::to_string(t);
    task.references.push_back({"r", "The river flooded village number " + std::to_string(t)});
    task.candidates.push_back(
        {"c", "A", "A flood hit village " + std::to_string(t) + ". People left by boat.", {}});
    ds.tasks.push_back(std::move(task));
  }
  auto s = registry.create(probity::StrategyKind::kDegradation, "llm-S@v1");
  ASSERT_TRUE(s->batched());
  std::vector<probity::PerturbContext> contexts;
  for (std::size_t t = 0; t < ds.tasks.size(); ++t) contexts.push_back({&ds, t, 0, 3});
  server.set_latency_ms(20);
  const auto many = s->apply_many(contexts);
  EXPECT_GE(server.max_in_flight(), 8);  // not one item at a time
  ASSERT_EQ(many.size(), contexts.size());
  for (std::size_t i = 0; i < contexts.size(); ++i) {
    const auto one = s->apply(contexts[i]);  // the same request, so the same answer
    EXPECT_EQ(one.status, many[i].status) << i;
    EXPECT_EQ(one.text, many[i].text) << i;
    EXPECT_EQ(many[i].status, probity::PerturbResult::Status::kApplied) << many[i].note;
  }
}

// In process with the rule-based strategies (the command-line test below audits with the LLM
// ones).
TEST(LlmPerturb, AuditWithLlmOracleAndJudgeCompletes) {
  MockServer server;
  server.set_handler(audit_answer);
  auto session = mock_session(server);
  SessionGuard guard(session);
  const auto data = write_dataset(three_tasks(), temp_path("audit.jsonl"));
  const auto out = temp_path("audit_out");
  probity::AuditOptions o;
  o.data = {data};
  o.metrics = {"stmt-tv,predictor=llm", "llm-judge"};
  o.degradations = {"S", "P"};
  o.manipulations = {"R"};
  o.bootstrap = 50;
  o.out_dir = out;
  auto report = probity::run_audit(o, probity::test::engine());
  ASSERT_EQ(report.metrics.size(), 2u);
  EXPECT_NE(report.signatures[0].find("oracle:llm"), std::string::npos);
  std::size_t applied = 0;
  for (const auto& t : report.tests) {
    EXPECT_EQ(t.failed, 0u) << t.metric << " " << t.code;
    applied += t.applied;
  }
  EXPECT_GT(applied, 0u);
  EXPECT_GT(session->accounting().total().answers, 0u);
  std::filesystem::remove_all(out);
  std::filesystem::remove(data);
}

TEST(LlmPredict, TheCommandStoppedByAServerWithoutPromptScoringStillShowsItsLlmUsage) {
  probity::test::MockServer::Options options;
  options.scores_prompts = false;
  MockServer server(options);
  const auto data = write_dataset(three_tasks(), temp_path("no_echo.jsonl"));
  const auto r = probity::test::run_probity(
      "score --data " + data + " --metric gem,predictor=llm --llm-concurrency 1 --llm-base-url " +
      server.base_url() + " --llm-model mock-model");
  EXPECT_EQ(r.exit_code, probity::kExitUsage) << r.err;
  EXPECT_NE(r.err.find("generated token only"), std::string::npos) << r.err;
  EXPECT_NE(r.err.find("LLM usage"), std::string::npos) << r.err;
  EXPECT_LT(r.err.find("LLM usage"), r.err.find("no prompt log-probabilities")) << r.err;
  EXPECT_EQ(server.count(), 1u);
  std::filesystem::remove(data);
}

TEST(LlmPerturb, CommandLineScoresAndAuditsWithLlmOracleJudgeAndPerturbations) {
  MockServer server;
  server.set_handler(audit_answer);
  const auto data = write_dataset(three_tasks(), temp_path("cli.jsonl"));
  const auto cache = temp_path("cli_cache.sqlite");
  const auto out = temp_path("cli_audit");
  const std::string llm = " --llm-base-url " + server.base_url() +
                          " --llm-model mock-model --llm-concurrency 4 --cache " + cache;
  auto r = probity::test::run_probity("score --data " + data +
                                      " --metric stmt-tv,predictor=llm --metric llm-judge" + llm);
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_NE(r.err.find("LLM usage"), std::string::npos) << r.err;
  EXPECT_NE(r.out.find("llm-judge"), std::string::npos);
  const auto first = server.count();
  EXPECT_GT(first, 0u);
  // Same command again: every answer comes from the cache.
  r = probity::test::run_probity("score --data " + data +
                                 " --metric stmt-tv,predictor=llm --metric llm-judge" + llm);
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_EQ(server.count(), first);
  r = probity::test::run_probity("audit --data " + data +
                                 " --metric stmt-tv,predictor=llm --metric llm-judge --perturber "
                                 "llm --degrade S,P --manipulate R --bootstrap 20 --out " +
                                 out + llm);
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_TRUE(std::filesystem::exists(out + "/llm_usage.json"));
  const auto report = probity::test::read_text(out + "/report.json");
  EXPECT_NE(report.find("llm-surface-report"), std::string::npos);
  // Sentence deletion stays rule-based under --perturber llm (the papers' protocol).
  EXPECT_EQ(report.find("llm-sentence-deletion"), std::string::npos);
  EXPECT_NE(report.find("\"sentence-deletion\""), std::string::npos);
  // The session's accounting is part of the report.
  const auto j = nlohmann::json::parse(report);
  ASSERT_TRUE(j["llm_usage"].is_object()) << report.substr(report.size() - 400);
  EXPECT_GT(j["llm_usage"]["total"]["answers"].get<long>(), 0);
  EXPECT_NE(probity::test::read_text(out + "/report.md").find("## LLM usage"), std::string::npos);
  // The whole audit again into a new directory (no audit cache): served by the LLM cache alone.
  const auto before = server.count();
  r = probity::test::run_probity("audit --data " + data +
                                 " --metric stmt-tv,predictor=llm --metric llm-judge --perturber "
                                 "llm --degrade S,P --manipulate R --bootstrap 20 --out " +
                                 out + "-again" + llm);
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_EQ(server.count(), before);
  const auto again = nlohmann::json::parse(probity::test::read_text(out + "-again/report.json"));
  EXPECT_EQ(again["llm_usage"]["total"]["requests"].get<long>(), 0);
  EXPECT_EQ(again["llm_usage"]["total"]["cache_hits"], j["llm_usage"]["total"]["answers"]);
  std::filesystem::remove_all(out + "-again");
  std::filesystem::remove_all(out);
  std::filesystem::remove(cache);
  std::filesystem::remove(data);
}
