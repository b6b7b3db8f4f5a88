// Soft pairwise accuracy (MTME pce.py) against tests/golden/meta_eval/wmt_stats.json: the float32
// path bit for bit; the exact path apart from permutations at float32 near-ties, counted.
#include <gtest/gtest.h>

#include <cmath>
#include <iostream>
#include <map>

#include "mtme_golden.hpp"
#include "stats/mtme.hpp"
#include "util/numpy_random.hpp"

namespace st = probity::stats;
namespace mt = probity::test::mtme;

namespace {

// The gold reshaped after dropping missing items, as MTME's PCE does.
std::vector<double> scored(const std::vector<double>& gold, const std::vector<double>& v) {
  std::vector<double> out;
  for (std::size_t i = 0; i < gold.size(); ++i)
    if (!std::isnan(gold[i])) out.push_back(v[i]);
  return out;
}

}  // namespace

TEST(MtmeSpa, DrawsAreNumpyFloat32Uniforms) {
  // rint(default_rng(4).random(float32)): the 24-bit value above exactly one half is +1.
  const st::PceDraws draws(37, 5, 4);
  probity::util::Pcg64 rng(4);
  for (std::size_t p = 0; p < 5; ++p)
    for (std::size_t l = 0; l < 37; ++l) {
      const float u = static_cast<float>(rng.next32() >> 8) * (1.0f / 16777216.0f);
      EXPECT_EQ(draws.plus(p, l), std::nearbyint(u) == 1.0f) << p << " " << l;
    }
}

// Permutations whose exact null delta lies within float32 rounding of the observed delta, per
// pair: where MTME's float32 sums can fall either way.
std::vector<std::size_t> near_ties(const st::PceDraws& draws, const std::vector<double>& scores,
                                   std::size_t systems) {
  const std::size_t n = draws.segments();
  std::vector<std::size_t> out;
  for (std::size_t i = 0; i < systems; ++i) {
    for (std::size_t j = i + 1; j < systems; ++j) {
      std::vector<double> d(n);
      double observed = 0, scale = 0;
      for (std::size_t l = 0; l < n; ++l) {
        const double a = static_cast<float>(scores[i * n + l]);
        const double b = static_cast<float>(scores[j * n + l]);
        d[l] = a - b;
        observed += d[l];
        scale += std::abs(a) + std::abs(b);
      }
      std::size_t ties = 0;
      for (std::size_t p = 0; p < draws.permutations(); ++p) {
        double null_delta = 0;
        for (std::size_t l = 0; l < n; ++l) null_delta += draws.plus(p, l) ? d[l] : -d[l];
        // float32 sums of n terms: error below n * 2^-24 * scale.
        ties += std::abs(null_delta - observed) <= static_cast<double>(n) * 0x1p-24 * scale;
      }
      out.push_back(ties);
    }
  }
  return out;
}

TEST(MtmeSpa, MatchesMtme) {
  // The float32 path is MTME on reference BLAS: every p-value and SPA equal.
  std::map<std::size_t, st::PceDraws> draws_of;  // by segments
  std::size_t total = 0, exact_differ = 0;
  for (const auto& c : mt::golden().at("spa")) {
    const std::string name = c.at("input").get<std::string>();
    const std::string what = name + "/" + c.at("metric").get<std::string>();
    const mt::Input in = mt::input(name);
    const std::vector<double> g = scored(in.gold, in.gold);
    const std::vector<double> m = scored(in.gold, in.metric(c.at("metric")));
    const std::size_t segments = g.size() / in.systems;
    const st::PceDraws& draws = draws_of.try_emplace(segments, segments).first->second;
    for (const auto& [scores, key] : {std::pair{&g, "gold_p"}, std::pair{&m, "metric_p"}}) {
      const auto want = mt::values(c.at(key));
      const auto got = st::pce_pairwise_p_values(draws, *scores, in.systems);
      ASSERT_EQ(got.size(), want.size()) << what;
      for (std::size_t i = 0; i < want.size(); ++i)
        EXPECT_EQ(got[i], want[i]) << what << " " << key << "[" << i << "]";
      // Exact sums differ from MTME only by permutations near a tie.
      const auto exact =
          st::pce_pairwise_p_values(draws, *scores, in.systems, st::PceArithmetic::kExact);
      const auto ties = near_ties(draws, *scores, in.systems);
      for (std::size_t i = 0; i < want.size(); ++i) {
        const double moved = std::abs(exact[i] - want[i]) * 1000;
        EXPECT_LE(moved, static_cast<double>(ties[i]) + 0.5) << what << " " << key << i;
        exact_differ += exact[i] != want[i];
      }
      total += want.size();
    }
    mt::expect_near(
        st::mtme_soft_pairwise_accuracy(draws, in.gold, in.metric(c.at("metric")), in.systems),
        c.at("spa"), what);
  }
  std::cout << "SPA p-values of exact sums differing from MTME's float32 ones (near-ties): "
            << exact_differ << " of " << total << "\n";
}

TEST(MtmeSpa, Properties) {
  const mt::Input in = mt::input("wmt");
  const std::size_t segments = in.items;
  const st::PceDraws draws(segments);
  const auto gp = st::pce_pairwise_p_values(draws, in.gold, in.systems);
  for (double p : gp) {
    EXPECT_GE(p, 0.0);
    EXPECT_LE(p, 1.0);
  }
  // A metric equal to the gold, or the gold doubled (exactly, in float32 too), agrees perfectly.
  EXPECT_EQ(st::mtme_soft_pairwise_accuracy(draws, in.gold, in.gold, in.systems), 1.0);
  std::vector<double> scaled(in.gold);
  for (double& v : scaled) v = 2 * v;
  EXPECT_EQ(st::mtme_soft_pairwise_accuracy(draws, in.gold, scaled, in.systems), 1.0);
  // Reversing a metric makes p(i > j) into about 1 - p: SPA far below 1.
  std::vector<double> reversed(in.gold);
  for (double& v : reversed) v = -v;
  EXPECT_LT(st::mtme_soft_pairwise_accuracy(draws, in.gold, reversed, in.systems), 0.5);
}
