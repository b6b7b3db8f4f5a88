// The human ceiling: each rater against the mean of the item's other raters, averaged over rater
// positions, computed here by hand from SciPy-equal correlations; α as stats computes it.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <string>
#include <vector>

#include "probity/audit.hpp"
#include "probity/stats.hpp"
#include "util/random.hpp"

namespace {

using namespace probity;

// 40 items in 8 tasks of 5 systems; three raters who see a latent quality with noise, the
// third item of every fifth task rated by two raters only.
Dataset rated_dataset() {
  Dataset ds;
  util::Rng rng(7, 0);
  for (std::size_t t = 0; t < 8; ++t) {
    Task task;
    task.task_id = "t" + std::to_string(t);
    for (std::size_t c = 0; c < 5; ++c) {
      Candidate cand;
      cand.id = task.task_id + "-" + std::to_string(c);
      cand.system = "s" + std::to_string(c);
      cand.text = "text";
      const double quality = static_cast<double>(rng.below(5));
      std::vector<double> ratings;
      for (int r = 0; r < 3; ++r)
        ratings.push_back(std::clamp(quality + static_cast<double>(rng.below(3)) - 1.0, 0.0, 4.0));
      if (t % 5 == 0 && c == 2) ratings.pop_back();
      cand.human["coherence"] = ratings;
      cand.human["fluency"] = {static_cast<double>(rng.below(5)),
                               static_cast<double>(rng.below(5))};
      task.candidates.push_back(std::move(cand));
    }
    ds.tasks.push_back(std::move(task));
  }
  return ds;
}

std::vector<ItemRef> all(const Dataset& ds) {
  std::vector<ItemRef> items;
  for (std::size_t t = 0; t < ds.tasks.size(); ++t)
    for (std::size_t c = 0; c < ds.tasks[t].candidates.size(); ++c) items.push_back({t, c});
  return items;
}

// Rater k against the mean of the other ratings, by hand.
double loo_spearman(const Dataset& ds, const std::string& dim) {
  double sum = 0;
  int raters = 0;
  for (std::size_t k = 0; k < 3; ++k) {
    std::vector<double> x, y;
    for (const auto& t : ds.tasks)
      for (const auto& c : t.candidates) {
        const auto& r = c.human.at(dim);
        if (r.size() <= k || r.size() < 2) continue;
        double others = 0;
        for (std::size_t j = 0; j < r.size(); ++j)
          if (j != k) others += r[j];
        x.push_back(r[k]);
        y.push_back(others / static_cast<double>(r.size() - 1));
      }
    if (x.size() < 3) continue;
    sum += stats::spearman(x, y).statistic;
    ++raters;
  }
  return sum / raters;
}

TEST(HumanCeiling, EachRaterAgainstTheOthersAveraged) {
  const Dataset ds = rated_dataset();
  const auto items = all(ds);
  const std::vector<std::string> dims = {"coherence", "fluency"};
  CorrelationOptions options;
  options.bootstrap = 200;
  const std::vector<stats::Level> levels = {stats::Level::kSystem};
  const std::vector<stats::LevelStatistic> statistics = {stats::LevelStatistic::kPearson};
  const auto c = human_ceiling(ds, items, dims, levels, statistics, options);
  ASSERT_TRUE(c.has_value());
  EXPECT_TRUE(c->humans);
  EXPECT_EQ(c->metric, "humans");
  ASSERT_EQ(c->rows.size(), 3u);  // two dimensions and their mean
  const double coherence = loo_spearman(ds, "coherence"), fluency = loo_spearman(ds, "fluency");
  EXPECT_NEAR(c->rows[0].spearman, coherence, 1e-12);
  EXPECT_NEAR(c->rows[1].spearman, fluency, 1e-12);
  EXPECT_EQ(c->rows[2].dimension, "mean");
  EXPECT_NEAR(c->rows[2].spearman, (coherence + fluency) / 2, 1e-12);
  // Raters of the latent quality agree; raters drawing at random do not.
  EXPECT_GT(coherence, 0.5);
  EXPECT_LT(std::abs(fluency), 0.4);
  EXPECT_LE(c->rows[0].spearman_lo, c->rows[0].spearman);
  EXPECT_GE(c->rows[0].spearman_hi, c->rows[0].spearman);
  EXPECT_EQ(c->rows[0].n, 40u);  // rater 0 and another on every item
  ASSERT_EQ(c->levels.size(), 2u);
  EXPECT_EQ(c->levels[0].level, stats::Level::kSystem);
  EXPECT_TRUE(std::isfinite(c->levels[0].result.value));

  ASSERT_EQ(c->agreement.size(), 2u);
  EXPECT_EQ(c->agreement[0].raters, 3u);
  EXPECT_EQ(c->agreement[0].units, 40u);
  std::vector<std::vector<double>> units;
  for (const auto& t : ds.tasks)
    for (const auto& cand : t.candidates) units.push_back(cand.human.at("coherence"));
  EXPECT_DOUBLE_EQ(c->agreement[0].alpha_interval,
                   stats::krippendorff_alpha(units, stats::AlphaMetric::kInterval));
  EXPECT_DOUBLE_EQ(c->agreement[0].alpha_ordinal,
                   stats::krippendorff_alpha(units, stats::AlphaMetric::kOrdinal));

  // The same seed gives the same bytes, at any thread count.
  options.threads = 1;
  const auto one = human_ceiling(ds, items, dims, levels, statistics, options);
  options.threads = 3;
  const auto three = human_ceiling(ds, items, dims, levels, statistics, options);
  EXPECT_EQ(one->rows[2].spearman_lo, three->rows[2].spearman_lo);
  EXPECT_EQ(one->rows[2].spearman_hi, three->rows[2].spearman_hi);
}

TEST(HumanCeiling, NoneWithOneRatingPerItem) {
  Dataset ds = rated_dataset();
  for (auto& t : ds.tasks)
    for (auto& c : t.candidates)
      for (auto& [dim, ratings] : c.human) ratings.resize(1);
  EXPECT_FALSE(human_ceiling(ds, all(ds), {"coherence", "fluency"}, {}, {}).has_value());
}

}  // namespace
