#pragma once
// The WMT metrics shared task's meta-evaluation protocols as mt-metrics-eval runs them
// (tasks.py WMT23 / WMT24 / WMT25, commit 68a481a): per language pair a list of tasks (level,
// statistic, significance test), each ranking the metrics into significance clusters on raw
// p-values, then the weighted average over tasks, the average rank, and clusters of the average
// whose significance reuses every task's permutation draws (docs/meta-eval.md, "WMT protocols").
#include <array>
#include <cstddef>
#include <cstdint>
#include <functional>
#include <string>
#include <string_view>
#include <vector>

namespace probity {

enum class WmtProtocol { kWmt24, kWmt25 };
WmtProtocol parse_wmt_protocol(std::string_view name);  // std::invalid_argument
std::string_view wmt_protocol_name(WmtProtocol protocol);

// The statistic of a task: soft pairwise accuracy at the system level (1 - PCE, pce.py) or
// tie-calibrated pairwise accuracy at the segment level grouped by item (acc23,
// KendallWithTiesOpt with average_by='item').
enum class WmtStatistic { kSpa, kAccEq };
std::string_view wmt_statistic_name(WmtStatistic statistic);

// How a metric stands in the protocol's meta-information: a primary submission, a baseline, or
// a contrastive (non-primary) submission, shown with '*' as mt-metrics-eval does.
enum class WmtMetricStatus { kPrimary, kBaseline, kContrastive };

struct WmtRankRequest {
  WmtProtocol protocol = WmtProtocol::kWmt24;
  std::string test_set_dir;         // e.g. mt-metrics-eval-v2/wmt24
  std::vector<std::string> lps;     // empty: the protocol's language pairs
  std::vector<std::string> extra;   // metric basenames counted as primary (the user's metrics)
  bool primary_only = true;         // only primary metrics and baselines (tasks.py primary=True)
  std::size_t permutations = 1000;  // k per pair of metrics and task; 0: no significance
  std::uint64_t seed = 0;           // numpy.random.seed(seed + 100000 task + pair) per test
  double alpha = 0.05;              // clusters on raw p-values (data.AssignRanks)
  // Gold from MQM error spans instead of the stored segment scores: the rating set
  // human-scores/<lp>.<mqm_ratings>.seg.rating (empty: the one named as the gold, or the only
  // one starting with it) re-weighted with score_mqm.py's --weights rules ("major:5 minor:1
  // ..."; "default": score_mqm.py's defaults). Empty: the stored gold.
  std::string mqm_weights, mqm_ratings;
  // The tests' coins: numpy's legacy global stream after np.random.seed (equal to
  // mt-metrics-eval bit for bit), or probity's own generator (other draws, several times faster).
  bool mtme_stream = true;
  unsigned threads = 0;
};

struct WmtTaskResult {
  std::string lp;
  WmtStatistic statistic = WmtStatistic::kSpa;
  bool human = false;  // human translations (alternative references) ranked as systems
  double weight = 0;
  std::size_t systems = 0, segments = 0;
  // In decreasing order of value (ties by name, as mt-metrics-eval sorts them).
  std::vector<std::string> metrics;
  std::vector<double> values;
  std::vector<std::size_t> ranks;
  // sig[i][j] (j > i): the p-value that metric j is at least as good as metric i.
  std::vector<std::vector<double>> sig;
  // draws[i][j] (j > i): the permutations' (value of i, value of j), for the average's test.
  std::vector<std::vector<std::vector<std::array<double, 2>>>> draws;
  std::vector<std::size_t> permutations_used;  // per pair in loop order (early stopping)
};

struct WmtAverageRow {
  std::string metric;  // display name: '*' contrastive, '[noref]' reference-free
  WmtMetricStatus status = WmtMetricStatus::kPrimary;
  double value = 0;         // weighted mean of the task values mapped to [0, 1]
  std::size_t rank = 0;     // cluster of the average (raw p, the tasks' draws)
  double average_rank = 0;  // weighted mean of the task cluster ranks
};

struct WmtRankResult {
  WmtProtocol protocol = WmtProtocol::kWmt24;
  std::vector<std::string> lps;
  std::vector<WmtTaskResult> tasks;
  std::vector<WmtAverageRow> average;  // metrics present in every task, by decreasing value
  std::vector<std::vector<double>> average_sig;
  // The protocol's conventions as applied, one sentence each (references, human systems,
  // outliers, gold, clusters), for the printed table.
  std::vector<std::string> conventions;
};

WmtRankResult run_wmt_protocol(const WmtRankRequest& request,
                               const std::function<void(const std::string&)>& progress = {});

}  // namespace probity
