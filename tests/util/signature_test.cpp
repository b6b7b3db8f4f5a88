// Signature: the value type, and every metric's signature byte-identical to the strings
// probity 0.1.0 wrote before the type existed (tests/golden/signatures.tsv, recorded from
// ed6f501's formatting), since audit caches and published scores are keyed by them.
#include "probity/signature.hpp"

#include <gtest/gtest.h>

#include <cstdlib>
#include <fstream>
#include <string>
#include <utility>
#include <vector>

#include "llm/session.hpp"
#include "probity/dataset.hpp"
#include "probity/engine.hpp"
#include "probity/llm.hpp"
#include "probity/metric.hpp"
#include "probity/version.hpp"
#include "test_paths.hpp"

namespace probity {
namespace {

TEST(Signature, JoinsItsFieldsInOrderAndAddsTheVersionOnce) {
  Signature s("bleu");
  s.field("nrefs", "all").field("order", 4).field("beta", 2.5).part("eff:yes");
  EXPECT_EQ(s.format(), "bleu|nrefs:all|order:4|beta:2.5|eff:yes");
  EXPECT_EQ(s.versioned(), "bleu|nrefs:all|order:4|beta:2.5|eff:yes|version:probity-" + version());
  ASSERT_EQ(s.fields().size(), 4u);
  EXPECT_EQ(s.fields()[0], (std::pair<std::string, std::string>{"nrefs", "all"}));
  EXPECT_EQ(s.fields()[3], (std::pair<std::string, std::string>{"", "eff:yes"}));
  EXPECT_EQ(s.get("order"), "4");
  EXPECT_FALSE(s.get("missing").has_value());
}

TEST(Signature, ANestedComponentKeepsItsOwnText) {
  Signature inner("ar:ngram-kn");
  inner.field("order", 3);
  Signature outer("mi:kl/direct/token/ar");
  outer.part(inner.format()).field("seed", std::size_t{7}).field("temp", 0.1);
  EXPECT_EQ(outer.format(), "mi:kl/direct/token/ar|ar:ngram-kn|order:3|seed:7|temp:0.1");
}

// Specs whose signatures the golden file holds: every family, the options that change the
// signature, and the LLM-backed variants (a session that is never asked anything).
const std::vector<std::string>& golden_specs() {
  static const std::vector<std::string> specs = {
      "bleu", "bleu,tokenize=intl", "bleu,lowercase=true,refs=first",
      "bleu,smooth=floor,smooth_value=0.1", "bleu,smooth=add-k", "bleu,max_ngram_order=2", "chrf",
      "chrf++", "chrf,beta=1,whitespace=true,lowercase=true", "chrf,char_order=4,refs=first",
      "rouge1", "rouge2,stem=true", "rougeL,multi=mean,refs=first", "rougeLsum,tokenizer=unicode",
      "gem", "gem,order=4,cache=0.25,stem=false,normalize=true,folds=3", "gppm-j",
      "gppm-j,calib_seed=3", "tvd-mi", "tvd-mi,k=2,seed=9,critic=ordinal", "stmt-tv",
      "stmt-tv,refs=all", "mi:tv/direct/report/oracle", "mi:kl/fvar/token/ar",
      "mi:hellinger/fvar/statement/oracle", "mi:chi2/direct/statement/oracle", "expert",
      "expert,agg=and,refs=all,calib_seed=2",
      // LLM-backed.
      "llm-judge", "llm-judge,scale=0-10,samples=3,reasks=1", "expert,llm=judge",
      "gem,predictor=llm", "gem,predictor=llm,prompt_logprobs=true", "tvd-mi,llm=oracle",
      "tvd-mi,llm=oracle,batch=false", "stmt-tv,llm=oracle", "stmt-tv,decompose=llm",
      "bleu,style=llm", "rougeL,style=llm,style_reasks=1"};
  return specs;
}

bool uses_llm(const std::string& spec) {
  return spec.find("llm") != std::string::npos;
}

std::shared_ptr<llm::Session> offline_session() {
  llm::LlmConfig config;
  llm::CliOverrides o;
  o.base_url = "http://127.0.0.1:9/v1";  // never contacted: signatures ask nothing
  o.model = "sig-model";
  llm::apply_cli_overrides(config, o);
  return std::make_shared<llm::Session>(std::move(config));
}

// spec -> signature, with the version replaced by {version}.
std::vector<std::pair<std::string, std::string>> current_signatures() {
  Engine engine;
  engine.set_llm(offline_session());
  const Dataset ds = load_dataset(test::data_path("summeval/summeval_sample20.jsonl"));
  std::vector<std::pair<std::string, std::string>> out;
  const std::string v = "probity-" + version();
  for (const std::string& spec : golden_specs()) {
    auto metric = engine.make_metric(spec);
    if (!uses_llm(spec)) metric->fit(ds.tasks);  // fitted predictors sign their training
    std::string sig = metric->signature();
    for (auto at = sig.find(v); at != std::string::npos; at = sig.find(v))
      sig.replace(at, v.size(), "probity-{version}");
    out.emplace_back(spec, sig);
  }
  // LLM clients with every generation setting that signs.
  llm::EndpointConfig a;
  a.base_url = "http://127.0.0.1:9/v1";
  a.model = "m";
  a.temperature = 0.7;
  a.max_tokens = 16;
  a.seed = 5;
  a.n = 3;
  a.extra_body = R"({"top_k": 5})";
  llm::EndpointConfig b = a;
  b.temperature = std::nullopt;
  b.max_tokens = std::nullopt;
  b.max_completion_tokens = 64;
  b.seed = std::nullopt;
  b.n = 1;
  b.extra_body.clear();
  out.emplace_back("client:a", llm::Client(a).signature());
  out.emplace_back("client:b", llm::Client(b).signature());
  return out;
}

TEST(Signature, EveryMetricSignatureIsByteIdenticalToTheRecordedOnes) {
  const auto sigs = current_signatures();
  const std::string path = test::golden_path("signatures.tsv");
  if (const char* write = std::getenv("PROBITY_WRITE_SIGNATURES"); write && *write) {
    std::ofstream f(path);
    for (const auto& [spec, sig] : sigs) f << spec << '\t' << sig << '\n';
    GTEST_SKIP() << "wrote " << path;
  }
  std::ifstream f(path);
  ASSERT_TRUE(f) << path;
  std::vector<std::pair<std::string, std::string>> golden;
  for (std::string line; std::getline(f, line);) {
    const auto tab = line.find('\t');
    ASSERT_NE(tab, std::string::npos) << line;
    golden.emplace_back(line.substr(0, tab), line.substr(tab + 1));
  }
  ASSERT_EQ(golden.size(), sigs.size());
  for (std::size_t i = 0; i < sigs.size(); ++i) {
    EXPECT_EQ(sigs[i].first, golden[i].first);
    EXPECT_EQ(sigs[i].second, golden[i].second) << sigs[i].first;
  }
}

}  // namespace
}  // namespace probity
