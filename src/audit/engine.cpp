// The Engine's assembly: the built-in metric and strategy registries, and the LLM strategies of
// its session. It sits above the metrics and perturbation layers; they reach the engine only
// through the accessors declared in probity/engine.hpp.
#include "probity/engine.hpp"

#include "llm/session.hpp"
#include "perturb/llm_strategies.hpp"
#include "predict/pool.hpp"
#include "probity/error.hpp"
#include "probity/metric.hpp"
#include "probity/perturb.hpp"
#include "probity/scoring.hpp"

namespace probity {

Engine::Engine()
    : metrics_(std::make_unique<MetricRegistry>(MetricRegistry::builtin())),
      strategies_(std::make_unique<PerturbationRegistry>(PerturbationRegistry::builtin())),
      predictors_(std::make_shared<predict::PredictorPool>()) {}

Engine::~Engine() = default;

void Engine::set_llm(std::shared_ptr<llm::Session> session) {
  session_ = std::move(session);
  predictors_->forget_llm();
  // The rule-based strategies again, with the LLM ones of the new session.
  strategies_ = std::make_unique<PerturbationRegistry>(PerturbationRegistry::builtin());
  if (session_) perturb::register_llm_strategies(*strategies_, session_);
}

std::unique_ptr<Metric> Engine::make_metric(std::string_view spec) {
  return metrics_->create(spec, metric_context());
}

std::unique_ptr<Metric> make_metric(std::string_view spec) {
  Engine engine;
  return engine.make_metric(spec);
}

MetricSelection select_metric(const std::string& spec) {
  Engine engine;
  return select_metric(spec, engine);
}

}  // namespace probity
