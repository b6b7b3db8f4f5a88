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
#include <optional>
#include <set>

#include "metrics/builtin.hpp"
#include "metrics/corpus_signature.hpp"
#include "metrics/flagged_wrapper.hpp"
#include "probity/error.hpp"
#include "probity/signature.hpp"

namespace probity::metrics {
namespace {

class ReferenceSelection final : public FlaggedWrapper, public CorpusSigned {
 public:
  ReferenceSelection(std::unique_ptr<Metric> inner, std::vector<std::string> ids)
      : FlaggedWrapper(std::move(inner)), ids_(std::move(ids)) {}

  std::string signature() const override { return wrap(inner().signature()); }
  std::string corpus_signature() const override { return wrap(corpus_signature_of(inner())); }
  std::string wrap(const std::string& inner_signature) const {
    return Signature(inner_signature)
        .field("refs", fmt::format("{}", fmt::join(ids_, "+")))
        .format();
  }
  bool needs_fit() const override { return inner().needs_fit(); }
  NegativeSpec negatives() const override {
    NegativeSpec spec = inner().negatives();
    spec.reference_ids = ids_;
    return spec;
  }
  std::size_t batch_size() const override { return inner().batch_size(); }

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
    inner().fit(chosen);
  }
  void prefetch(std::span<const MetricInput> inputs) const override {
    std::vector<MetricInput> chosen;
    for (const auto& in : inputs)
      if (auto c = select(in)) chosen.push_back(std::move(*c));
    inner().prefetch(chosen);
  }
  std::size_t references_used(const Task& task) const override {
    return static_cast<std::size_t>(
        std::count_if(task.references.begin(), task.references.end(),
                      [&](const Reference& r) { return wanted(r.id); }));
  }
  void item_stats(const MetricInput& input, std::span<double> stats) const override {
    stats_of(select(input), stats);
  }
  std::string explain(const MetricInput& input) const override {
    const auto chosen = select(input);
    return chosen ? inner().explain(*chosen) : std::string();
  }

 private:
  std::string flag_reason() const override {
    return fmt::format("the task has no reference with id {}", fmt::join(ids_, " or "));
  }
  bool wanted(std::string_view id) const {
    return std::find(ids_.begin(), ids_.end(), id) != ids_.end();
  }
  // The input with only the chosen references, in the task's order; nullopt without any.
  std::optional<MetricInput> select(const MetricInput& input) const {
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
    if (out.references.empty()) return std::nullopt;
    return out;
  }

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
