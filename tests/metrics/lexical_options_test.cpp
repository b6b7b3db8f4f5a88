// chrF's eps_smoothing (sacreBLEU 2.6.0) and ROUGE-N for N = 3..9 (rouge-score) against the
// reference implementations (tests/golden/lexical/options.json, written by
// gen/lexical_options.py).
#include <gtest/gtest.h>

#include <fstream>
#include <nlohmann/json.hpp>
#include <span>
#include <string>
#include <vector>

#include "metrics/corpus_signature.hpp"
#include "metrics/golden_lexical.hpp"
#include "probity/engine.hpp"
#include "probity/error.hpp"
#include "probity/metric.hpp"
#include "test_paths.hpp"

namespace {

using nlohmann::json;
using probity::MetricInput;
using probity::test::lexical::expect_close;

const json& golden() {
  static const json j = [] {
    std::ifstream in(probity::test::golden_path("lexical/options.json"));
    return json::parse(in);
  }();
  return j;
}

MetricInput input(const json& it, std::size_t max_refs = 1000) {
  MetricInput in;
  in.candidate = it["hyp"].get_ref<const std::string&>();
  for (std::size_t k = 0; k < it["refs"].size() && k < max_refs; ++k)
    in.references.push_back(it["refs"][k].get_ref<const std::string&>());
  return in;
}

TEST(ChrfEpsSmoothing, SentenceScoresAndStatisticsMatchSacrebleu) {
  ASSERT_EQ(golden()["items"].size(), 90u);
  for (const auto& [key, spec] :
       {std::pair<std::string, std::string>{"chrf_eps", "chrf,eps_smoothing=true"},
        {"chrfpp_eps", "chrf++,eps_smoothing=true"}}) {
    auto m = probity::make_metric(spec);
    for (const auto& it : golden()["items"]) {
      std::vector<double> stats(m->num_stats());
      m->item_stats(input(it), stats);
      const auto& g = it[key + "_stats"];
      ASSERT_EQ(g.size(), stats.size());
      for (std::size_t i = 0; i < stats.size(); ++i)
        EXPECT_EQ(stats[i], g[i].get<double>()) << key << " " << it["hyp"];
      std::vector<double> parts(1);
      m->sentence_score(stats, parts);
      expect_close(parts[0], it[key].get<double>(), key + " " + it["hyp"].get<std::string>());
    }
  }
}

TEST(ChrfEpsSmoothing, CorpusScoresAndSignature) {
  for (const auto& [name, g] : golden()["corpus"].items()) {
    if (!name.starts_with("chrf")) continue;  // the bleu_* entries: BleuEffectiveOrder
    const bool pp = name.starts_with("chrfpp");
    const std::size_t refs = name.ends_with("3refs") ? 3 : 1;
    auto m = probity::make_metric(pp ? "chrf++,eps_smoothing=true" : "chrf,eps_smoothing=true");
    std::vector<double> all;
    std::size_t n = 0;
    for (const auto& it : golden()["items"]) {
      if (it["source"] != "summeval" || it["refs"].size() < refs) continue;
      std::vector<double> stats(m->num_stats());
      m->item_stats(input(it, refs), stats);
      all.insert(all.end(), stats.begin(), stats.end());
      ++n;
    }
    ASSERT_EQ(n, g["items"].get<std::size_t>());
    expect_close(probity::corpus_score(*m, all)[0], g["score"].get<double>(), name);
    EXPECT_NE(g["signature"].get<std::string>().find("|eff:no|"), std::string::npos);
    EXPECT_NE(m->signature().find("|eff:no|"), std::string::npos) << m->signature();
  }
  // The default keeps sacreBLEU's effective-order averaging, and its signature.
  EXPECT_NE(probity::make_metric("chrf")->signature().find("|eff:yes|"), std::string::npos);
}

// Corpus BLEU with and without effective order (sacreBLEU's BLEU(effective_order=...)
// .corpus_score), and the corpus signature saying which: sentence scores always use it.
TEST(BleuEffectiveOrder, CorpusScoresAndSignatures) {
  const json& g = golden();
  for (const auto& [name, c] : g["corpus"].items()) {
    if (!name.starts_with("bleu_")) continue;
    const bool eff = name.ends_with("_yes");
    const std::string label = name.substr(5, name.find("_eff") - 5);
    auto m = probity::make_metric(eff ? "bleu,effective_order=true" : "bleu");
    std::vector<MetricInput> inputs;
    std::vector<json> sel;
    if (label == "short") {
      // gen/lexical_options.py's SHORT corpus.
      for (const auto& [h, r] :
           std::vector<std::pair<std::string, std::string>>{{"the cat sat", "the cat sat down"},
                                                            {"a dog", "a dog barked"},
                                                            {"hi", "hi there"},
                                                            {"x y z", "x y w"}})
        sel.push_back(json{{"hyp", h}, {"refs", {r}}});
    } else {
      for (const auto& it : g["items"])
        if (it["source"] == label) sel.push_back(it);
    }
    ASSERT_EQ(sel.size(), c["items"].get<std::size_t>()) << name;
    std::vector<double> all;
    for (const auto& it : sel) {
      std::vector<double> stats(m->num_stats());
      m->item_stats(input(it, 1), stats);
      all.insert(all.end(), stats.begin(), stats.end());
    }
    expect_close(probity::corpus_score(*m, all)[0], c["score"].get<double>(), name);
    const std::string eff_field = eff ? "|eff:yes|" : "|eff:no|";
    EXPECT_NE(c["signature"].get<std::string>().find(eff_field), std::string::npos) << name;
    EXPECT_NE(probity::metrics::corpus_signature_of(*m).find(eff_field), std::string::npos)
        << probity::metrics::corpus_signature_of(*m);
    // The per-item (sentence) scores' signature is unchanged: eff:yes.
    EXPECT_NE(m->signature().find("|eff:yes|"), std::string::npos) << m->signature();
  }
}

TEST(RougeN, OrdersThreeToNineMatchRougeScore) {
  for (std::size_t n = 3; n <= 9; ++n) {
    for (const bool stem : {false, true}) {
      const std::string base = "rouge" + std::to_string(n);
      auto m = probity::make_metric(base + (stem ? ",stem=true" : ""));
      const std::string key = base + (stem ? "_stem" : "");
      for (const auto& it : golden()["items"]) {
        const auto parts = m->score(input(it));
        for (std::size_t j = 0; j < 3; ++j)
          expect_close(parts[j], it[key][j].get<double>(),
                       key + " " + it["hyp"].get<std::string>());
      }
    }
  }
  EXPECT_THROW(probity::make_metric("rouge0"), probity::UsageError);
}

}  // namespace
