#pragma once
// The mutual-information metric design space (Xu et al. 2025, §4): a metric is a tuple (F, E, R, Π)
// of an information measure, an estimator, a representation and a prediction mechanism.
#include <memory>
#include <optional>
#include <span>
#include <stdexcept>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "probity/dataset.hpp"
#include "probity/text.hpp"

namespace probity::mi {

// ---- F: information measures (Xu et al. 2025, Table 9)
// ------------------------------------------------

enum class Measure { kTV, kKL, kReverseKL, kPearson, kHellinger };

Measure parse_measure(std::string_view name);  // "tv", "kl", "rkl", "chi2", "hellinger"
std::string_view measure_name(Measure m);
double f(Measure m, double t);               // the convex generator f(t)
double optimal_critic(Measure m, double r);  // T*(r)
double conjugate(Measure m, double u);       // f*(u); +inf outside the domain of f*

// ---- E: estimators (Xu et al. 2025, §4)
// -------------------------------------------------------------------

enum class Estimator { kDirect, kVariational };

Estimator parse_estimator(std::string_view name);  // "direct", "fvar"
std::string_view estimator_name(Estimator e);
// Direct sample score f(r)/r at the joint pair (KL: log r; TV: ½|1 − 1/r|).
double direct_score(Measure m, double log_r);
// f-variational sample score T(x,y) − f*(T(x,y⁻)); with several negatives, T(x,y) minus the mean
// of f*(T(x,y⁻ⱼ)) (Xu et al. 2025, App. B).
double variational_score(Measure m, double critic_pos, double critic_neg);
double variational_score(Measure m, double critic_pos, std::span<const double> critics_neg);

// ---- R and Π
// -------------------------------------------------------------------------------------

enum class Representation { kToken, kReport, kStatement };
enum class Mechanism { kAutoregression, kOracle, kExact };

Representation parse_representation(std::string_view name);  // "token", "report", "statement"
std::string_view representation_name(Representation r);
Mechanism parse_mechanism(std::string_view name);  // "ar" (or "autoregression"), "oracle", "exact"
std::string_view mechanism_name(Mechanism m);

// A predictor's failure to answer for one pair (e.g. an LLM answer that stayed unparseable after
// re-asking): the item's value is undefined, never a default.
class PredictionError : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

// One candidate x with the targets it will be asked about (one reference's statements, or the
// whole reference), for Predictor::prefetch.
struct TargetGroup {
  std::string_view x;
  std::vector<std::string_view> targets;
};

// A prediction mechanism: for a candidate x and a target y (a whole reference, or one statement
// of it), estimates the log density ratio log r̂(x, y) = log p(y|x) − log p(y), and a critic
// answer to "does x support y / describe the same item?". Implementations must be thread-safe
// after fit().
class Predictor {
 public:
  virtual ~Predictor() = default;
  // Every choice that affects predictions (model, order, thresholds' calibration seed, ...).
  virtual std::string signature() const = 0;
  // Dataset-level preparation: language-model training, IDF tables, threshold calibration.
  // `statements` gives the decomposition of every reference when the representation is
  // statement-level (predictors calibrate on what they will be asked).
  virtual void fit(std::span<const Task> tasks, bool statement_targets) = 0;
  // Fitting on data read in chunks (`probity score` reads files larger than memory twice rather
  // than holding them): begin_fit, then fit_passes() passes over the same tasks in the same
  // order, each chunk given to fit_chunk(pass, tasks) and each pass closed by end_fit_pass(pass).
  // The result equals fit() on the whole dataset (fit_by_passes defines fit() that way).
  // nullopt, the default: fit() only.
  virtual std::optional<std::size_t> fit_passes() const { return std::nullopt; }
  virtual void begin_fit(bool /*statement_targets*/) {}
  virtual void fit_chunk(std::size_t /*pass*/, std::span<const Task> /*tasks*/) {}
  virtual void end_fit_pass(std::size_t /*pass*/) {}
  // Freezing a fit (Metric::fit_method): the method ("" when the fit cannot be saved), the
  // state fit() left as bytes, its restoration in place of fit() (std::invalid_argument for
  // bytes it cannot read), and the fewest tasks a frozen fit needs, with why.
  virtual std::string fit_method() const { return {}; }
  virtual std::string save_fit() const {
    throw std::logic_error("this predictor's fit cannot be saved");
  }
  virtual void load_fit(std::string_view /*state*/) {
    throw std::logic_error("this predictor's fit cannot be loaded");
  }
  virtual std::pair<std::size_t, std::string> fit_minimum() const { return {1, {}}; }
  virtual double log_ratio(std::string_view x, std::string_view y) const = 0;
  // Binary critic: +1 for yes, −1 for no (the metric maps it to ±½ for TV).
  virtual int critic(std::string_view x, std::string_view y) const = 0;
  // Predictors backed by a remote model answer many pairs at once much faster than one by one:
  // the metric announces the pairs of an item before asking them. `critic` selects which call
  // will follow (critic() or log_ratio()). Default: nothing to prepare.
  virtual void prefetch(std::span<const TargetGroup> /*groups*/, bool /*critic*/) const {}
  // True when log_ratio()/critic() may throw PredictionError.
  virtual bool fallible() const { return false; }
};

// The streaming steps of `predictor` over one chunk holding the whole dataset: fit() of a
// predictor that fits in passes.
inline void fit_by_passes(Predictor& predictor, std::span<const Task> tasks,
                          bool statement_targets) {
  predictor.begin_fit(statement_targets);
  const std::size_t passes = predictor.fit_passes().value_or(0);
  for (std::size_t pass = 0; pass < passes; ++pass) {
    predictor.fit_chunk(pass, tasks);
    predictor.end_fit_pass(pass);
  }
}

// Rule-based statement decomposition Ψ(y), declared in probity/text.hpp.
using text::decompose_statements;

// One text's statements, or why they could not be had (a model's answer that failed or stayed
// unparseable): the items that need them are then undefined, never scored on a substitute.
struct Decomposition {
  std::vector<std::string> statements;
  std::string error;  // empty when it worked
};

// Ψ as a component of the statement representation: the rules above, or a model prompted per
// text (the papers decompose with an LLM).
class Decomposer {
 public:
  virtual ~Decomposer() = default;
  // What ran, for the metric's signature: "rules-v1", or the model, prompt and its hash.
  virtual std::string signature() const = 0;
  virtual bool fallible() const { return false; }
  // The decompositions of `texts`, in order; model-backed decomposers ask for all at once.
  virtual std::vector<Decomposition> decompose(std::span<const std::string> texts) const = 0;
};

// decompose_statements as a Decomposer.
std::shared_ptr<const Decomposer> rule_decomposer();

}  // namespace probity::mi
