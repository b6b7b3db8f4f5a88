#pragma once
// mt-metrics-eval's (MTME's) data layout for one test set and language pair, read whole: the
// counterpart of MTME's data.EvalSet(name, lp, read_stored_metric_scores=True, path=...), with
// its MQM ratings and the meta-info of its WMT23/24/25 task sets. Reference: google-research/
// mt-metrics-eval at 68a481aea1a787392d55af8f76ac8ef40c5f4664 (data.py, ratings.py,
// converters/score_mqm.py, meta_info.py, tasks.py; README "File organization and naming
// convention").
#include <cstddef>
#include <map>
#include <optional>
#include <set>
#include <string>
#include <utility>
#include <vector>

namespace probity {

struct MtmeReadOptions {
  // MTME's strict=False: a metric file missing systems (other than the references the metric
  // uses) gets 0 scores for them; strict=true makes that an error. Human files are never padded.
  bool strict = false;
  bool read_metric_scores = true;  // metric-scores/<lp>/*.score
  bool read_ratings = false;       // human-scores/<lp>.<name>.seg.rating
};

// One scorer at one level: system -> one score per unit (segments, documents, domains in
// domain_names order, or one for `sys`). NaN stands for MTME's None (a missing human score).
using MtmeScores = std::map<std::string, std::vector<double>>;

// ratings.Error / ratings.Rating; nullopt where the JSON has null or no such key.
struct MtmeError {
  long long start = 0;
  long long end = 0;
  std::optional<std::string> category;
  std::optional<std::string> severity;
  std::optional<double> score;
  bool is_source_error = false;
};
struct MtmeRating {
  std::vector<MtmeError> errors;
  std::string rater;  // third column, or the rating set's name when absent
};
// system -> one entry per segment; nullopt = unrated ("None").
using MtmeRatings = std::map<std::string, std::vector<std::optional<MtmeRating>>>;

struct MtmeEvalSet {
  std::string test_set;  // directory name, e.g. wmt24
  std::string lp;
  std::vector<std::string> src;
  // Documents in order of first occurrence (they are contiguous), [begin, end) segments.
  std::vector<std::string> doc_names;
  std::vector<std::pair<std::size_t, std::size_t>> doc_bounds;
  // Domains sorted by name (MTME's canonical order), each a list of [begin, end) runs.
  std::vector<std::string> domain_names;
  std::vector<std::vector<std::pair<std::size_t, std::size_t>>> domain_bounds;
  // Texts; a line "[No translation supplied]" reads as "" (MTME: None).
  std::map<std::string, std::vector<std::string>> refs;         // by reference name
  std::map<std::string, std::vector<std::string>> sys_outputs;  // by system name
  std::set<std::string> ref_names;
  std::set<std::string> sys_names;
  std::set<std::string> human_systems;  // systems named as a reference
  // level ("seg", "doc", "domain", "sys") -> name -> scores.
  std::map<std::string, std::map<std::string, MtmeScores>> human_scores;
  std::map<std::string, std::map<std::string, MtmeScores>> metric_scores;
  std::set<std::string> human_score_names;
  // Metric names as MTME makes them: BASENAME-REFS, REFS = "src", "all" (every reference,
  // when there are 3 or more) or the references joined by '.' in sorted order (MTME joins a
  // Python set: its order for 2+ references depends on PYTHONHASHSEED).
  std::set<std::string> metric_names;
  std::set<std::string> metric_basenames;
  // "<name>.<level>" -> systems padded with 0 scores (MTME's repair when not strict).
  std::map<std::string, std::vector<std::string>> padded;
  std::map<std::string, MtmeRatings> ratings;  // by rating-set name

  // Units at a level: segments, documents, domains, or 1 for sys.
  std::size_t units(const std::string& level) const;
  // Scores of a human scorer or metric at a level; nullptr when absent.
  const MtmeScores* scores(const std::string& level, const std::string& name) const;
};

// Throws InputError naming file, line and field for a malformed or inconsistent tree.
MtmeEvalSet read_mtme_eval_set(const std::string& test_set_dir, const std::string& lp,
                               const MtmeReadOptions& options = {});

// MTME's ParseMetricName: "BASE-REFS" -> basename and the references used ("src": none,
// "all": every reference in ref_names). Throws InputError (file, 0, "name") without a '-'.
std::pair<std::string, std::set<std::string>> parse_mtme_metric_name(
    const std::string& name, const std::set<std::string>& ref_names, const std::string& file);

// A rating file: SYSTEM<TAB>RATING-JSON|None[<TAB>RATER] per line.
MtmeRatings read_mtme_rating_file(const std::string& path, const std::string& default_rater);

// score_mqm.py's --weights: "severity[/category[/subcategory]]:weight" items separated by
// `sep`; keys lower-cased. Throws UsageError for an item without exactly one ':'.
std::map<std::string, double> parse_mqm_weights(const std::string& spec, char sep = ' ');
// score_mqm.py's default --weights.
const std::string& default_mqm_weights();

// Segment MQM scores: per rated segment, minus the sum (in file order) of its errors' weights,
// each the weight of the longest matching prefix of [severity, category parts...] (lower-cased),
// 0 without a match; NaN for unrated segments.
MtmeScores mqm_scores(const MtmeRatings& ratings, const std::map<std::string, double>& weights);

// Facts of MTME's meta_info.py and tasks.py for the language pairs of tasks.WMT23/WMT24/WMT25.
struct MtmeProtocol {
  std::string test_set;
  std::string lp;
  std::string std_ref;
  std::map<std::string, std::string> std_gold;  // level -> human score name
  std::set<std::string> outlier_systems;
  std::set<std::string> primary_metrics;
  std::set<std::string> baseline_metrics;
  bool human = false;  // lp is in the task function's lps_with_multiple_refs
};
// nullptr when the pair is not one of those task sets' pairs.
const MtmeProtocol* find_mtme_protocol(const std::string& test_set, const std::string& lp);
// The pairs the task function uses by default (sorted, as it sorts them); empty if unknown.
std::vector<std::string> mtme_task_lps(const std::string& test_set);
// EvalSet's checks of its meta-info against the data read: the standard reference is a
// reference, each level's standard gold scores exist, the outliers are systems. Throws
// InputError (the test-set directory, line 0, field std_ref / std_gold / outlier_systems).
void check_mtme_protocol(const MtmeEvalSet& eval_set, const MtmeProtocol& protocol,
                         const std::string& test_set_dir);

}  // namespace probity
