#include "util/number_check.hpp"

#include <gtest/gtest.h>

#include <limits>

#include "probity/error.hpp"

namespace probity::util {
namespace {

TEST(NumberCheck, WholeNumbers) {
  const WholeBounds b{1, 1000};
  EXPECT_EQ(whole_number_problem("5", b), "");
  EXPECT_EQ(whole_number_problem("0", b), "0 is less than the minimum 1");
  EXPECT_EQ(whole_number_problem("1001", b), "1001 is more than the maximum 1000");
  EXPECT_EQ(whole_number_problem("99999999999999999999", b),
            "99999999999999999999 is more than the maximum 1000");
  EXPECT_EQ(whole_number_problem("-1", b), "-1 is less than the minimum 1");
  EXPECT_EQ(whole_number_problem("1.5", b), "1.5 is not a whole number");
  EXPECT_EQ(whole_number_problem("nan", b), "nan is not a whole number");
  EXPECT_EQ(whole_number_problem("", b), "'' is not a whole number");
  // A seed takes every 64-bit value and nothing past it.
  EXPECT_EQ(whole_number_problem("18446744073709551615", WholeBounds{}), "");
  EXPECT_NE(whole_number_problem("18446744073709551616", WholeBounds{}), "");
}

TEST(NumberCheck, RealNumbers) {
  const RealBounds open{0.0, 1.0, true, true};
  EXPECT_EQ(real_number_problem("0.5", open), "");
  EXPECT_EQ(real_number_problem("nan", open), "nan is not a number");
  EXPECT_EQ(real_number_problem("-inf", open), "-inf is not a finite number");
  EXPECT_EQ(real_number_problem("1e999", open), "1e999 is not a finite number");
  EXPECT_EQ(real_number_problem("0", open), "0 must be more than 0");
  EXPECT_EQ(real_number_problem("1", open), "1 must be less than 1");
  EXPECT_EQ(real_number_problem("2", RealBounds{0.0, 1.0}), "2 is more than the maximum 1");
  EXPECT_EQ(real_number_problem("0.5x", open), "0.5x is not a number");
  // Any finite number when no bounds are given; never NaN.
  EXPECT_EQ(real_number_problem("-1e300", RealBounds{}), "");
  EXPECT_EQ(real_number_problem(std::numeric_limits<double>::quiet_NaN(), RealBounds{}),
            "nan is not a number");
}

TEST(NumberCheck, MessagesStayShort) {
  const std::string huge(400, '9');
  const auto problem = whole_number_problem(huge, WholeBounds{1, 10});
  EXPECT_LT(problem.size(), 80u) << problem;
  EXPECT_EQ(describe(WholeBounds{1, 10}), "[1..10]");
  EXPECT_EQ(describe(WholeBounds{}), "");
  EXPECT_EQ(describe(RealBounds{0.0, 1.0, true, true}), "(0..1)");
  EXPECT_EQ(describe(RealBounds{0.0}), "[0..]");
}

TEST(NumberCheck, TypedValuesThrowUsageErrorsNamingTheField) {
  try {
    check_real("alpha", std::numeric_limits<double>::quiet_NaN(), RealBounds{0.0, 1.0});
    FAIL() << "no error";
  } catch (const UsageError& e) {
    EXPECT_STREQ(e.what(), "alpha: nan is not a number");
  }
  EXPECT_THROW(check_whole("budget", 0, WholeBounds{1, 10}), UsageError);
  EXPECT_NO_THROW(check_whole("budget", 10, WholeBounds{1, 10}));
}

}  // namespace
}  // namespace probity::util
