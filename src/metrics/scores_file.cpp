// `scores:FILE,data=DATASET`: a user's own metric given as precomputed scores. FILE holds score
// records (as `probity score` writes them) for the candidates of DATASET — typically the file that
// `probity perturb` wrote, with the originals and every perturbed text — so that an audit can
// look up the score of any text it meets by (reference, candidate text).
#include <fmt/format.h>

#include <cmath>
#include <unordered_map>

#include "metrics/builtin.hpp"
#include "probity/error.hpp"
#include "probity/scores.hpp"
#include "probity/scoring.hpp"
#include "probity/signature.hpp"
#include "util/hash.hpp"

namespace probity::metrics {
namespace {

std::string text_key(std::string_view reference, std::string_view candidate) {
  return util::hex64(util::fnv1a64(candidate, util::fnv1a64(reference)));
}

class ScoresFileMetric final : public Metric {
 public:
  bool needs_references() const override { return false; }
  bool scores_new_texts() const override { return false; }
  ScoresFileMetric(std::string name, const std::string& file, const std::string& data,
                   const std::string& metric, bool allow_missing, bool higher_is_better)
      : name_(std::move(name)), higher_is_better_(higher_is_better) {
    Dataset ds = load_dataset(data);
    auto items = all_items(ds);
    auto columns =
        read_scores(file, ds, items,
                    metric.empty() ? std::vector<std::string>{} : std::vector<std::string>{metric},
                    {allow_missing});
    if (columns.empty())
      throw UsageError(fmt::format("metric '{}': no scores{} in '{}'", name_,
                                   metric.empty() ? "" : " of '" + metric + "'", file));
    if (columns.size() > 1)
      throw UsageError(
          fmt::format("metric '{}': '{}' holds several metrics; choose one with "
                      "metric=NAME",
                      name_, file));
    const ScoreColumn& c = columns.front();
    record_name_ = c.metric;
    Signature sig = Signature("scores:" + c.metric)
                        .field("file", file)
                        .field("data", data)
                        .field("source", c.signature.empty() ? "unknown" : c.signature);
    if (!higher_is_better) sig.field("better", "lower");
    signature_ = sig.versioned();
    for (std::size_t i = 0; i < items.size(); ++i) {
      const Task& t = ds.tasks[items[i].task];
      scores_.emplace(text_key(t.references.front().text, t.candidates[items[i].candidate].text),
                      c.values[i]);
    }
  }
  std::string name() const override { return name_; }
  std::string signature() const override { return signature_; }
  std::string default_display_name() const override { return record_name_; }
  std::size_t num_stats() const override { return 1; }
  bool higher_is_better() const override { return higher_is_better_; }
  void item_stats(const MetricInput& input, std::span<double> stats) const override {
    auto it = input.references.empty()
                  ? scores_.end()
                  : scores_.find(text_key(input.references.front(), input.candidate));
    stats[0] = it == scores_.end() ? std::nan("") : it->second;
  }
  void sentence_score(std::span<const double> stats, std::span<double> parts) const override {
    parts[0] = stats[0];
  }
  CorpusAggregation corpus_aggregation() const override { return CorpusAggregation::kMeanScores; }
  std::string undefined_reason(std::span<const double>) const override {
    return "no score for this text in the scores file (or the score is null): score the file "
           "written by `probity perturb` with the same seed and strategies";
  }

 private:
  std::string name_, signature_, record_name_;
  bool higher_is_better_ = true;
  std::unordered_map<std::string, double> scores_;
};

}  // namespace

void register_scores_file(MetricRegistry& registry) {
  registry.add(
      {"scores",
       "your own metric from a scores file: scores:FILE,data=DATASET (DATASET = what "
       "`probity perturb` wrote; FILE = your metric's records for it); named in records and "
       "tables by its record name in FILE unless name= says otherwise",
       {option_text("data", "", "the dataset the scores are for (required)"),
        option_text("metric", "", "the metric's record name when FILE holds several"),
        option_bool("allow_missing", false,
                    "texts without a score are undefined items instead of an error"),
        option_choice("better", "higher", {"higher", "lower"},
                      "which way is better: lower for an error rate (the audit then "
                      "negates the scores)")},
       [](const MetricSpec& s, const MetricContext&) -> std::unique_ptr<Metric> {
         if (s.arg().empty())
           throw UsageError("metric 'scores' needs a file: scores:FILE,data=DATASET");
         std::string data = s.get("data");
         if (data.empty())
           throw UsageError(fmt::format("metric '{}': data=DATASET is required", s.text()));
         return std::make_unique<ScoresFileMetric>(s.text(), s.arg(), data, s.get("metric"),
                                                   s.get_bool("allow_missing"),
                                                   s.get("better") == "higher");
       }});
}

}  // namespace probity::metrics
