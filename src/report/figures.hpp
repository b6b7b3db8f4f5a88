#pragma once
// The report's figures as SVG, drawn once here: inline in report.html and, with `--export svg`,
// as standalone files. Forest plots (one per strategy, each on its own scale so that small
// effects stay visible beside large ones) and the human-correlation chart (ρ with its CI).
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "report/format.hpp"

namespace probity::report::detail {

// Escapes text for XML and HTML (both attribute values and content).
std::string xml_escape(std::string_view s);

struct Figure {
  std::string name;     // file stem: "forest-summeval-degradation-S", "correlation-summeval"
  std::string code;     // strategy code (forest plots), shown bold in the caption
  std::string caption;  // "sentence-deletion" / "Human correlation — summeval: ..."
  std::string tally;    // "4 pass · 2 fail" (forest plots)
  std::string svg;      // <svg ...>…</svg> without a namespace declaration (for inline HTML)
};

// One forest plot per strategy of `kind` tested on `dataset`, in display order.
std::vector<Figure> forest_figures(const TestIndex& index, const std::string& dataset,
                                   StrategyKind kind, const Symbols& sym);
// Spearman ρ [CI] of every metric and baseline on `dataset` (the mean over dimensions, or the
// only one); nothing when the dataset has no correlations.
std::optional<Figure> correlation_figure(const TestIndex& index, const std::string& dataset,
                                         const Symbols& sym);
// A complete SVG document: XML declaration, namespace, the styles the inline SVG takes from the
// page, and the caption drawn above the plot.
std::string standalone_svg(const Figure& figure);
// A file-name-safe version of a dataset, metric or strategy name.
std::string file_stem(std::string_view s);

// Splits a label into lines of at most `width` columns, preferring breaks after separators
// (space - _ : / . | =); nothing is dropped.
std::vector<std::string> wrap_label(std::string_view s, std::size_t width);

}  // namespace probity::report::detail
