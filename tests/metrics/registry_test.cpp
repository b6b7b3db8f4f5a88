#include <gtest/gtest.h>

#include "probity/metric.hpp"

TEST(MetricSpec, ParsesBaseArgAndOptions) {
  auto s = probity::MetricSpec::parse("mi:tv/fvar/statement/oracle,k=8,seed=3");
  EXPECT_EQ(s.base(), "mi");
  EXPECT_EQ(s.arg(), "tv/fvar/statement/oracle");
  EXPECT_EQ(s.get_int("k", 4), 8);
  EXPECT_THROW(s.check_all_used(), std::runtime_error);
  EXPECT_EQ(s.get_int("seed", 0), 3);
  EXPECT_NO_THROW(s.check_all_used());
}
