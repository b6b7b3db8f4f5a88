// sacreBLEU 2.6.0's zh, char and ja-mecab tokenizers against its own outputs
// (tests/golden/lexical/tokenize_cjk.jsonl, written by tests/golden/gen/cjk_tokenizers.py).
#include <gtest/gtest.h>

#include <fstream>
#include <nlohmann/json.hpp>
#include <string>
#include <thread>
#include <vector>

#include "test_paths.hpp"
#include "text/tokenize_sacrebleu.hpp"

namespace {

using probity::text::tokenize_char;
using probity::text::tokenize_ja_mecab;
using probity::text::tokenize_zh;

std::vector<nlohmann::json> golden(const std::string& tok) {
  std::vector<nlohmann::json> out;
  std::ifstream in(probity::test::golden_path("lexical/tokenize_cjk.jsonl"));
  std::string line;
  while (std::getline(in, line)) {
    if (line.empty()) continue;
    auto j = nlohmann::json::parse(line);
    if (j["tok"] == tok) out.push_back(std::move(j));
  }
  return out;
}

std::string run(const std::string& tok, const std::string& in) {
  if (tok == "zh") return tokenize_zh(in);
  if (tok == "char") return tokenize_char(in);
  return tokenize_ja_mecab(in);
}

class CjkGolden : public testing::TestWithParam<const char*> {};

TEST_P(CjkGolden, MatchesSacrebleu) {
  const auto cases = golden(GetParam());
  ASSERT_EQ(cases.size(), 2000u);
  std::size_t wrong = 0;
  for (const auto& c : cases) {
    const std::string& in = c["in"].get_ref<const std::string&>();
    const std::string got = run(GetParam(), in);
    if (got != c["out"].get<std::string>() && ++wrong <= 5)
      ADD_FAILURE() << "in: " << in << "\nexpected: " << c["out"].get<std::string>()
                    << "\nactual:   " << got;
  }
  EXPECT_EQ(wrong, 0u);
}

// Test names may not hold '-'.
std::string tokenizer_test_name(const testing::TestParamInfo<const char*>& p) {
  return std::string(p.param) == "ja-mecab" ? std::string("ja_mecab") : std::string(p.param);
}

INSTANTIATE_TEST_SUITE_P(Tokenizers, CjkGolden, testing::Values("zh", "char", "ja-mecab"),
                         tokenizer_test_name);

TEST(TokenizeZh, HanSeparatedRestAsRegexpRules) {
  EXPECT_EQ(tokenize_zh("我们去北京。"), "我 们 去 北 京 。");
  EXPECT_EQ(tokenize_zh("  2023年，增长5.2%。 "), "2023 年 ， 增 长 5.2 % 。");
  // No 13a padding: a period opening or closing the line next to a digit stays attached.
  EXPECT_EQ(tokenize_zh(".5 and 5."), ".5 and 5.");
  // Nor 13a's entity and <skipped> replacements.
  EXPECT_EQ(tokenize_zh("&amp;<skipped>"), "& amp ; < skipped >");
  // sacreBLEU's range '\u20000'..'\u2a6d6' compares as U+2001..U+2A6D: punctuation such as the
  // em dash and the euro sign is split like Han; U+20000 itself is not.
  EXPECT_EQ(tokenize_zh("a—b€c"), "a — b € c");
  EXPECT_EQ(tokenize_zh("a\U00020000b"), "a\U00020000b");
  EXPECT_EQ(tokenize_zh(""), "");
}

TEST(TokenizeChar, EveryCharacter) {
  EXPECT_EQ(tokenize_char("ab 中"), "a b   中");
  EXPECT_EQ(tokenize_char(""), "");
}

TEST(TokenizeJaMecab, WakatiWithIpadic) {
  EXPECT_EQ(tokenize_ja_mecab(" すもももももももものうち。 "), "すもも も もも も もも の うち 。");
  EXPECT_EQ(probity::text::ja_mecab_signature(), "ja-mecab-0.996-IPA");
}

TEST(TokenizeJaMecab, ThreadsGetTheSameTokens) {
  const auto cases = golden("ja-mecab");
  std::vector<std::string> a(cases.size()), b(cases.size());
  auto work = [&](std::vector<std::string>& out) {
    for (std::size_t i = 0; i < cases.size(); ++i)
      out[i] = tokenize_ja_mecab(cases[i]["in"].get<std::string>());
  };
  std::thread t1(work, std::ref(a)), t2(work, std::ref(b));
  t1.join();
  t2.join();
  EXPECT_EQ(a, b);
  EXPECT_EQ(a.front(), cases.front()["out"].get<std::string>());
}

}  // namespace
