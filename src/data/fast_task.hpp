#pragma once
// A fast path of the JSONL task reader: simdjson parses a line some twenty times faster than
// nlohmann's DOM, which matters to `probity score`, which reads large files more than once
// (fitting passes, then scoring). It accepts only plainly valid tasks and declines everything
// the full reader must judge, which then reads the line itself: any JSON or field error, a
// duplicate key in an object it reads (nlohmann keeps the last value, simdjson finds the
// first), a duplicate id, a number simdjson declines (past 64-bit integers or doubles). What it
// accepts, it reads into exactly the Task the full reader makes (tests/data/dataset_test.cpp
// compares the two on every line of the data sets and of the reader's fuzzing corpus).
#include <optional>
#include <string_view>

#include "probity/dataset.hpp"

namespace probity::data {

class FastTaskParser {
 public:
  FastTaskParser();
  ~FastTaskParser();
  FastTaskParser(const FastTaskParser&) = delete;
  FastTaskParser& operator=(const FastTaskParser&) = delete;
  // The task of a line that is valid UTF-8 (checked before), or nullopt to let the full reader
  // read it. Task::line is left 0.
  std::optional<Task> parse(std::string_view line);

 private:
  struct Impl;
  Impl* impl_;
};

// Whether TaskReader uses the fast path (default true); tests turn it off to compare.
void set_fast_task_parsing(bool on);
bool fast_task_parsing();

// simdjson's UTF-8 validation (the same rules as text::first_invalid_utf8: no overlong forms,
// surrogates or code points past U+10FFFF), for the reader's check of every line.
bool valid_utf8(std::string_view s);

}  // namespace probity::data
