// Values as the report shows them: numbers, intervals, counts, and strings measured and cut by
// display width.
#include "report/format.hpp"

#include <fmt/format.h>
#include <utf8proc.h>

#include <cmath>

#include "text/utf8.hpp"

namespace probity::report::detail {

std::string_view kind_title(StrategyKind kind) {
  return kind == StrategyKind::kDegradation ? "Degradations" : "Manipulations";
}

// ---- numbers -----------------------------------------------------------------------------

std::string fmt_num(double v, int decimals) {
  if (std::isnan(v)) return "NaN";
  if (std::isinf(v)) return v > 0 ? "inf" : "-inf";
  std::string out = fmt::format("{:.{}f}", v, decimals);
  // "-0.00" says nothing a reader can use; print it as "0.00".
  if (out[0] == '-' && out.find_first_not_of("-0.") == std::string::npos) out.erase(0, 1);
  return out;
}

std::string fmt_p(double p) {
  if (!std::isfinite(p)) return fmt_num(p, 3);
  if (p < 0.001) return "<0.001";
  return fmt::format("{:.3f}", p);
}

std::string fmt_ci(double lo, double hi, int decimals) {
  return cat({"[", fmt_num(lo, decimals), ", ", fmt_num(hi, decimals), "]"});
}

std::string fmt_d_pm(double d, double lo, double hi, const Symbols& sym) {
  std::string out = fmt_num(d, 2);
  if (std::isfinite(d) && std::isfinite(lo) && std::isfinite(hi)) {
    out += sym.plus_minus();
    out += fmt_num((hi - lo) / 2, 2);
  }
  return out;
}

std::string fmt_percent(double fraction) {
  if (!std::isfinite(fraction)) return fmt_num(fraction, 0);
  return fmt::format("{:.4g}%", fraction * 100);
}

std::string fmt_count_range(std::size_t lo, std::size_t hi, const Symbols& sym) {
  if (lo == hi) return std::to_string(lo);
  return std::to_string(lo) + std::string(sym.range()) + std::to_string(hi);
}

std::size_t display_width(std::string_view s) {
  std::size_t width = 0;
  for (std::size_t i = 0; i < s.size();) {
    char32_t cp = 0;
    std::size_t len = text::decode_utf8(s.substr(i), cp);
    if (len == 0) {  // an ill-formed byte: one replacement character
      ++width;
      ++i;
      continue;
    }
    int w = utf8proc_charwidth(static_cast<utf8proc_int32_t>(cp));
    // Control characters report 0 but still take a cell once printed as a replacement.
    if (w == 0 && cp < 0x20) w = 1;
    width += static_cast<std::size_t>(w);
    i += len;
  }
  return width;
}

std::string truncate_text(std::string_view s, std::size_t max_chars, const Symbols& sym) {
  std::size_t i = 0, chars = 0;
  while (i < s.size() && chars < max_chars) {
    char32_t cp = 0;
    std::size_t len = text::decode_utf8(s.substr(i), cp);
    i += len == 0 ? 1 : len;
    ++chars;
  }
  if (i >= s.size()) return std::string(s);
  std::string out(s.substr(0, i));
  while (!out.empty() && (out.back() == ' ' || out.back() == '\n' || out.back() == '\t'))
    out.pop_back();
  out += sym.ellipsis();
  return out;
}

std::string join(const std::vector<std::string>& parts, std::string_view sep) {
  std::string out;
  for (std::size_t i = 0; i < parts.size(); ++i) {
    if (i) out += sep;
    out += parts[i];
  }
  return out;
}

}  // namespace probity::report::detail
