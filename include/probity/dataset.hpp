#pragma once
// The task format (docs/dataset-format.md): one task per JSONL line, or a CSV with one row per
// candidate.
#include <cstddef>
#include <cstdint>
#include <istream>
#include <map>
#include <memory>
#include <stdexcept>
#include <string>
#include <vector>

namespace probity {

struct Reference {
  std::string id;
  std::string text;
};

struct Candidate {
  std::string id;
  std::string system;
  std::string text;
  // Per-dimension annotator ratings in annotator order (a single number becomes a list of one).
  std::map<std::string, std::vector<double>> human;
  // Mean of the annotator ratings of one dimension; NaN when the dimension is absent.
  double human_mean(const std::string& dimension) const;
};

struct Preference {
  std::string a;
  std::string b;
  std::string preferred;  // "a", "b" or "tie"
};

struct Task {
  std::string task_id;
  std::string group;
  std::string source;  // may be empty
  // Language of the task's texts (references and candidates) as the dataset gives it ("de",
  // "en-GB"); empty when it does not say. The perturbations detect it when empty.
  std::string lang;
  std::vector<Reference> references;
  std::vector<Candidate> candidates;
  std::vector<Preference> pairs;
  std::size_t line = 0;  // 1-based line (JSONL) or first row (CSV) it came from
};

// Why items were skipped under --skip-invalid.
struct SkipRecord {
  std::string file;
  std::size_t line = 0;
  std::string field;
  std::string message;
};

// One candidate of a dataset: indices into Dataset::tasks and that task's candidates.
struct ItemRef {
  std::size_t task = 0;       // index into Dataset::tasks
  std::size_t candidate = 0;  // index into Task::candidates
};

struct Dataset {
  std::string path;
  std::vector<Task> tasks;
  std::vector<SkipRecord> skipped;

  std::size_t num_candidates() const;
  // Sorted union of the human dimensions over all candidates.
  std::vector<std::string> dimensions() const;
};

// Gives every task without a `lang` field this one (the command lines' --lang); "" does nothing.
// Throws UsageError for a language probity does not know ("klingon"), suggesting near misses.
void set_default_language(Dataset& dataset, const std::string& lang);

// Invalid input: names the file, line and field. Its what() is the complete message.
class InputError : public std::runtime_error {
 public:
  InputError(std::string file, std::size_t line, std::string field, const std::string& message);
  const std::string& file() const { return file_; }
  std::size_t line() const { return line_; }
  const std::string& field() const { return field_; }
  const std::string& detail() const { return detail_; }

 private:
  std::string file_;
  std::size_t line_;
  std::string field_;
  std::string detail_;
};

struct ReadOptions {
  bool skip_invalid = false;  // keep going, record what was skipped
};

// Reads tasks one at a time from a JSONL file so that large files need not fit in memory.
class TaskReader {
 public:
  TaskReader(const std::string& path, ReadOptions options = {});
  // Reads from `in` (standard input, a string); `name` stands for the file in messages.
  TaskReader(std::unique_ptr<std::istream> in, const std::string& name, ReadOptions options = {});
  ~TaskReader();
  TaskReader(const TaskReader&) = delete;
  TaskReader& operator=(const TaskReader&) = delete;
  // Next valid task; false at end of file. Throws InputError unless skip_invalid.
  bool next(Task& task);
  const std::vector<SkipRecord>& skipped() const;
  // Bytes consumed so far (whole lines with their line ends): with the file's size, how far a
  // streaming run has got.
  std::uint64_t bytes_read() const;

 private:
  struct Impl;
  Impl* impl_;
};

// What a file of scores is about: a SHA-256 over every task's id and its candidates' ids and
// texts, in file order. Scores written for one dataset are refused for another.
class ItemsDigest {
 public:
  ItemsDigest();
  ~ItemsDigest();
  ItemsDigest(const ItemsDigest&) = delete;
  ItemsDigest& operator=(const ItemsDigest&) = delete;
  void add(const Task& task);
  std::size_t items() const { return items_; }
  std::string hex();  // 64 hex digits; ends the digest

 private:
  void* ctx_;  // EVP_MD_CTX
  std::size_t items_ = 0;
};
std::string items_digest(const Dataset& dataset);

// Loads a whole dataset; `.csv` files go through the CSV importer, anything else is JSONL.
Dataset load_dataset(const std::string& path, ReadOptions options = {});

// The same readers over text in memory; `name` stands for the file in messages.
Dataset parse_dataset(std::string_view jsonl, const std::string& name, ReadOptions options = {});
Dataset parse_csv_dataset(std::string_view csv, const std::string& name, ReadOptions options = {});

// CSV import: one row per candidate with columns task_id, candidate_id, candidate (text),
// reference or reference_1..reference_k, optional group, system, source, and every other
// numeric column taken as a human rating dimension (or the columns named `human:<dim>`).
Dataset load_csv_dataset(const std::string& path, ReadOptions options = {});

}  // namespace probity
