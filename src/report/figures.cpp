#include "report/figures.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <cctype>
#include <cmath>
#include <cstdio>

namespace probity::report::detail {

std::string xml_escape(std::string_view s) {
  std::string out;
  out.reserve(s.size());
  for (char c : s) {
    switch (c) {
      case '&':
        out += "&amp;";
        break;
      case '<':
        out += "&lt;";
        break;
      case '>':
        out += "&gt;";
        break;
      case '"':
        out += "&quot;";
        break;
      case '\'':
        out += "&#39;";
        break;
      default:
        out += c;
    }
  }
  return out;
}

std::string file_stem(std::string_view s) {
  std::string out;
  for (char c : s) {
    const auto u = static_cast<unsigned char>(c);
    out += std::isalnum(u) || c == '-' || c == '_' || c == '.' ? c : '_';
  }
  if (out.empty() || out.front() == '.') out.insert(out.begin(), '_');
  return out;
}

std::vector<std::string> wrap_label(std::string_view s, std::size_t width) {
  width = std::max<std::size_t>(width, 4);
  auto is_sep = [](char c) {
    return c == ' ' || c == '-' || c == '_' || c == ':' || c == '/' || c == '.' || c == '|' ||
           c == '=' || c == ',';
  };
  // Code point boundaries, so that a hard break never splits a UTF-8 sequence.
  std::vector<std::string> lines;
  while (!s.empty()) {
    std::size_t cols = 0, pos = 0, last_sep = 0;
    while (pos < s.size() && cols < width) {
      std::size_t len = 1;
      while (pos + len < s.size() && (static_cast<unsigned char>(s[pos + len]) & 0xC0) == 0x80)
        ++len;
      pos += len;
      ++cols;
      if (is_sep(s[pos - 1])) last_sep = pos;
    }
    std::size_t cut = pos;
    if (pos < s.size() && last_sep > 0) cut = last_sep;
    std::string_view line = s.substr(0, cut);
    while (!line.empty() && line.back() == ' ') line.remove_suffix(1);
    lines.emplace_back(line);
    s.remove_prefix(cut);
    while (!s.empty() && s.front() == ' ') s.remove_prefix(1);
  }
  if (lines.empty()) lines.emplace_back();
  return lines;
}

namespace {

struct Axis {
  double lo = -1, hi = 1, step = 0.5;
  int decimals = 1;
};

// The data range (with 0) padded by 6% on each side, about 6 ticks at a "nice" step (1, 2, 2.5 or 5
// × 10^k) inside it: snapping the range to whole steps could waste half of the plot.
Axis make_axis(const std::vector<double>& values, double ticks = 6) {
  double lo = 0, hi = 0;
  for (double v : values)
    if (std::isfinite(v)) {
      lo = std::min(lo, v);
      hi = std::max(hi, v);
    }
  if (hi - lo < 1e-9) {
    lo -= 0.5;
    hi += 0.5;
  }
  double margin = (hi - lo) * 0.06;
  Axis a;
  a.lo = lo - margin;
  a.hi = hi + margin;
  double raw = (a.hi - a.lo) / ticks;
  double mag = std::pow(10.0, std::floor(std::log10(raw)));
  double norm = raw / mag;
  double mult = norm <= 1 ? 1 : norm <= 2 ? 2 : norm <= 2.5 ? 2.5 : norm <= 5 ? 5 : 10;
  a.step = mult * mag;
  a.decimals = std::max(0, static_cast<int>(-std::floor(std::log10(a.step) + 1e-9)));
  if (mult == 2.5) ++a.decimals;
  return a;
}

std::string color_of(Verdict v) {
  switch (v) {
    case Verdict::kPass:
      return "#1a7f37";
    case Verdict::kFail:
      return "#cf222e";
    case Verdict::kInconclusive:
      return "#9a6700";
    case Verdict::kNotTestable:
    case Verdict::kMissing:
      break;
  }
  return "#8c959f";
}

// The plot frame shared by both charts: background, grid lines with tick labels, the zero line.
struct Frame {
  double x0, x1, top, bottom, pad = 7;
  Axis axis;
  double x(double v) const {
    double f = (std::clamp(v, axis.lo, axis.hi) - axis.lo) / (axis.hi - axis.lo);
    return x0 + pad + f * (x1 - x0 - 2 * pad);
  }
  std::string draw() const {
    std::string out = fmt::format(
        "<rect x=\"{:.1f}\" y=\"{:.1f}\" width=\"{:.1f}\" height=\"{:.1f}\" fill=\"#f6f8fa\"/>\n",
        x0, top, x1 - x0, bottom - top);
    double first = std::ceil(axis.lo / axis.step - 1e-9);
    for (double k = first; k * axis.step <= axis.hi + axis.step * 1e-9; k += 1) {
      double tick = k == 0 ? 0.0 : k * axis.step;
      out += fmt::format(
          "<line x1=\"{0:.1f}\" x2=\"{0:.1f}\" y1=\"{1:.1f}\" y2=\"{2:.1f}\" stroke=\"#e1e6eb\"/>"
          "<line x1=\"{0:.1f}\" x2=\"{0:.1f}\" y1=\"{2:.1f}\" y2=\"{3:.1f}\" stroke=\"#8c959f\"/>"
          "<text x=\"{0:.1f}\" y=\"{4:.1f}\" text-anchor=\"middle\" class=\"muted\">{5}</text>\n",
          x(tick), top, bottom, bottom + 4, bottom + 15, fmt_num(tick, axis.decimals));
    }
    out += fmt::format(
        "<line x1=\"{0:.1f}\" x2=\"{1:.1f}\" y1=\"{2:.1f}\" y2=\"{2:.1f}\" stroke=\"#8c959f\"/>\n",
        x0, x1, bottom);
    out += fmt::format(
        "<line x1=\"{0:.1f}\" x2=\"{0:.1f}\" y1=\"{1:.1f}\" y2=\"{2:.1f}\" stroke=\"#57606a\" "
        "stroke-width=\"1.2\" stroke-dasharray=\"4 3\"/>\n",
        x(0), top, bottom);
    return out;
  }
};

constexpr double kWidth = 548, kRowH = 26, kLineH = 12, kTop = 6, kValueW = 116;
constexpr std::size_t kLabelChars = 22;

// Label column sized to the longest name (wrapped beyond kLabelChars columns).
std::size_t label_chars(const std::vector<std::string>& names) {
  std::size_t longest = 4;
  for (const auto& n : names) longest = std::max(longest, display_width(n));
  return std::min(longest, kLabelChars);
}

// A row's label, one <tspan> per line, vertically centred on `y`.
std::string label_svg(const std::vector<std::string>& lines, double x, double y) {
  double first = y + 4 - kLineH * static_cast<double>(lines.size() - 1) / 2;
  std::string out = fmt::format("<text x=\"{:.1f}\" y=\"{:.1f}\" text-anchor=\"end\">", x, first);
  for (std::size_t i = 0; i < lines.size(); ++i)
    out += fmt::format("<tspan x=\"{:.1f}\"{}>{}</tspan>", x,
                       i == 0 ? std::string() : fmt::format(" dy=\"{:.0f}\"", kLineH),
                       xml_escape(lines[i]));
  return out + "</text>";
}

double row_height(const std::vector<std::string>& lines) {
  return kRowH + kLineH * static_cast<double>(lines.size() - 1);
}

Figure forest_panel(const TestIndex& index, const std::string& dataset, StrategyKind kind,
                    const StrategyRef& strategy, std::size_t chars, const Symbols& sym) {
  std::vector<const StrategyTest*> rows;
  std::vector<double> values;
  std::size_t pass = 0, fail = 0, unsure = 0, na = 0;
  for (const auto& m : index.metrics()) {
    const StrategyTest* t = index.find(dataset, m, kind, strategy.code);
    if (!t) continue;
    rows.push_back(t);
    Verdict v = raw_verdict(t);
    pass += v == Verdict::kPass;
    fail += v == Verdict::kFail;
    unsure += v == Verdict::kInconclusive;
    na += v == Verdict::kNotTestable;
    if (t->testable)
      for (double x : {t->d, t->d_lo, t->d_hi, t->d_boot_lo, t->d_boot_hi}) values.push_back(x);
  }
  Figure fig;
  fig.name =
      cat({"forest-", file_stem(dataset), "-", kind_name(kind), "-", file_stem(strategy.code)});
  fig.code = strategy.code;
  fig.caption = strategy.name;
  fig.tally = fmt::format("{} pass{}{} fail", pass, sym.dot(), fail);
  if (unsure) fig.tally += fmt::format("{}{} inconclusive", sym.dot(), unsure);
  if (na) fig.tally += fmt::format("{}{} n/a", sym.dot(), na);

  std::vector<std::vector<std::string>> labels;
  double plot_h = 0;
  for (const auto* t : rows) {
    labels.push_back(wrap_label(t->metric, chars));
    plot_h += row_height(labels.back());
  }
  const double label_width = 14 + 6.4 * static_cast<double>(chars), axis_h = 40;
  Frame f{label_width, kWidth - kValueW - 6, kTop, kTop + plot_h, 7, make_axis(values)};
  const double height = f.bottom + axis_h;

  std::string& out = fig.svg;
  out = fmt::format(
      "<svg viewBox=\"0 0 {0:.0f} {1:.0f}\" width=\"{0:.0f}\" height=\"{1:.0f}\" role=\"img\" "
      "aria-label=\"{2}\">\n",
      kWidth, height,
      xml_escape(
          fmt::format("Effect sizes of {} {} on {}", kind_name(kind), strategy.code, dataset)));
  out += f.draw();
  out += fmt::format(
      "<text x=\"{:.1f}\" y=\"{:.1f}\" class=\"muted\">{} lower score</text>"
      "<text x=\"{:.1f}\" y=\"{:.1f}\" text-anchor=\"middle\" class=\"muted\">d</text>"
      "<text x=\"{:.1f}\" y=\"{:.1f}\" text-anchor=\"end\" class=\"muted\">higher score "
      "{}</text>\n",
      f.x0, f.bottom + 31, sym.unicode ? "\u2190" : "<-", (f.x0 + f.x1) / 2, f.bottom + 31, f.x1,
      f.bottom + 31, sym.unicode ? "\u2192" : "->");
  out += fmt::format(
      "<text x=\"{:.1f}\" y=\"{:.1f}\" text-anchor=\"end\" class=\"muted\">d [{} CI]</text>\n",
      kWidth - 4, f.bottom + 15, fmt_percent(index.report().confidence));

  double y0 = kTop;
  for (std::size_t i = 0; i < rows.size(); ++i) {
    const StrategyTest& t = *rows[i];
    const double h = row_height(labels[i]);
    const double y = y0 + h / 2;
    y0 += h;
    Verdict v = raw_verdict(&t);
    std::string color = color_of(v);
    append(out, {"<g><title>", xml_escape(t.metric + "\n" + test_details(index, t, sym)),
                 "</title>", label_svg(labels[i], f.x0 - 8, y)});
    if (v == Verdict::kNotTestable) {
      out += fmt::format(
          "<text x=\"{:.1f}\" y=\"{:.1f}\" text-anchor=\"middle\" class=\"na\">not testable "
          "({} applied)</text><text x=\"{:.1f}\" y=\"{:.1f}\" text-anchor=\"end\" "
          "class=\"na\">n/a</text></g>\n",
          (f.x0 + f.x1) / 2, y + 4, t.applied, kWidth - 4, y + 4);
      continue;
    }
    if (std::isfinite(t.d_boot_lo) && std::isfinite(t.d_boot_hi)) {
      double a = f.x(t.d_boot_lo), b = f.x(t.d_boot_hi), yb = y + 6;
      out += fmt::format(
          "<path d=\"M{0:.1f} {2:.1f}H{1:.1f}M{0:.1f} {3:.1f}V{4:.1f}M{1:.1f} {3:.1f}V{4:.1f}\" "
          "stroke=\"{5}\" stroke-opacity=\"0.75\" stroke-width=\"1.3\" stroke-dasharray=\"3 2\" "
          "fill=\"none\"/>",
          a, b, yb, yb - 3, yb + 3, color);
    }
    if (std::isfinite(t.d_lo) && std::isfinite(t.d_hi))
      out += fmt::format(
          "<line x1=\"{:.1f}\" x2=\"{:.1f}\" y1=\"{:.1f}\" y2=\"{:.1f}\" stroke=\"{}\" "
          "stroke-opacity=\"0.55\" stroke-width=\"4\" stroke-linecap=\"round\"/>",
          f.x(t.d_lo), f.x(t.d_hi), y - 1, y - 1, color);
    if (std::isfinite(t.d)) {
      if (holm_changes(&t))
        out += fmt::format(
            "<circle cx=\"{:.1f}\" cy=\"{:.1f}\" r=\"7.5\" fill=\"none\" stroke=\"#9a6700\" "
            "stroke-width=\"1.5\"/>",
            f.x(t.d), y - 1);
      out += fmt::format(
          "<circle cx=\"{:.1f}\" cy=\"{:.1f}\" r=\"4.5\" fill=\"{}\" stroke=\"#fff\" "
          "stroke-width=\"1\"/>",
          f.x(t.d), y - 1, color);
    }
    out += fmt::format(
        "<text x=\"{:.1f}\" y=\"{:.1f}\" text-anchor=\"end\" fill=\"{}\">{} {}</text></g>\n",
        kWidth - 4, y + 4, color, xml_escape(fmt_num(t.d, 2)),
        xml_escape(fmt_ci(t.d_lo, t.d_hi, 2)));
  }
  out += "</svg>";
  return fig;
}

// The pooled correlation of a metric on a dataset: "mean" over dimensions, or the only one.
const CorrelationResult* summary_row(const MetricCorrelations& c) {
  const CorrelationResult* found = nullptr;
  for (const auto& row : c.rows)
    if (row.dimension == "mean" || !found) found = &row;
  return found;
}

}  // namespace

std::vector<Figure> forest_figures(const TestIndex& index, const std::string& dataset,
                                   StrategyKind kind, const Symbols& sym) {
  std::vector<std::string> names;
  for (const auto& m : index.metrics())
    for (const auto& s : index.strategies(kind))
      if (index.find(dataset, m, kind, s.code)) {
        names.push_back(m);
        break;
      }
  const std::size_t chars = label_chars(names);
  std::vector<Figure> out;
  for (const auto& s : index.strategies_on(dataset, kind))
    out.push_back(forest_panel(index, dataset, kind, s, chars, sym));
  return out;
}

std::optional<Figure> correlation_figure(const TestIndex& index, const std::string& dataset,
                                         const Symbols& sym) {
  const AuditReport& r = index.report();
  struct Row {
    const MetricCorrelations* mc;
    const CorrelationResult* c;
  };
  std::vector<Row> rows;
  auto add = [&](const MetricCorrelations& mc) {
    if (const CorrelationResult* c = summary_row(mc)) rows.push_back({&mc, c});
  };
  for (const auto& mc : r.correlations)
    if (mc.dataset == dataset && mc.humans) add(mc);  // the ceiling first
  for (const auto& m : index.metrics())
    for (const auto& mc : r.correlations)
      if (mc.dataset == dataset && mc.metric == m && !mc.baseline && !mc.humans) {
        add(mc);
        break;
      }
  for (const auto& mc : r.correlations)
    if (mc.dataset == dataset && mc.baseline) add(mc);
  if (rows.empty()) return std::nullopt;

  std::vector<std::string> names;
  std::vector<double> values;
  for (const auto& row : rows) {
    names.push_back(row.mc->metric);
    for (double v : {row.c->spearman, row.c->spearman_lo, row.c->spearman_hi}) values.push_back(v);
  }
  const std::size_t chars = label_chars(names);
  std::vector<std::vector<std::string>> labels;
  double plot_h = 0;
  for (const auto& n : names) {
    labels.push_back(wrap_label(n, chars));
    plot_h += row_height(labels.back());
  }
  Figure fig;
  fig.name = "correlation-" + file_stem(dataset);
  fig.caption = fmt::format("Human correlation {} {}: Spearman {} [{} CI]", sym.dash(), dataset,
                            sym.rho(), fmt_percent(r.confidence));
  const double label_width = 14 + 6.4 * static_cast<double>(chars);
  Frame f{label_width, kWidth - kValueW - 6, kTop, kTop + plot_h, 7, make_axis(values, 5)};
  const double height = f.bottom + 40;
  std::string& out = fig.svg;
  out = fmt::format(
      "<svg viewBox=\"0 0 {0:.0f} {1:.0f}\" width=\"{0:.0f}\" height=\"{1:.0f}\" role=\"img\" "
      "aria-label=\"{2}\">\n",
      kWidth, height, xml_escape(fmt::format("Human correlation of the metrics on {}", dataset)));
  out += f.draw();
  out += fmt::format(
      "<text x=\"{:.1f}\" y=\"{:.1f}\" text-anchor=\"middle\" class=\"muted\">Spearman {} with "
      "human ratings (grey: baselines)</text>"
      "<text x=\"{:.1f}\" y=\"{:.1f}\" text-anchor=\"end\" class=\"muted\">{} [{} CI]</text>\n",
      (f.x0 + f.x1) / 2, f.bottom + 31, sym.rho(), kWidth - 4, f.bottom + 15, sym.rho(),
      fmt_percent(r.confidence));
  double y0 = kTop;
  for (std::size_t i = 0; i < rows.size(); ++i) {
    const CorrelationResult& c = *rows[i].c;
    const double h = row_height(labels[i]);
    const double y = y0 + h / 2;
    y0 += h;
    const std::string color = rows[i].mc->baseline ? "#8c959f" : "#0969da";
    append(out, {"<g><title>",
                 xml_escape(fmt::format("{}\n{}: Spearman {} {} over {} items, p = {}",
                                        rows[i].mc->metric, c.dimension, fmt_num(c.spearman, 3),
                                        fmt_ci(c.spearman_lo, c.spearman_hi, 3), c.n,
                                        fmt_p(c.spearman_p))),
                 "</title>", label_svg(labels[i], f.x0 - 8, y)});
    if (std::isfinite(c.spearman_lo) && std::isfinite(c.spearman_hi))
      out += fmt::format(
          "<line x1=\"{:.1f}\" x2=\"{:.1f}\" y1=\"{:.1f}\" y2=\"{:.1f}\" stroke=\"{}\" "
          "stroke-opacity=\"0.55\" stroke-width=\"4\" stroke-linecap=\"round\"/>",
          f.x(c.spearman_lo), f.x(c.spearman_hi), y - 1, y - 1, color);
    if (std::isfinite(c.spearman))
      out += fmt::format(
          "<circle cx=\"{:.1f}\" cy=\"{:.1f}\" r=\"4.5\" fill=\"{}\" stroke=\"#fff\" "
          "stroke-width=\"1\"/>",
          f.x(c.spearman), y - 1, color);
    out += fmt::format(
        "<text x=\"{:.1f}\" y=\"{:.1f}\" text-anchor=\"end\" fill=\"{}\">{} {}</text></g>\n",
        kWidth - 4, y + 4, color, xml_escape(fmt_num(c.spearman, 2)),
        xml_escape(fmt_ci(c.spearman_lo, c.spearman_hi, 2)));
  }
  out += "</svg>";
  return fig;
}

std::string standalone_svg(const Figure& figure) {
  // The inline SVG's first line is "<svg viewBox="0 0 W H" width="W" height="H" ...>": the
  // standalone file adds a caption band of 24 px above the plot.
  constexpr double kCaption = 24;
  double w = 0, h = 0;
  std::sscanf(figure.svg.c_str(), "<svg viewBox=\"0 0 %lf %lf\"", &w, &h);
  std::size_t body = figure.svg.find(">\n");
  std::size_t end = figure.svg.rfind("</svg>");
  std::string inner = body == std::string::npos || end == std::string::npos
                          ? std::string()
                          : figure.svg.substr(body + 2, end - body - 2);
  std::string caption = figure.code.empty() ? figure.caption : figure.code + " " + figure.caption;
  if (!figure.tally.empty()) caption += "  (" + figure.tally + ")";
  std::string out = "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n";
  out += fmt::format(
      "<svg xmlns=\"http://www.w3.org/2000/svg\" viewBox=\"0 0 {0:.0f} {1:.0f}\" "
      "width=\"{0:.0f}\" height=\"{1:.0f}\">\n",
      w, h + kCaption);
  out +=
      "<style>text { font-family: \"DejaVu Sans\", Arial, sans-serif; font-size: 11px; "
      "fill: #1f2328; } text.muted { fill: #59636e; } text.na { fill: #8c959f; font-style: "
      "italic; } text.caption { font-size: 13px; font-weight: 600; }</style>\n";
  out += fmt::format("<rect width=\"{:.0f}\" height=\"{:.0f}\" fill=\"#fff\"/>\n", w, h + kCaption);
  out += fmt::format("<text x=\"4\" y=\"16\" class=\"caption\">{}</text>\n", xml_escape(caption));
  out += fmt::format("<g transform=\"translate(0 {:.0f})\">\n{}</g>\n</svg>\n", kCaption, inner);
  return out;
}

}  // namespace probity::report::detail
