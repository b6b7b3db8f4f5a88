#include "predict/factory.hpp"

#include <fmt/format.h>

#include <functional>
#include <map>
#include <mutex>

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
      NgramPredictorOptions o;
      o.order = spec.get_int("order", 3);
      if (o.order < 1 || o.order > 6)
        throw UsageError(fmt::format("metric '{}': order must be 1..6", spec.text()));
      o.cache_weight = spec.get("cache", "auto");
      o.stem = spec.get_bool("stem", true);
      o.normalize = spec.get_bool("normalize", false);
      o.corpus = spec.get("corpus", "");
      o.folds = spec.get_int("folds", 5);
      key = fmt::format("ar|{}|{}|{}|{}|{}|{}", o.order, o.cache_weight, o.stem, o.normalize,
                        o.corpus, o.folds);
      make = [o] { return std::make_shared<NgramPredictor>(o); };
      break;
    }
    case mi::Mechanism::kOracle: {
      SupportJudgeOptions o;
      o.seed = static_cast<std::uint64_t>(spec.get_int("calib_seed", 0));
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
  auto& slot = shared[key];
  if (!slot) slot = make();
  return slot;
}

}  // namespace probity::predict
