#include "text/wordnet.hpp"

#include <gtest/gtest.h>

#include <cstdint>
#include <string>
#include <vector>

namespace {

namespace wn = probity::text::wordnet;
using wn::Pos;
using Words = std::vector<std::string>;

// The perturbations' morphy: exception lists (multi-word bases too), the word, then detachments
// that leave two letters or more.
TEST(WordNetByPos, BaseFormFollowsMorphysOrder) {
  ASSERT_TRUE(wn::available());
  EXPECT_EQ(wn::base_form("went", Pos::kVerb), "go");
  EXPECT_EQ(wn::base_form("boxes", Pos::kNoun), "box");
  EXPECT_EQ(wn::base_form("house", Pos::kNoun), "house");
  EXPECT_EQ(wn::base_form("comics", Pos::kNoun), "comic_strip");  // noun.exc's first base
  EXPECT_EQ(wn::base_form("is", Pos::kVerb), "be");
  EXPECT_EQ(wn::base_form("is", Pos::kNoun), "");  // not the plural of "i" (iodine)
  EXPECT_EQ(wn::base_form("xqzv", Pos::kNoun), "");
  // Looked up as given: no case folding.
  EXPECT_EQ(wn::base_form("House", Pos::kNoun), "");
}

TEST(WordNetByPos, SensesAreInFrequencyOrderWithTheirSemCorCounts) {
  const auto& dog = wn::senses("dog", Pos::kNoun);
  ASSERT_EQ(dog.size(), 7u);
  EXPECT_EQ(dog.front(), 2084071u);
  EXPECT_EQ(wn::tag_count("dog", Pos::kNoun, 1), 42);
  EXPECT_EQ(wn::tag_count("dog", Pos::kNoun, 7), 0);
  EXPECT_EQ(wn::tag_count("comic", Pos::kAdj, 1), 3);  // a satellite's count ("%5")
  EXPECT_EQ(wn::tag_count("comic", Pos::kAdj, 2), 2);
  EXPECT_FALSE(wn::senses("domestic_dog", Pos::kNoun).empty());
  EXPECT_TRUE(wn::senses("dog", Pos::kAdv).empty());
}

TEST(WordNetByPos, SynsetWordsKeepTheirCaseWithoutAdjectiveMarkers) {
  EXPECT_EQ(wn::synset_words(Pos::kNoun, 2084071),
            (Words{"dog", "domestic_dog", "Canis_familiaris"}));
  EXPECT_EQ(wn::synset_words(Pos::kAdj, 14358), (Words{"abounding", "galore"}));  // "galore(ip)"
}

TEST(WordNetByPos, SenseAntonymsFollowTheLemmasOwnPointers) {
  const std::uint32_t comfortable = wn::senses("comfortable", Pos::kAdj).front();
  EXPECT_EQ(wn::sense_antonyms("comfortable", Pos::kAdj, comfortable), (Words{"uncomfortable"}));
  EXPECT_TRUE(wn::sense_antonyms("comfy", Pos::kAdj, comfortable).empty());  // same synset
  EXPECT_EQ(wn::sense_antonyms("good", Pos::kAdj, wn::senses("good", Pos::kAdj)[0]),
            (Words{"bad"}));
}

TEST(WordNetByPos, IrregularFormsAreThoseOfTheExceptionLists) {
  EXPECT_TRUE(wn::has_irregular_forms("go", Pos::kVerb));
  EXPECT_TRUE(wn::has_irregular_forms("stop", Pos::kVerb));  // "stopped"
  EXPECT_FALSE(wn::has_irregular_forms("walk", Pos::kVerb));
  EXPECT_FALSE(wn::has_irregular_forms("went", Pos::kVerb));
}

// The index now holds multi-word lemmas for the lookups by part of speech; the single-word
// lookups must still not see them.
TEST(WordNet, SingleWordLookupsIgnoreCollocations) {
  EXPECT_TRUE(wn::synsets("domestic_dog").empty());
  EXPECT_FALSE(wn::is_verb_lemma("give_up"));
  for (const auto& w : wn::synonyms("dog")) EXPECT_EQ(w.find('_'), std::string::npos) << w;
  // "comics" -> the noun "comic" (noun.exc's multi-word "comic_strip" is skipped).
  const auto& comic = wn::senses("comic", Pos::kNoun);
  std::vector<std::uint64_t> expected;
  for (std::uint32_t offset : comic) expected.push_back((std::uint64_t{1} << 32) | offset);
  EXPECT_FALSE(expected.empty());
  EXPECT_EQ(wn::synsets("comics"), expected);
}

}  // namespace
