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
  EXPECT_THROW(probity::text::normalize_unicode("\xC3\x28"), std::invalid_argument);
}

}  // namespace
