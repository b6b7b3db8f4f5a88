#include <gtest/gtest.h>

#include <nlohmann/json.hpp>

#include "probity/error.hpp"
#include "probity/scores.hpp"

namespace {

using nlohmann::json;

json trailer(const json& records) {
  return json{{"probity_scores",
               {{"records", records},
                {"shard", {0, 1}},
                {"data", json::array({{{"path", "d.jsonl"}, {"digest", "x"}, {"items", 3}}})},
                {"metrics", json::array()}}}};
}

TEST(ScoresTrailer, ReadsWholeCounts) {
  const auto t = probity::scores_trailer_of(trailer(12), "s.jsonl", 13);
  ASSERT_TRUE(t.has_value());
  EXPECT_EQ(t->records, 12u);
  EXPECT_EQ(t->data.at(0).items, 3u);
}

TEST(ScoresTrailer, RejectsCountsThatAreNotWholeNonNegativeNumbers) {
  // A float beyond size_t was converted unchecked (undefined behaviour) and -1 wrapped around.
  for (const json& bad : {json(1e30), json(-1), json(2.5), json("3")}) {
    try {
      probity::scores_trailer_of(trailer(bad), "s.jsonl", 13);
      ADD_FAILURE() << "accepted records = " << bad.dump();
    } catch (const probity::InputError& e) {
      const std::string what = e.what();
      EXPECT_NE(what.find("s.jsonl"), std::string::npos) << what;
      EXPECT_NE(what.find("13"), std::string::npos) << what;
    }
  }
}

}  // namespace
