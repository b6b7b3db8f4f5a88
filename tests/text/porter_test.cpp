#include <gtest/gtest.h>

#include <fstream>
#include <string>
#include <utility>
#include <vector>

#include "probity/text.hpp"
#include "test_paths.hpp"

using probity::text::porter_stem;

// Every SummEval word longer than 3 characters, stemmed by NLTK 3.8 PorterStemmer().
TEST(PorterStemmer, MatchesNltkOnAllGoldenWords) {
  std::ifstream in(probity::test::golden_path("porter_nltk.tsv"));
  ASSERT_TRUE(in) << "missing golden file";
  std::string line;
  std::getline(in, line);
  ASSERT_EQ(line.rfind("#", 0), 0u) << "first line is a comment";
  std::size_t total = 0, wrong = 0;
  while (std::getline(in, line)) {
    if (line.empty()) continue;
    const auto tab = line.find('\t');
    ASSERT_NE(tab, std::string::npos) << line;
    const std::string word = line.substr(0, tab), expected = line.substr(tab + 1);
    ++total;
    const std::string got = porter_stem(word);
    if (got != expected) {
      ++wrong;
      ADD_FAILURE() << word << ": expected '" << expected << "', got '" << got << "'";
    }
  }
  EXPECT_EQ(total, 6959u);
  EXPECT_EQ(wrong, 0u);
}

// NLTK's documented NLTK_EXTENSIONS examples and the steps' corner cases.
TEST(PorterStemmer, NltkExtensions) {
  const std::vector<std::pair<std::string, std::string>> cases = {
      // irregular-forms pool
      {"sky", "sky"},
      {"skies", "sky"},
      {"dying", "die"},
      {"lying", "lie"},
      {"tying", "tie"},
      {"news", "news"},
      {"innings", "inning"},
      {"outings", "outing"},
      {"cannings", "canning"},
      {"howe", "howe"},
      {"proceed", "proceed"},
      {"exceed", "exceed"},
      {"succeed", "succeed"},
      // words of 1-2 characters are returned unchanged
      {"a", "a"},
      {"is", "is"},
      {"as", "as"},
      {"", ""},
      // step 1a/1b NLTK special cases: 'ies'/'ied' on 4-letter words
      {"dies", "die"},
      {"flies", "fli"},
      {"died", "die"},
      {"spied", "spi"},
      {"caresses", "caress"},
      {"mules", "mule"},
      {"denied", "deni"},
      {"agreed", "agre"},
      {"owned", "own"},
      {"humbled", "humbl"},
      {"sized", "size"},
      {"meeting", "meet"},
      {"stating", "state"},
      {"siezing", "siez"},
      {"itemization", "item"},
      {"sensational", "sensat"},
      {"traditional", "tradit"},
      {"reference", "refer"},
      {"colonizer", "colon"},
      {"plotted", "plot"},
      // step 1c: y -> i only after a consonant that is not the first letter
      {"happy", "happi"},
      {"enjoy", "enjoy"},
      {"cry", "cri"},
      {"by", "by"},
      // step 2: 'alli' re-enters step 2, 'logi' keeps its 'l', 'fulli'
      {"radically", "radic"},
      {"archaeology", "archaeolog"},
      {"geology", "geolog"},
      {"hopefully", "hope"},
      // step 5
      {"controlling", "control"},
      {"roll", "roll"},
      {"probate", "probat"},
      {"rate", "rate"},
      {"cease", "ceas"},
  };
  for (const auto& [word, stem] : cases) EXPECT_EQ(porter_stem(word), stem) << word;
}

TEST(PorterStemmer, LowercasesLikeNltkAfterThePoolCheck) {
  EXPECT_EQ(porter_stem("Running"), "run");
  // NLTK looks the word up in its pool before lower-casing, so "SKY" is stemmed normally.
  EXPECT_EQ(porter_stem("SKY"), "ski");
  EXPECT_EQ(porter_stem("IS"), "is");
}

TEST(PorterStemmer, NonAsciiCountsCharacters) {
  EXPECT_EQ(porter_stem("cafés"), "café");
  // Two characters (three bytes): returned as is, although a byte-wise step 1a would drop 's'.
  EXPECT_EQ(porter_stem("ßs"), "ßs");
}
