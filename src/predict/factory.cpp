#include "predict/factory.hpp"

#include <fmt/format.h>

#include <functional>
#include <map>
#include <mutex>

#include "predict/llm_lm.hpp"
#include "predict/llm_oracle.hpp"
#include "predict/ngram_predictor.hpp"
#include "predict/support_judge.hpp"
#include "probity/error.hpp"

namespace probity::predict {

std::shared_ptr<mi::Predictor> make_predictor(mi::Mechanism mechanism,
                                              mi::Representation representation,
                                              const MetricSpec& spec) {
  // One predictor per configuration and target granularity, shared by every metric that uses
  // it, so a sweep of 30 cells trains each model once.
  static std::mutex mutex;
  static std::map<std::string, std::shared_ptr<mi::Predictor>> shared;
  std::string key;
  std::function<std::shared_ptr<mi::Predictor>()> make;
  switch (mechanism) {
    case mi::Mechanism::kAutoregression: {
      // llm=<role> (or predictor=llm, role "lm") scores with a model's prompt log-probabilities.
      const std::string role = spec.get("llm", "");
      const std::string kind = spec.get("predictor", role.empty() ? "ngram" : "llm");
      if (kind != "ngram" && kind != "llm")
        throw UsageError(fmt::format("metric '{}': predictor must be ngram or llm", spec.text()));
      if (kind == "llm") {
        LlmLmOptions o;
        o.role = role.empty() ? "lm" : role;
        o.prompt_logprobs = spec.get_bool("prompt_logprobs", false);
        o.prompts_dir = spec.get("prompts", "");
        auto session = llm::Session::current();
        key = fmt::format("llm-lm|{}|{}|{}|{}", session->id(), o.role, o.prompt_logprobs,
                          o.prompts_dir);
        make = [o, session] { return std::make_shared<LlmLm>(o, session); };
        break;
      }
      NgramPredictorOptions o;
      o.order = spec.get_int("order", 3);
      if (o.order < 1 || o.order > 6)
        throw UsageError(fmt::format("metric '{}': order must be 1..6", spec.text()));
      o.cache_weight = spec.get("cache", "auto");
      o.stem = spec.get_bool("stem", true);
      o.normalize = spec.get_bool("normalize", false);
      o.corpus = spec.get("corpus", "");
      o.folds = spec.get_int("folds", 5, 2, 16);
      key = fmt::format("ar|{}|{}|{}|{}|{}|{}", o.order, o.cache_weight, o.stem, o.normalize,
                        o.corpus, o.folds);
      make = [o] { return std::make_shared<NgramPredictor>(o); };
      break;
    }
    case mi::Mechanism::kOracle: {
      // llm=<role> (or predictor=llm, role "oracle") asks a model instead of the offline judge.
      std::string role = spec.get("llm", "");
      const std::string kind = spec.get("predictor", role.empty() ? "rules" : "llm");
      if (kind != "rules" && kind != "llm")
        throw UsageError(fmt::format("metric '{}': predictor must be rules or llm", spec.text()));
      if (kind == "llm") {
        LlmOracleOptions o;
        o.role = role.empty() ? "oracle" : role;
        o.batch = spec.get_bool("batch", true);
        o.reasks = spec.get_int("reasks", 2, 0, 10);
        o.prompts_dir = spec.get("prompts", "");
        o.statement_targets = representation == mi::Representation::kStatement;
        auto session = llm::Session::current();
        key = fmt::format("llm-oracle|{}|{}|{}|{}|{}", session->id(), o.role, o.batch, o.reasks,
                          o.prompts_dir);
        make = [o, session] { return std::make_shared<LlmOracle>(o, session); };
        break;
      }
      SupportJudgeOptions o;
      o.seed = static_cast<std::uint64_t>(spec.get_int("calib_seed", 0, 0));
      key = fmt::format("oracle|{}", o.seed);
      make = [o] { return std::make_shared<SupportJudge>(o); };
      break;
    }
    case mi::Mechanism::kExact:
      throw UsageError(fmt::format(
          "metric '{}': the exact predictor works only on synthetic distributions (tests)",
          spec.text()));
  }
  key += representation == mi::Representation::kStatement ? "|stmt" : "|whole";
  std::lock_guard lock(mutex);
  if (key.starts_with("llm-")) {
    // LLM predictors hold a session's clients (connections, cache): shared while some metric
    // uses them, released with the last one rather than kept for the process's lifetime.
    static std::map<std::string, std::weak_ptr<mi::Predictor>> live;
    auto& weak = live[key];
    auto p = weak.lock();
    if (!p) {
      p = make();
      weak = p;
    }
    return p;
  }
  auto& slot = shared[key];
  if (!slot) slot = make();
  return slot;
}

}  // namespace probity::predict
