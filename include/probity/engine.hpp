#pragma once
// An Engine owns what a run shares: the LLM session (clients by role, response cache,
// accounting), the fitted predictors and the metric and perturbation registries. Metrics and
// strategies made by one engine share its predictors and session; two engines share nothing.
// The command line builds one from its flags; Python has one per probity.Engine.
//
// The metric factories (metrics layer) see only a MetricContext (probity/metric.hpp), which
// metric_context() gives inline; everything else is defined in audit/engine.cpp, above the
// metrics and perturbation layers (which is where the registries are filled).
#include <memory>
#include <string>
#include <string_view>

#include "probity/metric.hpp"

namespace probity {

class PerturbationRegistry;
struct MetricSelection;

class Engine {
 public:
  Engine();  // the built-in metrics and strategies, no LLM
  ~Engine();
  Engine(const Engine&) = delete;
  Engine& operator=(const Engine&) = delete;

  // Connects (or, with nullptr, disconnects) an LLM session: this engine's model-backed metrics
  // use it, and the LLM realisations of the strategies (llm-D, ...) join its perturbation
  // registry. Metrics made before keep the session they were made with.
  void set_llm(std::shared_ptr<llm::Session> session);
  const std::shared_ptr<llm::Session>& llm_or_null() const { return session_; }
  // The session; throws UsageError naming the flags when none is connected.
  std::shared_ptr<llm::Session> llm() const { return llm::require_session(session_); }

  MetricRegistry& metrics() { return *metrics_; }
  const MetricRegistry& metrics() const { return *metrics_; }
  const PerturbationRegistry& strategies() const { return *strategies_; }
  predict::PredictorPool& predictors() { return *predictors_; }
  const std::shared_ptr<predict::PredictorPool>& predictor_pool() const { return predictors_; }
  // What this engine's metric factories see: its session and predictors.
  MetricContext metric_context() const { return {session_, predictors_}; }

  // A metric by its command-line name, e.g. "bleu,tokenize=intl" (UsageError when unknown).
  std::unique_ptr<Metric> make_metric(std::string_view spec);

 private:
  std::shared_ptr<llm::Session> session_;
  std::unique_ptr<MetricRegistry> metrics_;
  std::unique_ptr<PerturbationRegistry> strategies_;
  std::shared_ptr<predict::PredictorPool> predictors_;
};

// One metric (or selection) made by an engine of its own: offline, sharing nothing. For one-off
// uses and tests; a run makes every metric with one Engine so that they share predictors.
std::unique_ptr<Metric> make_metric(std::string_view spec);
MetricSelection select_metric(const std::string& spec);

}  // namespace probity
