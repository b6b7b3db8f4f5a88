// Pairwise Difference Pearson, WMT20's Kendall-like tau and Williams' test against MTME
// (tests/golden/meta_eval/wmt_stats.json), to 1e-9.
#include <gtest/gtest.h>

#include "mtme_golden.hpp"
#include "stats/mtme.hpp"

namespace st = probity::stats;
namespace mt = probity::test::mtme;

namespace {

st::MtmeAverageBy average_by_of(const std::string& s) {
  if (s == "none") return st::MtmeAverageBy::kNone;
  if (s == "item") return st::MtmeAverageBy::kItem;
  return st::MtmeAverageBy::kSys;
}

std::string name_of(const nlohmann::json& c) {
  std::string s = c.at("input").get<std::string>();
  for (const char* k : {"metric", "metric1", "metric2", "average_by"})
    if (c.contains(k)) s += "/" + c.at(k).get<std::string>();
  return s;
}

}  // namespace

TEST(MtmeCorrelations, PairwiseDifferencePearson) {
  for (const auto& c : mt::golden().at("pdp")) {
    const mt::Input in = mt::input(c.at("input"));
    mt::expect_near(st::mtme_pdp_pearson(in.gold, in.metric(c.at("metric")), in.systems,
                                         average_by_of(c.at("average_by"))),
                    c.at("value"), name_of(c));
  }
}

TEST(MtmeCorrelations, KendallLike) {
  for (const auto& c : mt::golden().at("kendall_like")) {
    const mt::Input in = mt::input(c.at("input"));
    mt::expect_near(
        st::mtme_kendall_like(in.gold, in.metric(c.at("metric")), in.systems,
                              average_by_of(c.at("average_by")), c.at("thresh").get<double>()),
        c.at("value"), name_of(c) + " thresh " + c.at("thresh").dump());
  }
}

TEST(MtmeCorrelations, KendallLikeCountsMetricTiesAsDiscordant) {
  // Gold 0, 30, 60 (all pairs >= 25 apart); the metric ties the first two: 2 concordant, 1 tie.
  const std::vector<double> gold{0, 30, 60}, metric{1, 1, 2};
  EXPECT_DOUBLE_EQ(st::mtme_kendall_like(gold, metric, 3, st::MtmeAverageBy::kItem), 1.0 / 3);
  // Gold exactly 25 apart counts (>=), a gold tie never does.
  const std::vector<double> apart{0, 25}, tied{0, 0}, down{2, 1};
  EXPECT_DOUBLE_EQ(st::mtme_kendall_like(apart, down, 2, st::MtmeAverageBy::kItem), -1.0);
  EXPECT_DOUBLE_EQ(st::mtme_kendall_like(tied, down, 2, st::MtmeAverageBy::kItem), 0.0);
}

TEST(MtmeCorrelations, Williams) {
  for (const auto& c : mt::golden().at("williams")) {
    const mt::Input in = mt::input(c.at("input"));
    const bool one_sided = c.at("one_sided").get<bool>();
    const auto r = st::mtme_williams_sig_diff(in.gold, in.metric(c.at("metric1")),
                                              in.metric(c.at("metric2")), one_sided);
    const std::string what = name_of(c) + (one_sided ? " one-sided" : " two-sided");
    mt::expect_near(r.r1, c.at("r1"), what + " r1");
    mt::expect_near(r.r2, c.at("r2"), what + " r2");
    // p-values far below 1 are compared relatively (Student t tails).
    const auto& p = c.at("p");
    if (p.is_null()) {
      EXPECT_TRUE(std::isnan(r.p_value)) << what;
    } else {
      EXPECT_NEAR(r.p_value, p.get<double>(), 1e-9 * p.get<double>() + 1e-300) << what << " p";
    }
  }
  for (const auto& c : mt::golden().at("williams_test")) {
    const double p = st::williams_test(c.at("r12"), c.at("r13"), c.at("r23"),
                                       c.at("n").get<double>(), c.at("one_sided"));
    if (c.at("p").is_null()) {
      EXPECT_TRUE(std::isnan(p)) << c.dump();
    } else {
      EXPECT_NEAR(p, c.at("p").get<double>(), 1e-9 * c.at("p").get<double>()) << c.dump();
    }
  }
}
