// Contract tests: probity's LLM path against fakes that answer as vLLM, SGLang, llama.cpp server,
// Ollama and hosted OpenAI do according to their source code (tests/llm/fakes/SOURCES.md), with
// token ids from real tokenizers (tests/llm/fixtures). The expected log-probabilities are
// computed here from the fixture's byte offsets and the fakes' known log-probability table, not
// from anything probity computes.
#include <fmt/format.h>
#include <gtest/gtest.h>

#include <cmath>
#include <fstream>
#include <mutex>
#include <nlohmann/json.hpp>
#include <sstream>

#include "llm/fakes/fake_server.hpp"
#include "llm/prompts.hpp"
#include "llm/session.hpp"
#include "predict/llm_lm.hpp"
#include "probity/engine.hpp"
#include "probity/error.hpp"
#include "probity/llm.hpp"
#include "probity/mi.hpp"
#include "probity/scoring.hpp"

namespace probity::test {
namespace {

using nlohmann::json;

struct SpanCase {
  std::string name, prefix, target;
};

const std::vector<SpanCase>& span_cases() {
  static const std::vector<SpanCase> cases = [] {
    std::ifstream in(std::string(PROBITY_TEST_DIR) + "/llm/fixtures/span_cases.json");
    std::stringstream text;
    text << in.rdbuf();
    std::vector<SpanCase> out;
    for (const auto& c : json::parse(text.str()))
      out.push_back({c.at("name"), c.at("prefix"), c.at("target")});
    return out;
  }();
  return cases;
}

// The index of the target's first token in the fixture ids of prefix + target (no BOS): the
// first token whose bytes reach past the prefix. Independent of probity's id comparison.
std::size_t fixture_target_start(const std::string& tokenizer, const SpanCase& c) {
  const FixtureTokens& t = fixture_tokens(tokenizer, c.prefix + c.target);
  for (std::size_t i = 0; i < t.ids.size(); ++i)
    if (t.offsets[i] + t.bytes[i].size() / 2 > c.prefix.size()) return i;
  return t.ids.size();
}

// log p(target | prefix) as every fake scores prompts: the sum of fake_logprob over the
// target's tokens, each given all ids before it (BOS included when the server adds one).
double expected_log_prob(const std::string& tokenizer, const SpanCase& c, bool with_bos) {
  std::vector<std::int64_t> ids;
  const auto bos = fixture_bos(tokenizer);
  if (with_bos && bos) ids.push_back(*bos);
  const std::size_t shift = ids.size();
  const auto& full = fixture_tokens(tokenizer, c.prefix + c.target).ids;
  ids.insert(ids.end(), full.begin(), full.end());
  double sum = 0;
  for (std::size_t t = fixture_target_start(tokenizer, c) + shift; t < ids.size(); ++t)
    sum += fake_logprob(std::span(ids.data(), t), ids[t]);
  return sum;
}

std::shared_ptr<llm::Session> session_at(const std::string& base_url, const std::string& model) {
  llm::LlmConfig config;
  llm::CliOverrides o;
  o.base_url = base_url;
  o.model = model;
  llm::apply_cli_overrides(config, o);
  return std::make_shared<llm::Session>(std::move(config));
}

predict::LlmLm lm_for(const std::shared_ptr<llm::Session>& session, bool prompt_logprobs) {
  predict::LlmLmOptions o;
  o.prompt_logprobs = prompt_logprobs;
  return predict::LlmLm(o, session);
}

// The bug this guards against: y's start taken as len(tokenize(prefix)).
TEST(LlmServers, NaivePrefixLengthStartsTheSpanInTheWrongPlaceOnRealTokenizers) {
  for (const std::string tokenizer : {"llama3", "llama2", "cl100k", "o200k"}) {
    std::size_t wrong = 0;
    for (const auto& c : span_cases())
      if (fixture_tokens(tokenizer, c.prefix).ids.size() != fixture_target_start(tokenizer, c))
        ++wrong;
    EXPECT_GT(wrong, span_cases().size() / 3) << tokenizer;
  }
  EXPECT_GE(span_cases().size(), 50u);
}

struct ServerSetup {
  Flavour flavour;
  std::string tokenizer;
  std::string model = "fake-model";
  bool tokenize_route = true;
  bool prompt_logprobs = false;
  bool bos = true;  // the server's prompt starts with the tokenizer's BOS
};

std::string setup_name(const ServerSetup& s) {
  return std::string(flavour_name(s.flavour)) + "/" + s.tokenizer +
         (s.tokenize_route ? "" : "/no-tokenize") + (s.prompt_logprobs ? "/prompt_logprobs" : "");
}

void PrintTo(const ServerSetup& s, std::ostream* os) {
  *os << setup_name(s);
}

class ExactSpans : public ::testing::TestWithParam<ServerSetup> {};

// Every span case, each in its own request batch, gives the hand-computed log-probability
// exactly (same additions in the same order).
TEST_P(ExactSpans, EveryCaseGivesTheHandComputedLogProbability) {
  const ServerSetup& s = GetParam();
  FakeOptions o;
  o.flavour = s.flavour;
  o.tokenizer = s.tokenizer;
  o.model = s.model;
  o.tokenize_route = s.tokenize_route;
  FakeServer server(o);
  auto session = session_at(server.base_url(), s.model);
  auto lm = lm_for(session, s.prompt_logprobs);
  std::size_t checked = 0;
  for (const auto& c : span_cases()) {
    const double want = expected_log_prob(s.tokenizer, c, s.bos);
    double got = std::nan("");
    try {
      got = lm.log_prob(c.prefix, c.target);
    } catch (const std::exception& e) {
      ADD_FAILURE() << setup_name(s) << " " << c.name << ": " << e.what();
      continue;
    }
    EXPECT_EQ(got, want) << setup_name(s) << " " << c.name;
    ++checked;
  }
  EXPECT_EQ(checked, span_cases().size());
  const auto usage = session->accounting().total();
  EXPECT_EQ(usage.retries, 0u);
  EXPECT_TRUE(usage.failures.empty());
}

INSTANTIATE_TEST_SUITE_P(
    LlmServers, ExactSpans,
    ::testing::Values(
        // vLLM: ids from /tokenize sent as the prompt, echo+logprobs or prompt_logprobs.
        ServerSetup{Flavour::kVllm, "llama3"}, ServerSetup{Flavour::kVllm, "llama2"},
        ServerSetup{Flavour::kVllm, "llama3", "fake-model", true, true},
        ServerSetup{Flavour::kVllm, "llama2", "fake-model", true, true},
        // vLLM behind a gateway without /tokenize: text prompts, echoed token texts aligned
        // ("<|begin_of_text|>", "" for split characters, SentencePiece's dropped spaces).
        ServerSetup{Flavour::kVllm, "llama3", "fake-model", false},
        ServerSetup{Flavour::kVllm, "llama2", "fake-model", false},
        ServerSetup{Flavour::kVllm, "llama2", "fake-model", false, true},
        // SGLang: logprobs >= 1 with echo; "�" for split characters, text_offset -1.
        ServerSetup{Flavour::kSglang, "llama3"}, ServerSetup{Flavour::kSglang, "llama2"},
        ServerSetup{Flavour::kSglang, "llama3", "fake-model", false},
        ServerSetup{Flavour::kSglang, "llama2", "fake-model", false},
        // OpenAI's base completion models: no /tokenize, no BOS, "bytes:\xNN" tokens.
        ServerSetup{Flavour::kOpenAiLegacyCompletions, "cl100k", "davinci-002", true, false, false},
        ServerSetup{Flavour::kOpenAiLegacyCompletions, "o200k", "davinci-002", true, false, false}),
    [](const ::testing::TestParamInfo<ServerSetup>& p) {
      std::string n = setup_name(p.param);
      for (auto& ch : n)
        if (!std::isalnum(static_cast<unsigned char>(ch))) ch = '_';
      return n;
    });

// Servers that cannot score a prompt get the named error at once: no retries, no silent NaNs.
void expect_no_prompt_logprobs_error(FakeOptions o, bool prompt_logprobs = false) {
  FakeServer server(o);
  auto session = session_at(server.base_url(), o.model);
  auto lm = lm_for(session, prompt_logprobs);
  const auto& c = span_cases().front();
  try {
    lm.log_prob(c.prefix, c.target);
    ADD_FAILURE() << flavour_name(o.flavour) << ": no error";
  } catch (const UsageError& e) {
    const std::string what = e.what();
    EXPECT_NE(what.find("no prompt log-probabilities"), std::string::npos) << what;
    EXPECT_NE(what.find("vLLM"), std::string::npos) << what;
  }
  EXPECT_EQ(session->accounting().total().retries, 0u) << flavour_name(o.flavour);
  EXPECT_LE(server.count("/v1/completions"), 1u) << flavour_name(o.flavour);
}

// A real llama-server accepts `echo` and answers the completion alone, its log-probabilities over
// the generated tokens only (tests/llm/fixtures/transcripts/llamacpp-3f545bec-probes.jsonl).
TEST(LlmServers, LlamaCppIgnoresEchoAndGetsTheNamedErrorAndItsTokenizeGetsItsFields) {
  FakeOptions o;
  o.flavour = Flavour::kLlamaCpp;
  expect_no_prompt_logprobs_error(o);
  FakeServer server(o);
  auto session = session_at(server.base_url(), o.model);
  auto ids = session->client("lm").tokenize("Restatement: ");
  const auto& want = fixture_tokens("llama3", "Restatement: ").ids;
  ASSERT_EQ(ids.size(), want.size() + 1);  // add_special: BOS first
  EXPECT_EQ(ids.front(), *fixture_bos("llama3"));
  EXPECT_EQ(std::vector<std::int64_t>(ids.begin() + 1, ids.end()), want);
}

TEST(LlmServers, OllamaIgnoresEchoAndGetsTheNamedError) {
  FakeOptions o;
  o.flavour = Flavour::kOllama;
  expect_no_prompt_logprobs_error(o);
  expect_no_prompt_logprobs_error(o, true);
}

TEST(LlmServers, OpenAiChatAndInstructModelsGetTheNamedError) {
  FakeOptions o;
  o.flavour = Flavour::kOpenAiChat;
  o.model = "gpt-4o-mini";
  expect_no_prompt_logprobs_error(o);
  o.flavour = Flavour::kOpenAiReasoning;
  o.model = "gpt-5-mini";
  expect_no_prompt_logprobs_error(o);
  o.flavour = Flavour::kOpenAiLegacyCompletions;
  o.model = "gpt-3.5-turbo-instruct";  // rejects echo together with logprobs (since 2023)
  o.tokenizer = "cl100k";
  expect_no_prompt_logprobs_error(o);
}

TEST(LlmServers, SglangWithLogprobsZeroWouldScoreNothing) {
  // What probity used to send: echo with logprobs 0, which SGLang treats as "no prompt scores".
  FakeOptions o;
  o.flavour = Flavour::kSglang;
  FakeServer server(o);
  auto session = session_at(server.base_url(), o.model);
  llm::Request r;
  r.endpoint = llm::Endpoint::kCompletion;
  r.prompt = span_cases().front().prefix + span_cases().front().target;
  r.echo = true;
  r.max_tokens = 1;
  r.logprobs = 0;
  EXPECT_FALSE(session->client("lm").call(r).has_prompt_logprobs);
  r.logprobs = 1;
  EXPECT_TRUE(session->client("lm").call(r).has_prompt_logprobs);
}

// ---- Requests each server accepts
// ----------------------------------------------------------------

llm::EndpointConfig endpoint_at(const FakeServer& server, const std::string& model) {
  llm::EndpointConfig c;
  c.name = "judge";
  c.base_url = server.base_url();
  c.model = model;
  c.backoff_base_s = 0.01;
  c.backoff_max_s = 0.05;
  return c;
}

llm::Request chat(const std::string& content) {
  llm::Request r;
  r.endpoint = llm::Endpoint::kChat;
  r.messages = {{"user", content}};
  return r;
}

TEST(LlmServers, ReasoningModelRejectionsSayWhichConfigKeyToChange) {
  FakeOptions o;
  o.flavour = Flavour::kOpenAiReasoning;
  o.model = "gpt-5-mini";
  FakeServer server(o);
  auto config = endpoint_at(server, o.model);
  {
    llm::Client client(config);  // probity's default temperature 0
    const auto r = client.call(chat("Rate it."));
    ASSERT_FALSE(r.ok);
    EXPECT_EQ(r.error_kind, llm::ErrorKind::kInvalidRequest);
    EXPECT_EQ(r.attempts, 1);  // a 400 is not retried
    EXPECT_NE(r.error.find("Only the default (1) value is supported"), std::string::npos)
        << r.error;
    EXPECT_NE(r.error.find("temperature = \"default\" in [llm.judge]"), std::string::npos)
        << r.error;
  }
  config.temperature.reset();  // temperature = "default"
  config.max_tokens = 500;
  {
    llm::Client client(config);
    const auto r = client.call(chat("Rate it."));
    ASSERT_FALSE(r.ok);
    EXPECT_NE(r.error.find("set max_completion_tokens instead of max_tokens in [llm.judge]"),
              std::string::npos)
        << r.error;
  }
  config.max_tokens.reset();
  config.max_completion_tokens = 500;
  llm::Client client(config);
  const auto r = client.call(chat("Rate it."));
  ASSERT_TRUE(r.ok) << r.error;
  const json body = json::parse(server.calls().back().body);
  EXPECT_FALSE(body.contains("temperature"));
  EXPECT_FALSE(body.contains("max_tokens"));
  EXPECT_EQ(body["max_completion_tokens"], 500);
}

TEST(LlmServers, ExtraHeadersAreSentAndTheirValuesRedacted) {
  FakeOptions o;
  o.flavour = Flavour::kOpenAiChat;
  o.model = "gpt-4o-mini";
  const std::string secret = "azure-key-0123456789";
  o.reply = [&](const json&) { return "the header was " + secret; };
  FakeServer server(o);
  auto config = endpoint_at(server, o.model);
  config.headers = {{"api-key", secret}, {"OpenAI-Project", "proj_abc"}};
  std::vector<std::string> logs;
  llm::ClientOptions options;
  options.log = [&](std::string_view line) { logs.emplace_back(line); };
  llm::Client client(config, options);
  const auto r = client.call(chat("Hello"));
  ASSERT_TRUE(r.ok) << r.error;
  const auto calls = server.calls();
  const auto& headers = calls.back().headers;
  ASSERT_TRUE(headers.count("api-key"));
  EXPECT_EQ(headers.at("api-key"), secret);
  EXPECT_EQ(headers.at("OpenAI-Project"), "proj_abc");
  EXPECT_EQ(r.text(), "the header was [redacted]");
  EXPECT_EQ(r.body.find(secret), std::string::npos);
  EXPECT_EQ(client.signature().find(secret), std::string::npos);
  config.headers = {{"X-Evil", "a\r\nInjected: 1"}};
  EXPECT_THROW(llm::Client bad(config), UsageError);
  // "${NAME}": the value comes from the environment and is redacted all the same.
  ::setenv("PROBITY_TEST_HEADER_KEY", secret.c_str(), 1);
  config.headers = {{"api-key", "${PROBITY_TEST_HEADER_KEY}"}};
  llm::Client from_env(config);
  const auto r2 = from_env.call(chat("Hello again"));
  ASSERT_TRUE(r2.ok) << r2.error;
  const auto calls2 = server.calls();
  EXPECT_EQ(calls2.back().headers.at("api-key"), secret);
  EXPECT_EQ(r2.text(), "the header was [redacted]");
  ::unsetenv("PROBITY_TEST_HEADER_KEY");
  config.headers = {{"api-key", "${PROBITY_TEST_HEADER_KEY}"}};
  try {
    llm::Client missing(config);
    ADD_FAILURE();
  } catch (const UsageError& e) {
    EXPECT_NE(std::string(e.what()).find("PROBITY_TEST_HEADER_KEY"), std::string::npos);
  }
}

// A server that rate-limits one request in three: every item completes in one run, the 429s
// are waited out (Retry-After) instead of costing items, and concurrency backs off.
TEST(LlmServers, RateLimitedOneInThreeEveryItemCompletes) {
  FakeOptions o;
  o.flavour = Flavour::kOpenAiChat;
  o.model = "gpt-4o-mini";
  o.rate_limit_every = 3;
  FakeServer server(o);
  auto config = endpoint_at(server, o.model);
  config.concurrency = 8;
  config.max_attempts = 2;  // 429s do not spend attempts: they have a time budget
  std::vector<std::string> logs;
  std::mutex log_mutex;
  llm::ClientOptions options;
  options.log = [&](std::string_view line) {
    std::lock_guard lock(log_mutex);
    logs.emplace_back(line);
  };
  llm::Client client(config, options);
  std::vector<llm::Request> requests;
  for (int i = 0; i < 24; ++i) requests.push_back(chat("item " + std::to_string(i)));
  const auto answers = client.run(requests);
  for (const auto& a : answers) EXPECT_TRUE(a.ok) << a.error;
  const auto usage = client.accounting().total();
  EXPECT_TRUE(usage.failures.empty());
  EXPECT_GE(usage.retries, 8u);
  EXPECT_EQ(usage.requests, 24 + usage.retries);
  bool backed_off = false;
  for (const auto& l : logs)
    backed_off |= l.find("rate limited; concurrency 8 -> 4") != std::string::npos;
  EXPECT_TRUE(backed_off);
  // A budget of zero gives up on the first 429.
  config.rate_limit_budget_s = 0;
  llm::Client impatient(config);
  std::size_t failed = 0;
  for (const auto& a : impatient.run(requests)) failed += a.ok ? 0 : 1;
  EXPECT_GT(failed, 0u);
}

TEST(LlmServers, CachedPromptTokensArePricedAtTheirRate) {
  llm::Accounting acc;
  llm::EndpointConfig c;
  c.name = "judge";
  c.model = "m";
  c.price_in = 1.0;  // USD per 1M tokens
  c.price_cached_in = 0.1;
  c.price_out = 2.0;
  acc.register_endpoint(c);
  llm::EndpointUsage d;
  d.tokens_in = 1'000'000;
  d.tokens_cached_in = 600'000;
  d.tokens_out = 500'000;
  acc.add("judge", "m", d);
  EXPECT_DOUBLE_EQ(acc.total().cost_usd, 0.4 * 1.0 + 0.6 * 0.1 + 0.5 * 2.0);
  EXPECT_EQ(acc.total().tokens_cached_in, 600'000u);
  EXPECT_NE(acc.to_json().find("\"tokens_cached_in\": 600000"), std::string::npos);
  // The parser reads OpenAI's usage.prompt_tokens_details.cached_tokens.
  FakeOptions o;
  o.flavour = Flavour::kOpenAiChat;
  o.model = "gpt-4o-mini";
  FakeServer server(o);
  llm::Client client(endpoint_at(server, o.model));
  const auto r = client.call(chat("Hello"));
  ASSERT_TRUE(r.ok);
  EXPECT_EQ(r.usage.cached_prompt_tokens, 0);
  EXPECT_NE(r.body.find("cached_tokens"), std::string::npos);
  // A prompt of 1024 tokens or more asked again is served from OpenAI's prompt cache.
  const std::string long_prompt = std::string(8000, 'a') + " Rate it.";
  EXPECT_EQ(client.call(chat(long_prompt)).usage.cached_prompt_tokens, 0);
  const auto again = client.call(chat(long_prompt + " Again."));
  ASSERT_TRUE(again.ok);
  EXPECT_GE(again.usage.cached_prompt_tokens, 1024);
  EXPECT_EQ((again.usage.cached_prompt_tokens - 1024) % 128, 0);
}

// ---- Every autoregressive cell end to end ------------------------------------------------------

// Two tasks, so each task's negatives are the other task's reference; non-Latin text and emoji
// so that spans cross merged spaces and split characters.
Dataset two_tasks() {
  Dataset ds;
  const char* refs[] = {"The council approved the budget. Taxes will rise next year.",
                        "Der Fluss überflutete das Dorf. 居民乘船撤离。"};
  const char* cands[][2] = {
      {"The council approved the budget and taxes will rise.", "Le conseil a voté le budget 👍."},
      {"Residents left by boat after the flood.", "洪水淹没了村庄。"}};
  for (int t = 0; t < 2; ++t) {
    Task task;
    task.task_id = "t" + std::to_string(t);
    task.group = "g";
    task.references.push_back({"r", refs[t]});
    task.candidates.push_back({"a", "A", cands[t][0], {}});
    task.candidates.push_back({"b", "B", cands[t][1], {}});
    ds.tasks.push_back(std::move(task));
  }
  return ds;
}

std::vector<double> item_scores(const Dataset& ds, const std::string& spec, Engine& engine) {
  auto items = all_items(ds);
  std::vector<MetricSelection> m;
  m.push_back(select_metric(spec, engine));
  auto stats = compute_stats(ds, items, m);
  std::vector<double> out, parts(m[0].metric->parts().size());
  for (std::size_t i = 0; i < items.size(); ++i) {
    m[0].metric->sentence_score(stats[0].row(i), parts);
    out.push_back(parts[m[0].primary]);
  }
  return out;
}

// The cell's score of each item from hand-computed log-ratios (fixture spans, fake table) and
// the estimators of Xu et al. 2025.
std::vector<double> expected_cell_scores(const Dataset& ds, const std::string& tokenizer,
                                         mi::Measure f, bool variational, bool statements) {
  const auto cond = llm::load_prompt("lm_conditional.v1");
  const std::string bare = llm::load_prompt("lm_unconditional.v1").text;
  auto log_ratio = [&](const std::string& x, const std::string& t) {
    return expected_log_prob(tokenizer, {"", cond.render({{"context", x}}), t}, true) -
           expected_log_prob(tokenizer, {"", bare, t}, true);
  };
  auto targets = [&](const std::string& y) {
    return statements ? mi::decompose_statements(y) : std::vector<std::string>{y};
  };
  auto mean_over = [&](const std::string& x, const std::string& y, auto per_target) {
    const auto ts = targets(y);
    double sum = 0;
    for (const auto& t : ts) sum += per_target(log_ratio(x, t));
    return sum / static_cast<double>(ts.size());
  };
  std::vector<double> out;
  for (std::size_t t = 0; t < ds.tasks.size(); ++t) {
    const std::string& own = ds.tasks[t].references[0].text;
    const std::string& other = ds.tasks[1 - t].references[0].text;
    for (const auto& c : ds.tasks[t].candidates) {
      if (!variational) {
        out.push_back(mean_over(c.text, own, [&](double lr) { return mi::direct_score(f, lr); }));
        continue;
      }
      auto critic = [&](const std::string& y) {
        return mean_over(c.text, y, [&](double lr) { return mi::optimal_critic(f, std::exp(lr)); });
      };
      out.push_back(critic(own) - mi::conjugate(f, critic(other)));
    }
  }
  return out;
}

class EveryArCell : public ::testing::TestWithParam<ServerSetup> {};

// GEM and the other 19 autoregressive cells give the hand-computed values exactly (to the last
// bits the estimator's arithmetic allows) on real-tokenizer ids.
TEST_P(EveryArCell, GivesTheHandComputedScoreOfEveryItem) {
  const ServerSetup& s = GetParam();
  FakeOptions o;
  o.flavour = s.flavour;
  o.tokenizer = s.tokenizer;
  FakeServer server(o);
  Engine engine;
  engine.set_llm(session_at(server.base_url(), o.model));
  const auto ds = two_tasks();
  const mi::Measure measures[] = {mi::Measure::kTV, mi::Measure::kKL, mi::Measure::kReverseKL,
                                  mi::Measure::kPearson, mi::Measure::kHellinger};
  std::size_t cells = 0;
  for (const char* r : {"token", "statement"})
    for (auto f : measures)
      for (bool variational : {false, true}) {
        const std::string spec = fmt::format("mi:{}/{}/{}/ar,llm=lm", mi::measure_name(f),
                                             variational ? "fvar" : "direct", r);
        const auto got = item_scores(ds, spec, engine);
        const auto want =
            expected_cell_scores(ds, s.tokenizer, f, variational, std::string(r) == "statement");
        ASSERT_EQ(got.size(), want.size());
        for (std::size_t i = 0; i < got.size(); ++i)
          EXPECT_NEAR(got[i], want[i], 1e-12 * std::max(1.0, std::abs(want[i])))
              << setup_name(s) << " " << spec << " item " << i;
        ++cells;
      }
  EXPECT_EQ(cells, 20u);
  const auto gem = item_scores(ds, "gem,predictor=llm", engine);
  const auto want = expected_cell_scores(ds, s.tokenizer, mi::Measure::kKL, false, false);
  for (std::size_t i = 0; i < gem.size(); ++i)
    EXPECT_EQ(gem[i], want[i]) << setup_name(s) << " gem item " << i;  // one subtraction: exact
}

INSTANTIATE_TEST_SUITE_P(LlmServers, EveryArCell,
                         ::testing::Values(ServerSetup{Flavour::kVllm, "llama3"},
                                           ServerSetup{Flavour::kSglang, "llama2"}),
                         [](const ::testing::TestParamInfo<ServerSetup>& p) {
                           std::string n = setup_name(p.param);
                           for (auto& ch : n)
                             if (!std::isalnum(static_cast<unsigned char>(ch))) ch = '_';
                           return n;
                         });

}  // namespace
}  // namespace probity::test
