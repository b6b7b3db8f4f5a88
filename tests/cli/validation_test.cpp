// Validation at the edge: every number checked when parsed,
// numbers out of range in data named by file, line and field, empty or fully skipped inputs
// exit 3 "no valid items" everywhere, and --skip-invalid says what it skipped.
#include <gtest/gtest.h>

#include <fstream>

#include "cli_runner.hpp"
#include "test_paths.hpp"

namespace probity::test {
namespace {

std::string sample() {
  return data_path("summeval/summeval_sample20.jsonl");
}

TEST(Validation, MetricOptionsAreRangeCheckedWhenParsed) {
  struct Case {
    std::string metric, message;
  };
  for (const auto& c : std::vector<Case>{
           {"stmt-tv,k=-1", "option k=-1 must be in 1..1000"},
           {"stmt-tv,seed=-3", "option seed=-3 must be in 0.."},
           {"bleu:arg", "'bleu' takes no argument (':arg')"},
           {"bleu,smooth_value=nan", "smooth_value=nan is not a finite number"},
           {"bleu,smooth=floor,smooth_value=-5", "smooth_value=-5 must be in 0..1000000"},
           {"bleu,smooth=add-k,smooth_value=0", "smooth_value=0 must be positive"},
           {"bleu,k=4,k=8", "option 'k' is given twice"},
           {"stmt-tv,k=4,k=8", "option 'k' is given twice"},
           {"gem,folds=1", "option folds=1 must be in 2..16"},
           {"chrf,beta=-1", "option beta=-1 must be in 0..100"},
           {"gem,order=99999999999", "option order=99999999999 must be in 1..6"},
           {"gem,order=99999999999999999999", "is not an integer (out of range)"},
           // Every value is checked against the family's option table before the factory runs.
           {"bleu,tokenize=x",
            "option tokenize=x is not one of 13a, intl, none, zh, char, ja-mecab"},
           {"rougeL,multi=median", "option multi=median is not one of max, mean"},
           {"stmt-tv,critic=maybe", "option critic=maybe is not one of auto, binary, ordinal"},
           {"expert,agg=sum", "option agg=sum is not one of average, content, style, and, or"},
           {"gem,stem=perhaps", "option stem=perhaps is not a boolean"},
           {"llm-judge,samples=0", "option samples=0 must be in 1..64"},
           {"bleu,order=4", "unknown option 'order'"},
           // Found by fuzz_metric_spec: a component's own check used to escape as exit 1.
           {"gem,cache=ca0.5",
            "metric 'gem,cache=ca0.5': cache weight must be 'auto' or a "
            "number in [0, 1), got 'ca0.5'"},
           {"mi:kl/direct/token/ar,order=0", "option order=0 must be in 1..6"}}) {
    auto r = run_probity("score --data " + sample() + " --metric '" + c.metric + "'");
    EXPECT_EQ(r.exit_code, 2) << c.metric;
    EXPECT_NE(r.err.find(c.message), std::string::npos) << c.metric << ": " << r.err;
  }
}

TEST(Validation, CountsSeedsAndLevelsAreCheckedBeforeAnyWork) {
  for (const std::string flags : {"--seed -1", "--seed 18446744073709551616", "--sample -5",
                                  "--bootstrap 1.5", "--alpha 2", "--alpha 0", "--threads -2"}) {
    auto r =
        run_probity("audit --data " + sample() + " --metric bleu --out /nonexistent/x " + flags);
    EXPECT_EQ(r.exit_code, 2) << flags;
    EXPECT_NE(r.err.find(flags.substr(0, flags.find(' '))), std::string::npos) << r.err;
  }
  auto r = run_probity("correlate --data " + sample() + " --scores x --confidence 1");
  EXPECT_EQ(r.exit_code, 2);
}

// --lang was accepted whatever it said.
TEST(Validation, UnknownLanguagesAreUsageErrorsWithASuggestion) {
  for (const std::string command : {"perturb", "audit --metric bleu", "attack --metric bleu"}) {
    auto r = run_probity(command + " --data " + sample() + " --lang klingon --out /nonexistent/x");
    EXPECT_EQ(r.exit_code, 2) << command << ": " << r.err;
    EXPECT_NE(r.err.find("unknown language 'klingon'"), std::string::npos) << r.err;
  }
  auto r = run_probity("perturb --data " + sample() + " --lang german --out /nonexistent/x");
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_NE(r.err.find("did you mean 'de'?"), std::string::npos) << r.err;
}

// A value nested 100k levels deep crashed `score` (exit 139), in the task
// format and through --map alike.
TEST(Validation, DeepNestingExitsThreeNamingTheLine) {
  const std::string dir = temp_dir("deep-nesting");
  const std::string deep = std::string(100000, '[') + std::string(100000, ']');
  std::ofstream(dir + "/task.jsonl")
      << R"({"task_id": "t", "references": ["a b"], "candidates": [{"id": "c", "text": "a b", )"
      << R"("human": {"q": )" << deep << "}}]}\n";
  std::ofstream(dir + "/flat.jsonl")
      << R"({"id": "t", "pred": "a b", "ref": "a b", "score": )" << deep << "}\n";
  for (const std::string& args :
       {"--data " + dir + "/task.jsonl",
        "--data " + dir + "/flat.jsonl --map task=id,candidate=pred,reference=ref,human=score"}) {
    auto r = run_probity("score " + args + " --metric bleu --out " + dir + "/o.jsonl");
    EXPECT_EQ(r.exit_code, 3) << args << ": " << r.err;
    EXPECT_NE(r.err.find(".jsonl:1: malformed JSON"), std::string::npos) << r.err;
    EXPECT_NE(r.err.find("nested deeper than 128 levels"), std::string::npos) << r.err;
    EXPECT_LT(r.err.size(), 400u);
  }
  // A deep probity.toml: a usage error naming the file and line, not a crash in the parser.
  std::ofstream(dir + "/deep.toml")
      << "[llm.judge]\nextra_body = " << std::string(100000, '[') << "\n";
  auto r = run_probity("score --config " + dir + "/deep.toml --data " + sample() +
                       " --metric bleu --out " + dir + "/o.jsonl");
  EXPECT_EQ(r.exit_code, 2) << r.err;
  EXPECT_NE(r.err.find("deep.toml:2: "), std::string::npos) << r.err;
}

TEST(Validation, NumbersOutOfRangeInDataNameFileLineAndField) {
  const std::string dir = temp_dir("val-num");
  std::string line;
  {
    std::ifstream in(sample());
    std::getline(in, line);
  }
  const auto at = line.find("\"coherence\": [") + 14;
  std::ofstream(dir + "/big.jsonl") << line.substr(0, at) << "1e999, " << line.substr(at) << "\n";
  auto r = run_probity("score --data " + dir + "/big.jsonl --metric bleu");
  EXPECT_EQ(r.exit_code, 3);
  EXPECT_NE(r.err.find("big.jsonl:1: field 'coherence': number out of range: 1e999"),
            std::string::npos)
      << r.err;
  // The same in a scores file.
  std::ofstream(dir + "/s.jsonl") << "{\"task_id\": \"a\", \"candidate_id\": \"b\", \"metric\": "
                                     "\"m\", \"score\": -1e400}\n";
  r = run_probity("correlate --data " + sample() + " --scores " + dir + "/s.jsonl");
  EXPECT_EQ(r.exit_code, 3);
  EXPECT_NE(r.err.find("s.jsonl:1: field 'score': number out of range"), std::string::npos)
      << r.err;
}

// Reproduction 9: an empty or fully skipped input used to give "corpus 0.0000 n=0", exit 0.
TEST(Validation, EmptyOrFullySkippedInputsExitThreeEverywhere) {
  const std::string dir = temp_dir("val-empty");
  std::ofstream(dir + "/empty.jsonl") << "";
  std::ofstream(dir + "/bad.jsonl") << "{\"task_id\": 1}\n{\"task_id\": 2}\n";
  ASSERT_EQ(run_probity("score --data " + sample() + " --metric bleu --out " + dir + "/s.jsonl")
                .exit_code,
            0);
  for (const std::string data : {"empty.jsonl", "bad.jsonl --skip-invalid"}) {
    const std::string d = dir + "/" + data;
    for (const std::string& cmd : std::vector<std::string>{
             "score --metric bleu", "score --metric stmt-tv",
             "audit --metric bleu --out " + dir + "/a", "perturb --out " + dir + "/p.jsonl",
             "correlate --scores " + dir + "/s.jsonl", "select --metric bleu --metric chrf"}) {
      const auto space = cmd.find(' ');
      auto r = run_probity(cmd.substr(0, space) + " --data " + d + cmd.substr(space));
      EXPECT_EQ(r.exit_code, 3) << cmd << " on " << data << ": " << r.err;
      EXPECT_NE(r.err.find("no valid"), std::string::npos)
          << cmd << " on " << data << ": " << r.err;
    }
  }
  // What --skip-invalid left out is printed by every command, not only by score.
  std::string text;
  {
    std::ifstream in(sample());
    std::string l;
    while (std::getline(in, l)) text += l + "\n";
  }
  std::ofstream(dir + "/mixed.jsonl") << text << "{\"task_id\": 9}\n";
  for (const std::string& cmd : std::vector<std::string>{
           "audit --metric bleu --degrade S --manipulate none --bootstrap 10 --out " + dir + "/m",
           "perturb --degrade S --manipulate none --out " + dir + "/mp.jsonl",
           "select --metric bleu --metric chrf --bootstrap 10 --permutations 10"}) {
    const auto space = cmd.find(' ');
    auto r = run_probity(cmd.substr(0, space) + " --skip-invalid --data " + dir + "/mixed.jsonl" +
                         cmd.substr(space));
    EXPECT_EQ(r.exit_code, 0) << cmd << ": " << r.err;
    EXPECT_NE(r.err.find("skipped 1 invalid item(s):"), std::string::npos) << cmd << ": " << r.err;
    EXPECT_NE(r.err.find("mixed.jsonl:21:"), std::string::npos) << cmd << ": " << r.err;
  }
}

}  // namespace
}  // namespace probity::test
