// The stopword-profile language detector (text/language.hpp), and its accuracy per task on the
// bundled datasets and a German sample (tests/golden/language/de_sample.jsonl).
#include "text/language.hpp"

#include <fmt/format.h>
#include <gtest/gtest.h>

#include <string>
#include <string_view>
#include <vector>

#include "probity/dataset.hpp"
#include "probity/error.hpp"
#include "probity/perturb.hpp"
#include "test_paths.hpp"

namespace {

using probity::text::detect_language;

std::string detect(std::string_view text) {
  return detect_language(text).code;
}

TEST(LanguageDetector, LatinScriptProfiles) {
  EXPECT_EQ(detect("The committee said that the plan would be ready by the end of the year."),
            "en");
  EXPECT_EQ(
      detect("Die Regierung hat beschlossen, dass die Steuern im nächsten Jahr nicht steigen."),
      "de");
  EXPECT_EQ(detect("Le gouvernement a décidé que les impôts ne vont pas augmenter cette année."),
            "fr");
  EXPECT_EQ(detect("El gobierno ha decidido que los impuestos no van a subir este año."), "es");
  EXPECT_EQ(detect("Il governo ha deciso che le tasse non aumenteranno per tutto l'anno."), "it");
  EXPECT_EQ(detect("De regering heeft besloten dat de belastingen dit jaar niet omhoog gaan."),
            "nl");
  EXPECT_EQ(detect("O governo decidiu que os impostos não vão subir este ano, mas depois sim."),
            "pt");
}

TEST(LanguageDetector, Scripts) {
  EXPECT_EQ(detect("中国共产党带领全国人民实现了中华民族的伟大飞跃。"), "zh");
  EXPECT_EQ(detect("東京の天気は明日も晴れるでしょう。"), "ja");
  EXPECT_EQ(detect("서울의 날씨는 내일도 맑겠습니다."), "ko");
  EXPECT_EQ(detect("Правительство решило не повышать налоги."), "ru");
  EXPECT_FALSE(detect_language("中国共产党").latin);
}

TEST(LanguageDetector, TooLittleEvidenceIsUndetermined) {
  EXPECT_EQ(detect("Good."), "");
  EXPECT_EQ(detect("Berlin, Paris, Rom"), "");
  EXPECT_EQ(detect(""), "");
  EXPECT_TRUE(detect_language("12345").latin);
}

TEST(LanguageDetector, PrimaryLanguage) {
  EXPECT_EQ(probity::text::primary_language("de-AT"), "de");
  EXPECT_EQ(probity::text::primary_language("EN_gb"), "en");
  EXPECT_EQ(probity::text::primary_language("zh"), "zh");
  EXPECT_EQ(probity::text::language_name("de"), "German");
}

// `--lang klingon` was accepted and made every rule not applicable.
TEST(LanguageDetector, UnknownLanguagesAreNamedWithNearMisses) {
  using probity::text::unknown_language;
  for (const char* known : {"de", "de-AT", "EN_gb", "zh-Hant", "pt"})
    EXPECT_FALSE(unknown_language(known).has_value()) << known;
  const auto klingon = unknown_language("klingon");
  ASSERT_TRUE(klingon.has_value());
  EXPECT_NE(klingon->find("unknown language 'klingon'"), std::string::npos) << *klingon;
  EXPECT_NE(klingon->find("en, es, fr"), std::string::npos) << *klingon;
  EXPECT_EQ(klingon->find("did you mean"), std::string::npos) << *klingon;
  EXPECT_NE(unknown_language("German")->find("did you mean 'de'?"), std::string::npos);
  EXPECT_NE(unknown_language("eng")->find("did you mean 'en'?"), std::string::npos);
  EXPECT_TRUE(unknown_language("xx").has_value());
  // The library checks what the command line checks (Python passes lang= here too).
  auto ds = probity::parse_dataset(
      R"({"task_id": "t", "references": ["a"], "candidates": [{"id": "c", "text": "b"}]})",
      "t.jsonl");
  EXPECT_THROW(probity::set_default_language(ds, "klingon"), probity::UsageError);
  EXPECT_TRUE(ds.tasks[0].lang.empty());
  probity::set_default_language(ds, "de-AT");
  EXPECT_EQ(ds.tasks[0].lang, "de-AT");
}

// Per-task accuracy of task_language() on whole datasets (no `lang` fields, so all detected).
struct Accuracy {
  std::size_t right = 0, total = 0;
};

Accuracy accuracy(const std::string& path, const std::string& expected) {
  const auto ds = probity::load_dataset(path);
  Accuracy a;
  for (const auto& task : ds.tasks) {
    ++a.total;
    const std::string got = probity::task_language(task);
    if (got == expected)
      ++a.right;
    else
      ADD_FAILURE() << path << " task " << task.task_id << ": " << got;
  }
  std::cout << fmt::format("{}: {}/{} tasks detected as {}\n", path, a.right, a.total, expected);
  return a;
}

TEST(LanguageDetector, TaskAccuracyOnTheDatasets) {
  using probity::test::data_path;
  for (const char* file :
       {"summeval/summeval.jsonl", "newsroom_human_eval/newsroom_human_eval.jsonl",
        "topical_chat_usr/topical_chat_usr.jsonl", "dialsummeval/dialsummeval.jsonl",
        "lfqa_e/lfqa_e_en_sample.jsonl"})
    accuracy(data_path(file), "en");
  accuracy(data_path("lfqa_e/lfqa_e_zh.jsonl"), "zh");
  accuracy(probity::test::golden_path("language/de_sample.jsonl"), "de");
}

// The detector alone on each German candidate and reference (short texts, one at a time).
TEST(LanguageDetector, GermanSampleTextByText) {
  const auto ds = probity::load_dataset(probity::test::golden_path("language/de_sample.jsonl"));
  std::size_t right = 0, total = 0;
  for (const auto& task : ds.tasks) {
    std::vector<std::string_view> texts;
    for (const auto& r : task.references) texts.push_back(r.text);
    for (const auto& c : task.candidates) texts.push_back(c.text);
    for (auto t : texts) {
      ++total;
      const std::string got = detect(t);
      if (got == "de")
        ++right;
      else
        EXPECT_EQ(got, "") << t;  // undetermined at worst, never another language
    }
  }
  std::cout << fmt::format("German sample, text by text: {}/{} detected as de\n", right, total);
  EXPECT_GE(right * 10, total * 9);
}

}  // namespace
