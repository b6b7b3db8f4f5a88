// MTME's permutation tests (stats.PermutationSigDiff with the PCE statistic and
// stats.PairwisePermutationSigDiff) against tests/golden/meta_eval/wmt_stats.json: with the
// coins of numpy's legacy stream after np.random.seed, the same p-value, delta, number of runs
// and resampled (c2, c1) list.
#include <gtest/gtest.h>

#include <map>

#include "mtme_golden.hpp"
#include "stats/mtme.hpp"

namespace st = probity::stats;
namespace mt = probity::test::mtme;

namespace {

st::MtmeSigDiffOptions options_of(const nlohmann::json& c) {
  st::MtmeSigDiffOptions o;
  o.k = c.at("k").get<std::size_t>();
  o.block_size = c.at("block_size").get<std::size_t>();
  o.early_min = c.at("early_min").get<double>();
  o.early_max = c.at("early_max").get<double>();
  o.seed = c.at("seed").get<std::uint32_t>();
  return o;
}

st::MtmeAverageBy average_by_of(const std::string& s) {
  if (s == "none") return st::MtmeAverageBy::kNone;
  if (s == "item") return st::MtmeAverageBy::kItem;
  return st::MtmeAverageBy::kSys;
}

std::string name_of(const nlohmann::json& c) {
  std::string s = c.at("input").get<std::string>() + "/" + c.at("metric1").get<std::string>() +
                  "-" + c.at("metric2").get<std::string>();
  if (c.contains("average_by")) s += "/" + c.at("average_by").get<std::string>();
  return s;
}

// Compares everything; returns how many resampled pairs differ (beyond 1e-9).
std::size_t expect_result(const st::MtmeSigDiffResult& r, const nlohmann::json& c,
                          const std::string& what, bool count_only) {
  if (!count_only) {
    mt::expect_near(r.p_value, c.at("p"), what + " p");
    EXPECT_EQ(r.draws, c.at("draws").get<std::size_t>()) << what;
  }
  mt::expect_near(r.delta, c.at("delta"), what + " delta");
  const auto& want = c.at("resampled");
  std::size_t differ = 0;
  for (std::size_t i = 0; i < std::min(want.size(), r.resampled.size()); ++i) {
    const double w2 = want[i][0].get<double>(), w1 = want[i][1].get<double>();
    const bool same =
        std::abs(r.resampled[i].first - w2) <= 1e-9 && std::abs(r.resampled[i].second - w1) <= 1e-9;
    differ += !same;
    if (!count_only) {
      EXPECT_TRUE(same) << what << " draw " << i << ": (" << r.resampled[i].first << ", "
                        << r.resampled[i].second << ") vs (" << w2 << ", " << w1 << ")";
    }
  }
  return differ;
}

}  // namespace

TEST(MtmePceSigDiff, MatchesMtme) {
  std::map<std::size_t, st::PceDraws> draws_of;
  for (const auto& c : mt::golden().at("pce_sigdiff")) {
    const std::string what = name_of(c);
    const mt::Input in = mt::input(c.at("input"));
    std::size_t scored = 0;
    for (double g : in.gold) scored += !std::isnan(g);
    const std::size_t segments = scored / in.systems;
    const st::PceDraws& draws = draws_of.try_emplace(segments, segments).first->second;
    const auto r =
        st::mtme_pce_permutation_test(draws, in.gold, in.metric(c.at("metric1")),
                                      in.metric(c.at("metric2")), in.systems, options_of(c));
    const std::size_t differ = expect_result(r, c, what, false);
    EXPECT_EQ(differ, 0u) << what;
  }
}

TEST(MtmePceSigDiff, FastCoinsAndExactSumsAgreeInDistribution) {
  const mt::Input in = mt::input("small");
  const st::PceDraws draws(in.items);
  st::MtmeSigDiffOptions o;
  o.k = 400;
  o.block_size = 0;
  o.seed = 12;
  const auto m1 = in.metric("m2"), m2 = in.metric("m1");
  const auto a = st::mtme_pce_permutation_test(draws, in.gold, m1, m2, in.systems, o);
  o.mtme_stream = false;
  o.pce_arithmetic = st::PceArithmetic::kExact;
  const auto b = st::mtme_pce_permutation_test(draws, in.gold, m1, m2, in.systems, o);
  EXPECT_EQ(b.draws, 400u);
  EXPECT_NEAR(a.delta, b.delta, 0.005);  // near-ties only
  EXPECT_NEAR(a.p_value, b.p_value, 0.06);
}

TEST(MtmePairsSigDiff, MatchesMtme) {
  for (const auto& c : mt::golden().at("pairs_sigdiff")) {
    const std::string what = name_of(c);
    const mt::Input in = mt::input(c.at("input"));
    const auto ab = average_by_of(c.at("average_by"));
    const auto m1 = in.metric(c.at("metric1")), m2 = in.metric(c.at("metric2"));
    const auto o = options_of(c);
    std::optional<double> e1, e2;
    if (c.value("given_epsilons", false)) {
      e1 = c.at("epsilon1").get<double>();
      e2 = c.at("epsilon2").get<double>();
    }
    const auto r = st::mtme_pairs_permutation_test(in.gold, m1, m2, in.systems, ab, o, e1, e2);
    EXPECT_EQ(expect_result(r, c, what, false), 0u) << what;
    // The optimized thresholds are KendallWithTiesOpt's: the same result when passed explicitly.
    const auto r2 = st::mtme_pairs_permutation_test(in.gold, m1, m2, in.systems, ab, o,
                                                    c.at("epsilon1").get<double>(),
                                                    c.at("epsilon2").get<double>());
    EXPECT_EQ(r2.p_value, r.p_value) << what;
    EXPECT_EQ(r2.delta, r.delta) << what;
  }
}

TEST(MtmePairsSigDiff, FastCoinsAgreeInDistribution) {
  // probity's own coins: another stream, the same test (same delta, p within noise).
  const mt::Input in = mt::input("small_mqm");
  st::MtmeSigDiffOptions o;
  o.k = 2000;
  o.block_size = 2000;
  o.seed = 29;
  const auto m1 = in.metric("m2"), m2 = in.metric("m1");
  const auto a =
      st::mtme_pairs_permutation_test(in.gold, m1, m2, in.systems, st::MtmeAverageBy::kItem, o);
  o.mtme_stream = false;
  const auto b =
      st::mtme_pairs_permutation_test(in.gold, m1, m2, in.systems, st::MtmeAverageBy::kItem, o);
  EXPECT_EQ(a.delta, b.delta);
  EXPECT_NEAR(a.p_value, b.p_value, 0.05);
  EXPECT_GE(b.p_value, 0.0);
  EXPECT_LE(b.p_value, 1.0);
}
