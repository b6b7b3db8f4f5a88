#include "perturb/lexicon.hpp"

#include <gtest/gtest.h>

#include <cstdlib>
#include <string>
#include <thread>
#include <tuple>
#include <utility>
#include <vector>

#include "cli_runner.hpp"
#include "test_paths.hpp"

namespace {

namespace lex = probity::perturb::lex;
using lex::Pos;

// The lexicon's WordNet answers as they were when it read synsets through libwordnet (the
// perturbations' outputs depend on them byte for byte).

TEST(LexiconWordNet, FlipsEvaluativesByTheirDirectAntonym) {
  const std::vector<std::pair<std::string, std::string>> flips = {
      {"comfortable", "uncomfortable"},
      {"convenient", "inconvenient"},
      {"polite", "impolite"},
      {"stable", "unstable"},
      {"valid", "invalid"},
      {"mature", "immature"},
      {"rational", "irrational"},
      {"logical", "illogical"},
      {"practical", "impractical"},
      {"realistic", "unrealistic"},
      {"loyal", "disloyal"},
      {"ethical", ""},  // its first sense has no direct antonym
      {"moral", "immoral"},
      {"healthy", "unhealthy"},
      {"kind", "unkind"},
      {"generous", "stingy"},
      {"sensible", ""},
      {"tolerant", "intolerant"},
      {"patient", "impatient"},
      {"modest", "immodest"},
      {"decent", ""},
      {"pure", "impure"},
      {"grateful", "ungrateful"},
      {"faithful", "unfaithful"},
      {"attractive", "unattractive"},
      {"comprehensible", "incomprehensible"},
      {"tidy", "untidy"},
      {"wholesome", "unwholesome"},
      {"desirable", "undesirable"},
      {"sane", "insane"},
      {"excellent", "poor"},  // curated
      {"happy", "unhappy"},   // curated, though WordNet has it too
      {"unhappy", "happy"},
      {"wicked", ""},  // not an evaluative of the list
  };
  for (const auto& [word, antonym] : flips) EXPECT_EQ(lex::flip_antonym(word), antonym) << word;
}

TEST(LexiconWordNet, SynonymsOfFrequentFirstSensesAreReinflected) {
  const std::vector<std::tuple<std::string, Pos, std::string>> synonyms = {
      {"attorney", Pos::kNoun, "lawyer"},
      {"amounts", Pos::kNoun, "sums"},
      {"sums", Pos::kNoun, "amounts"},
      {"colleague", Pos::kNoun, "co-worker"},
      {"girl", Pos::kNoun, ""},  // "miss" is too rare in SemCor
      {"recalling", Pos::kVerb, "remembering"},
      {"goes", Pos::kVerb, "moves"},
      {"met", Pos::kVerb, "encountered"},
      {"little", Pos::kAdj, "small"},
      {"barely", Pos::kAdv, "hardly"},
      {"dog", Pos::kNoun, ""},  // "domestic_dog" and "Canis_familiaris" are not plain words
      {"the", Pos::kNoun, ""},
  };
  for (const auto& [word, pos, synonym] : synonyms)
    EXPECT_EQ(lex::wordnet_synonym(word, pos), synonym) << word;
}

TEST(LexiconWordNet, WordClassesAndCommonWords) {
  auto classes = [](const std::string& w) {
    const auto c = lex::word_classes(w);
    return std::string{c.noun ? 'n' : '-', c.verb ? 'v' : '-', c.adj ? 'a' : '-',
                       c.adv ? 'r' : '-'};
  };
  EXPECT_EQ(classes("house"), "nv--");
  EXPECT_EQ(classes("little"), "n-ar");
  EXPECT_EQ(classes("went"), "-v--");
  EXPECT_EQ(classes("is"), "-v--");  // not a plural of the noun "i"
  EXPECT_EQ(classes("as"), "n--r");
  EXPECT_EQ(classes("comics"), "n---");
  EXPECT_EQ(classes(""), "----");
  EXPECT_TRUE(lex::is_common_word("house"));
  EXPECT_TRUE(lex::is_common_word("us"));
  EXPECT_FALSE(lex::is_common_word("jacksonville"));  // a name: no SemCor count
  EXPECT_FALSE(lex::is_common_word("comics"));        // judged by "comic_strip"
}

TEST(LexiconWordNet, AnswersTheSameFromManyThreads) {
  const std::vector<std::string> words = {"attorney", "amounts",     "recalling", "little",
                                          "barely",   "comfortable", "house",     "goes"};
  std::vector<std::string> expected;
  for (const auto& w : words)
    expected.push_back(lex::wordnet_synonym(w, Pos::kNoun) + lex::wordnet_synonym(w, Pos::kVerb) +
                       lex::wordnet_synonym(w, Pos::kAdj) + lex::wordnet_synonym(w, Pos::kAdv) +
                       lex::flip_antonym(w));
  std::vector<int> mismatches(4, 0);
  std::vector<std::thread> threads;
  for (int t = 0; t < 4; ++t)
    threads.emplace_back([&, t] {
      for (int round = 0; round < 200; ++round)
        for (std::size_t i = 0; i < words.size(); ++i) {
          const auto& w = words[i];
          const std::string got = lex::wordnet_synonym(w, Pos::kNoun) +
                                  lex::wordnet_synonym(w, Pos::kVerb) +
                                  lex::wordnet_synonym(w, Pos::kAdj) +
                                  lex::wordnet_synonym(w, Pos::kAdv) + lex::flip_antonym(w);
          mismatches[t] += got != expected[i];
        }
    });
  for (auto& th : threads) th.join();
  for (int m : mismatches) EXPECT_EQ(m, 0);
}

// Without the database the strategies that ask WordNet fail with a clear error, instead of
// quietly writing other texts; the others still run.
TEST(LexiconWordNet, MissingDatabaseFailsTheStrategiesThatNeedIt) {
  const std::string data = probity::test::data_path("summeval/summeval_sample20.jsonl");
  const std::string out = probity::test::temp_dir("lexicon-no-wordnet") + "/perturbed.jsonl";
  // The child inherits the variable; this process has its database (or reads it after unset).
  ::setenv("WNSEARCHDIR", "/nonexistent", 1);
  const auto r = probity::test::run_probity("perturb --data " + data +
                                            " --degrade O,S --manipulate R --seed 0 --out " + out +
                                            " --threads 2");
  ::unsetenv("WNSEARCHDIR");
  EXPECT_EQ(r.exit_code, 0) << r.out << r.err;
  const std::string all = r.out + r.err;
  EXPECT_NE(all.find("rephrase: WordNet 3.0 data not found (install wordnet-base or set "
                     "WNSEARCHDIR)"),
            std::string::npos)
      << all;
  EXPECT_EQ(all.find("sentence-deletion: WordNet"), std::string::npos) << all;
}

}  // namespace
