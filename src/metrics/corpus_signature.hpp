#pragma once
// The signature of a metric's corpus score where it differs from that of its per-item scores:
// BLEU's sentence scores always use the effective order (sacreBLEU's sentence_bleu), its corpus
// score only with effective_order=true (corpus_bleu), so the corpus signature says eff:yes/no.
#include <string>

#include "probity/metric.hpp"

namespace probity::metrics {

// Implemented by metrics (and wrappers of them) whose corpus score has its own signature.
class CorpusSigned {
 public:
  virtual ~CorpusSigned() = default;
  virtual std::string corpus_signature() const = 0;
};

inline std::string corpus_signature_of(const Metric& metric) {
  if (const auto* c = dynamic_cast<const CorpusSigned*>(&metric)) return c->corpus_signature();
  return metric.signature();
}

}  // namespace probity::metrics
