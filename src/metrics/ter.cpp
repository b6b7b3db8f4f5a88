// TER as sacreBLEU 2.6.0 computes it (sacrebleu/metrics/ter.py, lib_ter.py and
// tokenizers/tokenizer_ter.py): Tercom's normalisation options, the greedy shift search with its
// limits and tie-breaking, and the beam edit distance around the length-scaled diagonal.
// Statistics per item: [fewest edits over the references, mean reference length]; the corpus
// score is 100 * summed edits / summed lengths. Lower is better.
//
// sacreBLEU's BeamEditDistance caches rows by hypothesis prefix. A row depends only on the
// prefix and on the hypothesis length, which shifts keep, so the cache never changes a value;
// here a shifted candidate starts from the current hypothesis's row at the first position the
// shift changes, which is the same reuse.
#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <memory>
#include <span>
#include <string>
#include <string_view>
#include <tuple>
#include <unordered_map>
#include <vector>

#include "metrics/builtin.hpp"
#include "metrics/lexical_common.hpp"
#include "metrics/numpy_resampled.hpp"
#include "probity/error.hpp"
#include "probity/signature.hpp"
#include "probity/text.hpp"
#include "text/python_space.hpp"
#include "text/utf8.hpp"

namespace probity::metrics {
namespace {

// ---- TercomTokenizer ---------------------------------------------------------------------------

struct TercomOptions {
  bool normalized = false, no_punct = false, asian_support = false, case_sensitive = false;
};

// Code points; an invalid byte is U+DC80..U+DCFF (Python's surrogateescape), in no class below.
std::u32string decode(std::string_view s) {
  std::u32string out;
  out.reserve(s.size());
  while (!s.empty()) {
    char32_t cp = 0;
    std::size_t n = text::decode_utf8(s, cp);
    if (n == 0) {
      cp = text::escaped_byte(static_cast<unsigned char>(s[0]));
      n = 1;
    }
    out.push_back(cp);
    s.remove_prefix(n);
  }
  return out;
}

bool is_digit(char32_t c) {
  return c >= '0' && c <= '9';
}
bool is_period_comma(char32_t c) {
  return c == '.' || c == ',';
}
// ([{-~[-` -&(-+:-@/])
bool is_western_padded(char32_t c) {
  return (c >= '{' && c <= '~') || (c >= '[' && c <= '`') || (c >= ' ' && c <= '&') ||
         (c >= '(' && c <= '+') || (c >= ':' && c <= '@') || c == '/';
}
// TercomTokenizer.ASIAN_PUNCT and FULL_WIDTH_PUNCT.
bool is_asian_punct(char32_t c) {
  return c == 0x3001 || c == 0x3002 || (c >= 0x3008 && c <= 0x3011) ||
         (c >= 0x3014 && c <= 0x301F) || (c >= 0xFF61 && c <= 0xFF65) || c == 0x30FB;
}
bool is_full_width_punct(char32_t c) {
  return c == 0xFF0E || c == 0xFF0C || c == 0xFF1F || c == 0xFF1A || c == 0xFF1B || c == 0xFF01 ||
         c == 0xFF02 || c == 0xFF08 || c == 0xFF09;
}
// The characters _normalize_asian surrounds with spaces.
bool is_asian_padded(char32_t c) {
  return (c >= 0x4E00 && c <= 0x9FFF) || (c >= 0x3400 && c <= 0x4DBF) ||
         (c >= 0x31C0 && c <= 0x31EF) || (c >= 0x2E80 && c <= 0x2EFF) ||
         (c >= 0x3300 && c <= 0x33FF) || (c >= 0xF900 && c <= 0xFAFF) ||
         (c >= 0xFE30 && c <= 0xFE4F) || (c >= 0x3200 && c <= 0x3F22) || is_asian_punct(c) ||
         is_full_width_punct(c);
}

// re.sub(pattern, repl, s) for a literal pattern.
std::u32string replace_all(const std::u32string& s, std::u32string_view from,
                           std::u32string_view to) {
  std::u32string out;
  std::size_t pos = 0;
  for (;;) {
    const std::size_t hit = s.find(from, pos);
    if (hit == std::u32string::npos) break;
    out.append(s, pos, hit - pos);
    out.append(to);
    pos = hit + from.size();
  }
  out.append(s, pos);
  return out;
}

// re.sub of a two-character pattern (a)(b) whose replacement puts spaces before, between and
// after the two: leftmost matches, scanning resumes after each.
template <class A, class B>
std::u32string sub_pair(const std::u32string& s, A a, B b, bool before, bool between, bool after) {
  std::u32string out;
  out.reserve(s.size() + s.size() / 2);
  for (std::size_t i = 0; i < s.size();) {
    if (i + 1 < s.size() && a(s[i]) && b(s[i + 1])) {
      if (before) out.push_back(U' ');
      out.push_back(s[i]);
      if (between) out.push_back(U' ');
      out.push_back(s[i + 1]);
      if (after) out.push_back(U' ');
      i += 2;
    } else {
      out.push_back(s[i++]);
    }
  }
  return out;
}

template <class Pred>
std::u32string pad_each(const std::u32string& s, Pred pred) {
  std::u32string out;
  out.reserve(s.size() + s.size() / 2);
  for (const char32_t c : s) {
    if (pred(c)) {
      out.push_back(U' ');
      out.push_back(c);
      out.push_back(U' ');
    } else {
      out.push_back(c);
    }
  }
  return out;
}

// TER._preprocess_segment (rstrip, then TercomTokenizer.__call__) followed by str.split().
std::vector<std::string> tercom_words(std::string_view sent, const TercomOptions& o) {
  std::u32string s = decode(sent);
  while (!s.empty() && text::is_python_space(s.back())) s.pop_back();  // rstrip
  if (s.empty()) return {};
  if (!o.case_sensitive) {
    std::string utf8;
    for (const char32_t c : s) text::append_utf8_escaped(utf8, c);
    s = decode(text::to_lower(utf8));
  }
  if (o.normalized) {
    // _normalize_general_and_western
    s = replace_all(s, U"\n-", U"");
    s = replace_all(s, U"\n", U" ");
    s = replace_all(s, U"&quot;", U"\"");
    s = replace_all(s, U"&amp;", U"&");
    s = replace_all(s, U"&lt;", U"<");
    s = replace_all(s, U"&gt;", U">");
    s = U" " + s + U" ";
    s = pad_each(s, is_western_padded);
    s = replace_all(s, U"'s ", U" 's ");
    // re.sub(r"'s$", r" 's", sent) never matches: the text ends with the padding space.
    const auto non_digit = [](char32_t c) { return !is_digit(c); };
    s = sub_pair(s, non_digit, is_period_comma, false, true, true);
    s = sub_pair(s, is_period_comma, non_digit, true, true, false);
    s = sub_pair(
        s, is_digit, [](char32_t c) { return c == U'-'; }, false, true, true);
    if (o.asian_support) {
      // _normalize_asian: every substitution surrounds single characters with spaces, so they
      // compose into one. Its three kana patterns are anchored at the start of the text
      // ((^|^[...])...), which is the padding space here: they never match.
      s = pad_each(s, is_asian_padded);
    }
  }
  if (o.no_punct) {
    std::erase_if(s, [&](char32_t c) {
      switch (c) {
        case '.':
        case ',':
        case '?':
        case ':':
        case ';':
        case '!':
        case '"':
        case '(':
        case ')':
          return true;
        default:
          return o.asian_support && (is_asian_punct(c) || is_full_width_punct(c));
      }
    });
  }
  std::vector<std::string> words;
  std::string word;
  for (const char32_t c : s) {
    if (text::is_python_space(c)) {
      if (!word.empty()) words.push_back(std::move(word));
      word.clear();
    } else {
      text::append_utf8_escaped(word, c);
    }
  }
  if (!word.empty()) words.push_back(std::move(word));
  return words;
}

// ---- lib_ter -----------------------------------------------------------------------------------

constexpr std::int64_t kInfinity = 10000000000000000;  // int(1e16)
constexpr std::size_t kMaxShiftSize = 10, kMaxShiftDist = 50, kBeamWidth = 25;
constexpr std::size_t kMaxShiftCandidates = 1000;

using Words = std::vector<std::uint32_t>;

struct Cell {
  std::int64_t cost;
  char op;  // ' ' match, 's' substitution, 'd' hypothesis word, 'i' reference word, 'x' unset
};

// BeamEditDistance._edit_distance between the hypothesis `h` and the reference `r`: rows
// [from + 1, |h|] of `dist` ((|h| + 1) x (|r| + 1), rows 0..from already filled).
void fill_rows(const Words& h, const Words& r, std::size_t from, std::vector<Cell>& dist) {
  const std::size_t nh = h.size(), nr = r.size(), w = nr + 1;
  const double ratio = nh > 0 ? static_cast<double>(nr) / static_cast<double>(nh) : 1.0;
  const std::int64_t beam =
      static_cast<double>(kBeamWidth) < ratio / 2
          ? static_cast<std::int64_t>(std::ceil(ratio / 2 + static_cast<double>(kBeamWidth)))
          : static_cast<std::int64_t>(kBeamWidth);
  for (std::size_t i = from + 1; i <= nh; ++i) {
    Cell* row = dist.data() + i * w;
    const Cell* prev = row - w;
    std::fill(row, row + w, Cell{kInfinity, 'x'});
    const auto diag = static_cast<std::int64_t>(std::floor(static_cast<double>(i) * ratio));
    const auto min_j = static_cast<std::size_t>(std::max<std::int64_t>(0, diag - beam));
    std::size_t max_j =
        static_cast<std::size_t>(std::min<std::int64_t>(static_cast<std::int64_t>(w), diag + beam));
    if (i == nh) max_j = w;
    for (std::size_t j = min_j; j < max_j; ++j) {
      if (j == 0) {
        row[0] = {prev[0].cost + 1, 'd'};
        continue;
      }
      const bool same = h[i - 1] == r[j - 1];
      const Cell ops[3] = {{prev[j - 1].cost + (same ? 0 : 1), same ? ' ' : 's'},
                           {prev[j].cost + 1, 'd'},
                           {row[j - 1].cost + 1, 'i'}};
      for (const Cell& c : ops)
        if (row[j].cost > c.cost) row[j] = c;
    }
  }
}

// Scratch of one translation_edit_rate call.
struct TerScratch {
  std::vector<Cell> dist, cand;
  std::string trace;
  std::vector<std::int64_t> align;
  std::vector<int> ref_err, hyp_err;
  Words shifted;
};

void init_row0(std::size_t nr, std::vector<Cell>& dist) {
  for (std::size_t j = 0; j <= nr; ++j) dist[j] = {static_cast<std::int64_t>(j), 'i'};
}

// _perform_shift with Python's slice clamping.
void perform_shift(const Words& words, std::size_t start, std::size_t length, std::size_t target,
                   Words& out) {
  const std::size_t n = words.size();
  auto slice = [&](std::size_t a, std::size_t b) {
    a = std::min(a, n);
    b = std::min(b, n);
    if (a < b) out.insert(out.end(), words.begin() + a, words.begin() + b);
  };
  out.clear();
  if (target < start) {
    slice(0, target);
    slice(start, start + length);
    slice(target, start);
    slice(start + length, n);
  } else if (target > start + length) {
    slice(0, start);
    slice(start + length, target);
    slice(start, start + length);
    slice(target, n);
  } else {
    slice(0, start);
    slice(start + length, length + target);
    slice(start, start + length);
    slice(length + target, n);
  }
}

// Edit distance of `cand`, equal to `base` (whose rows are in sc.dist) before position `p`.
std::int64_t candidate_cost(const Words& cand, const Words& r, std::size_t p, TerScratch& sc) {
  const std::size_t w = r.size() + 1, nh = cand.size();
  if (p >= nh) return sc.dist[nh * w + r.size()].cost;
  sc.cand.resize((nh + 1) * w);
  std::copy_n(sc.dist.begin() + static_cast<std::ptrdiff_t>(p * w), w,
              sc.cand.begin() + static_cast<std::ptrdiff_t>(p * w));
  fill_rows(cand, r, p, sc.cand);
  return sc.cand[nh * w + r.size()].cost;
}

// BeamEditDistance.__call__ on `h` into sc.dist, and the flipped trace's alignment.
std::int64_t edit_distance_with_alignment(const Words& h, const Words& r, TerScratch& sc) {
  const std::size_t nh = h.size(), nr = r.size(), w = nr + 1;
  sc.dist.resize((nh + 1) * w);
  init_row0(nr, sc.dist);
  fill_rows(h, r, 0, sc.dist);
  // Trace from the end; then _flip_trace and trace_to_alignment.
  sc.trace.clear();
  std::size_t i = nh, j = nr;
  while (i > 0 || j > 0) {
    const char op = sc.dist[i * w + j].op;
    sc.trace.push_back(op);
    if (op == ' ' || op == 's') {
      --i;
      --j;
    } else if (op == 'i') {
      --j;
    } else if (op == 'd') {
      --i;
    } else {
      throw std::logic_error("ter: unknown edit operation");  // as sacreBLEU raises
    }
  }
  std::reverse(sc.trace.begin(), sc.trace.end());
  sc.align.assign(nr, 0);
  sc.ref_err.clear();
  sc.hyp_err.clear();
  std::int64_t pos_h = -1, pos_r = -1;
  for (const char op : sc.trace) {
    // Flipped: the DP's 'd' (a hypothesis word) reads 'i', its 'i' reads 'd'.
    if (op == ' ' || op == 's') {
      ++pos_h;
      ++pos_r;
      sc.align[static_cast<std::size_t>(pos_r)] = pos_h;
      sc.hyp_err.push_back(op == 's');
      sc.ref_err.push_back(op == 's');
    } else if (op == 'd') {
      ++pos_h;
      sc.hyp_err.push_back(1);
    } else {
      ++pos_r;
      sc.align[static_cast<std::size_t>(pos_r)] = pos_h;
      sc.ref_err.push_back(1);
    }
  }
  return sc.dist[nh * w + nr].cost;
}

// _shift: the best shift of `h` (its gain, 0 when none) into `best_words`.
std::int64_t best_shift(const Words& h, const Words& r, std::size_t& checked, Words& best_words,
                        TerScratch& sc) {
  const std::int64_t pre = edit_distance_with_alignment(h, r, sc);
  const std::size_t nh = h.size(), nr = r.size();
  bool have = false;
  std::int64_t b_score = 0, b_len = 0, b_start = 0, b_idx = 0;
  auto sum = [](const std::vector<int>& v, std::size_t a, std::size_t len) {
    int s = 0;
    for (std::size_t k = a; k < a + len && k < v.size(); ++k) s += v[k];
    return s;
  };
  // _find_shifted_pairs, in its order.
  for (std::size_t sh = 0; sh < nh; ++sh) {
    for (std::size_t sr = 0; sr < nr; ++sr) {
      if ((sr > sh ? sr - sh : sh - sr) > kMaxShiftDist) continue;
      for (std::size_t length = 1;
           length <= kMaxShiftSize && h[sh + length - 1] == r[sr + length - 1]; ++length) {
        // The pair (sh, sr, length) as _shift sees it.
        const bool skip = sum(sc.hyp_err, sh, length) == 0 || sum(sc.ref_err, sr, length) == 0 ||
                          (static_cast<std::int64_t>(sh) <= sc.align[sr] &&
                           sc.align[sr] < static_cast<std::int64_t>(sh + length));
        if (!skip) {
          std::int64_t prev_idx = -1;
          for (std::int64_t offset = -1; offset < static_cast<std::int64_t>(length); ++offset) {
            const std::int64_t at = static_cast<std::int64_t>(sr) + offset;
            std::int64_t idx = 0;
            if (at == -1) {
              idx = 0;
            } else if (at < static_cast<std::int64_t>(nr)) {
              idx = sc.align[static_cast<std::size_t>(at)] + 1;
            } else {
              break;
            }
            if (idx == prev_idx) continue;
            prev_idx = idx;
            perform_shift(h, sh, length, static_cast<std::size_t>(idx), sc.shifted);
            const std::size_t p = std::min(sh, static_cast<std::size_t>(idx));
            const std::int64_t score = pre - candidate_cost(sc.shifted, r, p, sc);
            ++checked;
            const std::int64_t neg_start = -static_cast<std::int64_t>(sh), neg_idx = -idx;
            const auto len = static_cast<std::int64_t>(length);
            if (!have || std::tie(score, len, neg_start, neg_idx) >
                             std::tie(b_score, b_len, b_start, b_idx)) {
              have = true;
              b_score = score;
              b_len = len;
              b_start = neg_start;
              b_idx = neg_idx;
              best_words = sc.shifted;
            }
          }
        }
        if (checked >= kMaxShiftCandidates) return have ? b_score : 0;
        if (nh == sh + length || nr == sr + length) break;
      }
    }
  }
  return have ? b_score : 0;
}

// translation_edit_rate: (edits, reference length).
std::int64_t translation_edits(const Words& hyp, const Words& ref, TerScratch& sc) {
  if (ref.empty()) return static_cast<std::int64_t>(hyp.size());
  std::int64_t shifts = 0;
  Words input = hyp, next;
  std::size_t checked = 0;
  for (;;) {
    const std::int64_t delta = best_shift(input, ref, checked, next, sc);
    if (checked >= kMaxShiftCandidates) break;
    if (delta <= 0) break;
    ++shifts;
    input.swap(next);
  }
  return shifts + edit_distance_with_alignment(input, ref, sc);
}

// ---- the metric --------------------------------------------------------------------------------

class Ter final : public Metric, public NumpyResampled {
 public:
  explicit Ter(const MetricSpec& spec) : name_(spec.text()) {
    opt_.normalized = spec.get_bool("normalized");
    opt_.no_punct = spec.get_bool("no_punct");
    opt_.asian_support = spec.get_bool("asian_support");
    opt_.case_sensitive = spec.get_bool("case_sensitive");
    first_ref_only_ = spec.get("refs") == "first";
  }
  std::string name() const override { return name_; }
  std::string undefined_reason(std::span<const double> /*stats*/) const override {
    return "the item has no reference";
  }
  std::string signature() const override {
    return Signature("ter")
        .field("nrefs", first_ref_only_ ? "first" : "all")
        .field("case", opt_.case_sensitive ? "mixed" : "lc")
        .field("tok", "tercom")
        .field("norm", opt_.normalized ? "yes" : "no")
        .field("punct", opt_.no_punct ? "no" : "yes")
        .field("asian", opt_.asian_support ? "yes" : "no")
        .versioned();
  }
  std::size_t num_stats() const override { return 2; }
  bool higher_is_better() const override { return false; }  // an edit rate

  void item_stats(const MetricInput& input, std::span<double> stats) const override {
    thread_local TerScratch sc;
    std::unordered_map<std::string, std::uint32_t> vocab;
    auto ids = [&](std::string_view text) {
      Words out;
      for (auto& w : tercom_words(text, opt_))
        out.push_back(vocab.try_emplace(std::move(w), static_cast<std::uint32_t>(vocab.size()))
                          .first->second);
      return out;
    };
    const Words hyp = ids(input.candidate);
    const std::size_t n_refs = first_ref_only_ ? std::min<std::size_t>(1, input.references.size())
                                               : input.references.size();
    if (n_refs == 0) {  // no reference: undefined (sacreBLEU divides by zero)
      stats[0] = stats[1] = std::nan("");
      return;
    }
    std::int64_t best = kInfinity;
    double lengths = 0;
    for (std::size_t k = 0; k < n_refs; ++k) {
      const Words ref = ids(input.references[k]);
      const std::int64_t edits = translation_edits(hyp, ref, sc);
      lengths += static_cast<double>(ref.size());
      if (edits < best) best = edits;
    }
    stats[0] = static_cast<double>(best);
    stats[1] = lengths / static_cast<double>(n_refs);
  }

  // TER._compute_score_from_stats.
  void sentence_score(std::span<const double> stats, std::span<double> parts) const override {
    parts[0] = score_of(stats[0], stats[1], false);
  }
  // A paired-bootstrap resample: the edits per reference word as numpy divides two float32
  // statistics (numpy_resampled.hpp).
  double resample_score(std::span<const float> summed) const override {
    return score_of(summed[0], summed[1], true);
  }

 private:
  static double score_of(double edits, double ref_len, bool float32) {
    if (std::isnan(edits)) return std::nan("");
    if (!(ref_len > 0)) return 100 * (edits > 0 ? 1.0 : 0.0);
    return 100 * (float32
                      ? static_cast<double>(static_cast<float>(edits) / static_cast<float>(ref_len))
                      : edits / ref_len);
  }

  std::string name_;
  TercomOptions opt_;
  bool first_ref_only_ = false;
};

}  // namespace

namespace detail {
// TercomTokenizer's words, for the tests.
std::vector<std::string> tercom_tokenize(std::string_view sent, bool normalized, bool no_punct,
                                         bool asian_support, bool case_sensitive) {
  return tercom_words(sent, {normalized, no_punct, asian_support, case_sensitive});
}
}  // namespace detail

void register_ter(MetricRegistry& registry) {
  registry.add(MetricInfo{
      "ter",
      "TER as sacreBLEU 2.x (Tercom edits with shifts per reference word, 0-100+; lower is "
      "better)",
      {option_bool("normalized", false,
                   "Tercom normalisation: entities, newlines, punctuation split off"),
       option_bool("no_punct", false, "remove punctuation (with asian_support CJK too)"),
       option_bool("asian_support", false,
                   "split CJK characters (with normalized) and their punctuation (no_punct)"),
       option_bool("case_sensitive", false, "keep case (default: lower-case)"),
       option_choice("refs", "all", {"all", "first"},
                     "the references of each item to use; with several, the fewest edits")},
      [](const MetricSpec& spec, const MetricContext&) -> std::unique_ptr<Metric> {
        return std::make_unique<Ter>(spec);
      }});
}

}  // namespace probity::metrics
