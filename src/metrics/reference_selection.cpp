// The option every reference-based metric takes, refs=<id>[|<id>...]: the metric sees only the
// task's references with those ids (WMT zh-en ships an original-English ref-A that scores badly
// as a translation beside a proper ref-B). registry.cpp wraps the metric here, outside the style
// wrapper, so only the chosen references are normalised.
//
// Fitting (IDF, language models) sees the same selection. A task with none of the ids makes its
// items undefined (NaN, counted, with the reason), never falls back to the other references.
// Contrastive negatives are drawn from the chosen ids as well (NegativeSpec::reference_ids).
#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <set>

#include "metrics/builtin.hpp"
#include "probity/error.hpp"
#include "probity/signature.hpp"

namespace probity::metrics {
namespace {

class ReferenceSelection final : public Metric {
 public:
  ReferenceSelection(std::unique_ptr<Metric> inner, std::vector<std::string> ids)
      : inner_(std::move(inner)), ids_(std::move(ids)) {}

  std::string name() const override { return inner_->name(); }
  std::string signature() const override {
    return Signature(inner_->signature())
        .field("refs", fmt::format("{}", fmt::join(ids_, "+")))
        .format();
  }
  std::vector<std::string> parts() const override { return inner_->parts(); }
  std::size_t primary_part() const override { return inner_->primary_part(); }
  // The inner metric's statistics, then 1 when the task has none of the chosen references.
  std::size_t num_stats() const override { return inner_->num_stats() + 1; }
  bool needs_fit() const override { return inner_->needs_fit(); }
  NegativeSpec negatives() const override {
    NegativeSpec spec = inner_->negatives();
    spec.reference_ids = ids_;
    return spec;
  }
  CorpusAggregation corpus_aggregation() const override { return inner_->corpus_aggregation(); }
  std::size_t batch_size() const override { return inner_->batch_size(); }

  // A misspelt id would leave every item undefined: when no task has a chosen reference, that
  // is an error naming the ids the data has.
  void fit(std::span<const Task> tasks) override {
    std::vector<Task> chosen(tasks.begin(), tasks.end());
    std::set<std::string> present;
    bool any = false;
    for (auto& t : chosen) {
      for (const auto& r : t.references) present.insert(r.id);
      std::erase_if(t.references, [&](const Reference& r) { return !wanted(r.id); });
      any |= !t.references.empty();
    }
    if (!any && !tasks.empty())
      throw UsageError(
          fmt::format("refs={}: no task has a reference with {} (reference ids in "
                      "the data: {})",
                      fmt::join(ids_, "|"), ids_.size() > 1 ? "these ids" : "this id",
                      present.empty() ? "none" : fmt::format("{}", fmt::join(present, ", "))));
    inner_->fit(chosen);
  }
  void prefetch(std::span<const MetricInput> inputs) const override {
    std::vector<MetricInput> chosen;
    for (const auto& in : inputs)
      if (auto c = select(in); !c.references.empty()) chosen.push_back(std::move(c));
    inner_->prefetch(chosen);
  }
  void item_stats(const MetricInput& input, std::span<double> stats) const override {
    const std::size_t n = inner_->num_stats();
    const MetricInput chosen = select(input);
    if (chosen.references.empty()) {
      std::fill(stats.begin(), stats.begin() + static_cast<std::ptrdiff_t>(n), std::nan(""));
      stats[n] = 1;
      return;
    }
    stats[n] = 0;
    inner_->item_stats(chosen, stats.first(n));
  }
  void sentence_score(std::span<const double> stats, std::span<double> parts) const override {
    const std::size_t n = inner_->num_stats();
    if (stats[n] > 0) {
      std::fill(parts.begin(), parts.end(), std::nan(""));
      return;
    }
    inner_->sentence_score(stats.first(n), parts);
  }
  void corpus_score(std::span<const double> summed, std::span<double> parts) const override {
    const std::size_t n = inner_->num_stats();
    if (summed[n] > 0) {
      std::fill(parts.begin(), parts.end(), std::nan(""));
      return;
    }
    inner_->corpus_score(summed.first(n), parts);
  }
  std::string undefined_reason(std::span<const double> stats) const override {
    const std::size_t n = inner_->num_stats();
    if (stats.size() > n && stats[n] > 0)
      return fmt::format("the task has no reference with id {}", fmt::join(ids_, " or "));
    return inner_->undefined_reason(stats.first(std::min(n, stats.size())));
  }
  std::string explain(const MetricInput& input) const override {
    const MetricInput chosen = select(input);
    if (chosen.references.empty()) return {};
    return inner_->explain(chosen);
  }

 private:
  bool wanted(std::string_view id) const {
    return std::find(ids_.begin(), ids_.end(), id) != ids_.end();
  }
  // The input with only the chosen references, in the task's order.
  MetricInput select(const MetricInput& input) const {
    MetricInput out;
    out.candidate = input.candidate;
    out.source = input.source;
    out.negatives = input.negatives;
    for (std::size_t r = 0; r < input.references.size(); ++r) {
      if (r < input.reference_ids.size() && wanted(input.reference_ids[r])) {
        out.references.push_back(input.references[r]);
        out.reference_ids.push_back(input.reference_ids[r]);
      }
    }
    return out;
  }

  std::unique_ptr<Metric> inner_;
  std::vector<std::string> ids_;
};

}  // namespace

const std::vector<OptionSpec>& reference_options_table() {
  static const std::vector<OptionSpec> table = {
      // immutable
      option_text("refs", "",
                  "refs=B or refs=id:A|id:B: only the references with these ids (beside a "
                  "family's own all|first); a task with none of them makes its items undefined")};
  return table;
}

std::vector<std::string> parse_reference_ids(std::string_view text) {
  std::vector<std::string> ids;
  std::size_t begin = 0;
  while (begin <= text.size()) {
    const std::size_t end = std::min(text.find('|', begin), text.size());
    std::string_view id = text.substr(begin, end - begin);
    if (id.starts_with("id:")) id.remove_prefix(3);
    if (id.empty())
      throw UsageError(
          fmt::format("refs='{}': an empty reference id (write refs=A or refs=A|B)", text));
    if (std::find(ids.begin(), ids.end(), id) == ids.end()) ids.emplace_back(id);
    begin = end + 1;
  }
  return ids;
}

std::unique_ptr<Metric> wrap_reference_selection(std::unique_ptr<Metric> inner,
                                                 const std::string& text,
                                                 std::vector<std::string> ids) {
  if (ids.empty()) return inner;
  if (!inner->needs_references())
    throw UsageError(
        fmt::format("metric '{}' is reference-free: refs= has no reference to choose", text));
  return std::make_unique<ReferenceSelection>(std::move(inner), std::move(ids));
}

}  // namespace probity::metrics
