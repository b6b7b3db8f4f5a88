#pragma once
// The offline, rule-based realisations of strategies of Xu et al. 2025 (§5) and what they share.
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "perturb/textops.hpp"
#include "probity/perturb.hpp"

namespace probity::perturb {

// Common frame of every rule-based strategy: validates the context, seeds the item's PRNG,
// turns "no change" into kUnchanged, and reports exceptions as kFailed.
class RuleStrategy : public Perturbation {
 public:
  RuleStrategy(StrategyKind kind, std::string code, std::string name, std::string description,
               std::string parameters);
  StrategyKind kind() const override { return kind_; }
  std::string code() const override { return code_; }
  std::string name() const override { return name_; }
  std::string description() const override { return description_; }
  std::string signature() const override;
  std::vector<std::string> languages() const override { return languages_; }
  PerturbResult apply(const PerturbContext& context) const final;

 protected:
  // `result.text` defaults to the candidate text; an unchanged text becomes kUnchanged. `lang` is
  // the task's language (task_language), one of languages() unless that is empty.
  virtual PerturbResult run(const PerturbContext& context, std::string_view lang,
                            Rng& rng) const = 0;
  // Restricts the strategy to these languages (the ones its lexicon covers); default: any.
  void set_languages(std::vector<std::string> languages) { languages_ = std::move(languages); }
  bool supports(std::string_view lang) const;

 private:
  StrategyKind kind_;
  std::string code_;
  std::string name_;
  std::string description_;
  std::string parameters_;
  std::vector<std::string> languages_;
};

// The rephrase manipulation's safe synonyms (curated list, else WordNet's first sense; no
// clause reordering) in about half of the sentences, for the attack's "synonym" operator;
// nullopt when no word has one.
std::optional<std::string> substitute_synonyms_once(std::string_view text, Rng& rng);

PerturbResult not_applicable(std::string note);
PerturbResult unchanged(std::string note);
PerturbResult applied(std::string text, std::string note = {});

// Version of the rule-based realisations; part of every signature.
inline constexpr const char* kRulesVersion = "rules-v1";

std::vector<PerturbationInfo> degradation_infos();   // R S D P U O
std::vector<PerturbationInfo> manipulation_infos();  // R M P N H S

// The registry entry of strategy T, read from an instance; the factory makes fresh ones.
template <class T>
PerturbationInfo info_of() {
  T probe;
  return {probe.kind(), probe.code(), probe.name(), probe.description(),
          [] { return std::unique_ptr<Perturbation>(std::make_unique<T>()); }};
}

// The registry entries of strategies Ts, in that order.
template <class... Ts>
std::vector<PerturbationInfo> infos_of() {
  return {info_of<Ts>()...};
}

// What the LLM realisations of the papers' protocol (prompts v2) start from:
// D: the text with every other sentence of each section (the ones S deletes) replaced by
// `marker`; `gaps` is how many (0: no section has a second sentence).
std::string gapped_text(std::string_view text, std::string_view marker, std::size_t& gaps);
// P: the task's weak context, as the rule-based surface report uses it (the lead of a news
// source, at most three sentences; the last turn of a dialogue or question; a paper's
// abstract), at most `max_words` words; `what` names it ("lead of the source", ...) and `kind` the
// text written for such a task ("summary", "response", "review"). Empty when the source has no
// usable text.
std::string weak_context(const Task& task, std::size_t max_words, std::string& what,
                         std::string& kind);

// Shared by strategies: the chunk index of the first word of a sentence, or chunks.size().
std::size_t first_word_index(const std::vector<Chunk>& chunks);
// Number of leading chunks to keep so that at most `max_words` words remain, preferring to stop
// before a phrase boundary (a preposition, conjunction or punctuation) when that keeps at least
// 60% of the budget. Never less than one chunk.
std::size_t cut_at_boundary(const std::vector<Chunk>& chunks, std::size_t max_words);
// Removes trailing punctuation and dangling function words, then ends the chunks with a period
// in the given tokenization ("word ." or "word.").
void end_sentence(std::vector<Chunk>& chunks, bool tokenized);

}  // namespace probity::perturb
