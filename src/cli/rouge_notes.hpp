#pragma once
// The warning that rouge-score's default tokenizer dropped the non-ASCII letters of the texts it
// scored (it keeps [a-z0-9] only, so "Die Größe ist schön" matches "Die Gr e ist sch n").
#include <string>
#include <utility>
#include <vector>

#include "probity/dataset.hpp"

namespace probity::cli {

// Counts the candidates and references of which the default tokenizer drops at least kShare of
// the letters, for the ROUGE metrics that use it; print() warns once, suggesting
// tokenizer=unicode.
class RougeLetterNotes {
 public:
  static constexpr double kShare = 0.05;
  // `metric_names`: the ROUGE metrics with tokenizer=default; none: nothing is counted.
  explicit RougeLetterNotes(std::vector<std::string> metric_names)
      : metrics_(std::move(metric_names)) {}
  void add(const Dataset& ds);
  void print() const;

 private:
  std::vector<std::string> metrics_;
  std::size_t texts_ = 0, affected_ = 0;
  std::string example_;  // the task of the first affected text
};

}  // namespace probity::cli
