#include "metrics/mi/mi_metric.hpp"

#include <fmt/format.h>

#include <cmath>
#include <map>
#include <unordered_set>

#include "probity/signature.hpp"
#include "probity/text.hpp"
#include "util/hash.hpp"

namespace probity::mi {

MiMetric::MiMetric(MiConfig config, std::shared_ptr<Predictor> predictor,
                   std::shared_ptr<predict::PredictorPool> pool)
    : config_(std::move(config)), predictor_(std::move(predictor)), pool_(std::move(pool)) {
  if (!config_.decomposer) config_.decomposer = rule_decomposer();
}

bool MiMetric::binary_critic() const {
  switch (config_.critic_style) {
    case MiConfig::CriticStyle::kBinary:
      return true;
    case MiConfig::CriticStyle::kOrdinal:
      return false;
    case MiConfig::CriticStyle::kAuto:
      return config_.measure == Measure::kTV && config_.mechanism != Mechanism::kAutoregression;
  }
  return false;
}

std::string MiMetric::signature() const {
  Signature s(fmt::format(
      "mi:{}/{}/{}/{}", measure_name(config_.measure), estimator_name(config_.estimator),
      representation_name(config_.representation), mechanism_name(config_.mechanism)));
  s.field("refs", config_.all_references ? "all" : "first");
  if (config_.estimator == Estimator::kVariational) {
    s.field("neg", config_.negatives)
        .field("seed", config_.seed)
        .field("critic", binary_critic() ? "binary" : "ordinal");
  }
  if (config_.representation == Representation::kStatement)
    s.field("stmt", config_.decomposer->signature()).field("agg", "mean");
  s.part(predictor_->signature());
  return s.versioned();
}

void MiMetric::decompose_references(std::span<const Task> tasks) {
  // The references the metric reads, all at once (a model-backed decomposer asks for them in one
  // batch): every reference with refs=all, else each task's first, which is both its positive
  // and what the negative sampler draws from it (after a refs=<id> wrapper has filtered them).
  std::vector<std::string> texts;
  std::unordered_set<std::string_view> seen;
  for (const auto& t : tasks) {
    const std::size_t used = config_.all_references ? t.references.size()
                                                    : std::min<std::size_t>(1, t.references.size());
    for (std::size_t k = 0; k < used; ++k) {
      const std::string& r = t.references[k].text;
      if (!statements_.count(r) && !failed_.count(r) && seen.insert(r).second) texts.push_back(r);
    }
  }
  auto results = config_.decomposer->decompose(texts);
  for (std::size_t i = 0; i < texts.size(); ++i) {
    if (results[i].error.empty())
      statements_.emplace(texts[i], std::make_shared<const std::vector<std::string>>(
                                        std::move(results[i].statements)));
    else
      failed_.emplace(texts[i], std::move(results[i].error));
  }
}

void MiMetric::fit(std::span<const Task> tasks) {
  if (decomposes_in_fit()) decompose_references(tasks);
  if (pool_)
    pool_->fit(*predictor_, tasks, statement_targets());
  else
    predictor_->fit(tasks, statement_targets());
}

std::optional<std::size_t> MiMetric::fit_passes() const {
  const auto passes = predictor_->fit_passes();
  if (!passes) return std::nullopt;
  return std::max<std::size_t>(*passes, decomposes_in_fit() ? 1 : 0);
}

void MiMetric::begin_fit() {
  const auto passes = predictor_->fit_passes();
  if (!passes) throw std::logic_error("MiMetric: the predictor fits only on the whole dataset");
  predictor_passes_ = *passes;
  if (pool_) {
    drives_fit_ = pool_->begin_fit(*predictor_, statement_targets(), this);
  } else {
    predictor_->begin_fit(statement_targets());
    drives_fit_ = true;
  }
  if (drives_fit_ && predictor_passes_ == 0 && pool_) pool_->end_fit(*predictor_, this);
}

void MiMetric::fit_chunk(std::size_t pass, std::span<const Task> tasks) {
  if (pass == 0 && decomposes_in_fit()) decompose_references(tasks);
  if (!drives_fit_ || pass >= predictor_passes_) return;
  try {
    predictor_->fit_chunk(pass, tasks);
  } catch (...) {
    if (pool_) pool_->end_fit(*predictor_, this);
    throw;
  }
}

void MiMetric::end_fit_pass(std::size_t pass) {
  if (!drives_fit_ || pass >= predictor_passes_) return;
  try {
    predictor_->end_fit_pass(pass);
  } catch (...) {
    if (pool_) pool_->end_fit(*predictor_, this);
    throw;
  }
  if (pass + 1 == predictor_passes_ && pool_) pool_->end_fit(*predictor_, this);
}

std::string MiMetric::fit_method() const {
  if (decomposes_in_fit()) return {};
  return predictor_->fit_method();
}

Metric::FitSections MiMetric::save_fit() const {
  if (fit_method().empty()) return Metric::save_fit();
  return {{"predictor", predictor_->save_fit()}};
}

void MiMetric::load_fit(const FitSections& sections) {
  if (fit_method().empty()) return Metric::load_fit(sections);
  for (const auto& [name, bytes] : sections)
    if (name == "predictor") return predictor_->load_fit(bytes);
  throw std::invalid_argument("no section 'predictor'");
}

Metric::FitMinimum MiMetric::fit_minimum() const {
  auto [tasks, reason] = predictor_->fit_minimum();
  return {tasks, std::move(reason)};
}

Metric::NegativeSpec MiMetric::negatives() const {
  if (config_.estimator != Estimator::kVariational) return {};
  return {config_.negatives, config_.seed};
}

namespace {

// Rule decompositions of the references a thread has scored lately. Two generations bound
// memory while keeping the working set (a task's references and its negatives) resident.
class StatementMemo {
 public:
  std::shared_ptr<const std::vector<std::string>> find(std::string_view text) {
    if (auto it = current_.find(text); it != current_.end()) return it->second;
    if (auto it = previous_.find(text); it != previous_.end()) {
      auto hit = it->second;
      current_.emplace(std::string(text), hit);
      return hit;
    }
    return nullptr;
  }
  void add(std::string_view text, std::shared_ptr<const std::vector<std::string>> statements) {
    if (current_.size() >= kGeneration) {
      previous_ = std::move(current_);
      current_.clear();
    }
    current_.emplace(std::string(text), std::move(statements));
  }

 private:
  static constexpr std::size_t kGeneration = 4096;
  using Map = util::StringMap<std::shared_ptr<const std::vector<std::string>>>;
  Map current_, previous_;
};

}  // namespace

MiMetric::Statements MiMetric::statements(std::string_view reference) const {
  const bool memoised = !config_.decomposer->fallible();
  if (memoised) {
    // Only the rule decomposer is infallible: a pure function of the text.
    thread_local std::pair<const Decomposer*, StatementMemo> memo{nullptr, {}};
    if (memo.first != config_.decomposer.get()) memo = {config_.decomposer.get(), {}};
    if (auto hit = memo.second.find(reference)) return hit;
    const std::string key(reference);
    auto result = config_.decomposer->decompose(std::span<const std::string>(&key, 1));
    auto made = std::make_shared<const std::vector<std::string>>(std::move(result[0].statements));
    memo.second.add(reference, made);
    return made;
  }
  const std::string key(reference);
  auto it = statements_.find(key);
  if (it != statements_.end()) return it->second;
  auto failed = failed_.find(key);
  if (failed != failed_.end())
    throw PredictionError("the statement decomposition of a reference failed: " + failed->second);
  // A reference fit() did not see (a dataset scored without fitting).
  auto result = config_.decomposer->decompose(std::span<const std::string>(&key, 1));
  if (!result[0].error.empty())
    throw PredictionError("the statement decomposition of a reference failed: " + result[0].error);
  return std::make_shared<const std::vector<std::string>>(std::move(result[0].statements));
}

template <class F>
std::size_t MiMetric::for_each_target(std::string_view y, F&& f) const {
  if (!statement_targets()) {
    f(y);
    return 1;
  }
  const Statements ts = statements(y);
  for (const auto& t : *ts) f(std::string_view(t));
  return ts->size();
}

double MiMetric::critic(std::string_view x, std::string_view y) const {
  double sum = 0;
  const std::size_t n = for_each_target(y, [&](std::string_view t) {
    if (binary_critic()) {
      sum += 0.5 * predictor_->critic(x, t);  // yes/no → ±½ (Xu et al. 2025)
    } else {
      sum += optimal_critic(config_.measure, std::exp(predictor_->log_ratio(x, t)));
    }
  });
  return sum / static_cast<double>(n);
}

double MiMetric::direct(std::string_view x, std::string_view y) const {
  double sum = 0;
  const std::size_t n = for_each_target(y, [&](std::string_view t) {
    sum += direct_score(config_.measure, predictor_->log_ratio(x, t));
  });
  return sum / static_cast<double>(n);
}

std::size_t MiMetric::positives(const MetricInput& input) const {
  return config_.all_references ? input.references.size()
                                : std::min<std::size_t>(1, input.references.size());
}

void MiMetric::add_groups(const MetricInput& input, std::vector<TargetGroup>& groups,
                          std::vector<Statements>& held) const {
  auto add = [&](std::string_view y) {
    TargetGroup g{input.candidate, {}};
    if (!statement_targets()) {
      g.targets.push_back(y);
    } else {
      try {
        held.push_back(statements(y));
      } catch (const PredictionError&) {
        return;  // nothing to ask: the item is undefined when it is scored
      }
      for (const auto& t : *held.back()) g.targets.emplace_back(t);
    }
    groups.push_back(std::move(g));
  };
  const std::size_t n_pos = positives(input);
  for (std::size_t p = 0; p < n_pos; ++p) add(input.references[p]);
  if (config_.estimator == Estimator::kVariational)
    for (auto y : input.negatives) add(y);
}

void MiMetric::prefetch(std::span<const MetricInput> inputs) const {
  // Only a model-backed predictor has anything to prepare (Predictor::prefetch).
  if (!predictor_->fallible()) return;
  std::vector<Statements> held;  // owns the decompositions the views point into
  std::vector<TargetGroup> groups;
  for (const auto& input : inputs) add_groups(input, groups, held);
  const bool variational = config_.estimator == Estimator::kVariational;
  predictor_->prefetch(groups, variational && binary_critic());
}

void MiMetric::item_stats(const MetricInput& input, std::span<double> stats) const {
  if (stats.size() > 1) stats[1] = 0;
  if (stats.size() > 2) stats[2] = 0;
  try {
    score_item(input, stats);
  } catch (const PredictionError&) {
    // Counted by the predictor with its reason; the item has no value rather than a default.
    stats[0] = std::nan("");
    if (stats.size() > 1) stats[1] = 1;
  }
}

void MiMetric::score_item(const MetricInput& input, std::span<double> stats) const {
  // An empty reference shares information with nothing: the item is undefined. As a negative
  // it is left out (a contrast with nothing says nothing).
  thread_local std::vector<std::string_view> negatives;
  negatives.clear();
  for (auto y : input.negatives)
    if (!text::is_blank(y)) negatives.push_back(y);
  const std::size_t n_pos = positives(input);
  bool empty_reference = false;
  for (std::size_t p = 0; p < n_pos; ++p) empty_reference |= text::is_blank(input.references[p]);
  if (n_pos == 0 || empty_reference ||
      (config_.estimator == Estimator::kVariational && negatives.empty())) {
    stats[0] = std::nan("");
    if (stats.size() > 2) stats[2] = empty_reference ? 1 : 0;
    return;
  }
  if (predictor_->fallible()) {
    // All of the item's questions in one call.
    MetricInput asked = input;
    asked.negatives = negatives;
    prefetch(std::span<const MetricInput>(&asked, 1));
  }
  double total = 0;
  if (config_.estimator == Estimator::kDirect) {
    for (std::size_t p = 0; p < n_pos; ++p) total += direct(input.candidate, input.references[p]);
  } else {
    // Ŝ = mean over positives of the f-variational score against the item's negatives.
    thread_local std::vector<double> critics;
    critics.clear();
    for (auto y : negatives) critics.push_back(critic(input.candidate, y));
    for (std::size_t p = 0; p < n_pos; ++p)
      total +=
          variational_score(config_.measure, critic(input.candidate, input.references[p]), critics);
  }
  stats[0] = total / static_cast<double>(n_pos);
}

std::string MiMetric::undefined_reason(std::span<const double> stats) const {
  if (stats.size() > 2 && stats[2] > 0)
    return "the reference is empty: there is no information to share with it";
  if (stats.size() > 1 && stats[1] > 0)
    return "the predictor or the statement decomposition failed on this item (an LLM answer "
           "that failed or stayed unparseable after re-asking; counted in the LLM usage)";
  if (config_.estimator == Estimator::kVariational)
    return "no negative reference: the task's group has no other task";
  return "no reference";
}

}  // namespace probity::mi
