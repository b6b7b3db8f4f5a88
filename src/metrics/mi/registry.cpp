// `mi:<F>/<E>/<R>/<Π>` and the named presets of Xu et al. 2025 (GEM, GPPM, TVD-MI, statement-level
// TV).
#include <fmt/format.h>

#include <limits>
#include <optional>
#include <string_view>

#include "llm/session.hpp"
#include "metrics/builtin.hpp"
#include "metrics/mi/mi_metric.hpp"
#include "predict/llm_decomposer.hpp"
#include "predict/pool.hpp"
#include "probity/error.hpp"

namespace probity::mi {
namespace {

// The model's role when the mechanism's predictor is an LLM (llm=<role>, or predictor=llm with
// `default_role`), nullopt for the offline predictor `offline`.
std::optional<std::string> llm_role(const MetricSpec& spec, std::string_view offline,
                                    std::string_view default_role) {
  const std::string role = spec.get("llm", "");
  const std::string kind = spec.get("predictor", role.empty() ? std::string(offline) : "llm");
  if (kind != offline && kind != "llm")
    throw UsageError(fmt::format("metric '{}': predictor must be {} or llm", spec.text(), offline));
  if (kind != "llm") return std::nullopt;
  return role.empty() ? std::string(default_role) : role;
}

}  // namespace

predict::PredictorConfig predictor_config(Mechanism mechanism, Representation representation,
                                          const MetricSpec& spec) {
  using Kind = predict::PredictorConfig::Kind;
  predict::PredictorConfig c;
  c.statement_targets = representation == Representation::kStatement;
  switch (mechanism) {
    case Mechanism::kAutoregression: {
      // llm=<role> (or predictor=llm, role "lm") scores with a model's prompt log-probabilities.
      if (const auto role = llm_role(spec, "ngram", "lm")) {
        c.kind = Kind::kLlmLm;
        c.llm_lm.role = *role;
        c.llm_lm.prompt_logprobs = spec.get_bool("prompt_logprobs");
        c.llm_lm.prompts_dir = spec.get("prompts");
        return c;
      }
      c.kind = Kind::kNgram;
      c.ngram.order = spec.get_int("order");
      c.ngram.cache_weight = spec.get("cache");
      c.ngram.stem = spec.get_bool("stem");
      c.ngram.normalize = spec.get_bool("normalize");
      c.ngram.corpus = spec.get("corpus");
      c.ngram.folds = spec.get_int("folds");
      return c;
    }
    case Mechanism::kOracle: {
      // llm=<role> (or predictor=llm, role "oracle") asks a model instead of the offline judge.
      if (const auto role = llm_role(spec, "rules", "oracle")) {
        c.kind = Kind::kLlmOracle;
        c.llm_oracle.role = *role;
        c.llm_oracle.batch = spec.get_bool("batch");
        c.llm_oracle.reasks = spec.get_int("reasks");
        c.llm_oracle.prompts_dir = spec.get("prompts");
        c.llm_oracle.statement_targets = c.statement_targets;
        return c;
      }
      c.kind = Kind::kRules;
      c.rules.seed = static_cast<std::uint64_t>(spec.get_int("calib_seed"));
      return c;
    }
    case Mechanism::kExact:
      break;
  }
  throw UsageError(
      fmt::format("metric '{}': the exact predictor works only on synthetic distributions (tests)",
                  spec.text()));
}

}  // namespace probity::mi

namespace probity::metrics {
namespace {

using namespace probity::mi;

std::unique_ptr<Metric> make_mi(const MetricSpec& spec, const MetricContext& context,
                                std::string_view cell, const std::string& name) {
  std::vector<std::string> parts;
  std::string_view rest = cell;
  while (true) {
    auto slash = rest.find('/');
    parts.emplace_back(rest.substr(0, slash));
    if (slash == std::string_view::npos) break;
    rest.remove_prefix(slash + 1);
  }
  if (parts.size() != 4)
    throw UsageError(
        fmt::format("metric '{}': expected mi:<F>/<E>/<R>/<Π>, e.g. "
                    "mi:tv/fvar/statement/oracle",
                    spec.text()));
  MiConfig cfg;
  // An unknown part throws std::invalid_argument, which MetricRegistry::create names.
  cfg.measure = parse_measure(parts[0]);
  cfg.estimator = parse_estimator(parts[1]);
  cfg.representation = parse_representation(parts[2]);
  cfg.mechanism = parse_mechanism(parts[3]);
  const bool ar = cfg.mechanism == Mechanism::kAutoregression;
  if (cfg.representation == Representation::kToken && !ar)
    throw UsageError(fmt::format("metric '{}': the token representation needs autoregression (ar)",
                                 spec.text()));
  if (cfg.representation == Representation::kReport && ar)
    throw UsageError(fmt::format(
        "metric '{}': with autoregression the whole report is scored token by token: use "
        "'token' (mi:{}/{}/token/ar)",
        spec.text(), parts[0], parts[1]));
  cfg.negatives = static_cast<std::size_t>(spec.get_int("k"));
  if (cfg.estimator == Estimator::kVariational && cfg.negatives == 0)
    throw UsageError(fmt::format("metric '{}': k must be at least 1", spec.text()));
  cfg.seed = static_cast<std::uint64_t>(spec.get_int("seed"));
  cfg.all_references = spec.get("refs") == "all";
  const std::string style = spec.get("critic");
  if (style == "binary") cfg.critic_style = MiConfig::CriticStyle::kBinary;
  if (style == "ordinal") cfg.critic_style = MiConfig::CriticStyle::kOrdinal;
  cfg.name = name;
  const auto predictor_cfg = predictor_config(cfg.mechanism, cfg.representation, spec);
  auto predictor = context.predictors->get(predictor_cfg, context.session);
  if (cfg.representation == Representation::kStatement) {
    // The papers decompose with an LLM; that is the default whenever the oracle is one.
    const bool llm_oracle = cfg.mechanism == Mechanism::kOracle && predictor->fallible();
    const std::string how = spec.get("decompose", llm_oracle ? "llm" : "rules");
    if (how == "llm") {
      predict::LlmDecomposerOptions o;
      o.role = spec.get("decompose_llm", llm_oracle ? spec.get("llm", "oracle") : "decomposer");
      o.prompt = spec.get("decompose_prompt");
      o.reasks = spec.get_int("reasks");
      o.prompts_dir = spec.get("prompts");
      cfg.decomposer = std::make_shared<predict::LlmDecomposer>(o, context.llm());
    } else if (how != "rules") {
      throw UsageError(fmt::format("metric '{}': decompose must be rules or llm", spec.text()));
    }
  }
  return std::make_unique<MiMetric>(cfg, std::move(predictor), context.predictors);
}

}  // namespace

void register_mi(MetricRegistry& registry) {
  const std::vector<OptionSpec> options = {
      option_int("k", 4, 1, 1000, "f-var: negatives per item (references of other tasks)"),
      option_int("seed", 0, 0, std::numeric_limits<int>::max(), "f-var: negative sampling"),
      option_choice("refs", "first", {"first", "all"},
                    "positives: the first reference, or the mean over all"),
      option_choice("critic", "auto", {"auto", "binary", "ordinal"},
                    "oracle f-var: the yes/no answer or the ordinal judgment through T*(r); auto: "
                    "binary for TV"),
      option_choice("predictor", "", {"ngram", "rules", "llm"},
                    "ar: ngram or llm, oracle: rules or llm (llm when llm=<role> is given)"),
      option_text("llm", "", "the configuration role of the model (ar: lm, oracle: oracle)"),
      option_int("order", 3, 1, 6, "ar, ngram: n-gram order"),
      option_text("cache", "auto",
                  "ar, ngram: cache weight, auto (cross-fitted) or a fixed weight in [0, 1)"),
      option_bool("stem", true, "ar, ngram: the cache over Porter stems"),
      option_bool("normalize", false, "ar, ngram: length-normalised PMI"),
      option_text("corpus", "", "ar, ngram: a file of extra training text, one per line"),
      option_int("folds", 5, 2, 16, "ar, ngram: folds of the cross-fitting"),
      option_bool("prompt_logprobs", false, "ar, llm: vLLM's prompt_logprobs instead of echo"),
      option_int("calib_seed", 0, 0, std::numeric_limits<int>::max(),
                 "oracle, rules: calibration sample"),
      option_bool("batch", true, "oracle, llm: the statements of a reference in one prompt"),
      option_int("reasks", 2, 0, 10, "llm: re-asks of an unparseable answer"),
      option_text("prompts", "", "llm: a directory of prompt templates (default: probity's)"),
      option_choice("decompose", "", {"rules", "llm"},
                    "statement cells: how references become statements (llm with an LLM "
                    "oracle, as in the papers, else rules)"),
      option_text("decompose_llm", "",
                  "decompose=llm: the configuration role (the oracle's, else decomposer)"),
      option_text("decompose_prompt", "decompose_statements.v1",
                  "decompose=llm: the template (decompose_summary.v1, decompose_review.v1, "
                  "decompose_answer.v1)")};
  registry.add({"mi",
                "MI metric cell mi:<F>/<E>/<R>/<P>: F tv|kl|rkl|chi2|hellinger, E direct|fvar, "
                "R token|report|statement, P ar|oracle",
                options, [](const MetricSpec& s, const MetricContext& c) {
                  return make_mi(s, c, s.arg(), s.text());
                }});
  struct Preset {
    const char* name;
    const char* cell;
    const char* description;
  };
  for (const Preset& p :
       {Preset{"gem", "kl/direct/token/ar",
               "GEM: PMI log p(y|x) - log p(y) (KL, direct, token, autoregression)"},
        Preset{"gppm-j", "kl/direct/statement/oracle",
               "GPPM-J: ordinal oracle over reference statements (KL, direct, statement, oracle)"},
        Preset{"tvd-mi", "tv/fvar/report/oracle",
               "TVD-MI: same-task critic vs other-task critic (TV, f-var, report, oracle)"},
        Preset{"stmt-tv", "tv/fvar/statement/oracle",
               "statement-level TV: mean statement critic, positives minus negatives (App. B)"}}) {
    std::string cell = p.cell;
    registry.add({p.name, std::string(p.description) + " = mi:" + cell, options,
                  [cell](const MetricSpec& s, const MetricContext& c) {
                    if (!s.arg().empty())
                      throw UsageError(fmt::format("metric '{}' takes options only", s.base()));
                    return make_mi(s, c, cell, s.text());
                  }});
  }
}

}  // namespace probity::metrics
