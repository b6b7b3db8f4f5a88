#include "predict/pool.hpp"

#include <fmt/format.h>

#include "llm/session.hpp"
#include "probity/error.hpp"
#include "util/hash.hpp"

namespace probity::predict {

std::string PredictorConfig::key() const {
  std::string k;
  switch (kind) {
    case Kind::kNgram:
      k = fmt::format("ar|{}|{}|{}|{}|{}|{}", ngram.order, ngram.cache_weight, ngram.stem,
                      ngram.normalize, ngram.corpus, ngram.folds);
      break;
    case Kind::kRules:
      k = fmt::format("oracle|{}|{}|{}", rules.seed, rules.max_pairs, rules.bins);
      break;
    case Kind::kLlmLm:
      k = fmt::format("llm-lm|{}|{}|{}", llm_lm.role, llm_lm.prompt_logprobs, llm_lm.prompts_dir);
      break;
    case Kind::kLlmOracle:
      k = fmt::format("llm-oracle|{}|{}|{}|{}|{}", llm_oracle.role, llm_oracle.batch,
                      llm_oracle.reasks, llm_oracle.prompts_dir, llm_oracle.statement_targets);
      break;
  }
  return k + (statement_targets ? "|stmt" : "|whole");
}

std::uint64_t fit_data_hash(std::span<const Task> tasks, bool statement_targets) {
  std::uint64_t h = util::fnv1a64(statement_targets ? "stmt" : "report");
  for (const auto& t : tasks) {
    h = util::fnv1a64(t.task_id, h);
    for (const auto& r : t.references) h = util::fnv1a64(r.text, h);
    for (const auto& c : t.candidates) h = util::fnv1a64(c.text, h);
  }
  return h;
}

namespace {

std::shared_ptr<mi::Predictor> make(const PredictorConfig& c,
                                    const std::shared_ptr<llm::Session>& session) {
  using Kind = PredictorConfig::Kind;
  switch (c.kind) {
    case Kind::kNgram:
      return std::make_shared<NgramPredictor>(c.ngram);
    case Kind::kRules:
      return std::make_shared<SupportJudge>(c.rules);
    case Kind::kLlmLm:
      return std::make_shared<LlmLm>(c.llm_lm, llm::require_session(session));
    case Kind::kLlmOracle:
      return std::make_shared<LlmOracle>(c.llm_oracle, llm::require_session(session));
  }
  throw std::logic_error("PredictorConfig: unknown kind");
}

}  // namespace

std::shared_ptr<mi::Predictor> PredictorPool::get(const PredictorConfig& config,
                                                  const std::shared_ptr<llm::Session>& session) {
  const std::string key = config.key();
  std::lock_guard lock(mutex_);
  if (config.uses_llm()) {
    auto& weak = llm_[key];
    auto p = weak.lock();
    if (!p) {
      p = make(config, session);
      weak = p;
    }
    return p;
  }
  auto& slot = offline_[key];
  if (!slot.predictor) slot.predictor = make(config, session);
  return slot.predictor;
}

void PredictorPool::fit(mi::Predictor& predictor, std::span<const Task> tasks,
                        bool statement_targets) {
  if (predictor.fallible()) {
    predictor.fit(tasks, statement_targets);
    return;
  }
  const std::uint64_t data = fit_data_hash(tasks, statement_targets);
  // Held while fitting: two metrics sharing a predictor must not train it concurrently.
  std::lock_guard lock(mutex_);
  for (auto& [key, slot] : offline_) {
    if (slot.predictor.get() != &predictor) continue;
    if (slot.fitted && slot.data == data) return;
    predictor.fit(tasks, statement_targets);
    slot.fitted = true;
    slot.data = data;
    return;
  }
  predictor.fit(tasks, statement_targets);  // not from this pool: nothing to remember
}

PredictorPool::Fitted* PredictorPool::slot_of(const mi::Predictor& predictor) {
  for (auto& [key, slot] : offline_)
    if (slot.predictor.get() == &predictor) return &slot;
  return nullptr;
}

bool PredictorPool::begin_fit(mi::Predictor& predictor, bool statement_targets,
                              const void* metric) {
  std::lock_guard lock(mutex_);
  Fitted* slot = slot_of(predictor);
  if (slot) {
    if (slot->driver != nullptr && slot->driver != metric) return false;
    slot->driver = metric;
    slot->fitted = false;  // the data is known only once it has been read
  }
  predictor.begin_fit(statement_targets);
  return true;
}

void PredictorPool::end_fit(mi::Predictor& predictor, const void* metric) {
  std::lock_guard lock(mutex_);
  if (Fitted* slot = slot_of(predictor); slot && slot->driver == metric) slot->driver = nullptr;
}

void PredictorPool::forget_llm() {
  std::lock_guard lock(mutex_);
  llm_.clear();
  used_.clear();
}

}  // namespace probity::predict
