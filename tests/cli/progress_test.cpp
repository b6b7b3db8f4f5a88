// The progress line's logic, driven by a fake clock and a string sink (no timing).
#include "cli/progress.hpp"

#include <gtest/gtest.h>

#include <string>
#include <vector>

namespace {

using probity::cli::Eta;
using probity::cli::ProgressLine;

struct Fake {
  double now = 0;
  std::vector<std::string> out;
  ProgressLine line(bool enabled = true) {
    return ProgressLine(
        "audit", enabled, [this] { return now; },
        [this](std::string_view s) { out.emplace_back(s); });
  }
};

TEST(CliProgress, SilentWhenDisabledAndBeforeHalfASecond) {
  Fake f;
  auto off = f.line(false);
  f.now = 5;
  off.update(1, 10);
  off.finish();
  EXPECT_TRUE(f.out.empty());
  f.now = 0;
  auto on = f.line();
  f.now = 0.2;
  on.update(1, 10);
  EXPECT_TRUE(f.out.empty());
  on.finish();  // nothing drawn, nothing erased
  EXPECT_TRUE(f.out.empty());
  f.now = 0.7;
  on.update(2, 10, "stage 3/38 score bleu");
  ASSERT_EQ(f.out.size(), 1u);
  EXPECT_EQ(f.out[0].rfind("\raudit [", 0), 0u);
  EXPECT_NE(f.out[0].find(" 20% 2/10"), std::string::npos);
  EXPECT_NE(f.out[0].find("stage 3/38 score bleu"), std::string::npos);
  EXPECT_EQ(f.out[0].find("left"), std::string::npos);  // no ETA yet
  on.finish();
  EXPECT_EQ(f.out.back(), "\r\033[K");
}

TEST(CliProgress, RedrawsAtMostTenTimesASecond) {
  Fake f;
  auto line = f.line();
  f.now = 1.0;
  line.update(1, 100);
  f.now = 1.05;
  line.update(2, 100);  // too soon
  EXPECT_EQ(f.out.size(), 1u);
  f.now = 1.2;
  line.update(3, 100);
  EXPECT_EQ(f.out.size(), 2u);
  f.now = 1.21;
  line.update(100, 100);  // the end is always drawn
  EXPECT_EQ(f.out.size(), 3u);
}

// A slow set-up (fitting) before the first item must not make the first estimate huge: the
// rate is measured from the first report with work done, and no ETA is shown before 2 s and 5%.
TEST(CliProgress, EtaWaitsForAStableRateAndIgnoresSetUp) {
  Eta eta;
  eta.observe(10.0, 10, 1000);  // 10 s of set-up, then the first chunk
  EXPECT_FALSE(eta.seconds_left());
  eta.observe(11.0, 110, 1000);  // 1 s later: too early
  EXPECT_FALSE(eta.seconds_left());
  eta.observe(12.0, 210, 1000);  // 2 s and 20% done since the first report: 100 items/s
  ASSERT_TRUE(eta.seconds_left());
  EXPECT_DOUBLE_EQ(*eta.seconds_left(), 7.9);
  eta.observe(13.0, 310, 1000);
  EXPECT_DOUBLE_EQ(*eta.seconds_left(), 6.9);
  // Too little progress after 2 s is no basis either.
  Eta slow;
  slow.observe(0.0, 1, 1000);
  slow.observe(3.0, 20, 1000);
  EXPECT_FALSE(slow.seconds_left());
  // New work (another total) starts a new estimate.
  eta.observe(14.0, 5, 50);
  EXPECT_FALSE(eta.seconds_left());
}

TEST(CliProgress, LineShowsTheEtaOnceStable) {
  Fake f;
  auto line = f.line();
  for (int i = 1; i <= 40; ++i) {
    f.now = 0.1 * i;
    line.update(static_cast<std::size_t>(i * 10), 1000);
  }
  // 4 s at 100 items/s with 600 left: "~6 s left".
  EXPECT_NE(f.out.back().find("~6 s left"), std::string::npos) << f.out.back();
  EXPECT_EQ(probity::cli::format_duration(185), "3 min 05 s");
  EXPECT_EQ(probity::cli::format_duration(3720), "1 h 02 min");
}

}  // namespace
