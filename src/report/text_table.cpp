// Tables drawn for the terminal: box glyphs, cells wrapped at words to fit a width, panels
// when a table cannot fit.
#include <fmt/format.h>

#include <algorithm>
#include <set>

#include "report/format.hpp"
#include "text/utf8.hpp"

namespace probity::report::detail {

namespace {

std::string pad(std::string_view s, std::size_t width, Align align) {
  std::size_t w = display_width(s);
  std::size_t fill = width > w ? width - w : 0;
  std::size_t left = align == Align::kRight ? fill : align == Align::kCenter ? fill / 2 : 0;
  return std::string(left, ' ') + std::string(s) + std::string(fill - left, ' ');
}

std::string repeat(std::string_view s, std::size_t n) {
  std::string out;
  for (std::size_t i = 0; i < n; ++i) out += s;
  return out;
}

// Greedy word wrap at `width` display columns.
std::string wrap(std::string_view text, std::size_t width) {
  std::string out, line;
  std::size_t start = 0;
  while (start < text.size()) {
    std::size_t end = text.find(' ', start);
    if (end == std::string_view::npos) end = text.size();
    std::string_view word = text.substr(start, end - start);
    if (!line.empty() && display_width(line) + 1 + display_width(word) > width) {
      out += line + "\n";
      line.clear();
    }
    if (!line.empty()) line += ' ';
    line += word;
    start = end + 1;
  }
  if (!line.empty()) out += line + "\n";
  return out;
}

// Terminal cells hold one line.
std::string one_line(std::string_view s) {
  std::string out(s);
  std::replace(out.begin(), out.end(), '\n', ' ');
  std::replace(out.begin(), out.end(), '\t', ' ');
  return out;
}

}  // namespace

// Where a word too wide for its column may be cut: after one of these.
constexpr std::string_view kSoftBreaks = ",/:;|-_";

std::size_t word_end(std::string_view text, std::size_t start) {
  int depth = 0;
  for (std::size_t i = start; i < text.size(); ++i) {
    if (text[i] == '[') ++depth;
    if (text[i] == ']' && depth > 0) --depth;
    if (text[i] == ' ' && depth == 0) return i;
  }
  return text.size();
}

std::vector<std::string> wrap_cell(std::string_view text, std::size_t width) {
  width = std::max<std::size_t>(width, 1);
  std::vector<std::string> lines;
  std::string line;
  std::size_t line_width = 0;
  auto flush = [&] {
    lines.push_back(std::move(line));
    line.clear();
    line_width = 0;
  };
  std::size_t start = 0;
  while (start <= text.size()) {
    const std::size_t end = word_end(text, start);
    std::string_view word = text.substr(start, end - start);
    const std::size_t w = display_width(word);
    if (!line.empty() && line_width + 1 + w > width) flush();
    if (w <= width || !line.empty()) {
      if (!line.empty()) {
        line += ' ';
        ++line_width;
      }
      line += word;
      line_width += w;
    } else {
      // A word wider than the column (the line is empty here): pieces of at most `width`
      // columns, each ending after the last soft break that fits (so "[0.10,0.31]" breaks after
      // the comma), else cut at the width.
      std::string_view rest = word;
      while (display_width(rest) > width) {
        std::size_t i = 0, cols = 0, brk = 0;
        while (i < rest.size()) {
          char32_t cp = 0;
          std::size_t len = text::decode_utf8(rest.substr(i), cp);
          if (len == 0) len = 1;
          const std::size_t gw = display_width(rest.substr(i, len));
          if (cols + gw > width && i > 0) break;
          i += len;
          cols += gw;
          if (i < rest.size() && kSoftBreaks.find(rest[i - 1]) != std::string_view::npos) brk = i;
        }
        const std::size_t cut = brk > 0 ? brk : i;
        lines.emplace_back(rest.substr(0, cut));
        rest = rest.substr(cut);
      }
      line = std::string(rest);
      line_width = display_width(rest);
    }
    start = end + 1;
  }
  if (!line.empty() || lines.empty()) flush();
  return lines;
}

namespace {

std::string_view tone_color(Tone tone) {
  switch (tone) {
    case Tone::kPass:
      return "\033[32m";
    case Tone::kFail:
      return "\033[31m";
    case Tone::kWarn:
      return "\033[33m";
    case Tone::kNa:
    case Tone::kMissing:
      return "\033[2m";
    case Tone::kNone:
      break;
  }
  return {};
}

// The widest word of `s` (a bracketed interval counts as one word). `pieces`: the widest piece
// of a word cut after its soft breaks instead, except intervals, which are never cut.
std::size_t widest_word(std::string_view s, bool pieces) {
  std::size_t widest = 1, start = 0;
  while (start <= s.size()) {
    const std::size_t end = word_end(s, start);
    std::string_view word = s.substr(start, end - start);
    if (!pieces || word.find('[') != std::string_view::npos) {
      widest = std::max(widest, display_width(word));
    } else {
      std::size_t from = 0;
      for (std::size_t i = 0; i < word.size(); ++i)
        if (kSoftBreaks.find(word[i]) != std::string_view::npos || i + 1 == word.size()) {
          widest = std::max(widest, display_width(word.substr(from, i + 1 - from)));
          from = i + 1;
        }
    }
    start = end + 1;
  }
  return widest;
}

// How narrow a column may get: down to its widest word (cells wrap at spaces), or its widest
// piece (long words cut after a soft break), or 4 columns but for its header's words and its
// intervals "[0.12, 0.34]" (other words cut anywhere), or 4 columns (the last resort).
enum class Floor { kWords, kPieces, kUnits, kAny };
std::size_t column_floor(const Table& table, std::size_t c, Floor floor) {
  if (floor == Floor::kAny) return 4;
  std::size_t widest = widest_word(table.header[c], false);
  if (floor == Floor::kUnits) widest = std::max<std::size_t>(widest, 4);
  for (const auto& row : table.rows) {
    if (c >= row.size()) continue;
    const std::string text = one_line(row[c].text);
    if (floor != Floor::kUnits) {
      widest = std::max(widest, widest_word(text, floor == Floor::kPieces));
      continue;
    }
    for (std::size_t start = 0; start <= text.size();) {
      const std::size_t end = word_end(text, start);
      std::string_view word = std::string_view(text).substr(start, end - start);
      if (word.find('[') != std::string_view::npos) widest = std::max(widest, display_width(word));
      start = end + 1;
    }
  }
  return widest;
}

// Narrows the widest of `columns` above their floor by one until their frame and widths fit
// `max_width`; returns the total width reached.
std::size_t narrow_columns(const Table& table, const std::vector<std::size_t>& columns,
                           std::vector<std::size_t>& width, Floor floor_kind,
                           std::size_t max_width) {
  std::vector<std::size_t> floor(columns.size());
  std::size_t total = 3 * columns.size() + 1;  // "│ " before each cell, " " after, closing "│"
  for (std::size_t i = 0; i < columns.size(); ++i) {
    floor[i] = std::min(width[columns[i]], column_floor(table, columns[i], floor_kind));
    total += width[columns[i]];
  }
  while (total > max_width) {
    std::size_t widest = columns.size();
    for (std::size_t i = 0; i < columns.size(); ++i)
      if (width[columns[i]] > floor[i] &&
          (widest == columns.size() || width[columns[i]] > width[columns[widest]]))
        widest = i;
    if (widest == columns.size()) break;
    --width[columns[widest]];
    --total;
  }
  return total;
}

// How many leading columns tell the rows apart (at least one, at most all but one): the key a
// panel repeats.
std::size_t key_columns(const Table& table, std::size_t cols) {
  for (std::size_t keys = 1; keys + 1 < cols; ++keys) {
    std::set<std::vector<std::string>> seen;
    for (const auto& row : table.rows) {
      std::vector<std::string> key;
      for (std::size_t c = 0; c < keys; ++c) key.push_back(c < row.size() ? row[c].text : "");
      seen.insert(std::move(key));
    }
    if (seen.size() == table.rows.size()) return keys;
  }
  return std::max<std::size_t>(1, cols - 1);
}

// The columns of each panel: all of them when the table fits `max_width` without cutting a
// header word or an interval; else the key columns repeated in each panel, followed by as many
// of the others as fit.
std::vector<std::vector<std::size_t>> panels(const Table& table, std::size_t max_width) {
  const std::size_t cols = table.header.size();
  std::vector<std::size_t> floor(cols);
  std::size_t total = 3 * cols + 1;
  for (std::size_t c = 0; c < cols; ++c) {
    floor[c] = column_floor(table, c, Floor::kUnits);
    total += floor[c];
  }
  std::vector<std::vector<std::size_t>> out;
  if (max_width == 0 || total <= max_width || cols <= 2) {
    out.emplace_back();
    for (std::size_t c = 0; c < cols; ++c) out.back().push_back(c);
    return out;
  }
  const std::size_t keys = key_columns(table, cols);
  std::size_t key_width = 1;
  for (std::size_t c = 0; c < keys; ++c) key_width += 3 + floor[c];
  std::size_t used = 0;
  for (std::size_t c = keys; c < cols; ++c) {
    if (out.empty() || (used + 3 + floor[c] > max_width && out.back().size() > keys)) {
      out.emplace_back();
      for (std::size_t k = 0; k < keys; ++k) out.back().push_back(k);
      used = key_width;
    }
    out.back().push_back(c);
    used += 3 + floor[c];
  }
  return out;
}

}  // namespace

std::string render_text_table(const Table& table, const Symbols& sym, std::size_t max_width,
                              bool color) {
  const std::size_t cols = table.header.size();
  std::vector<std::size_t> width(cols, 0);
  auto cell_text = [&](const std::vector<Cell>& row, std::size_t c) {
    return c < row.size() ? one_line(row[c].text) : std::string();
  };
  for (std::size_t c = 0; c < cols; ++c) {
    width[c] = display_width(table.header[c]);
    for (const auto& row : table.rows)
      width[c] = std::max(width[c], display_width(cell_text(row, c)));
  }
  const bool u = sym.unicode;
  std::string_view h = u ? "\u2500" : "-", v = u ? "\u2502" : "|";
  std::string out;
  if (!table.title.empty()) {
    const auto title =
        max_width > 0 ? wrap_cell(table.title, max_width) : std::vector<std::string>{table.title};
    for (const auto& line : title) out += color ? "\033[1m" + line + "\033[0m\n" : line + "\n";
  }
  const auto all_panels = panels(table, max_width);
  for (std::size_t p = 0; p < all_panels.size(); ++p) {
    const std::vector<std::size_t>& columns = all_panels[p];
    if (max_width > 0) {
      // Wrap at spaces first, then cut words after soft breaks, then anywhere but in header
      // words and intervals, then anywhere (a panel that still does not fit stays wider).
      for (Floor f : {Floor::kWords, Floor::kPieces, Floor::kUnits, Floor::kAny})
        if (narrow_columns(table, columns, width, f, max_width) <= max_width) break;
    }
    auto rule = [&](std::string_view l, std::string_view m, std::string_view r) {
      std::string line(l);
      for (std::size_t i = 0; i < columns.size(); ++i) {
        line += repeat(h, width[columns[i]] + 2);
        line += i + 1 < columns.size() ? m : r;
      }
      return line + "\n";
    };
    // One row: each cell wrapped to its column, the row as tall as its tallest cell.
    auto row_lines = [&](auto text_of, auto tone_of) {
      std::vector<std::vector<std::string>> cells(columns.size());
      std::size_t height = 1;
      for (std::size_t i = 0; i < columns.size(); ++i) {
        const std::size_t c = columns[i];
        std::string t = text_of(c);
        cells[i] = display_width(t) <= width[c] ? std::vector<std::string>{std::move(t)}
                                                : wrap_cell(t, width[c]);
        height = std::max(height, cells[i].size());
      }
      std::string lines;
      for (std::size_t k = 0; k < height; ++k) {
        std::string line(v);
        for (std::size_t i = 0; i < columns.size(); ++i) {
          const std::size_t c = columns[i];
          Align a = c < table.align.size() ? table.align[c] : Align::kLeft;
          std::string text = pad(k < cells[i].size() ? cells[i][k] : std::string(), width[c], a);
          std::string_view sgr = color ? tone_color(tone_of(c)) : std::string_view();
          if (!sgr.empty()) text = std::string(sgr) + text + "\033[0m";
          append(line, {" ", text, " "});
          line += v;
        }
        lines += line + "\n";
      }
      return lines;
    };
    if (p > 0) out += "\n";
    out += u ? rule("\u250c", "\u252c", "\u2510") : rule("+", "+", "+");
    out += row_lines([&](std::size_t c) { return table.header[c]; },
                     [](std::size_t) { return Tone::kNone; });
    out += u ? rule("\u251c", "\u253c", "\u2524") : rule("+", "+", "+");
    for (const auto& row : table.rows)
      out += row_lines([&](std::size_t c) { return cell_text(row, c); },
                       [&](std::size_t c) { return c < row.size() ? row[c].tone : Tone::kNone; });
    out += u ? rule("\u2514", "\u2534", "\u2518") : rule("+", "+", "+");
  }
  if (!table.note.empty())
    out += wrap(table.note, max_width > 0 ? std::min<std::size_t>(100, max_width) : 100);
  return out;
}

}  // namespace probity::report::detail
