// ExPerT: recall, precision and F under the five aggregations on hand-checked cases, the offline
// judge, the metric interface and `probity score --explain`.
#include "metrics/expert.hpp"

#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <map>
#include <nlohmann/json.hpp>

#include "cli_runner.hpp"
#include "probity/engine.hpp"
#include "probity/error.hpp"
#include "probity/scoring.hpp"
#include "test_paths.hpp"

namespace {

using namespace probity;
using namespace probity::metrics::expert;
using json = nlohmann::json;

// A scripted judge: aspects are the '|'-separated parts of a text; matches and judgments come
// from tables keyed by aspect titles.
class ScriptedJudge final : public AspectJudge {
 public:
  std::map<std::string, std::string> matches;  // aspect → partner title
  std::map<std::pair<std::string, std::string>, bool> content_ok, style_ok;

  std::string signature() const override { return "scripted"; }
  void fit(std::span<const Task>) override {}
  std::vector<Aspect> extract(std::string_view text) const override {
    std::vector<Aspect> out;
    std::string cur;
    for (char c : std::string(text) + "|") {
      if (c != '|') {
        cur += c;
        continue;
      }
      if (!cur.empty()) out.push_back({cur, cur, out.size()});
      cur.clear();
    }
    return out;
  }
  MatchDecision match(const Aspect& a, std::span<const Aspect> others) const override {
    MatchDecision d;
    auto it = matches.find(a.title);
    if (it == matches.end()) return d;
    for (std::size_t k = 0; k < others.size(); ++k)
      if (others[k].title == it->second) d.partner = k;
    return d;
  }
  Judgment content(const Aspect& a, const Aspect& b) const override {
    return {content_ok.count({a.title, b.title}) ? content_ok.at({a.title, b.title}) : false, ""};
  }
  Judgment style(const Aspect& a, const Aspect& b) const override {
    return {style_ok.count({a.title, b.title}) ? style_ok.at({a.title, b.title}) : false, ""};
  }
  bool model_backed() const override { return model; }
  bool model = false;
};

// Reference aspects R1 R2 R3, candidate aspects C1 C2.
//   R1 → C1 (content yes, style yes), R2 → C1 (content yes, style no), R3 → none;
//   C1 → R1 (yes, yes), C2 → R2 (content no, style yes).
ScriptedJudge scripted() {
  ScriptedJudge j;
  j.matches = {{"R1", "C1"}, {"R2", "C1"}, {"C1", "R1"}, {"C2", "R2"}};
  j.content_ok = {
      {{"R1", "C1"}, true}, {{"R2", "C1"}, true}, {{"C1", "R1"}, true}, {{"C2", "R2"}, false}};
  j.style_ok = {
      {{"R1", "C1"}, true}, {{"R2", "C1"}, false}, {{"C1", "R1"}, true}, {{"C2", "R2"}, true}};
  return j;
}

TEST(ExpertScores, HandCheckedRecallPrecisionFForEveryAggregation) {
  const auto judge = scripted();
  const Analysis a = analyze(judge, "C1|C2", "R1|R2|R3");
  struct Expected {
    Aggregation agg;
    double r, p, f;
  };
  // recall over R1 R2 R3; precision over C1 C2; F = 2PR/(P+R).
  const std::vector<Expected> expected = {
      {Aggregation::kContent, 2.0 / 3, 1.0 / 2, 4.0 / 7},
      {Aggregation::kStyle, 1.0 / 3, 1.0, 1.0 / 2},
      {Aggregation::kAnd, 1.0 / 3, 1.0 / 2, 2.0 / 5},
      {Aggregation::kOr, 2.0 / 3, 1.0, 4.0 / 5},
      {Aggregation::kAverage, 1.0 / 2, 3.0 / 4, 3.0 / 5},
  };
  for (const auto& e : expected) {
    SCOPED_TRACE(std::string(aggregation_name(e.agg)));
    const auto g = static_cast<std::size_t>(e.agg);
    EXPECT_NEAR(a.recall[g], e.r, 1e-12);
    EXPECT_NEAR(a.precision[g], e.p, 1e-12);
    EXPECT_NEAR(a.f[g], e.f, 1e-12);
  }
  // 2 extractions + 5 matchings + 2 judgments for each of the 4 matched aspects.
  EXPECT_EQ(a.steps, 15u);
  EXPECT_EQ(a.model_calls, 0u);
  auto llm = scripted();
  llm.model = true;
  EXPECT_EQ(analyze(llm, "C1|C2", "R1|R2|R3").model_calls, 15u);
}

TEST(ExpertScores, FIsZeroWhenNothingMatches) {
  const auto judge = scripted();
  const Analysis a = analyze(judge, "X1|X2", "R3");
  for (std::size_t g = 0; g < kAggregations; ++g) {
    EXPECT_EQ(a.recall[g], 0.0);
    EXPECT_EQ(a.precision[g], 0.0);
    EXPECT_EQ(a.f[g], 0.0);
  }
  EXPECT_EQ(aggregate(Aggregation::kAverage, true, false), 0.5);
  EXPECT_EQ(parse_aggregation("or"), Aggregation::kOr);
  EXPECT_THROW(parse_aggregation("xor"), std::invalid_argument);
}

TEST(ExpertJudge, OfflineJudgeOnSmallTexts) {
  auto judge = std::make_shared<LexicalAspectJudge>(LexicalJudgeOptions{},
                                                    std::make_shared<predict::SupportJudge>());
  judge->set_thresholds(0.5, 0.1);  // strict style: identical profiles only, roughly
  const std::string ref =
      "The fire destroyed the old station on Monday. Firefighters rescued twelve people.";
  // The same text: every aspect matches itself, content and style agree.
  const Analysis same = analyze(*judge, ref, ref);
  ASSERT_EQ(same.reference_aspects.size(), 2u);
  EXPECT_EQ(same.reference_aspects[1].evidence, "Firefighters rescued twelve people.");
  for (std::size_t g = 0; g < kAggregations; ++g) EXPECT_DOUBLE_EQ(same.f[g], 1.0);
  // An unrelated text matches nothing.
  const Analysis other = analyze(*judge, "Shares of the bank rose sharply in early trading.", ref);
  for (std::size_t g = 0; g < kAggregations; ++g) EXPECT_EQ(other.f[g], 0.0);
  EXPECT_NE(other.recall_side[0].match.rationale.find("no match"), std::string::npos);
  // Same content, very different style (casual, exclamations, first person): content aligned
  // on the first aspect, style not.
  const Analysis restyled = analyze(
      *judge, "omg the fire destroyed the old station on monday!!! we saw it, it's unreal!!", ref);
  const auto& first = restyled.recall_side[0];
  ASSERT_TRUE(first.match.partner.has_value()) << first.match.rationale;
  EXPECT_TRUE(first.content.value) << first.content.rationale;
  EXPECT_FALSE(first.style.value) << first.style.rationale;
  EXPECT_NE(first.content.rationale.find("content words matched"), std::string::npos);
  EXPECT_NE(first.style.rationale.find("words per sentence"), std::string::npos);
  const auto c = static_cast<std::size_t>(Aggregation::kContent);
  const auto s = static_cast<std::size_t>(Aggregation::kStyle);
  EXPECT_GT(restyled.recall[c], restyled.recall[s]);
}

TEST(ExpertStyle, ProfileDistanceSeesRegister) {
  const auto a = style_profile("The committee approved the plan on Tuesday.");
  const auto b = style_profile("The council rejected the proposal on Friday.");
  const auto c = style_profile("lol we didn't even go , it 's 2 far !!");
  EXPECT_LT(style_distance(a, b).total, style_distance(a, c).total);
  EXPECT_EQ(style_distance(a, a).total, 0.0);
  EXPECT_GT(style_distance(a, c).register_markers, 0.0);
}

TEST(ExpertMetric, RegistryPartsCorpusMeanAndExplain) {
  const Dataset ds = load_dataset(probity::test::data_path("summeval/summeval_sample20.jsonl"));
  auto sel = select_metric("expert,agg=content");
  EXPECT_EQ(sel.metric->parts(), (std::vector<std::string>{"p", "r", "f"}));
  EXPECT_EQ(sel.metric->parts()[sel.primary], "f");
  EXPECT_THROW(make_metric("expert,agg=xor"), UsageError);
  EXPECT_THROW(make_metric("expert,refs="), UsageError);
  EXPECT_THROW(make_metric("expert:arg"), UsageError);

  std::vector<MetricSelection> metrics;
  metrics.push_back(std::move(sel));
  metrics.push_back(select_metric("expert.f"));
  // Two tasks keep the test fast; fit still sees the whole sample for calibration.
  std::vector<ItemRef> items;
  for (std::size_t t = 0; t < 2; ++t)
    for (std::size_t c = 0; c < ds.tasks[t].candidates.size(); ++c) items.push_back({t, c});
  const auto stats = compute_stats(ds, items, metrics);
  // Corpus = mean of item scores.
  const Metric& m = *metrics[0].metric;
  double sum_f = 0;
  std::vector<double> parts(3);
  for (std::size_t i = 0; i < items.size(); ++i) {
    m.sentence_score(stats[0].row(i), parts);
    EXPECT_GE(parts[2], 0.0);
    EXPECT_LE(parts[2], 1.0);
    EXPECT_EQ(stats[0].row(i)[3], 0.0);  // no model calls offline
    sum_f += parts[2];
  }
  const auto corpus = corpus_score(m, stats[0].stats);
  EXPECT_NEAR(corpus[2], sum_f / static_cast<double>(items.size()), 1e-12);

  MetricInput in;
  in.candidate = ds.tasks[0].candidates[0].text;
  in.references = {ds.tasks[0].references[0].text};
  const auto doc = json::parse(m.explain(in));
  EXPECT_EQ(doc["aggregation"], "content");
  EXPECT_EQ(doc["model_calls"], 0);
  EXPECT_GT(doc["judgments"].get<int>(), 2);
  const auto& ref = doc["references"][0];
  EXPECT_FALSE(ref["reference_aspects"].empty());
  EXPECT_EQ(ref["recall_side"].size(), ref["reference_aspects"].size());
  EXPECT_EQ(ref["precision_side"].size(), ref["candidate_aspects"].size());
  EXPECT_NEAR(doc["f"].get<double>(), m.score(in)[2], 1e-12);
  EXPECT_TRUE(ref["scores"].contains("average"));
  EXPECT_NE(m.signature().find("calls:none"), std::string::npos);
}

TEST(ExpertCli, ScoreExplainWritesJsonl) {
  const std::string dir = probity::test::temp_dir("expert-explain");
  const std::string data = probity::test::data_path("summeval/summeval_sample20.jsonl");
  auto r =
      probity::test::run_probity("score --data " + data + " --metric expert --metric bleu --out " +
                                 dir + "/s.jsonl --explain " + dir + "/e.jsonl");
  ASSERT_EQ(r.exit_code, 0) << r.err;
  const std::string text = probity::test::read_text(dir + "/e.jsonl");
  // One explanation per candidate from expert; bleu has none.
  EXPECT_EQ(std::count(text.begin(), text.end(), '\n'), 320);
  const auto first = json::parse(text.substr(0, text.find('\n')));
  EXPECT_EQ(first["metric"], "expert.f");
  EXPECT_TRUE(first["explain"]["references"][0].contains("recall_side"));
  r = probity::test::run_probity("score --data " + data + " --metric bleu --out " + dir +
                                 "/s2.jsonl --explain " + dir + "/e2.jsonl");
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_NE(r.err.find("supports --explain"), std::string::npos) << r.err;
}

}  // namespace
