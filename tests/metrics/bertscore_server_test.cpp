// BERTScore's server provider (embed=tei:URL, embed=vllm:URL) against the contract fakes of
// text-embeddings-inference and vLLM (tests/metrics/fakes): bert_score's goldens through each
// server, real roberta-large token ids and special flags, batching and the response cache,
// failures (422, 413, 429 then success, 503, vLLM's model and task checks) and the options.
#include <fmt/format.h>
#include <gtest/gtest.h>

#include <cmath>
#include <filesystem>
#include <fstream>
#include <nlohmann/json.hpp>

#include "cli_runner.hpp"
#include "llm/session.hpp"
#include "metrics/bertscore.hpp"
#include "metrics/fakes/embed_server.hpp"
#include "probity/engine.hpp"
#include "probity/error.hpp"
#include "probity/metric.hpp"
#include "test_paths.hpp"

namespace {

using nlohmann::json;
using probity::test::EmbedFakeOptions;
using probity::test::EmbedFlavour;
using probity::test::EmbedServer;
namespace bs = probity::metrics::bertscore;
namespace llm = probity::llm;

const char* provider(EmbedFlavour f) {
  return f == EmbedFlavour::kTei ? "tei" : "vllm";
}

struct Golden {
  json header;
  std::vector<json> cases;
};

const Golden& golden() {
  static const Golden g = [] {
    Golden out;
    std::ifstream in(probity::test::golden_path("bertscore/bertscore.jsonl"));
    std::string line;
    std::getline(in, line);
    out.header = json::parse(line);
    while (std::getline(in, line)) out.cases.push_back(json::parse(line));
    return out;
  }();
  return g;
}

std::string write_baseline() {
  const std::string path = probity::test::temp_dir("bertscore_server_baseline") + "/baseline.tsv";
  std::ofstream(path) << golden().header["baseline_csv"].get<std::string>();
  return path;
}

// Client settings for tests: retries wait milliseconds.
llm::EndpointConfig fast_settings(int max_attempts = 4) {
  llm::EndpointConfig c;
  c.timeout_s = 10;
  c.backoff_base_s = 0.01;
  c.backoff_max_s = 0.05;
  c.max_attempts = max_attempts;
  c.max_response_bytes = 64u << 20;
  return c;
}

std::shared_ptr<llm::Session> session_with(const std::string& toml, const std::string& cache) {
  llm::LlmConfig config = llm::parse_config(toml, "test.toml");
  config.cache_path = cache;
  return std::make_shared<llm::Session>(std::move(config));
}

struct Items {
  std::vector<probity::Task> tasks;
  std::vector<probity::MetricInput> inputs;
};

Items items_of(const json& c) {
  Items out;
  for (std::size_t i = 0; i < c["cands"].size(); ++i) {
    probity::Task t;
    t.task_id = std::to_string(i);
    for (const auto& r : c["refs"][i]) t.references.push_back({"r", r.get<std::string>()});
    t.candidates.push_back({"c", "s", c["cands"][i].get<std::string>(), {}});
    out.tasks.push_back(std::move(t));
  }
  for (const auto& t : out.tasks) {
    probity::MetricInput in;
    in.candidate = t.candidates[0].text;
    for (const auto& r : t.references) in.references.push_back(r.text);
    out.inputs.push_back(std::move(in));
  }
  return out;
}

// Scores of every item, the chunk announced first as the scorer does.
std::vector<std::vector<double>> score_all(probity::Metric& metric, Items& items) {
  if (metric.needs_fit()) metric.fit(items.tasks);
  if (metric.batch_size() > 0) metric.prefetch(items.inputs);
  std::vector<std::vector<double>> out;
  for (const auto& in : items.inputs) out.push_back(metric.score(in));
  return out;
}

void expect_near_or_nan(const json& want, double got, const std::string& what) {
  if (want.is_null()) {
    EXPECT_TRUE(std::isnan(got)) << what << " got " << got;
  } else {
    EXPECT_NEAR(got, want.get<double>(), 1e-9) << what;
  }
}

class ServerFlavour : public ::testing::TestWithParam<EmbedFlavour> {};

// bert_score's own score() on its fixed table, reproduced through the server path: the fake
// serves the same table per token id ([CLS]/[SEP] as special tokens), vLLM's rows normalised.
TEST_P(ServerFlavour, MatchesBertScoreGoldensThroughTheServer) {
  EmbedFakeOptions fo;
  fo.flavour = GetParam();
  fo.tokenizer = "golden";
  fo.model = "golden-table";
  EmbedServer server(fo);
  const std::string baseline = write_baseline();
  std::size_t checked = 0;
  for (const json& c : golden().cases) {
    std::string spec =
        fmt::format("bertscore,embed={}:{},model=golden-table", provider(GetParam()), server.url());
    if (c["idf"].get<bool>()) spec += ",idf=true";
    if (!c["baseline_layer"].is_null())
      spec += ",baseline=" + baseline +
              ",baseline_layer=" + std::to_string(c["baseline_layer"].get<int>());
    auto metric = probity::make_metric(spec);
    Items items = items_of(c);
    const auto got = score_all(*metric, items);
    for (std::size_t i = 0; i < got.size(); ++i) {
      const std::string what = c["name"].get<std::string>() + " idf=" + c["idf"].dump() +
                               " layer=" + c["baseline_layer"].dump() + " item " +
                               std::to_string(i);
      for (std::size_t j = 0; j < 3; ++j) expect_near_or_nan(c["expected"][i][j], got[i][j], what);
      ++checked;
    }
  }
  EXPECT_GE(checked, 100u);
}

// Real roberta-large ids: the EmbeddedText is /tokenize's ids with <s>=0 and </s>=2 flagged
// special, and the vectors are /embed_all's (/pooling's, normalised) rows in that order.
TEST_P(ServerFlavour, RobertaTokenIdsAndSpecialFlags) {
  EmbedFakeOptions fo;
  fo.flavour = GetParam();
  EmbedServer server(fo);
  bs::ServerOptions o;
  o.provider = provider(GetParam());
  o.url = server.url();
  o.model = "roberta-large";
  auto embedder = bs::make_server_embedder(o, nullptr, fast_settings());
  const bs::EmbeddedText t = embedder->embed("  Hello, my dog is cute\n");  // stripped first
  const std::vector<std::string> ids = {"0", "31414", "6", "127", "2335", "16", "11962", "2"};
  EXPECT_EQ(t.tokens, ids);
  EXPECT_EQ(t.special, (std::vector<char>{1, 0, 0, 0, 0, 0, 0, 1}));
  ASSERT_EQ(t.dim, 8u);
  for (std::size_t i = 0; i < ids.size(); ++i) {
    const auto want = probity::test::fake_vector("roberta", std::stoll(ids[i]));
    double norm = 0;
    for (double x : want) norm += x * x;
    norm = std::sqrt(norm);
    for (std::size_t k = 0; k < 8; ++k) {
      const double w = GetParam() == EmbedFlavour::kTei ? want[k] : want[k] / norm;
      EXPECT_NEAR(t.vectors[i * 8 + k], w, GetParam() == EmbedFlavour::kTei ? 0.0 : 1e-7)
          << i << "," << k;
    }
  }
  // What was sent: the stripped text; TEI with truncate false, vLLM with and without specials.
  bool embed_seen = false;
  for (const auto& call : server.calls()) {
    const json body = json::parse(call.body);
    if (GetParam() == EmbedFlavour::kTei) {
      EXPECT_EQ(body["inputs"], "Hello, my dog is cute");
      if (call.path == "/embed_all") {
        EXPECT_EQ(body["truncate"], false);
        embed_seen = true;
      }
    } else {
      EXPECT_EQ(body["model"], "roberta-large");
      if (call.path == "/pooling") {
        EXPECT_EQ(body["task"], "token_embed");
        EXPECT_EQ(body["input"], "Hello, my dog is cute");
        embed_seen = true;
      }
    }
  }
  EXPECT_TRUE(embed_seen);
}

// The metric over real ids with IDF: equal to greedy matching on the same vectors computed here.
TEST_P(ServerFlavour, RobertaScoresEqualTheDirectComputation) {
  EmbedFakeOptions fo;
  fo.flavour = GetParam();
  EmbedServer server(fo);
  auto metric = probity::make_metric(fmt::format(
      "bertscore,embed={}:{},model=roberta-large,idf=true", provider(GetParam()), server.url()));
  const std::vector<std::string> refs = {"Hello world!", "Hello, my dog is cute"};
  const std::string cand = "Hello world! cécé herlolip 418";
  std::vector<probity::Task> tasks(1);
  tasks[0].task_id = "t";
  for (const auto& r : refs) tasks[0].references.push_back({"r", r});
  tasks[0].candidates.push_back({"c", "s", cand, {}});
  metric->fit(tasks);
  probity::MetricInput in;
  in.candidate = cand;
  for (const auto& r : refs) in.references.push_back(r);
  const auto got = metric->score(in);

  auto direct = [](const std::string& text) {
    const auto t = probity::test::fake_tokenize("roberta", text);
    bs::EmbeddedText e;
    e.dim = 8;
    for (std::size_t i = 0; i < t.ids.size(); ++i) {
      e.tokens.push_back(std::to_string(t.ids[i]));
      e.special.push_back(t.special[i] ? 1 : 0);
      for (double x : probity::test::fake_vector("roberta", t.ids[i])) e.vectors.push_back(x);
    }
    return e;
  };
  bs::IdfTable idf;
  for (const auto& r : refs) idf.add_document(direct(r));
  EXPECT_NEAR(idf.weight("0"), 0.0, 1e-15);  // <s> is in every document
  const auto hyp = direct(cand);
  double p = -1, r = -1, f = -1;
  for (const auto& ref_text : refs) {
    const auto ref = direct(ref_text);
    const auto s =
        bs::greedy_match(hyp, bs::token_weights(hyp, &idf), ref, bs::token_weights(ref, &idf));
    p = std::max(p, s.p);
    r = std::max(r, s.r);
    f = std::max(f, s.f);
  }
  EXPECT_NEAR(got[0], p, 1e-9);
  EXPECT_NEAR(got[1], r, 1e-9);
  EXPECT_NEAR(got[2], f, 1e-9);
  EXPECT_GT(got[2], 0.0);
  EXPECT_LT(got[2], 1.0);
}

// Texts announced by prefetch go out as one batch, each distinct text once; a second run with
// the same cache file asks nothing and gives the same scores.
TEST_P(ServerFlavour, BatchesDistinctTextsAndTheCacheServesASecondRun) {
  EmbedFakeOptions fo;
  fo.flavour = GetParam();
  fo.tokenizer = "golden";
  fo.model = "golden-table";
  EmbedServer server(fo);
  const std::string cache = probity::test::temp_dir("bertscore_server_cache") + "/cache.sqlite";
  json c;
  c["cands"] = {"the cat sat on the mat", "a dog ran in the park", "the cat sat on the mat"};
  c["refs"] = {{"the cat sat on mat"}, {"a big dog ran", "the cat sat on mat"}, {"a big dog ran"}};
  const std::string spec = fmt::format("bertscore,embed={}:{},model=golden-table,batch=16",
                                       provider(GetParam()), server.url());
  const std::size_t per_text = GetParam() == EmbedFlavour::kTei ? 2 : 3;
  std::vector<std::vector<double>> first;
  {
    probity::Engine engine;
    engine.set_llm(session_with("", cache));
    auto metric = engine.make_metric(spec);
    EXPECT_EQ(metric->batch_size(), 16u);
    Items items = items_of(c);
    first = score_all(*metric, items);
    EXPECT_EQ(server.count(), 4 * per_text);  // 4 distinct texts, asked once each
    const auto usage = engine.llm()->accounting().endpoints();
    ASSERT_EQ(usage.size(), 1u);
    EXPECT_EQ(usage[0].endpoint, "embedder");
    EXPECT_EQ(usage[0].model, "golden-table");
    EXPECT_EQ(usage[0].requests, 4 * per_text);
  }
  const std::size_t before = server.count();
  probity::Engine engine;
  engine.set_llm(session_with("", cache));
  auto metric = engine.make_metric(spec);
  Items items = items_of(c);
  const auto second = score_all(*metric, items);
  EXPECT_EQ(server.count(), before);  // zero requests
  EXPECT_EQ(engine.llm()->accounting().endpoints()[0].cache_hits, 4 * per_text);
  ASSERT_EQ(second.size(), first.size());
  for (std::size_t i = 0; i < first.size(); ++i)
    for (std::size_t j = 0; j < 3; ++j) EXPECT_EQ(second[i][j], first[i][j]);
  EXPECT_NEAR(first[0][2], 1.0 - 0.0, 0.2);  // sanity: near-identical pair scores high
}

// A text longer than the model's input is HTTP 422 (TEI: truncate false; vLLM: context
// length), never truncated silently: the item is undefined and the failure counted with its
// cause; the other items are scored.
TEST_P(ServerFlavour, TooLongTextIsAFailureWithItsCause) {
  EmbedFakeOptions fo;
  fo.flavour = GetParam();
  fo.max_input_length = 6;  // "Hello, my dog is cute" is 8 tokens, "Hello world!" 5
  EmbedServer server(fo);
  probity::Engine engine;
  engine.set_llm(session_with("", ""));
  auto metric = engine.make_metric(
      fmt::format("bertscore,embed={}:{},model=roberta-large", provider(GetParam()), server.url()));
  ASSERT_EQ(metric->num_stats(), 5u);
  std::vector<probity::MetricInput> inputs(2);
  inputs[0].candidate = "Hello, my dog is cute";
  inputs[0].references = {"Hello world!"};
  inputs[1].candidate = "Hello world!";
  inputs[1].references = {"Hello world!"};
  metric->prefetch(inputs);
  std::vector<double> stats(5);
  metric->item_stats(inputs[0], stats);
  std::vector<double> parts(3);
  metric->sentence_score(stats, parts);
  EXPECT_TRUE(std::isnan(parts[0]) && std::isnan(parts[1]) && std::isnan(parts[2]));
  EXPECT_EQ(static_cast<int>(stats[4]), static_cast<int>(llm::ErrorKind::kInvalidRequest));
  EXPECT_NE(metric->undefined_reason(stats).find("invalid_request"), std::string::npos);
  metric->item_stats(inputs[1], stats);
  metric->sentence_score(stats, parts);
  EXPECT_NEAR(parts[2], 1.0, 1e-12);
  EXPECT_EQ(stats[4], 0.0);
  const auto u = engine.llm()->accounting().endpoints().at(0);
  ASSERT_EQ(u.failures.count("invalid_request"), 1u);
  EXPECT_EQ(u.failures.at("invalid_request"), 1u);
  const std::string example = u.failure_examples.at("invalid_request").at(0);
  EXPECT_NE(example.find(GetParam() == EmbedFlavour::kTei ? "HTTP 422" : "HTTP 400"),
            std::string::npos)
      << example;
  EXPECT_NE(example.find(GetParam() == EmbedFlavour::kTei ? "must have less than 6 tokens"
                                                          : "maximum context length is 6"),
            std::string::npos)
      << example;
}

// 429 (TEI: the queue is full, "Model is overloaded") is waited out and retried; the scores are
// those of an undisturbed server.
TEST_P(ServerFlavour, OverloadedIsRetriedThenSucceeds) {
  const std::string embed_path = GetParam() == EmbedFlavour::kTei ? "/embed_all" : "/pooling";
  EmbedFakeOptions fo;
  fo.flavour = GetParam();
  fo.fault = [&](const std::string& path,
                 std::size_t nth) -> std::optional<probity::test::EmbedReply> {
    if (path != embed_path || nth >= 2) return std::nullopt;
    auto r = GetParam() == EmbedFlavour::kTei
                 ? probity::test::tei_error(429, "Overloaded", "Model is overloaded")
                 : probity::test::vllm_error(429, "TooManyRequests", "rate limited");
    r.headers["Retry-After"] = "0";
    return r;
  };
  EmbedServer server(fo);
  bs::ServerOptions o;
  o.provider = provider(GetParam());
  o.url = server.url();
  o.model = "roberta-large";
  auto embedder = bs::make_server_embedder(o, nullptr, fast_settings());
  const bs::EmbeddedText t = embedder->embed("Hello world!");
  EXPECT_EQ(t.size(), 5u);
  EXPECT_EQ(server.count(embed_path), 3u);  // two 429s, then the answer
}

// 503 on every attempt: after max_attempts the text fails as `server`; the item is undefined.
TEST_P(ServerFlavour, UnavailableIsCountedAsAFailureWithItsCause) {
  const std::string embed_path = GetParam() == EmbedFlavour::kTei ? "/embed_all" : "/pooling";
  EmbedFakeOptions fo;
  fo.flavour = GetParam();
  fo.fault = [&](const std::string& path, std::size_t) -> std::optional<probity::test::EmbedReply> {
    if (path != embed_path) return std::nullopt;
    return GetParam() == EmbedFlavour::kTei
               ? probity::test::tei_error(503, "Unhealthy", "unhealthy")
               : probity::test::vllm_error(503, "ServiceUnavailable", "engine is sleeping");
  };
  EmbedServer server(fo);
  probity::Engine engine;
  // [llm.embedder] sets the client of the embedding server; [llm.default] is not inherited.
  engine.set_llm(
      session_with("[llm.default]\nbase_url = \"http://127.0.0.1:9/v1\"\nmodel = \"chat\"\n"
                   "[llm.embedder]\nmax_attempts = 2\nconcurrency = 3\n",
                   ""));
  auto metric = engine.make_metric(
      fmt::format("bertscore,embed={}:{},model=roberta-large", provider(GetParam()), server.url()));
  probity::MetricInput in;
  in.candidate = "Hello world!";
  in.references = {"Hello, my dog is cute"};
  std::vector<double> stats(5);
  metric->item_stats(in, stats);
  EXPECT_TRUE(std::isnan(stats[2]));
  EXPECT_EQ(static_cast<int>(stats[4]), static_cast<int>(llm::ErrorKind::kServer));
  EXPECT_NE(metric->undefined_reason(stats).find("server"), std::string::npos);
  EXPECT_EQ(server.count(embed_path), 2u);  // max_attempts = 2 from [llm.embedder]
  const auto usage = engine.llm()->accounting().endpoints();
  ASSERT_EQ(usage.size(), 1u);
  EXPECT_EQ(usage[0].endpoint, "embedder");
  EXPECT_EQ(usage[0].failures.at("server"), 1u);
  EXPECT_NE(usage[0].failure_examples.at("server")[0].find("HTTP 503"), std::string::npos);
}

// An empty (or whitespace-only) text is never sent: it is its tokenizer's special tokens, learnt
// from another text's tokenization (a probe when the batch has no other text).
TEST_P(ServerFlavour, EmptyTextIsTheSpecialTokensWithoutARequest) {
  EmbedFakeOptions fo;
  fo.flavour = GetParam();
  EmbedServer server(fo);
  bs::ServerOptions o;
  o.provider = provider(GetParam());
  o.url = server.url();
  o.model = "roberta-large";
  auto embedder = bs::make_server_embedder(o, nullptr, fast_settings());
  const std::vector<std::string_view> texts = {"", " \n\t "};
  embedder->prefetch(texts);
  const bs::EmbeddedText t = embedder->embed(" ");
  EXPECT_EQ(t.tokens, (std::vector<std::string>{"0", "2"}));
  EXPECT_EQ(t.special, (std::vector<char>{1, 1}));
  EXPECT_TRUE(t.empty_text());
  for (const auto& call : server.calls()) {
    const json body = json::parse(call.body);
    const std::string text = body.contains("inputs")   ? body["inputs"].get<std::string>()
                             : body.contains("prompt") ? body["prompt"].get<std::string>()
                                                       : body["input"].get<std::string>();
    EXPECT_EQ(text, "Hello world!");  // the probe, and nothing empty
  }
  EXPECT_GT(server.count(), 0u);
}

INSTANTIATE_TEST_SUITE_P(Providers, ServerFlavour,
                         ::testing::Values(EmbedFlavour::kTei, EmbedFlavour::kVllm),
                         [](const auto& p) { return std::string(provider(p.param)); });

// prefix_space: the stripped text goes out with one space before it (bert_score's
// add_prefix_space for RoBERTa); the golden tokenizer splits at whitespace, so the scores stay.
TEST(BertScoreServer, PrefixSpaceIsSent) {
  EmbedFakeOptions fo;
  fo.tokenizer = "golden";
  EmbedServer server(fo);
  bs::ServerOptions o;
  o.provider = "tei";
  o.url = server.url() + "/";
  o.model = "golden-table";
  o.prefix_space = true;
  auto embedder = bs::make_server_embedder(o, nullptr, fast_settings());
  const auto t = embedder->embed("  the cat sat ");
  EXPECT_EQ(t.tokens, (std::vector<std::string>{"1", "3", "4", "5", "2"}));
  for (const auto& call : server.calls())
    EXPECT_EQ(json::parse(call.body)["inputs"], " the cat sat");
}

// TEI's 413 (a body over --payload-limit) is not retried; the text fails as invalid_request.
TEST(BertScoreServer, PayloadTooLargeIsAFailure) {
  EmbedFakeOptions fo;
  fo.payload_limit = 60;
  EmbedServer server(fo);
  bs::ServerOptions o;
  o.provider = "tei";
  o.url = server.url();
  o.model = "roberta-large";
  auto embedder = bs::make_server_embedder(o, nullptr, fast_settings());
  EXPECT_NO_THROW(embedder->embed("Hello world!"));
  try {
    embedder->embed("Hello world! cécé herlolip 418");
    FAIL() << "no error";
  } catch (const bs::EmbedError& e) {
    EXPECT_EQ(e.kind(), static_cast<int>(llm::ErrorKind::kInvalidRequest));
    EXPECT_NE(std::string(e.what()).find("HTTP 413"), std::string::npos) << e.what();
  }
  EXPECT_EQ(server.count("/embed_all"), 2u);  // one each: a 413 is not retried
}

// vLLM checks the model name (404) and the pooling task (400 Unsupported task for a model
// without token_embed); both are failures naming the server's message.
TEST(BertScoreServer, VllmModelAndTaskChecksAreFailures) {
  {
    EmbedFakeOptions fo;
    fo.flavour = EmbedFlavour::kVllm;
    EmbedServer server(fo);
    bs::ServerOptions o;
    o.provider = "vllm";
    o.url = server.url() + "/v1";  // the OpenAI base URL works too
    o.model = "roberta-base";
    auto embedder = bs::make_server_embedder(o, nullptr, fast_settings());
    try {
      embedder->embed("Hello world!");
      FAIL() << "no error";
    } catch (const bs::EmbedError& e) {
      EXPECT_NE(std::string(e.what()).find("does not exist"), std::string::npos) << e.what();
    }
  }
  EmbedFakeOptions fo;
  fo.flavour = EmbedFlavour::kVllm;
  fo.token_embed = false;
  EmbedServer server(fo);
  bs::ServerOptions o;
  o.provider = "vllm";
  o.url = server.url();
  o.model = "roberta-large";
  auto embedder = bs::make_server_embedder(o, nullptr, fast_settings());
  try {
    embedder->embed("Hello world!");
    FAIL() << "no error";
  } catch (const bs::EmbedError& e) {
    EXPECT_EQ(e.kind(), static_cast<int>(llm::ErrorKind::kInvalidRequest));
    EXPECT_NE(std::string(e.what()).find("Unsupported task"), std::string::npos) << e.what();
  }
}

// A server answer that does not fit (rows and tokens disagree) is a malformed failure, counted.
TEST(BertScoreServer, MisalignedAnswerIsAMalformedFailure) {
  // /embed_all answering 3 rows for the 5 tokens of "Hello world!" (as a truncating proxy could).
  EmbedFakeOptions fo;
  fo.fault = [](const std::string& path, std::size_t) -> std::optional<probity::test::EmbedReply> {
    if (path != "/embed_all") return std::nullopt;
    return probity::test::EmbedReply{200, "[[[1,0],[0,1],[1,1]]]", "application/json", {}};
  };
  EmbedServer bad(fo);
  bs::ServerOptions o;
  o.provider = "tei";
  o.url = bad.url();
  o.model = "roberta-large";
  probity::Engine engine;
  engine.set_llm(session_with("", ""));
  auto embedder = bs::make_server_embedder(o, engine.llm(), fast_settings());
  try {
    embedder->embed("Hello world!");
    FAIL() << "no error";
  } catch (const bs::EmbedError& e) {
    EXPECT_EQ(e.kind(), static_cast<int>(llm::ErrorKind::kMalformed));
    EXPECT_NE(std::string(e.what()).find("3 token vectors for 5 tokens"), std::string::npos)
        << e.what();
  }
  EXPECT_EQ(engine.llm()->accounting().endpoints().at(0).failures.at("malformed"), 1u);
}

// Options: model= is required, applies to server providers only, and the signature says
// whether the stated configuration is the published one.
TEST(BertScoreServer, OptionsAndSignature) {
  EXPECT_THROW(probity::make_metric("bertscore,embed=tei:http://127.0.0.1:9"), probity::UsageError);
  EXPECT_THROW(probity::make_metric("bertscore,embed=tei:127.0.0.1:9,model=m"),
               probity::UsageError);
  EXPECT_THROW(probity::make_metric("bertscore,embed=fasttext,model=roberta-large"),
               probity::UsageError);
  EXPECT_THROW(probity::make_metric("bertscore,embed=tei:http://h:1,model=m,lowercase=false"),
               probity::UsageError);
  EXPECT_THROW(probity::make_metric("bertscore,embed=onnx:x"), probity::UsageError);
  const auto plain = probity::make_metric("bertscore,embed=tei:http://h:1,model=bert-base");
  EXPECT_NE(plain->signature().find("embed:tei|model:bert-base|layer:unstated"), std::string::npos)
      << plain->signature();
  EXPECT_NE(plain->signature().find("not:published-bertscore-model"), std::string::npos);
  EXPECT_EQ(plain->signature().find("h:1"), std::string::npos);  // no host in a signature
  const auto published = probity::make_metric(
      "bertscore,embed=vllm:http://h:1,model=roberta-large,layer=17,prefix_space=true");
  EXPECT_NE(published->signature().find("embed:vllm|model:roberta-large|layer:17|prefix-space:yes"),
            std::string::npos)
      << published->signature();
  EXPECT_EQ(published->signature().find("not:published"), std::string::npos);
  const auto no_prefix =
      probity::make_metric("bertscore,embed=vllm:http://h:1,model=roberta-large,layer=17");
  EXPECT_NE(no_prefix->signature().find("not:published-bertscore-model"), std::string::npos);
  // Local providers keep four statistics and no batching.
  EXPECT_EQ(probity::make_metric("bertscore,embed=fasttext")->num_stats(), 4u);
  EXPECT_EQ(probity::make_metric("bertscore,embed=fasttext")->batch_size(), 0u);
}

// IDF needs every reference: one that cannot be embedded fails the fit, naming the cause.
TEST(BertScoreServer, IdfFitFailsWhenAReferenceCannotBeEmbedded) {
  EmbedFakeOptions fo;
  fo.max_input_length = 6;
  EmbedServer server(fo);
  auto metric = probity::make_metric(
      fmt::format("bertscore,embed=tei:{},model=roberta-large,idf=true", server.url()));
  std::vector<probity::Task> tasks(1);
  tasks[0].task_id = "t7";
  tasks[0].references.push_back({"r", "Hello, my dog is cute"});
  tasks[0].candidates.push_back({"c", "s", "Hello world!", {}});
  try {
    metric->fit(tasks);
    FAIL() << "no error";
  } catch (const std::runtime_error& e) {
    const std::string m = e.what();
    EXPECT_NE(m.find("task 't7'"), std::string::npos) << m;
    EXPECT_NE(m.find("invalid_request"), std::string::npos) << m;
  }
}

namespace cli {

// The command line: `probity score` with embed=tei: and --cache. A text the server refuses
// (too long) is an undefined record with the cause, the LLM usage summary names the endpoint
// `embedder` with the server's message, and the exit code is 5 (--max-failed); a rerun on the
// same cache asks the server nothing.
TEST(BertScoreServer, CommandLineShowsFailuresAndReusesTheCache) {
  EmbedFakeOptions fo;
  fo.tokenizer = "golden";
  fo.model = "golden-table";
  fo.max_input_length = 8;  // "the cat sat on the mat a dog ran" (8 words + 2) is too long
  EmbedServer server(fo);
  const std::string dir = probity::test::temp_dir("bertscore-server-cli");
  {
    std::ofstream out(dir + "/d.jsonl");
    const std::vector<std::pair<std::string, std::string>> items = {
        {"the cat sat on the mat", "the cat sat on mat"},
        {"a dog ran in the park", "a big dog ran"},
        {"the cat sat on the mat a dog ran", "the cat sat on mat"}};
    for (std::size_t i = 0; i < items.size(); ++i)
      out << json{{"task_id", "t" + std::to_string(i)},
                  {"references", {{{"id", "r"}, {"text", items[i].second}}}},
                  {"candidates", {{{"id", "c"}, {"text", items[i].first}}}}}
                 .dump()
          << "\n";
  }
  const std::string args = fmt::format(
      "score --data {0}/d.jsonl --metric 'bertscore.f,embed=tei:{1},model=golden-table' "
      "--cache {0}/cache.sqlite --out {0}/s.jsonl",
      dir, server.url());
  auto r = probity::test::run_probity(args);
  EXPECT_EQ(r.exit_code, 5) << r.err;
  EXPECT_NE(r.err.find("LLM requests to 'embedder' (golden-table) failed: invalid_request 1"),
            std::string::npos)
      << r.err;
  EXPECT_NE(r.err.find("must have less than 8 tokens"), std::string::npos) << r.err;
  const std::string records = probity::test::read_text(dir + "/s.jsonl");
  EXPECT_NE(records.find("the embedding server gave no embedding"), std::string::npos) << records;
  EXPECT_NE(records.find("invalid_request"), std::string::npos) << records;
  const std::size_t asked = server.count();
  EXPECT_EQ(asked, 5u * 2);  // 5 texts x (/tokenize, /embed_all); the 422 is not retried
  r = probity::test::run_probity(args);
  EXPECT_EQ(r.exit_code, 5) << r.err;  // the failure is not cached: it is asked again
  // ... and only its /embed_all: its /tokenize and the 4 good texts come from the cache.
  EXPECT_EQ(server.count(), asked + 1);
}

}  // namespace cli

}  // namespace
