// The fast paths of BLEU, chrF and ROUGE-1/2/L (prepared reference sets kept in a per-thread
// cache, one reference scored directly on first sight, all references matched at once) give the
// statistics of a straightforward computation (n-gram maps, the O(n m) LCS table), on every
// SummEval candidate with its 11 references: in file order (the cache hits), with the references
// reversed and the candidates interleaved (it misses), with duplicated, empty and blank
// references, with one reference, with the cache off, and with a one-entry cache that two metrics
// keep evicting from each other. Every statistic must be identical.
#include <gtest/gtest.h>

#include <algorithm>
#include <functional>
#include <map>
#include <string>
#include <string_view>
#include <tuple>
#include <unordered_map>
#include <vector>

#include "metrics/lexical_common.hpp"
#include "probity/dataset.hpp"
#include "probity/engine.hpp"
#include "probity/metric.hpp"
#include "probity/scoring.hpp"
#include "probity/text.hpp"
#include "test_paths.hpp"
#include "text/utf8.hpp"

namespace {

using probity::MetricInput;
using Stats = std::vector<double>;

// ---- straightforward BLEU (sacreBLEU's extract_all_word_ngrams and _get_closest_ref_len) --------

std::vector<std::string> bleu_tokens(std::string_view s) {
  // sacreBLEU: rstrip, tokenize_13a, split on spaces.
  while (!s.empty() && (s.back() == ' ' || (s.back() >= '\t' && s.back() <= '\r')))
    s.remove_suffix(1);
  const std::string tokenized = probity::text::tokenize_13a(s);
  std::vector<std::string> out;
  for (std::string_view t : probity::text::split_whitespace(tokenized)) out.emplace_back(t);
  return out;
}

using NgramCounts = std::map<std::vector<std::string>, int>;

NgramCounts word_ngrams(const std::vector<std::string>& t, std::size_t max_order) {
  NgramCounts c;
  for (std::size_t n = 1; n <= max_order; ++n)
    for (std::size_t i = 0; i + n <= t.size(); ++i)
      ++c[std::vector<std::string>(t.begin() + static_cast<std::ptrdiff_t>(i),
                                   t.begin() + static_cast<std::ptrdiff_t>(i + n))];
  return c;
}

// Straightforward values of each distinct text, computed once (texts are views of the dataset,
// which outlives the tests).
template <class V, class F>
const V& memo(std::string_view text, int variant, F&& f) {
  static std::map<std::tuple<const char*, std::size_t, int>, V> cache;
  const auto key = std::make_tuple(text.data(), text.size(), variant);
  auto it = cache.find(key);
  if (it == cache.end()) it = cache.emplace(key, f(text)).first;
  return it->second;
}

Stats naive_bleu(std::string_view hyp, const std::vector<std::string_view>& refs) {
  const auto h = bleu_tokens(hyp);
  NgramCounts max_ref;
  std::size_t closest_len = 0, closest_diff = 0;
  for (std::size_t r = 0; r < refs.size(); ++r) {
    const auto& t = memo<std::vector<std::string>>(refs[r], 0, bleu_tokens);
    const std::size_t diff = t.size() > h.size() ? t.size() - h.size() : h.size() - t.size();
    if (r == 0 || diff < closest_diff || (diff == closest_diff && t.size() < closest_len)) {
      closest_diff = diff;
      closest_len = t.size();
    }
    const auto& grams = memo<NgramCounts>(
        refs[r], 1, [](std::string_view x) { return word_ngrams(bleu_tokens(x), 4); });
    for (const auto& [g, c] : grams) max_ref[g] = std::max(max_ref[g], c);
  }
  Stats s(10, 0.0);
  s[0] = static_cast<double>(h.size());
  s[1] = static_cast<double>(closest_len);
  for (const auto& [g, c] : word_ngrams(h, 4)) {
    const auto it = max_ref.find(g);
    if (it != max_ref.end()) s[1 + g.size()] += std::min(c, it->second);
  }
  for (std::size_t n = 1; n <= 4; ++n)
    s[5 + n] = static_cast<double>(h.size() >= n ? h.size() - n + 1 : 0);
  return s;
}

// ---- straightforward chrF (sacreBLEU's extract_all_char_ngrams, _remove_punctuation) ------------

bool py_space(char32_t c) {
  return (c >= 0x09 && c <= 0x0D) || (c >= 0x1C && c <= 0x20) || c == 0x85 || c == 0xA0 ||
         c == 0x1680 || (c >= 0x2000 && c <= 0x200A) || c == 0x2028 || c == 0x2029 || c == 0x202F ||
         c == 0x205F || c == 0x3000;
}

std::u32string chars_without_space(std::string_view s) {
  std::u32string out;
  while (!s.empty()) {
    char32_t cp = 0;
    std::size_t n = probity::text::decode_utf8(s, cp);
    if (n == 0) {  // an ill-formed byte is a character of its own
      cp = 0xDC00 + static_cast<unsigned char>(s[0]);
      n = 1;
    }
    if (!py_space(cp)) out.push_back(cp);
    s.remove_prefix(n);
  }
  return out;
}

std::vector<std::string> chrf_words(std::string_view s) {
  static const std::string_view punct = "!\"#$%&'()*+,-./:;<=>?@[\\]^_`{|}~";
  std::vector<std::string> out;
  std::u32string cps;
  std::string word;
  // Python's str.split(): runs of whitespace code points separate words.
  auto flush = [&] {
    if (word.empty()) return;
    const bool last = punct.find(word.back()) != std::string_view::npos;
    const bool first = punct.find(word.front()) != std::string_view::npos;
    if (word.size() > 1 && last) {
      out.push_back(word.substr(0, word.size() - 1));
      out.push_back(word.substr(word.size() - 1));
    } else if (word.size() > 1 && first) {
      out.push_back(word.substr(0, 1));
      out.push_back(word.substr(1));
    } else {
      out.push_back(word);
    }
    word.clear();
  };
  while (!s.empty()) {
    char32_t cp = 0;
    std::size_t n = probity::text::decode_utf8(s, cp);
    if (n == 0) {
      cp = 0xDC00;
      n = 1;
    }
    if (py_space(cp)) {
      flush();
    } else {
      word.append(s.substr(0, n));
    }
    s.remove_prefix(n);
  }
  flush();
  return out;
}

struct SeqHash {
  std::size_t operator()(const std::u32string& s) const { return std::hash<std::u32string>{}(s); }
  std::size_t operator()(const std::vector<std::string>& v) const {
    std::size_t h = 0;
    for (const auto& w : v) h = h * 1000003u ^ std::hash<std::string>{}(w);
    return h;
  }
};
template <class Seq>
using Orders = std::vector<std::unordered_map<Seq, int, SeqHash>>;

template <class Seq>
Orders<Seq> orders_of(const Seq& s, std::size_t max_order) {
  Orders<Seq> out(max_order);
  for (std::size_t n = 1; n <= max_order; ++n)
    for (std::size_t i = 0; i + n <= s.size(); ++i)
      ++out[n - 1][Seq(s.begin() + static_cast<std::ptrdiff_t>(i),
                       s.begin() + static_cast<std::ptrdiff_t>(i + n))];
  return out;
}

template <class Seq>
void match_stats(const Orders<Seq>& hyp, const Orders<Seq>& ref, Stats& out) {
  for (std::size_t n = 0; n < hyp.size(); ++n) {
    int h = 0, r = 0, m = 0;
    for (const auto& [g, c] : hyp[n]) {
      h += c;
      const auto it = ref[n].find(g);
      if (it != ref[n].end()) m += std::min(c, it->second);
    }
    for (const auto& [g, c] : ref[n]) r += c;
    out.push_back(ref[n].empty() ? 0 : h);
    out.push_back(r);
    out.push_back(m);
  }
}

// chrF2 (word_order 0) or chrF2++ (2): the statistics of the reference with the best f-score (the
// first on a tie), the f-score being the metric's own sentence score.
Stats naive_chrf(const probity::Metric& metric, int word_order, std::string_view hyp,
                 const std::vector<std::string_view>& refs) {
  const auto& hc = memo<Orders<std::u32string>>(
      hyp, 2, [](std::string_view x) { return orders_of(chars_without_space(x), 6); });
  const auto& hw =
      memo<Orders<std::vector<std::string>>>(hyp, 3 + word_order, [&](std::string_view x) {
        return orders_of(chrf_words(x), static_cast<std::size_t>(word_order));
      });
  Stats best;
  double best_f = -1;
  for (std::string_view r : refs) {
    Stats s;
    match_stats(hc,
                memo<Orders<std::u32string>>(
                    r, 2, [](std::string_view x) { return orders_of(chars_without_space(x), 6); }),
                s);
    match_stats(hw,
                memo<Orders<std::vector<std::string>>>(
                    r, 3 + word_order,
                    [&](std::string_view x) {
                      return orders_of(chrf_words(x), static_cast<std::size_t>(word_order));
                    }),
                s);
    std::vector<double> f(1);
    metric.sentence_score(s, f);
    if (f[0] > best_f) {
      best_f = f[0];
      best = s;
    }
  }
  return best;
}

// ---- straightforward ROUGE-1/2/L (rouge-score's _score_ngrams, _score_lcs, score_multi) ---------

std::size_t lcs_table(const std::vector<std::string>& a, const std::vector<std::string>& b) {
  std::vector<std::vector<std::size_t>> t(a.size() + 1, std::vector<std::size_t>(b.size() + 1));
  for (std::size_t i = 1; i <= a.size(); ++i)
    for (std::size_t j = 1; j <= b.size(); ++j)
      t[i][j] = a[i - 1] == b[j - 1] ? t[i - 1][j - 1] + 1 : std::max(t[i - 1][j], t[i][j - 1]);
  return t[a.size()][b.size()];
}

// [overlap, hypothesis count, reference count, #references] of the reference with the best F.
Stats naive_rouge(int kind, bool stem, std::string_view hyp,
                  const std::vector<std::string_view>& refs) {
  const auto h = probity::text::rouge_tokenize(hyp, stem);
  Stats best(4, 0.0);
  best[3] = static_cast<double>(refs.size());
  double best_f = 0;
  for (std::size_t k = 0; k < refs.size(); ++k) {
    const auto& r = memo<std::vector<std::string>>(
        refs[k], stem ? 11 : 10,
        [&](std::string_view x) { return probity::text::rouge_tokenize(x, stem); });
    double overlap = 0, nh = 0, nr = 0;
    if (kind == 3) {
      overlap = static_cast<double>(lcs_table(r, h));
      nh = static_cast<double>(h.size());
      nr = static_cast<double>(r.size());
    } else {
      const auto n = static_cast<std::size_t>(kind);
      const auto hg = orders_of(h, n)[n - 1];
      const auto rg = orders_of(r, n)[n - 1];
      for (const auto& [g, c] : hg) {
        nh += c;
        const auto it = rg.find(g);
        if (it != rg.end()) overlap += std::min(c, it->second);
      }
      for (const auto& [g, c] : rg) nr += c;
    }
    const double p = nh > 0 ? overlap / nh : 0, rc = nr > 0 ? overlap / nr : 0;
    const double f = p + rc > 0 ? 2 * p * rc / (p + rc) : 0;
    if (k == 0 || f > best_f) {
      best_f = f;
      best = {overlap, nh, nr, static_cast<double>(refs.size())};
    }
  }
  return best;
}

// ---- the scenarios ------------------------------------------------------------------------------

struct Item {
  std::string_view hyp;
  std::vector<std::string_view> refs;
};

const probity::Dataset& summeval() {
  static const probity::Dataset ds =
      probity::load_dataset(probity::test::data_path("summeval/summeval.jsonl"));
  return ds;
}

// Every candidate with references made from its task's by `refs_of`, in file order or
// interleaved (candidate 0 of every task, then candidate 1, ...: no two neighbours share
// references).
template <class RefsOf>
std::vector<Item> items(RefsOf&& refs_of, bool interleaved) {
  const auto& ds = summeval();
  std::vector<Item> out;
  std::size_t most = 0;
  for (const auto& t : ds.tasks) most = std::max(most, t.candidates.size());
  auto add = [&](const probity::Task& t, const probity::Candidate& c) {
    std::vector<std::string_view> all;
    for (const auto& r : t.references) all.push_back(r.text);
    out.push_back({c.text, refs_of(all)});
  };
  if (interleaved) {
    for (std::size_t c = 0; c < most; ++c)
      for (const auto& t : ds.tasks)
        if (c < t.candidates.size()) add(t, t.candidates[c]);
  } else {
    for (const auto& t : ds.tasks)
      for (const auto& c : t.candidates) add(t, c);
  }
  return out;
}

const auto kAll = [](std::vector<std::string_view> r) { return r; };
const auto kReversed = [](std::vector<std::string_view> r) {
  std::reverse(r.begin(), r.end());
  return r;
};
const auto kDuplicatesAndEmpty = [](std::vector<std::string_view> r) {
  return std::vector<std::string_view>{r[2], "", r[0], r[2], "   ", r[5], r[0]};
};
const auto kFirst = [](std::vector<std::string_view> r) {
  return std::vector<std::string_view>{r[0]};
};

// Straightforward statistics of one metric for one item.
using Naive = std::function<Stats(const Item&)>;

struct Checked {
  std::string spec;
  Naive naive;
};

std::vector<Checked> checked_metrics() {
  static const auto chrf = probity::make_metric("chrf");
  static const auto chrfpp = probity::make_metric("chrf++");
  return {
      {"bleu", [](const Item& i) { return naive_bleu(i.hyp, i.refs); }},
      {"chrf", [](const Item& i) { return naive_chrf(*chrf, 0, i.hyp, i.refs); }},
      {"chrf++", [](const Item& i) { return naive_chrf(*chrfpp, 2, i.hyp, i.refs); }},
      {"rouge1", [](const Item& i) { return naive_rouge(1, false, i.hyp, i.refs); }},
      {"rouge2,stem=true", [](const Item& i) { return naive_rouge(2, true, i.hyp, i.refs); }},
      {"rougeL", [](const Item& i) { return naive_rouge(3, false, i.hyp, i.refs); }},
      {"rougeL,stem=true", [](const Item& i) { return naive_rouge(3, true, i.hyp, i.refs); }},
  };
}

// The straightforward statistics of every item for every checked metric, computed once per
// reference variant (they do not depend on the order of items or on the cache).
const std::vector<std::vector<Stats>>& expected(const std::string& variant,
                                                const std::vector<Item>& file_order) {
  static std::map<std::string, std::vector<std::vector<Stats>>> memo;
  auto it = memo.find(variant);
  if (it != memo.end()) return it->second;
  std::vector<std::vector<Stats>> out;
  for (const auto& m : checked_metrics()) {
    std::vector<Stats> per_item;
    for (const auto& item : file_order) per_item.push_back(m.naive(item));
    out.push_back(std::move(per_item));
  }
  return memo.emplace(variant, std::move(out)).first->second;
}

// Scores `order` (items of the given variants, each variant's items in file order) with every
// checked metric, each item scored by all metrics before the next (as compute_stats does), and
// compares with the straightforward statistics.
void check(const std::vector<std::pair<std::string, std::vector<Item>>>& variants,
           const std::vector<Item>& order, std::size_t cache_entries) {
  probity::metrics::detail::set_reference_cache_capacity(cache_entries);
  // An item is found by its hypothesis and references (views of the dataset).
  using Key = std::pair<const char*, std::vector<const char*>>;
  auto key_of = [](const Item& item) {
    Key k{item.hyp.data(), {}};
    for (auto r : item.refs) k.second.push_back(r.data());
    return k;
  };
  std::map<Key, std::size_t> where;
  std::vector<const std::vector<std::vector<Stats>>*> tables;
  for (std::size_t v = 0; v < variants.size(); ++v) {
    tables.push_back(&expected(variants[v].first, variants[v].second));
    for (std::size_t i = 0; i < variants[v].second.size(); ++i)
      where[key_of(variants[v].second[i])] = v * 1000000 + i;
  }
  const auto specs = checked_metrics();
  std::vector<std::unique_ptr<probity::Metric>> metrics;
  for (const auto& m : specs) metrics.push_back(probity::make_metric(m.spec));
  for (const auto& item : order) {
    const std::size_t w = where.at(key_of(item));
    const auto& table = *tables[w / 1000000];
    const std::size_t i = w % 1000000;
    MetricInput in;
    in.candidate = item.hyp;
    in.references = item.refs;
    for (std::size_t m = 0; m < metrics.size(); ++m) {
      Stats got(metrics[m]->num_stats());
      metrics[m]->item_stats(in, got);
      ASSERT_EQ(got, table[m][i]) << variants[w / 1000000].first << ", " << specs[m].spec
                                  << ", item " << i << ", cache " << cache_entries;
    }
  }
  probity::metrics::detail::set_reference_cache_capacity(8);
}

TEST(LexicalCache, AllReferencesInFileOrderAndInterleaved) {
  const auto file = items(kAll, false);
  ASSERT_EQ(file.size(), 1600u);
  check({{"all", file}}, file, 8);
  check({{"all", file}}, items(kAll, true), 8);
}

TEST(LexicalCache, ReferencesInAnotherOrder) {
  const auto reversed = items(kReversed, false);
  check({{"reversed", reversed}}, items(kReversed, true), 8);
  // The same sets in both orders, one after the other: each order is its own entry.
  const auto all = items(kAll, false);
  std::vector<Item> mixed;
  for (std::size_t i = 0; i < all.size(); ++i) {
    mixed.push_back(all[i]);
    mixed.push_back(reversed[i]);
  }
  check({{"all", all}, {"reversed", reversed}}, mixed, 8);
}

TEST(LexicalCache, DuplicateEmptyAndBlankReferences) {
  const auto file = items(kDuplicatesAndEmpty, false);
  check({{"duplicates", file}}, file, 8);
}

TEST(LexicalCache, OneReferenceFirstSightAndPrepared) {
  // File order: each reference is scored directly for its first candidate, then prepared;
  // interleaved: never prepared.
  const auto file = items(kFirst, false);
  check({{"first", file}}, file, 8);
  check({{"first", file}}, items(kFirst, true), 8);
}

TEST(LexicalCache, CacheOffAndEvicted) {
  const auto file = items(kAll, false);
  check({{"all", file}}, file, 0);  // every set prepared in scratch, never looked up
  // One entry per family and thread: chrF and chrF++, and ROUGE with and without stemming, evict
  // each other's entry at every item.
  check({{"all", file}}, file, 1);
  const auto first = items(kFirst, false);
  check({{"first", first}}, first, 0);  // always scored directly
}

TEST(LexicalCache, SameStatisticsAtAnyThreadCount) {
  const auto& ds = summeval();
  const auto all = probity::all_items(ds);
  std::vector<std::vector<double>> runs;
  for (unsigned threads : {1u, 2u, 3u}) {
    std::vector<probity::MetricSelection> sel;
    for (const char* spec : {"bleu", "chrf", "rougeL.f", "rouge2"})
      sel.push_back(probity::select_metric(spec));
    probity::ScoreOptions so;
    so.threads = threads;
    std::vector<double> flat;
    for (const auto& s : probity::compute_stats(ds, all, sel, so))
      flat.insert(flat.end(), s.stats.begin(), s.stats.end());
    runs.push_back(std::move(flat));
  }
  EXPECT_EQ(runs[0], runs[1]);
  EXPECT_EQ(runs[0], runs[2]);
}

}  // namespace
