#include "probity/dataset.hpp"

#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>
#include <vector>

#include "data/fast_task.hpp"
#include "test_paths.hpp"

namespace {

using probity::InputError;
using probity::load_dataset;

std::string write_file(const std::string& name, const std::string& content) {
  std::string path = probity::test::temp_dir("dataset") + "/" + name;
  std::ofstream(path, std::ios::binary) << content;
  return path;
}

const char* kGood =
    R"({"task_id": "t1", "group": "g", "references": [{"id": "r1", "text": "The cat sat."}], )"
    R"("candidates": [{"id": "c1", "system": "s", "text": "A cat sat.", "human": {"q": [4, 5]}}, )"
    R"({"id": "c2", "text": "Dogs run.", "human": {"q": 2}}], "pairs": [{"a": "c1", "b": "c2", "preferred": "a"}]})";

// Expects load_dataset to fail with a message naming the line and field.
void expect_error(const std::string& content, std::size_t line, const std::string& field,
                  const std::string& fragment) {
  std::string path = write_file("bad.jsonl", content);
  try {
    load_dataset(path);
    FAIL() << "no error for: " << content;
  } catch (const InputError& e) {
    EXPECT_EQ(e.line(), line) << e.what();
    EXPECT_EQ(e.field(), field) << e.what();
    EXPECT_NE(std::string(e.what()).find(fragment), std::string::npos) << e.what();
    EXPECT_NE(std::string(e.what()).find(path), std::string::npos) << e.what();
  }
}

TEST(Dataset, LoadsAllSharedDatasets) {
  struct Case {
    const char* file;
    std::size_t tasks, candidates, dims;
  } cases[] = {{"summeval/summeval.jsonl", 100, 1600, 4},
               {"dialsummeval/dialsummeval.jsonl", 100, 1300, 4},
               {"newsroom_human_eval/newsroom_human_eval.jsonl", 60, 420, 4},
               {"topical_chat_usr/topical_chat_usr.jsonl", 60, 300, 6}};
  for (const auto& c : cases) {
    auto ds = load_dataset(probity::test::data_path(c.file));
    EXPECT_EQ(ds.tasks.size(), c.tasks) << c.file;
    EXPECT_EQ(ds.num_candidates(), c.candidates) << c.file;
    EXPECT_EQ(ds.dimensions().size(), c.dims) << c.file;
    EXPECT_TRUE(ds.skipped.empty());
  }
}

TEST(Dataset, SummEvalFieldsAndHumanMeans) {
  auto ds = load_dataset(probity::test::data_path("summeval/summeval_sample20.jsonl"));
  ASSERT_EQ(ds.tasks.size(), 20u);
  const auto& t = ds.tasks[0];
  EXPECT_EQ(t.group, "cnndm");
  EXPECT_EQ(t.references.size(), 11u);
  EXPECT_EQ(t.references[0].id, "ref0_cnndm_highlights");
  EXPECT_FALSE(t.source.empty());
  const auto& c = t.candidates[0];
  ASSERT_EQ(c.human.at("coherence").size(), 3u);
  double mean =
      (c.human.at("coherence")[0] + c.human.at("coherence")[1] + c.human.at("coherence")[2]) / 3;
  EXPECT_DOUBLE_EQ(c.human_mean("coherence"), mean);
  EXPECT_TRUE(std::isnan(c.human_mean("no-such-dimension")));
}

TEST(Dataset, ParsesAllFields) {
  auto ds = load_dataset(write_file("good.jsonl", std::string(kGood) + "\n\n"));
  ASSERT_EQ(ds.tasks.size(), 1u);
  const auto& t = ds.tasks[0];
  EXPECT_EQ(t.line, 1u);
  EXPECT_EQ(t.candidates[0].system, "s");
  EXPECT_DOUBLE_EQ(t.candidates[0].human_mean("q"), 4.5);
  EXPECT_DOUBLE_EQ(t.candidates[1].human_mean("q"), 2.0);
  ASSERT_EQ(t.pairs.size(), 1u);
  EXPECT_EQ(t.pairs[0].preferred, "a");
}

TEST(Dataset, StreamingReaderMatchesLoad) {
  std::string path = probity::test::data_path("summeval/summeval_sample20.jsonl");
  probity::TaskReader reader(path);
  probity::Task task;
  std::size_t n = 0;
  while (reader.next(task)) {
    ++n;
    EXPECT_GT(reader.bytes_read(), 0u);
    EXPECT_LE(reader.bytes_read(), std::filesystem::file_size(path));
  }
  EXPECT_EQ(n, 20u);
  // At the end every byte was read: `score` estimates its progress from this.
  EXPECT_EQ(reader.bytes_read(), std::filesystem::file_size(path));
}

TEST(DatasetErrors, MalformedJson) {
  expect_error(std::string(kGood) + "\n{\"task_id\": \"t2\", ", 2, "", "malformed JSON");
}

TEST(DatasetErrors, NotAnObject) {
  expect_error("[1, 2]", 1, "", "expected a JSON object");
}

TEST(DatasetErrors, MissingField) {
  expect_error(R"({"task_id": "t", "references": [{"text": "x"}]})", 1, "candidates",
               "missing required field");
  expect_error(R"({"references": [{"text": "x"}], "candidates": []})", 1, "task_id",
               "missing required field");
  expect_error(R"({"task_id": "t", "references": [{"text": "x"}], "candidates": [{"text": "y"}]})",
               1, "candidates[0].id", "missing required field");
}

TEST(DatasetErrors, WrongType) {
  expect_error(R"({"task_id": 7, "references": [{"text": "x"}], "candidates": []})", 1, "task_id",
               "expected a string, got number");
  expect_error(R"({"task_id": "t", "references": "x", "candidates": []})", 1, "references",
               "expected an array");
}

TEST(DatasetErrors, InvalidUtf8) {
  std::string line = R"({"task_id": "t", "references": [{"text": "caf)"
                     "\xC3\x28"
                     R"("}], "candidates": []})";
  expect_error(line, 1, "", "invalid UTF-8 at byte 46");
}

// An empty candidate is a legitimate (bad) output and an empty reference is scored as the
// reference tools score it: both are data, not errors. A text of the wrong type is an error.
TEST(DatasetErrors, EmptyTextsAreDataWrongTypesAreErrors) {
  auto ds = load_dataset(write_file(
      "empty.jsonl",
      R"({"task_id": "t", "references": [{"text": "  "}], "candidates": [{"id": "c", "text": ""}, {"id": "d", "text": " \n "}]})"
      "\n"));
  ASSERT_EQ(ds.tasks.size(), 1u);
  EXPECT_EQ(ds.tasks[0].references[0].text, "  ");
  EXPECT_EQ(ds.tasks[0].candidates[0].text, "");
  EXPECT_EQ(ds.tasks[0].candidates[1].text, " \n ");
  expect_error(
      R"({"task_id": "t", "references": [{"text": "x"}], "candidates": [{"id": "c", "text": 3}]})",
      1, "candidates[0].text", "expected a string");
  expect_error(R"({"task_id": "t", "references": [{"id": "r"}], "candidates": []})", 1,
               "references[0].text", "missing");
}

TEST(DatasetErrors, DuplicateIds) {
  expect_error(std::string(kGood) + "\n" + kGood, 2, "task_id", "duplicate task id 't1'");
  expect_error(
      R"({"task_id": "t", "references": [{"text": "x"}], "candidates": [{"id": "c", "text": "a"}, {"id": "c", "text": "b"}]})",
      1, "candidates[1].id", "duplicate candidate id 'c'");
  expect_error(
      R"({"task_id": "t", "references": [{"id": "r", "text": "x"}, {"id": "r", "text": "y"}], "candidates": [{"id": "c", "text": "a"}]})",
      1, "references[1].id", "duplicate reference id 'r'");
}

TEST(DatasetErrors, NonNumericRating) {
  expect_error(
      R"({"task_id": "t", "references": [{"text": "x"}], "candidates": [{"id": "c", "text": "a", "human": {"q": [4, "good"]}}]})",
      1, "candidates[0].human.q[1]", "non-numeric rating");
}

TEST(DatasetErrors, BadPair) {
  expect_error(
      R"({"task_id": "t", "references": [{"text": "x"}], "candidates": [{"id": "c", "text": "a"}], "pairs": [{"a": "c", "b": "zz", "preferred": "a"}]})",
      1, "pairs[0].b", "unknown candidate id 'zz'");
}

TEST(DatasetErrors, SkipInvalidKeepsGoodItemsAndCounts) {
  std::string content =
      std::string(kGood) + "\nnot json\n" +
      R"({"task_id": "t3", "references": [{"text": "x"}], "candidates": [{"id": "c", "text": 7}, {"id": "d", "text": "fine"}]})" +
      "\n";
  auto ds = load_dataset(write_file("skip.jsonl", content), {true});
  ASSERT_EQ(ds.tasks.size(), 2u);
  EXPECT_EQ(ds.tasks[1].candidates.size(), 1u);  // only the bad candidate was dropped
  ASSERT_EQ(ds.skipped.size(), 2u);
  EXPECT_EQ(ds.skipped[0].line, 2u);
  EXPECT_EQ(ds.skipped[1].line, 3u);
  EXPECT_EQ(ds.skipped[1].field, "candidates[0].text");
}

TEST(DatasetCsv, ImportsRowsPerCandidate) {
  std::string csv =
      "task_id,candidate_id,system,candidate,reference_1,reference_2,human:fluency,relevance\n"
      "t1,c1,s1,\"Hello, world\",\"Hi, \"\"world\"\"\",Hello there,4,3.5\n"
      "t1,c2,s2,\"multi\nline\",\"Hi, \"\"world\"\"\",Hello there,,2\n"
      "t2,c1,s1,Bye,Goodbye,,5,1\n";
  auto ds = load_dataset(write_file("ok.csv", csv));
  ASSERT_EQ(ds.tasks.size(), 2u);
  EXPECT_EQ(ds.tasks[0].references.size(), 2u);
  EXPECT_EQ(ds.tasks[0].references[0].text, "Hi, \"world\"");
  EXPECT_EQ(ds.tasks[0].candidates[1].text, "multi\nline");
  EXPECT_DOUBLE_EQ(ds.tasks[0].candidates[0].human_mean("fluency"), 4.0);
  EXPECT_TRUE(std::isnan(ds.tasks[0].candidates[1].human_mean("fluency")));
  EXPECT_DOUBLE_EQ(ds.tasks[0].candidates[0].human_mean("relevance"), 3.5);
  EXPECT_EQ(ds.tasks[1].references.size(), 1u);
}

TEST(DatasetCsv, ErrorsNameLineAndColumn) {
  std::string header = "task_id,candidate_id,candidate,reference,score\n";
  auto check = [&](const std::string& body, std::size_t line, const std::string& field,
                   const std::string& fragment) {
    try {
      load_dataset(write_file("bad.csv", header + body));
      FAIL() << body;
    } catch (const InputError& e) {
      EXPECT_EQ(e.line(), line) << e.what();
      EXPECT_EQ(e.field(), field) << e.what();
      EXPECT_NE(std::string(e.what()).find(fragment), std::string::npos) << e.what();
    }
  };
  check("t,c,text,ref,high\n", 2, "score", "non-numeric rating 'high'");
  check("t,c,text,ref,1\nt,c,text2,ref,2\n", 3, "candidate_id", "duplicate candidate id");
  check("t,,text,ref,1\n", 2, "candidate_id", "empty id");
  check("t,c,text,ref\n", 2, "", "expected 5 cells, found 4");
  check("t,c,\"open,ref,1\n", 2, "", "unterminated quoted cell");
  try {
    load_dataset(write_file("nohdr.csv", "task_id,candidate\nt,x\n"));
    FAIL();
  } catch (const InputError& e) {
    EXPECT_EQ(e.field(), "candidate_id");
  }
}

// The RFC 4180 rules a reader must not bend, and one column per thing.
TEST(DatasetCsv, TextAfterAClosingQuoteIsAnErrorNamingLineAndColumn) {
  const std::string header = "task_id,candidate_id,candidate,reference\n";
  try {
    load_dataset(write_file("quote.csv", header + "t1,c1,ok,ref\nt1,c2,\"ab\"c,ref\n"));
    FAIL() << "\"ab\"c was read";
  } catch (const InputError& e) {
    EXPECT_EQ(e.line(), 3u) << e.what();
    EXPECT_EQ(e.field(), "candidate") << e.what();
    EXPECT_NE(std::string(e.what()).find("text after the closing quote"), std::string::npos)
        << e.what();
    EXPECT_NE(std::string(e.what()).find("column 11"), std::string::npos) << e.what();
  }
  // A quoted cell that spans lines counts the column on its last line.
  try {
    load_dataset(write_file("quote2.csv", header + "t1,c1,\"two\nlines\" x,ref\n"));
    FAIL();
  } catch (const InputError& e) {
    EXPECT_EQ(e.line(), 3u) << e.what();
    EXPECT_NE(std::string(e.what()).find("column 7"), std::string::npos) << e.what();
  }
  // Doubled quotes, quoted separators and quoted cells at the end of a line stay valid.
  auto ds = load_dataset(write_file("quote3.csv", header + "t1,c1,\"a \"\"b\"\", c\",\"ref\"\r\n"));
  EXPECT_EQ(ds.tasks[0].candidates[0].text, "a \"b\", c");
  EXPECT_EQ(ds.tasks[0].references[0].text, "ref");
}

TEST(DatasetCsv, TwoColumnsForOneThingAreAnError) {
  auto check = [](const std::string& header, const std::string& field,
                  const std::string& fragment) {
    try {
      load_dataset(write_file("dup.csv", header + "\n"));
      FAIL() << header;
    } catch (const InputError& e) {
      EXPECT_EQ(e.line(), 1u) << e.what();
      EXPECT_EQ(e.field(), field) << e.what();
      EXPECT_NE(std::string(e.what()).find(fragment), std::string::npos) << e.what();
    }
  };
  check("task_id,candidate_id,candidate,reference,candidate", "candidate",
        "columns 3 ('candidate') and 5 ('candidate') both hold the candidate text");
  check("task_id,id,text,candidate", "candidate", "both hold the candidate text");
  check("task_id,candidate_id,candidate_id,candidate", "candidate_id", "candidate id");
  check("task_id,id,candidate,reference,reference_0", "reference_0", "reference 'ref0'");
  check("task_id,id,candidate,human:q,q", "q", "ratings of 'q'");
}

// The CSV fuzzer's seeds in the normal build too: tasks or an InputError naming the file.
TEST(DatasetCsv, FuzzSeedsLoadOrNameTheFile) {
  std::size_t seeds = 0;
  for (const auto& entry :
       std::filesystem::directory_iterator(std::string(PROBITY_TEST_DIR) + "/fuzz/corpus/csv")) {
    ++seeds;
    for (const bool skip : {false, true}) {
      try {
        (void)load_dataset(entry.path().string(), probity::ReadOptions{skip});
      } catch (const InputError& e) {
        EXPECT_EQ(e.file(), entry.path().string());
      }
    }
  }
  EXPECT_GE(seeds, 6u);
}

// The example of docs/dataset-format.md, read from the page itself.
TEST(DatasetCsv, TheDocumentedExampleLoads) {
  std::ifstream in(std::string(PROBITY_SOURCE_DIR) + "/docs/dataset-format.md");
  std::stringstream page;
  page << in.rdbuf();
  const std::string text = page.str();
  const auto open = text.find("```csv\n");
  ASSERT_NE(open, std::string::npos);
  const auto body = open + 7;
  const std::string csv = text.substr(body, text.find("```", body) - body);
  const auto ds = load_dataset(write_file("documented.csv", csv));
  ASSERT_EQ(ds.tasks.size(), 1u);
  ASSERT_EQ(ds.tasks[0].candidates.size(), 2u);
  // The second row leaves its reference cells empty: the first row's references.
  ASSERT_EQ(ds.tasks[0].references.size(), 2u);
  EXPECT_EQ(ds.tasks[0].references[0].text, "Hi there");
  EXPECT_EQ(ds.tasks[0].references[1].text, "Hello there");
  EXPECT_DOUBLE_EQ(ds.tasks[0].candidates[1].human_mean("fluency"), 2.0);
}

TEST(DatasetCsv, LaterRowsRepeatOrLeaveOutTheReferences) {
  const std::string header = "task_id,candidate_id,candidate,reference_1,reference_2\n";
  auto ds = load_dataset(
      write_file("refs.csv", header + "t1,c1,a,r1,r2\nt1,c2,b,r1,r2\nt1,c3,c,,\nt1,c4,d, ,\n"));
  ASSERT_EQ(ds.tasks[0].candidates.size(), 4u);
  EXPECT_EQ(ds.tasks[0].references.size(), 2u);
  // References that are given must be the first row's.
  for (const char* later : {"t1,c2,b,other,r2\n", "t1,c2,b,r1,\n", "t1,c2,b,,r2\n"}) {
    try {
      load_dataset(write_file("refs2.csv", header + "t1,c1,a,r1,r2\n" + later));
      FAIL() << later;
    } catch (const InputError& e) {
      EXPECT_EQ(e.line(), 3u) << e.what();
      EXPECT_NE(std::string(e.what()).find("references differ"), std::string::npos) << e.what();
    }
  }
}

// Nesting 100k levels deep crashed the reader (exit 139) where it quoted the
// value in its message.
TEST(DatasetErrors, DeepNestingIsAnErrorNotACrash) {
  const std::size_t depth = 100000;
  const std::string deep = std::string(depth, '[') + std::string(depth, ']');
  const std::string line = R"({"task_id": "t2", "candidates": [{"id": "c1", "text": "a b", )"
                           R"("human": {"q": )" +
                           deep + "}}]}";
  for (const bool fast_path : {true, false}) {
    probity::data::set_fast_task_parsing(fast_path);
    expect_error(std::string(kGood) + "\n" + line, 2, "", "nested deeper than 128 levels");
  }
  probity::data::set_fast_task_parsing(true);
  // Within the limit, a bad value is quoted in a message of bounded size.
  const std::string wide = R"({"task_id": "t2", "candidates": [{"id": "c1", "text": "a b", )"
                           R"("human": {"q": {"x": ")" +
                           std::string(100000, 'x') + R"("}}}]})";
  try {
    load_dataset(write_file("wide.jsonl", wide));
    FAIL();
  } catch (const InputError& e) {
    EXPECT_NE(std::string(e.what()).find("non-numeric rating ({\"x\":\"xxx"), std::string::npos)
        << e.what();
    EXPECT_LT(std::string(e.what()).size(), 300u) << e.what();
  }
}

// Simdjson and nlohmann both stop at a NUL byte; the task before it was
// read as valid.
TEST(DatasetErrors, ANulByteOnALineIsAnError) {
  const std::string nul(1, '\0');
  for (const bool fast_path : {true, false}) {
    probity::data::set_fast_task_parsing(fast_path);
    expect_error(std::string(kGood) + nul + "garbage\n", 1, "", "NUL byte");
    expect_error(std::string(kGood) + "\n" + kGood + nul + "\n", 2, "", "NUL byte");
  }
  probity::data::set_fast_task_parsing(true);
}

}  // namespace

// ---- the reader's fast path (src/data/fast_task.hpp) ------------------------------------------

namespace fast {

// Every field of a dataset, ratings by their bits: equal texts mean equal datasets.
std::string describe(const probity::Dataset& ds) {
  std::string out;
  for (const auto& t : ds.tasks) {
    out +=
        "task " + t.task_id + "|" + t.group + "|" + t.source + "|" + std::to_string(t.line) + "\n";
    for (const auto& r : t.references) out += " ref " + r.id + "|" + r.text + "\n";
    for (const auto& c : t.candidates) {
      out += " cand " + c.id + "|" + c.system + "|" + c.text + "\n";
      for (const auto& [dim, ratings] : c.human) {
        out += "  " + dim + ":";
        for (double v : ratings) {
          std::uint64_t bits = 0;
          std::memcpy(&bits, &v, sizeof bits);
          out += " " + std::to_string(bits);
        }
        out += "\n";
      }
    }
    for (const auto& p : t.pairs) out += " pair " + p.a + "|" + p.b + "|" + p.preferred + "\n";
  }
  for (const auto& s : ds.skipped)
    out += "skip " + std::to_string(s.line) + "|" + s.field + "|" + s.message + "\n";
  return out;
}

// The dataset, or the error, as read with or without the fast path.
std::string read(const std::string& jsonl, bool fast_path, bool skip_invalid) {
  probity::data::set_fast_task_parsing(fast_path);
  std::string out;
  try {
    out = describe(probity::parse_dataset(jsonl, "<test>", probity::ReadOptions{skip_invalid}));
  } catch (const InputError& e) {
    out = std::string("error: ") + e.what();
  }
  probity::data::set_fast_task_parsing(true);
  return out;
}

void expect_same(const std::string& jsonl) {
  for (const bool skip : {false, true})
    EXPECT_EQ(read(jsonl, true, skip), read(jsonl, false, skip)) << jsonl.substr(0, 300);
}

}  // namespace fast

// The fast path reads every line of the data sets and of the reader's fuzzing corpus into the
// tasks the full reader makes, and leaves every problem to it (same errors, same skips).
TEST(DatasetFastPath, ReadsAsTheFullReader) {
  std::size_t lines = 0;
  for (const char* rel :
       {"summeval/summeval.jsonl", "dialsummeval/dialsummeval.jsonl",
        "topical_chat_usr/topical_chat_usr.jsonl", "lfqa_e/lfqa_e_zh.jsonl",
        "lfqa_e/lfqa_e_en_sample.jsonl", "newsroom_human_eval/newsroom_human_eval.jsonl"}) {
    std::ifstream in(probity::test::data_path(rel), std::ios::binary);
    std::stringstream text;
    text << in.rdbuf();
    const std::string jsonl = text.str();
    fast::expect_same(jsonl);
    lines += static_cast<std::size_t>(std::count(jsonl.begin(), jsonl.end(), '\n'));
  }
  EXPECT_GT(lines, 900u);
  // And it does read them: every task of SummEval, and the full example.
  probity::data::FastTaskParser parser;
  std::ifstream summeval(probity::test::data_path("summeval/summeval.jsonl"), std::ios::binary);
  std::size_t accepted = 0;
  for (std::string line; std::getline(summeval, line);) accepted += parser.parse(line).has_value();
  EXPECT_EQ(accepted, 100u);
  EXPECT_TRUE(parser.parse(kGood).has_value());
  for (const auto& entry :
       std::filesystem::directory_iterator(std::string(PROBITY_TEST_DIR) + "/fuzz/corpus/jsonl")) {
    std::ifstream in(entry.path(), std::ios::binary);
    std::stringstream text;
    text << in.rdbuf();
    fast::expect_same(text.str());
  }
}

// Lines at the edges of the two parsers, each read alone and after a good task.
TEST(DatasetFastPath, EdgeCasesReadAsTheFullReader) {
  const std::string c = R"("candidates": [{"id": "c", "text": "x"}])";
  const std::vector<std::string> lines = {
      kGood,
      // duplicate keys: nlohmann keeps the last value
      R"({"task_id": "a", "task_id": "b", )" + c + "}",
      R"({"task_id": "t", "candidates": [{"id": "c", "id": "d", "text": "x"}]})",
      R"({"task_id": "t", "candidates": [{"id": "c", "text": "x", "human": {"q": 1, "q": 2}}]})",
      // numbers: -0, big integers, past double, tiny, integers that are floats in nlohmann
      R"({"task_id": "t", "candidates": [{"id": "c", "text": "x", "human": {"q": -0}}]})",
      R"({"task_id": "t", "candidates": [{"id": "c", "text": "x", "human": {"q": -0.0}}]})",
      R"({"task_id": "t", "candidates": [{"id": "c", "text": "x", "human": {"q": [18446744073709551615, -9223372036854775808, 123456789012345678901234567890]}}]})",
      R"({"task_id": "t", "candidates": [{"id": "c", "text": "x", "human": {"q": 1e999}}]})",
      R"({"task_id": "t", "meta": 1e999, )" + c + "}",
      R"({"task_id": "t", "candidates": [{"id": "c", "text": "x", "human": {"q": [1e-400, 4.35, 1E2, 0.1]}}]})",
      R"({"task_id": "t", "candidates": [{"id": "c", "text": "x", "human": {"q": []}}]})",
      R"({"task_id": "t", "candidates": [{"id": "c", "text": "x", "human": {"q": "4"}}]})",
      R"({"task_id": "t", "candidates": [{"id": "c", "text": "x", "human": null}]})",
      // strings: escapes, control characters, surrogates, keys written with escapes
      R"({"task\u005fid": "t\n\"\u00e9\ud83d\ude00", )" + c + "}",
      "{\"task_id\": \"t\tx\", " + c + "}",
      "{\"task_id\":\t\"t\",\r" + c + "}",
      R"({"task_id": "t\ud800", )" + c + "}",
      std::string("{\"task_id\": \"t\0x\", ", 19) + c + "}",
      // references: strings, objects, ids, nulls, duplicates, wrong types
      R"({"task_id": "t", "references": ["a", {"text": "b"}, {"id": "", "text": "c"}, {"id": null, "text": ""}], )" +
          c + "}",
      R"({"task_id": "t", "references": [{"id": "ref1", "text": "a"}, "b"], )" + c + "}",
      R"({"task_id": "t", "references": null, "group": null, "source": null, )" + c + "}",
      R"({"task_id": "t", "references": [{"id": "r"}], )" + c + "}",
      R"({"task_id": "t", "references": [7], )" + c + "}",
      R"({"task_id": "t", "references": {}, )" + c + "}",
      R"({"task_id": "t", "group": 3, )" + c + "}",
      // candidates and pairs
      R"({"task_id": "t", "candidates": []})",
      R"({"task_id": "t", "candidates": [{"id": "", "text": "x"}]})",
      R"({"task_id": "t", "candidates": [{"id": "c", "text": null}, {"id": "d", "text": "y"}]})",
      R"({"task_id": "t", "candidates": [{"id": "c", "text": "x", "system": null}], "pairs": null})",
      R"({"task_id": "t", "candidates": [{"id": "c", "text": "x"}], "pairs": [{"a": "c", "b": "c", "preferred": "tie"}]})",
      R"({"task_id": "t", "candidates": [{"id": "c", "text": "x"}], "pairs": [{"a": "c", "b": "z", "preferred": "a"}]})",
      R"({"task_id": "t", "candidates": [{"id": "c", "text": "x"}], "pairs": [{"a": "c", "b": "c", "preferred": "x"}]})",
      // not a task
      R"("t")",
      R"({"task_id": "t", )" + c + "} x",
      "{\"task_id\": ",
      "",
      std::string(2000, '[') + std::string(2000, ']'),
  };
  for (const auto& line : lines) {
    fast::expect_same(line);
    fast::expect_same(std::string(kGood) + "\n" + line + "\n" + kGood);
  }
}
