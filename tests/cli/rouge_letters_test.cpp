// `probity score` warns when rouge-score's default tokenizer (ASCII letters and digits only)
// drops a meaningful share of the letters of the texts it scores, and suggests tokenizer=unicode.
#include "text/rouge_letters.hpp"

#include <gtest/gtest.h>

#include <fstream>
#include <string>

#include "cli_runner.hpp"
#include "probity/text.hpp"
#include "test_paths.hpp"

namespace probity::test {
namespace {

void write_task(std::ofstream& f, const std::string& id, const std::string& ref,
                const std::string& cand) {
  f << R"({"task_id": ")" << id << R"(", "references": [{"id": "r", "text": ")" << ref
    << R"("}], "candidates": [{"id": "c", "system": "s", "text": ")" << cand << "\"}]}\n";
}

TEST(RougeLetterLoss, CountsTheLettersTheDefaultTokenizerDrops) {
  const auto de = text::rouge_default_letter_loss("Die Größe ist schön");
  EXPECT_EQ(de.letters, 16u);
  EXPECT_EQ(de.dropped, 3u);
  const auto en = text::rouge_default_letter_loss("The cat, 3 mats.");
  EXPECT_EQ(en.letters, 10u);
  EXPECT_EQ(en.dropped, 0u);
  EXPECT_EQ(text::rouge_default_letter_loss("北京大学").dropped, 4u);
  // The Kelvin sign lower-cases to 'k', which the tokenizer keeps.
  EXPECT_EQ(text::rouge_default_letter_loss("\u212A").dropped, 0u);
  // The silent loss itself: the umlauts vanish and the mangled text matches exactly.
  EXPECT_EQ(text::rouge_tokenize("Die Größe ist schön", false),
            text::rouge_tokenize("Die Gr e ist sch n", false));
}

TEST(RougeLetterNotes, ScoreWarnsAndSuggestsTheUnicodeTokenizer) {
  const std::string dir = temp_dir("rouge-letters");
  {
    std::ofstream f(dir + "/de.jsonl");
    write_task(f, "t1", "Die Größe ist schön", "Die Gr e ist sch n");
    write_task(f, "t2", "The cat sat on the mat", "A cat sat on a mat");
  }
  {
    std::ofstream f(dir + "/en.jsonl");
    write_task(f, "t1", "The cat sat on the mat", "A cat sat on a mat");
    // One accented letter among many: below the share that warns.
    write_task(f, "t2", "The café on the corner sells good coffee and cake", "A cafe sells cake");
  }
  auto r = run_probity("score --data " + dir + "/de.jsonl --metric rouge1 --metric bleu --out " +
                       dir + "/s.jsonl");
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_NE(r.err.find("warning: rouge1: rouge-score's default tokenizer keeps only a-z and 0-9; "
                       "it dropped at least 5% of the letters of 1 of 4 texts (first in task t1)"),
            std::string::npos)
      << r.err;
  EXPECT_NE(r.err.find("rouge1,tokenizer=unicode"), std::string::npos) << r.err;
  // The corpus summary names corpus BLEU's own signature: without effective order, as
  // sacreBLEU's corpus_bleu (eff:no); the records keep the sentence scores' (eff:yes).
  EXPECT_NE(r.out.find("bleu|nrefs:1|case:mixed|eff:no|tok:13a"), std::string::npos) << r.out;
  EXPECT_NE(read_text(dir + "/s.jsonl").find("bleu|nrefs:all|case:mixed|eff:yes|tok:13a"),
            std::string::npos);
  // The unicode tokenizer keeps the letters: no warning (nor for metrics other than ROUGE).
  for (const std::string& args :
       {std::string("--data " + dir + "/de.jsonl --metric rouge1,tokenizer=unicode --metric bleu"),
        std::string("--data " + dir + "/en.jsonl --metric rougeL --metric rouge2")}) {
    r = run_probity("score " + args + " --out " + dir + "/s.jsonl");
    ASSERT_EQ(r.exit_code, 0) << r.err;
    EXPECT_EQ(r.err.find("default tokenizer"), std::string::npos) << args << ": " << r.err;
  }
}

}  // namespace
}  // namespace probity::test
