// Every numeric option of every command rejects NaN,
// infinities, overflow and values past its maximum with a usage error that names it in a short
// message. The options come from the tool's own man page, so a new option is covered as soon as
// it exists.
#include <gtest/gtest.h>

#include <regex>
#include <sstream>

#include "cli_runner.hpp"
#include "test_paths.hpp"

namespace probity::test {
namespace {

struct NumericOption {
  std::string command;  // "attack", "meta global"
  std::string name;     // "--budget"
  std::string type;     // UINT, INT or FLOAT
};

std::string unescape(std::string s) {
  for (std::size_t at = s.find("\\-"); at != std::string::npos; at = s.find("\\-", at))
    s.erase(at, 1);
  return s;
}

std::vector<NumericOption> numeric_options() {
  const auto man = run_probity("man");
  EXPECT_EQ(man.exit_code, 0);
  static const std::regex section(R"re(^\.SS "probity (.*)"$)re");
  static const std::regex option(R"(\\fB((?:\\-)+[a-z\\-]+)\\fR \\fI(UINT|INT|FLOAT)\\fR)");
  std::vector<NumericOption> out;
  std::string command;
  std::istringstream lines(man.out);
  for (std::string line; std::getline(lines, line);) {
    std::smatch m;
    if (line.starts_with(".SH")) command.clear();
    if (std::regex_match(line, m, section)) command = unescape(m[1]);
    if (!command.empty() && std::regex_search(line, m, option))
      out.push_back({command, unescape(m[1]), m[2]});
  }
  return out;
}

TEST(NumericOptions, EveryOneRejectsNanInfinityOverflowAndNegativeCounts) {
  const auto options = numeric_options();
  // The man page parses: the counts of the issue's reproductions are among the options.
  const auto has = [&](const std::string& command, const std::string& name) {
    return std::any_of(options.begin(), options.end(), [&](const NumericOption& o) {
      return o.command == command && o.name == name;
    });
  };
  ASSERT_TRUE(has("attack", "--budget"));
  ASSERT_TRUE(has("significance", "--paired-bs-n"));
  ASSERT_TRUE(has("score", "--max-failed"));
  ASSERT_TRUE(has("meta global", "--max-spread"));
  ASSERT_GT(options.size(), 50u);
  for (const auto& o : options) {
    std::vector<std::string> values = {"nan", "inf", "-inf", "1e999"};
    // Counts: past 2^64 - 1 and below 0 (a real threshold may take a large finite number).
    if (o.type != "FLOAT") values.insert(values.end(), {"99999999999999999999", "-1"});
    for (const auto& v : values) {
      // "--name=value": a value starting with '-' would otherwise read as a flag.
      const auto r = run_probity(o.command + " " + o.name + "=" + v);
      const std::string what = "probity " + o.command + " " + o.name + "=" + v;
      EXPECT_EQ(r.exit_code, 2) << what << ": " << r.err;
      const std::string first = r.err.substr(0, r.err.find('\n'));
      EXPECT_NE(first.find(o.name + ": "), std::string::npos) << what << ": " << r.err;
      EXPECT_LT(first.size(), 120u) << what << ": " << first;
    }
  }
}

TEST(NumericOptions, MessagesSayWhatIsWrongInAFewWords) {
  auto r = run_probity("attack --budget 99999999999999999999");
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_NE(r.err.find("--budget: 99999999999999999999 is more than the maximum 1000000"),
            std::string::npos)
      << r.err;
  r = run_probity("attack --budget 0");
  EXPECT_NE(r.err.find("--budget: 0 is less than the minimum 1"), std::string::npos) << r.err;
  r = run_probity("score --max-unparsed nan");
  EXPECT_NE(r.err.find("--max-unparsed: nan is not a number"), std::string::npos) << r.err;
  r = run_probity("rank --alpha 1");
  EXPECT_NE(r.err.find("--alpha: 1 must be less than 1"), std::string::npos) << r.err;
  // No permutation is a usage error, not an internal one.
  for (const std::string command : {"compare", "rank", "audit", "select"}) {
    r = run_probity(command + " --permutations 0");
    EXPECT_EQ(r.exit_code, 2) << command << ": " << r.err;
  }
}

// The message says what is wrong.
TEST(NumericOptions, CompareNamesAMetricGivenTwice) {
  const std::string dir = temp_dir("cmp-twice");
  const std::string data = data_path("summeval/summeval_sample20.jsonl");
  ASSERT_EQ(
      run_probity("score -q --data " + data + " --metric bleu --out " + dir + "/s.jsonl").exit_code,
      0);
  const auto r = run_probity("compare --data " + data + " --scores " + dir +
                             "/s.jsonl --metric bleu --metric bleu");
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_NE(r.err.find("--metric bleu is given twice"), std::string::npos) << r.err;
}

TEST(NumericOptions, CacheResumeHintOnlyWithACache) {
  const std::string dir = temp_dir("cache-hint");
  const std::string cmd = "score -q --data " + data_path("summeval/summeval_sample20.jsonl") +
                          " --metric llm-judge --llm-base-url http://127.0.0.1:1/v1 --llm-model m";
  auto r = run_probity(cmd + " > /dev/null");
  EXPECT_EQ(r.exit_code, 5) << r.err;
  EXPECT_EQ(r.err.find("LLM cache"), std::string::npos) << r.err;
  r = run_probity(cmd + " --cache " + dir + "/c.sqlite > /dev/null");
  EXPECT_EQ(r.exit_code, 5) << r.err;
  EXPECT_NE(r.err.find("are in the LLM cache (--cache)"), std::string::npos) << r.err;
}

}  // namespace
}  // namespace probity::test
