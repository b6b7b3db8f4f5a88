// sacreBLEU's 13a and intl tokenizers on hand-checked inputs (the golden BLEU tests check them
// on 312 more texts through the BLEU statistics).
#include "text/tokenize_sacrebleu.hpp"

#include <gtest/gtest.h>

#include <fstream>
#include <nlohmann/json.hpp>
#include <string>
#include <string_view>
#include <vector>

#include "probity/text.hpp"
#include "test_paths.hpp"

namespace {

using probity::text::split_whitespace;
using probity::text::tokenize_13a;
using probity::text::tokenize_intl;

TEST(Tokenize13a, PunctuationAndNumbers) {
  EXPECT_EQ(tokenize_13a("Hello, world! It costs $3.50."), "Hello , world ! It costs $ 3.50 .");
  EXPECT_EQ(tokenize_13a("1,000,000 people"), "1,000,000 people");
  EXPECT_EQ(tokenize_13a("In 1990-2000 a well-known man"), "In 1990 - 2000 a well-known man");
  EXPECT_EQ(tokenize_13a("The U.S. economy"), "The U . S . economy");
  EXPECT_EQ(tokenize_13a("Dep't (x) [y] {z} a/b c:d e;f"),
            "Dep't ( x ) [ y ] { z } a / b c : d e ; f");
  EXPECT_EQ(tokenize_13a("year 2014."), "year 2014 .");
  EXPECT_EQ(tokenize_13a(".5 and 5. and .x"), ". 5 and 5 . and . x");
}

TEST(Tokenize13a, RunsOfPeriods) {
  // re.sub does not overlap matches: in "a..." only every other period gets its own spaces from
  // the first rule; the second rule separates the rest.
  EXPECT_EQ(tokenize_13a("wait..."), "wait . . .");
  EXPECT_EQ(tokenize_13a("3..4"), "3 . . 4");
  EXPECT_EQ(tokenize_13a("a,.b"), "a , . b");
}

TEST(Tokenize13a, LanguageIndependentPart) {
  EXPECT_EQ(tokenize_13a("a<skipped>b"), "ab");
  EXPECT_EQ(tokenize_13a("hyphen-\nated\nline"), "hyphenated line");
  EXPECT_EQ(tokenize_13a("&quot;hi&quot; &amp; &lt;b&gt;"), "\" hi \" & < b >");
  // Replacements run one after the other, as str.replace calls do.
  EXPECT_EQ(tokenize_13a("&amp;lt;"), "<");
  EXPECT_EQ(tokenize_13a("&amp;quot;"), "& quot ;");
}

TEST(Tokenize13a, Whitespace) {
  EXPECT_EQ(tokenize_13a(""), "");
  EXPECT_EQ(tokenize_13a("  \t "), "");
  EXPECT_EQ(tokenize_13a("a\tb\u00a0c\u3000d\u2009e"), "a b c d e");
  // U+200B is not whitespace for Python.
  EXPECT_EQ(tokenize_13a("a\u200bb"), "a\u200bb");
}

TEST(Tokenize13a, NonAscii) {
  EXPECT_EQ(tokenize_13a("Ça coûte 12€ — très cher!"), "Ça coûte 12€ — très cher !");
  EXPECT_EQ(tokenize_13a("é.ü,x"), "é . ü , x");
}

TEST(TokenizeIntl, UnicodePunctuationAndSymbols) {
  EXPECT_EQ(tokenize_intl("Hello, world! It costs $3.50."), "Hello , world ! It costs $ 3.50.");
  EXPECT_EQ(tokenize_intl("東京は日本の首都です。"), "東京は日本の首都です 。");
  EXPECT_EQ(tokenize_intl("«Bonjour», dit-il…"), "« Bonjour » , dit - il …");
  EXPECT_EQ(tokenize_intl("Ça coûte 12€ — très cher!"), "Ça coûte 12 € — très cher !");
  EXPECT_EQ(tokenize_intl("1,000 and 2014."), "1,000 and 2014.");
  EXPECT_EQ(tokenize_intl("a+b=c ©2020"), "a + b = c © 2020");
  EXPECT_EQ(tokenize_intl("¿Qué? ¡Sí!"), "¿ Qué ? ¡ Sí !");
}

TEST(TokenizeIntl, WhitespaceAndInvalidBytes) {
  EXPECT_EQ(tokenize_intl(" a \u3000 b "), "a b");
  EXPECT_EQ(tokenize_intl(""), "");
  EXPECT_EQ(tokenize_intl(std::string("a\xff,b")), std::string("a\xff , b"));
}

TEST(Tokenize13a, SplitWhitespaceOnSpaces) {
  EXPECT_EQ(split_whitespace("  a b  c "), (std::vector<std::string_view>{"a", "b", "c"}));
  EXPECT_TRUE(split_whitespace("").empty());
}

// sacreBLEU 2.6.0's Tokenizer13a on 3,000 random texts (tests/golden/lexical/tokenize_13a.jsonl,
// gen/tokenize_13a.py) that put every rule at every offset of the 16-byte stretches; the token
// offsets of tokenize_13a_into (what BLEU reads) split the same text.
TEST(Tokenize13a, RandomTextsAsSacreBleu) {
  std::ifstream in(probity::test::golden_path("lexical/tokenize_13a.jsonl"));
  probity::text::TokenizedLine line;
  std::size_t n = 0;
  for (std::string text; std::getline(in, text); ++n) {
    const auto c = nlohmann::json::parse(text);
    const std::string input = c["in"], want = c["out"];
    ASSERT_EQ(tokenize_13a(input), want) << input;
    probity::text::tokenize_13a_into(input, line);
    ASSERT_EQ(line.text, want) << input;
    const auto tokens = split_whitespace(want);
    ASSERT_EQ(line.count, tokens.size()) << input;
    for (std::size_t k = 0; k < tokens.size(); ++k) ASSERT_EQ(line.token(k), tokens[k]) << input;
  }
  EXPECT_EQ(n, 3000u);
}

}  // namespace
