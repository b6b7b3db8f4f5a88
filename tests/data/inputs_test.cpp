// Other shapes of input: mapped flat rows, TSV/JSON by extension, plain-text files and
// the mt-metrics-eval layout; every reader names file, line and field of bad input.
#include "probity/inputs.hpp"

#include <gtest/gtest.h>

#include <cmath>
#include <filesystem>
#include <fstream>
#include <string>
#include <vector>

#include "probity/error.hpp"
#include "test_paths.hpp"

namespace probity {
namespace {

std::string write_file(const std::string& name, const std::string& content) {
  static const std::string dir = test::temp_dir("inputs");  // made fresh once per process
  std::string path = dir + "/" + name;
  std::ofstream(path, std::ios::binary) << content;
  return path;
}

std::string mtme_dir() {
  return test::golden_path("inputs/mtme");
}

// Runs `f`, which must throw an InputError at `line` and `field` whose message has `fragment`.
template <class F>
void expect_input_error(F f, std::size_t line, const std::string& field,
                        const std::string& fragment) {
  try {
    f();
    FAIL() << "no error (expected '" << fragment << "')";
  } catch (const InputError& e) {
    EXPECT_EQ(e.line(), line) << e.what();
    EXPECT_EQ(e.field(), field) << e.what();
    EXPECT_NE(std::string(e.what()).find(fragment), std::string::npos) << e.what();
  }
}

const char* kExtraColumnCsv =
    "task_id,candidate_id,candidate,reference,origin,fluency\n"
    "t1,c1,Hello there,Hi there,web,4\n"
    "t1,c2,Goodbye,Hi there,web,2\n";

TEST(Inputs, CsvWithAnExtraColumnSuggestsAMap) {
  const auto path = write_file("extra.csv", kExtraColumnCsv);
  expect_input_error([&] { load_dataset(path); }, 2, "origin", "--map");
}

TEST(Inputs, MappedCsvIgnoresAndNotesUnmappedColumns) {
  const auto path = write_file("extra.csv", kExtraColumnCsv);
  InputSpec spec;
  spec.map = parse_column_map(
      "task=task_id,id=candidate_id,candidate=candidate,reference=reference,human=fluency",
      "--map");
  std::vector<std::string> notes;
  spec.note = [&](const std::string& n) { notes.push_back(n); };
  Dataset ds = load_input(path, spec);
  ASSERT_EQ(ds.tasks.size(), 1u);
  ASSERT_EQ(ds.tasks[0].candidates.size(), 2u);
  EXPECT_EQ(ds.tasks[0].candidates[1].id, "c2");
  EXPECT_DOUBLE_EQ(ds.tasks[0].candidates[0].human_mean("fluency"), 4.0);
  ASSERT_EQ(ds.tasks[0].references.size(), 1u);
  EXPECT_EQ(ds.tasks[0].references[0].id, "reference");
  ASSERT_EQ(notes.size(), 1u);
  EXPECT_NE(notes[0].find("origin"), std::string::npos) << notes[0];
}

const char* kFlatJsonl =
    R"({"doc_id": "d1", "prediction": "the cat sat", "reference": "a cat sat", "score": 0.5, "model": "m1"})"
    "\n"
    R"({"doc_id": "d1", "prediction": "cat", "reference": "a cat sat", "score": 0.1, "model": "m2"})"
    "\n"
    R"({"doc_id": 2, "prediction": "dogs run", "reference": ["dogs ran", "a dog runs"], "score": null, "model": "m1"})"
    "\n";

TEST(Inputs, FlatJsonlWithoutAMapSaysHowToReadIt) {
  const auto path = write_file("flat.jsonl", kFlatJsonl);
  expect_input_error([&] { load_dataset(path); }, 1, "task_id", "--map");
}

TEST(Inputs, FlatJsonlGroupsRowsByTaskId) {
  const auto path = write_file("flat.jsonl", kFlatJsonl);
  InputSpec spec;
  spec.map = parse_column_map(
      "task=doc_id,candidate=prediction,reference=reference,human=score,system=model", "--map");
  Dataset ds = load_input(path, spec);
  ASSERT_EQ(ds.tasks.size(), 2u);
  EXPECT_EQ(ds.tasks[0].task_id, "d1");
  ASSERT_EQ(ds.tasks[0].candidates.size(), 2u);
  EXPECT_EQ(ds.tasks[0].candidates[0].id, "m1");  // no id column: the system name
  EXPECT_EQ(ds.tasks[0].candidates[1].system, "m2");
  EXPECT_EQ(ds.tasks[1].task_id, "2");  // an integer id is written out
  ASSERT_EQ(ds.tasks[1].references.size(), 2u);
  EXPECT_EQ(ds.tasks[1].references[1].id, "reference_2");
  EXPECT_TRUE(std::isnan(ds.tasks[1].candidates[0].human_mean("score")));  // null: not rated
}

TEST(Inputs, DottedPathsReachIntoNestedRecords) {
  // The shape of Hugging Face datasets: ids and ratings nested, references in a list.
  const auto path = write_file(
      "nested.jsonl",
      R"({"meta": {"doc_id": "d1", "model": "m1"}, "output": "a cat", "refs": ["the cat", "cat"], )"
      R"("scores": {"human": {"fluency": 4}}, "unused": 1})"
      "\n"
      R"({"meta": {"doc_id": "d1", "model": "m2"}, "output": "a dog", "refs": ["the cat", "cat"], )"
      R"("scores": {"human": {"fluency": null}}, "unused": 2})"
      "\n");
  InputSpec spec;
  std::string noted;
  spec.note = [&](const std::string& n) { noted += n; };
  spec.map = parse_column_map(
      "task=meta.doc_id,system=meta.model,candidate=output,reference=refs.0,reference=refs.1,"
      "human:fluency=scores.human.fluency",
      "--map");
  Dataset ds = load_input(path, spec);
  ASSERT_EQ(ds.tasks.size(), 1u);
  EXPECT_EQ(ds.tasks[0].task_id, "d1");
  ASSERT_EQ(ds.tasks[0].candidates.size(), 2u);
  EXPECT_EQ(ds.tasks[0].candidates[1].system, "m2");
  ASSERT_EQ(ds.tasks[0].references.size(), 2u);
  EXPECT_EQ(ds.tasks[0].references[1].text, "cat");
  EXPECT_EQ(ds.tasks[0].candidates[0].human_mean("fluency"), 4.0);
  EXPECT_TRUE(std::isnan(ds.tasks[0].candidates[1].human_mean("fluency")));
  // Only the column no path reaches is noted as ignored.
  EXPECT_NE(noted.find("1 column(s)"), std::string::npos) << noted;
  EXPECT_NE(noted.find("unused"), std::string::npos) << noted;
  // A path that reaches nothing is a missing field, named by its path.
  spec.map = parse_column_map("task=meta.nope,candidate=output", "--map");
  try {
    load_input(path, spec);
    FAIL() << "no error";
  } catch (const InputError& e) {
    EXPECT_NE(std::string(e.what()).find("meta.nope"), std::string::npos) << e.what();
  }
}

TEST(Inputs, FlatRowsWithoutTaskOrSystemGetLineAndPositionIds) {
  const auto path = write_file("rows.jsonl", R"({"p": "a", "r": "b"})"
                                             "\n\n"
                                             R"({"p": "c", "r": "d"})"
                                             "\n");
  InputSpec spec;
  spec.map = parse_column_map("candidate=p,reference=r", "--map");
  Dataset ds = load_input(path, spec);
  ASSERT_EQ(ds.tasks.size(), 2u);
  EXPECT_EQ(ds.tasks[1].task_id, "3");  // its line
  EXPECT_EQ(ds.tasks[1].candidates[0].id, "c1");
}

// A later row of a task may leave its reference cells blank (the first
// row's references), as the CSV importer's own convention says.
TEST(Inputs, MappedCsvRowsMayLeaveTheReferencesBlank) {
  InputSpec spec;
  spec.map = parse_column_map("task=t,candidate=p,reference=r1,reference=r2", "--map");
  const auto path = write_file("blank-refs.csv", "t,p,r1,r2\n1,x,a,b\n1,y,,\n1,z,a,b\n");
  Dataset ds = load_input(path, spec);
  ASSERT_EQ(ds.tasks.size(), 1u);
  EXPECT_EQ(ds.tasks[0].candidates.size(), 3u);
  ASSERT_EQ(ds.tasks[0].references.size(), 2u);
  EXPECT_EQ(ds.tasks[0].references[1].text, "b");
  const auto other = write_file("other-refs.csv", "t,p,r1,r2\n1,x,a,b\n1,y,c,\n");
  expect_input_error([&] { load_input(other, spec); }, 3, "r1", "references differ");
}

TEST(Inputs, MappedErrorsNameFileLineAndField) {
  InputSpec spec;
  spec.map = parse_column_map("task=t,candidate=p,human=q,system=s", "--map");
  const auto bad_rating = write_file("bad.jsonl", R"({"t": "1", "p": "x", "q": 3, "s": "a"})"
                                                  "\n"
                                                  R"({"t": "1", "p": "y", "q": "good", "s": "b"})"
                                                  "\n");
  expect_input_error([&] { load_input(bad_rating, spec); }, 2, "q", "non-numeric rating");
  const auto duplicate = write_file("dup.jsonl", R"({"t": "1", "p": "x", "s": "a"})"
                                                 "\n"
                                                 R"({"t": "1", "p": "y", "s": "a"})"
                                                 "\n");
  expect_input_error([&] { load_input(duplicate, spec); }, 2, "s", "duplicate candidate id 'a'");
  const auto missing = write_file("missing.jsonl", R"({"t": "1", "s": "a"})"
                                                   "\n");
  expect_input_error([&] { load_input(missing, spec); }, 1, "p", "missing field");
  const auto csv = write_file("cols.csv", "t,p,s\n1,x,a\n");
  expect_input_error([&] { load_input(csv, spec); }, 1, "q", "not in the header");
  // --skip-invalid keeps the good rows and lists the bad one.
  Dataset ds = load_input(bad_rating, spec, {true});
  EXPECT_EQ(ds.num_candidates(), 1u);
  ASSERT_EQ(ds.skipped.size(), 1u);
  EXPECT_EQ(ds.skipped[0].line, 2u);
}

TEST(Inputs, ColumnMapSyntax) {
  ColumnMap m = parse_column_map(
      "task=a, candidate=b,reference=r1,reference=r2,human=s,human:fluency=f", "--map");
  EXPECT_EQ(m.task, "a");
  EXPECT_EQ(m.references, (std::vector<std::string>{"r1", "r2"}));
  ASSERT_EQ(m.human.size(), 2u);
  EXPECT_EQ(m.human[1].first, "fluency");
  EXPECT_EQ(m.human[1].second, "f");
  const auto file =
      write_file("map.txt", "# columns of the export\ntask=a\ncandidate=b\nbogus=c\n");
  expect_input_error([&] { read_column_map("@" + file); }, 4, "bogus", "unknown key");
  expect_input_error([&] { parse_column_map("task=a", "--map"); }, 0, "candidate",
                     "names no candidate column");
  expect_input_error([&] { parse_column_map("candidate", "--map"); }, 0, "candidate",
                     "expected KEY=COLUMN");
  expect_input_error([&] { parse_column_map("candidate=a,task=b,task=c", "--map"); }, 0, "task",
                     "given twice");
}

TEST(Inputs, FormatByExtensionOrNamed) {
  EXPECT_EQ(format_of_path("x.TSV"), DataFormat::Tsv);
  EXPECT_EQ(format_of_path("x.json"), DataFormat::Json);
  EXPECT_EQ(format_of_path("x.csv"), DataFormat::Csv);
  EXPECT_EQ(format_of_path("x.jsonl"), DataFormat::Jsonl);
  EXPECT_EQ(format_of_path("x"), DataFormat::Jsonl);
  EXPECT_EQ(parse_data_format("TSV"), DataFormat::Tsv);
  EXPECT_THROW(parse_data_format("xlsx"), UsageError);

  const auto tsv = write_file("d.tsv",
                              "task_id\tcandidate_id\tcandidate\treference\tq\n"
                              "t1\tc1\tHello, world\tHi\t3\n");
  Dataset ds = load_dataset(tsv);
  ASSERT_EQ(ds.num_candidates(), 1u);
  EXPECT_EQ(ds.tasks[0].candidates[0].text, "Hello, world");
  const auto json = write_file(
      "d.json",
      R"([{"task_id": "t1", "references": ["r"], "candidates": [{"id": "c", "text": "x"}]},)"
      R"( {"task_id": "t2", "candidates": [{"id": "c"}]}])");
  // Element 2 lacks a text: named as "line" 2, its position in the array.
  expect_input_error([&] { load_dataset(json); }, 2, "candidates[0].text", "missing");
  // One JSON object per line under a .json name is JSONL, as before .json meant an array.
  const auto lines =
      write_file("lines.json", R"({"task_id": "t1", "candidates": [{"id": "c", "text": "x"}]})"
                               "\n"
                               R"({"task_id": "t2", "candidates": [{"id": "c", "text": "y"}]})"
                               "\n");
  EXPECT_EQ(load_dataset(lines).tasks.size(), 2u);
  // A TSV read as TSV though named .txt.
  const auto txt = write_file("d.txt", "task_id\tcandidate_id\tcandidate\nt1\tc1\tx\n");
  InputSpec spec;
  spec.format = DataFormat::Tsv;
  EXPECT_EQ(load_input(txt, spec).num_candidates(), 1u);
  EXPECT_TRUE(DataInput("a.jsonl").streams_as_task_jsonl());
  EXPECT_FALSE(DataInput("a.csv").streams_as_task_jsonl());
  EXPECT_FALSE(DataInput("-").streams_as_task_jsonl());
}

TEST(Inputs, PlainTextFiles) {
  const std::string d = mtme_dir();
  PlainTextInput in;
  in.hypotheses = {d + "/system-outputs/en-de/sysA.txt", d + "/system-outputs/en-de/sysB.txt"};
  in.references = {d + "/references/en-de.refA.txt"};
  const auto human_a = write_file("a.score", "0\n-0.5\n-1\nNone\n");
  const auto human_b = write_file("b.score", "-10\n-8\n-5\n-6\n");
  in.human = {human_a, human_b};
  Dataset ds = load_plain_text(in);
  ASSERT_EQ(ds.tasks.size(), 4u);
  EXPECT_EQ(ds.tasks[3].task_id, "4");
  ASSERT_EQ(ds.tasks[0].candidates.size(), 2u);
  EXPECT_EQ(ds.tasks[0].candidates[1].id, "sysB");
  EXPECT_EQ(ds.tasks[0].references[0].id, "en-de.refA");
  EXPECT_EQ(ds.tasks[0].references[0].text, "Die Katze saß auf der Matte.");
  EXPECT_TRUE(std::isnan(ds.tasks[3].candidates[0].human_mean("human")));
  EXPECT_DOUBLE_EQ(ds.tasks[1].candidates[1].human_mean("human"), -8);

  in.human = {human_a, write_file("bad.score", "1\n2\nbad\n4\n")};
  expect_input_error([&] { load_plain_text(in); }, 3, "human", "non-numeric score 'bad'");
  in.human.clear();
  in.references = {write_file("short.txt", "one\ntwo\n")};
  expect_input_error([&] { load_plain_text(in); }, 3, "", "2 lines");
  in.references.clear();
  in.human = {human_a};
  EXPECT_THROW(load_plain_text(in), UsageError);  // one scores file for two hypothesis files
}

TEST(Inputs, MtMetricsEvalLayout) {
  std::vector<std::string> notes;
  Dataset ds =
      load_mtme(mtme_dir(), "en-de", {}, [&](const std::string& n) { notes.push_back(n); });
  ASSERT_EQ(ds.tasks.size(), 4u);
  const Task& t = ds.tasks[1];
  EXPECT_EQ(t.task_id, "2");
  EXPECT_EQ(t.source, "It is raining in Berlin today.");
  EXPECT_EQ(t.group, "news");
  ASSERT_EQ(t.references.size(), 2u);
  EXPECT_EQ(t.references[0].id, "refA");
  EXPECT_EQ(t.references[1].text, "In Berlin regnet es heute.");
  ASSERT_EQ(t.candidates.size(), 3u);  // refB, sysA, sysB
  EXPECT_EQ(t.candidates[2].id, "sysB");
  EXPECT_EQ(t.candidates[2].text, "Regen Berlin heute.");
  EXPECT_DOUBLE_EQ(t.candidates[2].human_mean("mqm"), -8);
  EXPECT_TRUE(std::isnan(ds.tasks[3].candidates[1].human_mean("mqm")));  // None
  EXPECT_EQ(ds.tasks[3].group, "conversation");
  ASSERT_EQ(notes.size(), 2u);
  EXPECT_NE(notes[0].find("en-de.mqm.sys.score"), std::string::npos) << notes[0];
  EXPECT_NE(notes[1].find("refs=refA"), std::string::npos) << notes[1];

  expect_input_error([&] { load_mtme(mtme_dir(), "de-en"); }, 0, "", "language pairs: en-de");
}

TEST(Inputs, MtMetricsEvalErrorsNameTheFileAndLine) {
  const std::string root = test::temp_dir("mtme_bad");
  std::filesystem::copy(mtme_dir(), root, std::filesystem::copy_options::recursive);
  std::ofstream(root + "/human-scores/en-de.mqm.seg.score") << "sysA\t1\nsysC\t2\n";
  expect_input_error([&] { load_mtme(root, "en-de"); }, 2, "system", "unknown system 'sysC'");
  std::ofstream(root + "/human-scores/en-de.mqm.seg.score") << "sysA\t1\nsysA\tx\n";
  expect_input_error([&] { load_mtme(root, "en-de"); }, 2, "score", "non-numeric score 'x'");
  std::ofstream(root + "/human-scores/en-de.mqm.seg.score") << "sysA\t1\n";
  expect_input_error([&] { load_mtme(root, "en-de"); }, 0, "system", "1 scores for system 'sysA'");
  std::filesystem::remove(root + "/human-scores/en-de.mqm.seg.score");
  std::ofstream(root + "/system-outputs/en-de/sysA.txt") << "only one line\n";
  expect_input_error([&] { load_mtme(root, "en-de"); }, 2, "", "1 lines");
}

TEST(Inputs, AnInputCarriesHowItIsRead) {
  const auto path = write_file("mapped.csv", kExtraColumnCsv);
  DataInput input(path);
  input.spec.map = parse_column_map("task=task_id,candidate=candidate,human=fluency", "--map");
  Dataset ds = input.load();
  EXPECT_EQ(ds.num_candidates(), 2u);
  EXPECT_EQ(ds.tasks[0].candidates[1].id, "c2");  // by position
  EXPECT_FALSE(input.streams_as_task_jsonl());
  EXPECT_EQ(input.name(), path);
  // The same file without the map reads by CSV conventions: nothing global remembers the map.
  EXPECT_THROW(load_dataset(path), InputError);
  const DataInput memory = DataInput::memory(std::move(ds));
  EXPECT_EQ(memory.load().num_candidates(), 2u);
  EXPECT_FALSE(memory.streams_as_task_jsonl());
}

}  // namespace
}  // namespace probity
