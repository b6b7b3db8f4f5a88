// The strategy registry (paper order), the shared strategy frame and per-item seeds.
#include <fmt/format.h>

#include <algorithm>
#include <exception>

#include "perturb/lexicon.hpp"
#include "perturb/strategies.hpp"
#include "probity/error.hpp"
#include "text/ascii.hpp"
#include "text/language.hpp"
#include "util/hash.hpp"
#include "util/random.hpp"

namespace probity {

std::string_view kind_name(StrategyKind kind) {
  return kind == StrategyKind::kDegradation ? "degradation" : "manipulation";
}

std::string_view status_name(PerturbResult::Status status) {
  switch (status) {
    case PerturbResult::Status::kApplied:
      return "applied";
    case PerturbResult::Status::kNotApplicable:
      return "not_applicable";
    case PerturbResult::Status::kUnchanged:
      return "unchanged";
    case PerturbResult::Status::kFailed:
      return "failed";
  }
  return "failed";
}

bool is_language_note(std::string_view note) {
  return note.starts_with(kLanguageNote);
}

std::string task_language(const Task& task) {
  if (!task.lang.empty()) return text::primary_language(task.lang);
  // References first: they are the same for every candidate of the task.
  std::vector<std::string_view> texts;
  texts.reserve(task.references.size() + task.candidates.size());
  for (const auto& r : task.references) texts.emplace_back(r.text);
  for (const auto& c : task.candidates) texts.emplace_back(c.text);
  const text::LanguageGuess guess = text::detect_language(texts);
  if (!guess.code.empty()) return guess.code;
  return guess.latin ? "en" : "und";
}

std::uint64_t item_seed(std::uint64_t seed, std::string_view strategy, std::string_view task_id,
                        std::string_view candidate_id) {
  // FNV-1a from the standard offset basis: stable across platforms and library versions, unlike
  // std::hash.
  std::uint64_t h = util::fnv1a64_u64(seed, util::kFnvOffsetBasis);
  // Length prefixes keep ("ab", "c") and ("a", "bc") apart.
  for (std::string_view part : {strategy, task_id, candidate_id}) {
    h = util::fnv1a64_u64(part.size(), h);
    h = util::fnv1a64(part, h);
  }
  return util::mix64(h);
}

PerturbationRegistry PerturbationRegistry::builtin() {
  PerturbationRegistry r;
  for (auto& info : perturb::degradation_infos()) r.add(std::move(info));
  for (auto& info : perturb::manipulation_infos()) r.add(std::move(info));
  return r;
}

void PerturbationRegistry::add(PerturbationInfo info) {
  for (const auto& existing : infos_) {
    if (existing.kind == info.kind && (existing.code == info.code || existing.name == info.name))
      throw UsageError(fmt::format("{} '{}' ({}) is already registered", kind_name(info.kind),
                                   info.name, info.code));
  }
  infos_.push_back(std::move(info));
}

std::unique_ptr<Perturbation> PerturbationRegistry::create(StrategyKind kind,
                                                           std::string_view code_or_name) const {
  const std::string wanted = text::ascii_lower(code_or_name);
  for (const auto& info : infos_) {
    if (info.kind == kind && (text::ascii_lower(info.code) == wanted || info.name == wanted))
      return info.factory();
  }
  std::string known;
  for (const auto& info : infos_) {
    if (info.kind != kind) continue;
    if (!known.empty()) known += ", ";
    known += fmt::format("{} ({})", info.code, info.name);
  }
  throw UsageError(fmt::format("unknown {} '{}'; known: {}", kind_name(kind), code_or_name, known));
}

std::vector<const PerturbationInfo*> PerturbationRegistry::list(StrategyKind kind) const {
  std::vector<const PerturbationInfo*> out;
  for (const auto& info : infos_)
    if (info.kind == kind) out.push_back(&info);
  return out;
}

std::vector<const PerturbationInfo*> PerturbationRegistry::resolve(
    StrategyKind kind, const std::vector<std::string>& names) const {
  std::vector<const PerturbationInfo*> out;
  for (const auto& n : names) {
    if (n == "all") {  // the rule-based strategies; --perturber llm names the LLM ones
      std::vector<const PerturbationInfo*> rules;
      for (const auto* info : list(kind))
        if (!info->code.starts_with("llm-")) rules.push_back(info);
      return rules;
    }
    std::size_t before = out.size();
    for (const auto* info : list(kind))
      if (info->code == n || info->name == n) out.push_back(info);
    if (out.size() == before) {
      std::string codes;
      for (const auto* i : list(kind)) codes += (codes.empty() ? "" : ", ") + i->code;
      throw UsageError(
          fmt::format("unknown {} strategy '{}' (codes: {})", kind_name(kind), n, codes));
    }
  }
  return out;
}

namespace perturb {

RuleStrategy::RuleStrategy(StrategyKind kind, std::string code, std::string name,
                           std::string description, std::string parameters)
    : kind_(kind),
      code_(std::move(code)),
      name_(std::move(name)),
      description_(std::move(description)),
      parameters_(std::move(parameters)) {}

std::string RuleStrategy::signature() const {
  return fmt::format("{}/{}:{}:{}:{}:lang={}", kind_name(kind_), code_, name_, kRulesVersion,
                     parameters_,
                     languages_.empty() ? "any" : fmt::format("{}", fmt::join(languages_, ",")));
}

bool RuleStrategy::supports(std::string_view lang) const {
  return languages_.empty() ||
         std::find(languages_.begin(), languages_.end(), lang) != languages_.end();
}

PerturbResult RuleStrategy::apply(const PerturbContext& context) const {
  if (context.dataset == nullptr || context.task >= context.dataset->tasks.size() ||
      context.candidate >= context.task_ref().candidates.size()) {
    PerturbResult failed;
    failed.status = PerturbResult::Status::kFailed;
    failed.note = "invalid perturbation context (no dataset, or task/candidate out of range)";
    return failed;
  }
  const Candidate& candidate = context.candidate_ref();
  const std::string lang = task_language(context.task_ref());
  if (!supports(lang))
    return not_applicable(fmt::format("{}: the {} rules cover {}, not {}", kLanguageNote, name_,
                                      fmt::join(languages_, ", "), text::language_name(lang)));
  Rng rng(item_seed(context.seed, name_, context.task_ref().task_id, candidate.id));
  try {
    PerturbResult result = run(context, lang, rng);
    if (result.status == PerturbResult::Status::kApplied && result.text == candidate.text) {
      result.status = PerturbResult::Status::kUnchanged;
      if (result.note.empty()) result.note = "the rules left the text unchanged";
    }
    if (result.status == PerturbResult::Status::kUnchanged) result.text = candidate.text;
    if (result.status == PerturbResult::Status::kNotApplicable) result.text.clear();
    return result;
  } catch (const std::exception& e) {
    PerturbResult failed;
    failed.status = PerturbResult::Status::kFailed;
    failed.note = e.what();
    return failed;
  }
}

PerturbResult not_applicable(std::string note) {
  PerturbResult r;
  r.status = PerturbResult::Status::kNotApplicable;
  r.note = std::move(note);
  return r;
}

PerturbResult unchanged(std::string note) {
  PerturbResult r;
  r.status = PerturbResult::Status::kUnchanged;
  r.note = std::move(note);
  return r;
}

PerturbResult applied(std::string text, std::string note) {
  PerturbResult r;
  r.status = PerturbResult::Status::kApplied;
  r.text = std::move(text);
  r.note = std::move(note);
  return r;
}

std::size_t first_word_index(const std::vector<Chunk>& chunks) {
  for (std::size_t i = 0; i < chunks.size(); ++i)
    if (!split_word(chunks[i].text).core.empty()) return i;
  return chunks.size();
}

std::size_t cut_at_boundary(const std::vector<Chunk>& chunks, std::size_t max_words) {
  std::size_t best = 0, boundary = 0, words = 0;
  for (std::size_t k = 1; k <= chunks.size(); ++k) {
    if (has_alnum(chunks[k - 1].text) && ++words > max_words) break;
    best = k;
    const bool before_boundary =
        k < chunks.size() &&
        (lex::is_split_word(text::ascii_lower(split_word(chunks[k].text).core)) ||
         is_punct_chunk(chunks[k].text) || ends_clause(chunks[k - 1].text));
    if (before_boundary && 5 * words >= 3 * max_words) boundary = k;
  }
  return std::max<std::size_t>(boundary > 0 ? boundary : best, 1);
}

void end_sentence(std::vector<Chunk>& chunks, bool tokenized) {
  auto drop_back = [&] {
    const std::string space = chunks.back().space;
    chunks.pop_back();
    if (!chunks.empty()) chunks.back().space = space;
  };
  for (;;) {
    while (!chunks.empty() && (chunks.back().text.empty() || is_punct_chunk(chunks.back().text)))
      drop_back();
    if (chunks.empty()) return;
    WordParts parts = split_word(chunks.back().text);
    // An initial ("v.") belongs to the name after it.
    const bool initial = parts.core.size() == 1 && parts.trail == "." &&
                         is_capitalized(parts.core) == has_upper(chunks.back().text);
    if (chunks.size() > 2 && initial && parts.core != "i" && parts.core != "I") {
      drop_back();
      continue;
    }
    // Trailing punctuation (", " ";") is replaced by the period below; closing brackets and
    // quotes stay only when their opener is in the sentence, which we do not track: drop them.
    // `parts` views the chunk's text: take what is needed before the text is replaced.
    const std::string low = text::ascii_lower(parts.core);
    chunks.back().text = std::string(parts.lead) + std::string(parts.core);
    // Words that cannot end a sentence: articles, prepositions, conjunctions, auxiliaries.
    const bool dangling = lex::is_determiner(low) || lex::is_split_word(low) ||
                          lex::is_preposition(low) || lex::is_modal(low) || lex::is_copula(low) ||
                          low == "of" || low == "to" || low == "has" || low == "have" ||
                          low == "had" || low == "and" || low == "or" || low == "but" ||
                          low == "'s" || low == "than" || low == "not";
    if (chunks.size() > 2 && dangling) {
      drop_back();
      continue;
    }
    break;
  }
  chunks.back().space.clear();
  if (tokenized) {
    chunks.back().space.assign(1, ' ');
    chunks.push_back({".", "", true});
  } else {
    chunks.back().text += ".";
  }
}

}  // namespace perturb
}  // namespace probity
