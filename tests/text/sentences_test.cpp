#include <gtest/gtest.h>

#include "probity/text.hpp"

namespace {

using probity::text::split_sentences;
using V = std::vector<std::string>;

TEST(Sentences, SplitsOnTerminalPunctuation) {
  EXPECT_EQ(split_sentences("The cat sat. The dog ran! Did it? Yes."),
            (V{"The cat sat.", "The dog ran!", "Did it?", "Yes."}));
}

TEST(Sentences, AbbreviationsDoNotEndSentences) {
  EXPECT_EQ(split_sentences("Dr. Smith met Mr. Jones in the U.S. capital. They talked."),
            (V{"Dr. Smith met Mr. Jones in the U.S. capital.", "They talked."}));
  EXPECT_EQ(split_sentences("Use a fruit, e.g. an apple. Or not."),
            (V{"Use a fruit, e.g. an apple.", "Or not."}));
  EXPECT_EQ(split_sentences("Prof. Ada and J. K. Rowling spoke."),
            (V{"Prof. Ada and J. K. Rowling spoke."}));
}

TEST(Sentences, LineBreaksSeparate) {
  EXPECT_EQ(split_sentences("Summary\n- first point\n- second point"),
            (V{"Summary", "- first point", "- second point"}));
}

TEST(Sentences, TokenizedLowercaseText) {
  EXPECT_EQ(split_sentences("the team 's coach left . he was fired ."),
            (V{"the team 's coach left .", "he was fired ."}));
}

TEST(Sentences, EmptyAndWhitespace) {
  EXPECT_TRUE(split_sentences("").empty());
  EXPECT_TRUE(split_sentences("   \n ").empty());
  EXPECT_EQ(split_sentences("no terminal punctuation"), (V{"no terminal punctuation"}));
}

// Boundaries found in UTF-16 map back to the right bytes past one-, two-, three- and four-byte
// characters (an emoji is a surrogate pair in UTF-16).
TEST(Sentences, MultiByteCharactersKeepTheirBytes) {
  EXPECT_EQ(
      split_sentences("Caf\xC3\xA9 \xF0\x9F\x98\x80 opened. \xE2\x80\x9CYes,\xE2\x80\x9D she said! "
                      "\xE4\xBB\x8A\xE5\xA4\xA9\xE3\x80\x82\xE6\x98\x8E\xE5\xA4\xA9\xE3\x80\x82"),
      (V{"Caf\xC3\xA9 \xF0\x9F\x98\x80 opened.", "\xE2\x80\x9CYes,\xE2\x80\x9D she said!",
         "\xE4\xBB\x8A\xE5\xA4\xA9\xE3\x80\x82", "\xE6\x98\x8E\xE5\xA4\xA9\xE3\x80\x82"}));
}

// Ill-formed bytes come back as U+FFFD, as ICU's conversion writes them.
TEST(Sentences, IllFormedBytesBecomeReplacementCharacters) {
  EXPECT_EQ(split_sentences("Bad \xC3\x28 byte. Next one."),
            (V{"Bad \xEF\xBF\xBD( byte.", "Next one."}));
}

TEST(Unicode, Utf8Validation) {
  EXPECT_TRUE(probity::text::is_valid_utf8("plain ascii"));
  EXPECT_TRUE(probity::text::is_valid_utf8("caf\xC3\xA9 \xE2\x82\xAC \xF0\x9F\x98\x80"));
  EXPECT_FALSE(probity::text::is_valid_utf8("\xC3\x28"));          // bad continuation
  EXPECT_FALSE(probity::text::is_valid_utf8("\xC0\xAF"));          // overlong
  EXPECT_FALSE(probity::text::is_valid_utf8("\xED\xA0\x80"));      // surrogate
  EXPECT_FALSE(probity::text::is_valid_utf8("\xF4\x90\x80\x80"));  // > U+10FFFF
  EXPECT_FALSE(probity::text::is_valid_utf8("abc\xE2\x82"));       // truncated
}

TEST(Unicode, NormalizationAndCase) {
  EXPECT_EQ(probity::text::normalize_unicode("\xEF\xAC\x81"), "fi");            // ligature, NFKC
  EXPECT_EQ(probity::text::normalize_unicode("e\xCC\x81", false), "\xC3\xA9");  // NFC composes
  EXPECT_EQ(probity::text::to_lower("\xC3\x89T\xC3\x89"), "\xC3\xA9t\xC3\xA9");
  EXPECT_EQ(probity::text::to_lower("ASCII Only, 42!"), "ascii only, 42!");
  EXPECT_THROW(probity::text::normalize_unicode("\xC3\x28"), std::invalid_argument);
}

}  // namespace
