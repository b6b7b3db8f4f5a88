// The lexicon's word table answers as std::unordered_map would.
#include "perturb/word_table.hpp"

#include <gtest/gtest.h>

#include <string>
#include <unordered_map>

namespace {

using probity::perturb::WordSet;
using probity::perturb::WordTable;

TEST(PerturbWordTable, AgreesWithUnorderedMapAcrossGrowth) {
  WordTable<int> table;
  std::unordered_map<std::string, int> reference;
  for (int i = 0; i < 5000; ++i) {
    const std::string key = "w" + std::to_string(i * 7919 % 3001);  // repeats keys
    if (i % 3 == 0) {
      table.insert_or_assign(key, i);
      reference.insert_or_assign(key, i);
    } else {
      table.emplace(key, i);  // the first value stays
      reference.emplace(key, i);
    }
  }
  EXPECT_EQ(table.size(), reference.size());
  for (const auto& [key, value] : reference) {
    const int* got = table.find(key);
    ASSERT_NE(got, nullptr) << key;
    EXPECT_EQ(*got, value) << key;
  }
  EXPECT_EQ(table.find("w3001"), nullptr);
  EXPECT_EQ(table.find(""), nullptr);
  std::size_t visited = 0;
  table.for_each([&](std::string_view key, int value) {
    ++visited;
    EXPECT_EQ(reference.at(std::string(key)), value);
  });
  EXPECT_EQ(visited, reference.size());
}

TEST(PerturbWordTable, SetsAndTheEmptyWord) {
  const WordSet empty;
  EXPECT_FALSE(empty.contains("a"));
  WordSet set = {"a", "an", "the", ""};
  EXPECT_TRUE(set.contains("an"));
  EXPECT_TRUE(set.contains(""));
  EXPECT_FALSE(set.contains("th"));
  WordSet more = {"of"};
  more.insert_all(set);
  EXPECT_TRUE(more.contains("the") && more.contains("of") && more.contains(""));
}

}  // namespace
