#pragma once
// The predictors of one engine by typed configuration, shared by every metric that uses the same
// one (a sweep of 30 cells trains each model once) and fitted once per dataset.
#include <cstdint>
#include <functional>
#include <map>
#include <memory>
#include <mutex>
#include <span>
#include <string>

#include "predict/llm_lm.hpp"
#include "predict/llm_oracle.hpp"
#include "predict/ngram_predictor.hpp"
#include "predict/support_judge.hpp"
#include "probity/mi.hpp"

namespace probity::llm {
class Session;
}

namespace probity::predict {

// Which predictor, with every option that affects it: what metric options parse into.
struct PredictorConfig {
  enum class Kind { kNgram, kRules, kLlmLm, kLlmOracle };
  Kind kind = Kind::kNgram;
  bool statement_targets = false;  // targets are statements (else whole references)
  NgramPredictorOptions ngram;     // kNgram
  SupportJudgeOptions rules;       // kRules
  LlmLmOptions llm_lm;             // kLlmLm
  LlmOracleOptions llm_oracle;     // kLlmOracle

  bool uses_llm() const { return kind == Kind::kLlmLm || kind == Kind::kLlmOracle; }
  // Every field that affects predictions, as a map key.
  std::string key() const;
};

// A hash of what fit() sees: task ids, reference and candidate texts, and the kind of targets.
std::uint64_t fit_data_hash(std::span<const Task> tasks, bool statement_targets);

class PredictorPool {
 public:
  // The shared predictor for `config`; `session` is needed by the LLM kinds (UsageError when
  // null). Offline predictors live as long as the pool; LLM predictors (which hold the session's
  // clients) only while some metric uses them.
  std::shared_ptr<mi::Predictor> get(const PredictorConfig& config,
                                     const std::shared_ptr<llm::Session>& session);
  // Fits `predictor` unless it is a pooled one already fitted on the same data for the same
  // kind of targets. Model-backed predictors fit in no time and are always fitted.
  void fit(mi::Predictor& predictor, std::span<const Task> tasks, bool statement_targets);
  // The streaming fit (mi::Predictor::begin_fit) of a predictor that several metrics of one run
  // may share: the first metric to begin drives it (true: it calls begin_fit here, then the
  // passes, then end_fit); metrics that begin while that fit is under way leave the predictor
  // to it (false) and only use the result. Predictors not pooled: always true.
  bool begin_fit(mi::Predictor& predictor, bool statement_targets, const void* metric);
  void end_fit(mi::Predictor& predictor, const void* metric);
  // Drops the LLM-backed entries (a new session must not reuse the old one's clients).
  void forget_llm();

  // Any other object metrics share per configuration (ExPerT's judges and analysis caches):
  // made once per key; `keep` holds it for the pool's lifetime, else only while in use.
  template <class T>
  std::shared_ptr<T> shared(const std::string& key, const std::function<std::shared_ptr<T>()>& make,
                            bool keep) {
    std::lock_guard lock(mutex_);
    auto p = std::static_pointer_cast<T>(keep ? kept_[key] : used_[key].lock());
    if (!p) {
      p = make();
      if (keep)
        kept_[key] = p;
      else
        used_[key] = p;
    }
    return p;
  }

 private:
  struct Fitted {
    std::shared_ptr<mi::Predictor> predictor;
    bool fitted = false;
    std::uint64_t data = 0;        // fit_data_hash of what it was fitted on
    const void* driver = nullptr;  // the metric driving a streaming fit under way
  };
  Fitted* slot_of(const mi::Predictor& predictor);
  std::mutex mutex_;
  std::map<std::string, Fitted> offline_;
  std::map<std::string, std::weak_ptr<mi::Predictor>> llm_;
  std::map<std::string, std::shared_ptr<void>> kept_;
  std::map<std::string, std::weak_ptr<void>> used_;
};

}  // namespace probity::predict
