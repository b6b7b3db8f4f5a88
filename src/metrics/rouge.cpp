// ROUGE-1/2/L/Lsum exactly as Google's rouge-score computes them (rouge_scorer.py), with its
// tokenizer and NLTK's Porter stemmer.
//
// Speed: tokens are interned to integer ids in a per-thread vocabulary that also caches each
// word's stem, so a word is stemmed once per thread; n-gram overlaps work on ids; ROUGE-L's LCS
// length is computed bit-parallel (Hyyrö 2004), which gives the same length as rouge-score's DP.
//
// Statistics per item (4 numbers):
//   multi=max:  overlap, hypothesis count, reference count of the chosen reference, #references
//   multi=mean: sum of precision, recall, F over references, #references
// "overlap" is the clipped n-gram match count (rouge1/2), the LCS length (rougeL) or the
// union-LCS hits (rougeLsum); the counts are n-grams or tokens.
#include "metrics/rouge.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <bit>
#include <cmath>
#include <cstdint>
#include <cstring>
#include <memory>
#include <string>
#include <string_view>
#include <unordered_map>
#include <utility>
#include <vector>

#include "metrics/builtin.hpp"
#include "metrics/lexical_common.hpp"
#include "probity/error.hpp"
#include "probity/metric.hpp"
#include "probity/signature.hpp"
#include "probity/text.hpp"

namespace probity::metrics {
namespace detail {
namespace {

// A string of up to 8 bytes as one word, injective for each length: two overlapping 4-byte loads,
// or 1-3 single bytes (as XXH3 packs short inputs). Fixed-size loads: a memcpy of variable length
// would be a library call, which dominated the profile.
std::uint64_t pack_short(std::string_view s) {
  const char* p = s.data();
  const std::size_t n = s.size();
  if (n >= 4) {
    std::uint32_t lo = 0, hi = 0;
    std::memcpy(&lo, p, 4);
    std::memcpy(&hi, p + n - 4, 4);
    return lo | std::uint64_t{hi} << 32;
  }
  if (n == 0) return 0;
  const auto* u = reinterpret_cast<const unsigned char*>(p);
  return u[0] | std::uint64_t{u[n >> 1]} << 8 | std::uint64_t{u[n - 1]} << 16;
}

std::uint64_t mix(std::uint64_t h) {
  h ^= h >> 33;
  h *= 0xFF51AFD7ED558CCDULL;
  h ^= h >> 33;
  return h;
}

// The hash of a string of up to 8 bytes from its packed form.
std::uint64_t hash_short(std::uint64_t packed, std::size_t n) {
  return mix(packed ^ (n * 0x9E3779B97F4A7C15ULL));
}

std::uint64_t hash_bytes(std::string_view s) {
  if (s.size() <= 8) return hash_short(pack_short(s), s.size());
  std::uint64_t h = 0x9E3779B97F4A7C15ULL ^ s.size();
  while (s.size() > 8) {
    std::uint64_t x = 0;
    std::memcpy(&x, s.data(), 8);
    h = (h ^ x) * 0xC4CEB9FE1A85EC53ULL;
    h ^= h >> 29;
    s.remove_prefix(8);
  }
  return mix(h ^ pack_short(s));
}

// Open-addressing map from non-empty strings to ids. Keys of up to 8 bytes (most words) are
// stored and compared as one integer, longer ones live in an arena; lookups never allocate.
class StringTable {
 public:
  StringTable() { slots_.resize(kInitialSlots); }

  // The value stored for `key` (non-empty), or nullptr.
  const std::uint32_t* find(std::string_view key, std::uint64_t h) const {
    const std::uint64_t inline_key = key.size() <= 8 ? pack_short(key) : 0;
    for (std::size_t i = h & mask();; i = (i + 1) & mask()) {
      const Slot& s = slots_[i];
      if (s.length == 0) return nullptr;
      if (s.length != key.size()) continue;
      if (key.size() <= 8 ? s.key == inline_key
                          : std::memcmp(arena_.data() + s.key, key.data(), key.size()) == 0)
        return &s.value;
    }
  }

  // `key` must be non-empty and not present.
  void insert(std::string_view key, std::uint64_t h, std::uint32_t value) {
    if ((size_ + 1) * 2 > slots_.size()) grow();
    Slot slot{0, static_cast<std::uint32_t>(key.size()), value};
    if (key.size() <= 8) {
      slot.key = pack_short(key);
    } else {
      slot.key = arena_.size();
      arena_.append(key);
    }
    place(slot, h);
    ++size_;
  }

  std::size_t size() const { return size_; }
  std::size_t arena_bytes() const { return arena_.size(); }
  void clear() {
    slots_.assign(kInitialSlots, Slot{});
    arena_.clear();
    size_ = 0;
  }

 private:
  static constexpr std::size_t kInitialSlots = 1024;
  struct Slot {
    std::uint64_t key = 0;     // the bytes themselves (length <= 8) or an arena offset
    std::uint32_t length = 0;  // 0 marks an empty slot
    std::uint32_t value = 0;
  };
  std::size_t mask() const { return slots_.size() - 1; }
  std::uint64_t rehash(const Slot& s) const {
    if (s.length > 8) return hash_bytes(std::string_view(arena_).substr(s.key, s.length));
    return hash_short(s.key, s.length);
  }
  void place(const Slot& slot, std::uint64_t h) {
    std::size_t i = h & mask();
    while (slots_[i].length != 0) i = (i + 1) & mask();
    slots_[i] = slot;
  }
  void grow() {
    std::vector<Slot> old(slots_.size() * 2);
    old.swap(slots_);
    for (const Slot& s : old) {
      if (s.length != 0) place(s, rehash(s));
    }
  }

  std::vector<Slot> slots_;
  std::string arena_;
  std::size_t size_ = 0;
};

// Token -> id interning. Ids only need to agree within one item, so each thread has its own
// vocabulary and nothing is shared or locked.
class Vocab {
 public:
  // Id of a token as scored: its Porter stem when stemming applies. With stemming, raw tokens
  // are looked up in their own table, so each distinct word is stemmed once per thread.
  std::uint32_t token_id(std::string_view raw, bool stem) {
    if (!stem) return word_id(raw);
    const std::uint64_t h = hash_bytes(raw);
    if (const std::uint32_t* id = raw_stemmed_.find(raw, h)) return *id;
    const std::uint32_t id =
        text::rouge_should_stem(raw) ? word_id(text::porter_stem(raw)) : word_id(raw);
    raw_stemmed_.insert(raw, h, id);
    return id;
  }

  std::size_t size() const { return words_.size(); }

  // Bounds memory on huge vocabularies; called between items, never within one. True when the
  // ids were reset (what was tokenized before is void).
  bool reset_if_large() {
    constexpr std::size_t kMaxEntries = std::size_t{1} << 22;
    constexpr std::size_t kMaxBytes = std::size_t{1} << 28;
    if (words_.size() + raw_stemmed_.size() > kMaxEntries ||
        words_.arena_bytes() + raw_stemmed_.arena_bytes() > kMaxBytes) {
      words_.clear();
      raw_stemmed_.clear();
      return true;
    }
    return false;
  }

 private:
  std::uint32_t word_id(std::string_view word) {
    const std::uint64_t h = hash_bytes(word);
    if (const std::uint32_t* id = words_.find(word, h)) return *id;
    const auto id = static_cast<std::uint32_t>(words_.size());
    words_.insert(word, h, id);
    return id;
  }

  StringTable words_;        // scored form (word or stem) -> id
  StringTable raw_stemmed_;  // raw token -> id of its stem
};

// One text as token ids, split into newline-separated sentences for rougeLsum.
struct TokenizedText {
  std::vector<std::uint32_t> ids;
  std::vector<std::size_t> sentence_ends;  // end offsets into ids of non-empty sentences

  std::span<const std::uint32_t> sentence(std::size_t k) const {
    const std::size_t begin = k == 0 ? 0 : sentence_ends[k - 1];
    return std::span<const std::uint32_t>(ids).subspan(begin, sentence_ends[k] - begin);
  }
};

// Hyyrö's bit-parallel LCS length (2004). The bits run over one sequence in `words` 64-bit words;
// `mask_of(x)` gives the match mask (`words` words) of each symbol x of the other sequence, or
// nullptr for a symbol that never matches. The recurrence is V' = (V + (V & M)) | (V & ~M); the
// LCS length is the number of zero bits; padding bits start at 1 and stay 1 (their M is 0).
template <class MaskOf>
std::size_t bit_parallel_lcs(std::size_t words, std::span<const std::uint32_t> symbols,
                             MaskOf mask_of, std::vector<std::uint64_t>& bits) {
  std::size_t ones = 0;
  if (words == 1) {
    std::uint64_t v = ~std::uint64_t{0};
    for (std::uint32_t x : symbols) {
      const std::uint64_t* m = mask_of(x);
      if (m == nullptr) continue;
      v = (v + (v & *m)) | (v & ~*m);
    }
    ones = static_cast<std::size_t>(std::popcount(v));
  } else {
    bits.assign(words, ~std::uint64_t{0});
    std::uint64_t* v = bits.data();
    for (std::uint32_t x : symbols) {
      const std::uint64_t* m = mask_of(x);
      if (m == nullptr) continue;
      std::uint64_t carry = 0;
      for (std::size_t w = 0; w < words; ++w) {
        const std::uint64_t y = v[w];
        const std::uint64_t u = y & m[w];
        const std::uint64_t sum1 = y + u;
        const std::uint64_t sum2 = sum1 + carry;
        carry = static_cast<std::uint64_t>(sum1 < y) | static_cast<std::uint64_t>(sum2 < sum1);
        v[w] = sum2 | (y & ~m[w]);
      }
    }
    for (std::size_t w = 0; w < words; ++w) ones += static_cast<std::size_t>(std::popcount(v[w]));
  }
  return words * 64 - ones;
}

// An item's references tokenized once per reference set (ReferenceCache): token ids are those of
// the thread's vocabulary, so the cache is cleared when that is reset. For ROUGE-L, made when
// first needed: the references' distinct tokens numbered 1..n (symbols) and each reference's
// match mask of each symbol for the bit-parallel LCS (bits over the reference's positions; row 0,
// all zero, for a token of no reference).
struct PreparedRefs {
  std::vector<TokenizedText> refs;
  mutable bool has_masks = false;
  mutable KeyTable<std::uint32_t> symbol_of;              // token id -> symbol
  mutable std::vector<std::vector<std::uint64_t>> masks;  // per reference: (n + 1) x words

  void make_masks() const {
    if (has_masks) return;
    std::size_t tokens = 0;
    for (const auto& r : refs) tokens += r.ids.size();
    symbol_of.clear();
    symbol_of.prepare(tokens);
    std::uint32_t n = 0;
    for (const auto& r : refs)
      for (std::uint32_t id : r.ids) {
        std::uint32_t& sym = symbol_of.insert(id);
        if (sym == 0) sym = ++n;
      }
    masks.resize(refs.size());
    for (std::size_t k = 0; k < refs.size(); ++k) {
      const auto& ids = refs[k].ids;
      const std::size_t words = (ids.size() + 63) / 64;
      masks[k].assign((std::size_t{n} + 1) * words, 0);
      for (std::size_t j = 0; j < ids.size(); ++j)
        masks[k][std::size_t{*symbol_of.find(ids[j])} * words + j / 64] |= std::uint64_t{1}
                                                                           << (j % 64);
    }
    has_masks = true;
  }
  // Length of the LCS of reference k and a text given as symbols (a symbol of no reference has
  // the all-zero row 0, which leaves the bits as they are).
  std::size_t lcs(std::size_t k, std::span<const std::uint32_t> symbols,
                  std::vector<std::uint64_t>& bits) const {
    const std::size_t len = refs[k].ids.size();
    if (len == 0 || symbols.empty()) return 0;
    const std::size_t words = (len + 63) / 64;
    const std::uint64_t* m = masks[k].data();
    return bit_parallel_lcs(
        words, symbols, [&](std::uint32_t sym) { return m + sym * words; }, bits);
  }
};

// Per-thread working memory, reused across items so steady-state scoring does not allocate.
struct Scratch {
  Vocab vocab;
  ReferenceCache<PreparedRefs> cache;
  std::string scan_buffer;
  TokenizedText hyp;
  std::vector<std::int32_t> count_a, count_b;  // indexed by token id, kept all-zero between uses
  std::vector<std::uint64_t> bigram_keys;
  std::vector<std::int32_t> bigram_counts;
  std::vector<std::int32_t> slot_of;  // token id -> bit-mask row in lcs_length, else -1
  std::vector<std::uint64_t> masks, bits;
  std::vector<std::uint32_t> hyp_symbols;  // ROUGE-L: the candidate's tokens as reference symbols
  std::vector<std::int32_t> table;
  std::vector<char> marked;

  void size_id_arrays(std::size_t n) {
    if (count_a.size() < n) {
      count_a.resize(n, 0);
      count_b.resize(n, 0);
    }
  }
};

Scratch& scratch() {
  thread_local Scratch s;
  return s;
}

class IdSink final : public text::RougeTokenSink {
 public:
  IdSink(Vocab& vocab, bool stem, std::vector<std::uint32_t>& out)
      : vocab_(vocab), stem_(stem), out_(out) {}
  void operator()(std::string_view token) override {
    out_.push_back(vocab_.token_id(token, stem_));
  }

 private:
  Vocab& vocab_;
  bool stem_;
  std::vector<std::uint32_t>& out_;
};

// With `sentences`, the text is split on '\n' as rouge-score's rougeLsum does; sentences without
// tokens are dropped (they contribute nothing to the union LCS or the counts).
void tokenize(std::string_view text, bool stem, bool unicode, bool sentences, Scratch& s,
              TokenizedText& out) {
  out.ids.clear();
  out.sentence_ends.clear();
  IdSink sink(s.vocab, stem, out.ids);
  if (!sentences) {
    text::rouge_scan(text, unicode, s.scan_buffer, sink);
    return;
  }
  while (true) {
    const std::size_t nl = text.find('\n');
    const std::size_t before = out.ids.size();
    text::rouge_scan(text.substr(0, nl), unicode, s.scan_buffer, sink);
    if (out.ids.size() > before) out.sentence_ends.push_back(out.ids.size());
    if (nl == std::string_view::npos) break;
    text.remove_prefix(nl + 1);
  }
}

struct Counts {
  double overlap = 0, hyp = 0, ref = 0;
};

// Clipped unigram matches: sum over words of min(count in hyp, count in ref).
std::size_t unigram_overlap(std::span<const std::uint32_t> hyp, std::span<const std::uint32_t> ref,
                            std::vector<std::int32_t>& count) {
  for (std::uint32_t id : ref) ++count[id];
  std::size_t overlap = 0;
  for (std::uint32_t id : hyp) {
    if (count[id] > 0) {
      --count[id];
      ++overlap;
    }
  }
  for (std::uint32_t id : ref) count[id] = 0;
  return overlap;
}

// Clipped bigram matches, counting the reference's bigrams in a small open-addressing table.
std::size_t bigram_overlap(std::span<const std::uint32_t> hyp, std::span<const std::uint32_t> ref,
                           Scratch& s) {
  if (hyp.size() < 2 || ref.size() < 2) return 0;
  constexpr std::uint64_t kEmpty = ~std::uint64_t{0};  // ids stay far below 2^32 - 1
  std::size_t size = 16;
  while (size < 2 * ref.size()) size *= 2;
  s.bigram_keys.assign(size, kEmpty);
  s.bigram_counts.assign(size, 0);
  const std::size_t mask = size - 1;
  auto key = [](std::span<const std::uint32_t> ids, std::size_t i) {
    return (std::uint64_t{ids[i - 1]} << 32) | ids[i];
  };
  auto slot = [&](std::uint64_t k) {
    std::size_t i = mix(k) & mask;
    while (s.bigram_keys[i] != k && s.bigram_keys[i] != kEmpty) i = (i + 1) & mask;
    return i;
  };
  for (std::size_t i = 1; i < ref.size(); ++i) {
    const std::uint64_t k = key(ref, i);
    const std::size_t j = slot(k);
    s.bigram_keys[j] = k;
    ++s.bigram_counts[j];
  }
  std::size_t overlap = 0;
  for (std::size_t i = 1; i < hyp.size(); ++i) {
    const std::size_t j = slot(key(hyp, i));
    if (s.bigram_counts[j] > 0) {
      --s.bigram_counts[j];
      ++overlap;
    }
  }
  return overlap;
}

// rouge-score's lcs_ind: fills its DP table and backtracks the same way, marking the indices of
// `ref` on the chosen LCS (which LCS is chosen matters for the union in rougeLsum).
void mark_lcs(std::span<const std::uint32_t> ref, std::span<const std::uint32_t> can,
              std::vector<std::int32_t>& table, std::vector<char>& marked) {
  const std::size_t rows = ref.size(), cols = can.size(), w = cols + 1;
  table.assign((rows + 1) * w, 0);
  for (std::size_t i = 1; i <= rows; ++i) {
    for (std::size_t j = 1; j <= cols; ++j) {
      table[i * w + j] = ref[i - 1] == can[j - 1]
                             ? table[(i - 1) * w + j - 1] + 1
                             : std::max(table[(i - 1) * w + j], table[i * w + j - 1]);
    }
  }
  std::size_t i = rows, j = cols;
  while (i > 0 && j > 0) {
    if (ref[i - 1] == can[j - 1]) {
      marked[i - 1] = 1;
      --i;
      --j;
    } else if (table[i * w + j - 1] > table[(i - 1) * w + j]) {
      --j;
    } else {
      --i;
    }
  }
}

// rouge-score's _summary_level_lcs hits: per reference sentence the union of its LCS with every
// candidate sentence, each token counted at most as often as it remains in both summaries.
std::size_t summary_lcs_hits(const TokenizedText& ref, const TokenizedText& hyp, Scratch& s) {
  if (ref.sentence_ends.size() <= 1 && hyp.sentence_ends.size() <= 1)
    return lcs_length(ref.ids, hyp.ids);  // one sentence each: the union is the LCS itself
  auto& count_r = s.count_a;
  auto& count_c = s.count_b;
  for (std::uint32_t id : ref.ids) ++count_r[id];
  for (std::uint32_t id : hyp.ids) ++count_c[id];
  std::size_t hits = 0;
  for (std::size_t k = 0; k < ref.sentence_ends.size(); ++k) {
    const auto r = ref.sentence(k);
    s.marked.assign(r.size(), 0);
    for (std::size_t c = 0; c < hyp.sentence_ends.size(); ++c)
      mark_lcs(r, hyp.sentence(c), s.table, s.marked);
    for (std::size_t i = 0; i < r.size(); ++i) {
      if (!s.marked[i]) continue;
      const std::uint32_t t = r[i];
      if (count_c[t] > 0 && count_r[t] > 0) {
        ++hits;
        --count_c[t];
        --count_r[t];
      }
    }
  }
  for (std::uint32_t id : ref.ids) count_r[id] = 0;
  for (std::uint32_t id : hyp.ids) count_c[id] = 0;
  return hits;
}

}  // namespace

std::size_t lcs_length(std::span<const std::uint32_t> a, std::span<const std::uint32_t> b) {
  if (a.empty() || b.empty()) return 0;
  // Bits run over `b`; the other sequence is scanned once. Pick the cheaper orientation.
  const auto words_of = [](std::size_t n) { return (n + 63) / 64; };
  if (a.size() * words_of(b.size()) > b.size() * words_of(a.size())) std::swap(a, b);
  Scratch& s = scratch();
  const std::size_t words = words_of(b.size());
  const std::uint32_t max_id = *std::max_element(b.begin(), b.end());
  if (s.slot_of.size() <= max_id) s.slot_of.resize(std::size_t{max_id} + 1, -1);

  // Match mask of every distinct symbol of b.
  s.masks.clear();
  std::int32_t slots = 0;
  for (std::size_t j = 0; j < b.size(); ++j) {
    std::int32_t& slot = s.slot_of[b[j]];
    if (slot < 0) {
      slot = slots++;
      s.masks.resize(static_cast<std::size_t>(slots) * words, 0);
    }
    s.masks[static_cast<std::size_t>(slot) * words + j / 64] |= std::uint64_t{1} << (j % 64);
  }

  const std::size_t length = bit_parallel_lcs(
      words, a,
      [&](std::uint32_t id) -> const std::uint64_t* {
        if (id > max_id || s.slot_of[id] < 0) return nullptr;
        return s.masks.data() + static_cast<std::size_t>(s.slot_of[id]) * words;
      },
      s.bits);
  for (std::uint32_t id : b) s.slot_of[id] = -1;
  return length;
}

}  // namespace detail

namespace {

enum class Kind { kRouge1, kRouge2, kRougeL, kRougeLsum, kRougeN };

// rouge-score's precision, recall and scoring.fmeasure, with the same operations in the same
// order so values agree to the last bit. Zero counts give 0, as rouge-score returns.
void prf(double overlap, double hyp, double ref, double* out) {
  const double p = hyp > 0 ? overlap / hyp : 0.0;
  const double r = ref > 0 ? overlap / ref : 0.0;
  out[0] = p;
  out[1] = r;
  out[2] = p + r > 0 ? 2 * p * r / (p + r) : 0.0;
}

class Rouge final : public Metric {
 public:
  Rouge(Kind kind, std::string base, const MetricSpec& spec, std::size_t n = 0)
      : kind_(kind), n_(n), base_(std::move(base)), name_(spec.text()) {
    stem_ = spec.get_bool("stem");
    mean_ = spec.get("multi") == "mean";
    first_only_ = spec.get("refs") == "first";
    unicode_ = spec.get("tokenizer") == "unicode";
    cache_tag_ = fmt::format("rouge|{}|{}", stem_, unicode_);  // what shapes the tokens
  }

  std::string name() const override { return name_; }
  std::string signature() const override {
    return Signature(base_)
        .field("stem", stem_ ? "yes" : "no")
        .field("multi", mean_ ? "mean" : "max")
        .field("refs", first_only_ ? "first" : "all")
        .field("tok", unicode_ ? "unicode" : "default")
        .versioned();
  }
  std::vector<std::string> parts() const override { return {"p", "r", "f"}; }
  std::size_t primary_part() const override { return 2; }
  std::size_t num_stats() const override { return 4; }
  bool has(MetricCapability capability) const override {
    return capability == MetricCapability::kRougeBootstrap ||
           (capability == MetricCapability::kAsciiOnlyTokens && !unicode_);
  }
  CorpusAggregation corpus_aggregation() const override { return CorpusAggregation::kMeanScores; }

  void item_stats(const MetricInput& input, std::span<double> stats) const override {
    auto& s = detail::scratch();
    if (s.vocab.reset_if_large()) s.cache.clear();
    const std::size_t n_refs =
        first_only_ ? std::min<std::size_t>(1, input.references.size()) : input.references.size();
    // The references tokenized with sentence ends (which only rougeLsum reads: the tokens are
    // the same without them), shared by rouge1/2/L/Lsum of the same options.
    const std::span<const std::string_view> given(input.references.data(), n_refs);
    const detail::PreparedRefs& refs =
        *s.cache.get(cache_tag_, given, false, [&](detail::PreparedRefs& p) {
          p.has_masks = false;
          p.refs.resize(n_refs);
          for (std::size_t k = 0; k < n_refs; ++k)
            detail::tokenize(given[k], stem_, unicode_, true, s, p.refs[k]);
        });
    detail::tokenize(input.candidate, stem_, unicode_, kind_ == Kind::kRougeLsum, s, s.hyp);
    if (kind_ == Kind::kRougeL) {
      refs.make_masks();
      s.hyp_symbols.resize(s.hyp.ids.size());
      for (std::size_t j = 0; j < s.hyp.ids.size(); ++j) {
        const std::uint32_t* sym = refs.symbol_of.find(s.hyp.ids[j]);
        s.hyp_symbols[j] = sym ? *sym : 0;
      }
    }
    std::fill(stats.begin(), stats.end(), 0.0);
    stats[3] = static_cast<double>(n_refs);
    double best_f = 0;
    for (std::size_t k = 0; k < n_refs; ++k) {
      const detail::Counts c = counts(s, refs, k);
      double score[3];
      prf(c.overlap, c.hyp, c.ref, score);
      if (mean_) {
        for (int j = 0; j < 3; ++j) stats[j] += score[j];
      } else if (k == 0 || score[2] > best_f) {  // first best, like score_multi's np.argmax
        best_f = score[2];
        stats[0] = c.overlap;
        stats[1] = c.hyp;
        stats[2] = c.ref;
      }
    }
  }

  void sentence_score(std::span<const double> stats, std::span<double> parts) const override {
    if (stats[3] == 0) {
      std::fill(parts.begin(), parts.end(), std::nan(""));
      return;
    }
    if (mean_) {
      for (int j = 0; j < 3; ++j) parts[j] = stats[j] / stats[3];
      return;
    }
    prf(stats[0], stats[1], stats[2], parts.data());
  }

  std::string undefined_reason(std::span<const double> /*stats*/) const override {
    return "the item has no reference";
  }

 private:
  detail::Counts counts(detail::Scratch& s, const detail::PreparedRefs& refs, std::size_t k) const {
    const detail::TokenizedText& reference = refs.refs[k];
    const std::span<const std::uint32_t> hyp = s.hyp.ids, ref = reference.ids;
    auto ngram_count = [](std::size_t len, std::size_t n) {
      return static_cast<double>(len >= n ? len - n + 1 : 0);
    };
    switch (kind_) {
      case Kind::kRouge1:
        s.size_id_arrays(s.vocab.size());
        return {static_cast<double>(detail::unigram_overlap(hyp, ref, s.count_a)),
                ngram_count(hyp.size(), 1), ngram_count(ref.size(), 1)};
      case Kind::kRouge2:
        return {static_cast<double>(detail::bigram_overlap(hyp, ref, s)),
                ngram_count(hyp.size(), 2), ngram_count(ref.size(), 2)};
      case Kind::kRougeL:
        return {static_cast<double>(refs.lcs(k, s.hyp_symbols, s.bits)),
                static_cast<double>(hyp.size()), static_cast<double>(ref.size())};
      case Kind::kRougeLsum:
        s.size_id_arrays(s.vocab.size());
        return {static_cast<double>(detail::summary_lcs_hits(reference, s.hyp, s)),
                static_cast<double>(hyp.size()), static_cast<double>(ref.size())};
      case Kind::kRougeN:
        return {static_cast<double>(ngram_overlap(hyp, ref, n_)), ngram_count(hyp.size(), n_),
                ngram_count(ref.size(), n_)};
    }
    return {};
  }

  // rouge-score's _score_ngrams: the sum over n-grams of min(count in hyp, count in ref).
  static std::size_t ngram_overlap(std::span<const std::uint32_t> hyp,
                                   std::span<const std::uint32_t> ref, std::size_t n) {
    if (hyp.size() < n || ref.size() < n) return 0;
    auto key = [n](std::span<const std::uint32_t> t, std::size_t i) {
      return std::string(reinterpret_cast<const char*>(t.data() + i), n * sizeof(std::uint32_t));
    };
    std::unordered_map<std::string, std::size_t> left;
    for (std::size_t i = 0; i + n <= hyp.size(); ++i) ++left[key(hyp, i)];
    std::size_t overlap = 0;
    for (std::size_t i = 0; i + n <= ref.size(); ++i) {
      auto it = left.find(key(ref, i));
      if (it != left.end() && it->second > 0) {
        --it->second;
        ++overlap;
      }
    }
    return overlap;
  }

  Kind kind_;
  std::size_t n_ = 0;  // kRougeN's order
  std::string base_, name_, cache_tag_;
  bool stem_ = false, mean_ = false, first_only_ = false, unicode_ = false;
};

std::vector<OptionSpec> rouge_options() {
  return {option_bool("stem", false,
                      "NLTK Porter stemming of tokens longer than 3 characters (rouge-score's "
                      "use_stemmer)"),
          option_choice("multi", "max", {"max", "mean"},
                        "several references: max keeps the reference with the best F as "
                        "rouge-score's score_multi, mean averages p/r/f"),
          option_choice("refs", "all", {"all", "first"}, "the references of each item to use"),
          option_choice("tokenizer", "default", {"default", "unicode"},
                        "default = rouge-score's, which drops non-[a-z0-9] text; unicode keeps "
                        "letters and digits of every script (not rouge-score compatible)")};
}

void add(MetricRegistry& registry, Kind kind, const char* base, const char* description) {
  registry.add(MetricInfo{
      base, description, rouge_options(),
      [kind, base](const MetricSpec& spec, const MetricContext&) -> std::unique_ptr<Metric> {
        return std::make_unique<Rouge>(kind, base, spec);
      }});
}

}  // namespace

void register_rouge(MetricRegistry& registry) {
  add(registry, Kind::kRouge1, "rouge1", "ROUGE-1 unigram overlap p/r/F (Google rouge-score)");
  add(registry, Kind::kRouge2, "rouge2", "ROUGE-2 bigram overlap p/r/F (Google rouge-score)");
  add(registry, Kind::kRougeL, "rougeL",
      "ROUGE-L longest common subsequence p/r/F (Google rouge-score)");
  add(registry, Kind::kRougeLsum, "rougeLsum",
      "ROUGE-Lsum summary-level union LCS over newline-separated sentences (Google rouge-score)");
  // rouge-score's rouge[0-9] beyond 1 and 2 (rouge0 is its ValueError).
  for (std::size_t n = 3; n <= 9; ++n) {
    const std::string base = fmt::format("rouge{}", n);
    registry.add(MetricInfo{
        base, fmt::format("ROUGE-{} {}-gram overlap p/r/F (Google rouge-score)", n, n),
        rouge_options(),
        [n, base](const MetricSpec& spec, const MetricContext&) -> std::unique_ptr<Metric> {
          return std::make_unique<Rouge>(Kind::kRougeN, base, spec, n);
        }});
  }
}

}  // namespace probity::metrics
