#include "util/suggest.hpp"

#include <gtest/gtest.h>

namespace {

using probity::util::did_you_mean;
using probity::util::edit_distance;
using probity::util::nearest;

TEST(Suggest, EditDistanceCountsTranspositionsAsOne) {
  EXPECT_EQ(edit_distance("score", "score"), 0u);
  EXPECT_EQ(edit_distance("scroe", "score"), 1u);
  EXPECT_EQ(edit_distance("", "abc"), 3u);
  EXPECT_EQ(edit_distance("kitten", "sitting"), 3u);
  EXPECT_EQ(edit_distance("--metrc", "--metric"), 1u);
}

TEST(Suggest, NearestKeepsOnlyTyposAndTies) {
  const std::vector<std::string> commands = {"score", "correlate", "compare", "rank",
                                             "audit", "perturb",   "metrics", "meta"};
  EXPECT_EQ(nearest("scroe", commands), std::vector<std::string>{"score"});
  EXPECT_EQ(nearest("audti", commands), std::vector<std::string>{"audit"});
  EXPECT_EQ(nearest("metric", commands), std::vector<std::string>{"metrics"});
  EXPECT_TRUE(nearest("frobnicate", commands).empty());
  EXPECT_TRUE(nearest("x", commands).empty());
  EXPECT_EQ(nearest("corr", commands), std::vector<std::string>{"correlate"});  // a prefix
  EXPECT_EQ(did_you_mean("scroe", commands), " (did you mean 'score'?)");
  EXPECT_EQ(did_you_mean("mta", {"meta", "mia"}), " (did you mean 'meta' or 'mia'?)");
  EXPECT_EQ(did_you_mean("zzzzzz", commands), "");
}

}  // namespace
