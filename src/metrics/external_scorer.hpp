#pragma once
// The probity-score/1 protocol of external scorers (docs/external-scorers.md): the request a
// batch of items becomes and the answer read back. The exec: and http: metrics
// (external_scorer.cpp) send it over a process's stdin/stdout or an HTTP POST.
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "probity/metric.hpp"

namespace probity::metrics {

inline constexpr std::string_view kScoreProtocol = "probity-score/1";

// {"protocol":"probity-score/1","items":[{"id":0,"candidate":…,"references":[…],"source":…},…]}
// on one line; ids are the items' positions in the batch.
std::string score_request(std::span<const MetricInput> inputs);

struct ScoreAnswer {
  std::vector<double> scores;       // NaN for null
  std::vector<std::string> errors;  // per item: the scorer's reason for a null ("" when none)
};

// Reads {"scores":[…], "errors":[…]?}; throws std::runtime_error naming what is wrong (byte of
// a JSON syntax error, missing or mistyped field, element, count) after `who`.
ScoreAnswer parse_score_answer(std::string_view text, std::size_t expected, std::string_view who);

}  // namespace probity::metrics
