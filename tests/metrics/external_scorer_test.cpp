// External scorers (exec:COMMAND, http:URL) over probity-score/1: the answer parser names what
// is wrong, a misbehaving process is named with its exit code and stderr, and attacking chrF
// through the built-in metric, an exec: scorer and an http: scorer gives identical results.
#include "metrics/external_scorer.hpp"

#include <gtest/gtest.h>
#include <httplib.h>

#include <atomic>
#include <chrono>
#include <cmath>
#include <cstdlib>
#include <filesystem>
#include <nlohmann/json.hpp>
#include <thread>

#include "perturb/edit_ops.hpp"
#include "probity/attack.hpp"
#include "probity/engine.hpp"
#include "probity/error.hpp"
#include "probity/scoring.hpp"
#include "report/json_value.hpp"
#include "test_paths.hpp"

namespace probity::test {
namespace {

std::string scorer(const std::string& args) {
  return "exec:/usr/bin/python3 " + std::string(PROBITY_TEST_DIR) +
         "/scorers/misbehaving_scorer.py " + args;
}

Candidate candidate(std::string text) {
  Candidate c;
  c.id = "c";
  c.text = std::move(text);
  return c;
}

// The message of the error scoring `texts` with `spec` throws ("" when it does not throw).
std::string failure(const std::string& spec, std::size_t items = 3) {
  Engine engine;
  MetricSelection m = select_metric(spec, engine);
  Dataset ds;
  for (std::size_t i = 0; i < items; ++i) {
    Task t;
    t.task_id = "t" + std::to_string(i);
    t.references.push_back({"r", "the reference text"});
    t.candidates.push_back(candidate("candidate number " + std::to_string(i)));
    ds.tasks.push_back(t);
  }
  try {
    ScoreOptions so;
    so.threads = 2;
    compute_stats(ds, all_items(ds), std::span<MetricSelection>(&m, 1), so);
  } catch (const std::exception& e) {
    return e.what();
  }
  return "";
}

TEST(ExternalScorer, TheAnswerParserNamesWhatIsWrong) {
  using metrics::parse_score_answer;
  auto message = [](std::string_view text, std::size_t n) {
    try {
      parse_score_answer(text, n, "metric 'x'");
    } catch (const std::runtime_error& e) {
      return std::string(e.what());
    }
    return std::string();
  };
  // '}' is the 16th byte of the answer, counting from 1.
  EXPECT_NE(message(R"({"scores": [1, })", 2).find("malformed JSON at byte 16"), std::string::npos)
      << message(R"({"scores": [1, })", 2);
  EXPECT_NE(message(R"({"scores": [NaN]})", 1).find("NaN is not JSON: write null"),
            std::string::npos);
  EXPECT_NE(message(R"({"score": [1]})", 1).find("without the field \"scores\""),
            std::string::npos);
  EXPECT_NE(message(R"({"scores": 1})", 1).find("as a JSON number, not an array"),
            std::string::npos);
  EXPECT_NE(message(R"({"scores": [1, 2]})", 3).find("answered 2 scores for 3 items"),
            std::string::npos);
  EXPECT_NE(message(R"({"scores": [1, "2"]})", 2).find("scores[1] as a JSON string"),
            std::string::npos);
  EXPECT_NE(message(R"({"error": "out of memory"})", 1).find("reported an error: out of memory"),
            std::string::npos);
  const auto a =
      parse_score_answer(R"({"scores": [0.5, null], "errors": [null, "empty"]})", 2, "metric 'x'");
  EXPECT_EQ(a.scores[0], 0.5);
  EXPECT_TRUE(std::isnan(a.scores[1]));
  EXPECT_EQ(a.errors[1], "empty");
}

TEST(ExternalScorer, TheRequestIsOneLineOfTheProtocol) {
  MetricInput in;
  in.candidate = "a \"quoted\"\nline";
  in.references = {"r1", "r2"};
  in.source = "src";
  const std::string body = metrics::score_request(std::span<const MetricInput>(&in, 1));
  EXPECT_EQ(body.find('\n'), std::string::npos);
  const auto j = nlohmann::json::parse(body);
  EXPECT_EQ(j["protocol"], "probity-score/1");
  EXPECT_EQ(j["items"][0]["id"], 0);
  EXPECT_EQ(j["items"][0]["candidate"], "a \"quoted\"\nline");
  EXPECT_EQ(j["items"][0]["references"], nlohmann::json::array({"r1", "r2"}));
  EXPECT_EQ(j["items"][0]["source"], "src");
}

TEST(ExternalScorer, AScorerThatExitsIsNamedWithItsCodeAndStderr) {
  const std::string m = failure(scorer("exit"));
  EXPECT_NE(m.find("exited with code 3 before answering"), std::string::npos) << m;
  EXPECT_NE(m.find("model file not found: /nonexistent/model.bin"), std::string::npos) << m;
}

TEST(ExternalScorer, MalformedAnswersAreNamed) {
  std::string m = failure(scorer("badjson"));
  EXPECT_NE(m.find("malformed JSON at byte"), std::string::npos) << m;
  m = failure(scorer("count"));
  EXPECT_NE(m.find("answered 2 scores for 3 items"), std::string::npos) << m;
  m = failure(scorer("string"));
  EXPECT_NE(m.find("scores[0] as a JSON string"), std::string::npos) << m;
  m = failure(scorer("nan"));
  EXPECT_NE(m.find("NaN is not JSON"), std::string::npos) << m;
}

TEST(ExternalScorer, ASilentScorerTimesOut) {
  const auto start = std::chrono::steady_clock::now();
  const std::string m = failure(scorer("timeout,timeout=0.5"));
  EXPECT_NE(m.find("gave no answer line within 0.5s"), std::string::npos) << m;
  EXPECT_LT(std::chrono::steady_clock::now() - start, std::chrono::seconds(20));
}

TEST(ExternalScorer, NullScoresAreUndefinedItemsWithTheScorersReason) {
  Engine engine;
  MetricSelection m = select_metric(scorer("null,batch=2"), engine);
  Dataset ds;
  for (int i = 0; i < 4; ++i) {
    Task t;
    t.task_id = "t" + std::to_string(i);
    t.references.push_back({"r", "ref"});
    t.candidates.push_back(candidate(std::string(static_cast<std::size_t>(i + 1), 'x')));
    ds.tasks.push_back(t);
  }
  ScoreOptions so;
  so.threads = 1;
  auto stats = compute_stats(ds, all_items(ds), std::span<MetricSelection>(&m, 1), so);
  std::vector<double> parts(1);
  // Batches of 2: ids 0, 1 then 0, 1 again; odd ids are null with a reason.
  m.metric->sentence_score(stats[0].row(0), parts);
  EXPECT_EQ(parts[0], 1.0);
  m.metric->sentence_score(stats[0].row(2), parts);
  EXPECT_EQ(parts[0], 3.0);
  for (std::size_t i : {1, 3}) {
    m.metric->sentence_score(stats[0].row(i), parts);
    EXPECT_TRUE(std::isnan(parts[0]));
    EXPECT_EQ(m.metric->undefined_reason(stats[0].row(i)),
              "the scorer answered null: empty after cleaning");
  }
}

TEST(ExternalScorer, TheSignatureIsTheCommandAndTheUsersVersion) {
  Engine engine;
  const auto a = select_metric("exec:./my-scorer --fast,version=2", engine);
  const auto b = select_metric("exec:./my-scorer --fast,version=3,batch=8,timeout=5", engine);
  EXPECT_EQ(a.metric->signature().rfind("exec:./my-scorer --fast|scorer_version:2|", 0), 0u)
      << a.metric->signature();
  EXPECT_NE(a.metric->signature(), b.metric->signature());
  EXPECT_EQ(b.metric->signature().find("batch"), std::string::npos);
  EXPECT_THROW(select_metric("exec:", engine), UsageError);
  EXPECT_THROW(select_metric("http:localhost", engine), UsageError);
  ::unsetenv("PROBITY_TEST_UNSET_KEY");
  EXPECT_THROW(select_metric("http://127.0.0.1:1/x,key_env=PROBITY_TEST_UNSET_KEY", engine),
               UsageError);
}

// An http: scorer computing chrF with probity's own chrf: the same numbers as the built-in.
class ChrfServer {
 public:
  ChrfServer() : chrf_(MetricRegistry::builtin().create("chrf", Engine().metric_context())) {
    server_.Post("/score", [this](const httplib::Request& req, httplib::Response& res) {
      ++requests_;
      if (fail_next_ > 0) {
        --fail_next_;
        res.status = 503;
        res.set_content("busy", "text/plain");
        return;
      }
      if (!key_.empty() && req.get_header_value("X-Key") != key_) {
        res.status = 401;
        res.set_content("bad key", "text/plain");
        return;
      }
      const auto body = nlohmann::json::parse(req.body);
      nlohmann::json scores = nlohmann::json::array();
      for (const auto& item : body["items"]) {
        const std::string cand = item["candidate"];
        std::vector<std::string> refs = item["references"];
        MetricInput in;
        in.candidate = cand;
        for (const auto& r : refs) in.references.push_back(r);
        scores.push_back(chrf_->score(in)[0]);
      }
      res.set_content(nlohmann::json{{"scores", scores}}.dump(), "application/json");
    });
    port_ = server_.bind_to_any_port("127.0.0.1");
    thread_ = std::thread([this] { server_.listen_after_bind(); });
    for (int i = 0; i < 5000 && !server_.is_running(); ++i)
      std::this_thread::sleep_for(std::chrono::milliseconds(1));
  }
  ~ChrfServer() {
    server_.stop();
    thread_.join();
  }
  std::string url() const { return "http://127.0.0.1:" + std::to_string(port_) + "/score"; }
  std::atomic<int> fail_next_{0};
  std::atomic<int> requests_{0};
  std::string key_;

 private:
  std::unique_ptr<Metric> chrf_;
  httplib::Server server_;
  int port_ = 0;
  std::thread thread_;
};

TEST(ExternalScorer, HttpRetriesA503AndSendsTheKeyFromTheEnvironment) {
  ChrfServer server;
  server.key_ = "s3cret";
  ::setenv("PROBITY_TEST_SCORER_KEY", "s3cret", 1);
  server.fail_next_ = 1;
  const std::string spec = server.url() + ",key_env=PROBITY_TEST_SCORER_KEY,key_header=X-Key";
  EXPECT_EQ(failure(spec), "");
  EXPECT_GE(server.requests_.load(), 2);
  Engine engine;
  EXPECT_EQ(select_metric(spec, engine).metric->signature().find("s3cret"), std::string::npos);
  server.key_ = "other";
  const std::string m = failure(spec);
  EXPECT_NE(m.find("answered HTTP 401"), std::string::npos) << m;
  EXPECT_EQ(m.find("s3cret"), std::string::npos) << m;
  const std::string down = failure("http://127.0.0.1:1/score,retries=0");
  EXPECT_NE(down.find("no answer from http://127.0.0.1:1/score"), std::string::npos) << down;
}

// attack.json's entry of a metric without what names it (also in each held-out test) or depends
// on the clock.
nlohmann::ordered_json comparable(const MetricAttack& a) {
  auto j = report::attack_json(a);
  j.erase("metric");
  j.erase("signature");
  j.erase("seconds");
  for (auto& u : j["universal"]) u["held_out"].erase("metric");
  return j;
}

TEST(ExternalScorer, AttackingChrfBuiltInThroughExecAndThroughHttpGivesIdenticalResults) {
  // The exec: route's scorer imports the Python module of this build tree.
  const std::string python_path =
      (std::filesystem::path(PROBITY_BINARY).parent_path() / "python").string();
  if (!std::filesystem::exists(python_path + "/probity/__init__.py"))
    GTEST_SKIP() << "untested: the exec: route's scorer imports the Python module, which this "
                    "build does not make (PROBITY_BUILD_PYTHON=OFF): "
                 << python_path;
  ChrfServer server;
  Dataset ds = load_dataset(data_path("summeval/summeval_sample20.jsonl"));
  ds.tasks.resize(4);
  const auto items = all_items(ds);
  AttackOptions o;
  o.seed = 7;
  o.budget = 12;
  o.steps = 2;
  o.programs = 4;
  o.bootstrap = 0;
  o.threads = 2;
  Engine engine;
  std::vector<MetricSelection> metrics;
  metrics.push_back(select_metric("chrf", engine));
  metrics.push_back(select_metric("exec:PYTHONPATH=" + python_path + " /usr/bin/python3 " +
                                      PROBITY_TEST_DIR + "/scorers/chrf_scorer.py,batch=50",
                                  engine));
  metrics.push_back(select_metric(server.url() + ",batch=40", engine));
  const auto registry = perturb::EditOpRegistry::builtin();
  const AttackReport r = run_attack(ds, items, metrics, o, registry);
  ASSERT_EQ(r.metrics.size(), 3u);
  EXPECT_TRUE(r.metrics[0].testable);
  EXPECT_GT(r.metrics[0].queries, items.size());
  EXPECT_FALSE(r.metrics[0].universal.empty());
  const auto builtin = comparable(r.metrics[0]);
  EXPECT_EQ(comparable(r.metrics[1]).dump(), builtin.dump());
  EXPECT_EQ(comparable(r.metrics[2]).dump(), builtin.dump());
  EXPECT_GT(server.requests_.load(), 1);
}

}  // namespace
}  // namespace probity::test
