#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "probity/mi.hpp"

namespace {

using probity::mi::decompose_statements;
using V = std::vector<std::string>;

TEST(Statements, SentencesBecomeStatements) {
  EXPECT_EQ(decompose_statements("The council approved the new budget. Taxes will rise next year."),
            (V{"The council approved the new budget.", "Taxes will rise next year."}));
}

TEST(Statements, CoordinatedClausesSplit) {
  EXPECT_EQ(decompose_statements("The coach resigned on Monday, and the owner sold the team."),
            (V{"The coach resigned on Monday", "the owner sold the team."}));
  EXPECT_EQ(decompose_statements("Prices rose sharply in March, but wages stayed flat."),
            (V{"Prices rose sharply in March", "wages stayed flat."}));
  EXPECT_EQ(decompose_statements("The striker scored twice while the keeper saved a penalty."),
            (V{"The striker scored twice", "the keeper saved a penalty."}));
}

TEST(Statements, NounListsStayTogether) {
  EXPECT_EQ(decompose_statements("She bought a Ferrari, two Bentleys, and a Range Rover."),
            (V{"She bought a Ferrari, two Bentleys, and a Range Rover."}));
}

TEST(Statements, SubjectCarriedToVerbInitialClause) {
  EXPECT_EQ(decompose_statements("The player left the club in June, and joined a rival team."),
            (V{"The player left the club in June", "The player joined a rival team."}));
}

TEST(Statements, SemicolonsSplit) {
  EXPECT_EQ(decompose_statements(
                "The museum reopened after repairs; however, the east wing stays closed."),
            (V{"The museum reopened after repairs", "the east wing stays closed."}));
}

TEST(Statements, RelativeClauseCarriesAntecedent) {
  EXPECT_EQ(decompose_statements("Donald Sterling, who owned the Clippers, was banned for life."),
            (V{"Donald Sterling was banned for life.", "Donald Sterling owned the Clippers"}));
  EXPECT_EQ(decompose_statements(
                "The study was led by the former research director, who retired in 2019."),
            (V{"The study was led by the former research director",
               "the former research director retired in 2019."}));
}

TEST(Statements, QuestionsGreetingsAndHeadersDropped) {
  EXPECT_EQ(decompose_statements("Hi there! Who is V. Stiviano? The judge ordered her to pay back "
                                 "the gifts.\nKey findings:\n- \n"),
            (V{"The judge ordered her to pay back the gifts."}));
}

TEST(Statements, BulletMarkersStrippedButInitialsKept) {
  EXPECT_EQ(
      decompose_statements("- The committee approved the plan.\n2) Taxes will rise next year."),
      (V{"The committee approved the plan.", "Taxes will rise next year."}));
  EXPECT_EQ(decompose_statements("V. Stiviano must pay back $2.6 million in gifts."),
            (V{"V. Stiviano must pay back $2.6 million in gifts."}));
  EXPECT_EQ(decompose_statements("( cnn ) a fiery sunset greeted people in washington sunday ."),
            (V{"( cnn ) a fiery sunset greeted people in washington sunday ."}));
}

TEST(Statements, ShortFragmentsDroppedUnlessTextIsShort) {
  EXPECT_EQ(decompose_statements("Great. The committee rejected the proposal on Friday."),
            (V{"The committee rejected the proposal on Friday."}));
  EXPECT_EQ(decompose_statements("He resigned."), (V{"He resigned."}));
  EXPECT_EQ(decompose_statements("Why?"), (V{"Why?"}));
}

TEST(Statements, AtLeastOneForNonEmptyText) {
  EXPECT_TRUE(decompose_statements("").empty());
  EXPECT_TRUE(decompose_statements("  \n ").empty());
  for (const char* text : {"ok", "...", "Thanks!", "- a", "Yes, and no.", "What happened?"})
    EXPECT_GE(decompose_statements(text).size(), 1u) << text;
}

TEST(Statements, TokenizedLowercaseText) {
  EXPECT_EQ(decompose_statements("the team 's coach left , and he was fired ."),
            (V{"the team 's coach left", "he was fired ."}));
  EXPECT_EQ(decompose_statements(
                "donald sterling , who owned the clippers , was banned . who is v. stiviano ? ."),
            (V{"donald sterling was banned .", "donald sterling owned the clippers"}));
  EXPECT_EQ(decompose_statements("the museum reopened after repairs ; however , the east wing "
                                 "stays closed ."),
            (V{"the museum reopened after repairs", "the east wing stays closed ."}));
}

TEST(Statements, Deterministic) {
  const std::string text =
      "V. Stiviano must pay back $2.6 million in gifts from Donald Sterling. Sterling's wife "
      "claimed the ex-Clippers owner used the couple's money for the gifts, and the items "
      "included a Ferrari, two Bentleys and a Range Rover.";
  const auto first = decompose_statements(text);
  EXPECT_EQ(first, decompose_statements(text));
  EXPECT_EQ(first.size(), 3u);
}

}  // namespace
