// Empty texts are data: empty and whitespace-only candidates and
// references go through the dataset, the scorer and every metric as sacreBLEU and rouge-score
// score them (tests/golden/lexical/empty.json, from their own code and test suites), and stay in
// corpus scores: dropping the empty hypothesis of sacreBLEU's README example would move its corpus
// BLEU from 41.628 to 61.154.
#include <gtest/gtest.h>

#include <cmath>
#include <fstream>
#include <nlohmann/json.hpp>

#include "cli_runner.hpp"
#include "llm/llm_test_util.hpp"
#include "metrics/golden_lexical.hpp"
#include "probity/engine.hpp"
#include "probity/scoring.hpp"
#include "test_paths.hpp"

namespace probity::test {
namespace {

using lexical::expect_close;
using nlohmann::json;

const json& golden() {
  static const json j = [] {
    std::ifstream in(golden_path("lexical/empty.json"));
    return json::parse(in);
  }();
  return j;
}

// One task per item: its references are the item's entry in every stream (sacreBLEU's layout).
Dataset dataset_of(const json& c, bool first_stream_only = false) {
  Dataset ds;
  for (std::size_t i = 0; i < c["hyps"].size(); ++i) {
    Task t;
    t.task_id = "t" + std::to_string(i);
    for (std::size_t s = 0; s < (first_stream_only ? 1 : c["refs"].size()); ++s)
      t.references.push_back({"r" + std::to_string(s), c["refs"][s][i].get<std::string>()});
    t.candidates.push_back({"c", "", c["hyps"][i].get<std::string>(), {}});
    ds.tasks.push_back(std::move(t));
  }
  return ds;
}

struct Scored {
  std::vector<std::vector<double>> items;  // per item: the metric's parts
  std::vector<double> corpus;
};

Scored score(const Dataset& ds, const std::string& spec) {
  auto items = all_items(ds);
  std::vector<MetricSelection> m;
  m.push_back(probity::test::engine_select_metric(spec));
  auto stats = compute_stats(ds, items, m);
  Scored out;
  const Metric& metric = *m[0].metric;
  for (std::size_t i = 0; i < items.size(); ++i) {
    std::vector<double> parts(metric.parts().size());
    metric.sentence_score(stats[0].row(i), parts);
    out.items.push_back(parts);
  }
  out.corpus = corpus_score(metric, stats[0].stats);
  return out;
}

TEST(EmptyTexts, CorpusAndSentenceBleuAsSacreBleu) {
  for (const auto& c : golden()["cases"]) {
    const std::string name = c["name"];
    for (bool first : {false, true}) {
      const auto ds = dataset_of(c, first);
      const std::string tag = first ? "1ref" : "allrefs";
      const auto bleu = score(ds, first ? "bleu,refs=first" : "bleu");
      expect_close(bleu.corpus[0], c["corpus"]["bleu_" + tag]["score"], name + " corpus " + tag);
      // Sentence BLEU uses effective order (sacreBLEU's sentence_bleu default).
      const auto sentence = score(ds, "bleu");
      for (std::size_t i = 0; i < c["segments"].size(); ++i)
        if (!first)
          expect_close(sentence.items[i][0], c["segments"][i]["sentence_bleu_allrefs"]["score"],
                       name + " sentence " + std::to_string(i));
    }
  }
}

TEST(EmptyTexts, ChrfAsSacreBleu) {
  for (const auto& c : golden()["cases"]) {
    const std::string name = c["name"];
    const auto ds = dataset_of(c);
    for (const auto& [spec, key] : {std::pair{"chrf", "chrf2"}, std::pair{"chrf++", "chrf2pp"}}) {
      const auto s = score(ds, spec);
      expect_close(s.corpus[0], c["corpus"][std::string(key) + "_allrefs"],
                   name + " corpus " + spec);
      for (std::size_t i = 0; i < c["segments"].size(); ++i)
        expect_close(s.items[i][0], c["segments"][i][std::string(key) + "_allrefs"],
                     name + " sentence " + spec + " " + std::to_string(i));
    }
  }
}

TEST(EmptyTexts, RougeAsRougeScore) {
  for (const auto& c : golden()["cases"]) {
    const std::string name = c["name"];
    const auto ds = dataset_of(c, true);
    for (bool stem : {false, true}) {
      for (const std::string variant : {"rouge1", "rouge2", "rougeL", "rougeLsum"}) {
        const auto s = score(ds, variant + ",stem=" + (stem ? "true" : "false"));
        for (std::size_t i = 0; i < c["segments"].size(); ++i) {
          const json& g = c["segments"][i][stem ? "rouge_stem_1ref" : "rouge_1ref"][variant];
          const std::string what =
              name + " " + variant + (stem ? " stem " : " ") + std::to_string(i);
          expect_close(s.items[i][0], g["precision"], what + " p");
          expect_close(s.items[i][1], g["recall"], what + " r");
          expect_close(s.items[i][2], g["fmeasure"], what + " f");
        }
      }
    }
  }
}

// The README example: kept, the empty hypothesis gives sacreBLEU's 41.628 on the command line too.
TEST(EmptyTexts, TheCommandLineKeepsEmptyHypothesesInTheCorpus) {
  const json* c = nullptr;
  for (const auto& k : golden()["cases"])
    if (k["name"] == "readme_hyp2_empty") c = &k;
  ASSERT_NE(c, nullptr);
  EXPECT_NEAR((*c)["corpus"]["bleu_allrefs"]["score"].get<double>(), 41.628, 1e-3);
  const std::string dir = temp_dir("empty-cli");
  {
    std::ofstream out(dir + "/d.jsonl");
    const auto ds = dataset_of(*c);
    for (const auto& t : ds.tasks) {
      json j{{"task_id", t.task_id}, {"references", json::array()}};
      for (const auto& r : t.references)
        j["references"].push_back({{"id", r.id}, {"text", r.text}});
      j["candidates"] = json::array({{{"id", "c"}, {"text", t.candidates[0].text}}});
      out << j.dump() << "\n";
    }
  }
  auto r = run_probity("score --data " + dir + "/d.jsonl --metric bleu --out " + dir + "/s.jsonl");
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_NE(r.out.find("corpus    41.6282"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("n=3"), std::string::npos) << r.out;
}

// Every other metric defines its value (docs/concepts.md, "Empty texts"): an empty candidate is
// scored, an empty reference leaves the MI metrics and ExPerT undefined with the reason.
TEST(EmptyTexts, EveryMetricDefinesEmptyCandidatesAndReferences) {
  Dataset ds;
  const char* refs[] = {"The council approved the budget. Taxes will rise.",
                        "The river flooded the village.", "   "};
  for (int t = 0; t < 3; ++t) {
    Task task;
    task.task_id = "t" + std::to_string(t);
    task.group = "g";
    task.references.push_back({"r", refs[t]});
    task.candidates.push_back({"a", "", "The council approved it and taxes rise.", {}});
    task.candidates.push_back({"empty", "", "", {}});
    task.candidates.push_back({"spaces", "", " \n\t ", {}});
    ds.tasks.push_back(std::move(task));
  }
  for (const std::string spec : {"gem", "gppm-j", "tvd-mi", "stmt-tv", "expert", "bleu", "chrf",
                                 "rougeL", "mi:kl/fvar/token/ar", "mi:tv/direct/report/oracle"}) {
    const auto s = score(ds, spec);
    for (std::size_t i = 0; i < 6; ++i)
      EXPECT_TRUE(std::isfinite(s.items[i][0])) << spec << " item " << i;  // tasks 0, 1
    for (std::size_t i = 6; i < 9; ++i) {
      if (spec == "bleu" || spec == "chrf" || spec == "rougeL")
        EXPECT_EQ(s.items[i][0], 0.0) << spec << " item " << i;  // as the reference tools
      else
        EXPECT_TRUE(std::isnan(s.items[i][0])) << spec << " item " << i;  // empty reference
    }
  }
  // The overlap metrics give the empty candidates 0, as sacreBLEU and rouge-score do.
  const auto bleu = score(ds, "bleu");
  EXPECT_EQ(bleu.items[1][0], 0.0);
  EXPECT_EQ(bleu.items[2][0], 0.0);
  auto items = all_items(ds);
  std::vector<MetricSelection> m;
  m.push_back(probity::test::engine_select_metric("stmt-tv"));
  auto stats = compute_stats(ds, items, m);
  EXPECT_NE(m[0].metric->undefined_reason(stats[0].row(6)).find("the reference is empty"),
            std::string::npos);
}

}  // namespace
}  // namespace probity::test

namespace probity::test {
namespace {

// The model-backed metrics answer an empty candidate without asking: the judge's lowest rating,
// the oracle's "no" (it supports nothing); an LLM perturbation does not apply to it.
TEST(EmptyTexts, ModelBackedMetricsDoNotAskAboutEmptyCandidates) {
  MockServer server;
  server.set_handler([](const json& r) {
    const std::string p = r["messages"][0]["content"];
    if (p.find("\"rating\"") != std::string::npos) return std::string("{\"rating\": 4}");
    if (p.find("{\"statements\":") != std::string::npos)
      return std::string("{\"statements\": [\"A claim.\"]}");
    return std::string("{\"supported\": true}");
  });
  SessionGuard guard(mock_session(server));
  Dataset ds;
  for (int t = 0; t < 2; ++t) {
    Task task;
    task.task_id = "t" + std::to_string(t);
    task.group = "g";
    task.references.push_back({"r", "A reference text " + std::to_string(t) + "."});
    task.candidates.push_back({"empty", "", "  ", {}});
    ds.tasks.push_back(std::move(task));
  }
  const auto judge = score(ds, "llm-judge");
  EXPECT_EQ(judge.items[0][0], 1.0);  // the scale's lowest (1-5)
  const auto stmt = score(ds, "stmt-tv,predictor=llm,batch=false");
  EXPECT_EQ(stmt.items[0][0], 0.0);  // no statement supported, of its own or of a negative
  // Only the decompositions of the two references were asked.
  EXPECT_EQ(server.count("/v1/chat/completions"), 2u);
}

}  // namespace
}  // namespace probity::test
