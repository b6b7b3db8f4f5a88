// rank --protocol wmt24 (src/meta/wmt_protocol.cpp, wmt_average.cpp) against mt-metrics-eval's
// own tasks.WMT24 run on the synthetic WMT24 tree (golden meta_eval/wmt24_tasks.json, written by
// gen/mtme_wmt24_tasks.py with the same per-test seeds and sorted systems): every task's values,
// order, clusters and p-values, and the averages with their clusters, bit for bit.
#include <gtest/gtest.h>

#include <fstream>
#include <map>
#include <nlohmann/json.hpp>

#include "probity/dataset.hpp"
#include "probity/error.hpp"
#include "probity/wmt.hpp"
#include "test_paths.hpp"

namespace probity {
namespace {

using nlohmann::json;

json golden() {
  std::ifstream in(test::golden_path("meta_eval/wmt24_tasks.json"));
  return json::parse(in);
}

WmtRankRequest request(const json& g) {
  WmtRankRequest r;
  r.protocol = WmtProtocol::kWmt24;
  r.test_set_dir = test::golden_path("inputs/mtme_wmt/wmt24");
  r.extra = {"mymetric"};
  r.permutations = g.at("k").get<std::size_t>();
  r.seed = g.at("base_seed").get<std::uint64_t>();
  return r;
}

TEST(WmtProtocol, EqualsMtmeTaskSetBitForBit) {
  const json g = golden();
  const WmtRankResult r = run_wmt_protocol(request(g));
  ASSERT_EQ(r.tasks.size(), g.at("tasks").size());
  for (std::size_t t = 0; t < r.tasks.size(); ++t) {
    const json& gt = g["tasks"][t];
    const WmtTaskResult& rt = r.tasks[t];
    SCOPED_TRACE(gt.at("name").get<std::string>());
    EXPECT_EQ(rt.lp, gt["attributes"]["lang"].get<std::string>());
    EXPECT_EQ(rt.statistic == WmtStatistic::kSpa, gt["attributes"]["corr_fcn"] == "pce");
    EXPECT_EQ(rt.human, gt["attributes"]["human"].get<bool>());
    EXPECT_EQ(rt.systems, gt["systems"].size());
    ASSERT_EQ(rt.metrics, gt["metrics"].get<std::vector<std::string>>());
    for (std::size_t i = 0; i < rt.metrics.size(); ++i) {
      EXPECT_EQ(rt.values[i], gt["corr"][i].get<double>()) << rt.metrics[i];
      EXPECT_EQ(rt.ranks[i], gt["rank"][i].get<std::size_t>()) << rt.metrics[i];
      for (std::size_t j = i + 1; j < rt.metrics.size(); ++j)
        EXPECT_EQ(rt.sig[i][j], gt["sig_matrix"][i][j].get<double>())
            << rt.metrics[i] << " vs " << rt.metrics[j];
    }
  }
  const json& acm = g.at("average_corr_matrix");
  ASSERT_EQ(r.average.size(), acm["metrics"].size());
  for (std::size_t i = 0; i < r.average.size(); ++i) {
    const WmtAverageRow& a = r.average[i];
    EXPECT_EQ(a.metric, acm["metrics"][i].get<std::string>());
    EXPECT_EQ(a.value, g["average_corrs"][a.metric].get<double>()) << a.metric;
    EXPECT_EQ(a.average_rank, g["average_ranks"][a.metric].get<double>()) << a.metric;
    EXPECT_EQ(a.rank, acm["rank"][i].get<std::size_t>()) << a.metric;
    for (std::size_t j = i + 1; j < r.average.size(); ++j)
      EXPECT_EQ(r.average_sig[i][j], acm["sig_matrix"][i][j].get<double>());
  }
}

TEST(WmtProtocol, ProbityCoinsGiveTheSameValuesAndClose) {
  // Other draws: the values and order are the same, the p-values move by Monte Carlo error only.
  const json g = golden();
  WmtRankRequest req = request(g);
  const WmtRankResult exact = run_wmt_protocol(req);
  req.mtme_stream = false;
  req.permutations = 2000;
  const WmtRankResult fast = run_wmt_protocol(req);
  ASSERT_EQ(fast.tasks.size(), exact.tasks.size());
  for (std::size_t t = 0; t < fast.tasks.size(); ++t) {
    EXPECT_EQ(fast.tasks[t].metrics, exact.tasks[t].metrics);
    EXPECT_EQ(fast.tasks[t].values, exact.tasks[t].values);
  }
  for (std::size_t i = 0; i < fast.average.size(); ++i)
    EXPECT_EQ(fast.average[i].value, exact.average[i].value);
}

TEST(WmtProtocol, WithoutPermutationsNothingIsClustered) {
  const json g = golden();
  WmtRankRequest req = request(g);
  req.permutations = 0;
  const WmtRankResult r = run_wmt_protocol(req);
  for (const auto& t : r.tasks)
    for (std::size_t rank : t.ranks) EXPECT_EQ(rank, 0u);
  for (const auto& a : r.average) EXPECT_EQ(a.rank, 0u);
  EXPECT_TRUE(r.average_sig.empty());
}

TEST(WmtProtocol, MqmWeightsRebuildTheGoldFromErrorSpans) {
  // The tree's en-de mqm scores are its MQM ratings under score_mqm.py's default weights
  // (gen/mtme_tree.py): re-weighting them by default gives the same run; other weights another.
  const json g = golden();
  WmtRankRequest req = request(g);
  req.lps = {"en-de"};
  req.permutations = 50;
  const WmtRankResult stored = run_wmt_protocol(req);
  req.mqm_weights = "default";
  const WmtRankResult spans = run_wmt_protocol(req);
  ASSERT_EQ(spans.tasks.size(), stored.tasks.size());
  for (std::size_t t = 0; t < spans.tasks.size(); ++t) {
    EXPECT_EQ(spans.tasks[t].metrics, stored.tasks[t].metrics);
    EXPECT_EQ(spans.tasks[t].values, stored.tasks[t].values);
    EXPECT_EQ(spans.tasks[t].sig, stored.tasks[t].sig);
  }
  req.mqm_weights = "major:1 minor:1";
  const WmtRankResult flat = run_wmt_protocol(req);
  bool differs = false;
  for (std::size_t t = 0; t < flat.tasks.size(); ++t)
    differs = differs || flat.tasks[t].values != stored.tasks[t].values;
  EXPECT_TRUE(differs);
  req.lps = {"en-es"};  // no rating files there
  EXPECT_THROW(run_wmt_protocol(req), InputError);
}

TEST(WmtProtocol, RefusesAPairTheProtocolLacks) {
  const json g = golden();
  WmtRankRequest req = request(g);
  req.lps = {"en-xx"};
  EXPECT_THROW(run_wmt_protocol(req), UsageError);
}

}  // namespace
}  // namespace probity
