// The LLM realisation of benchmark construction (`bench-build --injector llm`, `--anchor-judge
// llm`) against the in-process mock server. The mock answers by transparent rules:
//
// - injection: "swap-number" replaces the first all-digit word d by "#<d+1>" (no such word:
//   {"applicable": false}); "drop-word" replaces the first word that is no error marker by
//   "ERR-drop-word"; every other type appends the word "ERR-<type>". Texts with a trigger word
//   misbehave: BROKEN answers the text unchanged once it has two errors (persistently), GARBLE
//   answers prose without JSON at the first ask, REWRITE answers an unrelated text at the first
//   ask, UNDO removes the last earlier error at the first ask, FENCE wraps every answer in a code
//   fence with Python literals, NOTHING declares every type not applicable.
// - comparison: the text with fewer error markers (words starting with "ERR-" or "#") is better;
//   equal counts are a tie.
#include <gtest/gtest.h>

#include <algorithm>
#include <atomic>
#include <filesystem>
#include <fstream>
#include <nlohmann/json.hpp>
#include <sstream>

#include "cli_runner.hpp"
#include "llm/llm_test_util.hpp"
#include "llm/prompts.hpp"
#include "llm/session.hpp"
#include "llm/structured.hpp"
#include "probity/meta.hpp"
#include "test_paths.hpp"

namespace {

using namespace probity;
using json = nlohmann::json;
using probity::test::MockServer;

std::vector<std::string> split(const std::string& s) {
  std::vector<std::string> out;
  std::istringstream in(s);
  for (std::string w; in >> w;) out.push_back(w);
  return out;
}

std::string join(const std::vector<std::string>& w) {
  std::string out;
  for (const auto& x : w) out += (out.empty() ? "" : " ") + x;
  return out;
}

bool is_marker(const std::string& w) {
  return w.starts_with("ERR-") || w.starts_with("#");
}

std::size_t markers(const std::string& text) {
  const auto w = split(text);
  return static_cast<std::size_t>(std::count_if(w.begin(), w.end(), is_marker));
}

bool has(const std::string& text, std::string_view word) {
  return text.find(word) != std::string::npos;
}

// The text between `label` + "\n<<<\n" and the next "\n>>>".
std::string block_after(const std::string& prompt, const std::string& label) {
  const auto at = prompt.find(label + "\n<<<\n");
  if (at == std::string::npos) return {};
  const auto start = at + label.size() + 5;
  return prompt.substr(start, prompt.find("\n>>>", start) - start);
}

std::string line_after(const std::string& prompt, const std::string& label) {
  const auto at = prompt.find(label);
  if (at == std::string::npos) return {};
  const auto start = at + label.size();
  return prompt.substr(start, prompt.find('\n', start) - start);
}

// The injection rule's answer (see the file comment).
std::string inject_answer(const json& request) {
  const auto& messages = request["messages"];
  const std::string prompt = messages[0]["content"].get<std::string>();
  const bool reask = messages.size() > 1;
  const std::string type = line_after(prompt, "ERROR TYPE: ");
  const std::string text = block_after(prompt, "TEXT:");
  auto words = split(text);
  auto answer = [&](const std::string& t) {
    if (has(text, "FENCE"))
      return "```json\n{'text': '" + t + "', 'error': 'injected " + type + "'}\n```";
    return json{{"text", t}, {"error", "injected " + type}}.dump();
  };
  if (has(text, "NOTHING")) return R"({"applicable": false})";
  // The rule's edit first: a type that cannot apply is declared so whatever the trigger.
  auto proper = words;
  if (type == "swap-number") {
    auto it = std::find_if(proper.begin(), proper.end(), [](const std::string& w) {
      return std::all_of(w.begin(), w.end(), [](char c) { return c >= '0' && c <= '9'; });
    });
    if (it == proper.end()) return R"({"applicable": false})";
    *it = "#" + std::to_string(std::stol(*it) + 1);
  } else if (type == "drop-word") {
    *std::find_if_not(proper.begin(), proper.end(), is_marker) = "ERR-drop-word";
  } else {
    proper.push_back("ERR-" + type);
  }
  if (has(text, "BROKEN") && markers(text) >= 2) return answer(text);
  if (has(text, "GARBLE") && !reask) return "Sure! I changed one detail of the text for you.";
  if (has(text, "REWRITE") && !reask) return answer("An entirely different text about nothing.");
  if (has(text, "UNDO") && !reask && markers(text) > 0) {
    // Drops the last earlier error and appends a new one.
    for (std::size_t i = words.size(); i-- > 0;) {
      if (is_marker(words[i])) {
        words.erase(words.begin() + static_cast<long>(i));
        words.push_back("ERR-" + type);
        return answer(join(words));
      }
    }
  }
  return answer(join(proper));
}

// The comparison rule (fewer markers is better); `biased`: always "A" (position bias only).
std::string compare_answer(const json& request, bool biased = false) {
  const std::string prompt = request["messages"][0]["content"].get<std::string>();
  if (biased) return R"({"better": "A"})";
  const auto a = markers(block_after(prompt, "TEXT A:"));
  const auto b = markers(block_after(prompt, "TEXT B:"));
  return json{{"better", a < b ? "A" : (a > b ? "B" : "tie")}}.dump();
}

std::string any_answer(const json& request) {
  const std::string prompt = request["messages"][0]["content"].get<std::string>();
  return has(prompt, "ERROR TYPE: ") ? inject_answer(request) : compare_answer(request);
}

std::shared_ptr<llm::Session> session_for(const MockServer& server, const std::string& cache = "") {
  llm::LlmConfig config;
  config.cache_path = cache;
  llm::CliOverrides o;
  o.base_url = server.base_url();
  o.model = "mock-model";
  llm::apply_cli_overrides(config, o);
  return std::make_shared<llm::Session>(std::move(config));
}

// Tasks with two references (the first is edited) and a source; `triggers` adds one task per
// trigger word. Anchors (consistency-rated candidates with 0, 2, 4 markers) make it usable for
// the global benchmark too.
Dataset bench_data(const std::vector<std::string>& triggers = {}) {
  const std::vector<std::string> bases = {
      "The council approved a budget of 120 million. Taxes will rise by 3 percent next year. "
      "The mayor said the plan was fair.",
      "The river flooded 40 homes in the village. Residents were evacuated by boat. Nobody was "
      "hurt.",
      "The team won the final. Their captain scored twice in the second half. Fans celebrated in "
      "the streets.",
  };
  Dataset ds;
  auto add = [&](const std::string& id, const std::string& base) {
    Task t;
    t.task_id = id;
    t.group = "g";
    t.source = "Source article of " + id + ": " + base;
    t.references = {{"r0", base}, {"r1", "A second reference for " + id + "."}};
    const char* anchor_text[] = {"An anchor text with no errors.",
                                 "An anchor text ERR-a ERR-b with two errors.",
                                 "An anchor ERR-a ERR-b ERR-c ERR-d text with four errors."};
    const double level[] = {5, 3, 1};
    for (int k = 0; k < 3; ++k)
      t.candidates.push_back(
          {"c" + std::to_string(k), "s", anchor_text[k], {{"consistency", {level[k]}}}});
    ds.tasks.push_back(std::move(t));
  };
  for (std::size_t i = 0; i < bases.size(); ++i) add("t" + std::to_string(i), bases[i]);
  for (const auto& w : triggers)
    add("trig-" + w, "A text that contains the word " + w +
                         ". It has a second sentence with 7 "
                         "apples. And a third sentence closes it.");
  return ds;
}

std::string dump(const meta::Benchmark& b) {
  std::ostringstream out;
  meta::write_dataset(out, b.dataset, b.meta);
  return out.str();
}

meta::BenchOptions local_options(std::size_t steps = 4, std::uint64_t seed = 1) {
  meta::BenchOptions o;
  o.dimension = meta::QualityDimension::kConsistency;
  o.steps = steps;
  o.sources = 0;
  o.seed = seed;
  return o;
}

std::string temp_file(const std::string& name) {
  return probity::test::temp_dir("llm-bench-" + name) + "/" + name;
}

// Every step is one contiguous edit: tokens outside the recorded span are identical and the
// recorded span is what a token diff finds.
void expect_local_edit(const std::string& before, const std::string& after, const meta::Edit& e) {
  SCOPED_TRACE(e.type + ": " + e.description);
  const auto b = split(before), a = split(after);
  const auto d = meta::token_diff(b, a);
  EXPECT_EQ(d.begin, e.begin);
  EXPECT_EQ(d.removed, e.removed);
  EXPECT_EQ(d.inserted, e.inserted);
  ASSERT_GT(e.removed + e.inserted, 0u);
  for (std::size_t i = 0; i < e.begin; ++i) EXPECT_EQ(a[i], b[i]);
  for (std::size_t i = 0; i < b.size() - e.begin - e.removed; ++i)
    EXPECT_EQ(b[b.size() - 1 - i], a[a.size() - 1 - i]);
  EXPECT_FALSE(e.description.empty());
}

TEST(LlmBench, TokenDiffFindsTheSpanBetweenPrefixAndSuffix) {
  const std::vector<std::string> a = {"a", "b", "c", "d"};
  auto e = meta::token_diff(a, std::vector<std::string>{"a", "x", "c", "d"});
  EXPECT_EQ(e.begin, 1u);
  EXPECT_EQ(e.removed, 1u);
  EXPECT_EQ(e.inserted, 1u);
  e = meta::token_diff(a, std::vector<std::string>{"a", "b", "b", "c", "d"});  // repeated word
  EXPECT_EQ(e.removed, 0u);
  EXPECT_EQ(e.inserted, 1u);
  e = meta::token_diff(a, a);
  EXPECT_EQ(e.removed + e.inserted, 0u);
  e = meta::token_diff(a, std::vector<std::string>{"a", "d"});
  EXPECT_EQ(e.begin, 1u);
  EXPECT_EQ(e.removed, 2u);
  EXPECT_EQ(e.inserted, 0u);
}

TEST(LlmBench, RuleInjectorThroughTheSeamIsByteIdentical) {
  const Dataset ds = load_dataset(probity::test::data_path("summeval/summeval_sample20.jsonl"));
  meta::BenchOptions o;
  o.dimension = meta::QualityDimension::kCoherence;
  o.steps = 5;
  o.sources = 7;
  o.seed = 11;
  auto rules = meta::make_rule_injector();
  EXPECT_EQ(dump(meta::build_local_benchmark(ds, o)),
            dump(meta::build_local_benchmark(ds, o, *rules)));
  EXPECT_EQ(rules->signature(), "rules");
}

TEST(LlmBench, EachStepInjectsOneLocalErrorAndErrorsAccumulate) {
  MockServer server;
  server.set_handler(inject_answer);
  auto injector = meta::make_llm_injector(session_for(server));
  const auto b = meta::build_local_benchmark(bench_data(), local_options(4), *injector);
  ASSERT_EQ(b.dataset.tasks.size(), 3u);
  EXPECT_EQ(b.stats.full_length, 3u);
  EXPECT_EQ(b.stats.failed_steps, 0u);
  EXPECT_NE(b.stats.injector.find("llm|role:perturber"), std::string::npos);
  std::size_t numbers = 0;
  for (std::size_t t = 0; t < b.dataset.tasks.size(); ++t) {
    const auto& c = b.dataset.tasks[t].candidates;
    ASSERT_EQ(c.size(), 5u);
    EXPECT_EQ(json::parse(b.meta[t].task)["injector"].get<std::string>(), b.stats.injector);
    for (std::size_t j = 0; j < c.size(); ++j) {
      EXPECT_EQ(markers(c[j].text), j);  // monotonic: one more error per step
      EXPECT_EQ(c[j].human.at("consistency").front(), 4.0 - static_cast<double>(j));
      if (j == 0) continue;
      const auto m = json::parse(b.meta[t].candidates[j]);
      meta::Edit e{m["edit"]["type"], m["edit"]["description"], m["edit"]["begin"],
                   m["edit"]["removed"], m["edit"]["inserted"]};
      expect_local_edit(c[j - 1].text, c[j].text, e);
      if (e.type == "swap-number") {
        ++numbers;
        EXPECT_EQ(e.removed, 1u);
        EXPECT_EQ(e.inserted, 1u);
      }
    }
  }
  EXPECT_GT(numbers, 0u);
  // Every request carries the step's seed.
  for (const auto& call : server.calls()) EXPECT_TRUE(json::parse(call.body).contains("seed"));
}

TEST(LlmBench, SameSeedSameBytesAndTheCacheServesASecondRun) {
  MockServer server;
  server.set_handler(inject_answer);
  const auto cache = temp_file("cache.sqlite");
  const Dataset ds = bench_data();
  std::string first;
  {
    auto injector = meta::make_llm_injector(session_for(server, cache));
    first = dump(meta::build_local_benchmark(ds, local_options(4, 5), *injector));
  }
  const auto requests = server.count();
  EXPECT_GT(requests, 0u);
  auto session = session_for(server, cache);
  auto injector = meta::make_llm_injector(session);
  EXPECT_EQ(dump(meta::build_local_benchmark(ds, local_options(4, 5), *injector)), first);
  EXPECT_EQ(server.count(), requests);  // zero requests: every answer from the cache
  EXPECT_GT(session->accounting().total().cache_hits, 0u);
  // Without the cache the same seed asks the same questions and gets the same bytes; another
  // seed draws other error types.
  auto fresh = meta::make_llm_injector(session_for(server));
  EXPECT_EQ(dump(meta::build_local_benchmark(ds, local_options(4, 5), *fresh)), first);
  EXPECT_NE(dump(meta::build_local_benchmark(ds, local_options(4, 6), *fresh)), first);
}

TEST(LlmBench, MalformedOrOversizedAnswersAreRepairedOrReasked) {
  MockServer server;
  server.set_handler(inject_answer);
  auto injector = meta::make_llm_injector(session_for(server));
  const auto b = meta::build_local_benchmark(bench_data({"GARBLE", "REWRITE", "UNDO", "FENCE"}),
                                             local_options(3), *injector);
  ASSERT_EQ(b.dataset.tasks.size(), 7u);
  EXPECT_EQ(b.stats.failed_steps, 0u);
  EXPECT_EQ(b.stats.full_length, 7u);
  // GARBLE and REWRITE: every step re-asked once; UNDO: steps 2 and 3; FENCE: repaired, no re-ask.
  EXPECT_EQ(b.stats.rejected_answers, 3u + 3u + 2u);
  for (const auto& t : b.dataset.tasks)
    for (std::size_t j = 0; j < t.candidates.size(); ++j)
      EXPECT_EQ(markers(t.candidates[j].text), j);
  // The re-asks name the reason.
  std::size_t too_large = 0, earlier = 0, no_json = 0;
  for (const auto& call : server.calls()) {
    const auto body = json::parse(call.body);
    const auto& m = body["messages"];
    if (m.size() < 3) continue;
    const std::string reask = m[2]["content"].get<std::string>();
    too_large += has(reask, "more than 50%") ? 1 : 0;
    earlier += has(reask, "an earlier error introduced") ? 1 : 0;
    no_json += has(reask, "no JSON object") ? 1 : 0;
  }
  EXPECT_EQ(too_large, 3u);
  EXPECT_EQ(earlier, 2u + 2u);  // UNDO; REWRITE's steps 2 and 3 also undo the earlier errors
  EXPECT_EQ(no_json, 3u);
}

TEST(LlmBench, APersistentlyBadStepEndsTheSequenceAndIsCounted) {
  MockServer server;
  server.set_handler(inject_answer);
  auto injector = meta::make_llm_injector(session_for(server));
  const auto b =
      meta::build_local_benchmark(bench_data({"BROKEN", "NOTHING"}), local_options(4), *injector);
  // BROKEN: two edits, then the unchanged answer is re-asked twice and the step fails.
  // NOTHING: no type applies, so the source has no edit and is skipped (not a failure).
  ASSERT_EQ(b.dataset.tasks.size(), 4u);
  EXPECT_EQ(b.stats.failed_steps, 1u);
  ASSERT_EQ(b.stats.step_failures.size(), 1u);
  EXPECT_EQ(b.stats.step_failures[0], (std::pair<std::string, std::size_t>{"unchanged", 1}));
  EXPECT_EQ(b.stats.rejected_answers, 3u);
  EXPECT_EQ(b.stats.inapplicable_stops, 1u);
  EXPECT_EQ(b.stats.skipped_sources, 1u);
  EXPECT_EQ(b.stats.full_length, 3u);
  bool seen = false;
  for (std::size_t t = 0; t < b.dataset.tasks.size(); ++t) {
    const auto m = json::parse(b.meta[t].task);
    if (!b.dataset.tasks[t].task_id.starts_with("trig-BROKEN")) {
      EXPECT_FALSE(m.contains("stopped"));
      continue;
    }
    seen = true;
    EXPECT_EQ(b.dataset.tasks[t].candidates.size(), 3u);  // step0..step2
    EXPECT_EQ(m["stopped"]["reason"], "unchanged");
    EXPECT_NE(m["stopped"]["detail"].get<std::string>().find("step 3"), std::string::npos);
  }
  EXPECT_TRUE(seen);
}

TEST(LlmBench, TransportFailuresEndTheSequenceAndAreCounted) {
  MockServer server;
  server.set_handler(inject_answer);
  server.set_fault_rule([](const json& request) -> std::optional<probity::test::MockFault> {
    const std::string prompt = request["messages"][0]["content"].get<std::string>();
    if (has(block_after(prompt, "TEXT:"), "council")) return probity::test::MockFault::http(400);
    return std::nullopt;
  });
  auto injector = meta::make_llm_injector(session_for(server));
  const auto b = meta::build_local_benchmark(bench_data(), local_options(2), *injector);
  EXPECT_EQ(b.dataset.tasks.size(), 2u);
  EXPECT_EQ(b.stats.failed_steps, 1u);
  EXPECT_EQ(b.stats.step_failures[0].first, "request-failed");
}

TEST(LlmBench, AnchorJudgeAsksBothOrdersAndBatchesForeseenPairs) {
  MockServer server;
  server.set_handler([](const json& r) { return compare_answer(r); });
  Dataset ds;
  Task t;
  t.task_id = "t";
  t.source = "A source.";
  for (int k = 0; k < 3; ++k) {
    std::string text = "A text";
    for (int m = 0; m < k; ++m) text += " ERR-" + std::to_string(m);
    t.candidates.push_back({"c" + std::to_string(k), "", text, {}});
  }
  t.candidates.push_back({"c3", "", "Another clean text", {}});
  ds.tasks.push_back(t);
  const std::vector<ItemRef> items = {{0, 0}, {0, 1}, {0, 2}, {0, 3}};
  meta::LlmAnchorOptions o;
  o.dimension = meta::QualityDimension::kConsistency;
  auto judge = meta::make_llm_anchor_judge(session_for(server), o);
  judge->prepare(ds, items);
  const std::vector<std::pair<std::size_t, std::size_t>> pairs = {
      {1, 0}, {2, 0}, {2, 1}, {3, 0}, {0, 1}};
  judge->prefetch(pairs);
  EXPECT_EQ(server.count(), 8u);  // 4 distinct pairs, both orders
  EXPECT_EQ(judge->compare(1, 0), -1);
  EXPECT_EQ(judge->compare(0, 1), 1);
  EXPECT_EQ(judge->compare(2, 1), -1);
  EXPECT_EQ(judge->compare(0, 3), 0);   // equal marker counts: a tie in both orders
  EXPECT_EQ(server.count(), 8u);        // all from the memo
  EXPECT_EQ(judge->compare(1, 3), -1);  // not foreseen: asked lazily, both orders
  EXPECT_EQ(server.count(), 10u);
  EXPECT_EQ(judge->compare(3, 1), 1);
  EXPECT_EQ(server.count(), 10u);
  // The source goes into the prompt for consistency.
  EXPECT_NE(server.calls()[0].body.find("A source."), std::string::npos);
  const auto counters = judge->counters();
  std::map<std::string, std::size_t> c(counters.begin(), counters.end());
  EXPECT_EQ(c["comparisons"], 5u);
  EXPECT_EQ(c["agreed"], 4u);
  EXPECT_EQ(c["tied"], 1u);
  EXPECT_EQ(c["position_disagreements"], 0u);
  EXPECT_EQ(c["failed"], 0u);
  EXPECT_NE(judge->signature().find("both-orders"), std::string::npos);
}

TEST(LlmBench, PositionBiasAndFailuresBecomeCountedTies) {
  MockServer server;
  Dataset ds;
  Task t;
  t.task_id = "t";
  t.candidates = {{"a", "", "Clean text", {}}, {"b", "", "Bad ERR-x text", {}}};
  ds.tasks.push_back(t);
  const std::vector<ItemRef> items = {{0, 0}, {0, 1}};
  meta::LlmAnchorOptions o;
  o.dimension = meta::QualityDimension::kFluency;
  {
    server.set_handler([](const json& r) { return compare_answer(r, /*biased=*/true); });
    auto judge = meta::make_llm_anchor_judge(session_for(server), o);
    judge->prepare(ds, items);
    EXPECT_EQ(judge->compare(0, 1), 0);  // "A" in both orders: position bias, a tie
    const auto counters = judge->counters();
    std::map<std::string, std::size_t> c(counters.begin(), counters.end());
    EXPECT_EQ(c["position_disagreements"], 1u);
    // Fluency is judged without the source.
    EXPECT_EQ(server.calls()[0].body.find("written for this input"), std::string::npos);
  }
  {
    server.reset();
    server.set_handler([](const json&) { return std::string(R"({"better": "maybe"})"); });
    auto judge = meta::make_llm_anchor_judge(session_for(server), o);
    judge->prepare(ds, items);
    EXPECT_EQ(judge->compare(0, 1), 0);  // failed after re-asks: counted as a tie
    EXPECT_EQ(server.count(), 6u);       // both orders, 1 + 2 re-asks each
    const auto counters = judge->counters();
    std::map<std::string, std::size_t> c(counters.begin(), counters.end());
    EXPECT_EQ(c["failed"], 1u);
    EXPECT_EQ(c["rejected_answers"], 6u);
  }
}

TEST(LlmBench, GlobalBenchmarkWithLlmInjectorAndLlmAnchors) {
  MockServer server;
  server.set_handler(any_answer);
  auto session = session_for(server);
  auto injector = meta::make_llm_injector(session);
  meta::LlmAnchorOptions jo;
  jo.dimension = meta::QualityDimension::kConsistency;
  auto judge = meta::make_llm_anchor_judge(session, jo);
  meta::BenchOptions o = local_options(4, 3);
  o.per_source = 3;
  o.anchors_per_level = 2;
  const auto b = meta::build_global_benchmark(bench_data(), o, *judge, *injector);
  ASSERT_EQ(b.dataset.tasks.size(), 3u);
  EXPECT_EQ(b.stats.failed_steps, 0u);
  std::map<std::string, std::size_t> c(b.stats.judge_counters.begin(),
                                       b.stats.judge_counters.end());
  EXPECT_EQ(c["failed"], 0u);
  EXPECT_EQ(c["comparisons"], 9u * 6u);  // 9 items x (2 anchors x 3 levels)
  for (std::size_t t = 0; t < b.dataset.tasks.size(); ++t) {
    std::vector<std::pair<std::size_t, double>> errors_level;
    for (std::size_t k = 0; k < b.dataset.tasks[t].candidates.size(); ++k) {
      const auto& cand = b.dataset.tasks[t].candidates[k];
      const auto m = json::parse(b.meta[t].candidates[k]);
      EXPECT_EQ(markers(cand.text), m["errors"].get<std::size_t>());
      const double level = cand.human.at("consistency").front();
      if (markers(cand.text) == 0) {
        EXPECT_EQ(level, 5.0);
      }
      errors_level.emplace_back(markers(cand.text), level);
    }
    for (const auto& [ea, la] : errors_level)
      for (const auto& [eb, lb] : errors_level)
        if (ea < eb) {
          EXPECT_GE(la, lb);
        }
    EXPECT_NE(json::parse(b.meta[t].task)["anchor_judge"].get<std::string>().find("llm-pairwise"),
              std::string::npos);
  }
}

TEST(LlmBench, CommandLineBuildsWithLlmInjectorAndJudgeAndReusesTheCache) {
  MockServer server;
  server.set_handler(any_answer);
  const std::string dir = probity::test::temp_dir("llm-bench-cli");
  {
    std::ofstream out(dir + "/data.jsonl");
    meta::write_dataset(out, bench_data({"BROKEN"}));
  }
  // One source ("BROKEN") cannot be edited: its step fails on purpose, below the threshold.
  const std::string llm = " --llm-base-url " + server.base_url() +
                          " --llm-model mock-model --max-unparsed 0.2 --cache " + dir +
                          "/cache.sqlite";
  const std::string local = "bench-build --data " + dir +
                            "/data.jsonl --dimension consistency --steps 3 --sources 0 --seed 2 "
                            "--injector llm";
  auto r = probity::test::run_probity(local + llm + " --out " + dir + "/a.jsonl");
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_NE(r.out.find("failed steps: 1 unchanged=1"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("injector: llm|role:perturber"), std::string::npos) << r.out;
  EXPECT_NE(r.err.find("LLM usage"), std::string::npos) << r.err;
  const auto requests = server.count();
  EXPECT_GT(requests, 0u);
  // The second run is served by the cache but for the BROKEN source's unusable answers, which
  // were not kept and are asked again.
  std::atomic<int> others{0};
  server.set_handler([&](const json& request) {
    if (!has(request.dump(), "BROKEN")) ++others;
    return any_answer(request);
  });
  r = probity::test::run_probity(local + llm + " --out " + dir + "/b.jsonl");
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_GT(server.count(), requests);
  EXPECT_EQ(others.load(), 0);
  server.set_handler(any_answer);
  EXPECT_EQ(probity::test::read_text(dir + "/a.jsonl"), probity::test::read_text(dir + "/b.jsonl"));

  r = probity::test::run_probity("bench-build --data " + dir +
                                 "/data.jsonl --dimension consistency --kind global --steps 3 "
                                 "--sources 0 --injector llm --anchor-judge llm" +
                                 llm + " --out " + dir + "/g.jsonl");
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_NE(r.out.find("anchor judge: llm-pairwise|role:judge"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("anchor comparisons: comparisons="), std::string::npos) << r.out;
  EXPECT_NE(r.out.find(" failed=0"), std::string::npos) << r.out;

  // Without an endpoint the LLM realisations are a usage error.
  r = probity::test::run_probity(local + " --out " + dir + "/x.jsonl");
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_NE(r.err.find("--injector llm needs"), std::string::npos) << r.err;
}

}  // namespace
