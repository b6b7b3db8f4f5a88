// Degradations (Xu et al. 2025, §5): changes a good metric must score lower than the original
// candidate.
#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <map>
#include <memory>
#include <mutex>
#include <tuple>
#include <unordered_map>
#include <unordered_set>

#include "perturb/lexicon.hpp"
#include "perturb/memo.hpp"
#include "perturb/strategies.hpp"
#include "probity/text.hpp"
#include "text/ascii.hpp"
#include "text/language.hpp"
#include "text/rouge_tokenize.hpp"

namespace probity::perturb {
namespace {

using Names = std::unordered_set<std::string>;

std::string core_lower(const Chunk& chunk) {
  return text::ascii_lower(split_word(chunk.text).core);
}

// `word` is one of `options` (string_views: a std::string compared with a literal calls strlen at
// run time).
bool is_any(std::string_view word, std::initializer_list<std::string_view> options) {
  return std::find(options.begin(), options.end(), word) != options.end();
}

std::size_t words_in(const std::vector<Chunk>& chunks, std::size_t begin, std::size_t end) {
  std::size_t n = 0;
  for (std::size_t i = begin; i < end && i < chunks.size(); ++i)
    if (has_alnum(chunks[i].text)) ++n;
  return n;
}

// Sentences of each section, in order: the unit of "every other sentence".
std::map<std::size_t, std::vector<SentenceRef>> sentences_by_section(const Doc& doc) {
  std::map<std::size_t, std::vector<SentenceRef>> sections;
  for (const auto& ref : sentence_refs(doc)) sections[doc.lines[ref.line].section].push_back(ref);
  return sections;
}

std::string& sentence_at(Doc& doc, const SentenceRef& ref) {
  return doc.lines[ref.line].sentences[ref.index];
}

// ---- R: random replacement -------------------------------------------------------------------

// The tasks that can give a replacement, by group: those with candidates, in dataset order.
struct GroupIndex {
  const Dataset* dataset = nullptr;
  const Task* tasks = nullptr;  // with the size, tells a dataset whose tasks changed
  std::size_t size = 0;
  struct Group {
    std::vector<std::size_t> tasks;
    bool repeated_ids = false;  // two of the tasks share a task id
  };
  std::unordered_map<std::string, Group> groups;

  bool indexes(const Dataset& ds) const {
    return dataset == &ds && tasks == ds.tasks.data() && size == ds.tasks.size();
  }
  static std::shared_ptr<const GroupIndex> build(const Dataset& ds) {
    auto index = std::make_shared<GroupIndex>();
    index->dataset = &ds;
    index->tasks = ds.tasks.data();
    index->size = ds.tasks.size();
    std::unordered_map<std::string, std::unordered_set<std::string_view>> ids;
    for (std::size_t t = 0; t < ds.tasks.size(); ++t) {
      const Task& task = ds.tasks[t];
      if (task.candidates.empty()) continue;
      Group& group = index->groups[task.group];
      group.tasks.push_back(t);
      if (!ids[task.group].insert(task.task_id).second) group.repeated_ids = true;
    }
    return index;
  }
};

class RandomReplacement final : public RuleStrategy {
 public:
  RandomReplacement()
      : RuleStrategy(StrategyKind::kDegradation, "R", "random-replacement",
                     "replace the candidate by a candidate of another task in the same group",
                     "other task uniform in group; same system if present else uniform") {}

 protected:
  PerturbResult run(const PerturbContext& context, std::string_view, Rng& rng) const override {
    const Task& self = context.task_ref();
    const auto& tasks = context.dataset->tasks;
    // Drawn uniformly among the other tasks of the group that have candidates, in dataset
    // order. Scanning every task for every candidate made the strategy quadratic in the size of
    // the dataset (~120 us per candidate at 100k candidates), so the tasks of each group are
    // indexed once per dataset; the scan remains for groups with repeated task ids.
    const auto index = group_index(*context.dataset);
    const auto group = index->groups.find(self.group);
    const std::vector<std::size_t>* members = nullptr;
    std::size_t self_at = 0;  // members before the task itself
    if (group != index->groups.end() && !group->second.repeated_ids) {
      members = &group->second.tasks;
      self_at = static_cast<std::size_t>(
          std::lower_bound(members->begin(), members->end(), context.task) - members->begin());
      if (self_at == members->size() || (*members)[self_at] != context.task) members = nullptr;
    }
    std::vector<std::size_t> scanned;
    if (members == nullptr) {
      for (std::size_t t = 0; t < tasks.size(); ++t) {
        if (t == context.task || tasks[t].group != self.group || tasks[t].task_id == self.task_id ||
            tasks[t].candidates.empty())
          continue;
        scanned.push_back(t);
      }
    }
    const std::size_t others = members != nullptr ? members->size() - 1 : scanned.size();
    if (others == 0) return not_applicable(fmt::format("no other task in group '{}'", self.group));
    const std::size_t pick = rng.below(others);
    const std::size_t chosen_task =
        members == nullptr ? scanned[pick] : (*members)[pick < self_at ? pick : pick + 1];
    const Task& other = tasks[chosen_task];
    // The same system's output for the other task keeps length and style comparable, so the
    // replacement differs in content only.
    const Candidate& original = context.candidate_ref();
    const Candidate* chosen = nullptr;
    if (!original.system.empty()) {
      for (const auto& c : other.candidates)
        if (c.system == original.system) chosen = &c;
    }
    if (chosen == nullptr) chosen = &other.candidates[rng.below(other.candidates.size())];
    if (chosen->text == original.text)
      return unchanged(
          fmt::format("task '{}' candidate '{}' has the same text", other.task_id, chosen->id));
    return applied(chosen->text,
                   fmt::format("from task '{}' candidate '{}'", other.task_id, chosen->id));
  }

 private:
  // The index of the dataset of the last call, rebuilt for another dataset or when its tasks
  // were added or removed. (A dataset whose tasks change group in place while one strategy
  // object perturbs it is not supported; every caller creates its strategies per run.)
  std::shared_ptr<const GroupIndex> group_index(const Dataset& ds) const {
    std::lock_guard lock(mutex_);
    if (index_ == nullptr || !index_->indexes(ds)) index_ = GroupIndex::build(ds);
    return index_;
  }

  mutable std::mutex mutex_;
  mutable std::shared_ptr<const GroupIndex> index_;
};

// ---- S: sentence deletion --------------------------------------------------------------------

class SentenceDeletion final : public RuleStrategy {
 public:
  SentenceDeletion()
      : RuleStrategy(StrategyKind::kDegradation, "S", "sentence-deletion",
                     "delete every other sentence within each section (layout kept)",
                     "delete odd positions (0-based) per section") {}

 protected:
  PerturbResult run(const PerturbContext& context, std::string_view, Rng&) const override {
    Doc doc = analyze(context.candidate_ref().text).doc;
    std::size_t deleted = 0;
    for (auto& [section, refs] : sentences_by_section(doc)) {
      for (std::size_t i = 1; i < refs.size(); i += 2) {
        sentence_at(doc, refs[i]).clear();
        ++deleted;
      }
    }
    if (deleted == 0) return unchanged("no section has a second sentence to delete");
    return applied(render_doc(doc),
                   fmt::format("deleted {} of {} sentences", deleted, doc.num_sentences()));
  }
};

// ---- D: deletion and completion --------------------------------------------------------------

// "The results are strong." + "The paper is clear." -> "The results are strong, and the paper
// is clear." Empty when either sentence is not a plain statement.
std::vector<Chunk> conjoin(std::vector<Chunk> a, std::vector<Chunk> b, const Style& style) {
  auto strip_terminal = [](std::vector<Chunk>& c) {
    if (c.empty()) return false;
    if (is_terminal_punct(c.back().text)) {
      if (c.back().text != ".") return false;
      c.pop_back();
      return !c.empty();
    }
    const WordParts p = split_word(c.back().text);
    if (p.trail != ".") return false;
    std::string word(p.lead);
    word += p.core;
    c.back().text = std::move(word);
    return true;
  };
  if (!strip_terminal(a) || !strip_terminal(b) || first_word_index(b) != 0) return {};
  const Names names = {};
  b.front().text = decapitalize_initial(b.front().text, style, names);
  std::vector<Chunk> out = std::move(a);
  out.back().space.assign(1, ' ');
  if (style.tokenized) {
    out.push_back({",", " ", true});
  } else {
    out.back().text += ",";
  }
  out.push_back({"and", " ", true});
  out.insert(out.end(), b.begin(), b.end());
  out.back().space.clear();
  if (style.tokenized) {
    out.back().space.assign(1, ' ');
    out.push_back({".", "", true});
  } else {
    out.back().text += ".";
  }
  return out;
}

// Where a sentence can be cut. "to" (infinitive or preposition) only pairs with itself; "of"
// only keeps its noun phrase slot ("accused stiviano of" + "an nba team").
enum Boundary { kNone, kPreposition, kConjunction, kNounPhrase, kOf, kTo };

Boundary boundary_kind(const Chunk& c) {
  const WordParts parts = split_word(c.text);
  if (!parts.lead.empty() || !parts.trail.empty() || parts.core.empty()) return kNone;
  const std::string low_string = text::ascii_lower(parts.core);
  const std::string_view low = low_string;
  if (low == "to") return kTo;
  if (low == "of") return kOf;
  if (lex::is_split_word(low_string))
    return lex::is_preposition(low_string) ? kPreposition : kConjunction;
  if (low == "a" || low == "an" || low == "the" || low == "his" || low == "her" || low == "their" ||
      low == "its")
    return kNounPhrase;
  return kNone;
}

struct Cut {
  std::size_t i, j;  // head = first[0, i), tail = second[j, end)
};

// A sentence's chunks with each chunk's boundary kind and the word counts before each chunk,
// computed once rather than for every pairing.
struct Cuttable {
  explicit Cuttable(const std::string& sentence) : chunks(to_chunks(sentence)) {
    kinds.reserve(chunks.size());
    words_before.reserve(chunks.size() + 1);
    words_before.push_back(0);
    for (const auto& c : chunks) {
      kinds.push_back(boundary_kind(c));
      words_before.push_back(words_before.back() + (has_alnum(c.text) ? 1 : 0));
    }
  }
  std::size_t size() const { return chunks.size(); }
  // words_in(chunks, begin, end)
  std::size_t words(std::size_t begin, std::size_t end) const {
    return words_before[end] - words_before[begin];
  }

  std::vector<Chunk> chunks;
  std::vector<Boundary> kinds;
  std::vector<std::size_t> words_before;
};

// Cut pairs where the head ends and the tail starts at a boundary word of the same kind
// ("in the record books" for "on the guinness website"), or where the head keeps its
// preposition and the tail starts with a noun phrase.
void find_cuts(const Cuttable& first, const Cuttable& second, bool same,
               std::vector<Cut>& matched) {
  for (std::size_t i = 1; i < first.size(); ++i) {
    const Boundary ka = first.kinds[i];
    if (ka == kNone || first.words(0, i) < 3) continue;
    for (std::size_t j = 1; j < second.size(); ++j) {
      const Boundary kb = second.kinds[j];
      if (kb == kNone || second.words(j, second.size()) < 2) continue;
      if (same && j <= i + 1) continue;  // skip at least one phrase of the sentence
      if (!same && second.words(0, j) < 2) continue;
      if (ka == kb && ka != kOf) {
        matched.push_back({i, j});
      } else if ((ka == kPreposition || ka == kOf) && kb == kNounPhrase) {
        if (!same || j > i + 2) matched.push_back({i + 1, j});
      }
    }
  }
}

std::vector<Chunk> join_at(const std::vector<Chunk>& first, const std::vector<Chunk>& second,
                           Cut cut, const Style& style) {
  std::vector<Chunk> out(first.begin(), first.begin() + static_cast<std::ptrdiff_t>(cut.i));
  // Drop a comma that ended the head ("miles ," / "miles,").
  while (!out.empty() && is_punct_chunk(out.back().text)) out.pop_back();
  if (!out.empty()) {
    WordParts parts = split_word(out.back().text);
    if (parts.trail == "," || parts.trail == ";" || parts.trail == ":") {
      std::string head(parts.lead);
      head += parts.core;
      out.back().text = std::move(head);
    }
    out.back().space.assign(1, ' ');
  }
  out.insert(out.end(), second.begin() + static_cast<std::ptrdiff_t>(cut.j), second.end());
  const std::string last = out.empty() ? "" : out.back().text;
  const bool terminated =
      is_terminal_punct(last) || last.ends_with('.') || last.ends_with('!') || last.ends_with('?');
  if (!terminated) end_sentence(out, style.tokenized);
  return out;
}

// A recombination of two kept sentences: the head of one up to a clause or phrase boundary,
// joined to the tail of the other from a boundary of the same kind. Every word comes from the
// kept sentences, so the filler adds no task information, yet reads like a sentence.
std::string recombine(const std::string& a, const std::string& b, bool same_sentence,
                      const Style& style, Rng& rng) {
  const Cuttable cut_a(a), cut_b(b);
  const std::vector<Chunk>& ca = cut_a.chunks;
  const std::vector<Chunk>& cb = cut_b.chunks;
  std::vector<Cut> ab_matched, ba_matched;
  find_cuts(cut_a, cut_b, same_sentence, ab_matched);
  if (!same_sentence) find_cuts(cut_b, cut_a, false, ba_matched);
  std::vector<Chunk> out;
  // Prefer the previous sentence's head (it keeps the text's order) and matching boundaries.
  for (auto [cuts, first, second] :
       {std::tuple{&ab_matched, &ca, &cb}, std::tuple{&ba_matched, &cb, &ca}}) {
    if (cuts->empty()) continue;
    out = join_at(*first, *second, (*cuts)[rng.below(cuts->size())], style);
    break;
  }
  if (out.empty() && !same_sentence && a != b) {
    // Both neighbours joined into one sentence: "A, and b." adds only a conjunction.
    out = conjoin(ca, cb, style);
  }
  if (out.empty()) {
    // No boundary to recombine at: the head of the previous sentence alone, cut at its last
    // boundary; failing that, the sentence itself (a repetition).
    out = ca;
    std::size_t cut = 0;
    for (std::size_t i = 1; i < ca.size(); ++i) {
      const Boundary k = cut_a.kinds[i];
      if ((k == kPreposition || k == kConjunction) && cut_a.words(0, i) >= 3) cut = i;
    }
    if (cut > 0) {
      out.resize(cut);
      end_sentence(out, style.tokenized);
    }
  }
  if (!out.empty()) out.back().space.clear();
  return join_chunks(out);
}

class DeletionCompletion final : public RuleStrategy {
 public:
  DeletionCompletion()
      : RuleStrategy(StrategyKind::kDegradation, "D", "deletion-completion",
                     "delete every other sentence and fill each gap with a recombination of the "
                     "neighbouring kept sentences",
                     "delete odd positions per section; gap = head(prev kept) + tail(next kept) "
                     "at a random matching boundary") {
    set_languages({"en"});  // the gaps are cut at English prepositions and conjunctions
  }

 protected:
  PerturbResult run(const PerturbContext& context, std::string_view, Rng& rng) const override {
    const std::string& text = context.candidate_ref().text;
    Analysis analysis = analyze(text);
    Doc& doc = analysis.doc;
    const Style style = analysis.style;
    std::size_t filled = 0;
    for (auto& [section, refs] : sentences_by_section(doc)) {
      for (std::size_t k = 1; k < refs.size(); k += 2) {
        // Odd positions are replaced and only even ones are read (k - 3, k - 1, k + 1): the
        // sentences read are still the original ones.
        const std::string& prev = sentence_at(doc, refs[k - 1]);
        std::size_t next_index = k + 1 < refs.size() ? k + 1 : (k >= 3 ? k - 3 : k - 1);
        const std::string& next = sentence_at(doc, refs[next_index]);
        sentence_at(doc, refs[k]) = recombine(prev, next, next_index == k - 1, style, rng);
        ++filled;
      }
    }
    if (filled == 0) return unchanged("no section has a second sentence to replace");
    return applied(render_doc(doc),
                   fmt::format("replaced {} of {} sentences", filled, doc.num_sentences()));
  }
};

// ---- P: surface report -----------------------------------------------------------------------

enum class WeakContext { kLead, kLastTurn, kAbstract };

std::string_view weak_context_name(WeakContext mode) {
  switch (mode) {
    case WeakContext::kLead:
      return "lead of the source";
    case WeakContext::kLastTurn:
      return "last turn of the source";
    case WeakContext::kAbstract:
      return "abstract of the source";
  }
  return "";
}

bool contains_any(const std::string& haystack, std::initializer_list<std::string_view> needles) {
  return std::any_of(needles.begin(), needles.end(),
                     [&](std::string_view n) { return haystack.find(n) != std::string::npos; });
}

// Position just after an "Abstract" label at the start of a line, or npos.
std::size_t abstract_start(const std::string& source) {
  const std::string low = text::ascii_lower(source);
  for (std::size_t at = low.find("abstract"); at != std::string::npos;
       at = low.find("abstract", at + 1)) {
    std::size_t line_begin = low.rfind('\n', at);
    line_begin = line_begin == std::string::npos ? 0 : line_begin + 1;
    std::string_view before(low.data() + line_begin, at - line_begin);
    if (before.find_first_not_of(" \t#*_") != std::string_view::npos) continue;
    std::size_t after = at + 8;
    while (after < low.size() &&
           (low[after] == '*' || low[after] == '_' || low[after] == ':' || low[after] == '.' ||
            low[after] == ' ' || low[after] == '\t' || low[after] == '\n' || low[after] == '-'))
      ++after;
    return after;
  }
  return std::string::npos;
}

WeakContext weak_context_mode(const Task& task) {
  const std::string group = text::ascii_lower(task.group);
  if (contains_any(group, {"review", "iclr", "neurips", "nips", "openreview", "peer", "paper"}))
    return WeakContext::kAbstract;
  if (contains_any(group, {"sum", "news", "cnn", "dailymail"})) return WeakContext::kLead;
  if (contains_any(group, {"chat", "dialog", "conv", "qa", "question", "usr", "persona", "response",
                           "dstc", "wow"}))
    return WeakContext::kLastTurn;
  if (abstract_start(task.source) != std::string::npos) return WeakContext::kAbstract;
  return WeakContext::kLead;
}

// Turns of a dialogue source: " | "-separated (SAMSum style) or one per line.
std::vector<std::string> dialogue_turns(const std::string& source) {
  std::vector<std::string> turns;
  auto push = [&](std::string_view t) {
    while (!t.empty() && (t.front() == ' ' || t.front() == '|' || t.front() == '\t'))
      t.remove_prefix(1);
    while (!t.empty() &&
           (t.back() == ' ' || t.back() == '|' || t.back() == '\t' || t.back() == '\r'))
      t.remove_suffix(1);
    if (!t.empty()) turns.emplace_back(t);
  };
  const bool pipes = source.find(" | ") != std::string::npos || source.starts_with("| ");
  const char sep = pipes ? '|' : '\n';
  std::size_t start = 0;
  for (std::size_t at = source.find(sep); at != std::string::npos; at = source.find(sep, start)) {
    push(std::string_view(source).substr(start, at - start));
    start = at + 1;
  }
  push(std::string_view(source).substr(start));
  return turns;
}

void append_sentences(std::vector<std::string>& pool, std::string_view passage) {
  for (std::size_t start = 0; start <= passage.size();) {
    std::size_t nl = passage.find('\n', start);
    std::string_view line = passage.substr(start, nl == std::string_view::npos ? nl : nl - start);
    for (auto& s : text::split_sentences(line)) pool.push_back(std::move(s));
    if (nl == std::string_view::npos) break;
    start = nl + 1;
  }
}

// Sentences of the weak context, in the order they are used.
std::vector<std::string> weak_context_sentences(const Task& task, WeakContext mode) {
  std::vector<std::string> pool;
  const std::string& source = task.source;
  switch (mode) {
    case WeakContext::kLead: {
      if (source.find(" | ") != std::string::npos || source.starts_with("| ")) {
        for (const auto& turn : dialogue_turns(source)) append_sentences(pool, turn);
      } else {
        append_sentences(pool, source);
      }
      break;
    }
    case WeakContext::kLastTurn: {
      // The last turn (the question) first; earlier turns only when more words are needed.
      auto turns = dialogue_turns(source);
      for (auto it = turns.rbegin(); it != turns.rend(); ++it) append_sentences(pool, *it);
      break;
    }
    case WeakContext::kAbstract: {
      std::size_t start = abstract_start(source);
      if (start == std::string::npos) start = 0;
      std::size_t end = source.find("\n\n", start);
      append_sentences(pool, std::string_view(source).substr(
                                 start, end == std::string::npos ? end : end - start));
      break;
    }
  }
  return pool;
}

// weak_context_sentences(task, mode), kept from the previous call on this thread when the source
// is the same: a task's candidates are mostly perturbed one after another, and splitting a news
// article into sentences costs more than perturbing a summary.
const std::vector<std::string>& weak_context_sentences_cached(const Task& task, WeakContext mode) {
  struct Last {
    bool valid = false;
    WeakContext mode = WeakContext::kLead;
    std::string source;
    std::vector<std::string> sentences;
  };
  thread_local Last last;
  if (!last.valid || last.mode != mode || last.source != task.source) {
    last.valid = false;  // stays invalid if splitting throws
    last.sentences = weak_context_sentences(task, mode);
    last.source = task.source;
    last.mode = mode;
    last.valid = true;
  }
  return last.sentences;
}

// The first `n` words of a natural-text sentence, ended cleanly.
std::string truncate_natural(const std::string& sentence, std::size_t n) {
  auto chunks = to_chunks(sentence);
  chunks.resize(cut_at_boundary(chunks, n));
  end_sentence(chunks, false);
  return join_chunks(chunks);
}

class SurfaceReport final : public RuleStrategy {
 public:
  SurfaceReport()
      : RuleStrategy(StrategyKind::kDegradation, "P", "surface-report",
                     "rebuild the candidate from weak context only (news: lead of the source; "
                     "dialogue/QA: last turn; reviews: abstract), matched to its length and "
                     "layout",
                     "mode by group name then source shape; slot word counts follow the "
                     "candidate's sentences; truncate at 1.25x+2 words") {}

 protected:
  PerturbResult run(const PerturbContext& context, std::string_view lang, Rng&) const override {
    const Task& task = context.task_ref();
    const std::string& text = context.candidate_ref().text;
    if (task.source.find_first_not_of(" \t\r\n") == std::string::npos)
      return not_applicable("task has no source");
    if (count_words(text) == 0) return not_applicable("empty candidate");
    // A source in another language than the candidates (machine translation, cross-lingual
    // summaries) would be pasted in as the "summary": no surface report to build from it.
    const std::string_view source[] = {task.source};
    const text::LanguageGuess source_lang = text::detect_language(source, 4000, 4000);
    if (!source_lang.code.empty() && source_lang.code != lang)
      return not_applicable(
          fmt::format("{}: the source is in {}, the candidates in {}; its sentences are no {} text",
                      kLanguageNote, text::language_name(source_lang.code),
                      text::language_name(lang), text::language_name(lang)));
    const WeakContext mode = weak_context_mode(task);
    const std::vector<std::string>& pool = weak_context_sentences_cached(task, mode);
    if (pool.empty()) return not_applicable("source has no usable text");
    Analysis analysis = analyze(text);
    Doc& doc = analysis.doc;
    const Style style = analysis.style;
    const auto refs = sentence_refs(doc);
    std::size_t next = 0;
    long deficit = 0;
    bool reused = false;
    for (std::size_t r = 0; r < refs.size(); ++r) {
      std::string& slot = sentence_at(doc, refs[r]);
      if (next >= pool.size()) {
        // A short weak context (an abstract under a long review) is used again rather than
        // leaving lines empty or reaching into the rest of the source.
        next = 0;
        reused = true;
      }
      const long target = std::max<long>(1, static_cast<long>(count_words(slot)) + deficit);
      std::string natural = pool[next++];
      long words = static_cast<long>(count_words(natural));
      if (words > target + target / 4 + 2) {
        natural = truncate_natural(natural, static_cast<std::size_t>(target));
        words = static_cast<long>(count_words(natural));
      }
      deficit = target - words;
      // The last slot takes whatever is still missing, so the total length matches.
      while (r + 1 == refs.size() && deficit > 2 && next < pool.size()) {
        std::string more = pool[next];
        if (static_cast<long>(count_words(more)) > deficit + deficit / 4 + 2) {
          if (deficit < 6) break;  // a fragment of two or three words reads as noise
          more = truncate_natural(more, static_cast<std::size_t>(deficit));
        }
        ++next;
        deficit -= static_cast<long>(count_words(more));
        natural += " " + more;
      }
      slot = render(natural, style);
    }
    std::string out = render_doc(doc);
    if (out == text)
      return unchanged(fmt::format("the candidate already is the {}", weak_context_name(mode)));
    return applied(std::move(out), fmt::format("from the {}{}", weak_context_name(mode),
                                               reused ? " (used more than once)" : ""));
  }
};

// ---- U: ultra-concise ------------------------------------------------------------------------

// Counts the terms of a sentence: the tokens of text::rouge_tokenize(sentence, true), in order,
// that are neither function words nor single characters. Each word's stem is remembered (Porter
// stemming took most of the tokenizer's time, and the same words come up for every candidate).
void count_terms(std::string_view sentence, std::unordered_map<std::string, double>& counts) {
  struct Count final : text::RougeTokenSink {
    std::unordered_map<std::string, double>* counts = nullptr;
    void operator()(std::string_view token) override {
      static WordMemo<std::string> stems;
      if (!text::rouge_should_stem(token)) {
        if (token.size() < 2 || lex::is_function_word(token)) return;  // before copying it
        (*counts)[std::string(token)] += 1;
        return;
      }
      std::string term = stems.get(token, [token] { return text::porter_stem(token); });
      if (term.size() < 2 || lex::is_function_word(term)) return;  // empty stems too
      (*counts)[std::move(term)] += 1;
    }
  } count;
  count.counts = &counts;
  std::string scratch;
  text::rouge_scan(sentence, false, scratch, count);
}

// TF-IDF centrality: cosine between each sentence's vector and the whole text's vector, with
// sentences as the documents of the IDF.
std::vector<double> centrality(const std::vector<std::string_view>& sentences) {
  std::vector<std::unordered_map<std::string, double>> tf(sentences.size());
  // Per term: the number of sentences with it, its IDF weight and its weight in the whole text.
  // Its insertion order is that of the text's weights in one map of their own (both follow the
  // sentences' terms), so the sum over it below adds in the same order.
  struct Term {
    double df = 0, idf = 0, doc = 0;
  };
  std::unordered_map<std::string, Term> terms;
  for (std::size_t s = 0; s < sentences.size(); ++s) {
    count_terms(sentences[s], tf[s]);
    for (const auto& [tok, n] : tf[s]) terms[tok].df += 1;
  }
  const double n_sent = static_cast<double>(sentences.size());
  for (auto& [tok, term] : terms) term.idf = std::log(1.0 + n_sent / term.df);
  for (const auto& counts : tf) {
    for (const auto& [tok, n] : counts) {
      Term& term = terms.find(tok)->second;
      term.doc += n * term.idf;
    }
  }
  double doc_norm = 0;
  for (const auto& [tok, term] : terms) doc_norm += term.doc * term.doc;
  std::vector<double> scores(sentences.size(), 0.0);
  for (std::size_t s = 0; s < sentences.size(); ++s) {
    double dot = 0, norm = 0;
    for (const auto& [tok, n] : tf[s]) {
      const Term& term = terms.find(tok)->second;
      const double w = n * term.idf;
      dot += w * term.doc;
      norm += w * w;
    }
    scores[s] = norm > 0 && doc_norm > 0 ? dot / std::sqrt(norm * doc_norm) : 0.0;
  }
  return scores;
}

bool is_comma(const Chunk& c) {
  return c.text == "," || (!is_punct_chunk(c.text) && split_word(c.text).trail == ",");
}

// Drops one comma-delimited aside of at most 8 words ("the whale , named varvara , swam" ->
// "the whale swam"); false when there is none.
bool drop_comma_aside(std::vector<Chunk>& chunks) {
  for (std::size_t i = 0; i < chunks.size(); ++i) {
    if (!is_comma(chunks[i])) continue;
    for (std::size_t j = i + 1; j < chunks.size() && j <= i + 9; ++j) {
      if (!is_comma(chunks[j])) continue;
      const std::size_t inner = words_in(chunks, i + 1, j + 1);
      if (inner == 0 || inner > 8 || words_in(chunks, j + 1, chunks.size()) < 2 ||
          words_in(chunks, 0, i + 1) < 1)
        break;
      if (chunks[i].text == ",") {
        // Tokenized: remove ", aside ," including both commas.
        chunks.erase(chunks.begin() + static_cast<std::ptrdiff_t>(i),
                     chunks.begin() + static_cast<std::ptrdiff_t>(j + 1));
      } else {
        const WordParts p = split_word(chunks[i].text);
        std::string head(p.lead);
        head += p.core;
        chunks[i].text = std::move(head);
        chunks[i].space = chunks[j].space;
        chunks.erase(chunks.begin() + static_cast<std::ptrdiff_t>(i + 1),
                     chunks.begin() + static_cast<std::ptrdiff_t>(j + 1));
      }
      return true;
    }
  }
  return false;
}

// Drops "( ... )" and "-- ... --" asides.
std::vector<Chunk> drop_asides(std::vector<Chunk> chunks) {
  std::vector<Chunk> out;
  out.reserve(chunks.size());
  int depth = 0;
  for (auto& c : chunks) {
    const WordParts parts = split_word(c.text);
    const bool opens = c.text.starts_with('(') || c.text.starts_with('[');
    const bool closes =
        c.text.find(')') != std::string::npos || c.text.find(']') != std::string::npos;
    if (opens && !(closes && !parts.core.empty() && c.text.back() != ')')) ++depth;
    if (depth == 0) out.push_back(std::move(c));
    if (closes && depth > 0) --depth;
  }
  if (out.empty()) return chunks;  // when nothing was kept, nothing was moved
  return out;
}

class UltraConcise final : public RuleStrategy {
 public:
  UltraConcise()
      : RuleStrategy(StrategyKind::kDegradation, "U", "ultra-concise",
                     "compress to about 10% of the words: the most central sentence (TF-IDF), "
                     "asides and articles dropped, cut at a phrase boundary",
                     "target=max(5,round(0.10*words)); centrality=tfidf cosine to the text") {
    set_languages({"en"});  // English function words and phrase boundaries
  }

 protected:
  PerturbResult run(const PerturbContext& context, std::string_view, Rng&) const override {
    const std::string& text = context.candidate_ref().text;
    const std::size_t total = count_words(text);
    const std::size_t target =
        std::max<std::size_t>(5, static_cast<std::size_t>(std::lround(0.10 * double(total))));
    if (total <= target) return unchanged("the candidate is already this short");
    const Analysis analysis = analyze(text);
    const Doc& doc = analysis.doc;
    const Style style = analysis.style;
    std::vector<std::string_view> sentences;  // views into `doc`, which stays as it is
    for (const auto& ref : sentence_refs(doc))
      sentences.push_back(doc.lines[ref.line].sentences[ref.index]);
    if (sentences.empty()) return unchanged("no sentence found");
    const std::vector<double> scores = centrality(sentences);
    std::vector<std::size_t> order(sentences.size());
    for (std::size_t i = 0; i < order.size(); ++i) order[i] = i;
    std::stable_sort(order.begin(), order.end(),
                     [&](std::size_t a, std::size_t b) { return scores[a] > scores[b]; });
    // Among the near-most-central sentences, the first that compresses without a ragged cut.
    std::vector<Chunk> best;
    for (std::size_t rank = 0; rank < order.size() && rank < 3; ++rank) {
      if (rank > 0 && scores[order[rank]] < 0.6 * scores[order[0]]) break;
      bool clean = false;
      auto chunks = compress(sentences[order[rank]], target, style, clean);
      if (rank == 0) best = chunks;
      if (clean) {
        best = std::move(chunks);
        break;
      }
    }
    const std::string out = join_chunks(best);
    return applied(out, fmt::format("{} of {} words", count_words(out), total));
  }

 private:
  // Headline-style compression of one sentence to at most `target` words.
  static std::vector<Chunk> compress(std::string_view sentence, std::size_t target,
                                     const Style& style, bool& clean) {
    auto chunks = to_chunks(sentence);
    const std::size_t first_word = first_word_index(chunks);
    const bool capitalized =
        first_word < chunks.size() && is_capitalized(split_word(chunks[first_word].text).core);
    chunks = drop_asides(std::move(chunks));
    auto over = [&] { return words_in(chunks, 0, chunks.size()) > target; };
    // A fronted adverbial or subordinate clause ("on tuesday ,", "after X did Y ,") goes: the
    // main clause carries the news.
    if (const std::size_t f = first_word_index(chunks); over() && f < chunks.size()) {
      const std::string lead = core_lower(chunks[f]);
      if (lex::is_preposition(lead) || lex::is_subordinator(lead) || lead == "after" ||
          lead == "before" || lead == "as") {
        for (std::size_t k = f; k < chunks.size(); ++k) {
          if (!is_comma(chunks[k])) continue;
          const std::size_t start = chunks[k].text == "," ? k + 1 : k + 1;
          if (words_in(chunks, start, chunks.size()) >= 3 && words_in(chunks, f, start) <= 25)
            chunks.erase(chunks.begin(), chunks.begin() + static_cast<std::ptrdiff_t>(start));
          break;
        }
      }
    }
    while (over() && drop_comma_aside(chunks)) {
    }
    // A reporting frame ("it said", "police say that") goes as well.
    if (const std::size_t f = first_word_index(chunks); over() && f < chunks.size()) {
      for (std::size_t k = f + 1; k < chunks.size() && k <= f + 3; ++k) {
        const std::string w = core_lower(chunks[k]);
        if (!is_any(w, {"said", "says", "say", "told", "reported"})) continue;
        std::size_t start = k + 1;
        if (start < chunks.size() && core_lower(chunks[start]) == "that") ++start;
        if (split_word(chunks[k].text).trail.empty() && words_in(chunks, start, chunks.size()) >= 4)
          chunks.erase(chunks.begin(), chunks.begin() + static_cast<std::ptrdiff_t>(start));
        break;
      }
    }
    if (over()) {
      // Articles and perfect-tense auxiliaries go first, as in a headline.
      std::vector<bool> keep(chunks.size(), true);
      std::size_t kept_words = 0;
      for (std::size_t i = 0; i < chunks.size(); ++i) {
        const std::string low = core_lower(chunks[i]);
        const bool bare = split_word(chunks[i].text).trail.empty();
        const std::string next = i + 1 < chunks.size() ? core_lower(chunks[i + 1]) : "";
        if ((bare && is_any(low, {"a", "an", "the"})) ||
            (bare && is_any(low, {"has", "have", "had"}) && next.size() > 3 &&
             next.ends_with("ed"))) {
          keep[i] = false;
          continue;
        }
        kept_words += has_alnum(chunks[i].text) ? 1 : 0;
      }
      // Only when at least two words remain; the chunks are moved once that is known.
      if (kept_words >= 2) {
        std::vector<Chunk> kept;
        for (std::size_t i = 0; i < chunks.size(); ++i)
          if (keep[i]) kept.push_back(std::move(chunks[i]));
        chunks = std::move(kept);
      }
    }
    clean = !over();
    if (!clean) {
      const std::size_t keep = cut_at_boundary(chunks, target);
      clean = keep < chunks.size() &&
              (lex::is_split_word(core_lower(chunks[keep])) || is_punct_chunk(chunks[keep].text) ||
               ends_clause(chunks[keep - 1].text));
      chunks.resize(keep);
    }
    end_sentence(chunks, style.tokenized);
    const std::size_t first = first_word_index(chunks);
    if (capitalized && first < chunks.size() && style.casing != CaseStyle::kLower)
      chunks[first].text = capitalize(chunks[first].text);
    return chunks;
  }
};

// ---- O: opinion flip -------------------------------------------------------------------------

bool ends_with_any(const std::string& s, std::initializer_list<std::string_view> suffixes) {
  return std::any_of(suffixes.begin(), suffixes.end(),
                     [&](std::string_view x) { return s.ends_with(x); });
}

bool is_clause_coordinator(std::string_view low) {
  return low == "and" || low == "but" || low == "or" || low == "while" || low == "whereas" ||
         low == "although" || low == "though" || low == "however" || low == "yet" ||
         low == "because";
}

bool is_degree_adverb(std::string_view low) {
  return low == "very" || low == "quite" || low == "really" || low == "so" || low == "too" ||
         low == "extremely" || low == "truly" || low == "highly" || low == "strongly" ||
         low == "particularly" || low == "especially" || low == "fairly" || low == "rather" ||
         low == "pretty" || low == "remarkably" || low == "clearly" || low == "definitely" ||
         low == "certainly" || low == "also" || low == "still" || low == "always";
}

// Replaces the word of a chunk keeping its punctuation and case pattern.
void set_core(Chunk& chunk, const std::string& word) {
  const WordParts parts = split_word(chunk.text);
  chunk.text = std::string(parts.lead) + match_case(word, parts.core) + std::string(parts.trail);
  chunk.changed = true;
}

Chunk new_chunk(std::string text) {
  return Chunk{std::move(text), " ", true};
}

class OpinionFlipper {
 public:
  explicit OpinionFlipper(std::vector<Chunk> chunks) : c_(std::move(chunks)) {
    low_.reserve(c_.size());
    for (const auto& ch : c_) low_.push_back(core_lower(ch));
  }

  std::size_t flips() const { return flips_; }

  std::vector<Chunk> run() {
    std::size_t begin = 0;
    for (std::size_t i = 0; i <= c_.size(); ++i) {
      const bool boundary = i == c_.size() || (i > begin && is_clause_coordinator(low_[i]));
      if (boundary) {
        clause(begin, i);
        begin = i;
      }
      if (i < c_.size() && ends_clause(c_[i].text)) {
        clause(begin, i + 1);
        begin = i + 1;
      }
    }
    if (flips_ == 0) return {};  // nothing changed: the caller keeps the sentence
    std::vector<Chunk> out;
    for (std::size_t i = 0; i < c_.size(); ++i) {
      for (auto& ins : before_[i]) out.push_back(std::move(ins));
      if (!deleted_[i]) out.push_back(std::move(c_[i]));
      for (auto& ins : after_[i]) out.push_back(std::move(ins));
    }
    fix_articles(out);
    return out;
  }

 private:
  // Lower-cased words ("" when none), by reference: they are asked for every word.
  const std::string& word(std::size_t i) const { return i < low_.size() ? low_[i] : kNoWord; }
  const std::string& prev_word(std::size_t i) const {
    for (std::size_t k = i; k-- > 0;)
      if (!low_[k].empty()) return low_[k];
    return kNoWord;
  }
  const std::string& next_word(std::size_t i) const {
    for (std::size_t k = i + 1; k < low_.size(); ++k)
      if (!low_[k].empty()) return low_[k];
    return kNoWord;
  }
  static inline const std::string kNoWord;

  bool flippable(std::size_t i) const {
    const std::string& w = low_[i];
    if (w.empty()) return false;
    if (lex::is_negatable_evaluative(w) || lex::is_recommend_verb(w) || !hyphen_flip(w).empty())
      return true;
    const std::string antonym = lex::flip_antonym(w);
    return !antonym.empty() && context_allows(i, antonym);
  }

  static std::string hyphen_flip(const std::string& w) {
    const auto dash = w.find('-');
    if (dash == std::string::npos || dash == 0) return {};
    const std::string head = w.substr(0, dash), rest = w.substr(dash);
    if (head == "well") return "poorly" + rest;
    if (head == "poorly" || head == "badly" || head == "ill") return "well" + rest;
    return {};
  }

  void remove(std::size_t i) { deleted_[i] = true; }

  void clause(std::size_t begin, std::size_t end) {
    if (begin >= end) return;
    // 1. A negation over an evaluative word: removing it is the flip ("not convincing" ->
    //    "convincing", "do not recommend" -> "recommend").
    for (std::size_t q = begin; q < end; ++q) {
      if (!lex::is_negator(low_[q]) || low_[q] == "never") continue;
      if (word(q + 1) == "only") continue;  // "not only ... but also"
      // The negation scopes over the rest of its clause ("I do not think the baselines are
      // strong"), which the clause boundaries keep short.
      std::size_t target = end;
      for (std::size_t k = q + 1; k < end; ++k) {
        if (flippable(k)) {
          target = k;
          break;
        }
      }
      if (target == end) continue;
      remove_negation(q);
      ++flips_;
      return;  // the rest of the clause was under the negation's scope
    }
    // 2. Word-level flips.
    bool verdict_flipped = false;
    std::vector<std::size_t> recommends;
    for (std::size_t i = begin; i < end; ++i) {
      const std::string& w = low_[i];
      if (w.empty()) continue;
      if (lex::is_recommend_verb(w)) {
        recommends.push_back(i);
        continue;
      }
      if (lex::is_fixed_collocation(w, next_word(i)) || lex::is_fixed_collocation(prev_word(i), w))
        continue;
      std::string antonym = lex::flip_antonym(w);
      if (antonym.empty()) antonym = hyphen_flip(w);
      if (!antonym.empty() && context_allows(i, antonym)) {
        set_core(c_[i], antonym);
        if (lex::is_verdict_word(w)) verdict_flipped = true;
        ++flips_;
        continue;
      }
      if (lex::is_negatable_evaluative(w)) {
        // Attach "not" to the copula before it ("is groundbreaking" -> "is not groundbreaking").
        std::size_t k = i;
        while (k > begin && is_degree_adverb(low_[k - 1])) --k;
        if (k > begin && lex::is_copula(low_[k - 1]) && low_[k - 1] != "'s") {
          after_[k - 1].push_back(new_chunk("not"));
          ++flips_;
        }
      }
    }
    // 3. "recommend" without a flipped verdict noun is negated ("I recommend this paper" ->
    //    "I do not recommend this paper"); with one, the noun flip already reversed it.
    if (verdict_flipped) return;
    for (std::size_t i : recommends) {
      negate_verb(i, begin);
      ++flips_;
    }
  }

  bool context_allows(std::size_t i, const std::string& antonym) const {
    const std::string& w = low_[i];
    const std::string prev = i > 0 ? low_[i - 1] : std::string();
    if (w == "like" || w == "likes" || w == "liked") {
      // Only the verb of an opinion: "i like", "they really liked"; not the preposition
      // ("looks like a", "they, like us,") nor a wish ("would like to", "i'd like a refund").
      if (i > 0 && !split_word(c_[i - 1].text).trail.empty()) return false;
      return lex::is_subject_pronoun(prev) || prev == "really" || prev == "also" || prev == "to" ||
             prev == "do" || prev == "did" || prev == "does" || lex::is_negator(prev);
    }
    if (w == "original") {
      // Evaluative only as a predicate ("the idea is original"), not "the original bathroom".
      return lex::is_copula(prev) || is_degree_adverb(prev);
    }
    if (w == "well") {
      // "well written", "works well"; not "as well" or an interjection ("well, ...").
      const std::string& next = next_word(i);
      if (prev == "as" || prev.empty() ||
          (!split_word(c_[i].text).trail.empty() && split_word(c_[i].text).trail != "."))
        return false;
      return ends_with_any(next, {"ed", "en", "wn"}) || lex::word_classes(prev).verb;
    }
    // An adjective-forming antonym ("incorrect") cannot replace a verb ("to correct").
    if (antonym.starts_with("un") || antonym.starts_with("in") || antonym.starts_with("im") ||
        antonym.starts_with("ir") || antonym.starts_with("il")) {
      if (prev == "to" || lex::is_modal(prev) || lex::is_subject_pronoun(prev)) return false;
    }
    return true;
  }

  // A bare verb right after the negation, which do-support can hand its tense to.
  bool base_verb_at(std::size_t i) const {
    if (i >= low_.size() || low_[i].empty() || !split_word(c_[i].text).lead.empty()) return false;
    const std::string& w = low_[i];
    if (w.ends_with("ed") || w.ends_with("ing") || lex::is_function_word(w)) return false;
    return w == "have" || w == "do" || lex::word_classes(w).verb;
  }

  // "does not recommend" -> "recommends", "isn't" -> "is", "would not" -> "would".
  void remove_negation(std::size_t q) {
    const std::string& neg = low_[q];
    const bool separate = neg == "not" || neg == "n't";
    const std::string aux =
        separate ? (q > 0 ? low_[q - 1] : std::string()) : lex::drop_negation(neg);
    // "do/does not V" -> "V/Vs"; "did not V" keeps "did V" (no irregular pasts to guess).
    if ((aux == "do" || aux == "does") && base_verb_at(q + 1)) {
      const bool capital = is_capitalized(split_word(c_[separate ? q - 1 : q].text).core);
      const std::string verb =
          aux == "does" ? lex::third_person_singular(low_[q + 1]) : low_[q + 1];
      set_core(c_[q + 1], capital ? capitalize(verb) : verb);
      if (separate) remove(q - 1);
      remove(q);
      return;
    }
    if (separate) {
      if (neg == "n't" && (aux == "ca" || aux == "wo"))
        set_core(c_[q - 1], aux == "ca" ? "can" : "will");
      remove(q);
      return;
    }
    set_core(c_[q], aux);
  }

  void negate_verb(std::size_t i, std::size_t begin) {
    const std::string& w = low_[i];
    // Modal or copula (possibly across degree adverbs): "would recommend", "is highly
    // recommended" -> "would not recommend", "is not highly recommended".
    std::size_t k = i;
    while (k > begin && is_degree_adverb(low_[k - 1])) --k;
    if (k > begin &&
        (lex::is_modal(low_[k - 1]) || lex::is_copula(low_[k - 1]) || low_[k - 1] == "to")) {
      if (low_[k - 1] == "to")
        before_[k - 1].push_back(new_chunk("not"));
      else
        after_[k - 1].push_back(new_chunk("not"));
      return;
    }
    std::string aux = "do";
    std::string base = w;
    if (w.ends_with("ing")) {
      before_[k].push_back(new_chunk("not"));
      return;
    }
    if (w.ends_with("s")) {
      aux = "does";
      base = w.substr(0, w.size() - 1);
    } else if (w.ends_with("ed")) {
      aux = "did";
      base = w.substr(0, w.size() - (w == "endorsed" ? 1 : 2));
    }
    set_core(c_[i], base);
    // A sentence-initial verb ("Recommend ...") hands its capital to the auxiliary.
    const bool initial = k == first_word_index(c_) && is_capitalized(split_word(c_[k].text).core);
    if (initial) c_[k].text = text::ascii_lower(c_[k].text);
    before_[k].push_back(new_chunk(initial ? capitalize(aux) : aux));
    before_[k].push_back(new_chunk("not"));
  }

  std::vector<Chunk> c_;
  std::vector<std::string> low_;
  std::vector<bool> deleted_ = std::vector<bool>(c_.size(), false);
  std::vector<std::vector<Chunk>> before_ = std::vector<std::vector<Chunk>>(c_.size());
  std::vector<std::vector<Chunk>> after_ = std::vector<std::vector<Chunk>>(c_.size());
  std::size_t flips_ = 0;
};

// German: per clause (split at , ; : . ! ? and "und", "aber", "sondern", "doch", "oder"), a
// negation over an evaluative word is removed ("ist nicht gut" -> "ist gut", "keine gute Idee" ->
// "eine gute Idee"); without one, every evaluative word takes its antonym, inflection kept. A
// German negation may follow what it negates ("gefällt mir nicht"), so its scope is the clause.
class GermanOpinionFlipper {
 public:
  explicit GermanOpinionFlipper(std::vector<Chunk> chunks) : c_(std::move(chunks)) {
    for (const auto& ch : c_) low_.push_back(core_lower(ch));
    deleted_.assign(c_.size(), false);
  }
  std::size_t flips() const { return flips_; }

  std::vector<Chunk> run() {
    std::size_t begin = 0;
    for (std::size_t i = 0; i <= c_.size(); ++i) {
      if (i == c_.size() || (i > begin && lex::de::is_clause_coordinator(low_[i]))) {
        clause(begin, i);
        begin = i;
      }
      if (i < c_.size() && ends_clause(c_[i].text)) {
        clause(begin, i + 1);
        begin = i + 1;
      }
    }
    if (flips_ == 0) return {};
    std::vector<Chunk> out;
    for (std::size_t i = 0; i < c_.size(); ++i) {
      if (!deleted_[i]) {
        out.push_back(std::move(c_[i]));
      } else if (!out.empty()) {
        // "gefällt mir nicht." -> "gefällt mir.": the removed word's punctuation and the space
        // after it stay.
        out.back().text += std::string(split_word(c_[i].text).trail);
        out.back().space = c_[i].space;
      }
    }
    return out;
  }

 private:
  std::string antonym(std::size_t i, std::size_t end) const {
    if (low_[i] == "schlechter" && i + 1 < end && low_[i + 1] == "als") return "besser";
    return lex::de::flip_antonym(low_[i]);
  }

  void clause(std::size_t begin, std::size_t end) {
    bool evaluative = false;
    for (std::size_t i = begin; i < end; ++i) evaluative |= !antonym(i, end).empty();
    if (!evaluative) return;
    for (std::size_t q = begin; q < end; ++q) {
      const auto dropped = lex::de::drop_negation(low_[q]);
      if (!dropped) continue;
      const std::string next = q + 1 < end ? low_[q + 1] : std::string();
      // "nicht nur ... sondern auch", "nicht mehr", "nicht einmal": not a verdict's negation.
      if (next == "nur" || next == "mehr" || next == "einmal") continue;
      if (dropped->empty() && q == 0) continue;  // "Nicht ..." would lose the capital
      if (dropped->empty()) {
        deleted_[q] = true;
        // "gar nicht", "überhaupt nicht" go as a whole.
        if (q > begin && (low_[q - 1] == "gar" || low_[q - 1] == "überhaupt"))
          deleted_[q - 1] = true;
      } else {
        set_core(c_[q], *dropped);
      }
      ++flips_;
      return;  // the clause was under the negation's scope
    }
    for (std::size_t i = begin; i < end; ++i) {
      const std::string a = antonym(i, end);
      if (a.empty()) continue;
      set_core(c_[i], a);
      ++flips_;
    }
  }

  std::vector<Chunk> c_;
  std::vector<std::string> low_;
  std::vector<bool> deleted_;
  std::size_t flips_ = 0;
};

class OpinionFlip final : public RuleStrategy {
 public:
  OpinionFlip()
      : RuleStrategy(StrategyKind::kDegradation, "O", "opinion-flip",
                     "reverse the evaluative verdict: antonyms of polarity words, negation "
                     "removed or inserted, accept<->reject, recommend<->not recommend",
                     "curated antonyms + WordNet direct antonyms of evaluative adjectives; one "
                     "negation flip per clause; German: curated antonyms, nicht/kein removed") {
    set_languages({"en", "de"});  // per-language antonyms and negation rules
  }

 protected:
  PerturbResult run(const PerturbContext& context, std::string_view lang, Rng&) const override {
    const std::string& text = context.candidate_ref().text;
    Doc doc = analyze(text).doc;
    std::size_t flips = 0;
    auto flip = [&](std::string& s) {
      if (lang == "de") {
        GermanOpinionFlipper flipper(to_chunks(s));
        auto out = flipper.run();
        if (flipper.flips() > 0) s = join_chunks(out);
        flips += flipper.flips();
        return;
      }
      OpinionFlipper flipper(to_chunks(s));
      auto out = flipper.run();
      if (flipper.flips() > 0) s = join_chunks(out);
      flips += flipper.flips();
    };
    for (auto& line : doc.lines) {
      if (line.kind == Line::Kind::kHeader) flip(line.content);
      for (auto& sentence : line.sentences) flip(sentence);
    }
    if (flips == 0) return unchanged("no evaluative word could be flipped");
    return applied(render_doc(doc), fmt::format("{} flips", flips));
  }
};

}  // namespace

std::string gapped_text(std::string_view text, std::string_view marker, std::size_t& gaps) {
  Doc doc = parse_doc(text);
  gaps = 0;
  for (auto& [section, refs] : sentences_by_section(doc)) {
    for (std::size_t i = 1; i < refs.size(); i += 2) {
      sentence_at(doc, refs[i]) = std::string(marker);
      ++gaps;
    }
  }
  return render_doc(doc);
}

std::string weak_context(const Task& task, std::size_t max_words, std::string& what,
                         std::string& kind) {
  const WeakContext mode = weak_context_mode(task);
  what = std::string(weak_context_name(mode));
  kind = mode == WeakContext::kAbstract   ? "review"
         : mode == WeakContext::kLastTurn ? "response"
                                          : "summary";
  std::string out;
  std::size_t words = 0, sentences = 0;
  for (const auto& sentence : weak_context_sentences(task, mode)) {
    // News: the headline and lead paragraph, no further (Xu et al. 2025, Table 1).
    if (mode == WeakContext::kLead && sentences++ == 3) break;
    const std::size_t n = count_words(sentence);
    if (words > 0 && words + n > max_words) break;
    if (!out.empty()) out += ' ';
    out += words + n > max_words ? truncate_natural(sentence, max_words - words) : sentence;
    words += n;
  }
  return out;
}

std::vector<PerturbationInfo> degradation_infos() {
  return infos_of<RandomReplacement, SentenceDeletion, DeletionCompletion, SurfaceReport,
                  UltraConcise, OpinionFlip>();
}

}  // namespace probity::perturb
