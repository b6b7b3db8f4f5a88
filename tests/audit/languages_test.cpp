// The audit reports a strategy without rules for the data's language as "n/a (language)", and
// --lang gives the language of tasks that do not name one.
#include <gtest/gtest.h>

#include <nlohmann/json.hpp>
#include <string>

#include "cli_runner.hpp"
#include "test_paths.hpp"

namespace {

nlohmann::json audit_german(const std::string& name, const std::string& extra) {
  const std::string out = probity::test::temp_dir(name);
  const auto r = probity::test::run_probity(
      "audit --data " + probity::test::golden_path("language/de_sample.jsonl") +
      " --metric bleu --degrade D,O,R --manipulate M,H --seed 3 --bootstrap 20 --out " + out +
      extra);
  EXPECT_EQ(r.exit_code, 0) << r.err;
  return nlohmann::json::parse(probity::test::read_text(out + "/report.json"));
}

std::string untestable(const nlohmann::json& report, const std::string& kind,
                       const std::string& code) {
  for (const auto& t : report["tests"])
    if (t["kind"] == kind && t["code"] == code) return t.value("untestable", std::string("?"));
  return "missing";
}

TEST(AuditLanguages, StrategiesWithoutTheLanguageAreNotApplicableForThatReason) {
  const auto report = audit_german("audit-lang-de", "");
  // Detected German: deletion & completion has no German rules; elongation and hedging have one.
  EXPECT_TRUE(untestable(report, "degradation", "D").starts_with("language (de: 24 of 24 items)"))
      << untestable(report, "degradation", "D");
  // Opinion flip has German antonyms and negation rules: applied, not n/a (language).
  EXPECT_FALSE(untestable(report, "degradation", "O").starts_with("language"));
  EXPECT_FALSE(untestable(report, "manipulation", "M").starts_with("language"));
  EXPECT_FALSE(untestable(report, "manipulation", "H").starts_with("language"));
  // --lang fills in tasks without a `lang` field: as French, no lexicon covers them.
  const auto french = audit_german("audit-lang-fr", " --lang fr");
  EXPECT_TRUE(untestable(french, "manipulation", "M").starts_with("language (fr"))
      << untestable(french, "manipulation", "M");
  EXPECT_FALSE(untestable(french, "degradation", "R").starts_with("language"));
}

}  // namespace
