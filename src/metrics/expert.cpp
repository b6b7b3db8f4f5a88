// ExPerT, offline realisation (see expert.hpp).
#include "metrics/expert.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <array>
#include <cctype>
#include <cmath>
#include <limits>
#include <map>
#include <nlohmann/json.hpp>
#include <stdexcept>
#include <unordered_set>

#include "llm/prompts.hpp"
#include "llm/session.hpp"
#include "llm/structured.hpp"
#include "metrics/builtin.hpp"
#include "metrics/mi/mi_metric.hpp"
#include "probity/error.hpp"
#include "probity/mi.hpp"
#include "probity/signature.hpp"
#include "probity/text.hpp"
#include "text/ascii.hpp"
#include "text/stopwords.hpp"
#include "util/hash.hpp"
#include "util/parallel.hpp"
#include "util/random.hpp"

namespace probity::metrics::expert {

// Lower-case alphanumeric words ("Sterling's" → "sterling", "s").
// Truncation to the first `max` whitespace words, as ExPerT does without a tokenizer.
std::string truncate_words(std::string_view text, std::size_t max) {
  std::size_t words = 0;
  bool in_word = false;
  for (std::size_t i = 0; i < text.size(); ++i) {
    const bool space = std::isspace(static_cast<unsigned char>(text[i])) != 0;
    if (!space && !in_word && ++words > max) return std::string(text.substr(0, i));
    in_word = !space;
  }
  return std::string(text);
}

std::vector<std::string> words_of(std::string_view s) {
  std::vector<std::string> out;
  std::string cur;
  for (char c : s) {
    if (std::isalnum(static_cast<unsigned char>(c))) {
      cur += static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
    } else if (!cur.empty()) {
      out.push_back(std::move(cur));
      cur.clear();
    }
  }
  if (!cur.empty()) out.push_back(std::move(cur));
  return out;
}

namespace {

using json = nlohmann::ordered_json;

constexpr std::size_t kMaxCachedAnalyses = 100000;

constexpr std::array<std::string_view, kAggregations> kAggNames = {"content", "style", "and", "or",
                                                                   "average"};

// Function words of the stylometric profile: the most frequent English closed-class words,
// whose relative use is a classic authorship and register signal.
constexpr std::array<std::string_view, 40> kFunctionWords = {
    "the", "a",    "an",  "of",   "to",    "in",   "on",    "for", "with", "at",
    "by",  "from", "and", "but",  "or",    "that", "which", "who", "is",   "was",
    "are", "were", "be",  "been", "has",   "have", "had",   "it",  "its",  "he",
    "she", "they", "his", "her",  "their", "this", "not",   "as",  "will", "said"};

// Punctuation types of the profile; the last slot of the distribution is "no punctuation".
constexpr std::string_view kPunct = ",.;:!?\"'(-";

constexpr std::array<std::string_view, 10> kPersonal = {"i",    "we", "you", "my",   "our",
                                                        "your", "me", "us",  "mine", "ours"};

std::string lower_ascii(std::string_view s) {
  return text::ascii_lower(s);
}

// Content-word stems (stopwords and one-letter words dropped), for rationales.
std::vector<std::string> content_stems(std::string_view s) {
  std::vector<std::string> out;
  for (const auto& w : words_of(s)) {
    if (w.size() < 2 || text::is_stopword(w)) continue;
    std::string stem = text::porter_stem(w);
    if (std::find(out.begin(), out.end(), stem) == out.end()) out.push_back(std::move(stem));
  }
  return out;
}

std::string shorten(std::string_view s, std::size_t max = 60) {
  if (s.size() <= max) return std::string(s);
  std::size_t cut = max;
  while (cut > 0 && (static_cast<unsigned char>(s[cut]) & 0xC0) == 0x80) --cut;  // UTF-8 boundary
  return std::string(s.substr(0, cut)) + "...";
}

double total_variation(const std::vector<double>& p, const std::vector<double>& q) {
  double s = 0.0;
  for (std::size_t i = 0; i < p.size() && i < q.size(); ++i) s += std::fabs(p[i] - q[i]);
  return 0.5 * s;
}

double sum_of(const std::vector<double>& v) {
  double s = 0.0;
  for (double x : v) s += x;
  return s;
}

// Threshold on a distance maximising balanced accuracy of "d ≤ θ ⇒ matched" (Youden's J),
// midway between adjacent observed values.
std::pair<double, double> youden_below(const std::vector<double>& matched,
                                       const std::vector<double>& mismatched) {
  std::vector<std::pair<double, int>> pooled;
  for (double d : matched) pooled.emplace_back(d, 1);
  for (double d : mismatched) pooled.emplace_back(d, 0);
  std::sort(pooled.begin(), pooled.end());
  const double m = static_cast<double>(matched.size()), n = static_cast<double>(mismatched.size());
  double m_below = 0.0, n_below = 0.0;
  double best_ba = 0.5, best_t = pooled.empty() ? 0.5 : pooled.front().first;
  for (std::size_t i = 0; i < pooled.size(); ++i) {
    (pooled[i].second == 1 ? m_below : n_below) += 1.0;
    if (i + 1 < pooled.size() && pooled[i + 1].first == pooled[i].first) continue;
    const double ba = 0.5 * (m_below / m + (n - n_below) / n);
    if (ba > best_ba + 1e-12) {
      best_ba = ba;
      best_t =
          i + 1 < pooled.size() ? 0.5 * (pooled[i].first + pooled[i + 1].first) : pooled[i].first;
    }
  }
  return {best_t, best_ba};
}

std::uint64_t data_hash(std::span<const Task> tasks) {
  std::uint64_t h = util::fnv1a64("expert-data");
  for (const auto& t : tasks) {
    h = util::fnv1a64(t.task_id, h);
    for (const auto& r : t.references) h = util::fnv1a64(r.text, h);
    for (const auto& c : t.candidates) h = util::fnv1a64(c.text, h);
  }
  return h;
}

// The key of an analysis in the AnalysisCache.
std::uint64_t analysis_key(std::string_view candidate, std::string_view reference) {
  return util::fnv1a64(reference, util::fnv1a64("\x1f", util::fnv1a64(candidate)));
}

}  // namespace

// ---- aggregations -------------------------------------------------------------------------------

Aggregation parse_aggregation(std::string_view name) {
  for (std::size_t i = 0; i < kAggNames.size(); ++i)
    if (name == kAggNames[i]) return static_cast<Aggregation>(i);
  throw std::invalid_argument(
      fmt::format("unknown aggregation '{}' (content, style, and, or, average)", name));
}

std::string_view aggregation_name(Aggregation a) {
  return kAggNames[static_cast<std::size_t>(a)];
}

double aggregate(Aggregation a, bool content, bool style) {
  switch (a) {
    case Aggregation::kContent:
      return content ? 1.0 : 0.0;
    case Aggregation::kStyle:
      return style ? 1.0 : 0.0;
    case Aggregation::kAnd:
      return content && style ? 1.0 : 0.0;
    case Aggregation::kOr:
      return content || style ? 1.0 : 0.0;
    case Aggregation::kAverage:
      return 0.5 * (content ? 1.0 : 0.0) + 0.5 * (style ? 1.0 : 0.0);
  }
  return 0.0;
}

// ---- stylometry ---------------------------------------------------------------------------------

StyleProfile style_profile(std::string_view text) {
  StyleProfile p;
  const auto sentences = text::split_sentences(text);
  const auto chunks = text::split_whitespace(text);
  std::size_t words = 0, standalone_punct = 0, punct_total = 0, contractions = 0, personal = 0,
              digits = 0;
  p.function_words.assign(kFunctionWords.size(), 0.0);
  p.punctuation.assign(kPunct.size() + 1, 0.0);
  for (auto chunk : chunks) {
    bool alnum = false, digit = false;
    for (char c : chunk) {
      alnum = alnum || std::isalnum(static_cast<unsigned char>(c));
      digit = digit || std::isdigit(static_cast<unsigned char>(c));
    }
    std::size_t marks = 0;
    for (char c : chunk) {
      const auto at = kPunct.find(c);
      if (at != std::string_view::npos && !(c == '\'' && alnum)) {
        p.punctuation[at] += 1.0;
        ++marks;
      }
    }
    punct_total += marks;
    if (!alnum) {
      standalone_punct += marks;
      continue;
    }
    ++words;
    digits += digit ? 1 : 0;
    const std::string low = lower_ascii(chunk);
    // A clitic, fused ("don't", "team's") or split off by a tokenizer ("n't", "'s").
    if (low.find('\'') != std::string::npos || low.find("\xE2\x80\x99") != std::string::npos)
      ++contractions;
    for (const auto& w : words_of(chunk)) {
      for (std::size_t k = 0; k < kFunctionWords.size(); ++k)
        if (w == kFunctionWords[k]) p.function_words[k] += 1.0;
      if (std::find(kPersonal.begin(), kPersonal.end(), w) != kPersonal.end()) ++personal;
    }
  }
  p.words_per_sentence = static_cast<double>(std::max<std::size_t>(words, 1)) /
                         static_cast<double>(std::max<std::size_t>(sentences.size(), 1));
  if (const double fw = sum_of(p.function_words); fw > 0)
    for (double& v : p.function_words) v /= fw;
  p.punctuation.back() = static_cast<double>(words > punct_total ? words - punct_total : 0);
  if (const double pt = sum_of(p.punctuation); pt > 0)
    for (double& v : p.punctuation) v /= pt;
  std::size_t lower_start = 0;
  for (const auto& s : sentences)
    if (!s.empty() && std::islower(static_cast<unsigned char>(s.front()))) ++lower_start;
  const double w = static_cast<double>(std::max<std::size_t>(words, 1));
  p.register_markers = {
      punct_total == 0 ? 0.0
                       : static_cast<double>(standalone_punct) / static_cast<double>(punct_total),
      sentences.empty() ? 0.0
                        : static_cast<double>(lower_start) / static_cast<double>(sentences.size()),
      std::min(1.0, 10.0 * static_cast<double>(contractions) / w),
      std::min(1.0, 10.0 * static_cast<double>(personal) / w),
      std::min(1.0, 10.0 * static_cast<double>(digits) / w),
  };
  return p;
}

StyleDistance style_distance(const StyleProfile& a, const StyleProfile& b) {
  StyleDistance d;
  // A threefold difference in sentence length counts as completely different.
  d.length = std::min(
      1.0, std::fabs(std::log(a.words_per_sentence / b.words_per_sentence)) / std::log(3.0));
  const bool fa = sum_of(a.function_words) > 0, fb = sum_of(b.function_words) > 0;
  d.function_words =
      fa && fb ? total_variation(a.function_words, b.function_words) : (fa == fb ? 0.0 : 1.0);
  d.punctuation = total_variation(a.punctuation, b.punctuation);
  double r = 0.0;
  for (std::size_t i = 0; i < a.register_markers.size(); ++i)
    r += std::fabs(a.register_markers[i] - b.register_markers[i]);
  d.register_markers =
      a.register_markers.empty() ? 0.0 : r / static_cast<double>(a.register_markers.size());
  d.total = 0.25 * (d.length + d.function_words + d.punctuation + d.register_markers);
  return d;
}

// ---- the offline judge --------------------------------------------------------------------------

LexicalAspectJudge::LexicalAspectJudge(LexicalJudgeOptions options,
                                       std::shared_ptr<predict::SupportJudge> judge,
                                       std::shared_ptr<predict::PredictorPool> pool)
    : options_(options), judge_(std::move(judge)), pool_(std::move(pool)) {
  if (!judge_) judge_ = std::make_shared<predict::SupportJudge>();
}

std::string LexicalAspectJudge::signature() const {
  return Signature("aspects:stmt-rules-v1")
      .field("evidence", "sentence")
      .field("words", options_.max_words)
      .field("match", "support>=critic")
      .field("content", "critic-both")
      .field("style", fmt::format("stylometry-v1,seed{}", options_.seed))
      .part(judge_->signature())
      .format();
}

void LexicalAspectJudge::set_thresholds(double support_threshold, double style_threshold) {
  support_threshold_ = support_threshold;
  style_.threshold = style_threshold;
  style_.fitted = true;
}

double LexicalAspectJudge::support_threshold() const {
  if (support_threshold_) return *support_threshold_;
  return judge_->calibration().threshold;
}

void LexicalAspectJudge::fit(std::span<const Task> tasks) {
  if (auto pool = pool_.lock())
    pool->fit(*judge_, tasks, true);
  else
    judge_->fit(tasks, true);
  // Style calibration: two sentences of one text (one writer, one register) against a sentence
  // of a candidate and one of another task's reference.
  style_ = StyleCalibration{};
  std::vector<std::pair<std::size_t, const std::string*>> texts;  // (task, text)
  std::vector<std::vector<const std::string*>> refs(tasks.size()), cands(tasks.size());
  for (std::size_t t = 0; t < tasks.size(); ++t) {
    for (const auto& r : tasks[t].references) {
      texts.emplace_back(t, &r.text);
      refs[t].push_back(&r.text);
    }
    for (const auto& c : tasks[t].candidates) {
      texts.emplace_back(t, &c.text);
      cands[t].push_back(&c.text);
    }
  }
  std::vector<double> matched, mismatched;
  util::SplitMix64 rng(options_.seed ^ 0x5354594C45ULL);  // "STYLE"
  auto sentence_of = [&](const std::string& text) -> std::string {
    auto s = text::split_sentences(truncate_words(text, options_.max_words));
    return s.empty() ? std::string() : s[rng.below(s.size())];
  };
  const std::size_t attempts = 4 * options_.style_pairs;
  for (std::size_t a = 0; a < attempts && matched.size() < options_.style_pairs && !texts.empty();
       ++a) {
    const auto& [task, text] = texts[rng.below(texts.size())];
    auto s = text::split_sentences(truncate_words(*text, options_.max_words));
    if (s.size() < 2) continue;
    const std::size_t i = rng.below(s.size());
    std::size_t j = rng.below(s.size() - 1);
    if (j >= i) ++j;
    matched.push_back(style_distance(style_profile(s[i]), style_profile(s[j])).total);
  }
  if (tasks.size() >= 2) {
    for (std::size_t a = 0; a < attempts && mismatched.size() < options_.style_pairs; ++a) {
      const std::size_t ti = rng.below(tasks.size());
      std::size_t tj = rng.below(tasks.size() - 1);
      if (tj >= ti) ++tj;
      if (cands[ti].empty() || refs[tj].empty()) continue;
      const std::string x = sentence_of(*cands[ti][rng.below(cands[ti].size())]);
      const std::string y = sentence_of(*refs[tj][rng.below(refs[tj].size())]);
      if (x.empty() || y.empty()) continue;
      mismatched.push_back(style_distance(style_profile(x), style_profile(y)).total);
    }
  }
  style_.matched_pairs = matched.size();
  style_.mismatched_pairs = mismatched.size();
  if (!matched.empty() && !mismatched.empty()) {
    const auto [threshold, ba] = youden_below(matched, mismatched);
    style_.threshold = threshold;
    style_.balanced_accuracy = ba;
    style_.matched_mean = sum_of(matched) / static_cast<double>(matched.size());
    style_.mismatched_mean = sum_of(mismatched) / static_cast<double>(mismatched.size());
  }
  style_.fitted = true;
}

std::vector<Aspect> LexicalAspectJudge::extract(std::string_view text) const {
  const std::string t = truncate_words(text, options_.max_words);
  const auto sentences = text::split_sentences(t);
  std::vector<std::unordered_set<std::string>> sentence_words;
  for (const auto& s : sentences) {
    auto w = words_of(s);
    sentence_words.emplace_back(w.begin(), w.end());
  }
  std::vector<Aspect> out;
  for (auto& statement : mi::decompose_statements(t)) {
    // Evidence: the sentence holding most of the statement's words (the first on ties).
    std::size_t best = 0, best_overlap = 0;
    const auto words = words_of(statement);
    for (std::size_t k = 0; k < sentences.size(); ++k) {
      std::size_t overlap = 0;
      for (const auto& w : words) overlap += sentence_words[k].count(w);
      if (overlap > best_overlap) {
        best_overlap = overlap;
        best = k;
      }
    }
    Aspect a;
    a.evidence = sentences.empty() ? statement : sentences[best];
    a.sentence = best;
    a.title = std::move(statement);
    out.push_back(std::move(a));
  }
  return out;
}

MatchDecision LexicalAspectJudge::match(const Aspect& aspect,
                                        std::span<const Aspect> others) const {
  MatchDecision d;
  const double threshold = support_threshold();
  std::size_t best = 0;
  double best_score = -1.0;
  for (std::size_t k = 0; k < others.size(); ++k) {
    const double s = judge_->support(others[k].evidence, aspect.title);
    if (s > best_score) {
      best_score = s;
      best = k;
    }
  }
  if (others.empty()) {
    d.rationale = "no match: the other text has no aspects";
    return d;
  }
  d.score = best_score;
  if (best_score >= threshold) {
    d.partner = best;
    d.rationale = fmt::format("matched aspect {} '{}': support {:.2f} >= threshold {:.2f}",
                              best + 1, shorten(others[best].title), best_score, threshold);
  } else {
    d.rationale = fmt::format("no match: best support {:.2f} (aspect {} '{}') < threshold {:.2f}",
                              best_score, best + 1, shorten(others[best].title), threshold);
  }
  return d;
}

Judgment LexicalAspectJudge::content(const Aspect& a, const Aspect& b) const {
  const double threshold = support_threshold();
  const double ab = judge_->support(b.evidence, a.evidence);
  const double ba = judge_->support(a.evidence, b.evidence);
  Judgment j;
  j.value = ab >= threshold && ba >= threshold;
  const auto sa = content_stems(a.evidence);
  const auto sb = content_stems(b.evidence);
  std::vector<std::string> shared;
  for (const auto& s : sa)
    if (std::find(sb.begin(), sb.end(), s) != sb.end()) shared.push_back(s);
  std::vector<std::string> shown(
      shared.begin(),
      shared.begin() + static_cast<std::ptrdiff_t>(std::min<std::size_t>(4, shared.size())));
  j.rationale = fmt::format(
      "content {}: support {:.2f} and {:.2f} in the two directions {} threshold {:.2f}; {}/{} "
      "content words matched{}",
      j.value ? "aligned" : "not aligned", ab, ba, j.value ? ">=" : "vs", threshold, shared.size(),
      sa.size(),
      shown.empty() ? std::string() : fmt::format(" (stems '{}')", fmt::join(shown, "', '")));
  return j;
}

Judgment LexicalAspectJudge::style(const Aspect& a, const Aspect& b) const {
  const auto pa = style_profile(a.evidence), pb = style_profile(b.evidence);
  const auto d = style_distance(pa, pb);
  Judgment j;
  j.value = d.total <= style_.threshold;
  j.rationale = fmt::format(
      "style {}: distance {:.2f} {} threshold {:.2f} (length {:.0f} vs {:.0f} words per "
      "sentence, function words {:.2f}, punctuation {:.2f}, register {:.2f})",
      j.value ? "aligned" : "not aligned", d.total, j.value ? "<=" : ">", style_.threshold,
      pa.words_per_sentence, pb.words_per_sentence, d.function_words, d.punctuation,
      d.register_markers);
  return j;
}

// ---- scoring ------------------------------------------------------------------------------------

Analysis analyze(const AspectJudge& judge, std::string_view candidate, std::string_view reference) {
  Analysis a;
  const bool model = judge.model_backed();
  // The step being taken, described only when it fails.
  struct Step {
    const char* what = "";
    char from = 0, to = 0;
    std::size_t i = 0, j = 0;
  } step;
  auto take = [&](Step s, bool asks_model) {
    step = s;
    ++a.steps;
    if (model && asks_model) ++a.model_calls;
  };
  auto blank = [](std::string_view s) {
    return std::all_of(s.begin(), s.end(),
                       [](char c) { return std::isspace(static_cast<unsigned char>(c)) != 0; });
  };
  auto side = [&](const std::vector<Aspect>& from, const std::vector<Aspect>& to, char from_tag,
                  char to_tag, std::vector<PairResult>& out,
                  std::array<double, kAggregations>& score) {
    for (std::size_t i = 0; i < from.size(); ++i) {
      PairResult p;
      p.aspect = i;
      take({"matching", from_tag, 0, i, 0}, !to.empty());
      p.match = judge.match(from[i], to);
      if (p.match.partner) {
        const std::size_t k = *p.match.partner;
        take({"content judgment", from_tag, to_tag, i, k}, true);
        p.content = judge.content(from[i], to[k]);
        take({"style judgment", from_tag, to_tag, i, k}, true);
        p.style = judge.style(from[i], to[k]);
      }
      out.push_back(std::move(p));
    }
    for (std::size_t g = 0; g < kAggregations; ++g) {
      double sum = 0.0;
      for (const auto& p : out)
        if (p.match.partner)
          sum += aggregate(static_cast<Aggregation>(g), p.content.value, p.style.value);
      score[g] = out.empty() ? 0.0 : sum / static_cast<double>(out.size());
    }
  };
  try {
    take({"extraction of the reference's aspects", 0, 0, 0, 0}, !blank(reference));
    a.reference_aspects = judge.extract(reference);
    take({"extraction of the candidate's aspects", 0, 0, 0, 0}, !blank(candidate));
    a.candidate_aspects = judge.extract(candidate);
    side(a.reference_aspects, a.candidate_aspects, 'R', 'C', a.recall_side, a.recall);
    side(a.candidate_aspects, a.reference_aspects, 'C', 'R', a.precision_side, a.precision);
  } catch (const StepFailure& e) {
    // No default stands in for the failed step: the analysis ends and its scores are undefined.
    a.failed_steps = 1;
    std::string where = step.what;
    if (step.from != 0 && step.to == 0) where += fmt::format(" of {}{}", step.from, step.i + 1);
    if (step.to != 0)
      where += fmt::format(" of {}{} and {}{}", step.from, step.i + 1, step.to, step.j + 1);
    a.failure = fmt::format("{} failed: {}", where, e.what());
    a.recall.fill(std::nan(""));
    a.precision.fill(std::nan(""));
    a.f.fill(std::nan(""));
    return a;
  }
  for (std::size_t g = 0; g < kAggregations; ++g) {
    const double p = a.precision[g], r = a.recall[g];
    a.f[g] = p + r > 0.0 ? 2.0 * p * r / (p + r) : 0.0;
  }
  return a;
}

ExpertMetric::ExpertMetric(ExpertConfig config, std::shared_ptr<AspectJudge> judge,
                           std::shared_ptr<AnalysisCache> cache)
    : config_(std::move(config)), judge_(std::move(judge)), cache_(std::move(cache)) {
  if (!cache_) cache_ = std::make_shared<AnalysisCache>();
}

std::string ExpertMetric::signature() const {
  return Signature("expert")
      .field("agg", aggregation_name(config_.aggregation))
      .field("refs", config_.all_references ? "all" : "first")
      .part(judge_->signature())
      .field("calls", judge_->model_backed() ? "llm" : "none")
      .versioned();
}

void ExpertMetric::fit(std::span<const Task> tasks) {
  const std::uint64_t h = data_hash(tasks);
  std::lock_guard lock(cache_->mutex);
  if (cache_->fitted && cache_->fitted_on == h) return;
  judge_->fit(tasks);
  cache_->entries.clear();
  cache_->fitted_on = h;
  cache_->fitted = true;
}

std::shared_ptr<const Analysis> ExpertMetric::analysis(std::string_view candidate,
                                                       std::string_view reference) const {
  const std::uint64_t key = analysis_key(candidate, reference);
  {
    std::lock_guard lock(cache_->mutex);
    if (auto it = cache_->entries.find(key); it != cache_->entries.end()) return it->second;
  }
  auto a = std::make_shared<const Analysis>(analyze(*judge_, candidate, reference));
  std::lock_guard lock(cache_->mutex);
  // A bound on memory for long audits (every perturbed text is a new entry); entries in use
  // stay alive through their shared pointers.
  if (cache_->entries.size() >= kMaxCachedAnalyses) cache_->entries.clear();
  return cache_->entries.emplace(key, std::move(a)).first->second;
}

void ExpertMetric::prefetch(std::span<const MetricInput> inputs) const {
  // The distinct (candidate, reference) pairs of the chunk that are not analysed yet; the
  // analyses fill the shared cache that item_stats and explain read.
  std::vector<std::pair<std::string_view, std::string_view>> pairs;
  {
    std::unordered_set<std::uint64_t> seen;
    std::lock_guard lock(cache_->mutex);
    for (const auto& input : inputs) {
      for (auto ref : references(input)) {
        const std::uint64_t key = analysis_key(input.candidate, ref);
        if (cache_->entries.count(key) || !seen.insert(key).second) continue;
        pairs.emplace_back(input.candidate, ref);
      }
    }
  }
  if (pairs.empty()) return;
  const auto threads = static_cast<unsigned>(
      std::min<std::size_t>({pairs.size(), std::max<std::size_t>(judge_->parallelism(), 1), 256}));
  util::blocking_for(pairs.size(), threads,
                     [&](std::size_t i) { analysis(pairs[i].first, pairs[i].second); });
}

std::vector<std::string_view> ExpertMetric::references(const MetricInput& input) const {
  if (input.references.empty()) return {};
  if (config_.all_references) return input.references;
  return {input.references.front()};
}

void ExpertMetric::item_stats(const MetricInput& input, std::span<double> stats) const {
  std::fill(stats.begin(), stats.end(), 0.0);
  const auto refs = references(input);
  // No reference, or an empty one (no aspects: recall is 0/0): undefined. An empty candidate
  // is defined: it covers nothing, F = 0.
  if (refs.empty() ||
      std::any_of(refs.begin(), refs.end(), [](std::string_view r) { return text::is_blank(r); })) {
    stats[0] = stats[1] = stats[2] = std::nan("");
    return;
  }
  const auto g = static_cast<std::size_t>(config_.aggregation);
  for (auto ref : refs) {
    const auto a = analysis(input.candidate, ref);
    stats[0] += a->precision[g];
    stats[1] += a->recall[g];
    stats[2] += a->f[g];
    stats[3] += static_cast<double>(a->model_calls);
    stats[4] += static_cast<double>(a->failed_steps);
  }
  // Several references: the mean of the per-reference values.
  for (std::size_t k = 0; k < 3; ++k) stats[k] /= static_cast<double>(refs.size());
  // A failed model step makes the item undefined, whatever the other references gave.
  if (stats[4] > 0) stats[0] = stats[1] = stats[2] = std::nan("");
}

std::string ExpertMetric::undefined_reason(std::span<const double> stats) const {
  if (stats.size() > 4 && stats[4] > 0)
    return fmt::format(
        "an ExPerT model step (aspect extraction, matching, or a content or style judgment) "
        "failed or stayed unparseable after re-asking ({} failed step{}; see --explain)",
        stats[4], stats[4] == 1 ? "" : "s");
  return "no reference, or the reference is empty (it has no aspects to recall)";
}

void ExpertMetric::sentence_score(std::span<const double> stats, std::span<double> parts) const {
  parts[0] = stats[0];
  parts[1] = stats[1];
  parts[2] = stats[2];
}

std::string ExpertMetric::explain(const MetricInput& input) const {
  const auto g = static_cast<std::size_t>(config_.aggregation);
  json out;
  out["metric"] = config_.name;
  out["aggregation"] = aggregation_name(config_.aggregation);
  json per_ref = json::array();
  double p = 0, r = 0, f = 0;
  std::size_t steps = 0, calls = 0, failed = 0;
  const auto refs = references(input);
  for (std::size_t k = 0; k < refs.size(); ++k) {
    const auto a = analysis(input.candidate, refs[k]);
    auto aspects = [](const std::vector<Aspect>& list, char tag) {
      json arr = json::array();
      for (std::size_t i = 0; i < list.size(); ++i)
        arr.push_back({{"id", fmt::format("{}{}", tag, i + 1)},
                       {"aspect", list[i].title},
                       {"evidence", list[i].evidence}});
      return arr;
    };
    auto side = [&](const std::vector<PairResult>& pairs, char from, char to) {
      json arr = json::array();
      for (const auto& pr : pairs) {
        json j = {{"aspect", fmt::format("{}{}", from, pr.aspect + 1)}};
        j["match"] =
            pr.match.partner ? json(fmt::format("{}{}", to, *pr.match.partner + 1)) : json(nullptr);
        j["match_score"] = pr.match.score;
        j["match_rationale"] = pr.match.rationale;
        if (pr.match.partner) {
          j["content"] = pr.content.value;
          j["content_rationale"] = pr.content.rationale;
          j["style"] = pr.style.value;
          j["style_rationale"] = pr.style.rationale;
        }
        j["score"] = pr.match.partner
                         ? aggregate(config_.aggregation, pr.content.value, pr.style.value)
                         : 0.0;
        arr.push_back(std::move(j));
      }
      return arr;
    };
    json scores = json::object();
    for (std::size_t v = 0; v < kAggregations; ++v)
      scores[std::string(kAggNames[v])] = {
          {"p", a->precision[v]}, {"r", a->recall[v]}, {"f", a->f[v]}};
    per_ref.push_back({{"reference", k},
                       {"reference_aspects", aspects(a->reference_aspects, 'R')},
                       {"candidate_aspects", aspects(a->candidate_aspects, 'C')},
                       {"recall_side", side(a->recall_side, 'R', 'C')},
                       {"precision_side", side(a->precision_side, 'C', 'R')},
                       {"scores", scores},
                       {"judgments", a->steps},
                       {"model_calls", a->model_calls}});
    if (a->failed_steps > 0) {
      per_ref.back()["failed_steps"] = a->failed_steps;
      per_ref.back()["failure"] = a->failure;
    }
    failed += a->failed_steps;
    p += a->precision[g];
    r += a->recall[g];
    f += a->f[g];
    steps += a->steps;
    calls += a->model_calls;
  }
  const double n = refs.empty() ? 1.0 : static_cast<double>(refs.size());
  out["p"] = p / n;
  out["r"] = r / n;
  out["f"] = f / n;
  out["judgments"] = steps;
  out["model_calls"] = calls;
  if (failed > 0) {
    out["p"] = out["r"] = out["f"] = nullptr;  // undefined, as in the score records
    out["failed_steps"] = failed;
  }
  out["references"] = std::move(per_ref);
  return out.dump();
}

}  // namespace probity::metrics::expert

namespace probity::metrics {

void register_expert(MetricRegistry& registry) {
  registry.add(
      {"expert",
       "ExPerT: aspect extraction, matching and content/style judgments, F of aspect precision "
       "and recall (offline: statements, support judge, stylometry; llm=<role>: the steps are "
       "prompted model calls); parts p, r, f",
       {option_choice("agg", "average", {"average", "content", "style", "and", "or"},
                      "per-pair aggregation; the paper's headline is average"),
        option_choice("refs", "first", {"first", "all"}, "the references of each item to use"),
        option_int("calib_seed", 0, 0, std::numeric_limits<int>::max(),
                   "offline: the support judge's and the style calibration's sample"),
        option_text("llm", "",
                    "the LLM realisation with this configuration role: extraction, matching, "
                    "content and style judgments by prompted model calls"),
        option_int("reasks", 2, 0, 10, "llm: re-asks of an unparseable answer"),
        option_text("prompts", "", "llm: a directory of prompt templates (default: probity's)")},
       [](const MetricSpec& spec, const MetricContext& context) -> std::unique_ptr<Metric> {
         if (!spec.arg().empty())
           throw UsageError(fmt::format("metric '{}' takes options only", spec.base()));
         expert::ExpertConfig cfg;
         cfg.aggregation = expert::parse_aggregation(spec.get("agg"));
         cfg.all_references = spec.get("refs") == "all";
         cfg.name = spec.text();
         bool llm_option = false;
         for (const auto& kv : spec.options()) llm_option |= kv.first == "llm";
         if (llm_option) {
           expert::LlmJudgeOptions o;
           o.role = spec.get("llm");
           if (o.role.empty())
             throw UsageError(
                 fmt::format("metric '{}': llm needs a role, e.g. llm=judge", spec.text()));
           o.reasks = spec.get_int("reasks");
           o.prompts_dir = spec.get("prompts");
           auto session = context.llm();
           // One judge and analysis cache per configuration, shared by the aggregation variants
           // while some metric uses them (they hold the session's client).
           const std::string key =
               fmt::format("expert-llm|{}|{}|{}", o.role, o.reasks, o.prompts_dir);
           auto judge = context.predictors->shared<expert::AspectJudge>(
               key + "|judge", [&] { return expert::make_llm_aspect_judge(o, session); }, false);
           auto cache = context.predictors->shared<expert::AnalysisCache>(
               key + "|analyses", [] { return std::make_shared<expert::AnalysisCache>(); }, false);
           return std::make_unique<expert::ExpertMetric>(cfg, judge, cache);
         }
         // The support judge is the one the statement-level MI metrics use (same calibration
         // seed): fitted once per dataset whichever metric asks first.
         auto& pool = *context.predictors;
         auto predictor = pool.get(
             mi::predictor_config(mi::Mechanism::kOracle, mi::Representation::kStatement, spec),
             context.session);
         auto support = std::dynamic_pointer_cast<predict::SupportJudge>(predictor);
         if (!support) throw std::logic_error("expert: the oracle predictor is not a SupportJudge");
         expert::LexicalJudgeOptions o;
         o.seed = static_cast<std::uint64_t>(spec.get_int("calib_seed"));
         // One judge and analysis cache per configuration, shared by the aggregation variants.
         const std::string key = fmt::format("expert|{}", o.seed);
         auto judge = pool.shared<expert::AspectJudge>(
             key + "|judge",
             [&] {
               return std::make_shared<expert::LexicalAspectJudge>(o, support, context.predictors);
             },
             true);
         auto cache = pool.shared<expert::AnalysisCache>(
             key + "|analyses", [] { return std::make_shared<expert::AnalysisCache>(); }, true);
         return std::make_unique<expert::ExpertMetric>(cfg, judge, cache);
       }});
}

}  // namespace probity::metrics
