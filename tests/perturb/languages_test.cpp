// Strategies that know their language: German lexicons for the manipulations, "n/a (language)"
// where a strategy has no rules for the task's language, the task's `lang` field, and the
// surface report on a source in another language.
#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "perturb/perturb_fixtures.hpp"

namespace probity {
namespace {

using test::builtin_strategies;
using test::single_task;

const std::vector<std::string>& german_texts() {
  static const std::vector<std::string> texts = {
      "Die Stadt hat beschlossen, die Radwege auszubauen. Die Kosten sind sehr hoch, und das Land "
      "übernimmt einen Teil davon. Der Ausbau soll bis 2030 abgeschlossen sein.",
      "Das Hotel liegt direkt am Strand. Die Zimmer sind sauber und das Frühstück ist gut. Das "
      "Personal war immer freundlich."};
  return texts;
}

PerturbResult apply(StrategyKind kind, const std::string& code, const Dataset& ds,
                    std::size_t candidate = 0, std::uint64_t seed = 3) {
  return builtin_strategies().create(kind, code)->apply(PerturbContext{&ds, 0, candidate, seed});
}

std::vector<std::string> lex_adverbs_negative() {
  return {"leider", "bedauerlicherweise", "unglücklicherweise", "enttäuschenderweise",
          "beunruhigenderweise"};
}

bool contains_any(const std::string& text, std::initializer_list<const char*> words) {
  for (const char* w : words)
    if (text.find(w) != std::string::npos) return true;
  return false;
}

TEST(PerturbLanguages, TaskLanguageFromFieldOrDetector) {
  Dataset ds = single_task(german_texts());
  EXPECT_EQ(task_language(ds.tasks[0]), "de");
  ds.tasks[0].lang = "EN-us";
  EXPECT_EQ(task_language(ds.tasks[0]), "en");
  // Too little to tell in Latin script: English, as before the rules had other languages.
  EXPECT_EQ(task_language(single_task({"Good."}).tasks[0]), "en");
  EXPECT_EQ(task_language(single_task({"中国共产党"}).tasks[0]), "zh");
  Dataset fill = single_task(german_texts());
  set_default_language(fill, "fr");
  EXPECT_EQ(fill.tasks[0].lang, "fr");
  set_default_language(fill, "de");
  EXPECT_EQ(fill.tasks[0].lang, "fr");  // a task's own field wins
}

TEST(PerturbLanguages, StrategiesDeclareTheirLanguages) {
  const auto& r = builtin_strategies();
  auto langs = [&](StrategyKind kind, const char* code) {
    return r.create(kind, code)->languages();
  };
  using V = std::vector<std::string>;
  for (const char* code : {"R", "S", "P"}) EXPECT_EQ(langs(StrategyKind::kDegradation, code), V{});
  for (const char* code : {"D", "U"}) EXPECT_EQ(langs(StrategyKind::kDegradation, code), V{"en"});
  EXPECT_EQ(langs(StrategyKind::kDegradation, "O"), (V{"en", "de"}));
  EXPECT_EQ(langs(StrategyKind::kManipulation, "R"), V{"en"});
  for (const char* code : {"M", "P", "N", "H", "S"})
    EXPECT_EQ(langs(StrategyKind::kManipulation, code), (V{"en", "de"}));
  EXPECT_NE(r.create(StrategyKind::kManipulation, "M")->signature().find(":lang=en,de"),
            std::string::npos);
  EXPECT_NE(r.create(StrategyKind::kDegradation, "S")->signature().find(":lang=any"),
            std::string::npos);
}

TEST(PerturbLanguages, GermanElongationAppendsTheGermanFiller) {
  const Dataset ds = single_task(german_texts());
  const auto r = apply(StrategyKind::kManipulation, "M", ds);
  ASSERT_EQ(r.status, PerturbResult::Status::kApplied) << r.note;
  EXPECT_TRUE(r.text.starts_with(german_texts()[0]));
  EXPECT_NE(r.text.find("Insgesamt führt diese Zusammenfassung die oben besprochenen Hauptpunkte "
                        "zusammen."),
            std::string::npos)
      << r.text;
  EXPECT_EQ(r.text.find("Overall"), std::string::npos) << r.text;
}

TEST(PerturbLanguages, GermanHedgesAndShifts) {
  const Dataset ds = single_task(german_texts());
  for (std::size_t c = 0; c < german_texts().size(); ++c) {
    for (std::uint64_t seed : {1, 2, 3}) {
      const auto hedged = apply(StrategyKind::kManipulation, "H", ds, c, seed);
      ASSERT_EQ(hedged.status, PerturbResult::Status::kApplied) << hedged.note;
      EXPECT_TRUE(contains_any(hedged.text, {"vermutlich", "wahrscheinlich", "möglicherweise",
                                             " wohl ", "anscheinend", " recht ", " oft "}))
          << hedged.text;
      EXPECT_FALSE(contains_any(
          hedged.text, {"arguably", "it seems", "may be", "perhaps", "possibly", "somewhat"}))
          << hedged.text;
      const auto positive = apply(StrategyKind::kManipulation, "P", ds, c, seed);
      ASSERT_EQ(positive.status, PerturbResult::Status::kApplied) << positive.note;
      EXPECT_TRUE(contains_any(positive.text, {"Insgesamt ergibt sich", "Alles in allem",
                                               "Zusammengenommen", "Unterm Strich"}))
          << positive.text;
      EXPECT_FALSE(contains_any(positive.text, {"Overall", "impressive", "encouraging"}))
          << positive.text;
      const auto negative = apply(StrategyKind::kManipulation, "N", ds, c, seed);
      ASSERT_EQ(negative.status, PerturbResult::Status::kApplied) << negative.note;
      EXPECT_FALSE(contains_any(negative.text, {"Overall", "unfortunately", "troubling"}))
          << negative.text;
      const auto strong = apply(StrategyKind::kManipulation, "S", ds, c, seed);
      ASSERT_EQ(strong.status, PerturbResult::Status::kApplied) << strong.note;
      EXPECT_FALSE(contains_any(strong.text, {"extremely", "absolutely", "undeniably"}))
          << strong.text;
    }
  }
}

TEST(PerturbLanguages, GermanAdverbGoesAfterTheFiniteVerb) {
  const Dataset ds = single_task({"Das Frühstück ist reichhaltig. Heute ist es kalt."});
  for (std::uint64_t seed = 1; seed <= 5; ++seed) {
    const auto r = apply(StrategyKind::kManipulation, "N", ds, 0, seed);
    ASSERT_EQ(r.status, PerturbResult::Status::kApplied) << r.note;
    // "ist leider reichhaltig", "ist es leider kalt": never in front of the subject, and after
    // the pronoun that follows the verb.
    EXPECT_TRUE(r.text.starts_with("Das Frühstück ist ")) << r.text;
    EXPECT_TRUE(r.text.find("Heute ist es ") != std::string::npos) << r.text;
    bool placed = false;
    for (auto adverb : lex_adverbs_negative())
      placed |= r.text.find("Frühstück ist " + adverb + " reichhaltig") != std::string::npos ||
                r.text.find("ist es " + adverb + " kalt") != std::string::npos;
    EXPECT_TRUE(placed) << r.text;
  }
}

TEST(PerturbLanguages, GermanIntensifierKeepsTheInflection) {
  const Dataset ds = single_task({"Das war eine gute Entscheidung, und die Folgen sind groß."});
  bool seen = false;
  for (std::uint64_t seed = 1; seed < 20 && !seen; ++seed) {
    const auto r = apply(StrategyKind::kManipulation, "S", ds, 0, seed);
    ASSERT_EQ(r.status, PerturbResult::Status::kApplied) << r.note;
    seen = r.text.find("eine hervorragende Entscheidung") != std::string::npos;
  }
  EXPECT_TRUE(seen);
  // No softening under a negation: "nicht alle" stays.
  const Dataset negated = single_task({"Nicht alle Bürger sind damit einverstanden."});
  for (std::uint64_t seed = 1; seed < 6; ++seed) {
    const auto r = apply(StrategyKind::kManipulation, "H", negated, 0, seed);
    EXPECT_EQ(r.text.find("die meisten"), std::string::npos) << r.text;
  }
  // One degree word at a time: "sehr hoch" -> "äußerst hoch", never "äußerst extrem hoch".
  const Dataset high = single_task({"Die Kosten sind sehr hoch."});
  for (std::uint64_t seed = 1; seed < 10; ++seed) {
    const auto r = apply(StrategyKind::kManipulation, "S", high, 0, seed);
    EXPECT_EQ(r.text.find("äußerst extrem"), std::string::npos) << r.text;
  }
}

TEST(PerturbLanguages, LexiconStrategiesAreNotApplicableElsewhere) {
  const std::vector<std::pair<std::string, std::string>> samples = {
      {"zh", "中国共产党带领全国人民实现了从站起来、富起来到强起来的伟大飞跃。这是历史的选择。"},
      {"ja", "東京の天気は明日も晴れるでしょう。週末は雨が降るかもしれません。"},
      {"fr",
       "Le gouvernement a décidé que les impôts ne vont pas augmenter cette année. C'est une "
       "bonne nouvelle pour les ménages, mais les entreprises sont inquiètes."}};
  for (const auto& [lang, text] : samples) {
    const Dataset ds = single_task({text});
    for (const auto& [kind, code] :
         std::vector<std::pair<StrategyKind, std::string>>{{StrategyKind::kDegradation, "D"},
                                                           {StrategyKind::kDegradation, "U"},
                                                           {StrategyKind::kDegradation, "O"},
                                                           {StrategyKind::kManipulation, "R"},
                                                           {StrategyKind::kManipulation, "M"},
                                                           {StrategyKind::kManipulation, "P"},
                                                           {StrategyKind::kManipulation, "N"},
                                                           {StrategyKind::kManipulation, "H"},
                                                           {StrategyKind::kManipulation, "S"}}) {
      const auto r = apply(kind, code, ds);
      EXPECT_EQ(r.status, PerturbResult::Status::kNotApplicable) << lang << " " << code;
      EXPECT_TRUE(is_language_note(r.note)) << r.note;
      EXPECT_TRUE(r.text.empty());
    }
    // Language-independent: sentence deletion still applies.
    const auto s = apply(StrategyKind::kDegradation, "S", ds);
    EXPECT_NE(s.status, PerturbResult::Status::kNotApplicable) << lang << " " << s.note;
  }
  // German has no deletion-completion rules: n/a, not English function words.
  const auto d = apply(StrategyKind::kDegradation, "D", single_task(german_texts()));
  EXPECT_EQ(d.status, PerturbResult::Status::kNotApplicable);
  EXPECT_NE(d.note.find("German"), std::string::npos) << d.note;
}

TEST(PerturbLanguages, GermanOpinionFlipUsesGermanAntonymsAndNegation) {
  auto flip = [](const std::string& text) {
    Dataset ds = single_task({text});
    ds.tasks[0].lang = "de";
    return apply(StrategyKind::kDegradation, "O", ds);
  };
  // Antonyms with their inflection; a negation is removed instead (its clause only).
  auto r = flip(
      "Die Zimmer sind sauber und das Frühstück ist gut. Das Personal war nicht freundlich, "
      "aber die Lage ist hervorragend. Das ist keine gute Idee. Der Film gefällt mir nicht.");
  ASSERT_EQ(r.status, PerturbResult::Status::kApplied) << r.note;
  EXPECT_EQ(r.text,
            "Die Zimmer sind schmutzig und das Frühstück ist schlecht. Das Personal war "
            "freundlich, aber die Lage ist miserabel. Das ist eine gute Idee. Der Film gefällt "
            "mir.");
  EXPECT_EQ(flip("Ein schlechter Film mit vielen Vorteilen, aber schlechter als das Buch. Die "
                 "besten Szenen sind langweilig.")
                .text,
            "Ein guter Film mit vielen Nachteilen, aber besser als das Buch. Die schlechtesten "
            "Szenen sind spannend.");
  // "nicht nur ... sondern auch" is no verdict's negation; nothing evaluative: unchanged.
  EXPECT_EQ(flip("Das Hotel ist nicht nur sauber, sondern auch günstig.").text,
            "Das Hotel ist nicht nur schmutzig, sondern auch ungünstig.");
  const auto none = flip(
      "Die Stadt hat beschlossen, die Radwege auszubauen. Der Ausbau soll bis "
      "2030 abgeschlossen sein.");
  EXPECT_EQ(none.status, PerturbResult::Status::kUnchanged) << none.text;
  // Never English antonyms on German text.
  EXPECT_EQ(flip("Das Essen war gut.").text.find("bad"), std::string::npos);
}

TEST(PerturbLanguages, SurfaceReportNeedsTheSourceInTheCandidatesLanguage) {
  // A German-English translation task: the source is the German original.
  const std::string source =
      "Die Stadt Köln hat am Montag beschlossen, den Ausbau der Radwege bis 2030 zu verdoppeln. "
      "Die Kosten von rund 80 Millionen Euro sollen zum Teil vom Land getragen werden.";
  Dataset ds =
      single_task({"The city of Cologne decided on Monday to double its cycle lanes by "
                   "2030. The state is to pay part of the cost of about 80 million euros."},
                  source, "news");
  const auto r = apply(StrategyKind::kDegradation, "P", ds);
  EXPECT_EQ(r.status, PerturbResult::Status::kNotApplicable);
  EXPECT_TRUE(is_language_note(r.note)) << r.note;
  EXPECT_NE(r.note.find("German"), std::string::npos) << r.note;
  // A German summary of the same source is rebuilt from it, in German.
  Dataset de = single_task({"Köln will die Radwege bis 2030 verdoppeln. Das Land zahlt mit."},
                           source, "news");
  const auto p = apply(StrategyKind::kDegradation, "P", de);
  EXPECT_EQ(p.status, PerturbResult::Status::kApplied) << p.note;
  EXPECT_NE(p.text.find("Köln"), std::string::npos) << p.text;
}

TEST(PerturbLanguages, OpinionFlipLeavesNeutralLikeAlone) {
  for (const char* text :
       {"I would like to know more about the baselines.", "I'd like a second experiment.",
        "It looks like a strong result.", "They, like us, ran the code."}) {
    const auto r = test::degrade("O", text);
    EXPECT_EQ(r.text.find("dislike"), std::string::npos) << text << " -> " << r.text;
  }
  EXPECT_NE(test::degrade("O", "I like this paper.").text.find("dislike"), std::string::npos);
  EXPECT_NE(test::degrade("O", "They really liked the hotel.").text.find("disliked"),
            std::string::npos);
}

}  // namespace
}  // namespace probity
