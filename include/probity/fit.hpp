#pragma once
// Frozen fits (`probity fit`): a metric that prepares itself on the data it scores (an IDF table,
// vectors trained on the texts, an n-gram language model) gives a pair a score that changes when
// other data is scored beside it. fit_model() fits such a metric once on a corpus and writes the
// fitted state to a model file; the option fit=FILE, which every metric takes, then loads that
// state instead of fitting, so the metric is one fixed function of (candidate, references).
//
// The model file: one line of JSON (the header), then the state's sections, byte for byte:
//   {"format": "probity-model", "format_version": 1, "probity_version": "...",
//    "metric": "gem", "spec": "gem,order=3", "options": {"order": "3"},
//    "signature": the metric's signature before fitting, without its version field,
//    "method": "ngram-kn-cv5", "minimum_tasks": 10,
//    "corpus": {"name": "...", "tasks": N, "references": R, "candidates": C, "sha256": "..."},
//    "sections": [{"name": "predictor", "bytes": B, "sha256": "..."}]}\n<section bytes>...
// fit=FILE refuses a file of another format version, metric or signature (UsageError naming the
// file and the field) and a file whose sections are cut short or do not match their SHA-256
// (InputError naming the file and the section). The frozen metric's signature ends with
// "|fit:sha256-<the file's SHA-256>", never the path.
#include <cstddef>
#include <string>
#include <vector>

#include "probity/dataset.hpp"
#include "probity/inputs.hpp"
#include "probity/metric.hpp"

namespace probity {

inline constexpr int kModelFormatVersion = 1;

struct FitRequest {
  DataInput data;      // the corpus the metric is fitted on
  std::string metric;  // as on the command line: "gem", "bertscore,idf=true"
  std::string out;     // the model file (written atomically)
  bool skip_invalid = false;
};

struct FitResult {
  std::string out;
  std::string metric;  // the spec
  std::string method;  // what was fitted (Metric::fit_method)
  std::size_t tasks = 0, references = 0, candidates = 0;
  std::string corpus_sha256;
  std::string model_sha256;  // of the file written: what the signature of fit=FILE names
  std::size_t bytes = 0;
  std::vector<SkipRecord> skipped;  // invalid items left out (skip_invalid)
};

// Fits `request.metric` (made with `registry` and `context`) on the corpus and writes the model
// file. UsageError for a metric that fits nothing, one whose fit cannot be frozen (naming those
// that can), options a frozen fit does not take (fit=, style=, refs=<ids>), and a corpus with
// fewer tasks than the method's minimum (Metric::fit_minimum, naming both counts).
FitResult fit_model(const FitRequest& request, const MetricRegistry& registry,
                    const MetricContext& context);

// The metrics of `registry` that can be frozen with their default options, e.g. "bertscore, gem".
std::string freezable_metrics(const MetricRegistry& registry);

}  // namespace probity
