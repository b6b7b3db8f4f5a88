// `mi:<F>/<E>/<R>/<Π>` and the named presets of SPEC §4.4.
#include <fmt/format.h>

#include "llm/session.hpp"
#include "metrics/builtin.hpp"
#include "mi/mi_metric.hpp"
#include "predict/llm_decomposer.hpp"
#include "predict/pool.hpp"
#include "probity/error.hpp"

namespace probity::mi {

predict::PredictorConfig predictor_config(Mechanism mechanism, Representation representation,
                                          const MetricSpec& spec) {
  using Kind = predict::PredictorConfig::Kind;
  predict::PredictorConfig c;
  c.statement_targets = representation == Representation::kStatement;
  switch (mechanism) {
    case Mechanism::kAutoregression: {
      // llm=<role> (or predictor=llm, role "lm") scores with a model's prompt log-probabilities.
      const std::string role = spec.get("llm", "");
      const std::string kind = spec.get("predictor", role.empty() ? "ngram" : "llm");
      if (kind != "ngram" && kind != "llm")
        throw UsageError(fmt::format("metric '{}': predictor must be ngram or llm", spec.text()));
      if (kind == "llm") {
        c.kind = Kind::kLlmLm;
        c.llm_lm.role = role.empty() ? "lm" : role;
        c.llm_lm.prompt_logprobs = spec.get_bool("prompt_logprobs", false);
        c.llm_lm.prompts_dir = spec.get("prompts", "");
        return c;
      }
      c.kind = Kind::kNgram;
      c.ngram.order = spec.get_int("order", 3);
      if (c.ngram.order < 1 || c.ngram.order > 6)
        throw UsageError(fmt::format("metric '{}': order must be 1..6", spec.text()));
      c.ngram.cache_weight = spec.get("cache", "auto");
      c.ngram.stem = spec.get_bool("stem", true);
      c.ngram.normalize = spec.get_bool("normalize", false);
      c.ngram.corpus = spec.get("corpus", "");
      c.ngram.folds = spec.get_int("folds", 5, 2, 16);
      return c;
    }
    case Mechanism::kOracle: {
      // llm=<role> (or predictor=llm, role "oracle") asks a model instead of the offline judge.
      const std::string role = spec.get("llm", "");
      const std::string kind = spec.get("predictor", role.empty() ? "rules" : "llm");
      if (kind != "rules" && kind != "llm")
        throw UsageError(fmt::format("metric '{}': predictor must be rules or llm", spec.text()));
      if (kind == "llm") {
        c.kind = Kind::kLlmOracle;
        c.llm_oracle.role = role.empty() ? "oracle" : role;
        c.llm_oracle.batch = spec.get_bool("batch", true);
        c.llm_oracle.reasks = spec.get_int("reasks", 2, 0, 10);
        c.llm_oracle.prompts_dir = spec.get("prompts", "");
        c.llm_oracle.statement_targets = c.statement_targets;
        return c;
      }
      c.kind = Kind::kRules;
      c.rules.seed = static_cast<std::uint64_t>(spec.get_int("calib_seed", 0, 0));
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

std::unique_ptr<Metric> make_mi(const MetricSpec& spec, Engine& engine, std::string_view cell,
                                const std::string& name) {
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
  cfg.negatives = static_cast<std::size_t>(spec.get_int("k", 4, 1, 1000));
  if (cfg.estimator == Estimator::kVariational && cfg.negatives == 0)
    throw UsageError(fmt::format("metric '{}': k must be at least 1", spec.text()));
  cfg.seed = static_cast<std::uint64_t>(spec.get_int("seed", 0, 0));
  std::string refs = spec.get("refs", "first");
  if (refs != "first" && refs != "all")
    throw UsageError(fmt::format("metric '{}': refs must be first or all", spec.text()));
  cfg.all_references = refs == "all";
  std::string style = spec.get("critic", "auto");
  if (style == "binary") {
    cfg.critic_style = MiConfig::CriticStyle::kBinary;
  } else if (style == "ordinal") {
    cfg.critic_style = MiConfig::CriticStyle::kOrdinal;
  } else if (style != "auto") {
    throw UsageError(
        fmt::format("metric '{}': critic must be auto, binary or ordinal", spec.text()));
  }
  cfg.name = name;
  const auto predictor_cfg = predictor_config(cfg.mechanism, cfg.representation, spec);
  auto predictor = engine.predictors().get(predictor_cfg, engine.llm_or_null());
  if (cfg.representation == Representation::kStatement) {
    // The papers decompose with an LLM; that is the default whenever the oracle is one.
    const bool llm_oracle = cfg.mechanism == Mechanism::kOracle && predictor->fallible();
    const std::string how = spec.get("decompose", llm_oracle ? "llm" : "rules");
    if (how == "llm") {
      predict::LlmDecomposerOptions o;
      o.role = spec.get("decompose_llm", llm_oracle ? spec.get("llm", "oracle") : "decomposer");
      o.prompt = spec.get("decompose_prompt", o.prompt);
      o.reasks = spec.get_int("reasks", 2, 0, 10);
      o.prompts_dir = spec.get("prompts", "");
      cfg.decomposer = std::make_shared<predict::LlmDecomposer>(o, engine.llm());
    } else if (how != "rules") {
      throw UsageError(fmt::format("metric '{}': decompose must be rules or llm", spec.text()));
    }
  }
  return std::make_unique<MiMetric>(cfg, std::move(predictor), engine.predictor_pool());
}

}  // namespace

void register_mi(MetricRegistry& registry) {
  const std::string options =
      "k=4 (negatives, f-var); seed=0 (negative sampling); refs=first|all; "
      "critic=auto|binary|ordinal (oracle f-var); ar: order=3, cache=auto|<weight>, stem=true, "
      "normalize=false, corpus=<file>, predictor=ngram|llm, llm=<role> (prompt log-probabilities; "
      "role lm by default), prompt_logprobs=false (vLLM); oracle: calib_seed=0, "
      "predictor=rules|llm, llm=<role> (LLM oracle; role oracle by default), batch=true "
      "(statements of a reference in one prompt), reasks=2, prompts=<dir>; statement cells: "
      "decompose=rules|llm (llm by default with an LLM oracle, as in the papers), "
      "decompose_llm=<role> (the oracle's role by default), decompose_prompt=<template> "
      "(decompose_statements.v1; decompose_summary.v1, decompose_review.v1, "
      "decompose_answer.v1)";
  registry.add({"mi",
                "MI metric cell mi:<F>/<E>/<R>/<P>: F tv|kl|rkl|chi2|hellinger, E direct|fvar, "
                "R token|report|statement, P ar|oracle",
                options,
                [](const MetricSpec& s, Engine& e) { return make_mi(s, e, s.arg(), s.text()); }});
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
                  [cell](const MetricSpec& s, Engine& e) {
                    if (!s.arg().empty())
                      throw UsageError(fmt::format("metric '{}' takes options only", s.base()));
                    return make_mi(s, e, cell, s.text());
                  }});
  }
}

}  // namespace probity::metrics
