// Contrastive negatives of a file read in chunks: the sampler that keeps only what metrics may
// draw (per task its group, a hash of its id and a copy of one reference) draws exactly what the
// sampler over the loaded file draws.
#include <gtest/gtest.h>

#include <stdexcept>
#include <string>
#include <vector>

#include "probity/engine.hpp"
#include "probity/scoring.hpp"
#include "test_paths.hpp"

namespace probity::test {
namespace {

std::vector<std::string> strings(const std::vector<std::string_view>& views) {
  return {views.begin(), views.end()};
}

TEST(NegativeSampler, ChunkedFileDrawsAsTheLoadedOne) {
  Dataset ds = load_dataset(data_path("summeval/summeval_sample20.jsonl"));
  // Groups of 6 or 7 tasks and one alone (it has no negatives); one task without the second
  // reference id, so refs= gives it none to draw.
  for (std::size_t t = 0; t < ds.tasks.size(); ++t)
    ds.tasks[t].group = t == 19 ? "alone" : "g" + std::to_string(t % 3);
  ds.tasks[4].references.erase(ds.tasks[4].references.begin() + 1);
  Engine engine;
  std::vector<MetricSelection> metrics;
  // k=4: partial Fisher-Yates over a small group; k=1: rejection sampling; refs=: another
  // reference of each task; bleu draws none.
  for (const char* spec : {"stmt-tv", "tvd-mi,k=1,seed=3", "stmt-tv,refs=ref1_crowd", "bleu"})
    metrics.push_back(select_metric(spec, engine));
  const NegativeSampler loaded(ds);
  NegativeSampler chunked(metrics);
  for (const Task& task : ds.tasks) chunked.add(task);
  ASSERT_EQ(chunked.size(), ds.tasks.size());
  std::size_t drawn = 0;
  for (std::size_t t = 0; t < ds.tasks.size(); ++t)
    for (const auto& m : metrics) {
      const auto expected = strings(loaded.for_metric(t, *m.metric));
      EXPECT_EQ(strings(chunked.for_metric(t, *m.metric)), expected) << t << " " << m.spec;
      drawn += expected.size();
    }
  EXPECT_GT(drawn, 20u * 5);
  EXPECT_TRUE(chunked.for_metric(19, *metrics[0].metric).empty());
  // It keeps only what the metrics draw.
  const std::vector<std::string> other = {"ref2_crowd"};
  EXPECT_THROW(chunked.sample(0, 2, 0, other), std::logic_error);
  EXPECT_EQ(loaded.sample(0, 2, 0, other).size(), 2u);
}

}  // namespace
}  // namespace probity::test
