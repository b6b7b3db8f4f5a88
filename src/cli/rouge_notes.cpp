#include "cli/rouge_notes.hpp"

#include <fmt/format.h>
#include <fmt/ranges.h>

#include "text/rouge_letters.hpp"

namespace probity::cli {

void RougeLetterNotes::add(const Dataset& ds) {
  if (metrics_.empty()) return;
  auto count = [&](const std::string& text, const std::string& task) {
    ++texts_;
    const auto loss = text::rouge_default_letter_loss(text);
    if (loss.dropped > 0 &&
        static_cast<double>(loss.dropped) >= kShare * static_cast<double>(loss.letters)) {
      if (affected_++ == 0) example_ = task;
    }
  };
  for (const auto& t : ds.tasks) {
    for (const auto& r : t.references) count(r.text, t.task_id);
    for (const auto& c : t.candidates) count(c.text, t.task_id);
  }
}

void RougeLetterNotes::print() const {
  if (affected_ == 0) return;
  fmt::print(stderr,
             "warning: {}: rouge-score's default tokenizer keeps only a-z and 0-9; it dropped at "
             "least {:.0f}% of the letters of {} of {} texts (first in task {}), which then "
             "score as if those letters were not there. For text beyond ASCII use "
             "tokenizer=unicode (e.g. {},tokenizer=unicode)\n",
             fmt::join(metrics_, ", "), 100 * kShare, affected_, texts_, example_,
             metrics_.front());
}

}  // namespace probity::cli
