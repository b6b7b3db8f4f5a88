#pragma once
// A synthetic audit report for the renderer tests: 2 datasets, 3 metrics (one with a name that
// needs escaping), all 12 strategies, planted pass/fail/n/a/Holm patterns and some NaN.
#include <cmath>
#include <limits>
#include <string>
#include <vector>

#include "probity/audit.hpp"

namespace probity::test {

inline constexpr const char* kOddMetric = "a<b&\"c\"";

// The planted verdict of one test.
enum class Planted { kPass, kFail, kNotTestable, kHolmFlip };

inline Planted planted(const std::string& dataset, const std::string& metric, StrategyKind kind,
                       const std::string& code) {
  bool deg = kind == StrategyKind::kDegradation;
  bool summ = dataset == "summeval";
  if (deg) {
    if (metric == "bleu" && summ && (code == "R" || code == "S" || code == "U"))
      return Planted::kFail;
    if (metric == "rouge-L" && !summ && code == "U") return Planted::kHolmFlip;
    if (metric == kOddMetric && summ && code == "D") return Planted::kFail;
    if (metric == kOddMetric && summ && code == "O") return Planted::kNotTestable;
    return Planted::kPass;
  }
  if (metric == "bleu" && summ && code == "M") return Planted::kFail;
  if (metric == "bleu" && summ && code == "N") return Planted::kHolmFlip;
  if (metric == "rouge-L" && !summ && code == "P") return Planted::kFail;
  if (metric == kOddMetric && !summ) return Planted::kNotTestable;
  return Planted::kPass;
}

inline AuditReport make_sample_report() {
  const double nan = std::numeric_limits<double>::quiet_NaN();
  AuditReport r;
  r.version = "0.1.0";
  r.seed = 18446744073709551557ull;  // near 2^64: must survive JSON exactly
  r.sample = 50;
  r.bootstrap = 1000;
  r.alpha = 0.05;
  r.confidence = 0.95;
  r.cache_hits = 1234;
  r.cache_misses = 56;
  r.seconds = 12.345678901234567;

  DatasetSummary summeval{"summeval", "data/summeval/summeval.jsonl",
                          100,        1600,
                          50,         {"coherence", "consistency", "fluency", "relevance"},
                          {}};
  summeval.skipped.push_back(
      {"data/summeval/summeval.jsonl", 17, "candidates[2].human", "expected a number"});
  DatasetSummary chat{
      "topical_chat", "data/topical_chat_usr/tc.jsonl", 60, 360, 50, {"engaging", "natural"}, {}};
  r.datasets = {summeval, chat};
  r.metrics = {"bleu", "rouge-L", kOddMetric};
  r.signatures = {"bleu|nrefs:1|case:mixed|eff:no|tok:13a|smooth:exp|version:2.3.1",
                  "rougeL|stem:yes|tok:rouge-score|version:0.1.2", "odd|x:<y>&\"z\"|version:1"};

  const std::vector<std::pair<std::string, std::string>> deg = {
      {"R", "random-replacement"}, {"S", "sentence-deletion"}, {"D", "deletion-completion"},
      {"P", "surface-report"},     {"U", "ultra-concise"},     {"O", "opinion-flip"}};
  const std::vector<std::pair<std::string, std::string>> man = {
      {"R", "rephrase"},       {"M", "meaningless-elongation"}, {"P", "positive-shift"},
      {"N", "negative-shift"}, {"H", "hedged-shift"},           {"S", "strong-shift"}};
  for (const auto& [code, name] : deg)
    r.strategies.push_back({StrategyKind::kDegradation, code, name,
                            "Degrades the answer: " + name + ".", "deg:" + code + "|rule|v1"});
  for (const auto& [code, name] : man)
    r.strategies.push_back({StrategyKind::kManipulation, code, name,
                            "Manipulates the answer: " + name + ".", "man:" + code + "|rule|v1"});

  for (std::size_t di = 0; di < r.datasets.size(); ++di)
    for (std::size_t mi = 0; mi < r.metrics.size(); ++mi) {
      MetricCorrelations mc;
      mc.dataset = r.datasets[di].name;
      mc.metric = r.metrics[mi];
      double sum = 0;
      for (std::size_t k = 0; k < r.datasets[di].dimensions.size(); ++k) {
        double rho = 0.12 + 0.11 * static_cast<double>(mi) + 0.05 * static_cast<double>(k) -
                     0.07 * static_cast<double>(di);
        sum += rho;
        mc.rows.push_back({r.datasets[di].dimensions[k], 1600, rho, rho - 0.06, rho + 0.05,
                           0.0004 * static_cast<double>(k + 1), rho * 0.7,
                           mi == 2 && k == 0 ? nan : rho * 0.9});
      }
      double mean = sum / static_cast<double>(r.datasets[di].dimensions.size());
      mc.rows.push_back({"mean", 1600, mean, mean - 0.05, mean + 0.05, 0.001, nan, nan});
      r.correlations.push_back(std::move(mc));
    }

  for (StrategyKind kind : {StrategyKind::kDegradation, StrategyKind::kManipulation})
    for (const auto& ds : r.datasets)
      for (std::size_t mi = 0; mi < r.metrics.size(); ++mi)
        for (std::size_t si = 0; si < 6; ++si) {
          const auto& [code, name] = kind == StrategyKind::kDegradation ? deg[si] : man[si];
          StrategyTest t;
          t.dataset = ds.name;
          t.metric = r.metrics[mi];
          t.kind = kind;
          t.code = code;
          t.name = name;
          Planted p = planted(t.dataset, t.metric, kind, code);
          bool deg_kind = kind == StrategyKind::kDegradation;
          double wobble = 0.03 * static_cast<double>((mi * 7 + si * 3) % 5);
          t.considered = 50;
          if (p == Planted::kNotTestable) {
            t.applied = 1;
            t.not_applicable = 47;
            t.unchanged = 2;
            t.testable = false;
            t.mean_original = 0.4;
            t.mean_perturbed = nan;
            t.mean_delta = nan;
            t.sd_delta = nan;
            t.t = nan;
            t.df = nan;
            t.p = nan;
            t.p_holm = nan;
            t.p_equiv = t.p_equiv_holm = nan;
            t.d = t.d_lo = t.d_hi = t.d_boot_lo = t.d_boot_hi = nan;
            r.tests.push_back(t);
            continue;
          }
          // Undefined scores differ between metrics for one strategy (accounting ranges).
          t.undefined = si == 1 ? mi : 0;
          t.failed = si == 2 ? 1 : 0;
          t.unchanged = si == 4 ? 3 : 0;
          t.not_applicable = si == 3 ? 5 : 0;
          t.applied = t.considered - t.undefined - t.failed - t.unchanged - t.not_applicable;
          t.testable = true;
          t.df = static_cast<double>(t.applied - 1);
          t.mean_original = 0.31 + 0.01 * static_cast<double>(mi);
          // p_equiv: the equivalence test (a change of the margin ruled out). A pass resists a
          // manipulation by it; a failed degradation misses by it; a Holm flip turns
          // inconclusive after the adjustment.
          switch (p) {
            case Planted::kPass:
              t.p = deg_kind ? 0.0004 : 0.62;
              t.p_equiv = deg_kind ? 0.9 : 0.001;
              t.d = deg_kind ? -0.84 - wobble : -0.05 + wobble / 3;
              break;
            case Planted::kFail:
              t.p = deg_kind ? 0.41 : 0.0007;
              t.p_equiv = deg_kind ? 0.002 : 0.9;
              t.d = deg_kind ? -0.04 - wobble / 2 : 0.55 + wobble;
              break;
            case Planted::kHolmFlip:
              t.p = deg_kind ? 0.03 : 0.02;
              t.p_equiv = 0.3;
              t.d = deg_kind ? -0.31 : 0.33;
              break;
            case Planted::kNotTestable:
              break;
          }
          t.p_holm = std::min(1.0, t.p * 6);
          t.p_equiv_holm = std::min(1.0, t.p_equiv * 6);
          t.passed = deg_kind ? t.p < r.alpha : !(t.p < r.alpha);
          t.passed_holm = deg_kind ? t.p_holm < r.alpha : !(t.p_holm < r.alpha);
          t.outcome = probity::decide_outcome(kind, t.p, t.p_equiv, r.alpha);
          t.outcome_holm = probity::decide_outcome(kind, t.p_holm, t.p_equiv_holm, r.alpha);
          t.sd_delta = 0.12;
          t.pooled_sd = 0.2;
          t.mean_delta = t.d * t.sd_delta;
          t.mean_perturbed = t.mean_original + t.mean_delta;
          t.t = t.d * std::sqrt(static_cast<double>(t.applied));
          t.d_lo = t.d - 0.12;
          t.d_hi = t.d + 0.12;
          t.d_boot_lo = t.d - 0.15;
          t.d_boot_hi = t.d + 0.13;
          r.tests.push_back(t);
        }

  std::string long_text;
  for (int i = 0; i < 30; ++i)
    long_text += "The council approved the budget after a long debate about schools. ";
  r.examples.push_back({"summeval", "task-1", "cand-3", StrategyKind::kDegradation, "S", long_text,
                        "The council approved the budget."});
  r.examples.push_back({"summeval", "task-2", "cand-1", StrategyKind::kManipulation, "M",
                        "Prices rose <script>alert(1)</script> & fell.",
                        "Prices rose <script>alert(1)</script> & fell. Moreover, it is "
                        "important to note that prices, as noted, rose and fell."});
  r.examples.push_back({"topical_chat", "t-9", "c-0", StrategyKind::kDegradation, "O",
                        "I love `jazz` | it's great.", "I hate `jazz` | it's awful."});
  return r;
}

}  // namespace probity::test
