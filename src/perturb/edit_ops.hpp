#pragma once
// Content-free edit operators for `probity attack`: small seeded transformations that
// by construction add no task-relevant information (fillers, hedges, intensifiers, sentiment
// words, reordering, repetition of the candidate's own sentences, casing and tokenisation,
// formatting, padding, instructions addressed to an evaluator). One family copies text from the
// task's source and can add content: it is labelled and off by default.
#include <cstdint>
#include <functional>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "perturb/textops.hpp"
#include "probity/dataset.hpp"

namespace probity::perturb {

struct EditOp {
  std::string name;    // the command-line name, e.g. "filler-end"
  std::string family;  // e.g. "filler", "injection", "copy-source"
  std::string description;
  bool adds_task_content = false;  // copy-source: can add task content, off by default
  // The edited text, or nullopt when the operator does not apply (no sentence to reorder, ...).
  // Random choices come from `rng` only.
  std::function<std::optional<std::string>(std::string_view text, const Task& task, Rng& rng)>
      apply;
};

// The registry of edit operators, keyed by name; extensible like the strategy registry.
class EditOpRegistry {
 public:
  static EditOpRegistry builtin();
  void add(EditOp op);
  const std::vector<EditOp>& all() const { return ops_; }
  const EditOp* find(std::string_view name) const;
  // The operators of these families (empty: every content-free family; "copy-source" only when
  // named or with include_content). std::invalid_argument for an unknown family.
  std::vector<const EditOp*> select(const std::vector<std::string>& families,
                                    bool include_content) const;

 private:
  std::vector<EditOp> ops_;
};

// The generic phrases the content-free operators insert (fillers, hedges, injections, headings,
// ...): they name nothing of any task, so the attack's support guard treats their words as
// adding no information.
const std::vector<std::string_view>& generic_phrases();

// Sentences of a plain text: split after ., ! or ? followed by whitespace (the text's own
// boundaries; empty pieces dropped). Joined back with single spaces by join_sentences.
std::vector<std::string> split_sentences(std::string_view text);
std::string join_sentences(const std::vector<std::string>& sentences);

}  // namespace probity::perturb
