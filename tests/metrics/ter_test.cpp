// TER against sacreBLEU 2.6.0 (tests/golden/lexical/ter.json, written by gen/ter.py): the
// Tercom tokenizer under all 16 option combinations, segment statistics and sentence scores,
// corpus scores, and the cases of sacreBLEU's test_ter.py and test_tokenizer_ter.py.
#include <fmt/format.h>
#include <gtest/gtest.h>

#include <cctype>
#include <fstream>
#include <map>
#include <memory>
#include <nlohmann/json.hpp>
#include <span>
#include <string>
#include <vector>

#include "metrics/golden_lexical.hpp"
#include "probity/engine.hpp"
#include "probity/error.hpp"
#include "probity/metric.hpp"
#include "test_paths.hpp"

namespace probity::metrics::detail {
std::vector<std::string> tercom_tokenize(std::string_view sent, bool normalized, bool no_punct,
                                         bool asian_support, bool case_sensitive);
}  // namespace probity::metrics::detail

namespace {

using nlohmann::json;
using probity::MetricInput;
using probity::test::lexical::expect_close;

const json& golden() {
  static const json j = [] {
    std::ifstream in(probity::test::golden_path("lexical/ter.json"));
    return json::parse(in);
  }();
  return j;
}

// "nPac" -> "ter,normalized=false,no_punct=true,asian_support=false,case_sensitive=false"
std::string metric_name(const std::string& key) {
  const char* names[] = {"normalized", "no_punct", "asian_support", "case_sensitive"};
  std::string out = "ter";
  for (std::size_t k = 0; k < 4; ++k)
    out += fmt::format(",{}={}", names[k],
                       std::isupper(static_cast<unsigned char>(key[k])) ? "true" : "false");
  return out;
}

std::vector<double> stats_of(const probity::Metric& m, const std::string& hyp,
                             const std::vector<std::string>& refs) {
  MetricInput in;
  in.candidate = hyp;
  for (const auto& r : refs) in.references.push_back(r);
  std::vector<double> stats(m.num_stats());
  m.item_stats(in, stats);
  return stats;
}

std::string joined(const std::vector<std::string>& words) {
  std::string out;
  for (const auto& w : words) out += (out.empty() ? "" : " ") + w;
  return out;
}

TEST(TerGolden, TokenizerUnderEveryOptionCombination) {
  const json& g = golden();
  ASSERT_EQ(g["tokenizer"].size(), 1500u);
  std::size_t wrong = 0, checked = 0;
  for (const auto& c : g["tokenizer"]) {
    const std::string in = c["in"].get<std::string>();
    for (const auto& [key, expected] : c["out"].items()) {
      auto on = [&](std::size_t k) {
        return std::isupper(static_cast<unsigned char>(key[k])) != 0;
      };
      const std::string got =
          joined(probity::metrics::detail::tercom_tokenize(in, on(0), on(1), on(2), on(3)));
      ++checked;
      if (got != expected.get<std::string>() && ++wrong <= 5)
        ADD_FAILURE() << key << " in: " << in << "\nexpected: " << expected.get<std::string>()
                      << "\nactual:   " << got;
    }
  }
  EXPECT_EQ(checked, 1500u * 16);
  EXPECT_EQ(wrong, 0u);
}

TEST(TerGolden, SegmentStatisticsAndSentenceScores) {
  const json& g = golden();
  ASSERT_GT(g["segments"].size(), 200u);
  std::map<std::string, std::unique_ptr<probity::Metric>> metrics;
  for (const auto& seg : g["segments"]) {
    std::vector<std::string> refs = seg["refs"].get<std::vector<std::string>>();
    for (const auto& [key, st] : seg["stats"].items()) {
      auto& m = metrics[key];
      if (!m) m = probity::make_metric(metric_name(key));
      const auto s = stats_of(*m, seg["hyp"].get<std::string>(), refs);
      const std::string what = seg["source"].get<std::string>() + " " + key + ": " +
                               seg["hyp"].get<std::string>().substr(0, 60);
      EXPECT_EQ(s[0], st[0].get<double>()) << what;
      expect_close(s[1], st[1].get<double>(), what);
      std::vector<double> parts(1);
      m->sentence_score(s, parts);
      expect_close(parts[0], seg["score"][key].get<double>(), what);
    }
  }
}

TEST(TerGolden, CorpusScores) {
  for (const auto& [name, corpus] : golden()["corpora"].items()) {
    const auto& hyps = corpus["hyps"];
    const auto& streams = corpus["refs"];
    for (const auto& [key, g] : corpus["scores"].items()) {
      auto m = probity::make_metric(metric_name(key));
      std::vector<double> all;
      for (std::size_t i = 0; i < hyps.size(); ++i) {
        std::vector<std::string> refs;
        for (const auto& s : streams) refs.push_back(s[i].get<std::string>());
        const auto st = stats_of(*m, hyps[i].get<std::string>(), refs);
        all.insert(all.end(), st.begin(), st.end());
      }
      const auto parts = probity::corpus_score(*m, all);
      expect_close(parts[0], g["score"].get<double>(), name + " " + key);
      // sacreBLEU's signature fields, as this metric names them.
      const std::string sig = g["signature"].get<std::string>();
      for (const char* field : {"case:", "tok:", "norm:", "punct:", "asian:"}) {
        std::string value = sig.substr(sig.find(field));
        value = value.substr(0, value.find('|'));
        value = value == "norm:True" ? "norm:yes" : value == "norm:False" ? "norm:no" : value;
        value = value == "punct:True" ? "punct:yes" : value == "punct:False" ? "punct:no" : value;
        value = value == "asian:True" ? "asian:yes" : value == "asian:False" ? "asian:no" : value;
        EXPECT_NE(m->signature().find("|" + value + "|"), std::string::npos)
            << m->signature() << " vs " << sig;
      }
    }
  }
}

TEST(TerGolden, UpstreamTestCases) {
  auto m = probity::make_metric("ter");
  for (const auto& c : golden()["upstream"]["test_ter"]) {
    std::vector<double> all;
    for (std::size_t i = 0; i < c["hyps"].size(); ++i) {
      const auto st =
          stats_of(*m, c["hyps"][i].get<std::string>(), {c["refs"][0][i].get<std::string>()});
      all.insert(all.end(), st.begin(), st.end());
    }
    const double score = probity::corpus_score(*m, all)[0];
    expect_close(score, c["score"].get<double>(), c["hyps"][0].get<std::string>());
    EXPECT_NEAR(score, 100 * c["expected"].get<double>(), 1e-3);  // test_ter.py's own check
  }
  // test_tokenizer_ter.py
  for (const auto& c : golden()["upstream"]["test_tokenizer_ter"]) {
    const auto& o = c["options"];
    auto flag = [&](const char* k) { return o.contains(k) && o[k].get<bool>(); };
    EXPECT_EQ(joined(probity::metrics::detail::tercom_tokenize(
                  c["in"].get<std::string>(), flag("normalized"), flag("no_punct"),
                  flag("asian_support"), flag("case_sensitive"))),
              c["out"].get<std::string>());
  }
}

TEST(TerMetric, SignatureAndOptions) {
  EXPECT_EQ(probity::make_metric("ter")->signature(),
            "ter|nrefs:all|case:lc|tok:tercom|norm:no|punct:yes|asian:no|version:probity-" +
                probity::version());
  EXPECT_THROW(probity::make_metric("ter,normalised=true"), probity::UsageError);
  // A single shift fixes the hypothesis: 1 edit over 8 reference words.
  auto m = probity::make_metric("ter");
  const auto s = stats_of(*m, "d e f g h a b c", {"a b c d e f g h"});
  EXPECT_EQ(s[0], 1.0);
  EXPECT_EQ(s[1], 8.0);
}

}  // namespace
